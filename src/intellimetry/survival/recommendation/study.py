"""The recommendation figure (Zhan et al. 2025, Figure 5): every model on every log, leave-one-out,
failure counts, decay rates and levels, and SASRec's decay rate against its size.

A recommender ranks every item of the catalogue, so a log's decay rates are fitted on the catalogue's
support: K = the log's items, the range [k_min, K - 1] (`supports`). A user's own history is excluded
from the ranking, so one event's counts can reach only K - 1 - (the history's length); the catalogue
is the support every event shares, and the fit's upper end is its largest possible count.
"""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from intellimetry.plotting import COLORS
from intellimetry.stats.bounded_power_law import SEARCH_RANGE, Support
from intellimetry.survival import controls
from intellimetry.survival.levels import LEVELS, THRESHOLDS
from intellimetry.survival.plots import SERIES_COLORS, decay_panel, interval_errors, rate_vs_size_panel
from intellimetry.survival.rates import (
    decay_rates,
    is_measured,
    level_counts,
    levels,
    rising_share,
    shown_rate,
    size_scaling,
)
from intellimetry.survival.recommendation.logs import GENERATED, REAL, LogModel, Split, leave_one_out, load_log
from intellimetry.survival.recommendation.models import ModelSpec, Recipe, failures, load_or_train
from intellimetry.survival.scaling import fit_scaling

SIGNIFICANCE = 0.05  # a size line "rises significantly" when its slope is positive with p below this
HIT_CUTOFF = 10  # hit rate at 10: the share of users whose held-out item is among the first ten tried


def model_key(spec: ModelSpec) -> str:
    """A stable key for the book: popularity, gru4rec_64, sasrec_32, ..."""
    return spec.kind if spec.kind == "popularity" else f"{spec.kind}_{spec.dim}"


def model_specs(gru_dims, sasrec_dims, blocks: int, heads: int, dropout: float) -> dict[str, ModelSpec]:
    """Popularity, then a GRU4Rec-style model per width, then a SASRec-style model per width (smallest first)."""
    for kind, dims in (("gru4rec", gru_dims), ("sasrec", sasrec_dims)):
        if len(set(dims)) != len(dims):
            raise ValueError(f"{kind} widths must differ, got {list(dims)}")
    specs = [ModelSpec("popularity")]
    specs += [ModelSpec("gru4rec", d, dropout=dropout) for d in gru_dims]
    specs += [ModelSpec("sasrec", d, blocks, heads, dropout) for d in sorted(sasrec_dims)]
    return {model_key(spec): spec for spec in specs}


def load_splits(names, data_dir: str, min_interactions: int, generated: LogModel, seed: int) -> dict[str, Split]:
    """Leave-one-out splits of the named logs (see logs.load_log)."""
    if not names:
        raise ValueError("name at least one data set")
    return {name: leave_one_out(load_log(name, data_dir, min_interactions, generated, seed)) for name in names}


def failure_counts_by_model(specs: dict, splits: dict, recipe: Recipe, cache_root=None) -> tuple[dict, dict]:
    """{model: {data set: failures per user}} and {model: {data set: training record}}; trained models
    come from the model cache when they are there."""
    counts, records = {}, {}
    for key, spec in specs.items():
        counts[key], records[key] = {}, {}
        for name, split in splits.items():
            trained = load_or_train(spec, split, recipe, cache_root)
            counts[key][name] = failures(trained, split, recipe.max_len)
            records[key][name] = trained.record
    return counts, records


def supports(splits: dict) -> dict:
    """{data set: K}, the catalogue's items: what every model ranks for every user (the user's history is
    excluded per event, so an event's own support is smaller; the catalogue is the one they share)."""
    return {name: split.log.n_items for name, split in splits.items()}


def rates_by_model(counts: dict, k_min: int, support, resamples: int, seed: int) -> dict:
    """{model: {data set: decay-rate row}} on each log's support (an int, or {data set: K})."""
    return {key: decay_rates(by_set, k_min, support, resamples, np.random.default_rng(seed))
            for key, by_set in counts.items()}


def chance_rate(split: Split, k_min: int) -> float:
    """The decay rate a uniformly random ranker over each user's unseen items has on the catalogue's
    support, without sampling noise: a user with h items of history besides the held-out one makes a
    count uniform on 0 .. K - 1 - h, so the mixture over users falls with k where long histories stop,
    and its rate on [k_min, K - 1] is a little above 0 (exactly 0 without exclusions)."""
    items = split.log.n_items
    tops = np.array([items - 1 - np.setdiff1d(history, [target]).size
                     for history, target in zip(split.histories, split.targets)])
    weights = np.bincount(tops, weights=1.0 / (tops + 1), minlength=items)  # per user: 1/(top+1) on 0..top
    pmf = np.cumsum(weights[::-1])[::-1][k_min:]  # P(k) for k = k_min .. K - 1, up to a constant
    support = Support(k_min, items - 1)
    return float(support.solve_alpha(float(pmf @ support.log_k / pmf.sum()))[0])


def chance_rates(splits: dict, k_min: int) -> dict:
    """{data set: chance_rate}: the rate a model must beat to decay faster than a random ranker."""
    return {name: chance_rate(split, k_min) for name, split in splits.items()}


def hit_rates(counts: dict, cutoff: int = HIT_CUTOFF) -> dict:
    return {key: {name: float((np.asarray(c) < cutoff).mean()) for name, c in by_set.items()}
            for key, by_set in counts.items()}


def size_lines(specs: dict, rates: dict, records: dict, kind: str = "sasrec") -> dict:
    """Per data set, the log-log line of the MLE α on non-embedding size over the `kind` models (needs
    two sizes; `rises` is false unless every member's rate was measured, rates.size_scaling)."""
    members, params = _family(specs, records, kind)
    if len(members) < 2:
        return {}
    return size_scaling({key: rates[key] for key in members}, params)


def log_binned_size_lines(specs: dict, rates: dict, records: dict, kind: str = "sasrec") -> dict:
    """The same line for the paper-style estimate (least squares on log-binned frequencies), beside the
    MLE's; a data set where some member has no positive log-binned slope gets no line."""
    members, params = _family(specs, records, kind)
    if len(members) < 2:
        return {}
    sizes = [params[key] for key in members]
    lines = {}
    for name in rates[members[0]]:
        alphas = [rates[key][name]["log_binned_alpha"] for key in members]
        if any(a is None or a <= 0 for a in alphas):
            continue
        fit = fit_scaling(sizes, alphas)
        lines[name] = {**fit.as_dict(), "alphas": alphas, "sizes": sizes, "rises": fit.slope > 0,
                       "significant": bool(fit.slope > 0 and fit.p < SIGNIFICANCE),
                       "decades": float(np.log10(max(sizes) / min(sizes)))}
    return lines


def _family(specs: dict, records: dict, kind: str) -> tuple[list, dict]:
    members = [key for key, spec in specs.items() if spec.kind == kind]
    params = {key: next(iter(records[key].values()))["non_embedding_params"] for key in members}
    return members, params


def claim_statistics(rates: dict, splits: dict, chance: dict) -> dict:
    """What the paper's claim is judged on, over the real logs only (a generated log is a control):
    whether every (model, real log) is Limited; whether every rate decays measurably (its interval above
    0, `all_decaying`) and faster than a random ranker over the same unseen items (its interval above
    that ranker's rate, `chance[data set]`: `all_above_chance`); the largest upper interval bound of α
    there (an unfitted rate's upper bound is unknown: the top of the search range stands for it); and
    whether every rate was measured (`measured`: enough events, not a bound, a power law the truncated
    alternatives do not beat)."""
    real = [name for name, split in splits.items() if split.log.source == REAL]
    if not real:
        raise ValueError("the paper's claim is about real logs; name at least one (movielens, movielens-dir, "
                         "amazon-dir) besides generated")
    pairs = [(by_set[name], chance[name]) for by_set in rates.values() for name in real]
    rows = [row for row, _ in pairs]
    alphas = [row["alpha"] for row in rows if controls.fitted(row)]
    binned = [row["log_binned_alpha"] for row in rows if row.get("log_binned_alpha") is not None]
    highs = [row["ci_high"] if controls.fitted(row) else SEARCH_RANGE[1] for row in rows]
    return {"real_sets": real, "all_limited": all(row["level"] == LEVELS[0] for row in rows),
            "all_decaying": controls.all_decaying(rows),
            "all_above_chance": all(controls.fitted(row) and row["ci_low"] > rate for row, rate in pairs),
            "chance_alpha": {name: chance[name] for name in real},
            "measured": controls.measurement(rows), "all_measured": all(is_measured(row) for row in rows),
            "alpha_ci_high_max": max(highs), "alpha_max": max(alphas) if alphas else None,
            "alpha_min": min(alphas) if alphas else None,
            "log_binned_min": min(binned) if binned else None, "log_binned_max": max(binned) if binned else None}


def random_ranker_control(splits: dict, counts: dict, k_min: int, resamples: int, seed: int) -> dict:
    """The claim's statistics for the control: every model replaced by a uniformly random ranker over
    the same unseen items (the user's history excluded), for the same users, fitted by the same code on
    the same supports."""
    rng = controls.control_rng(seed)
    null = {key: {name: controls.random_ranker_counts(split.log.n_items, rng, reference=split.targets,
                                                      mask=list(split.histories))
                  for name, split in splits.items()}
            for key in counts}
    rates = rates_by_model(null, k_min, supports(splits), resamples, seed)
    return {"subject": controls.NULL_SUBJECT, **claim_statistics(rates, splits, chance_rates(splits, k_min))}


def beats_popularity(hits: dict) -> dict:
    """{model: {data set: whether its hit rate at 10 exceeds popularity's}}."""
    return {key: {name: rate > hits["popularity"][name] for name, rate in by_set.items()}
            for key, by_set in hits.items() if key != "popularity"}


def summary(specs: dict, splits: dict, counts: dict, records: dict, rates: dict, k_min: int) -> dict:
    """The numbers the book quotes: data sets, models, rates, levels, hit rates, size lines, the claim's
    statistics (against the random ranker's rate on each log's catalogue from `k_min`)."""
    lines, binned = size_lines(specs, rates, records), log_binned_size_lines(specs, rates, records)
    first = {key: next(iter(by_set.values())) for key, by_set in records.items()}
    return {
        "datasets": {name: {**split.log.summary(), "events": len(split.targets)} for name, split in splits.items()},
        "generated_sets": [name for name, split in splits.items() if split.log.source == GENERATED],
        "models": {key: {"label": spec.label, "kind": spec.kind, "dim": spec.dim,
                         "non_embedding_params": first[key]["non_embedding_params"],
                         "trained_now": any(r["trained_now"] for r in records[key].values()),
                         "train_seconds": sum(r.get("train_seconds", 0.0) for r in records[key].values())}
                   for key, spec in specs.items()},
        "rates": {key: {name: shown_rate(row) for name, row in by_set.items()}
                  for key, by_set in rates.items()},
        "levels": levels(rates), "level_counts": level_counts(rates), "pairs": sum(len(r) for r in rates.values()),
        "hit_rate_at_10": hit_rates(counts), "beats_popularity": beats_popularity(hit_rates(counts)),
        "size": lines, "size_rising": rising_share(lines) if lines else {}, "size_log_binned": binned,
        **claim_statistics(rates, splits, chance_rates(splits, k_min)),
    }


# --------------------------------------------------------------------------- the figure

FIGURE_WIDTH = 7.5  # inches: the legends' 7 pt text stays above 8 px at the book's column width


def recommendation_figure(specs: dict, splits: dict, counts: dict, rates: dict, lines: dict, binned: dict):
    """A full-width decay panel per data set (every model), then α with intervals on the level scale
    and SASRec's α against its size (the MLE, and the paper-style log-binned estimate), each a full
    row too: at half width the full profile's seven model labels ran into each other."""
    names = list(splits)
    layout = [[name] for name in names] + [["alpha"]] + ([["size"]] if lines else [])
    fig, axes = plt.subplot_mosaic(layout, figsize=(FIGURE_WIDTH, 3.4 * len(layout)), layout="constrained")
    by_label = {specs[key].label: by_set for key, by_set in counts.items()}
    rates_by_label = {specs[key].label: by_set for key, by_set in rates.items()}
    for index, (name, split) in enumerate(splits.items()):
        decay_panel(axes[name], by_label, name, split.label, rates_by_label, split.log.n_items,
                    explain_levels=index == 0)
    alpha_panel(axes["alpha"], specs, splits, rates)
    if lines:
        size_panel(axes["size"], splits, lines, binned)
    return fig


def size_panel(ax, splits: dict, lines: dict, binned: dict) -> None:
    """SASRec's α against size per data set (colour): the MLE (filled, dashed line) and the
    log-binned least-squares estimate (hollow, dotted line), each line labelled with its slope; where the
    rates give no line (a rate not fitted, or not positive), only the fitted points are drawn."""
    alphas = []
    for index, name in enumerate(lines):
        short, color = _short(splits[name].label), SERIES_COLORS[index]
        rate_vs_size_panel(ax, lines[name], "SASRec: α against size", color=color, series=f"{short}, MLE")
        alphas += [a for a in lines[name]["alphas"] if a is not None]
        line = binned.get(name)
        if line is None:
            continue
        sizes = np.asarray(line["sizes"], dtype=float)
        grid = np.geomspace(sizes.min(), sizes.max(), 20)
        ax.plot(sizes, line["alphas"], "o", mfc="none", ms=5, color=color)
        ax.plot(grid, 10 ** (line["intercept"] + line["slope"] * np.log10(grid)), ":", color=color, lw=1.2,
                label=f"{short}, log-binned LS: {line['slope']:+.3f} (p {line['p']:.2f})")
        alphas += line["alphas"]
    if alphas:
        ax.set_ylim(min(alphas) - 0.1, max(alphas) + 0.1)
    ax.set_title("SASRec: α against size")
    ax.legend(loc="best", fontsize=7, handlelength=1.6, title="slope of log α on log N", title_fontsize=7)


def _short(label: str) -> str:
    return label.split(" (")[0]


def alpha_panel(ax, specs: dict, splits: dict, rates: dict) -> None:
    """Each model's α per data set over the level bands: a measured MLE with its bootstrap interval
    (filled), a fitted but unmeasured one (too few events, or not a power law) as a cross with its
    interval, and the paper-style log-binned least-squares estimate (hollow). A rate not fitted (a
    bound, or no counts in range) is not drawn; the legend counts it."""
    rows_all = [row for by_set in rates.values() for row in by_set.values()]
    fitted = [row for row in rows_all if controls.fitted(row)]
    binned = [row["log_binned_alpha"] for row in rows_all if row.get("log_binned_alpha") is not None]
    lower, upper = THRESHOLDS
    top = max(upper + 0.5, max((row["ci_high"] for row in fitted), default=0.0) + 0.2)
    bottom = min(1.0, *(row["ci_low"] for row in fitted), *binned) - 0.1
    for (low, high), level in zip(((bottom, lower), (lower, upper), (upper, top)), LEVELS):
        ax.axhspan(low, high, color=COLORS[level.lower()], alpha=0.18, lw=0)
        ax.text(len(specs) - 0.45, high - 0.05, level, ha="right", va="top", fontsize=8)
    width = 0.7 / len(splits)
    for s, (name, split) in enumerate(splits.items()):
        x = np.arange(len(specs)) + (s - (len(splits) - 1) / 2) * width
        rows = [rates[key][name] for key in specs]
        unfitted = sum(not controls.fitted(row) for row in rows)
        note = f" ({unfitted} not fitted)" if unfitted else ""
        for measured, marker in ((True, "o"), (False, "x")):
            keep = [i for i, row in enumerate(rows) if controls.fitted(row) and is_measured(row) == measured]
            if not keep:
                continue
            label = f"{_short(split.label)}: MLE{'' if measured else ', not measured'}{note}"
            note = ""  # said once
            alpha = np.array([rows[i]["alpha"] for i in keep])
            error = interval_errors(alpha, [rows[i]["ci_low"] for i in keep], [rows[i]["ci_high"] for i in keep])
            ax.errorbar(x[keep], alpha, yerr=error, fmt=marker, ms=4, capsize=2, color=SERIES_COLORS[s], label=label)
        drawn = [i for i, row in enumerate(rows) if row.get("log_binned_alpha") is not None]
        ax.plot(x[drawn], [rows[i]["log_binned_alpha"] for i in drawn], "o", mfc="none", ms=5,
                color=SERIES_COLORS[s], label=f"{_short(split.label)}: log-binned LS")
    ax.set_xticks(np.arange(len(specs)), [spec.label.replace(" ", "\n") for spec in specs.values()], fontsize=7)
    ax.set_xlim(-0.5, len(specs) - 0.4)
    ax.set_ylim(bottom, top)
    ax.set_ylabel("decay rate α")
    ax.set_title("α per model and data set")
    ax.grid(axis="x", visible=False)
    ax.legend(loc="upper left", fontsize=7)
