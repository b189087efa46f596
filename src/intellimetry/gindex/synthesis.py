"""Program synthesis for the g-index: small GPT-2 models that turn an English task specification into a flow.

The paper fine-tuned pretrained GPT-2/GPT-Neo models on (specification, Node-RED flow) pairs; the book trains
small GPT-2 models from scratch on CPU (the paper-scale path, fine-tuning a pretrained model, is kept as
`run_experiment(..., pretrained=...)`). A flow is written as *compact program text* (`encode_flow`): only
what the divergence Δ can see, in a canonical order, with wires as node indices. Texts become tokens with a
`PhraseTokenizer` (byte-level BPE plus whole-piece "phrases" for boilerplate JSON, which makes sequences
~10-20× shorter than plain BPE). Generated text is turned back into a Node-RED flow with `decode_flow` and
scored with Δ against the reference flow.
"""
from __future__ import annotations

import json
import math
import time
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from typing import Any, Sequence

import networkx as nx
import numpy as np

from intellimetry.checks import check_int

from .divergence import IGNORED_KEYS, RULES, divergence_of_texts, performance, skill_level
from .flows import FlowError, parse_flow

# name -> (n_layer, n_embd, n_head). At least 2 layers: copying a slot value from the specification needs an
# attention circuit across two layers. N (non-embedding) ≈ 25k, 100k, 336k; on one CPU thread, a step of 16
# sequences of ~40 tokens takes ~12, ~21, ~42 ms, so 300 steps of all three take ~25 s.
SIZES = {"tiny": (2, 32, 2), "small": (2, 64, 4), "medium": (3, 96, 4)}
SPECIAL_TOKENS = {"bos": "<|bos|>", "sep": "<|sep|>", "eos": "<|eos|>", "pad": "<|pad|>"}
# keys the compact text leaves out: everything Δ ignores except the type and the wiring
DROPPED_KEYS = IGNORED_KEYS - {"type", "wires"}
_RESERVED = ("id", "x", "y", "z")  # never in compact text: decode_flow sets them
_IGNORE_INDEX = -100  # label of positions that carry no loss (prompt, padding)


# --- compact program text --------------------------------------------------------------------------

def _is_tab(node: dict) -> bool:
    return node.get("type") == "tab"


def encode_flow(flow, keep_ignored: bool = False, id_refs: bool = False) -> str:
    """Canonical compact JSON text of a flow (JSON text or list of node dicts).

    Nodes come in topological order of the wiring DAG (ties by their order in the flow), tab nodes last.
    Each node loses `id`, `x`, `y`, `z` and, unless `keep_ignored`, the other keys Δ ignores (`name`,
    `label`, `group`, `tab`, `endpointUrl`); `wires` keep their port structure with each target id replaced
    by the target's index in this order. Keys are sorted at every depth and the JSON has no spaces, so the
    text does not depend on ids, positions or key order.

    Property values are kept verbatim, including strings that hold another node's id (a chat node's `bot`
    names its config node), so Δ(decode(encode(f)), f) = 0 for every flow, but then the text does depend on
    those ids. With `id_refs`, any string equal to a node's id (at any depth of any property but `type`) is
    written `{"$ref":index}` instead, which `decode_flow(..., id_refs=True)` turns into the fresh id: shorter
    text and a consistent flow, but Δ compares the fresh id with the reference's, so the round trip keeps
    Δ = 0 only for flows without such values. Raises FlowError for a flow that does not parse.
    """
    graph = parse_flow(flow)
    original = {node_id: k for k, node_id in enumerate(graph)}  # graph keeps the flow's node order
    nodes = {node_id: graph.nodes[node_id]["node"] for node_id in graph}
    topological = nx.lexicographical_topological_sort(graph, key=original.__getitem__)
    order = [n for n in topological if not _is_tab(nodes[n])]
    order += [n for n in graph if _is_tab(nodes[n])]
    index = {node_id: k for k, node_id in enumerate(order)}
    dropped = set(_RESERVED) | (set() if keep_ignored else DROPPED_KEYS)

    def refs(value):
        if isinstance(value, str) and value in index:
            return {"$ref": index[value]}
        if isinstance(value, dict):
            return {key: refs(v) for key, v in value.items()}
        if isinstance(value, list):
            return [refs(v) for v in value]
        return value

    compact = []
    for node_id in order:
        node = nodes[node_id]
        item = {key: refs(value) if id_refs and key != "type" else value for key, value in node.items()
                if key not in dropped and key != "wires"}
        if "wires" in node:  # config and tab nodes have no wires: keep that distinction
            item["wires"] = [[index[t] for t in port] if isinstance(port, list) else index[port]
                             for port in node["wires"]]
        compact.append(item)
    return json.dumps(compact, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _wire_index(value, n_nodes: int, where: str) -> int:
    """A wire target (or reference) of compact text: an int index of a node in the list."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise FlowError(f"{where}: {value!r} is not a node index")
    if not 0 <= value < n_nodes:
        raise FlowError(f"{where}: node index {value} out of range (the flow has {n_nodes} nodes)")
    return value


def _layout(flow: list[dict]) -> None:
    """Set x, y on wired nodes: columns by longest path from a source, rows by order within a column."""
    graph = parse_flow(flow)
    column: dict[str, int] = {}
    for node_id in nx.topological_sort(graph):
        column[node_id] = max((column[p] + 1 for p in graph.predecessors(node_id)), default=0)
    rows: dict[int, int] = defaultdict(int)
    for node in flow:
        if "wires" in node and not _is_tab(node):
            c = column[node["id"]]
            node["x"], node["y"] = 120 + 200 * c, 60 + 80 * rows[c]
            rows[c] += 1


def _resolve_refs(value, n_nodes: int, where: str):
    """Replace each {"$ref": index} by the fresh id of that node."""
    if isinstance(value, dict):
        if "$ref" in value:
            if len(value) != 1:
                raise FlowError(f"{where}: a reference must be {{\"$ref\": index}} alone, got keys {sorted(value)}")
            return f"n{_wire_index(value['$ref'], n_nodes, where)}"
        return {key: _resolve_refs(v, n_nodes, where) for key, v in value.items()}
    if isinstance(value, list):
        return [_resolve_refs(v, n_nodes, where) for v in value]
    return value


def decode_flow(text, add_tab: bool = False, id_refs: bool = False) -> list[dict]:
    """A Node-RED flow rebuilt from compact program text (see `encode_flow`); FlowError if it is not one.

    Nodes get fresh ids `n0`, `n1`, … (their index); nodes with `wires` get `z` (the first tab's id) and a
    layered x/y layout; config nodes (no `wires`) and tab nodes get neither, as in Node-RED. A missing tab is
    added only with `add_tab=True`: Δ counts the tab node, so inventing one would credit a generated program
    for a node it did not write. With `id_refs`, `{"$ref": index}` values become that node's id.
    """
    if isinstance(text, (bytes, bytearray)):
        text = text.decode("utf-8", errors="replace")
    if not isinstance(text, str):
        raise FlowError(f"compact program text must be a string, got {type(text).__name__}")
    try:
        items = json.loads(text)
    except json.JSONDecodeError as err:
        raise FlowError(f"malformed JSON: {err}") from None
    except RecursionError:
        raise FlowError("malformed JSON: nested too deeply") from None
    if not isinstance(items, list):
        raise FlowError(f"top level must be a list of nodes, got {type(items).__name__}")
    n_nodes = len(items)
    flow = []
    for k, item in enumerate(items):
        if not isinstance(item, dict):
            raise FlowError(f"node #{k} is a {type(item).__name__}, not an object")
        if not isinstance(item.get("type"), str) or not item["type"]:
            raise FlowError(f"node #{k} has no non-empty string 'type'")
        reserved = [key for key in _RESERVED if key in item]
        if reserved:
            raise FlowError(f"node #{k} has reserved key(s) {reserved}: compact text has no ids or positions")
        if id_refs:
            item = {key: value if key in ("wires", "type") else _resolve_refs(value, n_nodes, f"node #{k}")
                    for key, value in item.items()}
        node = {"id": f"n{k}", **item}
        if "wires" in item:
            wires = item["wires"]
            if not isinstance(wires, list):
                raise FlowError(f"node #{k}: wires must be a list, got {type(wires).__name__}")
            node["wires"] = [[f"n{_wire_index(t, n_nodes, f'node #{k}')}" for t in port] if isinstance(port, list)
                             else f"n{_wire_index(port, n_nodes, f'node #{k}')}" for port in wires]
        flow.append(node)
    tabs = [node["id"] for node in flow if _is_tab(node)]
    if not tabs and add_tab:
        flow.append({"id": f"n{n_nodes}", "type": "tab", "label": "Flow 1", "disabled": False, "info": ""})
        tabs = [flow[-1]["id"]]
    for node in flow:
        if "wires" in node and not _is_tab(node) and tabs:
            node["z"] = tabs[0]
    _layout(flow)  # parse_flow inside rejects cycles (an index can point backwards)
    return flow


# --- tokenizer -------------------------------------------------------------------------------------

# GPT-2's pre-tokenization rule: words (with their leading space), numbers, punctuation runs, whitespace
PIECE_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
_PIECE_CODES = 0xF0000  # supplementary private-use planes: one code point per frequent piece while mining
_MAX_PIECES = 0x10FFFD - _PIECE_CODES
_END = None  # trie key marking the end of a phrase


class ProgramTokenizer:
    """Token ids of specifications and programs, with the special ids of the prompt/target format.

    Prompt = bos + specification + sep; target = compact program text + eos; pad fills batches.
    Subclasses provide `__len__`, `encode` (text -> ids, no special tokens) and `_decode` (ids -> text).
    """

    bos_id: int
    sep_id: int
    eos_id: int
    pad_id: int

    def __len__(self) -> int:
        raise NotImplementedError

    def encode(self, text: str) -> list[int]:
        raise NotImplementedError

    def _decode(self, ids: list[int]) -> str:
        raise NotImplementedError

    def decode(self, ids: Sequence[int]) -> str:
        """Text of the ids before the first eos, special tokens dropped."""
        ids = [int(i) for i in ids]
        if self.eos_id in ids:
            ids = ids[:ids.index(self.eos_id)]
        specials = {self.bos_id, self.sep_id, self.pad_id}
        return self._decode([i for i in ids if i not in specials])

    def prompt(self, spec: str) -> list[int]:
        return [self.bos_id, *self.encode(spec), self.sep_id]

    def target(self, program_text: str) -> list[int]:
        return [*self.encode(program_text), self.eos_id]


def _splitter():
    from tokenizers import Regex, pre_tokenizers

    return pre_tokenizers.Split(Regex(PIECE_PATTERN), behavior="isolated")


class PhraseTokenizer(ProgramTokenizer):
    """Byte-level BPE subwords plus *phrase* tokens: frequent runs of whole pieces (see `train`).

    Ids 0–3 are the special tokens, then the subword vocabulary (all 256 bytes included, so no text is out of
    vocabulary), then the phrases. Encoding splits the text into pieces (GPT-2's rule), replaces the longest
    run of pieces that is a phrase by its id, and spells every other piece with subwords.
    """

    def __init__(self, subwords, phrases: Sequence[tuple[str, ...]]):
        self._subwords = subwords
        self._splitter = _splitter()
        self._n_subwords = subwords.get_vocab_size()
        self.phrases = [tuple(p) for p in phrases]
        self._phrase_text = ["".join(p) for p in self.phrases]
        self._trie: dict = {}
        for k, phrase in enumerate(self.phrases):
            node = self._trie
            for piece in phrase:
                node = node.setdefault(piece, {})
            node[_END] = self._n_subwords + k
        self._piece_cache: dict[str, list[int]] = {}
        self.bos_id, self.sep_id, self.eos_id, self.pad_id = (subwords.token_to_id(SPECIAL_TOKENS[role])
                                                              for role in ("bos", "sep", "eos", "pad"))

    @classmethod
    def train(cls, texts: Sequence[str], vocab_size: int = 512, phrases: int = 2048,
              min_count: int = 4) -> PhraseTokenizer:
        """Train on `texts`: a byte-level BPE of `vocab_size` subwords (256 bytes and 4 special tokens
        included; 260 = bytes only), and up to `phrases` phrase tokens (0: none).

        Phrases are mined by running BPE over pieces instead of bytes (each piece that occurs at least
        `min_count` times becomes one symbol; rarer pieces break runs), keeping the merges that the training
        texts use. Boilerplate JSON of a domain becomes a few tokens, while a slot value such as a word
        copied from the specification stays outside phrases and is spelled by the same subwords in the
        specification and in the program. Deterministic given the texts.
        """
        from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

        texts = list(texts)
        subwords = Tokenizer(models.BPE())
        subwords.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
        subwords.decoder = decoders.ByteLevel()
        subwords.train_from_iterator(texts, trainers.BpeTrainer(
            vocab_size=vocab_size, min_frequency=2, show_progress=False, special_tokens=list(SPECIAL_TOKENS.values()),
            initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
        return cls(subwords, _mine_phrases(texts, phrases, min_count) if phrases else [])

    def __len__(self) -> int:
        return self._n_subwords + len(self.phrases)

    def _piece_ids(self, piece: str) -> list[int]:
        ids = self._piece_cache.get(piece)
        if ids is None:
            ids = self._piece_cache[piece] = self._subwords.encode(piece, add_special_tokens=False).ids
        return ids

    def encode(self, text: str) -> list[int]:
        pieces = [piece for piece, _ in self._splitter.pre_tokenize_str(text)]
        ids, i = [], 0
        while i < len(pieces):
            node, j, best = self._trie, i, None
            while j < len(pieces) and pieces[j] in node:  # longest phrase starting at piece i
                node = node[pieces[j]]
                j += 1
                if _END in node:
                    best = (j, node[_END])
            if best is None:
                ids.extend(self._piece_ids(pieces[i]))
                i += 1
            else:
                ids.append(best[1])
                i = best[0]
        return ids

    def _decode(self, ids: list[int]) -> str:
        parts, run = [], []
        for i in ids:
            if i >= self._n_subwords:
                if run:
                    parts.append(self._subwords.decode(run, skip_special_tokens=True))
                    run = []
                parts.append(self._phrase_text[i - self._n_subwords])
            else:
                run.append(i)
        if run:
            parts.append(self._subwords.decode(run, skip_special_tokens=True))
        return "".join(parts)


def _mine_phrases(texts: Sequence[str], max_phrases: int, min_count: int) -> list[tuple[str, ...]]:
    """Runs of pieces that BPE over pieces merges (pair count >= min_count) and the texts then use."""
    from tokenizers import Tokenizer, models, trainers

    splitter = _splitter()
    pieced = [[piece for piece, _ in splitter.pre_tokenize_str(text)] for text in texts]
    counts: dict[str, int] = defaultdict(int)
    for pieces in pieced:
        for piece in pieces:
            counts[piece] += 1
    frequent = sorted((p for p, c in counts.items() if c >= min_count), key=lambda p: (-counts[p], p))
    code = {piece: chr(_PIECE_CODES + k) for k, piece in enumerate(frequent[:_MAX_PIECES])}
    runs: dict[str, int] = defaultdict(int)  # distinct runs of frequent pieces, with their counts
    for pieces in pieced:
        run = ""
        for piece in pieces + [""]:  # "" (never a piece) ends the last run
            if piece in code:
                run += code[piece]
            else:
                if len(run) > 1:
                    runs[run] += 1
                run = ""
    if not runs:
        return []
    miner = Tokenizer(models.BPE())  # no pre-tokenizer: each run is one word of symbols
    miner.train_from_iterator(
        [run for run, n in sorted(runs.items()) for _ in range(n)],
        trainers.BpeTrainer(vocab_size=len(code) + max_phrases, min_frequency=min_count, show_progress=False,
                            initial_alphabet=list(code.values()), limit_alphabet=len(code)))
    used = {token for run in runs for token in miner.encode(run).tokens if len(token) > 1}
    piece_of = {symbol: piece for piece, symbol in code.items()}
    return [tuple(piece_of[s] for s in token) for token in sorted(used, key=miner.token_to_id)]


class PretrainedTokenizer(ProgramTokenizer):
    """A pretrained model's Hugging Face tokenizer; missing bos/sep/eos/pad tokens are added to it."""

    def __init__(self, name_or_path: str):
        from transformers import AutoTokenizer

        tokenizer = AutoTokenizer.from_pretrained(name_or_path)
        missing = {f"{role}_token": token for role, token in SPECIAL_TOKENS.items()
                   if getattr(tokenizer, f"{role}_token", None) is None}
        if "bos_token" in missing and tokenizer.eos_token is not None:
            missing.pop("bos_token")  # GPT-2 style: <|endoftext|> starts and ends texts
            tokenizer.bos_token = tokenizer.eos_token
        if missing:
            tokenizer.add_special_tokens(missing)
        self.tokenizer = tokenizer
        self.bos_id, self.sep_id = tokenizer.bos_token_id, tokenizer.sep_token_id
        self.eos_id, self.pad_id = tokenizer.eos_token_id, tokenizer.pad_token_id

    def __len__(self) -> int:
        return len(self.tokenizer)

    def encode(self, text: str) -> list[int]:
        return list(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def _decode(self, ids: list[int]) -> str:
        return self.tokenizer.decode(ids, skip_special_tokens=True, clean_up_tokenization_spaces=False)


# --- model -----------------------------------------------------------------------------------------

def _check_size(size: str) -> tuple[int, int, int]:
    if size not in SIZES:
        raise ValueError(f"size: unknown model size {size!r}; allowed: {', '.join(SIZES)}")
    return SIZES[size]


def build_model(size: str, vocab_size: int, n_positions: int, seed: int, dropout: float = 0.0, tokenizer=None):
    """A randomly initialised GPT-2 (`GPT2LMHeadModel`) of a named size; the same seed gives the same weights."""
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    n_layer, n_embd, n_head = _check_size(size)
    special = ({"bos_token_id": None, "eos_token_id": None} if tokenizer is None else
               {"bos_token_id": tokenizer.bos_id, "eos_token_id": tokenizer.eos_id, "pad_token_id": tokenizer.pad_id})
    config = GPT2Config(vocab_size=vocab_size, n_positions=n_positions, n_layer=n_layer, n_embd=n_embd,
                        n_head=n_head, resid_pdrop=dropout, embd_pdrop=dropout, attn_pdrop=dropout, **special)
    with torch.random.fork_rng(devices=[]):  # seeded initialisation without touching the caller's RNG
        torch.manual_seed(seed)
        model = GPT2LMHeadModel(config)
    model.loss_type = "ForCausalLM"  # what transformers falls back to anyway, without its warning
    return model


def non_embedding_parameters(model) -> int:
    """Parameters outside embedding tables (token, position) and the output projection (Kaplan et al.'s N)."""
    import torch

    excluded = {id(p) for module in model.modules() if isinstance(module, torch.nn.Embedding)
                for p in module.parameters()}
    output = model.get_output_embeddings()
    if output is not None:
        excluded |= {id(p) for p in output.parameters()}
    unique = {id(p): p for p in model.parameters()}
    return sum(p.numel() for key, p in unique.items() if key not in excluded)


def _config_shape(model) -> tuple[int, int, int, int]:
    """(n_layer, n_embd, n_head, n_positions) of a GPT-2-like config."""
    def get(*names) -> int:  # the first of several names a config may use; 0 if none is set
        return next((getattr(model.config, n) for n in names if getattr(model.config, n, None) is not None), 0)

    return (int(get("n_layer", "num_hidden_layers", "num_layers")), int(get("n_embd", "hidden_size")),
            int(get("n_head", "num_attention_heads", "num_heads")), int(get("n_positions", "max_position_embeddings")))


# --- training --------------------------------------------------------------------------------------

@dataclass
class TrainingRun:
    """What `train_model` spent: data tokens, padding, compute estimate and time."""

    tokens: int  # prompt + target tokens fed to the model, padding excluded
    padded_tokens: int  # positions fed including padding
    sequence_square_sum: int  # Σ over fed sequences of length², for the attention term
    seconds: float
    losses: list[float]


def collate(examples: Sequence[tuple[list[int], list[int]]], indices: Sequence[int], pad_id: int):
    """Right-padded input ids, attention mask and labels (-100 on prompt and padding) of a batch of examples."""
    import torch

    length = max(len(examples[i][0]) + len(examples[i][1]) for i in indices)
    ids = torch.full((len(indices), length), pad_id, dtype=torch.long)
    mask = torch.zeros((len(indices), length), dtype=torch.long)
    labels = torch.full((len(indices), length), _IGNORE_INDEX, dtype=torch.long)
    for row, i in enumerate(indices):
        prompt, target = examples[i]
        n = len(prompt) + len(target)
        ids[row, :n] = torch.tensor(prompt + target)
        mask[row, :n] = 1
        labels[row, len(prompt):n] = torch.tensor(target)  # loss only on the program and its eos
    return ids, mask, labels


def _batches(lengths: Sequence[int], batch_size: int, seed: int, group: int = 8):
    """Endless stream of batches (lists of example indices), grouped by length to save padding.

    Seeded permutations of all examples (one per epoch) run back to back and are cut into windows of `group`
    batches; a window is sorted by length, cut into batches, and its batches are shuffled. After k whole
    windows the examples used are the first k * batch_size * group of the stream, so each has been used
    equally often, ± 1 (exactly equally when that number is a multiple of the example count).
    """
    rng = np.random.default_rng(seed)
    window = batch_size * group
    pending: list[int] = []
    while True:
        while len(pending) < window:
            pending.extend(rng.permutation(len(lengths)).tolist())
        chunk, pending = pending[:window], pending[window:]
        chunk.sort(key=lambda i: lengths[i])  # stable: ties keep the permutation's order
        batches = [chunk[k:k + batch_size] for k in range(0, window, batch_size)]
        yield from (batches[k] for k in rng.permutation(len(batches)))


def learning_rate_factor(step: int, steps: int, warmup_fraction: float = 0.1) -> float:
    """Multiplier of the learning rate at update `step` (0-based) of `steps`: linear warm-up over the first
    max(1, round(warmup_fraction * steps)) updates up to 1, then linear decay; never 0, 1/(steps − warm-up)
    at the last update."""
    warmup = max(1, round(warmup_fraction * steps))
    return (step + 1) / warmup if step < warmup else (steps - step) / max(1, steps - warmup)


def train_model(model, examples: Sequence[tuple[list[int], list[int]]], steps: int, batch_size: int,
                learning_rate: float, seed: int, pad_id: int, warmup_fraction: float = 0.1,
                weight_decay: float = 0.01, progress: bool = True) -> TrainingRun:
    """Train in place: AdamW, `learning_rate_factor` schedule, gradient norm clipped at 1.

    `examples` are (prompt ids, target ids); batches come from `_batches` (seeded, grouped by length).
    Deterministic given the seed, the initial weights and the thread count.
    """
    import torch
    from tqdm.auto import tqdm

    optimiser = torch.optim.AdamW(model.parameters(), lr=learning_rate, betas=(0.9, 0.95), weight_decay=weight_decay)
    schedule = torch.optim.lr_scheduler.LambdaLR(optimiser,
                                                 lambda step: learning_rate_factor(step, steps, warmup_fraction))
    stream = _batches([len(p) + len(t) for p, t in examples], batch_size, seed)
    tokens = padded = squares = 0
    losses = []
    start = time.perf_counter()
    model.train()
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)  # dropout, if any
        bar = tqdm(range(steps), desc="training", disable=not progress, leave=False)
        for _ in bar:
            ids, mask, labels = collate(examples, next(stream), pad_id)
            loss = model(input_ids=ids, attention_mask=mask, labels=labels).loss
            optimiser.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimiser.step()
            schedule.step()
            lengths = mask.sum(dim=1)
            tokens += int(lengths.sum())
            squares += int((lengths ** 2).sum())
            padded += ids.numel()
            losses.append(loss.item())
            bar.set_postfix(loss=f"{losses[-1]:.3f}", refresh=False)
    model.eval()
    return TrainingRun(tokens, padded, squares, time.perf_counter() - start, losses)


# --- generation and scoring ------------------------------------------------------------------------

def generate_programs(model, tokenizer: ProgramTokenizer, specs: Sequence[str], max_new_tokens: int,
                      batch_size: int = 32) -> list[str]:
    """Greedy completions (compact program text) of each specification, batched with left padding."""
    import torch
    from transformers import GenerationConfig

    prompts = [tokenizer.prompt(spec) for spec in specs]
    config = GenerationConfig(do_sample=False, num_beams=1, max_new_tokens=max_new_tokens,
                              eos_token_id=tokenizer.eos_id, pad_token_id=tokenizer.pad_id,
                              bos_token_id=tokenizer.bos_id)
    order = sorted(range(len(prompts)), key=lambda i: len(prompts[i]))  # similar lengths share a batch
    texts: list[str] = [""] * len(prompts)
    model.eval()
    with torch.no_grad():
        for start in range(0, len(order), batch_size):
            chunk = order[start:start + batch_size]
            width = max(len(prompts[i]) for i in chunk)
            ids = torch.full((len(chunk), width), tokenizer.pad_id, dtype=torch.long)
            mask = torch.zeros((len(chunk), width), dtype=torch.long)
            for row, i in enumerate(chunk):
                ids[row, width - len(prompts[i]):] = torch.tensor(prompts[i])
                mask[row, width - len(prompts[i]):] = 1
            output = model.generate(input_ids=ids, attention_mask=mask, generation_config=config)
            for row, i in enumerate(chunk):
                texts[i] = tokenizer.decode(output[row, width:].tolist())
    return texts


def score_program(text: str, reference_flow, rule: str = "either", id_refs: bool = False) -> tuple[float, bool]:
    """(Δ, parseable) of generated compact text against a reference flow; Δ = 1 when it does not decode."""
    try:
        flow = decode_flow(text, id_refs=id_refs)
    except FlowError:
        return 1.0, False
    return divergence_of_texts(flow, reference_flow, rule=rule), True


# --- experiment ------------------------------------------------------------------------------------

@dataclass
class DomainScore:
    """θ = mean(1 − Δ), perfects = share with Δ = 0, parseable = share of outputs that decode, n = test tasks."""

    theta: float
    perfects: float
    parseable: float
    n: int


@dataclass
class ExperimentResult:
    """One trained (or fine-tuned) model and its scores on the test tasks.

    Compute: flops = 6 · N · tokens, N = non-embedding parameters, tokens = prompt and target tokens fed in
    training (padding excluded; the 6 = 2 forward + 4 backward multiply-adds per parameter and token, as in
    Kaplan et al. 2020). attention_flops = 6 · n_layer · n_embd · Σ L² over the fed sequences (the QKᵀ and
    AV products, not in 6N·D); flops + attention_flops is the fuller count. petaflops = flops / 1e15.
    `size` is the SIZES name, or the `pretrained` id/directory; `seconds` is training wall time only.
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
                   pretrained: str | None = None) -> ExperimentResult:
    """Train a program-synthesis model on `train_tasks`, generate a program per test task, score it with Δ.

    Tasks have `.domain`, `.spec` (English) and `.flow` (reference Node-RED flow); programs are written as
    compact text (`encode_flow`, with `id_refs`). From scratch (default): a `PhraseTokenizer` (`vocab_size`
    subwords, up to `phrases` phrase tokens seen `phrase_min_count` times) trained on the training specs and
    programs, and a GPT-2 of `size` (see SIZES) initialised with `seed`, with `n_positions` fitting the
    longest training sequence and the longest test prompt plus `max_new_tokens`. With `pretrained` (a
    Hugging Face id, which downloads, or a local directory) its tokenizer and weights are fine-tuned instead,
    and `size`, `vocab_size`, `phrases`, `phrase_min_count` and `dropout` are not used. `steps = 0` scores
    the untrained model. `max_new_tokens` defaults to 1.25 × the longest training target + 8. Greedy
    decoding; output that does not decode to a flow scores Δ = 1. torch uses `torch_threads` threads during
    the call (restored after); results are deterministic for a given seed and thread count.
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
    for name, value in (("progress", progress), ("id_refs", id_refs)):
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
        generations = generate_programs(model, tokenizer, [t.spec for t in test_tasks], max_new_tokens,
                                        eval_batch_size)
        scores = [score_program(text, task.flow, rule, id_refs) for text, task in zip(generations, test_tasks)]
        eval_seconds = time.perf_counter() - start
    finally:
        torch.set_num_threads(threads)

    deltas = [delta for delta, _ in scores]
    by_domain: dict[str, list[int]] = defaultdict(list)
    for k, task in enumerate(test_tasks):
        by_domain[task.domain].append(k)

    def summary(indices) -> DomainScore:
        d = [deltas[k] for k in indices]
        return DomainScore(performance(d), skill_level(d), float(np.mean([scores[k][1] for k in indices])), len(d))

    n_layer, n_embd, n_head, _ = _config_shape(model)
    n_params = non_embedding_parameters(model)
    flops = 6.0 * n_params * run.tokens
    per_domain: dict[str, int] = defaultdict(int)
    for task in train_tasks:
        per_domain[task.domain] += 1
    overall = summary(range(len(test_tasks)))
    return ExperimentResult(
        size=size, pretrained=pretrained, seed=seed, steps=steps, batch_size=batch_size,
        learning_rate=float(learning_rate), n_layer=n_layer, n_embd=n_embd, n_head=n_head, n_positions=n_positions,
        vocab_size=len(tokenizer), params=sum(p.numel() for p in model.parameters()),
        non_embedding_params=n_params, train_samples=len(train_tasks), train_samples_per_domain=dict(per_domain),
        tokens=run.tokens, padded_tokens=run.padded_tokens, flops=flops,
        attention_flops=6.0 * n_layer * n_embd * run.sequence_square_sum, petaflops=flops / 1e15,
        seconds=run.seconds, eval_seconds=eval_seconds, max_new_tokens=max_new_tokens, theta=overall.theta,
        perfects=overall.perfects, parseable=overall.parseable,
        domains={d: summary(indices) for d, indices in by_domain.items()}, task_domains=[t.domain for t in test_tasks],
        task_deltas=deltas, generations=generations, losses=run.losses, model=model, tokenizer=tokenizer)
