"""The flow grammar and decoding constrained to it (issue 34): every program of the generators is accepted,
invalid text is refused at the first character that makes it so, every prefix the grammar accepts can be
completed to a decodable program, every token the mask allows keeps it so, and a model trained on one
program writes it back."""
from __future__ import annotations

import json
import random
from types import SimpleNamespace

import numpy as np
import pytest

from intellimetry.gindex.domains import DOMAINS, generate_corpus
from intellimetry.gindex.flows import FlowError
from intellimetry.gindex.synthesis import (
    FlowState,
    PhraseTokenizer,
    TokenTable,
    accepts,
    build_model,
    decode_constrained,
    decode_flow,
    encode_flow,
    generate_programs,
    run_experiment,
)
from intellimetry.gindex.synthesis.training import train_model

pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.fixture(scope="module")
def corpus():
    return [task for tasks in generate_corpus(DOMAINS, 3, 11).values() for task in tasks]


@pytest.fixture(scope="module")
def tokenizer(corpus):
    return PhraseTokenizer.train([t.spec for t in corpus] + [encode_flow(t.flow) for t in corpus], 300, 64)


@pytest.fixture(scope="module")
def table(tokenizer):
    return TokenTable(tokenizer)


def decodes(text: str) -> bool:
    try:
        decode_flow(text)
    except FlowError:
        return False
    return True


# --- the grammar ----------------------------------------------------------------------------------

def test_every_generated_program_is_accepted(corpus):
    for task in corpus:
        text = encode_flow(task.flow)
        assert accepts(text), (task.domain, text[:80])
        assert decodes(text)


VALID = [
    '[{"type":"a"}]',
    '[{"type":"a","wires":[[1,2],[]]},{"type":"b","wires":[[2]]},{"type":"tab"}]',
    '[{"type":"a","v":-0.5e+3,"w":[1,{"q":null,"r":[true,false]}],"s":"x\\"\\n\\u00e9 y"}]',
    '[{"wires":[],"type":"a","n":0,"m":10.25,"e":1E9}]',
    '[{"type":"a","wires":[[10]]},{"type":"b"},{"type":"b"},{"type":"b"},{"type":"b"},{"type":"b"},'
    '{"type":"b"},{"type":"b"},{"type":"b"},{"type":"b"},{"type":"b"}]',
]
INVALID = [
    ("", "empty text"), ("[]", "no node"), ("[{}]", "no type"), ('[{"type":""}]', "empty type"),
    ('[{"type":1}]', "type not a string"), ('[{"type":"a","id":"n0"}]', "reserved key"),
    ('[{"type":"a","x":1}]', "reserved key"), ('[{"type":"a","type":"b"}]', "repeated key"),
    ('[{"type":"a","wires":[[0]]}]', "wire to itself"), ('[{"type":"a"},{"type":"b","wires":[[0]]}]', "wire back"),
    ('[{"type":"a","wires":[[1]]}]', "wire to a missing node"), ('[{"type":"a","wires":[[01]]},{"type":"b"}]', "0"),
    ('[{"type":"a","wires":[1]},{"type":"b"}]', "port not a list"), ('[{"type":"a","wires":{}}]', "wires object"),
    ('[ {"type":"a"}]', "whitespace"), ('[{"type":"a","v":01}]', "leading zero"), ('[{"type":"a","v":1.}]', "1."),
    ('[{"type":"a","v":-}]', "bare minus"), ('[{"type":"a","v":1e}]', "bare exponent"),
    ('[{"type":"a","v":tru}]', "literal"), ('[{"type":"a","v":"\\q"}]', "bad escape"),
    ('[{"type":"a","v":"\\u12g4"}]', "bad hex"), ('[{"type":"a","v":"a\nb"}]', "raw newline in a string"),
    ('[{"type":"a"}]]', "text after the flow"), ('[{"type":"a"},]', "trailing comma"),
    ('[{"ty\\u0070e":"a"}]', "escape in a node key"), ('{"type":"a"}', "not a list"),
]


@pytest.mark.parametrize("text", VALID)
def test_valid_programs_are_accepted_and_decode(text):
    assert accepts(text) and decodes(text)


@pytest.mark.parametrize("text, why", INVALID, ids=[why for _, why in INVALID])
def test_invalid_programs_are_refused(text, why):
    assert not accepts(text)


def test_a_wire_to_a_later_node_holds_the_flow_open_until_that_node_exists():
    state = FlowState().feed('[{"type":"a","wires":[[2]]}')
    assert state is not None and state.need == 3 and state.nodes == 1
    assert state.step("]") is None  # node 2 is missing
    state = state.feed(',{"type":"b"},{"type":"c"}')
    assert state.feed("]").done


def test_an_index_that_can_never_name_a_later_node_is_refused_at_its_digit():
    at_node_0 = FlowState().feed('[{"type":"a","wires":[[')
    assert at_node_0.step("0") is None and at_node_0.step("1") is not None
    at_node_120 = FlowState(stack=at_node_0.stack, nodes=120)
    assert at_node_120.feed("12") is not None  # 120 < 121..129
    assert at_node_120.feed("11") is None  # 110..119 all come before node 120
    assert at_node_120.feed("1000") is None  # four digits


def complete(state: FlowState) -> str:
    """A completion of an accepted prefix, written from the grammar's rules (not from the automaton's code):
    close what is open, add a type where a node lacks one and nodes until every wire has its target."""
    text = ""
    while not state.done:
        frame = state.stack[-1]
        kind, phase = frame[0], frame[1]
        if kind == "str":
            chars = {"first-nonempty": 'a"', "escape": "n", "hex": "0"}.get(phase, '"')
        elif kind == "num" and phase in ("sign", "dot", "e", "esign"):
            chars = "0"
        elif kind == "num":  # a whole number: the character that closes its parent ends it
            parent = state.stack[-2][0]
            chars = {"arr": "]", "obj": "}"}.get(parent, "}" if "type" in state.keys else ",")
        elif kind == "lit":
            chars = phase
        elif kind in ("arr", "obj", "wires"):
            chars = {("arr", "item"): "0", ("obj", "item"): '"k":0', ("obj", "colon"): ":", ("obj", "value"): "0",
                     ("wires", "item"): "[]"}.get((kind, phase), "]" if kind != "obj" else "}")
        elif kind == "port":
            chars = str(state.nodes + 1) if phase == "item" else "]"
        elif kind == "index":
            chars = "9" if int(phase) <= state.nodes else "]"
        elif kind == "node":
            chars = _node_completion(state, phase, frame)
        else:  # top
            chars = {"start": "[", "first": '{"type":"a"}', "item": '{"type":"a"}'}.get(phase)
            chars = chars or ("]" if state.need <= state.nodes else ',{"type":"a"}')
        for char in chars:
            state = state.step(char)
            assert state is not None, f"the grammar refused {char!r} of the completion {text + chars!r}"
        text += chars
    return text


def _node_completion(state, phase, frame) -> str:
    fresh = next(f"k{k}" for k in range(1000) if f"k{k}" not in state.keys)
    missing_type = "type" not in state.keys
    if phase in ("first", "item"):
        return '"type":"a"' if missing_type else f'"{fresh}":0'
    if phase == "key":
        if frame[2] in ("id", "x", "y", "z") or frame[2] in state.keys:
            return "_"
        return '"'
    if phase == "colon":
        return ":"
    if phase == "value":
        return {"type": '"a"', "wires": "[]"}.get(frame[2], "0")
    return ',"type":"a"' if missing_type else "}"


def test_every_prefix_of_a_program_can_be_completed_to_one_that_decodes(corpus):
    texts = [encode_flow(t.flow) for t in corpus[::4]] + VALID
    for text in texts:
        state = FlowState()
        for k, char in enumerate(text):
            state = state.step(char)
            if k % 7 == 0:  # every 7th prefix, to keep the test short
                completed = text[:k + 1] + complete(state)
                assert decodes(completed) and json.loads(completed), completed


def _random_walk(rng: random.Random, steps: int) -> tuple[str, FlowState]:
    """A random accepted prefix: printable ASCII characters drawn among those the grammar allows."""
    alphabet = [chr(c) for c in range(32, 127)]
    state, text = FlowState(), ""
    for _ in range(steps):
        options = [c for c in alphabet if state.step(c) is not None]
        if not options:
            break
        char = rng.choice(options)
        state, text = state.step(char), text + char
    return text, state


def test_random_prefixes_complete_to_programs_that_decode():
    rng = random.Random(3)
    for _ in range(100):
        text, state = _random_walk(rng, rng.randrange(1, 60))
        assert decodes(text + complete(state)), text


# --- the token mask -------------------------------------------------------------------------------

def test_the_mask_never_allows_a_token_that_leaves_no_valid_program(table):
    rng = random.Random(5)
    checked = 0
    for _ in range(25):
        text, state = _random_walk(rng, rng.randrange(0, 40))
        allowed = np.flatnonzero(table.allowed(state))
        assert allowed.size > 0  # a valid prefix always continues
        for token in rng.sample(list(allowed), min(40, allowed.size)):
            after = table.advance(state, int(token))
            if token == table.eos_id:
                assert state.done and decodes(text)
                continue
            extended = text + table.texts[token]
            assert after == state.feed(table.texts[token]) and decodes(extended + complete(after)), extended
            checked += 1
    assert checked > 300


def test_the_mask_refuses_exactly_the_tokens_whose_text_the_grammar_refuses(table):
    state = FlowState().feed('[{"type":"a","wires":[[')
    allowed = table.allowed(state)
    for token, text in enumerate(table.texts):
        expected = bool(text) and state.feed(text) is not None
        assert allowed[token] == expected, (token, text)
    assert not allowed[table.eos_id]
    assert np.flatnonzero(table.allowed(FlowState().feed('[{"type":"a"}]'))).tolist() == [table.eos_id]


def test_the_mask_allows_every_token_of_every_training_program(corpus, tokenizer, table):
    for task in corpus:
        state = FlowState()
        for token in tokenizer.target(encode_flow(task.flow)):
            state = table.advance(state, token)  # None where the mask would refuse the token
            assert state is not None
        assert state.done


def test_choose_keeps_the_models_best_token_and_overrides_only_a_refused_one(table, tokenizer):
    bracket, letter = tokenizer.encode("[")[0], tokenizer.encode("x")[0]
    scores = np.zeros(len(table))
    scores[bracket], scores[letter] = 1.0, 2.0  # the model prefers "x", which no program starts with
    token, state, overridden = table.choose(FlowState(), scores)
    assert (token, overridden) == (bracket, True) and state == FlowState().step("[")
    scores[bracket] = 3.0
    assert table.choose(FlowState(), scores)[::2] == (bracket, False)
    done = FlowState().feed('[{"type":"a"}]')
    assert table.choose(done, scores) == (table.eos_id, done, True)


# --- decoding -------------------------------------------------------------------------------------

def test_an_untrained_model_under_the_grammar_writes_only_programs_that_decode_or_unfinished_text(corpus, tokenizer):
    model = build_model("tiny", len(tokenizer), 400, seed=2, tokenizer=tokenizer)
    decoding = decode_constrained(model, tokenizer, [t.spec for t in corpus[:3]], 40)
    for text, finished, steps in zip(decoding.texts, decoding.finished, decoding.steps):
        assert decodes(text) == finished and steps <= 40
        state = FlowState().feed(text)
        assert state is not None  # even an unfinished text is a valid prefix


def test_a_model_trained_on_one_program_writes_it_back_with_and_without_the_grammar(corpus):
    task = next(t for t in corpus if t.domain == "http")
    program = encode_flow(task.flow)
    tokenizer = PhraseTokenizer.train([task.spec, program], 270, 16, 2)
    model = build_model("tiny", len(tokenizer), 400, seed=0, tokenizer=tokenizer)
    train_model(model, [(tokenizer.prompt(task.spec), tokenizer.target(program))], steps=60, batch_size=1,
                learning_rate=1e-2, seed=0, pad_id=tokenizer.pad_id, progress=False)
    budget = len(tokenizer.target(program)) + 5
    decoding = decode_constrained(model, tokenizer, [task.spec], budget)
    assert decoding.texts == [program] and decoding.overrides == [0] and decoding.finished == [True]
    assert generate_programs(model, tokenizer, [task.spec], budget) == [program]  # no override: free decoding agrees


def test_run_experiment_counts_parses_and_overrides_per_domain(corpus):
    train = [t for t in corpus if t.domain in ("http", "twitter")]
    test = [SimpleNamespace(domain=t.domain, spec=t.spec, flow=t.flow) for t in train[:2]]
    free = run_experiment(train, test, steps=0, vocab_size=300, phrases=16, max_new_tokens=20, progress=False)
    ruled = run_experiment(train, test, steps=0, vocab_size=300, phrases=16, max_new_tokens=20, progress=False,
                           constrained=True)
    assert not free.constrained and free.task_overrides == [0, 0] and free.task_steps == []
    assert ruled.constrained and len(ruled.task_steps) == 2 and all(s <= 20 for s in ruled.task_steps)
    for result in (free, ruled):
        parses = [decodes(text) for text in result.generations]
        assert result.parseable == np.mean(parses)
        unaided = [p and o == 0 for p, o in zip(parses, result.task_overrides)]
        assert result.unaided == np.mean(unaided)
        assert {d: s.unaided for d, s in result.domains.items()} == {
            t.domain: float(u) for t, u in zip(test, unaided)}
