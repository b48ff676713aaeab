"""The scanner's former blind spots (issue 12): each disguise of a held-out text that a
public file once carried unreported is now found, and files that cannot be read safely
are reported instead of hanging the scan or exhausting memory."""

from __future__ import annotations

import html
import json
import os
import sys
import threading
import unicodedata
from pathlib import Path

import pytest

from generator.errors import InputError
from generator.leaks import (
    LeakConfig,
    LeakIndex,
    Unscannable,
    normalise,
    scan_file,
    scan_paths,
    scan_text,
)
from generator.leaks.extract import decode_references
from generator.leaks.ucd import IGNORABLE
from tests.leaks.leak_samples import PROMPT, RESPONSE, SHORT, keys

PROMPT_KEY = "item:h-0003"
RESPONSE_KEY = "draw:vol-001/acme-m1/h-0003/A/2"


def _numeric(text: str) -> str:
    return "".join(f"&#{ord(c)};" if n % 2 else f"&#x{ord(c):x};" for n, c in enumerate(text))


@pytest.mark.parametrize("name", ["notes.md", "bundle.json", "draws.jsonl", "page.html"])
def test_numeric_character_references_are_decoded_everywhere(index: LeakIndex, name: str) -> None:
    text = _numeric(SHORT)
    if name.endswith("jsonl"):
        text = json.dumps({"response": text})
    assert keys(scan_text(index, text, name)) == {"item:h-0009"}


def test_named_references_are_decoded_in_plain_text(index: LeakIndex) -> None:
    escaped = html.escape(RESPONSE).replace("ø", "&oslash;").replace(" ", "&nbsp;", 3)
    assert keys(scan_text(index, escaped, "notes.md")) == {RESPONSE_KEY}
    # Without the ; a name stays text, as in "R&D" or "&notes"; numbers need none.
    assert decode_references("R&D &notes caf&eacute &#104i &#x68;") == "R&D &notes caf&eacute hi h"


@pytest.mark.parametrize("char", ["\u200e", "\u2063", "\u202e", "\u2066", "\U000e0041", "\u3164"])
def test_every_invisible_character_is_removed(index: LeakIndex, char: str) -> None:
    hidden = char.join(SHORT)
    assert keys(scan_text(index, hidden, "a.txt")) == {"item:h-0009"}


def test_ignorable_set_is_default_ignorable_plus_bidi_controls() -> None:
    # Spot checks from DerivedCoreProperties.txt and PropList.txt: the set is derived,
    # not listed, so it must hold what Unicode says and nothing visible.
    assert {"\u00ad", "\u061c", "\u180e", "\u200b", "\u200e", "\u202a", "\u2063"} <= IGNORABLE
    assert {"\u2066", "\u2069", "\ufe0f", "\ufeff", "\U000e0001", "\U000e01ef"} <= IGNORABLE
    assert not {" ", "\u00a0", "a", "\u0301", "\ufff9"} & IGNORABLE
    assert all(unicodedata.category(c) in {"Cf", "Mn", "Lo", "Cn"} for c in IGNORABLE)


def test_cyrillic_and_greek_homoglyphs_match_their_latin_look_alikes(index: LeakIndex) -> None:
    swap = str.maketrans("aeopcxyABEHKMOPTX", "аеорсхуАВЕНКМОРТХ")
    assert keys(scan_text(index, SHORT.translate(swap), "a.txt")) == {"item:h-0009"}
    greek = str.maketrans("ABEHIKMNOPTXYZo", "ΑΒΕΗΙΚΜΝΟΡΤΧΥΖο")
    assert keys(scan_text(index, RESPONSE.upper().translate(greek), "a.txt")) == {RESPONSE_KEY}
    assert normalise("раураl") == normalise("paypal")


@pytest.mark.parametrize(
    "disguise",
    ["Reply with the si**ng**le word ba_na_na.", "Reply with the sin`gle` word b<b>an</b>ana."],
)
def test_markdown_emphasis_inside_words_does_not_hide_a_match(
    index: LeakIndex, disguise: str
) -> None:
    assert keys(scan_text(index, disguise, "page.md")) == {"item:h-0009"}
    # Markdown only: a plain text file shows the markers as they are.
    assert scan_text(index, disguise, "page.txt") == []


def test_markdown_is_also_read_as_written(index: LeakIndex) -> None:
    """The rendered reading deletes `_`; the literal reading still finds snake_case text."""
    from generator.leaks import LeakIndex as Index
    from generator.leaks import Secret

    secret = "call the function parse_file_header with the raw bytes and then stop"
    snake = Index.build([Secret("item:h-9", "prompt", secret)])
    assert keys(scan_text(snake, f"Do this: {secret}.", "page.md")) == {"item:h-9"}


def test_text_named_like_an_image_and_text_after_a_nul_are_scanned(
    tmp_path: Path, index: LeakIndex
) -> None:
    (tmp_path / "figure.png").write_text(PROMPT, "utf-8")
    (tmp_path / "nul.txt").write_bytes(b"\x00" + SHORT.encode())
    (tmp_path / "utf16.txt").write_bytes(SHORT.encode("utf-16-be"))  # NUL first, no BOM
    (tmp_path / "bom16.txt").write_bytes(SHORT.encode("utf-16"))
    (tmp_path / "real.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(64))
    leaks = scan_paths(index, [tmp_path], root=tmp_path)
    assert sorted((leak.source, leak.secret_key) for leak in leaks) == [
        ("bom16.txt", "item:h-0009"),
        ("figure.png", PROMPT_KEY),
        ("nul.txt", "item:h-0009"),
        ("utf16.txt", "item:h-0009"),
    ]


def test_undecodable_bytes_never_hide_ascii(index: LeakIndex, tmp_path: Path) -> None:
    path = tmp_path / "mixed.txt"
    path.write_bytes(b"\xff\xfe\xe2" + b" \xc3".join(w.encode() for w in SHORT.split()) + b"\x80")
    assert keys(scan_file(index, path)) == {"item:h-0009"}


def test_fifo_is_reported_not_read(tmp_path: Path, index: LeakIndex) -> None:
    os.mkfifo(tmp_path / "pipe.txt")
    (tmp_path / "ok.txt").write_text("nothing here", "utf-8")
    refused: list[Unscannable] = []
    done: list[list[object]] = []
    worker = threading.Thread(
        target=lambda: done.append(
            list(scan_paths(index, [tmp_path], root=tmp_path, unscannable=refused))
        ),
        daemon=True,
    )
    worker.start()
    worker.join(timeout=30)
    assert done == [[]], "the scan blocked on a FIFO"
    assert [str(r) for r in refused] == [
        "pipe.txt: is a FIFO, not a regular file: it cannot be scanned for held-out text"
    ]
    with pytest.raises(InputError, match=r"pipe\.txt: is a FIFO"):
        scan_paths(index, [tmp_path / "pipe.txt"])


def test_symlinks_are_reported_and_never_followed(tmp_path: Path, index: LeakIndex) -> None:
    (tmp_path / "target.txt").write_text(SHORT, "utf-8")
    (tmp_path / "leaderboard.pdf").symlink_to("/dev/zero")
    (tmp_path / "copy.txt").symlink_to(tmp_path / "target.txt")
    (tmp_path / "linked-dir").symlink_to(tmp_path, target_is_directory=True)
    refused: list[Unscannable] = []
    leaks = scan_paths(index, [tmp_path], root=tmp_path, unscannable=refused)
    assert [leak.source for leak in leaks] == ["target.txt"]
    assert [(r.source, r.rule) for r in refused] == [
        ("copy.txt", "not-regular"),
        ("leaderboard.pdf", "not-regular"),
        ("linked-dir", "not-regular"),
    ]
    assert refused[0].message.startswith("is a symbolic link, not a regular file")


def test_oversized_file_is_reported_not_read(tmp_path: Path) -> None:
    from generator.leaks import Secret

    tight = LeakIndex.build(
        [Secret("item:h-1", "prompt", SHORT)], config=LeakConfig(max_file_bytes=64)
    )
    (tmp_path / "big.txt").write_text("x" * 65, "utf-8")
    (tmp_path / "small.txt").write_text(SHORT, "utf-8")
    refused: list[Unscannable] = []
    leaks = scan_paths(tight, [tmp_path], root=tmp_path, unscannable=refused)
    assert keys(leaks) == {"item:h-1"}
    assert [str(r) for r in refused] == [
        "big.txt: is 65 bytes, over the leak scan's bound of 64: it cannot be scanned "
        "for held-out text"
    ]


def test_the_leaks_package_has_no_import_cycle() -> None:
    """index never imports scan or stream (they import it): the cycle index → scan →
    stream → index is gone."""
    source = Path(sys.modules["generator.leaks.index"].__file__ or "").read_text("utf-8")
    assert "generator.leaks.scan" not in source and "generator.leaks.stream" not in source
    assert not hasattr(LeakIndex, "scan_text") and not hasattr(LeakIndex, "scan_file")
