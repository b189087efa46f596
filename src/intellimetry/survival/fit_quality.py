"""Fig. 11: how well three decay-rate estimators recover a known alpha from synthetic samples (the
estimator study), and the paper's style of fit on real failure counts (`line_fit_quality`): a least-squares
line through the log-binned decay plot over the paper's range, its R² and the R² an exact power law could
reach there, beside the chapter's bounded fit on each subject's whole support."""
from __future__ import annotations

import numpy as np
import pandas as pd

from intellimetry.stats import fit_discrete_power_law, fit_log_binned, fit_raw_histogram, sample_discrete_power_law
from intellimetry.stats.bounded_power_law import fit_bounded_power_law, sample_bounded_power_law

ESTIMATORS = ("mle", "log_binned", "raw_histogram")
ESTIMATOR_NAMES = {"mle": "discrete MLE", "log_binned": "least squares, log-binned",
                   "raw_histogram": "least squares, raw histogram"}


def fit_all(samples, k_min: int, k_max: int, bins_per_decade: int) -> dict:
    """{estimator: fit} for the three estimators on the same range (each fit has .alpha)."""
    return {"mle": fit_discrete_power_law(samples, k_min, k_max),
            "log_binned": fit_log_binned(samples, k_min, k_max, bins_per_decade),
            "raw_histogram": fit_raw_histogram(samples, k_min, k_max)}


def compare_estimators(alphas, sizes, replicates: int, k_min: int, k_max: int, bins_per_decade: int,
                       rng: np.random.Generator, progress: bool = True) -> pd.DataFrame:
    """One row per (alpha, size, replicate, estimator) with the estimate and the line's R²."""
    jobs = [(a, n, r) for a in alphas for n in sizes for r in range(replicates)]
    if progress:
        from tqdm import tqdm
        jobs = tqdm(jobs, desc="estimator study")
    rows = []
    for alpha, size, replicate in jobs:
        samples = sample_discrete_power_law(alpha, size, rng)
        for name, fit in fit_all(samples, k_min, k_max, bins_per_decade).items():
            rows.append({"alpha": alpha, "size": size, "replicate": replicate, "estimator": name,
                         "estimate": fit.alpha, "r2": getattr(fit, "r2", np.nan)})  # the MLE has no R²
    return pd.DataFrame(rows)


def summarise(study: pd.DataFrame) -> pd.DataFrame:
    """Mean, spread, bias and root-mean-square error of each estimator at each (alpha, size)."""
    grouped = study.assign(error=study["estimate"] - study["alpha"]).groupby(["estimator", "alpha", "size"])
    return grouped.agg(mean=("estimate", "mean"), sd=("estimate", "std"), bias=("error", "mean"),
                       rmse=("error", lambda e: float(np.sqrt(np.mean(e**2)))), r2=("r2", "mean")).reset_index()


def attainable_r2(alpha: float, events: int, k_min: int, k_max: int, bins_per_decade: int, replicates: int,
                  rng: np.random.Generator) -> float:
    """The median R² of the log-binned least-squares line on `replicates` samples of `events` counts
    drawn from an exact power law of decay rate `alpha` on [k_min, k_max]: the R² a perfect power law
    reaches with that many events in the range (sparse bins scatter, so fewer events reach less)."""
    values = []
    for _ in range(replicates):
        sample = sample_bounded_power_law(alpha, events, k_min, k_max, rng)
        try:
            values.append(fit_log_binned(sample, k_min, k_max, bins_per_decade).r2)
        except ValueError:  # fewer than two non-empty bins: no line
            values.append(0.0)
    return float(np.median(values))


# --------------------------------------------------------------------------- the paper's line on real counts

NEAR_PERFECT_R2 = 0.95  # the Fig. 11 criterion's reading of "R² very close to 1" (items.yaml, fig11)
ATTAINABLE_REPLICATES = 20  # exact power-law samples per (subject, set) for the attainable R²
LINE_STREAM = 33  # the attainable R²'s and the fits' generator: np.random.default_rng([LINE_STREAM, seed])
BOUNDED_KEYS = ("alpha", "ci_low", "ci_high", "ci_level", "status", "level", "bound", "support", "k_min", "k_max",
                "events", "events_in_range", "summary")


def line_fit_quality(counts_by_subject: dict, supports: dict, k_min: int, k_max: int, bins_per_decade: int,
                     resamples: int, seed: int = 0) -> dict:
    """The paper's style of fit on real failure counts ({subject: {set: counts}}, each subject ranking
    `supports[subject]` candidates): per subject and set, least squares on log-binned frequencies over
    [k_min, k_max] (slope and R²), the bounded MLE on that range and the R² an exact power law of that rate
    reaches with as many events there (`attainable_r2`); beside them the chapter's bounded fit on the whole
    support [k_min, K-1] (`bounded`: rate, interval, status, level). Returns the rows, the lowest R² (the
    paper reports R² close to 1 on every panel), whether the line's R² was measured (enough events in every
    range, and enough that an exact power law would reach NEAR_PERFECT_R2; a set with no line gets R² 0),
    and how many whole-support rates have each status."""
    from intellimetry.survival.controls import MIN_EVENTS_IN_RANGE, measurement

    rng = np.random.default_rng([LINE_STREAM, seed])
    rows = {subject: {name: line_row(counts, supports[subject], k_min, k_max, bins_per_decade, resamples, rng)
                      for name, counts in by_set.items()}
            for subject, by_set in counts_by_subject.items()}
    flat = [row for by_set in rows.values() for row in by_set.values()]
    attainable = min(row["attainable_r2"] for row in flat)
    fewest = min(row["events_in_range"] for row in flat)
    whole = measurement(row["bounded"] for row in flat)
    return {"fits": rows, "lowest_r2": min(row["r2"] for row in flat), "k_min": k_min, "k_max": k_max,
            "bins_per_decade": bins_per_decade,
            "measured": {"lowest_attainable_r2": attainable, "attainable": attainable > NEAR_PERFECT_R2,
                         "fewest_events_in_range": fewest, "enough_events": fewest >= MIN_EVENTS_IN_RANGE},
            "bounded": {"statuses": whole["statuses"], "measured": whole["measured"],
                        "unmeasured": sum(row["bounded"]["status"] != "measured" for row in flat)}}


def line_row(counts, support: int, k_min: int, k_max: int, bins_per_decade: int, resamples: int,
             rng: np.random.Generator) -> dict:
    """One (subject, set): the log-binned line on [k_min, min(k_max, K-1)] (`ls_alpha`, `r2`, `points`; None
    and R² 0 with fewer than two filled bins), the bounded MLE on that range (`mle_alpha`, None at a bound,
    with its `mle_status`), the attainable R² at that rate (0 without a rate), and `bounded`, the whole-support
    fit (`decay_rate.estimate_decay_rate`)."""
    from intellimetry.survival.decay_rate import estimate_decay_rate

    counts = np.asarray(counts)
    top = min(k_max, int(support) - 1)
    whole = estimate_decay_rate(counts, k_min, int(support), resamples, rng)
    on_range = fit_bounded_power_law(counts, k_min, top, 2, rng)  # the rate only: no interval needed
    found = {"k_min": k_min, "k_max": top, "events_in_range": on_range.events_in_range, "mle_alpha": on_range.alpha,
             "mle_status": on_range.status,
             "bounded": {key: whole[key] for key in BOUNDED_KEYS}}
    try:
        line = fit_log_binned(counts, k_min, top, bins_per_decade)
    except ValueError:  # fewer than two filled bins: no line
        return {**found, "ls_alpha": None, "r2": 0.0, "points": 0, "attainable_r2": 0.0}
    attainable = (0.0 if on_range.alpha is None else
                  attainable_r2(on_range.alpha, on_range.events_in_range, k_min, top, bins_per_decade,
                                ATTAINABLE_REPLICATES, rng))
    return {**found, "ls_alpha": line.alpha, "r2": line.r2, "points": line.points, "attainable_r2": attainable}


def draw_line_beside_bounded(ax, lm_fit: dict, subjects: dict, colours: dict) -> None:
    """Per (subject role, set) of `line_fit_quality`: the line's α on the paper's range (hollow) beside the
    bounded fit's α on the whole support with its interval (filled; a cross where the rate was not measured,
    and none where no rate was fitted); `subjects` names the roles, `colours` colours them."""
    from intellimetry.plotting import COLORS

    labels = []
    for role, by_set in lm_fit["fits"].items():
        for name, row in by_set.items():
            y = len(labels)
            labels.append(f"{subjects[role]}: {name}")
            if row["ls_alpha"] is not None:
                ax.plot(row["ls_alpha"], y, "o", ms=8, mfc="none", color=COLORS["neutral"])
            whole = row["bounded"]
            if whole["alpha"] is not None:
                bars = [[whole["alpha"] - whole["ci_low"]], [whole["ci_high"] - whole["alpha"]]]
                ax.errorbar(whole["alpha"], y, xerr=bars, fmt="o" if whole["status"] == "measured" else "x", ms=5,
                            capsize=2, color=colours[role])
    ax.set_yticks(range(len(labels)), labels, fontsize=9)
    ax.invert_yaxis()
    ax.set_xlabel("decay rate α")
    ax.plot([], [], "o", ms=8, mfc="none", color=COLORS["neutral"], label="the paper's line, its range")
    ax.plot([], [], "o", color=COLORS["neutral"], label="bounded fit, whole vocabulary (95 %)")
    ax.plot([], [], "x", color=COLORS["neutral"], label="bounded fit, not measured")
    ax.legend(loc="best", fontsize=9)
    ax.grid(axis="y", visible=False)
