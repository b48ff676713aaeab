"""The table of hostile inputs for the readers (see ``test_readers``)."""

from __future__ import annotations

import os
from pathlib import Path

from tests.hostile.factories import (
    VOL,
    Case,
    Expect,
    add_key_to_first_line,
    fifo,
    first_line,
    line_of,
    manifest_files,
    replace_text,
    set_first_line,
    symlink,
    volume_yaml,
    where,
)

DEEP = 100_000
HUGE = "7" * 5000
LONG = "7" * 60


# --- files that are not regular files -------------------------------------------------


def fifo_in_bundle(name: str) -> Case:
    def mutate(root: Path) -> Expect:
        directory, shown = where(root, name)
        fifo(directory / name)
        return Expect((f"{shown}: is a FIFO (named pipe), not a regular file [not-a-file]",))

    return Case(f"fifo-{name}", mutate, bomb=True)


def fifo_at(rel: str, shown: str | None = None) -> Case:
    def mutate(root: Path) -> Expect:
        fifo(root / rel)
        text = shown if shown is not None else rel
        return Expect((f"{text.format(root=root)}: is a FIFO (named pipe), not a regular file",))

    return Case(f"fifo-{rel.replace('/', '-')}", mutate, bomb=True)


def fifo_private_responses(root: Path) -> Expect:
    directory, _ = where(root)
    path = root / ".private" / "responses" / VOL / f"{directory.name}.jsonl"
    fifo(path)
    return Expect((f"{path}: is a FIFO (named pipe), not a regular file [not-a-file]",))


def dev_zero_as_draws(root: Path) -> Expect:
    directory, shown = where(root, "draws.jsonl")
    symlink(directory / "draws.jsonl", "/dev/zero")
    return Expect((f"{shown}: is a symbolic link; bundles hold real files [no-symlinks]",))


def symlinked_volume_yaml(root: Path) -> Expect:
    path = volume_yaml(root)
    outside = root.parent / "volume-elsewhere.yaml"
    outside.write_bytes(path.read_bytes())
    symlink(path, outside)
    return Expect((f"bundles/{VOL}/volume.yaml: is a symbolic link; bundles hold real files",))


def directory_as_panel(root: Path) -> Expect:
    directory, shown = where(root, "panel.jsonl")
    (directory / "panel.jsonl").unlink()
    (directory / "panel.jsonl").mkdir()
    return Expect((f"{shown}: is a directory, not a regular file [not-a-file]",))


def device_as_verdicts(root: Path) -> Expect:
    import stat

    directory, shown = where(root, "verdicts.jsonl")
    (directory / "verdicts.jsonl").unlink()
    try:
        os.mknod(directory / "verdicts.jsonl", stat.S_IFCHR | 0o600, os.makedev(1, 5))
    except PermissionError:  # no CAP_MKNOD: a FIFO is the nearest non-regular file
        os.mkfifo(directory / "verdicts.jsonl")
        return Expect((f"{shown}: is a FIFO (named pipe), not a regular file [not-a-file]",))
    return Expect((f"{shown}: is a character device, not a regular file [not-a-file]",))


# --- nesting and integer bounds --------------------------------------------------------


def deep_json_manifest(root: Path) -> Expect:
    directory, shown = where(root, "bundle.json")
    (directory / "bundle.json").write_text("[" * DEEP, "utf-8")
    return Expect((f"{shown}:1: nesting is deeper than the 200-level bound [too-deep]",))


def deep_json_line(root: Path) -> Expect:
    directory, shown = where(root, "draws.jsonl")
    set_first_line(directory, "draws.jsonl", b'{"attempts":' + b"[" * DEEP)
    return Expect((f"{shown}:1: nesting is deeper than the 200-level bound [too-deep]",))


def deep_yaml(rel: str) -> Case:
    def mutate(root: Path) -> Expect:
        (root / rel).write_text("a: " + "[" * DEEP + "\n", "utf-8")
        return Expect((f"{rel}:1: nesting is deeper than the 100-level bound [too-deep]",))

    return Case(f"deep-yaml-{rel.rsplit('/', maxsplit=1)[-1]}", mutate, bomb=True)


def deep_block_yaml(root: Path) -> Expect:
    lines = "".join(f"{'  ' * n}k{n}:\n" for n in range(150))
    volume_yaml(root).write_text(lines + "  " * 150 + "x: 1\n", "utf-8")
    shown = f"bundles/{VOL}/volume.yaml"
    return Expect((f"{shown}:100: nesting is deeper than the 100-level bound [too-deep]",))


def huge_int_manifest(root: Path) -> Expect:
    directory, shown = where(root, "bundle.json")
    path = directory / "bundle.json"
    replace_text(path, '"draws_per_half": 5', f'"draws_per_half": {HUGE}')
    line = line_of(path, HUGE)
    return Expect((f"{shown}:{line}: integer is over the 50-digit bound [int-too-long]",))


def long_int_manifest(root: Path) -> Expect:
    directory, shown = where(root, "bundle.json")
    path = directory / "bundle.json"
    replace_text(path, '"draws_per_half": 5', f'"draws_per_half": {LONG}')
    line = line_of(path, LONG)
    return Expect(
        (f"{shown}:{line}: integer has 60 digits, over the 50-digit bound [int-too-long]",)
    )


def huge_int_yaml(root: Path) -> Expect:
    path = volume_yaml(root)
    replace_text(path, "draws_per_half: 5", f"draws_per_half: {HUGE}")
    line = line_of(path, HUGE)
    shown = f"bundles/{VOL}/volume.yaml:{line}"
    return Expect((f"{shown}: integer has 5000 digits, over the 50-digit bound [int-too-long]",))


def huge_int_line(digits: str, message: str) -> Case:
    def mutate(root: Path) -> Expect:
        directory, shown = where(root, "draws.jsonl")
        head, _, tail = first_line(directory, "draws.jsonl").rpartition(b'"latency_ms":')
        rest = tail.lstrip(b"0123456789")
        set_first_line(directory, "draws.jsonl", head + b'"latency_ms":' + digits.encode() + rest)
        return Expect((f"{shown}:1: {message} [int-too-long]",))

    return Case(f"int-{len(digits)}-digits-in-jsonl", mutate, bomb=True)


# --- file names in a manifest ------------------------------------------------------------


def manifest_name(case_id: str, name: str, message: str, rule: str = "bad-file-name") -> Case:
    def mutate(root: Path) -> Expect:
        directory, shown = where(root, "bundle.json")
        manifest_files(directory, lambda files: files.update({name: files["panel.jsonl"]}))
        return Expect((f"{shown}: files lists {message} [{rule}]",), absent=("\x1b",))

    return Case(case_id, mutate)


# --- duplicate keys ----------------------------------------------------------------------


def duplicate_in_line(name: str, pair: str, key: str) -> Case:
    def mutate(root: Path) -> Expect:
        directory, shown = where(root, name)
        add_key_to_first_line(directory, name, pair)
        return Expect((f'{shown}:1: duplicate key "{key}" [duplicate-key]',))

    return Case(f"duplicate-key-{name}-{key}", mutate)


def duplicate_nested_in_line(root: Path) -> Expect:
    directory, shown = where(root, "draws.jsonl")
    line = first_line(directory, "draws.jsonl")
    assert b'"status":"ok"}' in line
    set_first_line(
        directory,
        "draws.jsonl",
        line.replace(b'"status":"ok"}', b'"status":"ok","status":"timeout"}', 1),
    )
    return Expect((f'{shown}:1: duplicate key "status" [duplicate-key]',))


def duplicate_in_manifest(root: Path) -> Expect:
    directory, shown = where(root, "bundle.json")
    path = directory / "bundle.json"
    replace_text(
        path, '"demonstration": true,', '"demonstration": true,\n  "demonstration": false,'
    )
    line = line_of(path, '"demonstration": false')
    return Expect((f'{shown}:{line}: duplicate key "demonstration" [duplicate-key]',))


def duplicate_in_yaml(rel: str, old: str, new: str, key: str) -> Case:
    def mutate(root: Path) -> Expect:
        path = root / rel
        replace_text(path, old, old + new)
        line = line_of(path, new.strip())
        return Expect((f'{rel}:{line}: duplicate key "{key}" [duplicate-key]',))

    return Case(f"duplicate-key-{rel.rsplit('/', maxsplit=1)[-1]}-{key}", mutate)


def duplicate_in_public_bank(root: Path) -> Expect:
    path = root / "bank" / "public.jsonl"
    line = path.read_bytes().split(b"\n", 1)
    path.write_bytes(line[0][:-1] + b',"core":true}\n' + line[1])
    return Expect(('bank/public.jsonl:1: duplicate key "core" [duplicate-key]',))


def duplicate_in_registry(root: Path) -> Expect:
    path = root / "figures" / "figures.json"
    replace_text(path, '"generator":', '"generator": "x",\n  "generator":')
    line = line_of(path, '"generator": "x"') + 1
    return Expect(
        (f'figures/figures.json:{line}: duplicate key "generator" [duplicate-key]',),
        args=("figures", VOL, "--verify"),
    )


def yaml_alias(root: Path) -> Expect:
    path = volume_yaml(root)
    replace_text(path, "halves:\n  - A", "halves: &h\n  - A")
    replace_text(path, "retry_on:\n  - provider_error\n  - timeout", "retry_on: *h")
    line = line_of(path, "retry_on: *h")
    shown = f"bundles/{VOL}/volume.yaml:{line}"
    return Expect((f"{shown}: YAML aliases (*name) are not accepted; write the value out",))


def deep_release(root: Path) -> Expect:
    rel = f"site_src/volumes/{VOL}/release.json"
    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    (root / rel).write_text('{"a":' * DEEP, "utf-8")
    # verify reads a damaged release as a finding about the publication (exit 1), with
    # the reader's refusal on the same line.
    return Expect(
        (f"{rel}:1: nesting is deeper than the 200-level bound [too-deep]",),
        code=1,
        args=("verify",),
    )


def deep_fingerprints(root: Path) -> Expect:
    (root / "figures" / "fingerprints.json").write_text('{"files":' + "[" * DEEP, "utf-8")
    return Expect(
        (
            # A finding is one line: the newline of the embedded refusal is escaped too.
            "figures/fingerprints.json: cannot read the fingerprint registry:\\x0a"
            "figures/fingerprints.json:1: nesting is deeper than the 200-level bound [too-deep]",
        ),
        code=1,
        args=("gate", "publishing", VOL),
    )
