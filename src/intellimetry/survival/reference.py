"""The paper's digitised decay rates (reference data shipped in data/reference/survival/)."""
from __future__ import annotations

import pandas as pd

from intellimetry.paths import reference_file

GENERAL_DOMAIN = "survival/general-domain-decay-rates.csv"


def load_general_domain_rates() -> pd.DataFrame:
    """Columns: model, params (non-embedding), alpha, release (a Timestamp), release_year (decimal)."""
    table = pd.read_csv(reference_file(GENERAL_DOMAIN), comment="#")
    table = table.rename(columns={"plotted_size_nonembedding_params": "params", "failure_decay_rate": "alpha"})
    table["release"] = pd.to_datetime(table.pop("approx_release"), format="%Y-%m")
    table["release_year"] = table["release"].dt.year + (table["release"].dt.month - 1) / 12
    return table


def select_series(table: pd.DataFrame, prefix: str) -> pd.DataFrame:
    """The models of one series (e.g. "Qwen2.5"), smallest first; an unknown prefix is an error."""
    chosen = table[table["model"].str.startswith(prefix)].sort_values("params")
    if len(chosen) < 2:
        raise ValueError(f"series {prefix!r} has {len(chosen)} model(s) in {GENERAL_DOMAIN}; "
                         f"models there: {', '.join(table['model'])}")
    return chosen
