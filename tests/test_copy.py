"""Copy of messages (issue 17, defect 10): no ".:", values quoted, the file's line."""

from __future__ import annotations

from pathlib import Path

from generator.errors import Problem
from generator.models.records import PanelVote
from generator.store.jsonl import Bounds, Problems, StreamResult, iter_jsonl
from generator.store.plain import parser_message
from tests.conftest import CliRun
from tests.store.test_jsonl_fast import VOTE


def test_a_finding_about_the_whole_tree_does_not_start_with_a_dot() -> None:
    found = Problem(".", None, "not-a-repository", "/r is not inside a git repository")
    assert str(found) == "/r is not inside a git repository [not-a-repository]"
    assert str(Problem("a.json", 3, "r", "m")) == "a.json:3: m [r]"


def _problems(tmp_path: Path, lines: list[bytes]) -> list[str]:
    path = tmp_path / "panel.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    problems = Problems()
    list(iter_jsonl(path, PanelVote, "panel.jsonl", problems, Bounds(), StreamResult()))
    return [str(p) for p in problems.items]


def test_a_bad_value_is_quoted_and_json_errors_name_the_files_line(tmp_path: Path) -> None:
    wrong = VOTE.replace(b'"vote":"fail"', b'"vote":"maybe"').replace(
        b'"vote":"pass"', b'"vote":"maybe"'
    )
    assert wrong != VOTE
    found = _problems(tmp_path, [VOTE, VOTE, wrong, b'{"item": "x", oops}'])
    assert any(
        p.startswith("panel.jsonl:3: vote: Input should be") and ", got 'maybe' [" in p
        for p in found
    ), found
    (bad_json,) = [p for p in found if p.startswith("panel.jsonl:4: ")]
    assert "invalid JSON" in bad_json and " at line " not in bad_json
    assert parser_message("key must be a string at line 1 column 15") == (
        "key must be a string (column 15)"
    )


def test_show_does_not_say_demonstration_data_twice(cli: CliRun) -> None:
    result = cli("show", "vol-001")
    assert result.exit_code == 0, result.output
    first = result.output.splitlines()[0]
    assert "demonstration data" in first
    assert first.count("demonstration data") == 1, first
