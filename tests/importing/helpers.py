"""What the importer tests share."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner, Result

from generator.cli.base import Group, State
from generator.cli.runners import COMMANDS
from generator.store import Layout


def run_cli(root: Path, *args: str) -> Result:
    """``import inspect|lm-eval ARGS`` through the error boundary every command has (the
    commands join the ``import`` group at merge)."""
    group = Group("import")
    for command in COMMANDS:
        group.add_command(command)
    state = State(Layout.at(root, root / ".private"), traceback=False)
    return CliRunner().invoke(group, list(args), obj=state, catch_exceptions=False)
