"""Every file format as a pydantic model: the single source of truth for the schemas."""

from generator.models.anchors import AnchorProbe
from generator.models.bank import BankItem, BankManifest, HeldOutEntry
from generator.models.base import SCHEMA_VERSION, Record, slugify, version_slug
from generator.models.bundle import BundleManifest
from generator.models.calibration import CalibrationRecord, CorpusEntry
from generator.models.disclosure import Disclosure
from generator.models.figures import FiguresRegistry
from generator.models.leaderboard import Leaderboard
from generator.models.records import Draw, PanelVote, PrivateResponse, Qualification, Verdict
from generator.models.registries import DownloadRegistry, FingerprintRegistry
from generator.models.release import Release, ReleaseLedger, SiteManifest, TrustPolicy
from generator.models.review import Disagreement, StatusChange
from generator.models.volume import Volume

#: Every published format, by schema file stem. ``probepress schema`` writes these.
FORMATS: dict[str, type[Record]] = {
    "bank-item": BankItem,
    "heldout-index-entry": HeldOutEntry,
    "bank-manifest": BankManifest,
    "volume": Volume,
    "bundle-manifest": BundleManifest,
    "draw": Draw,
    "verdict": Verdict,
    "panel-vote": PanelVote,
    "qualification": Qualification,
    "figures": FiguresRegistry,
    "fingerprint-registry": FingerprintRegistry,
    "download-registry": DownloadRegistry,
    "release": Release,
    "release-manifest": SiteManifest,
    "release-ledger": ReleaseLedger,
    "trust-policy": TrustPolicy,
    "private-response": PrivateResponse,
    "disclosure": Disclosure,
    "calibration-record": CalibrationRecord,
    "calibration-corpus-entry": CorpusEntry,
    "leaderboard": Leaderboard,
    "status-change": StatusChange,
    "disagreement": Disagreement,
    "anchor-probe": AnchorProbe,
}

__all__ = [
    "FORMATS",
    "SCHEMA_VERSION",
    "AnchorProbe",
    "BankItem",
    "BankManifest",
    "BundleManifest",
    "CalibrationRecord",
    "CorpusEntry",
    "Disagreement",
    "Disclosure",
    "DownloadRegistry",
    "Draw",
    "FingerprintRegistry",
    "HeldOutEntry",
    "Leaderboard",
    "PanelVote",
    "PrivateResponse",
    "Qualification",
    "Record",
    "StatusChange",
    "Verdict",
    "Volume",
    "slugify",
    "version_slug",
]
