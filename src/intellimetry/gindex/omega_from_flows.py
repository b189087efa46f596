"""Ω between task domains from a directory of flow records, as a reference-data CSV.

A flow record is a JSON file {"name": <domain>, "flow": [<Node-RED nodes>], ...}, the format of the
authors' sample flows (repository mayahq/g-index-benchmark; not redistributed here). This is how
`data/reference/gindex/domain-distance-strict.csv` was made:

    python -m intellimetry.gindex.omega_from_flows SAMPLE_FLOWS_DIR --rule strict \\
        --out data/reference/gindex/domain-distance-strict.csv

The book never runs this (a clone has no sample flows); it reads the CSV it wrote.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from intellimetry.atomic import write_text
from intellimetry.gindex.divergence import RULES
from intellimetry.gindex.flows import FlowError, parse_flow
from intellimetry.gindex.gindex import domain_distance_matrix


def load_flow_records(directory: Path) -> dict[str, list]:
    """Parsed flows by domain name, domains and files in sorted order (independent of listing order)."""
    files = sorted(Path(directory).glob("*.json"))
    if not files:
        raise ValueError(f"no *.json flow records in {directory}")
    flows: dict[str, list] = {}
    for path in files:
        record = json.loads(path.read_text())
        if not isinstance(record, dict) or "name" not in record or "flow" not in record:
            raise ValueError(f"{path.name}: a flow record needs 'name' (the domain) and 'flow'")
        try:
            flows.setdefault(record["name"], []).append(parse_flow(record["flow"]))
        except FlowError as error:
            raise ValueError(f"{path.name}: {error}") from None
    return dict(sorted(flows.items()))


def omega_csv(names: list[str], omega: np.ndarray, source: str) -> str:
    """The CSV layout of data/reference/gindex/domain-distance.csv: a '# Source:' line, then the matrix."""
    lines = [f"# Source: {source}", "test_domain\\curriculum_domain," + ",".join(names)]
    lines += [name + "," + ",".join(repr(float(v)) for v in row) for name, row in zip(names, omega)]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("directory", type=Path, help="directory of flow records (*.json)")
    parser.add_argument("--rule", choices=RULES, default="either", help="association rule (default: either)")
    parser.add_argument("--source", default="", help="provenance text for the '# Source:' line")
    parser.add_argument("--out", type=Path, help="CSV to write (atomically); default: print it")
    args = parser.parse_args(argv)
    names, omega = domain_distance_matrix(load_flow_records(args.directory), rule=args.rule)
    source = args.source or f"omega_from_flows {args.directory.name} --rule {args.rule}"
    text = omega_csv(names, omega, source)
    if args.out:
        write_text(args.out, text)
    else:
        print(text, end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
