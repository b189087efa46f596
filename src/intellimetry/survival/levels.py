"""The three levels of the Intelligence Test, defined by the decay rate alpha of P(k) ∝ k^-alpha.

The mean failure count is finite only for alpha > 2 and its variance only for alpha > 3, so:
Limited (alpha <= 2), Capable (2 < alpha <= 3), Autonomous (alpha > 3).
"""
from __future__ import annotations

LEVELS = ("Limited", "Capable", "Autonomous")
THRESHOLDS = (2.0, 3.0)


def classify_level(alpha: float) -> str:
    if alpha <= THRESHOLDS[0]:
        return LEVELS[0]
    if alpha <= THRESHOLDS[1]:
        return LEVELS[1]
    return LEVELS[2]


def classify_interval(alpha: float, low: float, high: float) -> dict:
    """The level of an estimate and whether its interval [low, high] straddles a level boundary.

    Returns {"level", "low_level", "high_level", "straddles"}; when `straddles` is true the data
    cannot decide between the levels at the two ends of the interval.
    """
    low_level, high_level = classify_level(low), classify_level(high)
    return {"level": classify_level(alpha), "low_level": low_level, "high_level": high_level,
            "straddles": low_level != high_level}
