"""The survival chapter's experiments as functions the notebooks call: simulated subjects at known
decay rates, classifiers' decay rates on digits, the estimator study's table, and the scaling
prediction's levels, each returning the numbers the book quotes."""
from __future__ import annotations

import numpy as np

from intellimetry.stats import fit_discrete_power_law, sample_discrete_power_law
from intellimetry.survival.decay_rate import estimate_decay_rate, frequency_table
from intellimetry.survival.fit_quality import ESTIMATORS
from intellimetry.survival.levels import THRESHOLDS, classify_level

# --------------------------------------------------------------------------- Figure 1: simulated subjects


def simulate_subjects(true_alpha: dict, n_events: int, k_max: int, rng: np.random.Generator) -> tuple[dict, dict]:
    """Failure counts of one subject per level drawn at its decay rate (in `true_alpha`'s order, from
    one generator) and each one's discrete MLE fit on 1 <= k <= k_max: (failures, fits)."""
    failures = {level: sample_discrete_power_law(alpha, n_events, rng) for level, alpha in true_alpha.items()}
    fits = {level: fit_discrete_power_law(sample, k_min=1, k_max=k_max) for level, sample in failures.items()}
    return failures, fits


def level_rows(true_alpha: dict, fits: dict, reference: dict) -> dict[str, dict]:
    """Per subject: the paper's condition, the drawn and the fitted α with its standard error, the gap,
    and the level each implies (does the fit land on the level it was drawn at?)."""
    return {level: {"paper_condition": reference[level]["condition"], "alpha_true": true_alpha[level],
                    "alpha_fit": fit.alpha, "alpha_se": fit.sigma, "gap": fit.alpha - true_alpha[level],
                    "level_true": classify_level(true_alpha[level]), "level_fit": classify_level(fit.alpha),
                    "events_in_range": fit.n}
            for level, fit in fits.items()}


def levels_match(rows: dict) -> bool:
    """Whether every fitted decay rate implies the level its subject was drawn at."""
    return all(r["level_true"] == r["level_fit"] for r in rows.values())


# --------------------------------------------------------------------------- Figure 2: classifiers on digits

def failures_by_model(models, data: dict, seeds, n_folds: int, epochs: int, model_kwargs: dict,
                      learning_rate: float, progress: bool = True) -> dict[str, tuple]:
    """{model kind: (failure counts (seeds × test events), accuracy per seed)}, every kind trained
    with every seed on the same data."""
    from tqdm import tqdm

    from intellimetry.survival.digits import failures_over_seeds  # torch: only for this experiment

    return {kind: failures_over_seeds(kind, data, seeds, n_folds, epochs, model_kwargs=model_kwargs, lr=learning_rate)
            for kind in tqdm(models, desc="models", disable=not progress)}


def model_decay_rates(runs: dict, paper: dict, n_seeds: int, k_min: int, k_max: int, resamples: int,
                      rng: np.random.Generator) -> dict[str, dict]:
    """Per model kind: accuracy over seeds, the frequency of each failure count averaged over seeds
    (as the paper plots it), and the decay rate with its bootstrap interval and level over all
    seeds' events, beside the paper's level. Kinds run in `runs` order, drawing from one generator."""
    results = {}
    for kind, (failures, accuracies) in runs.items():
        k, counts = frequency_table(failures.ravel())
        estimate = estimate_decay_rate(failures.ravel(), k_min, k_max, resamples, rng)
        results[kind] = {
            "name": paper[kind]["name"], "paper_level": paper[kind]["paper_level"],
            "accuracy": float(np.mean(accuracies)), "accuracy_sd": float(np.std(accuracies)),
            "events_per_seed": int(failures.shape[1]), "mean_failures": float(failures.mean()),
            "frequency": {f"k{int(kk)}": float(c) / n_seeds for kk, c in zip(k, counts)},
            **estimate,
        }
    return results


def alpha_by_model(results: dict) -> dict[str, float]:
    """{model kind: fitted decay rate}, the statistic the paper's ranking (linear < MLP < CNN) is judged on."""
    return {kind: float(row["alpha"]) for kind, row in results.items()}


# --------------------------------------------------------------------------- Figure 11: estimator study table

def sidecar_key(prefix: str, number: float) -> str:
    """Sidecar keys without dots (the book's roles use dots as path separators): a2.5 -> a2p5."""
    return prefix + f"{number:g}".replace(".", "p")


def estimator_cell(summary, name: str, alpha: float, size: int) -> dict:
    """One estimator's mean, spread, bias, RMSE and R² at one (α, size) of the summarised study."""
    row = summary[(summary["estimator"] == name) & (summary["alpha"] == alpha) & (summary["size"] == size)].iloc[0]
    return {"mean": row["mean"], "sd": row["sd"], "bias": row["bias"], "rmse": row["rmse"], "r2": row["r2"]}


def estimator_table(summary, alphas, sizes) -> dict:
    """{estimator: {a<α>: {n<size>: cell}}} for every estimator, α and sample size."""
    return {name: {sidecar_key("a", alpha): {sidecar_key("n", size): estimator_cell(summary, name, alpha, size)
                                             for size in sizes} for alpha in alphas}
            for name in ESTIMATORS}


def worst_bias(summary) -> dict[str, float]:
    """Each estimator's largest absolute bias over every (α, size): its worst case."""
    return {name: float(summary[summary["estimator"] == name]["bias"].abs().max()) for name in ESTIMATORS}


def paper_style_fit(summary, estimator: str = "raw_histogram") -> dict:
    """The paper's way of reading a decay rate (a least-squares line on the decay plot, judged by R²)
    at the largest sample size studied: its worst absolute bias over every α and its lowest mean R²,
    i.e. whether a good-looking line recovers a known decay rate."""
    rows = summary[(summary["estimator"] == estimator) & (summary["size"] == summary["size"].max())]
    return {"estimator": estimator, "size": int(rows["size"].iloc[0]),
            "worst_abs_bias": float(rows["bias"].abs().max()), "lowest_r2": float(rows["r2"].min())}


# --------------------------------------------------------------------------- Figures 12-13: scaling

def rate_table_summary(table, chosen) -> dict:
    """The digitised decay rates: their range, the best model, the chosen series' largest model's
    rate, and how many models reach Capable (α above the first threshold)."""
    best = table.loc[table["alpha"].idxmax()]
    return {"alpha_min": float(table["alpha"].min()), "alpha_max": float(table["alpha"].max()),
            "best_model": best["model"], "largest_series_alpha": float(chosen["alpha"].iloc[-1]),
            "models_at_capable_or_above": int((table["alpha"] > THRESHOLDS[0]).sum())}


def levels_reached(fit, timeline, hardware) -> dict[str, dict]:
    """For Capable and Autonomous: the model size the fitted line reaches the threshold at, the year
    Moore's law makes it trainable, and what it would cost in GPUs and against the market."""
    levels = {}
    for name, alpha in zip(("capable", "autonomous"), THRESHOLDS):
        size = fit.size_for_alpha(alpha)
        year = float(timeline.year(size))
        levels[name] = {"alpha": alpha, "params": size, "log10_params": float(np.log10(size)),
                        "year": year, "years_from_base": year - timeline.base_year, **hardware.cost_of(size)}
    return levels


def against_claims(autonomous: dict, claims: dict) -> dict:
    """Our Autonomous prediction against the paper's claims: gaps in log10 parameters, in years, and
    in log10 of the multiple of the market value."""
    return {"log10_params_gap": autonomous["log10_params"] - float(np.log10(claims["autonomous_parameters"])),
            "years_gap": autonomous["years_from_base"] - claims["years_to_autonomous"],
            "log10_market_multiple_gap": float(np.log10(autonomous["market_value_multiple"]
                                                        / claims["apple_multiple"]))}
