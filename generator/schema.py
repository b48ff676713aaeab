"""Write the JSON Schema of every file format (``probepress schema``)."""

from __future__ import annotations

from pathlib import Path

from generator.canonical import dumps, write_text
from generator.models import FORMATS


def schemas() -> dict[str, str]:
    """File name -> canonical JSON text of each format's schema."""
    # The import formats bring the importers and calibration's statistics (NumPy, SciPy):
    # imported when schemas are written, not by every module that can write them.
    from generator.importing.formats import IMPORT_FORMATS

    out = {}
    for stem, model in {**FORMATS, **IMPORT_FORMATS}.items():
        schema = model.model_json_schema(mode="validation")
        schema["$id"] = f"probepress/{stem}.schema.json"
        schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
        schema["x-schema-version"] = model.supported_schema_version
        out[f"{stem}.schema.json"] = dumps(schema)
    return out


def write_schemas(directory: Path, root: Path | None = None) -> list[str]:
    """Write every schema into ``directory`` (confined to ``root`` when given: never
    through a symlink); return the names that changed."""
    return [
        name for name, text in sorted(schemas().items()) if write_text(directory / name, text, root)
    ]


def drift(directory: Path) -> list[str]:
    """Names of schemas in ``directory`` that are missing or differ from the models."""
    out = []
    for name, text in sorted(schemas().items()):
        path = directory / name
        if not path.is_file() or path.read_text("utf-8") != text:
            out.append(name)
    return out
