"""Program synthesis for the g-index: compact flow text, the phrase tokenizer, and small GPT-2 models trained
and scored with the divergence Δ on a tiny synthetic corpus."""
from __future__ import annotations

import copy
import json
import math
import random
from types import SimpleNamespace

import pytest
import torch

from intellimetry.gindex import FlowError, divergence_of_texts, parse_flow
from intellimetry.gindex.synthesis import (
    SIZES,
    PhraseTokenizer,
    build_model,
    collate,
    decode_flow,
    encode_flow,
    generate_programs,
    learning_rate_factor,
    non_embedding_parameters,
    run_experiment,
    score_program,
)

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def node(id_, type_, wires=(), **props):
    """A Node-RED node with one output port and a position."""
    return {"id": id_, "type": type_, "x": 100, "y": 200, "z": "tab", "wires": [list(wires)], **props}


TAB = {"id": "tab", "type": "tab", "label": "Flow 1", "disabled": False, "info": ""}
CHAIN = [node("i", "inject", ["f"], repeat="60", topic="a"), node("f", "function", ["d"], func="return msg;"),
         node("d", "debug", active=True, name="shown"), TAB]
# listed out of order; a switch with two output ports; nested dict/list properties; a config node (no wires)
BRANCHING = [
    node("d", "debug", active=True, complete="payload"),
    {**node("s", "switch", property="payload", rules=[{"t": "eq", "v": "a", "vt": "str"}, {"t": "else"}],
            checkall="true", outputs=2), "wires": [["d"], ["t", "d"]]},
    node("t", "template", ["d"], template="{{payload}}", options={"format": "handlebars", "tags": ["x", 1, None]}),
    TAB,
    node("h", "http in", ["s"], url="/hello", method="get"),
    {"id": "cfg", "type": "chatbot-telegram-node", "botname": "b", "polling": 1000, "usernames": ""},
]


def random_flow(rng: random.Random, size: int) -> list[dict]:
    """A random DAG of inject/function/debug nodes with properties, a tab, and nodes in shuffled order."""
    nodes = []
    for k in range(size):
        type_ = "inject" if k == 0 else rng.choice(["function", "debug", "change"])
        props = {"inject": {"repeat": rng.choice(["", "60"])}, "debug": {"active": rng.choice([True, False])},
                 "function": {"func": rng.choice(["a", "b"]), "outputs": rng.choice([1, 2])},
                 "change": {"rules": [{"t": "set", "p": rng.choice(["a", "b"]), "to": {"v": [1, 2]}}]}}[type_]
        nodes.append(node(f"n{k}x", type_, **props))
    for k in range(1, size):
        for parent in {rng.randrange(k), rng.randrange(k)}:
            nodes[parent]["wires"][0].append(f"n{k}x")
    flow = nodes + [dict(TAB)]
    rng.shuffle(flow)
    return flow


def renamed(flow: list[dict], prefix: str = "zz") -> list[dict]:
    """The same flow with other ids, positions, z, names and key order."""
    ids = {n["id"]: f"{prefix}{k}.{n['id']}" for k, n in enumerate(flow)}
    out = []
    for n in flow:
        m = {key: n[key] for key in reversed(list(n))}
        m["id"] = ids[n["id"]]
        if "wires" in m:
            m["wires"] = [[ids[t] for t in port] for port in n["wires"]]
        if "x" in m:
            m["x"], m["y"], m["z"] = m["x"] + 37, m["y"] * 2, ids["tab"]
        if "name" in m:
            m["name"] = "renamed"
        out.append(m)
    return out


# --- compact program text --------------------------------------------------------------------------

@pytest.mark.parametrize("flow", [CHAIN, BRANCHING], ids=["chain", "branching"])
def test_round_trip_keeps_divergence_zero(flow):
    text = encode_flow(flow)
    decoded = decode_flow(text)
    assert divergence_of_texts(decoded, flow) == 0.0
    assert divergence_of_texts(flow, decoded) == 0.0
    assert encode_flow(decoded) == text  # decode → encode is the identity on compact text
    assert len(decoded) == len(flow)


def test_round_trip_on_random_flows():
    rng = random.Random(7)
    for _ in range(40):
        flow = random_flow(rng, rng.randint(1, 7))
        assert divergence_of_texts(decode_flow(encode_flow(flow)), flow) == 0.0


def test_encode_known_text():
    # topological order (ties by list order), tab last, ids/x/y/z/name dropped, wires as indices, keys sorted
    flow = [CHAIN[2], TAB, CHAIN[1], CHAIN[0]]
    assert encode_flow(flow) == (
        '[{"repeat":"60","topic":"a","type":"inject","wires":[[1]]},'
        '{"func":"return msg;","type":"function","wires":[[2]]},'
        '{"active":true,"type":"debug","wires":[[]]},'
        '{"disabled":false,"info":"","type":"tab"}]')
    kept = json.loads(encode_flow(flow, keep_ignored=True))
    assert kept[2]["name"] == "shown" and kept[3]["label"] == "Flow 1"
    assert not any(key in item for item in kept for key in ("id", "x", "y", "z"))


def test_encode_branching_order_and_ports():
    items = json.loads(encode_flow(BRANCHING))
    # a node comes as soon as its sources are out, the earliest listed first: h, then s (its only source is
    # h), t, d, and the config node (listed last); the tab at the end
    assert [item["type"] for item in items] == ["http in", "switch", "template", "debug",
                                                "chatbot-telegram-node", "tab"]
    assert items[0]["wires"] == [[1]] and items[1]["wires"] == [[3], [2, 3]] and items[2]["wires"] == [[3]]
    assert "wires" not in items[4] and "wires" not in items[5]


def test_encode_ignores_ids_positions_names_and_key_order():
    for flow in (CHAIN, BRANCHING, random_flow(random.Random(3), 6)):
        assert encode_flow(renamed(flow)) == encode_flow(flow)
    assert encode_flow(json.dumps(CHAIN)) == encode_flow(CHAIN)  # JSON text works too


def test_encode_sees_properties_and_wiring():
    changed = copy.deepcopy(CHAIN)
    changed[0]["repeat"] = "61"
    assert encode_flow(changed) != encode_flow(CHAIN)
    rewired = copy.deepcopy(CHAIN)
    rewired[0]["wires"] = [["f", "d"]]
    assert encode_flow(rewired) != encode_flow(CHAIN)


def test_encode_rejects_invalid_flow():
    with pytest.raises(FlowError, match="dangling"):
        encode_flow([node("a", "inject", ["missing"])])


def test_decode_builds_node_red_flow():
    flow = decode_flow(encode_flow(BRANCHING))
    assert [n["id"] for n in flow] == [f"n{k}" for k in range(6)]
    by_type = {n["type"]: n for n in flow}
    tab = by_type["tab"]
    for n in flow:
        if "wires" in n and n["type"] != "tab":
            assert n["z"] == tab["id"] and isinstance(n["x"], int) and isinstance(n["y"], int)
    assert [n["type"] for n in flow] == ["http in", "switch", "template", "debug", "chatbot-telegram-node", "tab"]
    config = by_type["chatbot-telegram-node"]
    assert not {"z", "x", "y", "wires"} & set(config)
    assert not {"z", "x", "y"} & set(tab)
    assert by_type["switch"]["wires"] == [[by_type["debug"]["id"]], [by_type["template"]["id"], by_type["debug"]["id"]]]
    # layout: columns follow the longest path (http in -> switch -> template -> debug)
    assert [by_type[t]["x"] for t in ("http in", "switch", "template", "debug")] == [120, 320, 520, 720]
    parse_flow(flow)


@pytest.mark.parametrize("text, message", [
    ("not json", "malformed JSON"),
    ('{"type": "inject"}', "top level must be a list"),
    ("[1]", "not an object"),
    ('[{"wires": []}]', "type"),
    ('[{"type": ""}]', "type"),
    ('[{"type": "inject", "id": "a"}]', "reserved"),
    ('[{"type": "inject", "x": 1}]', "reserved"),
    ('[{"type": "inject", "wires": [[3]]}]', "out of range"),
    ('[{"type": "inject", "wires": [["n0"]]}]', "not a node index"),
    ('[{"type": "inject", "wires": [[true]]}]', "not a node index"),
    ('[{"type": "inject", "wires": 0}]', "wires must be a list"),
    ('[{"type": "a", "wires": [[1]]}, {"type": "b", "wires": [[0]]}]', "cycle"),
    ("[" * 100_000, "malformed JSON"),
    ("", "malformed JSON"),
])
def test_decode_garbage_raises_flow_error(text, message):
    with pytest.raises(FlowError, match=message):
        decode_flow(text)


def test_decode_adds_a_tab_only_when_asked():
    text = '[{"type":"inject","wires":[[1]]},{"type":"debug","wires":[]}]'
    plain = decode_flow(text)
    assert len(plain) == 2 and all("z" not in n for n in plain)
    with_tab = decode_flow(text, add_tab=True)
    assert with_tab[-1]["type"] == "tab" and all(n["z"] == with_tab[-1]["id"] for n in with_tab[:-1])


def test_id_valued_properties_verbatim_or_as_references():
    flow = [node("r", "chatbot-telegram-receive", ["s"], bot="cfg-7", botProduction="cfg-7"),
            node("s", "chatbot-telegram-send", bot="cfg-7", track=False), TAB,
            {"id": "cfg-7", "type": "chatbot-telegram-node", "botname": "b"}]
    verbatim = encode_flow(flow)
    assert '"bot":"cfg-7"' in verbatim
    assert divergence_of_texts(decode_flow(verbatim), flow) == 0.0  # exact round trip, even for such values
    text = encode_flow(flow, id_refs=True)  # order: receive, send, config node, tab
    assert '"bot":{"$ref":2}' in text and "cfg-7" not in text
    other_ids = json.loads(json.dumps(flow).replace('"cfg-7"', '"9f.c2"').replace('"s"', '"send-1"'))
    assert encode_flow(other_ids, id_refs=True) == text != encode_flow(other_ids)
    decoded = decode_flow(text, id_refs=True)
    assert decoded[0]["bot"] == decoded[0]["botProduction"] == decoded[1]["bot"] == decoded[2]["id"] == "n2"
    # Δ sees "n2" against "cfg-7": the receive node matches none of its 2 keys (s = 0), the send node 1 of 2,
    # config and tab all: S = 2.5 of 4 nodes
    assert divergence_of_texts(decoded, flow) == pytest.approx(1 - (2.5 / 4) ** 2)
    with pytest.raises(FlowError, match="out of range"):
        decode_flow('[{"type":"a","bot":{"$ref":4}}]', id_refs=True)
    with pytest.raises(FlowError, match="alone"):
        decode_flow('[{"type":"a","bot":{"$ref":0,"x":1}}]', id_refs=True)


# --- tokenizer -------------------------------------------------------------------------------------

WORDS = ["apple", "river", "candle", "silver", "garden", "planet", "rocket", "window", "pepper", "forest",
         "marble", "pillow", "tiger", "orange", "violin", "castle", "lemon", "harbor", "falcon", "meadow",
         "copper", "ribbon", "summit", "thunder", "velvet", "walnut", "yellow", "zephyr", "anchor", "bishop"]


def say_task(word: str):
    flow = [node("a", "inject", ["b"], payload=word, payloadType="str", repeat=""),
            node("b", "debug", active=True, complete="payload"), dict(TAB)]
    return SimpleNamespace(domain="say", spec=f"say '{word}' now", flow=flow)


def fetch_task(word: str):
    flow = [node("a", "http request", ["b"], method="GET", url=word, ret="txt"),
            node("b", "function", ["c"], func="return msg;", outputs=1), node("c", "debug", active=False),
            dict(TAB)]
    return SimpleNamespace(domain="fetch", spec=f"fetch the page '{word}'", flow=flow)


TRAIN = [make(w) for w in WORDS[:20] for make in (say_task, fetch_task)]  # 2 domains × 20 tasks
TEST = [make(w) for w in WORDS[20:25] for make in (say_task, fetch_task)]  # 2 × 5, words never trained on


def corpus_texts(tasks):
    return [t.spec for t in tasks] + [encode_flow(t.flow) for t in tasks]


def test_tokenizer_round_trip_on_unseen_text():
    tokenizer = PhraseTokenizer.train(corpus_texts(TRAIN), vocab_size=300, phrases=64)
    for text in ["say 'zephyr' now", encode_flow(TEST[1].flow), "ünïcödé ✓ 🚀 \t\n  x", '{"a":"\\"q\\""}', ""]:
        assert tokenizer.decode(tokenizer.encode(text)) == text
    ids = tokenizer.target("[]")
    assert ids[-1] == tokenizer.eos_id and tokenizer.decode(ids + [5, 6]) == "[]"  # cut at eos
    prompt = tokenizer.prompt("hi")
    assert prompt[0] == tokenizer.bos_id and prompt[-1] == tokenizer.sep_id and tokenizer.decode(prompt) == "hi"


def test_phrases_compress_boilerplate_but_not_copied_words():
    tokenizer = PhraseTokenizer.train(corpus_texts(TRAIN), vocab_size=300, phrases=256)
    plain = PhraseTokenizer.train(corpus_texts(TRAIN), vocab_size=300, phrases=0)
    assert len(plain) == 300 and len(tokenizer) > 300
    program = encode_flow(TEST[0].flow)
    assert len(tokenizer.encode(program)) < len(plain.encode(program)) / 4
    # an unseen word is spelled by the same subwords in the specification and in the program
    word = tokenizer.encode("zephyr")
    for text in ("say 'zephyr' now", encode_flow(say_task("zephyr").flow)):
        ids = tokenizer.encode(text)
        assert any(ids[k:k + len(word)] == word for k in range(len(ids)))
    # the say program is: opening phrase, the word, the closing phrase
    assert len(tokenizer.encode(encode_flow(say_task("zephyr").flow))) == len(word) + 2


def test_byte_tokenizer_and_determinism():
    texts = corpus_texts(TRAIN)
    bytes_only = PhraseTokenizer.train(texts, vocab_size=260, phrases=0)
    text = encode_flow(CHAIN)
    assert len(bytes_only) == 260 and len(bytes_only.encode(text)) == len(text.encode())
    a, b = PhraseTokenizer.train(texts, 400, 64), PhraseTokenizer.train(texts, 400, 64)
    assert a.phrases == b.phrases and a.encode(text) == b.encode(text)


# --- model -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("size", list(SIZES))
def test_model_sizes_and_non_embedding_parameters(size):
    n_layer, n_embd, n_head = SIZES[size]
    model = build_model(size, vocab_size=300, n_positions=50, seed=0)
    assert (model.config.n_layer, model.config.n_embd, model.config.n_head) == (n_layer, n_embd, n_head)
    # per block: attention 4d² + 4d, MLP 8d² + 5d, two layer norms 4d; plus the final layer norm
    assert non_embedding_parameters(model) == n_layer * (12 * n_embd ** 2 + 13 * n_embd) + 2 * n_embd
    total = sum(p.numel() for p in model.parameters())
    assert total == non_embedding_parameters(model) + (300 + 50) * n_embd  # tied output = token embedding


def test_model_initialisation_is_seeded():
    a, b, c = (build_model("tiny", 300, 50, seed) for seed in (1, 1, 2))
    state_a, state_b, state_c = a.state_dict(), b.state_dict(), c.state_dict()
    assert all(torch.equal(state_a[k], state_b[k]) for k in state_a)
    assert not torch.equal(state_a["transformer.h.0.attn.c_attn.weight"], state_c["transformer.h.0.attn.c_attn.weight"])
    with pytest.raises(ValueError, match="tiny, small, medium"):
        build_model("huge", 300, 50, 0)


# --- training pieces -------------------------------------------------------------------------------

def test_collate_pads_right_and_masks_the_prompt():
    examples = [([1, 10, 2], [20, 21, 3]), ([1, 11, 2], [22, 3])]
    ids, mask, labels = collate(examples, [1, 0, 1], pad_id=0)
    assert ids.tolist() == [[1, 11, 2, 22, 3, 0], [1, 10, 2, 20, 21, 3], [1, 11, 2, 22, 3, 0]]
    assert mask.tolist() == [[1, 1, 1, 1, 1, 0], [1] * 6, [1, 1, 1, 1, 1, 0]]
    # the loss sees only the program and its eos (the model shifts labels by one itself)
    assert labels.tolist()[:2] == [[-100, -100, -100, 22, 3, -100], [-100, -100, -100, 20, 21, 3]]


def test_learning_rate_warms_up_then_decays_linearly():
    factors = [learning_rate_factor(step, 20, 0.1) for step in range(20)]
    assert factors[:3] == [0.5, 1.0, 18 / 18] and factors[-1] == 1 / 18
    assert all(a > b for a, b in zip(factors[2:], factors[3:]))
    assert learning_rate_factor(0, 1, 0.1) == 1.0 and learning_rate_factor(0, 5, 0.0) == 1.0


# --- experiments -----------------------------------------------------------------------------------

RUN = dict(size="tiny", steps=320, batch_size=8, learning_rate=1e-2, vocab_size=300, phrases=64, progress=False)


@pytest.fixture(scope="module")
def trained():
    return run_experiment(TRAIN, TEST, seed=0, **RUN)


@pytest.fixture(scope="module")
def untrained():
    return run_experiment(TRAIN, TEST, seed=0, **{**RUN, "steps": 0})


def test_training_beats_the_untrained_model(trained, untrained):
    assert untrained.theta == 0.0 and untrained.parseable == 0.0
    assert all(delta == 1.0 for delta in untrained.task_deltas)  # unparseable output scores Δ = 1
    assert trained.theta > 0.6 and trained.parseable >= 0.7
    assert trained.losses[-1] < trained.losses[0] / 5


def test_per_domain_scores_are_means_of_task_divergences(trained):
    assert set(trained.domains) == {"say", "fetch"}
    for domain, score in trained.domains.items():
        deltas = [d for d, t in zip(trained.task_deltas, trained.task_domains) if t == domain]
        assert score.n == 5 == len(deltas)
        assert score.theta == pytest.approx(1 - sum(deltas) / 5)
        assert score.perfects == pytest.approx(sum(d == 0 for d in deltas) / 5)
    # each task's Δ is the divergence of its decoded generation from its reference flow
    for text, task, delta in zip(trained.generations, TEST, trained.task_deltas):
        assert score_program(text, task.flow)[0] == delta
    assert trained.train_samples == 40 and trained.train_samples_per_domain == {"say": 20, "fetch": 20}


def test_flops_are_six_times_parameters_times_tokens(trained):
    n_layer, n_embd, _ = SIZES["tiny"]
    params = n_layer * (12 * n_embd ** 2 + 13 * n_embd) + 2 * n_embd
    tokenizer = trained.tokenizer
    lengths = [len(tokenizer.prompt(t.spec)) + len(tokenizer.target(encode_flow(t.flow))) for t in TRAIN]
    # 320 steps × 8 = 2560 samples = 64 epochs of the 40 tasks (and 40 windows of 8 batches): each used 64 times
    tokens = 64 * sum(lengths)
    assert trained.non_embedding_params == params and trained.tokens == tokens
    assert trained.flops == 6 * params * tokens and trained.petaflops == pytest.approx(6 * params * tokens / 1e15)
    assert trained.attention_flops == 6 * n_layer * n_embd * 64 * sum(n * n for n in lengths)
    assert trained.padded_tokens >= tokens and trained.seconds > 0
    assert trained.n_positions >= max(lengths)


def test_same_seed_same_result_other_seed_differs(trained):
    again = run_experiment(TRAIN, TEST, seed=0, **RUN)
    assert again.task_deltas == trained.task_deltas and again.generations == trained.generations
    assert again.losses == trained.losses
    other = run_experiment(TRAIN, TEST, seed=1, **{**RUN, "steps": 20})
    assert other.losses != trained.losses[:20]


def test_batched_generation_equals_one_by_one(trained):
    specs = [t.spec for t in TEST]
    batched = generate_programs(trained.model, trained.tokenizer, specs, trained.max_new_tokens, batch_size=10)
    single = generate_programs(trained.model, trained.tokenizer, specs, trained.max_new_tokens, batch_size=1)
    assert batched == single == trained.generations


def test_as_dict_is_json(trained):
    data = json.loads(json.dumps(trained.as_dict()))
    assert "model" not in data and "generations" not in data
    assert data["domains"]["say"]["n"] == 5 and data["flops"] == trained.flops
    assert json.loads(json.dumps(trained.as_dict(generations=True)))["generations"] == trained.generations


def test_score_program_never_raises():
    reference = TEST[0].flow
    for garbage in ["", "[", "[{}]", '[{"type":"x","wires":[[9]]}]', "\x00\xff", "]]]]"]:
        assert score_program(garbage, reference) == (1.0, False)
    assert score_program(encode_flow(reference), reference) == (0.0, True)
    assert score_program("[]", reference) == (1.0, True)  # parses, but an empty program has Δ = 1


BAD_ARGUMENTS = [
    ({"size": "huge"}, "size.*tiny, small, medium"),
    ({"steps": -1}, "steps"), ({"steps": 2.5}, "steps"), ({"batch_size": 0}, "batch_size"),
    ({"learning_rate": 0}, "learning_rate"), ({"learning_rate": math.nan}, "learning_rate"),
    ({"seed": -1}, "seed"), ({"seed": True}, "seed"), ({"torch_threads": 0}, "torch_threads"),
    ({"vocab_size": 100}, "vocab_size"), ({"phrases": -1}, "phrases"), ({"phrase_min_count": 1}, "phrase_min_count"),
    ({"max_new_tokens": 0}, "max_new_tokens"), ({"warmup_fraction": 1.0}, "warmup_fraction"),
    ({"dropout": -0.1}, "dropout"), ({"eval_batch_size": 0}, "eval_batch_size"), ({"rule": "loose"}, "rule"),
    ({"progress": "yes"}, "progress"), ({"id_refs": 1}, "id_refs"), ({"pretrained": ""}, "pretrained"),
    ({"train_tasks": []}, "train_tasks"), ({"test_tasks": [SimpleNamespace(domain="a", spec="b")]}, "test_tasks"),
    ({"train_tasks": [SimpleNamespace(domain="a", spec="s", flow=[node("x", "inject", ["y"])])]}, r"train_tasks\[0\]"),
    ({"test_tasks": [SimpleNamespace(domain="", spec="s", flow=CHAIN)]}, r"test_tasks\[0\]\.domain"),
]


@pytest.mark.parametrize("changes, message", BAD_ARGUMENTS, ids=[str(list(c)[0]) for c, _ in BAD_ARGUMENTS])
def test_bad_arguments_raise_value_error_naming_them(changes, message):
    arguments = {"train_tasks": TRAIN, "test_tasks": TEST, **RUN, **changes}
    with pytest.raises(ValueError, match=message):
        run_experiment(**arguments)


# --- paper-scale path: fine-tune a pretrained model (here a tiny one saved locally, no network) -------

@pytest.fixture(scope="module")
def tiny_pretrained(tmp_path_factory):
    """A GPT-2-like checkpoint: 2-layer model and a byte-level BPE with only <|endoftext|> (as eos)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    folder = tmp_path_factory.mktemp("tiny-gpt2")
    backend = Tokenizer(models.BPE())
    backend.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    backend.decoder = decoders.ByteLevel()
    backend.train_from_iterator(corpus_texts(TRAIN), trainers.BpeTrainer(
        vocab_size=320, special_tokens=["<|endoftext|>"], initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False))
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=backend, eos_token="<|endoftext|>")
    tokenizer.save_pretrained(folder)
    torch.manual_seed(5)
    model = GPT2LMHeadModel(GPT2Config(vocab_size=len(tokenizer), n_positions=256, n_layer=2, n_embd=32, n_head=2))
    model.save_pretrained(folder)
    return folder, len(tokenizer), model.state_dict()


def test_pretrained_model_is_loaded_and_fine_tuned(tiny_pretrained, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    folder, vocab, weights = tiny_pretrained
    arguments = dict(steps=0, batch_size=4, learning_rate=1e-3, progress=False, pretrained=str(folder),
                     max_new_tokens=20)
    loaded = run_experiment(TRAIN, TEST[:2], **arguments)
    key = "transformer.h.0.attn.c_attn.weight"
    assert torch.equal(loaded.model.state_dict()[key], weights[key])  # the saved weights, not a fresh init
    assert loaded.size == str(folder) and loaded.pretrained == str(folder)
    assert loaded.vocab_size == vocab + 2  # sep and pad added; bos is taken to be eos = <|endoftext|>
    assert loaded.tokenizer.bos_id == loaded.tokenizer.eos_id != loaded.tokenizer.pad_id
    assert (loaded.n_layer, loaded.n_embd, loaded.n_positions) == (2, 32, 256)
    tuned = run_experiment(TRAIN, TEST[:2], **{**arguments, "steps": 5})
    assert not torch.equal(tuned.model.state_dict()[key], weights[key])
    assert len(tuned.losses) == 5 and tuned.tokens > 0 and all(0 <= d <= 1 for d in tuned.task_deltas)
    with pytest.raises(ValueError, match="pretrained"):
        run_experiment(TRAIN, TEST[:2], **{**arguments, "max_new_tokens": 300})  # prompt + 300 > 256 positions
