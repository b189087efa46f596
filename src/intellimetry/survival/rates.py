"""Decay rates of several subjects on several test sets, the levels they reach, and decay rate
against model size: what every multi-model figure of the Intelligence Test computes (vision,
search, recommendation, language)."""
from __future__ import annotations

import numpy as np

from intellimetry.survival.decay_rate import describe_rate, estimate_decay_rate
from intellimetry.survival.scaling import fit_scaling


def alpha_span(rows: dict) -> dict:
    """The smallest and largest fitted decay rate over test sets, and how many rates were not measured
    (too few events, an estimate at the search range's end, or a law the alternatives beat)."""
    alphas = [row["alpha"] for row in rows.values() if row["alpha"] is not None]
    unmeasured = sum(not is_measured(row) for row in rows.values())
    return {"alpha_min": min(alphas) if alphas else None, "alpha_max": max(alphas) if alphas else None,
            "sets": len(rows), "unmeasured": unmeasured}


def decay_rates(counts_by_set: dict, k_min: int, support, resamples: int, rng: np.random.Generator) -> dict:
    """Per test set: the decay-rate estimate on the counts' support (`support`: the candidates K, one
    number or {test set: K}), with its bootstrap interval, status, level, log-binned LS and R², the share
    of events solved at the first try and the mean failure count."""
    rows = {}
    for name, counts in counts_by_set.items():
        counts = np.asarray(counts)
        size = support[name] if isinstance(support, dict) else support
        rows[name] = {**estimate_decay_rate(counts, k_min, int(size), resamples, rng),
                      "first_try": float((counts == 0).mean()) if counts.size else 0.0,
                      "mean_failures": float(counts.mean()) if counts.size else 0.0}
    return rows


def is_measured(row: dict) -> bool:
    """Whether a rate row holds a measured decay rate (status "measured"), not a bound or a rejected law."""
    return row.get("status") == "measured"


def levels(rates_by_model: dict) -> dict:
    """{model: {test set: level, or None where the rate was not measured}}: a rate fitted to too few
    events, at a bound or beaten by an alternative places no subject at a level."""
    return {model: {name: row["level"] if is_measured(row) else None for name, row in rows.items()}
            for model, rows in rates_by_model.items()}


def level_counts(rates_by_model: dict) -> dict:
    """How many measured (model, test set) rates reach each level, and how many were not measured: the
    figure's headline."""
    found = [level for rows in levels(rates_by_model).values() for level in rows.values()]
    return {**{level: found.count(level) for level in ("Limited", "Capable", "Autonomous")},
            "unmeasured": found.count(None)}


# What a page shows of a rate row (`shown_rate`); the full rows stay in the figure's `rates` where kept.
SHOWN_KEYS = ("alpha", "ci_low", "ci_high", "ci_level", "level", "straddles", "status", "measured", "bound", "ks",
              "alternatives", "support", "k_min", "k_max", "events", "events_in_range", "first_try",
              "mean_failures", "log_binned_alpha", "log_binned_r2", "summary")


def shown_rate(row: dict) -> dict:
    """A rate row as a page shows it (SHOWN_KEYS present in the row): its level only where the rate was
    measured, and the rate in words (`summary`, `decay_rate.describe_rate`)."""
    return {**{key: row[key] for key in SHOWN_KEYS if key in row},
            "level": row["level"] if is_measured(row) else None, "summary": describe_rate(row)}


def size_scaling(rates_by_member: dict, params_by_member: dict) -> dict:
    """Per test set: the log-log least-squares line of α on non-embedding size over the family ({member:
    {test set: rate row}}), its slope with a 95 % interval, p-value and R², the decades of size it spans,
    and whether every member's rate on the set was measured (a line through bounds or rejected laws
    measures nothing)."""
    members = list(params_by_member)
    sizes = np.array([params_by_member[m] for m in members], dtype=float)
    test_sets = next(iter(rates_by_member.values())).keys()
    lines = {}
    for name in test_sets:
        rows = [rates_by_member[m][name] for m in members]
        unmeasured = int(sum(not is_measured(row) for row in rows))
        positive = all(row["alpha"] is not None and row["alpha"] > 0 for row in rows)
        alphas = [row["alpha"] for row in rows]
        line = (fit_scaling(sizes, alphas).as_dict() if positive
                else {"slope": None, "intercept": None, "r2": None, "models": len(rows), "p": None,
                      "slope_interval": None})
        measured = unmeasured == 0 and positive
        lines[name] = {**line, "alphas": alphas, "sizes": sizes.tolist(),
                       "intervals": [[row["ci_low"], row["ci_high"]] for row in rows],
                       "statuses": [row["status"] for row in rows],
                       "fewest_events_in_range": min(int(row["events_in_range"]) for row in rows),
                       "decades": float(np.log10(sizes.max() / sizes.min())),
                       "unmeasured": unmeasured, "measured": measured,
                       "rises": bool(measured and line["slope"] > 0), "level_of_largest": rows[-1]["level"]}
    return lines


def rising_share(lines: dict, alpha: float = 0.05) -> dict:
    """Over the test sets whose line is measured (`measured`: every member's rate measured, and whatever else
    the line's maker requires):
    how many have a positive slope, how many a significantly positive one, and the share of positive
    slopes with its interval: [the share significantly positive, one minus the share significantly
    negative] (the range the share takes over the slopes the data cannot sign; [0, 0] when no line
    is measured)."""
    measured = {name: line for name, line in lines.items() if line["measured"]}
    positive = [name for name, line in measured.items() if line["slope"] > 0]
    significant = [name for name in positive if measured[name]["p"] < alpha]
    falling = [name for name, line in measured.items() if line["slope"] < 0 and line["p"] < alpha]
    count = len(measured)
    return {"sets": len(lines), "measured": count, "positive": len(positive),
            "significant": len(significant), "significantly_negative": len(falling),
            "share_positive": len(positive) / count if count else 0.0,
            "share_interval": [len(significant) / count, 1 - len(falling) / count] if count else [0.0, 0.0]}
