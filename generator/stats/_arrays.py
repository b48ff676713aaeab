"""Input checks shared by the interval functions, and the vectorised ``Bounds`` pair."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from generator.stats.errors import StatsError
from generator.words import counted

FloatArray = npt.NDArray[np.float64]
ArrayLike = Sequence[int] | Sequence[float] | npt.NDArray[np.int64] | FloatArray


@dataclass(frozen=True)
class Bounds:
    """Lower and upper limits of many intervals at once (same shape)."""

    lo: FloatArray
    hi: FloatArray


@dataclass(frozen=True)
class Counts:
    """Validated per-item fail counts ``k`` and usable draw counts ``n`` (float arrays)."""

    k: FloatArray
    n: FloatArray


def check_confidence(confidence: float) -> float:
    """Return ``confidence`` as a float after checking 0 < confidence < 1."""
    value = float(confidence)
    if not (math.isfinite(value) and 0.0 < value < 1.0):
        raise StatsError(f"confidence must be strictly between 0 and 1, got {confidence!r}")
    return value


def as_counts(k: ArrayLike, n: ArrayLike, *, min_items: int, what: str = "rate") -> Counts:
    """Check one candidate's per-item counts and return them as float arrays.

    Items with no usable draw must be removed by the caller before this point: a rate
    averages per-item fractions and an item with ``n_i == 0`` has none.
    """
    k_arr = np.asarray(k, dtype=np.float64)
    n_arr = np.asarray(n, dtype=np.float64)
    if k_arr.ndim != 1 or n_arr.ndim != 1 or k_arr.shape != n_arr.shape:
        raise StatsError(
            f"{what}: k and n must be 1-D sequences of the same length, "
            f"got shapes {k_arr.shape} and {n_arr.shape}"
        )
    if k_arr.size < min_items:
        raise StatsError(f"{what}: needs at least {counted(min_items, 'item')}, got {k_arr.size}")
    if not (np.all(np.isfinite(k_arr)) and np.all(np.isfinite(n_arr))):
        raise StatsError(f"{what}: counts must be finite numbers")
    if np.any(k_arr != np.round(k_arr)) or np.any(n_arr != np.round(n_arr)):
        raise StatsError(f"{what}: counts must be whole numbers")
    if np.any(n_arr < 1):
        first = int(np.argmax(n_arr < 1))
        raise StatsError(
            f"{what}: item {first} has n={int(n_arr[first])} usable draws; "
            "drop items without usable draws before computing a rate"
        )
    if np.any(k_arr < 0) or np.any(k_arr > n_arr):
        first = int(np.argmax((k_arr < 0) | (k_arr > n_arr)))
        raise StatsError(
            f"{what}: item {first} has k={int(k_arr[first])} fails out of "
            f"n={int(n_arr[first])} draws; need 0 <= k <= n"
        )
    return Counts(k=k_arr, n=n_arr)
