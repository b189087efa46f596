"""Generation and scoring: greedy completions of specifications, scored with Δ against reference flows."""
from __future__ import annotations

from typing import Sequence

from intellimetry.gindex.divergence import divergence_of_texts
from intellimetry.gindex.flows import FlowError
from intellimetry.gindex.synthesis.codec import decode_flow
from intellimetry.gindex.synthesis.tokenizer import ProgramTokenizer


def left_padded(prompts: list[list[int]], pad_id: int):
    """A batch of prompts padded on the left (generation continues each at its end) and its attention mask."""
    import torch

    width = max(len(prompt) for prompt in prompts)
    ids = torch.full((len(prompts), width), pad_id, dtype=torch.long)
    mask = torch.zeros((len(prompts), width), dtype=torch.long)
    for row, prompt in enumerate(prompts):
        ids[row, width - len(prompt):] = torch.tensor(prompt)
        mask[row, width - len(prompt):] = 1
    return ids, mask

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
            ids, mask = left_padded([prompts[i] for i in chunk], tokenizer.pad_id)
            output = model.generate(input_ids=ids, attention_mask=mask, generation_config=config)
            for row, i in enumerate(chunk):
                texts[i] = tokenizer.decode(output[row, ids.shape[1]:].tolist())
    return texts


def score_program(text: str, reference_flow, rule: str = "either", id_refs: bool = False) -> tuple[float, bool]:
    """(Δ, parseable) of generated compact text against a reference flow; Δ = 1 when it does not decode."""
    try:
        flow = decode_flow(text, id_refs=id_refs)
    except FlowError:
        return 1.0, False
    return divergence_of_texts(flow, reference_flow, rule=rule), True
