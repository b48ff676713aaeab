"""Hostile inputs, continued: control characters, names, encodings and shapes."""

from __future__ import annotations

import os
from pathlib import Path

from generator.models.bundle import BundleManifest
from tests.factories import edit_bytes, edit_json, edit_line
from tests.hostile.factories import (
    VOL,
    Expect,
    add_candidate,
    candidate_field,
    first_line,
    line_of,
    replace_text,
    set_first_line,
    volume_yaml,
    where,
)

RAW_CONTROLS = ("\x1b", "\x9b", "\u202e", "\u200b", "Traceback")

# --- control characters echoed in messages -----------------------------------------------


def escape_in_unknown_key(root: Path) -> Expect:
    directory, shown = where(root, "draws.jsonl")
    edit_line(directory, "draws.jsonl", 0, lambda r: {**r, "\x1b[2J\u202e": 1})
    return Expect(
        (f"{shown}:1: \\x1b[2J\\u202e: Extra inputs are not permitted [schema]",),
        absent=RAW_CONTROLS,
    )


def escape_in_file_name(root: Path) -> Expect:
    directory, _ = where(root)
    name = "notes\x1b]0;pwned\x07\u202e.txt"
    (directory / name).write_bytes(b"x")
    shown = f"bundles/{VOL}/{directory.name}/notes\\x1b]0;pwned\\x07\\u202e.txt"
    return Expect(
        (f"{shown}: file is not listed in bundle.json [unexpected-file]",), absent=RAW_CONTROLS
    )


def bidi_display_name(root: Path) -> Expect:
    line = add_candidate(root, "demo-zz/zz-1", "Evil \u202eName")
    return Expect(
        (
            f"bundles/{VOL}/volume.yaml:{line}: display_name 'Evil \\u202eName' contains the "
            "invisible character U+202E; names are shown on every page",
            "[naming/invisible-character]",
        ),
        code=1,
        args=("gate", "naming", VOL),
        absent=RAW_CONTROLS,
    )


def c1_in_json_output(root: Path) -> Expect:
    api = candidate_field(root, "api")
    line = add_candidate(root, api + "\x9b", "Other Name")
    return Expect(
        (f'"line": {line}', "\\u009b"),
        code=1,
        args=("gate", "naming", VOL, "--json"),
        absent=RAW_CONTROLS,
        stream="stdout",
    )


# --- names and slugs ---------------------------------------------------------------------


def colliding_api_naming(root: Path) -> Expect:
    api = candidate_field(root, "api")
    other = api.upper()
    line = add_candidate(root, other, "Another Display Name")
    return Expect(
        (
            f"bundles/{VOL}/volume.yaml:{line}: {other} and {api} both slugify to "
            f"'{api.replace('/', '-')}' [naming/slug-collision]",
        ),
        code=1,
        args=("gate", "naming", VOL),
    )


def colliding_api_figures(root: Path) -> Expect:
    api = candidate_field(root, "api")
    other = api.upper()
    line = add_candidate(root, other, "Another Display Name")
    return Expect(
        (
            f"bundles/{VOL}/volume.yaml:{line}: candidates '{api}' and '{other}' both slugify "
            f"to '{api.replace('/', '-')}', one bundle folder [slug-collision]",
        ),
        args=("figures", VOL),
        absent=("registered twice",),
    )


def empty_slug(root: Path) -> Expect:
    line = add_candidate(root, "!!!", "Punctuation Only")
    return Expect(
        (
            f"bundles/{VOL}/volume.yaml:{line}: '!!!' slugifies to nothing, so it has no bundle "
            "folder or figure ids [naming/empty-slug]",
        ),
        code=1,
        args=("gate", "naming", VOL),
    )


def invisible_twin(root: Path) -> Expect:
    name = candidate_field(root, "display_name")
    twin = name[:2] + "\u200b" + name[2:]
    line = add_candidate(root, "demo-zz/zz-2", twin)
    shown = twin.replace("\u200b", "\\u200b")
    return Expect(
        (
            f"bundles/{VOL}/volume.yaml:{line}: display name '{shown}' is used by "
            f"{candidate_field(root, 'api')} and demo-zz/zz-2",
            "[naming/duplicate-display-name]",
            f"bundles/{VOL}/volume.yaml:{line}: display_name '{shown}' contains the invisible "
            "character U+200B",
        ),
        code=1,
        args=("gate", "naming", VOL),
        absent=RAW_CONTROLS,
    )


def vote_on_unknown_item(root: Path) -> Expect:
    directory, shown = where(root, "panel.jsonl")
    edit_line(directory, "panel.jsonl", 0, lambda r: {**r, "item": "no-such-item"})
    return Expect(
        (
            f"{shown}:1: vote on item no-such-item, which is not in bank v1 "
            "[preflight/unknown-item]",
        ),
        code=1,
        args=("check", VOL),
        absent=("KeyError",),
    )


# --- encodings and line endings ------------------------------------------------------------


def bom_line(root: Path) -> Expect:
    directory, shown = where(root, "draws.jsonl")
    edit_bytes(directory, "draws.jsonl", lambda b: b"\xef\xbb\xbf" + b)
    return Expect((f"{shown}:1: starts with a UTF-8 byte-order mark; save without it [bom]",))


def bom_document(rel: str) -> object:
    def mutate(root: Path) -> Expect:
        path = root / rel.format(slug=where(root)[0].name)
        path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
        shown = rel.format(slug=where(root)[0].name)
        return Expect((f"{shown}:1: starts with a UTF-8 byte-order mark; save without it [bom]",))

    return mutate


def crlf_lines(root: Path) -> Expect:
    directory, shown = where(root, "verdicts.jsonl")
    edit_bytes(directory, "verdicts.jsonl", lambda b: b.replace(b"\n", b"\r\n", 2))
    return Expect(
        (
            f"{shown}:1: line ends with CR LF; JSONL lines end with LF only [crlf]",
            f"{shown}:2: line ends with CR LF; JSONL lines end with LF only [crlf]",
        )
    )


def nul_in_line(root: Path) -> Expect:
    directory, shown = where(root, "draws.jsonl")
    line = first_line(directory, "draws.jsonl")
    set_first_line(directory, "draws.jsonl", line.replace(b'"item"', b'"it\x00em"', 1))
    return Expect((f"{shown}:1: invalid JSON: control character (\\u0000-\\u001F) found",))


def nul_in_yaml(root: Path) -> Expect:
    path = volume_yaml(root)
    replace_text(path, "title: Volume", "title: Vol\x00ume")
    line = line_of(path, "title:")
    shown = f"bundles/{VOL}/volume.yaml:{line}"
    return Expect((f"{shown}: invalid YAML: character U+0000 is not allowed in YAML [syntax]",))


def bad_utf8_yaml(root: Path) -> Expect:
    path = volume_yaml(root)
    data = path.read_bytes()
    at = data.index(b"Volume 001")
    path.write_bytes(data[:at] + b"\xc3\x28" + data[at:])
    return Expect((f"bundles/{VOL}/volume.yaml: file is not valid UTF-8 (byte {at + 1}) [utf-8]",))


def bad_utf8_line(root: Path) -> Expect:
    directory, shown = where(root, "panel.jsonl")
    line = first_line(directory, "panel.jsonl")
    set_first_line(directory, "panel.jsonl", line.replace(b'"judge"', b'"ju\xffdge"', 1))
    byte = first_line(directory, "panel.jsonl").index(b"\xff") + 1
    return Expect((f"{shown}:1: line is not valid UTF-8 (byte {byte}) [utf-8]",))


# --- shapes: empty, truncated, wrong, newer -------------------------------------------------


def empty_manifest(root: Path) -> Expect:
    directory, shown = where(root, "bundle.json")
    (directory / "bundle.json").write_bytes(b"")
    return Expect((f"{shown}:1: invalid JSON: EOF while parsing a value (column 0) [syntax]",))


def empty_volume(root: Path) -> Expect:
    volume_yaml(root).write_bytes(b"")
    shown = f"bundles/{VOL}/volume.yaml"
    return Expect(
        (f"{shown}: Input should be a valid dictionary or instance of Volume, got null [schema]",)
    )


def empty_draws(root: Path) -> Expect:
    directory, shown = where(root, "draws.jsonl")
    edit_bytes(directory, "draws.jsonl", lambda b: b"")
    return Expect(
        (f"{shown}: 630 scheduled draws missing",),
        code=1,
        args=("gate", "preflight", VOL),
    )


def truncated_manifest(root: Path) -> Expect:
    directory, shown = where(root, "bundle.json")
    path = directory / "bundle.json"
    data = path.read_bytes()
    cut = data[: len(data) // 2]
    path.write_bytes(cut)
    line = cut.count(b"\n") + 1
    return Expect((f"{shown}:{line}: invalid JSON: EOF while parsing",))


def newer_manifest(root: Path) -> Expect:
    directory, shown = where(root, "bundle.json")
    edit_json(directory / "bundle.json", lambda m: m.update(schema_version=9))
    line = line_of(directory / "bundle.json", '"schema_version": 9')
    return Expect(
        (
            f"{shown}:{line}: schema_version: schema_version 9 is newer than this probepress "
            f"reads ({BundleManifest.supported_schema_version}); upgrade probepress [schema]",
        )
    )


def wrong_type_yaml(root: Path) -> Expect:
    path = volume_yaml(root)
    replace_text(path, "tools: false", "tools: [1]")
    line = line_of(path, "tools: [1]")
    shown = f"bundles/{VOL}/volume.yaml:{line}"
    return Expect(
        (f"{shown}: protocol.tools: Input should be a valid boolean, got an array [schema]",)
    )


def unknown_field_manifest(root: Path) -> Expect:
    directory, shown = where(root, "bundle.json")
    edit_json(directory / "bundle.json", lambda m: m.update(mood="cheerful"))
    line = line_of(directory / "bundle.json", '"mood"')
    return Expect((f"{shown}:{line}: mood: Extra inputs are not permitted [schema]",))


def size_mismatch(root: Path) -> Expect:
    directory, shown = where(root, "qualification.jsonl")
    edit_bytes(directory, "qualification.jsonl", lambda b: b + b"\n", seal=False)
    return Expect((f"{shown}: SHA-256/size do not match bundle.json",))


def unlisted_file(root: Path) -> Expect:
    directory, shown = where(root, "extra.jsonl")
    (directory / "extra.jsonl").write_bytes(b"{}\n")
    return Expect((f"{shown}: file is not listed in bundle.json [unexpected-file]",))


def too_many_records(root: Path) -> Expect:
    return Expect(
        ("bank/public.jsonl:6: more than 5 records (the max_records bound); the rest is not read",),
        args=("--limit", "max_records=5", "show", VOL),
    )


def over_long_line(root: Path) -> Expect:
    directory, shown = where(root, "draws.jsonl")
    set_first_line(directory, "draws.jsonl", b'{"pad":"' + b"x" * 5000 + b'"}')
    return Expect(
        (f"{shown}:1: line is longer than the 4096-byte bound [line-too-long]",),
        args=("--limit", "max_line_bytes=4096", "show", VOL),
    )


def escaping_volume_argument(root: Path) -> Expect:
    return Expect(("no volume '../bank' under bundles/",), args=("show", "../bank"))


def over_long_volume_argument(root: Path) -> Expect:
    name = "vol-" + "9" * 400
    return Expect((f"no volume '{name}' under bundles/",), args=("show", name))


def fifo_in_cache(root: Path) -> Expect:
    from generator.store import Layout, load_volume

    load_volume(Layout.at(root), VOL)  # fills the result cache in the private store
    entries = sorted(p for p in (root / ".private" / "cache").rglob("*") if p.is_file())
    assert entries, "reading the volume cached its rows"
    for entry in entries:
        entry.unlink()
        os.mkfifo(entry)
    return Expect(("vol-001: Volume 001",), code=0, stream="stdout")
