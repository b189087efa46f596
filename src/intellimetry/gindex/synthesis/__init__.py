"""Program synthesis for the g-index: small GPT-2 models that turn an English task specification into a flow.

The paper fine-tuned pretrained GPT-2/GPT-Neo models on (specification, Node-RED flow) pairs; the book trains
small GPT-2 models from scratch on CPU (the paper-scale path, fine-tuning a pretrained model, is kept as
`run_experiment(..., pretrained=...)`). A flow is written as *compact program text* (`encode_flow`): only
what the divergence Δ can see, in a canonical order, with wires as node indices. Texts become tokens with a
`PhraseTokenizer` (byte-level BPE plus whole-piece "phrases" for boilerplate JSON, which makes sequences
~10-20× shorter than plain BPE). Generated text is turned back into a Node-RED flow with `decode_flow` and
scored with Δ against the reference flow. Decoding may be constrained to the flow grammar (`grammar`,
`constrained`): every program that ends within its token budget then decodes.
"""
from intellimetry.gindex.synthesis.codec import DROPPED_KEYS, decode_flow, encode_flow
from intellimetry.gindex.synthesis.constrained import Decoding, TokenTable, decode_constrained
from intellimetry.gindex.synthesis.experiment import (
    DomainScore,
    ExperimentResult,
    rescore,
    run_experiment,
    score_summary,
)
from intellimetry.gindex.synthesis.generation import generate_programs, score_program
from intellimetry.gindex.synthesis.grammar import FlowState, accepts
from intellimetry.gindex.synthesis.model import SIZES, build_model, non_embedding_parameters
from intellimetry.gindex.synthesis.tokenizer import (
    PIECE_PATTERN,
    SPECIAL_TOKENS,
    PhraseTokenizer,
    PretrainedTokenizer,
    ProgramTokenizer,
)
from intellimetry.gindex.synthesis.training import TrainingRun, collate, learning_rate_factor, train_model

__all__ = [
    "DROPPED_KEYS", "PIECE_PATTERN", "SIZES", "SPECIAL_TOKENS", "Decoding", "DomainScore", "ExperimentResult",
    "FlowState", "PhraseTokenizer", "PretrainedTokenizer", "ProgramTokenizer", "TokenTable", "TrainingRun", "accepts",
    "build_model", "collate", "decode_constrained", "decode_flow", "encode_flow", "generate_programs",
    "learning_rate_factor", "non_embedding_parameters", "rescore", "run_experiment", "score_program", "score_summary",
    "train_model",
]
