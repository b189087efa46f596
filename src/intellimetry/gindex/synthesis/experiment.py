"""One experiment: train (or fine-tune) a model on tasks, generate a program per test task, score it."""
from __future__ import annotations

import math
import time
from collections import defaultdict
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np

from intellimetry.checks import check_int
from intellimetry.gindex.divergence import RULES, performance, skill_level
from intellimetry.gindex.flows import FlowError, parse_flow
from intellimetry.gindex.synthesis.codec import encode_flow
from intellimetry.gindex.synthesis.constrained import decode_constrained
from intellimetry.gindex.synthesis.generation import generate_programs, score_program
from intellimetry.gindex.synthesis.model import _check_size, _config_shape, build_model, non_embedding_parameters
from intellimetry.gindex.synthesis.tokenizer import SPECIAL_TOKENS, PhraseTokenizer, PretrainedTokenizer
from intellimetry.gindex.synthesis.training import train_model


@dataclass
class DomainScore:
    """θ = mean(1 − Δ), perfects = share with Δ = 0, parseable = share of outputs that decode, n = test tasks;
    unaided = share that decode with no token changed by the grammar (what free greedy decoding writes)."""

    theta: float
    perfects: float
    parseable: float
    n: int
    unaided: float | None = None


@dataclass
class ExperimentResult:
    """One trained (or fine-tuned) model and its scores on the test tasks.

    Compute: flops = 6 · N · tokens, N = non-embedding parameters, tokens = prompt and target tokens fed in
    training (padding excluded; the 6 = 2 forward + 4 backward multiply-adds per parameter and token, as in
    Kaplan et al. 2020). attention_flops = 6 · n_layer · n_embd · Σ L² over the fed sequences (the QKᵀ and
    AV products, not in 6N·D); flops + attention_flops is the fuller count. petaflops = flops / 1e15.
    `size` is the SIZES name, or the `pretrained` id/directory; `seconds` is training wall time only.
    With `constrained` decoding, `task_overrides` counts per test task the tokens the grammar changed (of
    `task_steps` decoded) and `unaided` is the share of programs that decode with none changed.
    """

    size: str
    pretrained: str | None
    seed: int
    steps: int
    batch_size: int
    learning_rate: float
    n_layer: int
    n_embd: int
    n_head: int
    n_positions: int
    vocab_size: int
    params: int
    non_embedding_params: int
    train_samples: int
    train_samples_per_domain: dict[str, int]
    tokens: int
    padded_tokens: int
    flops: float
    attention_flops: float
    petaflops: float
    seconds: float
    eval_seconds: float
    max_new_tokens: int
    theta: float
    perfects: float
    parseable: float
    domains: dict[str, DomainScore]
    task_domains: list[str]
    task_deltas: list[float]
    generations: list[str]
    losses: list[float]
    constrained: bool = False
    unaided: float | None = None
    task_steps: list[int] = field(default_factory=list)
    task_overrides: list[int] = field(default_factory=list)
    model: Any = field(default=None, repr=False, compare=False)
    tokenizer: Any = field(default=None, repr=False, compare=False)

    def as_dict(self, generations: bool = False) -> dict:
        """JSON-ready numbers (no model or tokenizer; generated texts only if asked)."""
        skip = {"model", "tokenizer"} | (set() if generations else {"generations"})
        out = {f: getattr(self, f) for f in self.__dataclass_fields__ if f not in skip}
        out["domains"] = {d: asdict(score) for d, score in self.domains.items()}
        return out



def _check_tasks(name: str, tasks) -> list:
    """Tasks with a non-empty str .domain, a str .spec and a valid .flow."""
    try:
        tasks = list(tasks)
    except TypeError:
        raise ValueError(f"{name} must be a sequence of tasks, got {type(tasks).__name__}") from None
    if not tasks:
        raise ValueError(f"{name} must hold at least one task")
    for k, task in enumerate(tasks):
        for attribute in ("domain", "spec", "flow"):
            if not hasattr(task, attribute):
                raise ValueError(f"{name}[{k}] has no .{attribute} (need .domain, .spec, .flow)")
        if not isinstance(task.domain, str) or not task.domain:
            raise ValueError(f"{name}[{k}].domain must be a non-empty string, got {task.domain!r}")
        if not isinstance(task.spec, str):
            raise ValueError(f"{name}[{k}].spec must be a string, got {type(task.spec).__name__}")
        try:
            parse_flow(task.flow)
        except FlowError as err:
            raise ValueError(f"{name}[{k}].flow is not a valid flow: {err}") from None
    return tasks


def _load_pretrained(name: str, seed: int):
    """Tokenizer and float32 causal LM of a Hugging Face id or local directory, embeddings resized for new tokens."""
    import torch
    from transformers import AutoModelForCausalLM

    tokenizer = PretrainedTokenizer(name)
    model = AutoModelForCausalLM.from_pretrained(name, dtype=torch.float32)
    if getattr(model, "loss_type", None) is None:
        model.loss_type = "ForCausalLM"
    if len(tokenizer) > model.get_input_embeddings().num_embeddings:
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)  # rows for the added special tokens are drawn at random
            model.resize_token_embeddings(len(tokenizer))
    model.config.bos_token_id, model.config.eos_token_id = tokenizer.bos_id, tokenizer.eos_id
    model.config.pad_token_id = tokenizer.pad_id
    return tokenizer, model


def run_experiment(train_tasks, test_tasks, size: str = "tiny", steps: int = 300, batch_size: int = 16,
                   learning_rate: float = 3e-3, seed: int = 0, torch_threads: int = 1, progress: bool = True,
                   vocab_size: int = 512, phrases: int = 2048, phrase_min_count: int = 4,
                   max_new_tokens: int | None = None, warmup_fraction: float = 0.1,
                   dropout: float = 0.0, eval_batch_size: int = 64, rule: str = "either", id_refs: bool = False,
                   pretrained: str | None = None, constrained: bool = False) -> ExperimentResult:
    """Train a program-synthesis model on `train_tasks`, generate a program per test task, score it with Δ.

    Tasks have `.domain`, `.spec` (English) and `.flow` (reference Node-RED flow); programs are written as
    compact text (`encode_flow`, with `id_refs`). From scratch (default): a `PhraseTokenizer` (`vocab_size`
    subwords, up to `phrases` phrase tokens seen `phrase_min_count` times) trained on the training specs and
    programs, and a GPT-2 of `size` (see SIZES) initialised with `seed`, with `n_positions` fitting the
    longest training sequence and the longest test prompt plus `max_new_tokens`. With `pretrained` (a
    Hugging Face id, which downloads, or a local directory) its tokenizer and weights are fine-tuned instead,
    and `size`, `vocab_size`, `phrases`, `phrase_min_count` and `dropout` are not used. `steps = 0` scores
    the untrained model. `max_new_tokens` defaults to 1.25 × the longest training target + 8. Greedy
    decoding, with `constrained` to the flow grammar (`constrained.decode_constrained`: every program that
    ends within `max_new_tokens` decodes); output that does not decode to a flow scores Δ = 1. torch uses
    `torch_threads` threads during the call (restored after); results are deterministic for a given seed and
    thread count.
    The compute count is described in `ExperimentResult`.
    """
    import torch

    train_tasks = _check_tasks("train_tasks", train_tasks)
    test_tasks = _check_tasks("test_tasks", test_tasks)
    if pretrained is None:
        _check_size(size)
        vocab_size = check_int("vocab_size", vocab_size, 256 + len(SPECIAL_TOKENS))
        phrases = check_int("phrases", phrases, 0)
        phrase_min_count = check_int("phrase_min_count", phrase_min_count, 2)
    elif not isinstance(pretrained, str) or not pretrained:
        raise ValueError(f"pretrained must be a model id or directory (non-empty string) or None, got {pretrained!r}")
    steps = check_int("steps", steps, 0)
    batch_size = check_int("batch_size", batch_size, 1)
    seed = check_int("seed", seed, 0)
    torch_threads = check_int("torch_threads", torch_threads, 1)
    eval_batch_size = check_int("eval_batch_size", eval_batch_size, 1)
    if max_new_tokens is not None:
        max_new_tokens = check_int("max_new_tokens", max_new_tokens, 1)
    for name, value, upper in (("learning_rate", learning_rate, math.inf), ("warmup_fraction", warmup_fraction, 1),
                               ("dropout", dropout, 1)):
        low_ok = value > 0 if name == "learning_rate" else value >= 0
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                or not low_ok or not value < upper:
            bound = "> 0" if name == "learning_rate" else f"in [0, {upper})"
            raise ValueError(f"{name} must be a finite number {bound}, got {value!r}")
    for name, value in (("progress", progress), ("id_refs", id_refs), ("constrained", constrained)):
        if not isinstance(value, bool):
            raise ValueError(f"{name} must be True or False, got {value!r}")
    if rule not in RULES:
        raise ValueError(f"rule: unknown association rule {rule!r}; allowed: {', '.join(RULES)}")

    threads = torch.get_num_threads()
    torch.set_num_threads(torch_threads)
    try:
        programs = [encode_flow(task.flow, id_refs=id_refs) for task in train_tasks]
        if pretrained is None:
            tokenizer = PhraseTokenizer.train([t.spec for t in train_tasks] + programs, vocab_size, phrases,
                                              phrase_min_count)
        else:
            tokenizer, model = _load_pretrained(pretrained, seed)
        examples = [(tokenizer.prompt(t.spec), tokenizer.target(p)) for t, p in zip(train_tasks, programs)]
        longest_target = max(len(target) for _, target in examples)
        explicit = max_new_tokens is not None
        if not explicit:
            max_new_tokens = math.ceil(1.25 * longest_target) + 8
        test_prompt = max(len(tokenizer.prompt(t.spec)) for t in test_tasks)
        longest_train = max(len(p) + len(t) for p, t in examples)
        if pretrained is None:
            n_positions = max(longest_train, test_prompt + max_new_tokens)
            model = build_model(size, len(tokenizer), n_positions, seed, dropout, tokenizer)
        else:
            size = pretrained
            n_positions = _config_shape(model)[3] or longest_train
            if longest_train > n_positions:
                raise ValueError(f"pretrained: the longest training sequence ({longest_train} tokens) exceeds "
                                 f"the model's {n_positions} positions")
            if test_prompt + max_new_tokens > n_positions:
                if explicit or test_prompt >= n_positions:
                    raise ValueError(f"pretrained: the longest test prompt ({test_prompt} tokens) plus max_new_tokens "
                                     f"({max_new_tokens}) exceeds the model's {n_positions} positions")
                max_new_tokens = n_positions - test_prompt  # the default budget is cut to fit
        run = train_model(model, examples, steps, batch_size, learning_rate, seed, tokenizer.pad_id,
                          warmup_fraction, progress=progress)
        start = time.perf_counter()
        specs = [t.spec for t in test_tasks]
        if constrained:
            decoding = decode_constrained(model, tokenizer, specs, max_new_tokens, eval_batch_size)
            generations, decoded = decoding.texts, {"steps": decoding.steps, "overrides": decoding.overrides}
        else:
            generations, decoded = generate_programs(model, tokenizer, specs, max_new_tokens, eval_batch_size), {}
        scores = [score_program(text, task.flow, rule, id_refs) for text, task in zip(generations, test_tasks)]
        eval_seconds = time.perf_counter() - start
    finally:
        torch.set_num_threads(threads)

    n_layer, n_embd, n_head, _ = _config_shape(model)
    n_params = non_embedding_parameters(model)
    flops = 6.0 * n_params * run.tokens
    per_domain: dict[str, int] = defaultdict(int)
    for task in train_tasks:
        per_domain[task.domain] += 1
    return ExperimentResult(
        size=size, pretrained=pretrained, seed=seed, steps=steps, batch_size=batch_size,
        learning_rate=float(learning_rate), n_layer=n_layer, n_embd=n_embd, n_head=n_head, n_positions=n_positions,
        vocab_size=len(tokenizer), params=sum(p.numel() for p in model.parameters()),
        non_embedding_params=n_params, train_samples=len(train_tasks), train_samples_per_domain=dict(per_domain),
        tokens=run.tokens, padded_tokens=run.padded_tokens, flops=flops,
        attention_flops=6.0 * n_layer * n_embd * run.sequence_square_sum, petaflops=flops / 1e15,
        seconds=run.seconds, eval_seconds=eval_seconds, max_new_tokens=max_new_tokens, losses=run.losses,
        model=model, tokenizer=tokenizer, constrained=constrained, task_steps=decoded.get("steps", []),
        **score_summary(scores, test_tasks, generations, decoded.get("overrides")))


def score_summary(scores, test_tasks, generations, overrides=None) -> dict:
    """The score fields of an ExperimentResult from each test task's (Δ, parseable): θ, perfects,
    parseable and unaided overall and per test domain, the tasks' domains and Δ, the generated texts, and
    the tokens the grammar changed per task (`overrides`; None: decoded freely, none changed)."""
    scores = list(scores)
    overrides = [0] * len(scores) if overrides is None else list(overrides)
    if not len(scores) == len(generations) == len(overrides) == len(test_tasks):
        raise ValueError(f"{len(test_tasks)} test tasks but {len(scores)} scores, {len(generations)} texts and "
                         f"{len(overrides)} override counts")
    deltas = [delta for delta, _ in scores]
    unaided = [parses and not changed for (_, parses), changed in zip(scores, overrides)]
    by_domain: dict[str, list[int]] = defaultdict(list)
    for k, task in enumerate(test_tasks):
        by_domain[task.domain].append(k)

    def summary(indices) -> DomainScore:
        d = [deltas[k] for k in indices]
        return DomainScore(performance(d), skill_level(d), float(np.mean([scores[k][1] for k in indices])), len(d),
                           float(np.mean([unaided[k] for k in indices])))

    overall = summary(range(len(test_tasks)))
    return {"theta": overall.theta, "perfects": overall.perfects, "parseable": overall.parseable,
            "unaided": overall.unaided, "task_overrides": overrides,
            "domains": {d: summary(indices) for d, indices in by_domain.items()},
            "task_domains": [t.domain for t in test_tasks], "task_deltas": deltas, "generations": list(generations)}


def rescore(result: ExperimentResult, generations, test_tasks, rule: str = "either",
            id_refs: bool = False) -> ExperimentResult:
    """`result` with its answers replaced by `generations` (compact program texts, one per test task),
    scored exactly as run_experiment scores a model's own (decoded, then Δ against the reference); its
    cost (samples, compute) stays. A null subject: the same model's budget spent on other answers."""
    test_tasks = _check_tasks("test_tasks", test_tasks)
    scores = [score_program(text, task.flow, rule, id_refs) for text, task in zip(generations, test_tasks)]
    return replace(result, model=None, tokenizer=None, task_steps=[],
                   **score_summary(scores, test_tasks, generations))
