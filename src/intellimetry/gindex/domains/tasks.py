"""Tasks and the public interface: seeded streams of tasks per domain, corpora and JSON records."""
from __future__ import annotations

import copy
import hashlib
import operator
import random
from dataclasses import dataclass

from intellimetry.checks import check_choice, check_int
from intellimetry.gindex.domains.generators import _GENERATORS, DOMAINS


@dataclass(frozen=True)
class Task:
    """One task: its domain, English specification and reference flow (a list of Node-RED node dicts)."""

    domain: str
    spec: str
    flow: list  # includes one "tab" node; every other node has "z" (the tab id), "x", "y" and "wires"


def _check_domain(domain) -> None:
    """Raise ValueError for a name that is not one of DOMAINS."""
    check_choice("task domain", domain, DOMAINS)


def _stream_seed(seed: int, domain: str) -> int:
    """The seed of a domain's stream, derived from (seed, domain index) with SHA-256 (stable across processes)."""
    text = f"intellimetry.gindex.domains:{seed}:{DOMAINS.index(domain)}"
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


def generate_task(domain: str, rng: random.Random) -> Task:
    """One task of the domain, drawn from rng."""
    _check_domain(domain)
    spec, flow = _GENERATORS[domain](rng)
    return Task(domain, spec, flow)


def generate_tasks(domain: str, n: int, seed: int) -> list[Task]:
    """n tasks of the domain from its own seeded stream; the first k of n equal generate_tasks(domain, k, seed)."""
    _check_domain(domain)
    n, seed = operator.index(n), operator.index(seed)
    check_int("n", n, 0)
    rng = random.Random(_stream_seed(seed, domain))
    return [generate_task(domain, rng) for _ in range(n)]


def generate_corpus(domains, n_per_domain: int, seed: int) -> dict[str, list[Task]]:
    """n_per_domain tasks for each domain; each domain's tasks depend only on (seed, its index in DOMAINS)."""
    domains = list(domains)
    for domain in domains:
        _check_domain(domain)
    return {domain: generate_tasks(domain, n_per_domain, seed) for domain in domains}


def task_to_json(task: Task) -> dict:
    """The task as a JSON-ready dict {"domain", "text", "flow"}."""
    return {"domain": task.domain, "text": task.spec, "flow": copy.deepcopy(task.flow)}


def task_from_json(data: dict) -> Task:
    """The Task of a dict written by task_to_json."""
    missing = [key for key in ("domain", "text", "flow") if key not in data]
    if missing:
        raise ValueError(f"task record lacks {', '.join(missing)}")
    _check_domain(data["domain"])
    if not isinstance(data["text"], str) or not isinstance(data["flow"], list):
        raise ValueError("task record needs a string 'text' and a list 'flow'")
    return Task(data["domain"], data["text"], copy.deepcopy(data["flow"]))
