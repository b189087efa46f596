"""Loaders for the g-index reference data shipped in data/reference/gindex (the paper's numbers)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from intellimetry.checks import check_choice
from intellimetry.paths import load_reference, reference_file

TABLE1_INPUTS = "gindex/table1-inputs.csv"
DOMAIN_DISTANCE = {"either": "gindex/domain-distance.csv", "strict": "gindex/domain-distance-strict.csv"}
TABLE1 = "gindex/table1.yaml"
RESPONSIVENESS = "gindex/responsiveness.yaml"
TABLE2 = "gindex/table2.yaml"


def load_table1_inputs() -> pd.DataFrame:
    """The authors' eight experiment records: one row per (run, test domain)."""
    frame = pd.read_csv(reference_file(TABLE1_INPUTS), comment="#")
    frame["theta"] = 1.0 - frame["mean_divergence"]
    return frame


def load_domain_distance(rule: str = "either") -> pd.DataFrame:
    """Ω from the authors' sample flows: rows = test domain, columns = curriculum domain (asymmetric).

    rule "either" is the authors' matrix (the reference association rule); "strict" is the same
    sample flows under the strict rule (made by `intellimetry.gindex.omega_from_flows`)."""
    check_choice("association rule", rule, DOMAIN_DISTANCE)
    frame = pd.read_csv(reference_file(DOMAIN_DISTANCE[rule]), comment="#", index_col=0)
    frame.index.name = "test_domain"
    frame.columns.name = "curriculum_domain"
    if list(frame.index) != list(frame.columns):
        raise ValueError("domain-distance matrix: rows and columns must list the same domains in the same order")
    if not np.allclose(np.diag(frame.to_numpy()), 0.0):
        raise ValueError("domain-distance matrix: the diagonal must be 0")
    return frame


def load_table1() -> dict:
    """The paper's Table 1 (rows keyed by experiment run) with its source."""
    return load_reference(TABLE1)


def load_table2() -> dict:
    """The paper's Table 2: per task domain its example program's size and the best θ and skill level."""
    return load_reference(TABLE2)


def load_responsiveness_claims() -> dict:
    """The paper's qualitative statements about Figures 6-8."""
    return load_reference(RESPONSIVENESS)


def run_inputs(records: pd.DataFrame, run: str, domains) -> dict:
    """θ per test domain (in `domains` order), samples per curriculum domain and compute of one run."""
    rows = records[records["run"] == run].set_index("test_domain")
    if rows.empty:
        raise KeyError(f"no experiment record for run {run!r}")
    missing = set(domains) - set(rows.index)
    if missing:
        raise ValueError(f"run {run!r} has no record for domains {sorted(missing)}")
    rows = rows.loc[list(domains)]
    compute = rows["train_compute_petaflop"].unique()
    if compute.size != 1:
        raise ValueError(f"run {run!r}: one compute value expected, got {compute}")
    return {"theta": rows["theta"].to_numpy(), "samples": rows["train_samples_in_domain"].to_numpy(),
            "compute_pf": float(compute[0]), "model": str(rows["model"].iloc[0]),
            "total_samples": int(rows["total_train_samples"].iloc[0])}


def table2_best_theta() -> dict[str, float]:
    """The paper's best average θ per task domain (Table 2), in the table's order."""
    return {domain: float(row["best_theta"]) for domain, row in load_table2()["domains"].items()}
