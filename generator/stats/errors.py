"""The one error the statistics library raises."""

from __future__ import annotations

from generator.errors import ProbepressError


class StatsError(ProbepressError, ValueError):
    """Inputs a statistic cannot be computed from.

    Raised for counts out of range, too few items, subjects or raters, unknown rating
    categories, or a confidence level outside (0, 1). It is a ``ValueError`` too, so
    callers outside probepress can catch it the ordinary way.
    """
