"""Leaks in PDF text layers: hyphenated line breaks, page breaks, compressed streams."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.errors import InputError
from generator.leaks import LeakIndex, scan_file
from tests.leaks.leak_samples import PROMPT, RESPONSE, SHORT, keys, minimal_pdf


def _broken_lines(text: str, width: int) -> list[str]:
    """Lay ``text`` out in lines of at most ``width`` characters, hyphenating long words."""
    lines: list[str] = []
    line = ""
    for word in text.split():
        if len(line) + 1 + len(word) <= width:
            line = f"{line} {word}".strip()
            continue
        if len(word) > 5:
            room = max(2, width - len(line) - 2)
            lines.append(f"{line} {word[:room]}-".strip())
            line = word[room:]
        else:
            lines.append(line)
            line = word
    return [*lines, line]


def test_hyphenated_prompt_in_a_compressed_pdf_is_found(tmp_path: Path, index: LeakIndex) -> None:
    lines = _broken_lines(PROMPT, 28)
    assert any(line.endswith("-") for line in lines)
    path = tmp_path / "leaderboard.pdf"
    path.write_bytes(minimal_pdf([["Vol 001 leaderboard", "sha256:0123"], lines]))
    assert b"ferry" not in path.read_bytes()
    [leak] = scan_file(index, path)
    assert (leak.secret_key, leak.whole, leak.page, leak.line) == ("item:h-0003", True, 2, None)
    assert str(leak) == (
        f"{path}: held-out prompt item:h-0003 appears on page 2 (the whole text, 316 characters)"
    )


def test_leak_across_a_page_break_is_found(tmp_path: Path, index: LeakIndex) -> None:
    lines = _broken_lines(RESPONSE, 40)
    path = tmp_path / "card.pdf"
    path.write_bytes(minimal_pdf([["Jury card", *lines[:3]], lines[3:]]))
    [leak] = scan_file(index, path)
    assert (leak.secret_key, leak.whole, leak.page) == ("draw:vol-001/acme-m1/h-0003/A/2", True, 1)


def test_pdf_without_leaks_and_pdf_named_otherwise(tmp_path: Path, index: LeakIndex) -> None:
    clean = tmp_path / "clean.pdf"
    clean.write_bytes(minimal_pdf([["Nothing held out here."]]))
    assert scan_file(index, clean) == []
    disguised = tmp_path / "export.bin"
    disguised.write_bytes(minimal_pdf([[SHORT]]))
    assert keys(scan_file(index, disguised)) == {"item:h-0009"}


def test_damaged_pdf_is_an_input_error(tmp_path: Path, index: LeakIndex) -> None:
    path = tmp_path / "broken.pdf"
    path.write_bytes(b"%PDF-1.4\nthis is not a pdf")
    with pytest.raises(InputError, match=r"broken\.pdf"):
        scan_file(index, path)


def test_weasyprint_pdf_with_css_hyphenation(tmp_path: Path, index: LeakIndex) -> None:
    weasyprint = pytest.importorskip("weasyprint")
    html = (
        '<html lang="en"><head><style>@page { size: A6; margin: 1cm }'
        " p { width: 4cm; hyphens: auto; text-align: justify }</style></head>"
        f"<body><h1>Results</h1><p>{RESPONSE}</p><p>{PROMPT}</p></body></html>"
    )
    path = tmp_path / "rendered.pdf"
    path.write_bytes(weasyprint.HTML(string=html).write_pdf())
    leaks = scan_file(index, path)
    assert {(leak.secret_key, leak.whole) for leak in leaks} == {
        ("draw:vol-001/acme-m1/h-0003/A/2", True),
        ("item:h-0003", True),
    }
    assert all(leak.page in (1, 2) for leak in leaks)  # A6 pages: the text spans two
