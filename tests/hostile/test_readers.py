"""Every reader against hostile input: a clear refusal naming file, line and rule, the
right exit code, no traceback, nothing written outside the result cache, and bombs
(deep nesting, huge integers, FIFOs, ``/dev/zero``) answered quickly."""

from __future__ import annotations

import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.conftest import CliRun, tree_state
from tests.hostile import cases as c
from tests.hostile import cases_text as t
from tests.hostile.factories import VOL, Case

BOMB_SECONDS = 20.0
"""A bomb must be refused in a small, bounded time (generous: the CI machine is shared)."""
HANG_SECONDS = 120
"""An input that blocks a reader (a FIFO) fails the test here instead of hanging it."""

CASES: list[Case] = [
    c.fifo_in_bundle("draws.jsonl"),
    c.fifo_in_bundle("bundle.json"),
    c.fifo_in_bundle("qualification.jsonl"),
    c.fifo_at(f"bundles/{VOL}/volume.yaml"),
    c.fifo_at("bank/bank.yaml"),
    c.fifo_at("bank/public.jsonl"),
    c.fifo_at("bank/heldout_index.jsonl"),
    c.fifo_at(".private/heldout_items.jsonl", "{root}/.private/heldout_items.jsonl"),
    Case("fifo-private-responses", c.fifo_private_responses, bomb=True),
    Case("dev-zero-symlink-as-draws", c.dev_zero_as_draws, bomb=True),
    Case("symlinked-volume-yaml", c.symlinked_volume_yaml),
    Case("directory-as-panel", c.directory_as_panel),
    Case("device-as-verdicts", c.device_as_verdicts, bomb=True),
    Case("deep-json-bundle-json", c.deep_json_manifest, bomb=True),
    Case("deep-json-jsonl-line", c.deep_json_line, bomb=True),
    Case("deep-json-release-json", c.deep_release, bomb=True),
    Case("deep-json-fingerprints-json", c.deep_fingerprints, bomb=True),
    c.deep_yaml(f"bundles/{VOL}/volume.yaml"),
    c.deep_yaml("bank/bank.yaml"),
    Case("deep-block-yaml", c.deep_block_yaml, bomb=True),
    Case("int-5000-digits-bundle-json", c.huge_int_manifest, bomb=True),
    Case("int-60-digits-bundle-json", c.long_int_manifest),
    Case("int-5000-digits-volume-yaml", c.huge_int_yaml, bomb=True),
    c.huge_int_line(c.HUGE, "integer is over the 50-digit bound"),
    c.huge_int_line(c.LONG, "integer has 60 digits, over the 50-digit bound"),
    c.manifest_name(
        "name-400-bytes",
        "é" * 200 + ".jsonl",
        "'" + "é" * 200 + ".jsonl': is longer than 255 bytes",
    ),
    c.manifest_name(
        "name-parent-escape",
        "../volume.yaml",
        "'../volume.yaml', a path outside the bundle directory",
        "path-escape",
    ),
    c.manifest_name(
        "name-absolute",
        "/etc/passwd",
        "'/etc/passwd', a path outside the bundle directory",
        "path-escape",
    ),
    c.manifest_name(
        "name-nul",
        "draws\x00.jsonl",
        "'draws\\x00.jsonl': contains a control or invisible character",
    ),
    c.manifest_name(
        "name-escape-sequence",
        "x\x1b[31m.jsonl",
        "'x\\x1b[31m.jsonl': contains a control or invisible character",
    ),
    c.duplicate_in_line("draws.jsonl", '"half":"B"', "half"),
    c.duplicate_in_line("verdicts.jsonl", '"verdict":"pass"', "verdict"),
    c.duplicate_in_line("panel.jsonl", '"vote":"pass"', "vote"),
    Case("duplicate-key-nested-in-line", c.duplicate_nested_in_line),
    Case("duplicate-key-bundle-json", c.duplicate_in_manifest),
    c.duplicate_in_yaml(
        f"bundles/{VOL}/volume.yaml",
        "title: Volume 001 (demonstration data)\n",
        "title: Volume 999\n",
        "title",
    ),
    c.duplicate_in_yaml("bank/bank.yaml", "license: CC-BY-4.0\n", "license: MIT\n", "license"),
    Case("duplicate-key-public-jsonl", c.duplicate_in_public_bank),
    Case("duplicate-key-figures-json", c.duplicate_in_registry),
    Case("yaml-alias", c.yaml_alias),
    Case("escape-in-unknown-key", t.escape_in_unknown_key),
    Case("escape-in-file-name", t.escape_in_file_name),
    Case("bidi-display-name", t.bidi_display_name),
    Case("c1-control-in-json-output", t.c1_in_json_output),
    Case("slug-collision-naming", t.colliding_api_naming),
    Case("slug-collision-figures", t.colliding_api_figures),
    Case("empty-slug", t.empty_slug),
    Case("invisible-display-name-twin", t.invisible_twin),
    Case("panel-vote-unknown-item", t.vote_on_unknown_item),
    Case("bom-jsonl", t.bom_line),
    Case("bom-bundle-json", t.bom_document("bundles/vol-001/{slug}/bundle.json")),
    Case("bom-volume-yaml", t.bom_document("bundles/vol-001/volume.yaml")),
    Case("crlf-jsonl", t.crlf_lines),
    Case("nul-in-jsonl", t.nul_in_line),
    Case("nul-in-yaml", t.nul_in_yaml),
    Case("bad-utf8-yaml", t.bad_utf8_yaml),
    Case("bad-utf8-jsonl", t.bad_utf8_line),
    Case("empty-bundle-json", t.empty_manifest),
    Case("empty-volume-yaml", t.empty_volume),
    Case("empty-draws-jsonl", t.empty_draws),
    Case("truncated-bundle-json", t.truncated_manifest),
    Case("newer-schema-bundle-json", t.newer_manifest),
    Case("wrong-type-volume-yaml", t.wrong_type_yaml),
    Case("unknown-field-bundle-json", t.unknown_field_manifest),
    Case("size-mismatch", t.size_mismatch),
    Case("unlisted-file", t.unlisted_file),
    Case("too-many-records", t.too_many_records),
    Case("over-long-line", t.over_long_line),
    Case("volume-argument-escapes", t.escaping_volume_argument),
    Case("volume-argument-too-long", t.over_long_volume_argument),
    Case("fifo-cache-entries-are-misses", t.fifo_in_cache, bomb=True),
]


@contextmanager
def _deadline(seconds: int) -> Iterator[None]:
    """Fail (instead of hanging the suite) when the body blocks for ``seconds``."""

    def expired(signum: int, frame: object) -> None:
        raise TimeoutError(f"blocked for {seconds} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _outside_cache(root: Path) -> dict[str, tuple[int, int]]:
    """The tree but the result cache and the writers' lock file (neither is an output)."""
    ignored = (".private/cache/", ".probepress-lock")
    return {k: v for k, v in tree_state(root).items() if not k.startswith(ignored)}


def test_the_table_is_large_and_unique() -> None:
    ids = [case.id for case in CASES]
    assert len(ids) >= 40
    assert len(set(ids)) == len(ids)


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_hostile_input(case: Case, cli: CliRun, root: Path) -> None:
    expect = case.mutate(root)
    before = _outside_cache(root)
    started = time.monotonic()
    with _deadline(HANG_SECONDS):
        result = cli(*expect.args)
    elapsed = time.monotonic() - started
    output = result.stdout if expect.stream == "stdout" else result.stderr
    assert result.exit_code == expect.code, result.output
    for message in expect.messages:
        assert message in output, f"missing {message!r} in:\n{output}"
    for text in ("Traceback", *expect.absent):
        assert text not in result.output, f"{text!r} in:\n{result.output}"
    assert _outside_cache(root) == before
    if case.bomb:
        assert elapsed < BOMB_SECONDS, f"{case.id} took {elapsed:.1f} s"
