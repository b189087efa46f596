"""Tokenizers of specifications and programs: the phrase tokenizer (BPE plus phrases) and pretrained ones."""
from __future__ import annotations

from collections import defaultdict
from typing import Sequence

SPECIAL_TOKENS = {"bos": "<|bos|>", "sep": "<|sep|>", "eos": "<|eos|>", "pad": "<|pad|>"}


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
