"""The chapter's values: the matrix with intervals over seeds, the agreement analysis, and the
statistics its findings (data/reference/agreement/items.yaml, kind `finding`) are judged on, for the
subjects and, as the control, for the same matrix with each measure's subjects shuffled.
"""
from __future__ import annotations

import numpy as np

from intellimetry.agreement import analysis
from intellimetry.agreement.study import LEARNER_KINDS, attributes, subset_rows
from intellimetry.stats import mean_interval


def _finite(x) -> float | None:
    x = float(x)
    return x if np.isfinite(x) else None


def matrix_values(bases, matrix: dict) -> dict:
    """Per measure and subject: the mean over seeds and its t interval (None where undefined)."""
    out = {}
    for measure, cells in matrix.items():
        rows = {}
        for spec, seeds in zip(bases, np.asarray(cells, dtype=float)):
            finite = seeds[np.isfinite(seeds)]
            if finite.size >= 2 and np.ptp(finite) > 0:
                interval = mean_interval(finite)
                rows[spec.name] = {"mean": interval.estimate, "low": interval.low, "high": interval.high,
                                   "seeds": int(finite.size)}
            else:
                mean = _finite(finite.mean()) if finite.size else None
                rows[spec.name] = {"mean": mean, "low": mean, "high": mean, "seeds": int(finite.size)}
        out[measure] = rows
    return out


def cell_text(value, low=None, high=None) -> str:
    """A number as the tables show it (3 significant digits), with its interval when it has one."""
    if value is None or not np.isfinite(value):
        return "–"
    text = f"{value:.3g}"
    if low is None or high is None or low == high:
        return text
    return f"{text} [{low:.3g}, {high:.3g}]"


def matrix_table(values: dict) -> dict:
    """The matrix as text: a row per subject, its mean and t interval over seeds under each measure."""
    measures = list(values)
    subjects = list(next(iter(values.values())))
    rows = [[name] + [cell_text(values[m][name]["mean"], values[m][name]["low"], values[m][name]["high"])
                      for m in measures] for name in subjects]
    return {"header": ["subject", *measures], "rows": rows}


def agreement_tables(everyone: dict, subsets: dict, learners_tau: dict) -> dict:
    """τ per pair (all subjects, with its interval; learners only) and mean τ per subset, as text."""
    pairs = {"header": ["measures", "τ, all subjects [95 % interval]", "τ, learners only"],
             "rows": [[key.replace("|", " – "), cell_text(tau, *everyone["interval"][key]),
                       cell_text(learners_tau[key])] for key, tau in everyone["tau"].items()]}
    chosen = {"header": ["subjects compared", "how many", "mean τ [95 % interval]"],
              "rows": [[name, str(row["subjects"]), cell_text(row["mean_tau"], *row["interval"])]
                       for name, row in subsets.items()]}
    return {"pairs": pairs, "subsets": chosen}


def swap_table(swaps: list, pair: str, accuracy: dict) -> dict:
    """The subjects the least agreeing pair ranks furthest apart, with their accuracy in each world."""
    a, b = pair.split("|")
    worlds = list(next(iter(accuracy.values())))
    rows = [[s["subject"], f"{s['rank_' + a]:.0f}", f"{s['rank_' + b]:.0f}",
             *(f"{accuracy[s['subject']][w]:.2f}" for w in worlds)] for s in swaps]
    return {"header": ["subject", f"rank by {a}", f"rank by {b}", *(f"accuracy: {w}" for w in worlds)], "rows": rows}


def random_last(bases, matrix: dict) -> dict:
    """Per measure: whether the random subject's mean lies below every learner's (families, lookup)."""
    means = analysis.subject_means(matrix)
    kinds = np.array([s.kind for s in bases])
    random_row = int(np.flatnonzero(kinds == "random")[0])
    learners = np.isin(kinds, LEARNER_KINDS)
    return {m: bool(np.isfinite(v[random_row]) and (v[learners] > v[random_row]).all()) for m, v in means.items()}


def finding_statistics(bases, matrix: dict, resamples: int, permutations: int, rng: np.random.Generator,
                       known: dict | None = None) -> dict:
    """What the findings read, for one matrix (the subjects', or the shuffled control's). `known` holds
    what was already computed for it: "all" and "learners" (agreement()) and "factors"."""
    known = known or {}
    last = random_last(bases, matrix)
    everyone = known.get("all") or analysis.agreement(matrix, resamples, rng)
    learners = known.get("learners") or analysis.agreement(matrix, resamples, rng,
                                                           subset_rows(bases, matrix)["learners"])
    drop_draws = everyone["mean_draws"] - learners["mean_draws"]
    factors = known.get("factors") or analysis.factor_analysis(matrix, permutations, rng)
    lows = [low for low, _ in everyone["interval"].values()]
    return {
        "random_last": last, "random_last_all": all(last.values()),
        "min_tau_low": _finite(np.nanmin(lows)) if np.isfinite(lows).any() else None,
        "first_share": factors["first_share"], "factors_retained": factors["factors"],
        "one_factor": factors["factors"] == 1 and factors["first_share"] > 0.5,
        "subset_drop": everyone["mean_tau"] - learners["mean_tau"],
        "subset_drop_interval": analysis.percentile_interval(drop_draws),
    }


def accuracy_by_world(run: dict, seeds: int) -> dict:
    """Per subject, its mean accuracy over seeds in each world (what the measures weigh differently)."""
    names = [w.name for w in run["tests"].worlds]
    out = {}
    for index, spec in enumerate(run["subjects"]):
        rows = np.array([r["accuracy"] for r in run["records"][index * seeds:(index + 1) * seeds]])
        out[spec.name] = dict(zip(names, rows.mean(axis=0).tolist()))
    return out


def shared_values(run: dict, design) -> dict:
    """What both figures' values hold: the subjects, the measures, the seeds, every cell with its
    interval, and the share of subject-seeds whose decay rate was measured."""
    return {"subjects": [s.name for s in run["subjects"]], "measures": list(run["matrix"]), "seeds": design.seeds,
            "matrix": matrix_values(run["subjects"], run["matrix"]),
            "decay_fitted_share": float(np.mean([r["status"] == "measured" for r in run["rates"]]))}


def matrix_page_values(run: dict, design, seed: int) -> dict:
    """The matrix figure's values: every cell with its interval, the suite's quantities, and Finding 1
    (the random subject last under every measure) for the subjects and the shuffled control."""
    bases, matrix = run["subjects"], run["matrix"]
    rng = np.random.default_rng([seed, 19])
    last = random_last(bases, matrix)
    control = random_last(bases, analysis.shuffled(matrix, rng))
    shared = shared_values(run, design)
    return {
        **shared, "table": matrix_table(shared["matrix"]),
        "worlds": [w.name for w in run["tests"].worlds],
        "ceilings": {w.name: w.ceiling() for w in run["tests"].worlds},
        "per_seed": {m: np.asarray(v, dtype=float).tolist() for m, v in matrix.items()},
        "accuracy_by_world": accuracy_by_world(run, design.seeds),
        "suite": {"complexity": dict(zip(run["suite"]["space"].names, run["suite"]["space"].complexity.tolist())),
                  "weights": run["suite"]["weights"],
                  "difficulty_epochs": {k: d["epochs"] for k, d in run["suite"]["difficulties"].items()},
                  "omega": run["suite"]["omega"].tolist()},
        "random_last": last, "random_last_all": all(last.values()),
        "control": {"random_last": control, "random_last_all": all(control.values())},
    }


def agreement_values(run: dict, design, resamples: int, permutations: int, seed: int) -> dict:
    """The agreement figure's values: τ with intervals, the subsets, the factors, the least agreeing
    pair and what each measure rewards, and Findings 2-4 for the subjects and the shuffled control."""
    bases, matrix = run["subjects"], run["matrix"]
    names = [s.name for s in bases]
    rng = np.random.default_rng([seed, 17])
    means = analysis.subject_means(matrix)
    chosen = subset_rows(bases, matrix)
    results = {subset: analysis.agreement(matrix, resamples, rng, rows) for subset, rows in chosen.items()}
    everyone = results["all"]
    subsets = {subset: {"subjects": int(len(rows)), "mean_tau": _finite(results[subset]["mean_tau"]),
                        "interval": results[subset]["mean_interval"],
                        "tau": {k: _finite(v) for k, v in results[subset]["tau"].items()}}
               for subset, rows in chosen.items()}
    worst = analysis.least_agreeing(everyone["tau"])
    factors = analysis.factor_analysis(matrix, permutations, rng)
    statistics = finding_statistics(bases, matrix, resamples, permutations, rng,
                                    {"all": everyone, "learners": results["learners"], "factors": factors})
    control = finding_statistics(bases, analysis.shuffled(matrix, rng), resamples, permutations, rng)
    swaps = analysis.rank_swaps(means, worst, names)
    rewards = {m: {k: _finite(t) for k, t in row.items()}
               for m, row in analysis.rewards(means, attributes(bases, run["records"], design.seeds)).items()}
    by_world = accuracy_by_world(run, design.seeds)
    return {
        **shared_values(run, design),
        "tau": {k: _finite(v) for k, v in everyone["tau"].items()}, "tau_interval": everyone["interval"],
        "mean_tau": everyone["mean_tau"], "mean_tau_interval": everyone["mean_interval"],
        "subsets": subsets,
        "factors": factors,
        "least_agreeing": worst, "least_tau": _finite(everyone["tau"][worst]),
        "swaps": swaps, "swap_table": swap_table(swaps, worst, by_world), "accuracy_by_world": by_world,
        "tables": agreement_tables(everyone, subsets, results["learners"]["tau"]),
        "rewards": rewards, "rewards_table": {
            "header": ["measure", *(f"τ with {name}" for name in next(iter(rewards.values())))],
            "rows": [[m, *(cell_text(t) for t in row.values())] for m, row in rewards.items()]},
        "distinct_measures": int(sum(np.ptp(v[np.isfinite(v)]) > 0 for v in means.values())),
        **statistics, "control": control,
    }
