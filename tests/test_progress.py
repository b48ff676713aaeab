"""Progress counts its steps (issue 17, defect 8): "N of M: the current step", PDFs too."""

from __future__ import annotations

from pathlib import Path

from generator.progress import Counter, expect, note, silent
from generator.render.pdf import PdfJob, render_pdfs
from generator.store import Layout, load_volume


def _recording() -> tuple[Counter, list[str]]:
    shown: list[str] = []
    return Counter(lambda done, total, text: shown.append(text)), shown


def test_a_counter_counts_against_what_was_announced() -> None:
    counter, shown = _recording()
    counter("unannounced")
    expect(counter, 2)
    counter("a")
    counter("b")
    expect(counter, 1)
    counter("c")
    counter("one more than announced")
    assert shown == [
        "1: unannounced",
        "2 of 3: a",
        "3 of 3: b",
        "4 of 4: c",
        "5 of 5: one more than announced",
    ]


def test_a_plain_callback_is_not_told_the_counts() -> None:
    expect(silent, 3)  # nothing to tell, nothing raised
    expect(None, 3)


def test_reading_a_volume_counts_its_bundles(root: Path) -> None:
    counter, shown = _recording()
    layout = Layout.at(root, root / ".private")
    data = load_volume(layout, "vol-001", progress=counter)
    total = len(data.bundles)
    assert total > 1
    assert shown[0].startswith(f"1 of {total}: ") and shown[-1].startswith(f"{total} of {total}: ")


def test_pdf_rendering_counts_each_pdf_and_notes_each_page(tmp_path: Path) -> None:
    html = b'<!doctype html><html><body><p style="break-after:page">one</p><p>two</p></body></html>'
    jobs = [
        PdfJob(f"volumes/vol-009/p{i}.pdf", html, "0" * 64, 1_700_000_000, False) for i in range(2)
    ]
    counter, shown = _recording()
    notes: list[str] = []
    counter.note = notes.append  # type: ignore[method-assign]
    out = render_pdfs(jobs, 1, counter)
    assert sorted(out) == [j.path for j in jobs]
    # PDFs finish out of order; each is counted as it is done, with its pages.
    assert [s.split(": ")[0] for s in shown] == ["1 of 2", "2 of 2"]
    assert sorted(s.split(": ", 1)[1] for s in shown) == [f"PDF {j.path} (2 pages)" for j in jobs]
    # Each page is noted as it is laid out, then the PDF's page count as it is written.
    for job in jobs:
        mine = [n.split(": ", 1)[1] for n in notes if n.startswith(f"{job.path}: ")]
        assert mine == ["laying out page 1", "laying out page 2", "writing 2 pages"]


def test_a_note_shows_what_is_under_way_without_counting() -> None:
    counter, shown = _recording()
    note(counter, "before anything is announced")
    expect(counter, 2)
    counter("a")
    note(counter, "b: page 3")
    counter("b")
    note(silent, "ignored")
    note(None, "ignored")
    assert shown == [
        "0 done; before anything is announced",
        "1 of 2: a",
        "1 of 2 done; b: page 3",
        "2 of 2: b",
    ]
