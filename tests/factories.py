"""Factories that apply one mutation to a copy of the example publication."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from generator.canonical import dumps
from generator.hashing import sha256_bytes

VOL1 = "vol-001"


def bundle_dir(root: Path, slug: str, volume: str = VOL1) -> Path:
    return root / "bundles" / volume / slug


def first_slug(root: Path, volume: str = VOL1) -> str:
    return sorted(p.name for p in (root / "bundles" / volume).iterdir() if p.is_dir())[0]


def reseal(directory: Path, name: str) -> None:
    """Update bundle.json's hash and size of ``name`` (as a runner sealing a bundle would)."""
    manifest_path = directory / "bundle.json"
    manifest = json.loads(manifest_path.read_text("utf-8"))
    data = (directory / name).read_bytes()
    manifest["files"][name] = {"sha256": sha256_bytes(data), "size": len(data)}
    manifest_path.write_text(dumps(manifest), "utf-8")


def edit_bytes(
    directory: Path, name: str, fn: Callable[[bytes], bytes], *, seal: bool = True
) -> None:
    path = directory / name
    path.write_bytes(fn(path.read_bytes()))
    if seal:
        reseal(directory, name)


def edit_lines(
    directory: Path,
    name: str,
    fn: Callable[[list[dict[str, Any]]], list[dict[str, Any]]],
    *,
    seal: bool = True,
) -> None:
    """Rewrite a JSONL file through ``fn`` over its parsed lines, then reseal."""
    path = directory / name
    rows = [json.loads(line) for line in path.read_text("utf-8").splitlines()]
    rows = fn(rows)
    path.write_text(
        "".join(
            json.dumps(r, sort_keys=True, separators=(",", ":"), ensure_ascii=False) + "\n"
            for r in rows
        ),
        "utf-8",
    )
    if seal:
        reseal(directory, name)


def edit_line(
    directory: Path, name: str, index: int, fn: Callable[[dict[str, Any]], dict[str, Any]]
) -> None:
    """Change line ``index`` (0-based) of a JSONL file through ``fn``."""

    def apply(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        rows[index] = fn(rows[index])
        return rows

    edit_lines(directory, name, apply)


def edit_json(path: Path, fn: Callable[[dict[str, Any]], None]) -> None:
    data = json.loads(path.read_text("utf-8"))
    fn(data)
    path.write_text(dumps(data), "utf-8")


def git_commit_all(root: Path, message: str = "example") -> None:
    """Make ``root`` a git checkout with everything committed (``.private`` is ignored)."""
    import subprocess

    env = {
        "GIT_AUTHOR_NAME": "test",
        "GIT_AUTHOR_EMAIL": "test@example.invalid",
        "GIT_COMMITTER_NAME": "test",
        "GIT_COMMITTER_EMAIL": "test@example.invalid",
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "GIT_CONFIG_SYSTEM": "/dev/null",
        # Fixed dates make commit ids depend on content only, so two roots built the same
        # way have the same history (release manifests record an inputs commit).
        "GIT_AUTHOR_DATE": "2026-11-30T00:00:00Z",
        "GIT_COMMITTER_DATE": "2026-11-30T00:00:00Z",
        "PATH": "/usr/bin:/bin:/usr/local/bin",
    }
    if not (root / ".git").exists():
        if not (root / ".gitignore").exists():
            (root / ".gitignore").write_text(".private/\n", "utf-8")
        subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True, env=env)
    subprocess.run(["git", "-C", str(root), "add", "-A"], check=True, env=env)
    subprocess.run(
        ["git", "-C", str(root), "commit", "-q", "--allow-empty", "-m", message],
        check=True,
        env=env,
    )


def edit_volume(root: Path, fn: Callable[[dict[str, Any]], None], volume: str = VOL1) -> str:
    """Change ``volume.yaml`` through ``fn`` and register the result again (a new
    pre-registration hash, as before any run); return the new text."""
    import yaml

    from generator.models.volume import Volume
    from generator.prereg import volume_preregistration_sha256

    path = root / "bundles" / volume / "volume.yaml"
    doc = yaml.safe_load(path.read_text("utf-8"))
    fn(doc)
    doc["preregistration"]["sha256"] = volume_preregistration_sha256(Volume.model_validate(doc))
    text = yaml.safe_dump(doc, sort_keys=False)
    path.write_text(text, "utf-8")
    return text


def line_number(path: Path, needle: str) -> int:
    """1-based number of the first line of ``path`` containing ``needle``."""
    for n, line in enumerate(path.read_text("utf-8").splitlines(), 1):
        if needle in line:
            return n
    raise AssertionError(f"{needle!r} not in {path}")
