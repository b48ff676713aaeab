"""The Every Eval Ever JSON Schemas, as that project publishes them (version 0.3.0).

They come from the project's own wheel on PyPI (``every-eval-ever==0.3.0``, MIT licence,
EvalEval Coalition), fetched once into ``tests/artifacts/`` (not committed) and checked
against the wheel's SHA-256: the export is validated against the schema its authors
publish, not a copy we keep. The wheel is never installed (it needs Python 3.12); only
its two schema files are read.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

VERSION = "0.3.0"
WHEEL = f"every_eval_ever-{VERSION}-py3-none-any.whl"
WHEEL_SHA256 = "564b8bc624c1f822f749a769dc69dc058a736e83d920cbeb147c3a30d3152317"
HERE = Path(__file__).parent / "artifacts" / f"every-eval-ever-{VERSION}"
SCHEMAS = {
    "aggregate": "every_eval_ever/schemas/eval.schema.json",
    "instance": "every_eval_ever/schemas/instance_level_eval.schema.json",
}


def _wheel() -> Path:
    wheel = HERE / WHEEL
    if not wheel.is_file():
        HERE.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--quiet",
                "--no-deps",
                "--only-binary=:all:",
                "--python-version",
                "3.12",
                f"every-eval-ever=={VERSION}",
                "-d",
                str(HERE),
            ],
            check=True,
        )
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    if digest != WHEEL_SHA256:
        raise RuntimeError(f"{wheel}: SHA-256 {digest}, expected {WHEEL_SHA256}")
    return wheel


def schemas() -> dict[str, Any]:
    """``{"aggregate": …, "instance": …}``: the published JSON Schemas."""
    with zipfile.ZipFile(_wheel()) as wheel:
        return {name: json.loads(wheel.read(member)) for name, member in SCHEMAS.items()}
