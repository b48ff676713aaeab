"""The import formats, by schema file stem (``probepress schema`` writes their schemas
beside the published formats': a maintainer's tool can validate a file before import)."""

from __future__ import annotations

from generator.importing.calibration import CalibrationRow
from generator.importing.inputs import BundleInputs
from generator.importing.items import ItemRow
from generator.importing.rows import RecordRow
from generator.models.anchors import AnchorProbeLog
from generator.models.base import Record

IMPORT_FORMATS: dict[str, type[Record]] = {
    "import-record-row": RecordRow,
    "import-item-row": ItemRow,
    "import-manifest-inputs": BundleInputs,
    "import-calibration-row": CalibrationRow,
    "import-anchor-probe-log": AnchorProbeLog,
}
