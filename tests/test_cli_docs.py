"""Every command is documented: it has help, and the README lists it."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from generator.cli import main

README = (Path(__file__).resolve().parents[1] / "README.md").read_text("utf-8")


@pytest.mark.parametrize("name", sorted(main.commands))
def test_every_command_has_help_and_a_readme_entry(name: str) -> None:
    command = main.commands[name]
    assert command.help and command.help.strip(), f"{name} has no help text"
    result = CliRunner().invoke(main, [name, "--help"])
    assert result.exit_code == 0
    assert "Exit codes: 0 ok; 1 a check or gate failed; 2 usage error" in result.output
    assert f"\n  {name} " in README or f"\n  {name}\n" in README, f"README does not list {name}"


def test_the_readme_documents_the_exit_codes_and_the_two_commands() -> None:
    for text in ("make demo", "make test", "| 0 |", "| 1 |", "| 2 |", "PROBEPRESS_PRIVATE"):
        assert text in README
