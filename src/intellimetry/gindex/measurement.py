"""What a program-synthesis run measured (issue 34): how many generated programs decode, per test domain, and
how much θ the training bought over an untrained model decoded the same way.

Decoding constrained to the flow grammar makes every finished program decode, so a θ above zero alone does
not show learning: an untrained model under the same grammar is the floor. Its θ is compared with the best
model's over the same test tasks (paired, with a bootstrap interval), and the parse rates are shown beside
the share of programs the models wrote with no token changed by the grammar ("unaided").
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from intellimetry.gindex.synthesis import ExperimentResult
from intellimetry.stats import bootstrap_interval

# a domain "parses" when at least this share of its generated programs decode
PARSING_SHARE = 0.5


def _pooled(results, domain: str, field: str) -> float:
    """A DomainScore field averaged over models, each weighted by its test tasks in the domain."""
    scores = [r.domains[domain] for r in results]
    return float(sum(getattr(s, field) * s.n for s in scores) / sum(s.n for s in scores))


def _nodes(test: list, domain: str) -> float:
    """Mean nodes (tab included) of the domain's reference test programs."""
    return float(np.mean([len(t.flow) for t in test if t.domain == domain]))


def domain_rows(results, untrained: Mapping[str, ExperimentResult], test: list, paper_best: Mapping) -> dict:
    """Per test domain (in test order): the share of the models' programs that decode, that decode unaided
    and that are exactly right (pooled over the models), the untrained models' decode share, our best θ
    over the models and the untrained models', the paper's best θ (Table 2; None for a domain it lacks)
    and the reference programs' mean size."""
    domains = list(dict.fromkeys(t.domain for t in test))
    nulls = list(untrained.values())
    return {d: {"parseable": _pooled(results, d, "parseable"), "unaided": _pooled(results, d, "unaided"),
                "perfects": _pooled(results, d, "perfects"),
                "untrained_parseable": _pooled(nulls, d, "parseable"),
                "best_theta": max(r.domains[d].theta for r in results),
                "untrained_theta": max(r.domains[d].theta for r in nulls),
                "paper_theta": paper_best.get(d), "nodes": _nodes(test, d)} for d in domains}


def parse_summary(rows: Mapping[str, dict]) -> dict:
    """The rows of domain_rows summarised: domains where at least PARSING_SHARE of the programs decode (count
    and share), the domain that decodes least, and the mean decode shares of the models and the untrained."""
    parseable = {d: row["parseable"] for d, row in rows.items()}
    lowest = min(parseable, key=parseable.get)
    parsing = sum(p >= PARSING_SHARE for p in parseable.values())
    return {"n_domains": len(rows), "domains_parsing": parsing, "share_parsing": parsing / len(rows),
            "parsing_threshold": PARSING_SHARE, "lowest_domain": lowest, "lowest_parseable": parseable[lowest],
            "mean_parseable": float(np.mean(list(parseable.values()))),
            "mean_unaided": float(np.mean([row["unaided"] for row in rows.values()])),
            "untrained_mean_parseable": float(np.mean([row["untrained_parseable"] for row in rows.values()]))}


def untrained_gap(results, untrained: Mapping[str, ExperimentResult], seed: int, resamples: int = 2000) -> dict:
    """θ of the best model minus θ of the untrained model of its size on the same test tasks: the mean of
    the paired per-task differences of 1 − Δ, with its 95 % bootstrap interval over the test tasks."""
    best = max(results, key=lambda r: r.theta)
    floor = untrained[best.size]
    differences = np.asarray(floor.task_deltas) - np.asarray(best.task_deltas)
    interval = bootstrap_interval(differences, np.mean, resamples, np.random.default_rng(seed))
    return {"size": best.size, "theta": best.theta, "untrained_theta": floor.theta,
            "gain": float(differences.mean()), "interval": [interval.low, interval.high],
            "untrained_theta_by_size": {size: r.theta for size, r in untrained.items()},
            "untrained_parseable_by_size": {size: r.parseable for size, r in untrained.items()}}


def measured_values(results, untrained: Mapping[str, ExperimentResult], test: list, paper_best: Mapping,
                    seed: int) -> dict:
    """The figure's values on what was measured: `domains` (domain_rows), `parse` (parse_summary) and
    `untrained_gap`."""
    rows = domain_rows(results, untrained, test, paper_best)
    return {"domains": rows, "parse": parse_summary(rows), "untrained_gap": untrained_gap(results, untrained, seed)}
