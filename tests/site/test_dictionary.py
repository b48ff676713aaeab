"""The data dictionary page: every format, every field, every allowed value, every column."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from generator.schema import schemas
from generator.site import tidy
from generator.site.dictionary import dictionary_page, prose, type_of
from generator.site.markup import GENERATED_MARKER
from generator.store import Layout
from tests.site.downstream import generated_root


@pytest.fixture(scope="module")
def page() -> str:
    return dictionary_page()


def _sections(page: str) -> dict[str, str]:
    parts = re.split(r"^## (.+)$", page, flags=re.MULTILINE)
    return {parts[i]: parts[i + 1] for i in range(1, len(parts), 2)}


def test_every_format_and_every_field_has_its_meaning(page: str) -> None:
    sections = _sections(page)
    for name, body in schemas().items():
        schema = json.loads(body)
        section = sections[name.removesuffix(".schema.json")]
        assert f"(schemas/{name})" in section
        own = section.split("\n### ", 1)[0]
        for field, spec in schema["properties"].items():
            (row,) = [line for line in own.splitlines() if line.startswith(f"| `{field}` |")]
            assert prose(spec["description"]) in row, (name, field)
        for part, spec in schema.get("$defs", {}).items():
            if spec.get("type") == "object":
                assert f"### {name.removesuffix('.schema.json')}: {part}" in section


def test_the_verdict_statuses_are_listed_with_their_meaning(page: str) -> None:
    verdict = _sections(page)["verdict"]
    (row,) = [line for line in verdict.splitlines() if line.startswith("| `verdict` |")]
    for status in ("pass", "fail", "grader_refused", "lost"):
        assert f'`"{status}"`' in row
    assert "the panel decides" in row
    draw = _sections(page)["draw"]
    for status in ("provider_error", "timeout", "empty", "content_filter"):
        assert f'`"{status}"`' in draw


def test_every_csv_column_of_the_example_is_explained(
    page: str, example_src: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    from generator.models.leaderboard import Leaderboard

    root = generated_root(example_src, tmp_path_factory)
    downloads = Layout.at(root, root / ".private").downloads_dir
    csv_part = _sections(page)["Tidy leaderboard CSV"]
    for volume in ("vol-001", "vol-002"):
        board = Leaderboard.model_validate_json((downloads / tidy.json_name(volume)).read_bytes())
        for column in tidy.columns(board):
            assert f"| `{column}` |" in csv_part, column
    assert (downloads / "dictionary.md").read_text("utf-8") == page


def test_types_in_words() -> None:
    assert type_of({"anyOf": [{"type": "string"}, {"type": "null"}]}) == "string or null"
    assert type_of({"type": "array", "items": {"$ref": "#/$defs/Attempt"}}) == "list of Attempt"
    assert type_of({"type": "string", "pattern": "^(a|b)$"}) == "string matching ^(a&#124;b)$"
    assert type_of({"enum": ["x"]}) == 'one of `"x"`'


def test_the_page_is_generated_and_inert(page: str) -> None:
    assert page.splitlines()[2] == GENERATED_MARKER
    assert "<script" not in page
    assert prose("a ``<b>`` c") == "a &#60;b&#62; c"
