"""The result cache: a shortcut that can never return a stale answer.

Every test here changes one input after the cache was filled and checks that the result
is the one a cold run gives (the mutation tests of tests/gates run on warm caches too).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import generator.figures
import generator.leaks.scan
from generator import cache, figures
from generator.checking import run_gates
from generator.store import Layout
from tests.conftest import CliRun
from tests.factories import git_commit_all

VOL = "vol-001"


def _layout(root: Path, cache: bool | Path = True) -> Layout:
    return Layout.at(root, root / ".private", cache=cache)


def _holdout(layout: Layout) -> list[str]:
    report = run_gates(layout, VOL, ["holdout"])
    return [f"{f.rule} {f.path}" for r in report.results for f in r.findings]


class _Counting:
    """Counts the files the leak scanner actually reads."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.files: list[str] = []
        real = generator.leaks.scan._scan

        def counted(index, path, label, seen):  # type: ignore[no-untyped-def]
            self.files.append(label)
            return real(index, path, label, seen)

        monkeypatch.setattr(generator.leaks.scan, "_scan", counted)


def test_keys_are_unambiguous_and_depend_on_the_code(monkeypatch: pytest.MonkeyPatch) -> None:
    assert cache.key("ab", "c") != cache.key("a", "bc")
    assert cache.key(["a", "b"]) != cache.key("a", "b")
    assert cache.key("a") == cache.key("a")
    before = cache.key("a")
    monkeypatch.setattr(cache, "code_digest", lambda: "0" * 64)
    assert cache.key("a") != before


def test_code_digest_covers_every_module(tmp_path: Path) -> None:
    package = Path(generator.figures.__file__).resolve().parent.parent
    assert cache.code_digest() == cache.tree_digest(package)
    (tmp_path / "sub").mkdir()
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "sub" / "b.py").write_text("y = 2\n")
    before = cache.tree_digest(tmp_path)
    (tmp_path / "sub" / "b.py").write_text("y = 3\n")
    edited = cache.tree_digest(tmp_path)
    (tmp_path / "sub" / "c.py").write_text("")
    assert len({before, edited, cache.tree_digest(tmp_path)}) == 3


def test_code_digest_covers_python_and_its_unicode_tables(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """NFKC and casefold come from Python's Unicode tables: another Python, another key."""
    import sys
    import unicodedata

    (tmp_path / "a.py").write_text("x = 1\n")
    here = cache.tree_digest(tmp_path)
    monkeypatch.setattr(sys, "version", "3.99.0 (another build)")
    other_python = cache.tree_digest(tmp_path)
    monkeypatch.setattr(unicodedata, "unidata_version", "99.0.0")
    other_tables = cache.tree_digest(tmp_path)
    assert len({here, other_python, other_tables}) == 3


def test_entries_are_atomic_and_keys_checked(tmp_path: Path) -> None:
    store = cache.Cache(tmp_path / "c")
    entry = cache.key("x")
    assert not store.has("ns", entry) and store.get("ns", entry) is None
    store.put("ns", entry, b"value")
    assert store.has("ns", entry) and store.get("ns", entry) == b"value"
    assert [p.name for p in (tmp_path / "c" / "ns").rglob("*") if p.is_file()] == [entry]
    with pytest.raises(ValueError, match="SHA-256"):
        store.get("ns", "../../etc/passwd")


def test_an_unwritable_cache_only_loses_the_shortcut(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    store = cache.Cache(blocker)
    store.put("ns", cache.key("x"), b"value")  # no exception
    assert store.get("ns", cache.key("x")) is None


def test_where_the_cache_lives(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(cache.CACHE_ENV, raising=False)
    monkeypatch.delenv(cache.NO_CACHE_ENV, raising=False)
    assert _layout(tmp_path).cache_dir == (tmp_path / ".private" / "cache").resolve()
    assert _layout(tmp_path, cache=False).cache is None
    monkeypatch.setenv(cache.CACHE_ENV, str(tmp_path / "elsewhere"))
    assert _layout(tmp_path).cache_dir == (tmp_path / "elsewhere").resolve()
    monkeypatch.setenv(cache.NO_CACHE_ENV, "1")
    assert _layout(tmp_path).cache is None


def test_holdout_skips_files_scanned_clean_and_only_those(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    layout = _layout(root, cache=root.parent / "cache")
    counting = _Counting(monkeypatch)
    assert _holdout(layout) == []
    cold = list(counting.files)
    assert cold and "bank/public.jsonl" in cold
    counting.files.clear()
    assert _holdout(layout) == []
    assert counting.files == []  # every file was known clean: nothing read, no index built

    # A leak added afterwards: its file has new bytes, so it is scanned and found.
    page = root / "notes.md"
    prompt = next(iter(layout_bank_private(layout))).strip()
    page.write_text(f"# Notes\n\n{prompt}\n", "utf-8")
    found = _holdout(layout)
    assert counting.files == ["notes.md"]
    assert found == ["leak-prompt notes.md"]
    counting.files.clear()
    assert _holdout(layout) == found  # a file with a leak is never remembered as clean
    assert counting.files == ["notes.md"]


def layout_bank_private(layout: Layout) -> list[str]:
    """Held-out prompts (plain strings), read the way the gate reads them."""
    from generator.store.volume import load_volume

    bank = load_volume(layout, VOL).bank
    return [i.prompt for i in bank.private.values() if isinstance(i.prompt, str)]


def test_holdout_rescans_everything_when_the_secrets_change(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    layout = _layout(root, cache=root.parent / "cache")
    assert _holdout(layout) == []
    counting = _Counting(monkeypatch)
    responses = sorted((root / ".private" / "responses").rglob("*.jsonl"))[0]
    lines = responses.read_bytes().splitlines(keepends=True)
    record = json.loads(lines[0])
    record["text"] = "A brand new held-out answer that nobody has ever seen before, " * 3
    lines[0] = (json.dumps(record) + "\n").encode()
    responses.write_bytes(b"".join(lines))
    _holdout(layout)
    assert "bank/public.jsonl" in counting.files  # new secrets: nothing is known clean


def test_no_cache_means_no_cache(cli: CliRun, root: Path) -> None:
    shutil_cache = root / ".private" / "cache"
    if shutil_cache.exists():
        import shutil

        shutil.rmtree(shutil_cache)
    result = cli("--no-cache", "check", VOL, "--json")
    assert json.loads(result.stdout)["volume"] == VOL
    assert not shutil_cache.exists()
    cli("check", VOL, "--json")
    assert (shutil_cache / "leak-clean").is_dir()


def test_figures_are_recomputed_every_time(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No remembered digest stands in for the publishing gate's recomputation."""
    layout = _layout(root, cache=root.parent / "cache")
    assert figures.write(layout, VOL)[1] is False  # nothing changed
    calls: list[str] = []
    real = figures.compute

    def counted(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append("compute")
        return real(*args, **kwargs)

    monkeypatch.setattr(figures, "compute", counted)
    count, changed = figures.write(layout, VOL)
    assert (changed, calls) == (False, ["compute"])
    assert count == len([k for k in figures.load_registry(layout).figures if k.startswith(VOL)])
    assert figures.verify(layout, VOL) == [] and calls == ["compute", "compute"]
    assert not (root.parent / "cache" / "figures").exists()


def test_a_changed_registry_is_caught_with_a_warm_cache(root: Path) -> None:
    layout = _layout(root, cache=root.parent / "cache")
    assert figures.verify(layout, VOL) == []  # fills the cache
    path = layout.figures_registry
    registry = json.loads(path.read_text("utf-8"))
    fid = next(
        k for k, v in registry["figures"].items() if k.startswith(VOL) and v["kind"] == "count"
    )
    registry["figures"][fid]["display"] = "999"
    path.write_text(json.dumps(registry, indent=2), "utf-8")
    mismatches = [m.path for m in figures.verify(layout, VOL)]
    assert mismatches == [fid]


def test_a_changed_source_byte_is_recomputed_with_a_warm_cache(root: Path) -> None:
    layout = _layout(root, cache=root.parent / "cache")
    assert figures.verify(layout, VOL) == []
    volume_file = root / "bundles" / VOL / "volume.yaml"
    volume_file.write_bytes(volume_file.read_bytes() + b"# a comment changes the bytes\n")
    mismatches = figures.verify(layout, VOL)
    assert mismatches and all("volume.yaml changed" in m.message for m in mismatches)


def test_check_gives_the_same_report_cold_and_warm(cli: CliRun, root: Path) -> None:
    import shutil

    shutil.rmtree(root / ".private" / "cache")  # the example's copy comes warm
    git_commit_all(root)
    cold = cli("--no-cache", "check", VOL, "--json")
    first = cli("check", VOL, "--json")
    warm = cli("check", VOL, "--json")
    assert cold.exit_code == first.exit_code == warm.exit_code == 0
    assert json.loads(cold.stdout) == json.loads(first.stdout) == json.loads(warm.stdout)


def test_the_cache_command_shows_and_clears(cli: CliRun, root: Path) -> None:
    cli("figures", VOL)
    cli("check", VOL, "--json")
    shown = cli("cache", "--json")
    assert shown.exit_code == 0
    kinds = json.loads(shown.stdout)["kinds"]
    assert {"bundle-rows", "leak-clean"} <= set(kinds) and not {"figures", "ac1"} & set(kinds)
    assert all(k["entries"] > 0 and k["bytes"] >= 0 for k in kinds.values())
    cleared = cli("cache", "--clear", "--json")
    assert json.loads(cleared.stdout)["kinds"] == {}
    assert not (root / ".private" / "cache").exists()
    off = cli("--no-cache", "cache")
    assert off.exit_code == 2 and "cache is off" in off.stderr


def test_gates_only_read_the_cache_and_the_runner_stores_what_they_learned(root: Path) -> None:
    """The holdout gate returns the files it scanned clean; ``run_gates`` stores them."""
    from generator.gates import GateContext, holdout
    from generator.store.volume import load_volume

    layout = _layout(root, cache=root.parent / "cache")
    ctx = GateContext(load_volume(layout, VOL, strict=False), memo=layout.cache)
    result = holdout.check_outputs(ctx)
    assert result.passed() and result.learned
    assert {e.namespace for e in result.learned} == {"leak-clean", "leak-index"}
    assert cache.usage(root.parent / "cache").keys() <= {"bundle-rows"}  # the loader's
    assert _holdout(layout) == []  # run_gates: the same scan, and it stores the entries
    stored = cache.usage(root.parent / "cache")
    assert stored["leak-clean"][0] == sum(e.namespace == "leak-clean" for e in result.learned)
    again = holdout.check_outputs(ctx)
    assert again.passed() and again.learned == ()  # everything known clean now
