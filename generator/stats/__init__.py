"""Pure statistics for probepress figures: rates, intervals, agreement, ranks, decimals.

No file I/O and no global state. Methods are deterministic; the coverage simulation in
``generator.stats.coverage`` takes explicit seeds. See DESIGN section 5.
"""

from generator.stats.agreement import AgreementResult, Leniency, gwet_ac1, leniency
from generator.stats.decimal_format import percent_str, to_decimal_str
from generator.stats.errors import StatsError
from generator.stats.intervals import (
    Interval,
    difference_interval,
    narrow_interval,
    rate,
    wide_interval,
    wilson,
)
from generator.stats.ranks import RankRange, rank_ranges

__all__ = [
    "AgreementResult",
    "Interval",
    "Leniency",
    "RankRange",
    "StatsError",
    "difference_interval",
    "gwet_ac1",
    "leniency",
    "narrow_interval",
    "percent_str",
    "rank_ranges",
    "rate",
    "to_decimal_str",
    "wide_interval",
    "wilson",
]
