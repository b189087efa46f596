"""Greedy decoding constrained to the flow grammar: at every step the most likely token that keeps the text
a valid program prefix (`grammar.FlowState`), and the end of text only once the flow is closed.

The decoder also counts how often the grammar overrode the model (its own most likely token was refused):
a program written with no override is exactly what unconstrained greedy decoding gives, so the share of
such programs measures what the model learnt of the format by itself.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from intellimetry.gindex.synthesis.generation import left_padded
from intellimetry.gindex.synthesis.grammar import FlowState
from intellimetry.gindex.synthesis.tokenizer import ProgramTokenizer

_STATE_CACHE = 50_000  # first-character masks kept per vocabulary


class TokenTable:
    """Each token's text, and its first character's code (-1 for special tokens, which write no text)."""

    def __init__(self, tokenizer: ProgramTokenizer):
        specials = {tokenizer.bos_id, tokenizer.sep_id, tokenizer.eos_id, tokenizer.pad_id}
        self.eos_id = tokenizer.eos_id
        self.texts = ["" if i in specials else tokenizer.decode([i]) for i in range(len(tokenizer))]
        self.first = np.array([ord(t[0]) if t else -1 for t in self.texts])
        self.first_chars = sorted({t[0] for t in self.texts if t})
        self._first_masks: dict[FlowState, np.ndarray] = {}

    def __len__(self) -> int:
        return len(self.texts)

    def advance(self, state: FlowState, token: int) -> FlowState | None:
        """The state after `token`, or None where the grammar refuses it (eos only once the flow is done)."""
        if token == self.eos_id:
            return state if state.done else None
        text = self.texts[token]
        return state.feed(text) if text else None

    def first_mask(self, state: FlowState) -> np.ndarray:
        """Tokens whose first character the grammar accepts next (a necessary condition, cheap to reuse)."""
        mask = self._first_masks.get(state)
        if mask is None:
            codes = [ord(c) for c in self.first_chars if state.step(c) is not None]
            mask = np.isin(self.first, codes)
            if len(self._first_masks) < _STATE_CACHE:
                self._first_masks[state] = mask
        return mask

    def allowed(self, state: FlowState) -> np.ndarray:
        """Every token the grammar allows after `state` (a full mask; decoding needs only the best one)."""
        if state.done:
            return np.arange(len(self)) == self.eos_id
        candidates = np.flatnonzero(self.first_mask(state))
        mask = np.zeros(len(self), dtype=bool)
        mask[[t for t in candidates if state.feed(self.texts[t]) is not None]] = True
        return mask

    def choose(self, state: FlowState, scores: np.ndarray) -> tuple[int, FlowState, bool]:
        """(the best allowed token, the state after it, whether the grammar overrode the model's best)."""
        best = int(np.argmax(scores))
        after = self.advance(state, best)
        if after is not None:
            return best, after, False
        if state.done:
            return self.eos_id, state, True
        candidates = np.flatnonzero(self.first_mask(state))
        for token in candidates[np.argsort(-scores[candidates], kind="stable")]:
            after = state.feed(self.texts[token])
            if after is not None:
                return int(token), after, True
        raise RuntimeError("no token continues a valid program prefix")  # every ASCII byte is a token


@dataclass
class Decoding:
    """Generated texts with, per text, decoding steps, steps where the grammar overrode the model, and
    whether it ended (eos) within the token budget."""

    texts: list[str]
    steps: list[int]
    overrides: list[int]
    finished: list[bool]


class _GrammarProcessor:
    """A transformers logits processor: per row, only the token `TokenTable.choose` picks survives."""

    def __init__(self, table: TokenTable, rows: int):
        self.table = table
        self.states = [FlowState() for _ in range(rows)]
        self.steps, self.overrides, self.finished = [0] * rows, [0] * rows, [False] * rows

    def __call__(self, input_ids, scores):
        import torch

        values = scores.detach().float().numpy()
        out = torch.full_like(scores, -torch.inf)
        for row in range(len(self.states)):
            if self.finished[row]:
                out[row, self.table.eos_id] = 0.0  # ignored: transformers pads finished rows
                continue
            token, state, overridden = self.table.choose(self.states[row], values[row])
            self.states[row] = state
            self.steps[row] += 1
            self.overrides[row] += overridden
            self.finished[row] = token == self.table.eos_id
            out[row, token] = 0.0
        return out


def decode_constrained(model, tokenizer: ProgramTokenizer, specs, max_new_tokens: int, batch_size: int = 32,
                       table: TokenTable | None = None) -> Decoding:
    """Greedy completions of each specification under the flow grammar, batched with left padding."""
    import torch
    from transformers import GenerationConfig, LogitsProcessorList

    table = table or TokenTable(tokenizer)
    prompts = [tokenizer.prompt(spec) for spec in specs]
    config = GenerationConfig(do_sample=False, num_beams=1, max_new_tokens=max_new_tokens,
                              eos_token_id=tokenizer.eos_id, pad_token_id=tokenizer.pad_id,
                              bos_token_id=tokenizer.bos_id)
    order = sorted(range(len(prompts)), key=lambda i: len(prompts[i]))  # similar lengths share a batch
    result = Decoding([""] * len(prompts), [0] * len(prompts), [0] * len(prompts), [False] * len(prompts))
    model.eval()
    with torch.no_grad():
        for start in range(0, len(order), batch_size):
            chunk = order[start:start + batch_size]
            ids, mask = left_padded([prompts[i] for i in chunk], tokenizer.pad_id)
            processor = _GrammarProcessor(table, len(chunk))
            output = model.generate(input_ids=ids, attention_mask=mask, generation_config=config,
                                    logits_processor=LogitsProcessorList([processor]))
            for row, i in enumerate(chunk):
                result.texts[i] = tokenizer.decode(output[row, ids.shape[1]:].tolist())
                result.steps[i], result.overrides[i] = processor.steps[row], processor.overrides[row]
                result.finished[i] = processor.finished[row]
    return result
