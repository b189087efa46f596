"""Golden outputs: sha256 digests of what the public API of three modules produces at fixed seeds.

The g-index task generators (`intellimetry.gindex.domains`), program synthesis (`intellimetry.gindex.synthesis`:
compact flow text, the phrase tokenizer, a tiny GPT-2's initial weights, a couple of training steps, one short
experiment) and the AIQ domains (`intellimetry.aiq.domains`: the generated image domains, the variants, the
file loaders and CartPole). The expected values were computed with the code as it stood before those modules
were split into packages; a refactoring that moves code without changing behaviour keeps every digest.

Digests hash exact bytes (flows as `json.dumps(..., sort_keys=True)`, arrays as dtype, shape and raw bytes).
Float outputs computed through numpy's or torch's vectorised maths (the shapes' and jittered digits' pixels,
the initial weights) are hashed exactly too: they are reproducible on one machine and numpy/torch build, but a
CPU with other SIMD kernels may differ in the last bit. Training losses, which go through BLAS, are compared
with a tolerance instead.
"""
from __future__ import annotations

import gzip
import hashlib
import json
import pickle
import random

import numpy as np
import pytest

from intellimetry.aiq.domains import (
    Domain,
    cartpole_classification,
    cartpole_episode_return,
    class_subset,
    common_shape,
    duplicated,
    heuristic_policy,
    jitter_images,
    load_cifar_directory,
    load_domain,
    load_idx_directory,
    make_cartpole,
    make_shapes,
    mixture,
    with_noise,
)
from intellimetry.gindex.domains import (
    DOMAINS,
    describe_cron,
    generate_corpus,
    generate_task,
    generate_tasks,
    random_cron,
    task_from_json,
    task_to_json,
)
from intellimetry.gindex.synthesis import (
    PhraseTokenizer,
    build_model,
    collate,
    decode_flow,
    encode_flow,
    learning_rate_factor,
    non_embedding_parameters,
    run_experiment,
    score_program,
    train_model,
)

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def sha(value) -> str:
    """sha256 of a JSON-ready value (sorted keys, no ASCII escaping)."""
    return hashlib.sha256(json.dumps(value, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def array_sha(*arrays) -> str:
    """sha256 of the dtype, shape and bytes of each array."""
    h = hashlib.sha256()
    for array in arrays:
        array = np.asarray(array)
        h.update(f"{array.dtype.str}{array.shape}\0".encode())
        h.update(np.ascontiguousarray(array).tobytes())
    return h.hexdigest()


def domain_sha(domain: Domain, replace: tuple[str, str] = ("", "")) -> str:
    """sha256 of a Domain: its fingerprint (name, n_classes, arrays), source text and repr."""
    source = domain.source.replace(*replace) if replace[0] else domain.source
    return sha([domain.fingerprint(), source, repr(domain), domain.input_shape, domain.is_image])


def check(actual: dict, expected: dict) -> None:
    """Every digest as expected; the message names the ones that differ."""
    wrong = sorted(k for k in expected.keys() | actual.keys() if actual.get(k) != expected.get(k))
    assert not wrong, "changed outputs: " + ", ".join(f"{k} (now {actual.get(k)})" for k in wrong)


# ------------------------------------------------------------------ g-index task domains

GINDEX_DOMAINS = {
    "corpus": "8830ad6e3dc83a95b39f9e40ddbabfb6af1b0fe390c1c9990a8eadfc51eca859",
    "stream": "6c9241233cc648c923a81b380c0ed3e9641fa4c5df2872d549e3e3de72feb745",
    "shared_rng": "3609db326cae2e85ba16f103cbd8afa697e99fe1c233e770ddcbfba41936a852",
    "cron": "dee937c683053f7d6b31f1a449992b280372a753a04da43940ed35007025828a",
}


def gindex_domain_outputs() -> dict[str, str]:
    corpus = generate_corpus(DOMAINS, 3, seed=0)
    records = {d: [task_to_json(t) for t in tasks] for d, tasks in corpus.items()}
    assert all(task_from_json(r) == t for d in DOMAINS for r, t in zip(records[d], corpus[d]))
    stream = [task_to_json(t) for t in generate_tasks("cron-reminder", 12, seed=123)]
    rng = random.Random(5)  # one rng shared by all domains, in order
    shared = [task_to_json(generate_task(d, rng)) for d in DOMAINS for _ in range(2)]
    rng = random.Random(11)
    crons = [random_cron(rng) for _ in range(60)]
    return {"corpus": sha(records), "stream": sha(stream), "shared_rng": sha(shared),
            "cron": sha([[c, describe_cron(c)] for c in crons])}


def test_gindex_domains_golden():
    check(gindex_domain_outputs(), GINDEX_DOMAINS)


# ------------------------------------------------------------------ program synthesis

SYNTHESIS = {
    "encode": "574343d55538f0c1fdb4333c276f86920ed05aa872b98df0eb79d90ef82a954c",
    "encode_id_refs": "9538b3891c524b71faa2595f4eadde646432c64b46bf9d0b7039e782ccc2e9f8",
    "encode_keep_ignored": "1d94c1dcd5f4144785588a44a5ee6e6a64073d6b60a7fc5a716e02822b84f78b",
    "decode": "d21eb5663538fddb32977e031fd643a68b0ddbb84b8be9f80eb2985de77e110d",
    "decode_id_refs": "b58c5852c26ef7b42a6b268c827a96db8692a1687af6024d86ef4923111583d0",
    "scores": "d7083f1eaf72eec727693569956e63ae73bb9511b8b823760fbc5989c9eab1c0",
    "tokenizer_phrases": "98c86d983d5a2c1ab09bae6363e436ae761c320b7e17f8ba483c45b419bd04ff",
    "tokenizer_ids": "b5b43561a7aba990fe9a9a94b39659d4f5aedf9b0f9f2196e7334aef62925862",
    "tokenizer_bytes_only": "2263964a84a2b3122d3fb5da31424464b466f867cf5692d755a051166b59b35b",
    "collate": "62ec344bc5d7a8510a607819d3b84b2190dfa0ae1cdd25c9d7c2172f21d71738",
    "learning_rate": "e62cc4b71e5e31c4f52fcdce409286d88f4bb9c8558033b427bec95e51ef8a5d",
    "initial_weights": "ef8a443f0ac93a92602d721e61212714dc417eea465e2355da95bef25a02843b",
    "model_shape": "abe7d704d68a939443a8a773758bcbb244a65339a6d4e963c0c10dfb6c06db44",
    "training_counts": "e41d83a9875450da1ccec538cb6a361a6c0d4258cd04736d9bcbeb4adbbd91f0",
    "experiment_counts": "6c873527cc9993a3f3473834ab57080e4baf9a21384c8ecddbf1b36bb5aaad7f",
}
TRAINING_LOSSES = [5.833996295928955, 5.711495876312256, 5.651560306549072]
EXPERIMENT_LOSSES = [5.705607891082764, 5.594568252563477]


def synthesis_outputs_of() -> tuple[dict[str, str], dict[str, list[float]]]:
    tasks = [task for tasks in generate_corpus(DOMAINS, 2, seed=3).values() for task in tasks]
    out, floats = {}, {}
    texts = [encode_flow(t.flow) for t in tasks]
    refs = [encode_flow(t.flow, id_refs=True) for t in tasks]
    out["encode"] = sha(texts)
    out["encode_id_refs"] = sha(refs)
    out["encode_keep_ignored"] = sha([encode_flow(t.flow, keep_ignored=True) for t in tasks])
    out["decode"] = sha([decode_flow(text) for text in texts])
    out["decode_id_refs"] = sha([decode_flow(text, add_tab=True, id_refs=True) for text in refs])
    broken = [texts[0][:-5], texts[1].replace('"debug"', '"debugger"'), texts[2], "[]", "not json"]
    out["scores"] = sha([list(score_program(text, tasks[k % 3].flow)) for k, text in enumerate(broken)]
                        + [list(score_program(refs[4], tasks[4].flow, rule="strict", id_refs=True))])

    corpus_texts = [t.spec for t in tasks] + texts
    tokenizer = PhraseTokenizer.train(corpus_texts, vocab_size=300, phrases=64)
    ids = [tokenizer.encode(text) for text in corpus_texts + ["ünïcödé ✓ 🚀 \t\n  x", ""]]
    out["tokenizer_phrases"] = sha([len(tokenizer), [list(p) for p in tokenizer.phrases],
                                    [tokenizer.bos_id, tokenizer.sep_id, tokenizer.eos_id, tokenizer.pad_id]])
    out["tokenizer_ids"] = sha([ids, [tokenizer.decode(i) for i in ids], tokenizer.prompt(tasks[0].spec),
                                tokenizer.target(texts[0])])
    bytes_only = PhraseTokenizer.train(corpus_texts, vocab_size=260, phrases=0)
    out["tokenizer_bytes_only"] = sha([len(bytes_only), bytes_only.encode(texts[5])])

    examples = [(tokenizer.prompt(t.spec), tokenizer.target(p)) for t, p in zip(tasks, texts)]
    batch = collate(examples, [3, 0, 7], tokenizer.pad_id)
    out["collate"] = array_sha(*(tensor.numpy() for tensor in batch))
    out["learning_rate"] = sha([learning_rate_factor(step, 30, 0.2) for step in range(30)])

    longest = max(len(p) + len(t) for p, t in examples)
    model = build_model("tiny", len(tokenizer), longest, seed=4, tokenizer=tokenizer)
    state = model.state_dict()
    out["initial_weights"] = array_sha(*(state[k].numpy() for k in sorted(state)))
    out["model_shape"] = sha([sorted((k, list(v.shape)) for k, v in state.items()),
                              non_embedding_parameters(model), model.config.to_dict()["n_positions"]])
    run = train_model(model, examples, steps=3, batch_size=4, learning_rate=3e-3, seed=5,
                      pad_id=tokenizer.pad_id, progress=False)
    out["training_counts"] = sha([run.tokens, run.padded_tokens, run.sequence_square_sum, len(run.losses)])
    floats["training_losses"] = run.losses

    result = run_experiment(tasks[:24], tasks[24:], size="tiny", steps=2, batch_size=4, seed=6, vocab_size=280,
                            phrases=32, max_new_tokens=8, progress=False)
    numbers = result.as_dict()
    counts = {k: numbers[k] for k in (
        "size", "pretrained", "seed", "steps", "batch_size", "learning_rate", "n_layer", "n_embd", "n_head",
        "n_positions", "vocab_size", "params", "non_embedding_params", "train_samples", "train_samples_per_domain",
        "tokens", "padded_tokens", "flops", "attention_flops", "petaflops", "max_new_tokens", "task_domains")}
    out["experiment_counts"] = sha(counts)
    floats["experiment_losses"] = result.losses
    return out, floats


@pytest.fixture(scope="module")
def synthesis_outputs():
    return synthesis_outputs_of()


def test_synthesis_golden(synthesis_outputs):
    digests, _ = synthesis_outputs
    check(digests, SYNTHESIS)


def test_synthesis_training_losses(synthesis_outputs):
    _, floats = synthesis_outputs
    assert floats["training_losses"] == pytest.approx(TRAINING_LOSSES, rel=1e-5)
    assert floats["experiment_losses"] == pytest.approx(EXPERIMENT_LOSSES, rel=1e-5)


# ------------------------------------------------------------------ AIQ domains

AIQ_DOMAINS = {
    "digits": "2141b188a520b8f34314136bd18de71f60ee35e6de64cc93ace2986d0b5d3a5e",
    "digits-hard": "4a34f89998053ae262597f90f325a6cff46a5d703a8a79331f4da6e41fb68c94",
    "shapes10": "e52332f4e8993dd1ba0af083926d1f74b680a9a924efc48069b3d73565fbaaa3",
    "shapes100": "c48533cf18129e4fa1d58afb600f1545b2909a5d1b54566546f24bfd1ffa8689",
    "cartpole": "e393c832c03ed5a7bb66e994f440e5be7c4a0549ee634898185410bbe6709e13",
    "cartpole_changed": "fbcd417efb1a6f2a250da08d03c7f175feb2687c62e4ee590c785df2af942300",
    "make_shapes": "d9393cc54a6adf8b467338006961efd11aef10ac77c57b74792bcf677af3c74f",
    "jitter": "097b15e9937eb67a30467a5a2c49e70f826a7c1225f73852d1529e85893f4942",
    "cartpole_returns": "967ad22fe61604a4e6fd82005cfdd74e92b1b193590c1ba54d365cb7d701e536",
    "subset": "f3e4b561d50e53ef55053445aebdbf2b8c4125f5dd10b4e84ccc7bd8ef03fc8a",
    "noise": "1517e9a53fea30b19addf1c54ed9cc2b25bc650e654a3a1906aa24b9a3226d93",
    "addnoise": "27c368fbcb8f6175707d4fba38a7a2a522bf312a942a27842696c874bcba1693",
    "vector_noise": "e7aaccc530b67591fabafe63de6cb4c6ca72e3fe2bcfa0a86ab6272a02ce69b2",
    "duplicated": "16c292983dcaa844b15f15f900c294816fc125b71f54dce5ebdc74f5f340da42",
    "mixture": "0e5212be3f17348b977d09669e82518d3c359930d32a51850118345de353be40",
    "mixture_image_vector": "065463f03fe05b5bd39e76229b5b89b26222ee694c2814df382fb4dd20fe2198",
    "mixture_shared": "5834d7c0dda1201756455cef9174bc2f224fd97da6de3d93533464092cd702fd",
    "common_shape": "f796bb5da61ce4045baf6ca380dd6c0335b9ed58df9475424154da36a6cebd83",
    "idx": "cb1cc2c59fc53d8d5018401071c451839e14a0938d684ccfe8eb68c8919c83b8",
    "cifar10": "b45cf7a1c5a36fcfc8999de2b1e74559122df9fbc029074612da10e01c85769d",
    "cifar100_coarse": "d0fefd0f453ce094a546f27e005788d0ef07a74fe720e33dbaccc882bc093bc7",
}


def write_idx(path, array: np.ndarray, magic: int, compress: bool) -> None:
    data = np.array([magic, *array.shape], dtype=">i4").tobytes() + array.astype(np.uint8).tobytes()
    if compress:
        with gzip.open(f"{path}.gz", "wb") as handle:
            handle.write(data)
    else:
        path.write_bytes(data)


def write_batch(path, rgb: np.ndarray, labels: dict) -> None:
    batch = {b"data": rgb.reshape(len(rgb), -1).astype(np.uint8),
             **{key.encode(): list(value) for key, value in labels.items()}}
    with open(path, "wb") as handle:
        pickle.dump(batch, handle)


def aiq_domain_outputs(tmp_path) -> tuple[dict[str, str], dict[str, Domain]]:
    out = {}
    digits = load_domain("digits", seed=1)
    hard = load_domain("digits-hard", seed=2, test_fraction=0.3)
    shapes10 = load_domain("shapes10", seed=3, n_images=200, image_size=12)
    shapes100 = load_domain("shapes100", seed=4, test_fraction=0.5, n_images=200)
    cartpole = load_domain("cartpole", seed=5, episodes=4, max_steps=60)
    changed = cartpole_classification(force_mag=15.0, gravity=12.0, episodes=3, seed=6, max_steps=40)
    for name, domain in (("digits", digits), ("digits-hard", hard), ("shapes10", shapes10),
                         ("shapes100", shapes100), ("cartpole", cartpole), ("cartpole_changed", changed)):
        out[name] = domain_sha(domain)
    out["make_shapes"] = array_sha(*make_shapes(10, n_images=40, image_size=8, seed=7))
    out["jitter"] = array_sha(jitter_images(digits.x_test[:50], seed=8, max_rotation=30.0, scale_range=(0.9, 1.2),
                                            max_shift=1.0, noise=0.05))
    env = make_cartpole(force_mag=5.0, gravity=20.0, seed=9, max_steps=100)
    record: list = []
    try:
        returns = [cartpole_episode_return(env, heuristic_policy, seed=s, record=record) for s in (1, 2)]
        returns.append(cartpole_episode_return(env, lambda observation: 1, seed=3))
    finally:
        env.close()
    out["cartpole_returns"] = sha([returns, array_sha(*(o for o, _ in record)), [a for _, a in record]])

    variants = {
        "subset": class_subset(digits, [3, 1, 7]),
        "noise": with_noise(digits, 0.3, seed=10),
        "addnoise": with_noise(shapes10, 0.1, seed=11, mode="add"),
        "vector_noise": with_noise(cartpole, 0.2, seed=12),
        "duplicated": duplicated(class_subset(shapes10, [0, 5]), 3, test=True),
        "mixture": mixture(digits, shapes10, 0.3, seed=13),
        "mixture_image_vector": mixture(class_subset(digits, [0, 1]), cartpole, 0.5, seed=14, size="min"),
        "mixture_shared": mixture(cartpole, changed, 0.4, seed=15, labels="shared", size=50),
    }
    for name, domain in variants.items():
        out[name] = domain_sha(domain)
    out["common_shape"] = sha([common_shape(digits, shapes10), common_shape(shapes100, cartpole)])

    rng = np.random.default_rng(16)
    idx = tmp_path / "idx"
    idx.mkdir()
    write_idx(idx / "train-images-idx3-ubyte", rng.integers(0, 256, (6, 28, 28)), 2051, compress=True)
    write_idx(idx / "train-labels-idx1-ubyte", np.array([0, 1, 9, 3, 1, 2]), 2049, compress=True)
    write_idx(idx / "t10k-images.idx3-ubyte", rng.integers(0, 256, (3, 28, 28)), 2051, compress=False)
    write_idx(idx / "t10k-labels-idx1-ubyte", np.array([2, 0, 1]), 2049, compress=False)
    out["idx"] = domain_sha(load_idx_directory(idx, name="idx"), (str(idx.resolve()), "<dir>"))
    cifar10 = tmp_path / "c10" / "cifar-10-batches-py"
    cifar10.mkdir(parents=True)
    for i in range(1, 6):
        write_batch(cifar10 / f"data_batch_{i}", rng.integers(0, 256, (2, 3, 32, 32)), {"labels": [i, 9 - i]})
    write_batch(cifar10 / "test_batch", rng.integers(0, 256, (3, 3, 32, 32)), {"labels": [0, 1, 2]})
    out["cifar10"] = domain_sha(load_cifar_directory(cifar10.parent, name="c10"), (str(cifar10.resolve()), "<dir>"))
    cifar100 = tmp_path / "c100"
    cifar100.mkdir()
    write_batch(cifar100 / "train", rng.integers(0, 256, (4, 3, 32, 32)),
                {"fine_labels": [99, 3, 50, 3], "coarse_labels": [19, 0, 7, 0]})
    write_batch(cifar100 / "test", rng.integers(0, 256, (2, 3, 32, 32)),
                {"fine_labels": [50, 1], "coarse_labels": [7, 2]})
    out["cifar100_coarse"] = domain_sha(load_cifar_directory(cifar100, coarse=True, name="c100"),
                                        (str(cifar100.resolve()), "<dir>"))
    return out, {"digits": digits, "cartpole": cartpole, "mixture": variants["mixture"]}


@pytest.fixture(scope="module")
def aiq_outputs(tmp_path_factory):
    return aiq_domain_outputs(tmp_path_factory.mktemp("aiq-golden"))


def test_aiq_domains_golden(aiq_outputs):
    digests, _ = aiq_outputs
    check(digests, AIQ_DOMAINS)


def test_aiq_domains_pickle_by_their_module_path(aiq_outputs):
    """Worker processes get domains by pickle: the class must be importable where it says it lives."""
    _, domains = aiq_outputs
    for domain in domains.values():
        copy = pickle.loads(pickle.dumps(domain))
        assert type(copy) is Domain and copy.fingerprint() == domain.fingerprint()
        assert not copy.x_train.flags.writeable and not copy.y_test.flags.writeable
