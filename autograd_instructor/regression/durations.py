"""Which notebooks' durations changed beyond the noise of the two runs themselves (or a user threshold)."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["MIN_CHANGE_S", "MIN_NOTEBOOKS", "DurationCheck", "check_durations"]

MIN_CHANGE_S = 1.0  # below this a change is kernel start-up and timer noise, whatever its ratio
MIN_NOTEBOOKS = 4  # fewer notebooks give no estimate of the spread
_SPREADS = 4.0  # robust standard deviations a notebook must stand out by
_FLOOR = math.log(1.5)  # and never less than 1.5x relative to the whole run's shift


@dataclass
class DurationCheck:
    """The overall B/A shift, the spread between notebooks (the noise), and the notebooks beyond it."""

    notebooks: int
    method: str  # "noise", "threshold" or "too-few"
    overall_ratio: float
    limit_ratio: float | None
    changed: list[str] = field(default_factory=list)
    threshold: float | None = None

    def __repr__(self) -> str:
        return f"DurationCheck({self.method}, {len(self.changed)} of {self.notebooks} changed)"

    def summary(self) -> str:
        """One paragraph saying how durations were judged."""
        overall = (
            f"Run B took {self.overall_ratio:.2f}x run A's time (median over {self.notebooks} notebooks)."
        )
        if self.method == "threshold":
            return (
                f"{overall} Threshold set by the user: a notebook is listed when B differs from A by more "
                f"than {self.threshold:.0%} and {MIN_CHANGE_S:g} s."
            )
        if self.method == "too-few":
            return (
                f"{overall} With fewer than {MIN_NOTEBOOKS} notebooks passing in both runs the noise cannot "
                "be estimated: no duration is listed (set --duration-threshold to list them)."
            )
        return (
            f"{overall} Noise, from the spread of the notebooks' B/A ratios around that: "
            f"a notebook is listed only when its ratio is beyond {self.limit_ratio:.2f}x of the median "
            f"(either way) and the change is over {MIN_CHANGE_S:g} s."
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready data."""
        return {
            "method": self.method,
            "notebooks": self.notebooks,
            "overall_ratio": round(self.overall_ratio, 4),
            "limit_ratio": None if self.limit_ratio is None else round(self.limit_ratio, 4),
            "threshold": self.threshold,
            "min_change_s": MIN_CHANGE_S,
            "changed": self.changed,
            "note": self.summary(),
        }


def check_durations(
    timed: Sequence[tuple[str, float, float]], threshold: float | None = None
) -> DurationCheck:
    """Judge (path, seconds in A, seconds in B) for notebooks that passed in both runs."""
    if threshold is not None and not threshold > 0:
        raise ValueError(f"a duration threshold must be a positive fraction; got {threshold}")
    usable = [(p, a, b) for p, a, b in timed if a > 0 and b > 0]
    logs = [math.log(b / a) for _, a, b in usable]
    median = statistics.median(logs) if logs else 0.0
    overall = math.exp(median)
    if threshold is not None:
        changed = [p for p, a, b in usable if abs(b / a - 1) > threshold and abs(b - a) > MIN_CHANGE_S]
        return DurationCheck(len(usable), "threshold", overall, 1 + threshold, changed, threshold)
    if len(usable) < MIN_NOTEBOOKS:
        return DurationCheck(len(usable), "too-few", overall, None)
    mad = statistics.median(abs(x - median) for x in logs)
    limit = max(_SPREADS * 1.4826 * mad, _FLOOR)
    changed = [
        p
        for (p, a, b), x in zip(usable, logs)
        if abs(x - median) > limit and abs(b - a * overall) > MIN_CHANGE_S
    ]
    return DurationCheck(len(usable), "noise", overall, math.exp(limit), changed)
