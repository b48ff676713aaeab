"""Pure statistics for probepress figures: rates, intervals, agreement, ranks, decimals.

No file I/O and no global state. Methods are deterministic; the coverage simulation in
``tests/stats/simulate.py`` (test-only) takes explicit seeds. See DESIGN section 5.

Names are imported from their modules on first use (PEP 562): SciPy takes most of a
second to import, and a command that finds every result in the cache
(``generator.cache``) should not pay for them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from generator.stats.agreement import AgreementResult, Leniency, gwet_ac1, leniencies
    from generator.stats.decimal_format import percent_str, to_decimal_str
    from generator.stats.differences import difference_interval
    from generator.stats.errors import StatsError
    from generator.stats.intervals import (
        Interval,
        narrow_interval,
        rate,
        wide_interval,
        wilson,
    )
    from generator.stats.paired import Separation, holm_separations
    from generator.stats.ranks import RankRange, paired_rank_ranges, rank_ranges

_HOME = {
    "AgreementResult": "agreement",
    "Leniency": "agreement",
    "gwet_ac1": "agreement",
    "leniencies": "agreement",
    "percent_str": "decimal_format",
    "to_decimal_str": "decimal_format",
    "StatsError": "errors",
    "Interval": "intervals",
    "difference_interval": "differences",
    "narrow_interval": "intervals",
    "rate": "intervals",
    "wide_interval": "intervals",
    "wilson": "intervals",
    "RankRange": "ranks",
    "rank_ranges": "ranks",
    "paired_rank_ranges": "ranks",
    "Separation": "paired",
    "holm_separations": "paired",
}


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value


__all__ = [
    "AgreementResult",
    "Interval",
    "Leniency",
    "RankRange",
    "Separation",
    "StatsError",
    "difference_interval",
    "gwet_ac1",
    "holm_separations",
    "leniencies",
    "narrow_interval",
    "paired_rank_ranges",
    "percent_str",
    "rank_ranges",
    "rate",
    "to_decimal_str",
    "wide_interval",
    "wilson",
]
