"""Fixtures of the render tests: the example with figures, rendered once per test run.

Rendering PDFs is the slow part, so the example is rendered once, in a subprocess with
one environment (``ENV_A``), and shared read-only — across pytest-xdist workers too (the
first worker to need it builds it under a file lock); tests that change things work on
copies.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.factories import shared
from tests.render.pdf_layout import LAYOUTS_ENV

VOLUMES = ("vol-001", "vol-002")
ENV_A = {"TZ": "UTC", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "UMASK": "022"}
# A far time zone, a locale with unusual case rules (falling back to the C locale where it
# is not installed) and a restrictive umask.
ENV_B = {"TZ": "Pacific/Kiritimati", "LANG": "tr_TR.UTF-8", "LC_ALL": "C", "UMASK": "077"}


def copy_root(src: Path, dest: Path) -> Path:
    """A writable copy of a publication root (private store included)."""
    shutil.copytree(src, dest, symlinks=True)
    return dest


REPO = Path(__file__).resolve().parents[2]


def run_render(
    root: Path,
    env: dict[str, str],
    cwd: Path,
    *volumes: str,
    real: tuple[str, ...] | None = None,
    layouts: Path | None = None,
) -> None:
    """``probepress --root ROOT render VOLUME`` for each volume, in one subprocess with
    ``env`` and its umask (one interpreter for all volumes keeps the suite fast). With
    ``real``, only the PDFs whose root-relative paths it names are rendered by WeasyPrint,
    the others are stand-ins (``tests.factories.stand_in_pdfs``). With ``layouts``, the
    PDF workers also write what each page of each PDF holds there
    (``tests.render.pdf_layout.recorded_render``)."""
    umask = env.get("UMASK", "022")
    full = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("LC_", "LANG", "TZ"))},
        **{k: v for k, v in env.items() if k != "UMASK"},
        "PYTHONHASHSEED": "random",
        "PYTHONPATH": os.pathsep.join([str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])]),
    }
    if layouts is not None:
        layouts.mkdir(parents=True, exist_ok=True)
        full[LAYOUTS_ENV] = str(layouts)
    script = (
        f"import os, sys; os.umask(0o{umask}); "
        "from generator.cli import main; "
        "real = tuple(sys.argv[2].split(',')) if sys.argv[2] else None; "
        "from tests.factories import stand_in_pdfs; import pytest; "
        "patch = pytest.MonkeyPatch(); "
        "real is None or stand_in_pdfs(patch, rendered=lambda p: p.endswith(real)); "
        f"from tests.render import pdf_layout; {LAYOUTS_ENV!r} not in os.environ or "
        "patch.setattr('generator.render.pdf.render_pdf', pdf_layout.recorded_render); "
        "[main(['--root', sys.argv[1], 'render', v], standalone_mode=False) "
        "for v in sys.argv[3:]]"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(root), ",".join(real or ()), *volumes],
        cwd=cwd,
        env=full,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    assert real is None or not [p for p in real if not (root / p).is_file()], real


@pytest.fixture(scope="session")
def figured_src(example_src: Path) -> Path:
    """The example with both volumes' figures computed (read-only use): the example as
    ``example_src`` builds it, which computes every volume's figures (computing them again
    on a copy wrote nothing, as they had not changed)."""
    return example_src


@pytest.fixture(scope="session")
def rendered(figured_src: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example rendered (HTML and PDF, both volumes) under ``ENV_A`` (read-only use)."""

    def build(root: Path) -> None:
        copy_root(figured_src, root)
        cwd = root.parent / "render-cwd-a"
        cwd.mkdir(exist_ok=True)
        run_render(root, ENV_A, cwd, *VOLUMES, layouts=layouts_of(root))

    return shared(tmp_path_factory, "render-rendered", build)


def layouts_of(rendered: Path) -> Path:
    """Where the session render of ``rendered`` wrote its PDFs' page layouts."""
    return rendered.with_name(f"{rendered.name}-layouts")


@pytest.fixture
def figured(figured_src: Path, tmp_path: Path) -> Path:
    """A private copy of the example with figures, not yet rendered."""
    return copy_root(figured_src, tmp_path / "root")


@pytest.fixture
def rendered_copy(rendered: Path, tmp_path: Path) -> Path:
    """A private copy of the rendered example."""
    return copy_root(rendered, tmp_path / "root")


def frozen_files(root: Path) -> dict[str, bytes]:
    """Every file under ``site_src/volumes`` and the fingerprint registry, by path."""
    out = {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted((root / "site_src" / "volumes").rglob("*"))
        if p.is_file()
    }
    out["figures/fingerprints.json"] = (root / "figures" / "fingerprints.json").read_bytes()
    return out
