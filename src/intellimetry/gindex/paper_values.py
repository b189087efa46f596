"""The paper's own numbers shaped like our figures' values, so that each item's criterion (and its
`measured` conditions) can be applied to them: a criterion the paper's numbers fail is a wrong
criterion (issue 32). Everything is read from data/reference/gindex and passed through the same
library functions that summarise our runs."""
from __future__ import annotations

import re
from types import SimpleNamespace

from intellimetry.gindex.reference import load_table1, load_table2, table2_best_theta
from intellimetry.gindex.study import domain_theta, size_trend_of_points, tradeoff

# The paper prints each g-index of Table 1 to three decimals: its own numbers are known to half of that.
TABLE1_DECIMALS = 3
SCALE = {"M": 1e6, "B": 1e9}


def model_parameters(name: str) -> float:
    """Parameters of a model named as in Table 1: "GPT2-345M" -> 3.45e8, "GPT Neo-2.7B" -> 2.7e9."""
    match = re.search(r"(\d+(?:\.\d+)?)([MB])$", name.strip())
    if not match:
        raise ValueError(f"no parameter count (e.g. 345M, 2.7B) at the end of model name {name!r}")
    return float(match.group(1)) * SCALE[match.group(2)]


def table1() -> dict:
    """Table 1's g-indices as `rows.<run>.ours` and `g_by_run`, each with its printing precision as
    `intervals`: the values gindex-tab01-models records for our recomputation."""
    half = 0.5 * 10.0 ** -TABLE1_DECIMALS
    g = {run: float(row["g_index"]) for run, row in load_table1()["rows"].items()}
    return {"rows": {run: {"ours": value} for run, value in g.items()}, "g_by_run": g,
            "intervals": {run: [value - half, value + half] for run, value in g.items()}}


def decoding_domains() -> dict:
    """What Table 2 says of programs that decode: a domain whose skill level is at least one half had at
    least half its programs exactly right, so decoding; the share of such domains is a lower bound of the
    share of domains where half the programs decode (`parse.share_parsing`, as measurement.parse_summary)."""
    skills = [row["skill"] for row in load_table2()["domains"].values()]
    return {"parse": {"share_parsing": sum(skill >= 0.5 for skill in skills) / len(skills)}}


def program_size_trends() -> dict:
    """Figures 9-10 from Table 2: one point per task domain (nodes of its program, the best θ and the
    skill level of the paper's models), summarised as size_trend summarises our models' points."""
    domains = load_table2()["domains"]
    return {"size_trend": size_trend_of_points([(row["nodes"], row["best_theta"], row["skill"])
                                                for row in domains.values()]), **decoding_domains()}


def cost_tradeoff() -> dict:
    """Figures 11-12 from Table 1's eight runs (θ, samples, compute, the model's size, g-index): the
    best-g against the best-θ run as `tradeoff` finds them, and every run's θ."""
    rows = load_table1()["rows"]
    runs = [SimpleNamespace(theta=row["theta"], train_samples=row["samples"], flops=row["compute_pf"],
                            params=model_parameters(row["model"])) for row in rows.values()]
    return {"tradeoff": tradeoff(runs, [row["g_index"] for row in rows.values()]),
            "model_thetas": {run: float(row["theta"]) for run, row in rows.items()}, **decoding_domains()}


def hard_domains() -> dict:
    """Table 2: the paper's best θ per domain as one "model", ranked against itself by domain_theta."""
    best = table2_best_theta()
    paper_model = SimpleNamespace(domains={domain: SimpleNamespace(theta=theta) for domain, theta in best.items()})
    return {"domain_theta": domain_theta([paper_model], best), **decoding_domains()}
