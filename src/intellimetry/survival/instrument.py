"""Controls of the decay-rate instrument (issue 33): subjects whose decay rate is known, fitted by the chapter's
own code (`decay_rate.estimate_decay_rate`: the bounded power-law fit on [k_min, K-1] of a support of K
candidates), each with what a working instrument must say about it. Fig. 11 draws them as a panel and an
implementation check (items.yaml, fig11-instrument) reads `summary`.

* a **uniformly random ranker** over K = 10, 1,000 and 150,000 candidates: its failure count (the wrong
  candidates whose i.i.d. scores beat the right one's) is uniform on 0 .. K-1, so alpha = 0 and Limited;
* a **chance-level guesser** on a ten-option task, trying the options in a random order without repeating
  (the right option's place in a random permutation): alpha = 0, Limited;
* a **below-chance subject** on ten options, scoring the right option on half the others' range (right at
  the first try once in 5,120 events): its counts rise with k, so alpha < 0, Limited;
* **power laws** at alpha = 0.5, 1, 1.5, 2.5, 3.5 on each support: recovered within the interval, measured;
* a **power law with a hard cut-off** (alpha 1.5 on [1, 999], nothing above 30): "not a power law".

Coverage: the controls' intervals are taken at CONTROL_LEVEL = 99.9 %, so a calibrated instrument leaves
the truth outside a given one with probability 0.001, and misses any of the 19 intervals that must hold a
known rate with probability about 2 %; a narrower level would fail the check by chance (all 15 power laws
inside their 95 % intervals: 46 %). `narrow` asks that the intervals be informative (< MAX_WIDTH wide), so
recovery is not won by width.
"""
from __future__ import annotations

import numpy as np

from intellimetry.checks import check_int
from intellimetry.stats.bounded_power_law import sample_bounded_power_law
from intellimetry.survival.decay_rate import estimate_decay_rate
from intellimetry.survival.failure_counts import failure_counts

K_MIN = 1  # a synthetic subject's failures are fitted from the first wrong try
SUPPORTS = (10, 1_000, 150_000)
ALPHAS = (0.5, 1.0, 1.5, 2.5, 3.5)
OPTIONS = 10  # the multiple-choice task's options
BELOW_CHANCE_SCALE = 0.5  # the below-chance subject scores the right option on [0, 0.5), the others on [0, 1)
CUTOFF = {"alpha": 1.5, "support": 1_000, "cutoff": 30}
CONTROL_LEVEL = 0.999
MAX_WIDTH = 0.5  # half a level: an interval wider than this cannot place a subject at a level
INSTRUMENT_STREAM = 34  # the controls' generator: np.random.default_rng([INSTRUMENT_STREAM, seed])
SHOWN_KEYS = ("alpha", "ci_low", "ci_high", "ci_level", "status", "level", "support", "k_min", "k_max",
              "events", "events_in_range")


# --------------------------------------------------------------------------- the subjects' failure counts

def random_ranker(support: int, events: int, rng: np.random.Generator) -> np.ndarray:
    """Failure counts of a ranker scoring K = `support` candidates uniformly at random: the right
    candidate's rank among K exchangeable scores, uniform on 0 .. K-1 (`controls.random_ranker_counts`
    draws the same law from the scores themselves, which at K = 150,000 costs a minute)."""
    return rng.integers(0, check_int("support", support, 2), check_int("events", events, 1))


def chance_guesser(options: int, events: int, rng: np.random.Generator) -> np.ndarray:
    """Failures of a guesser trying `options` options in a random order without repeating: the right
    option's (option 0's) place in a random permutation."""
    order = rng.permuted(np.tile(np.arange(check_int("options", options, 2)), (check_int("events", events, 1), 1)),
                         axis=1)
    return np.argmax(order == 0, axis=1)


def below_chance(options: int, events: int, rng: np.random.Generator,
                 scale: float = BELOW_CHANCE_SCALE) -> np.ndarray:
    """Failures of a subject worse than chance: it scores the right option (0) uniformly on [0, scale) and
    the others on [0, 1), so it ranks the right one low (first at the first try with probability
    scale^(options-1) / options)."""
    scores = rng.random((check_int("events", events, 1), check_int("options", options, 2)))
    scores[:, 0] *= scale
    return failure_counts(scores, np.zeros(events, dtype=np.int64))


def power_law(alpha: float, support: int, events: int, rng: np.random.Generator,
              cutoff: int | None = None) -> np.ndarray:
    """Failure counts P(k) ∝ k^-alpha on [K_MIN, support - 1] (nothing above `cutoff` when given)."""
    return sample_bounded_power_law(alpha, events, K_MIN, support - 1, rng, cutoff=cutoff)


# --------------------------------------------------------------------------- the controls

def subjects(events: int, rng: np.random.Generator) -> dict[str, dict]:
    """{control id: {subject (in words), support, true_alpha (None where the law is not a power law),
    expected (in words), kind, counts}}, drawn in this order from `rng`."""
    found = {}
    for support in SUPPORTS:
        found[f"random-K{support}"] = {"subject": f"uniformly random ranker, K = {support:,}", "support": support,
                                       "true_alpha": 0.0, "kind": "random", "expected": "α ≈ 0 (interval holds 0), "
                                       "Limited, measured", "counts": random_ranker(support, events, rng)}
    found["chance-K10"] = {"subject": f"chance-level guesser, {OPTIONS} options", "support": OPTIONS,
                           "true_alpha": 0.0, "kind": "chance", "expected": "α ≈ 0 (interval holds 0), Limited, "
                           "measured", "counts": chance_guesser(OPTIONS, events, rng)}
    found["below-chance-K10"] = {"subject": f"below-chance subject, {OPTIONS} options", "support": OPTIONS,
                                 "true_alpha": None, "kind": "below chance", "expected": "α < 0 (interval below 0), "
                                 "Limited", "counts": below_chance(OPTIONS, events, rng)}
    for support in SUPPORTS:
        for alpha in ALPHAS:
            found[f"power-a{alpha:g}-K{support}".replace(".", "p")] = {
                "subject": f"power law α = {alpha:g}, K = {support:,}", "support": support, "true_alpha": alpha,
                "kind": "power law", "expected": "α inside the interval, measured",
                "counts": power_law(alpha, support, events, rng)}
    found["cutoff"] = {"subject": f"power law α = {CUTOFF['alpha']:g} cut off above {CUTOFF['cutoff']}, "
                                  f"K = {CUTOFF['support']:,}", "support": CUTOFF["support"], "true_alpha": None,
                       "kind": "cut-off", "expected": "not a power law",
                       "counts": power_law(CUTOFF["alpha"], CUTOFF["support"], events, rng, cutoff=CUTOFF["cutoff"])}
    return found


def passes(kind: str, true_alpha: float | None, row: dict) -> bool:
    """Whether a fitted control says what a working instrument must (see the module's docstring)."""
    fitted = row["alpha"] is not None
    if kind == "cut-off":
        return row["status"] == "not a power law"
    if kind == "below chance":
        return fitted and row["ci_high"] < 0 and row["level"] == "Limited"
    inside = fitted and row["ci_low"] <= true_alpha <= row["ci_high"] and row["status"] == "measured"
    return inside and (kind == "power law" or row["level"] == "Limited")


def control_rows(events: int, resamples: int, seed: int, level: float = CONTROL_LEVEL) -> dict[str, dict]:
    """{control id: row} with the subject, its support K, the true alpha (None where none), what is
    expected, the fit on [K_MIN, K-1] (alpha, interval at `level`, status, level, events in range),
    whether the interval is narrower than MAX_WIDTH, and `passed`."""
    rng = np.random.default_rng([INSTRUMENT_STREAM, int(seed)])
    rows = {}
    for name, subject in subjects(events, rng).items():
        fit = estimate_decay_rate(subject["counts"], K_MIN, subject["support"], resamples, rng, level=level)
        shown = {key: fit[key] for key in SHOWN_KEYS}
        width = None if fit["alpha"] is None else fit["ci_high"] - fit["ci_low"]
        rows[name] = {**{key: subject[key] for key in ("subject", "kind", "true_alpha", "expected")}, **shown,
                      "width": width, "narrow": width is not None and width < MAX_WIDTH,
                      "passed": passes(subject["kind"], subject["true_alpha"], fit)}
    return rows


def summary(rows: dict) -> dict:
    """What the implementation check reads: each kind of control passed, every fitted control's interval
    narrow, the controls that failed, and `passed` (all of it); beside them, to say why a control failed,
    whether every known rate lies inside its interval (`inside_intervals`) and how many subjects whose law
    is a power law (the flat ones included) the alternatives' tests rejected (`true_laws_rejected`)."""
    def every(kind):
        return all(row["passed"] for row in rows.values() if row["kind"] == kind)

    fitted = [row for row in rows.values() if row["kind"] != "cut-off"]
    known = [row for row in fitted if row["true_alpha"] is not None]
    found = {"all_recovered": every("power law"), "random_limited": every("random"),
             "chance_limited": every("chance"), "below_chance_negative": every("below chance"),
             "cutoff_rejected": every("cut-off"), "narrow": all(row["narrow"] for row in fitted)}
    return {**found, "passed": all(found.values()), "controls": len(rows),
            "failed": [name for name, row in rows.items() if not row["passed"]],
            "widest_interval": max((row["width"] for row in fitted if row["width"] is not None), default=None),
            "inside_intervals": all(row["alpha"] is not None and row["ci_low"] <= row["true_alpha"] <= row["ci_high"]
                                    for row in known),
            "true_laws_rejected": sum(row["status"] == "not a power law" for row in known),
            "level": next(iter(rows.values()))["ci_level"], "max_width": MAX_WIDTH}


# --------------------------------------------------------------------------- the panel

def draw_controls(ax, rows: dict) -> None:
    """Fig. 11's instrument panel: one line per control, its fitted alpha with the interval (filled where
    the control passed, a cross where it failed), the true alpha (hollow) where there is one, the status
    beside any rate that was not measured, and the level boundaries."""
    from intellimetry.plotting import COLORS
    from intellimetry.survival.levels import THRESHOLDS

    names = list(rows)[::-1]  # the first control on top
    for y, name in enumerate(names):
        row = rows[name]
        colour = COLORS["ours"] if row["passed"] else COLORS["paper"]
        if row["alpha"] is not None:
            ax.errorbar(row["alpha"], y, xerr=[[row["alpha"] - row["ci_low"]], [row["ci_high"] - row["alpha"]]],
                        fmt="o" if row["passed"] else "x", ms=5, color=colour, capsize=2)
        if row["true_alpha"] is not None:
            ax.plot(row["true_alpha"], y, "o", ms=9, mfc="none", color=COLORS["neutral"])
        if row["status"] != "measured":
            ax.annotate(row["status"], (row["alpha"] if row["alpha"] is not None else 0.0, y), xytext=(8, -3),
                        textcoords="offset points", fontsize=9, color=colour)
    for threshold in (0.0, *THRESHOLDS):
        ax.axvline(threshold, color=COLORS["neutral"], lw=0.6, ls=":" if threshold else "-")
    ax.set_yticks(range(len(names)), [rows[name]["subject"] for name in names], fontsize=9)
    ax.set_ylim(-0.7, len(names) - 0.3)
    ax.set_xlabel("decay rate α (bounded fit on [1, K-1]; bars: the 99.9 % bootstrap interval)")
    ax.plot([], [], "o", ms=9, mfc="none", color=COLORS["neutral"], label="true α")
    ax.plot([], [], "o", color=COLORS["ours"], label="fitted α, control passed")
    ax.plot([], [], "x", color=COLORS["paper"], label="fitted α, control failed")
    ax.set_xlim(ax.get_xlim()[0], ax.get_xlim()[1] + 1.0)  # room for the statuses on the right
    ax.legend(loc="upper right", fontsize=9)
    ax.grid(axis="y", visible=False)
