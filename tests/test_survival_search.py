"""The search figure: collections from reStructuredText and man pages, BM25 and dense failure counts
against hand computation and brute force, BEIR folders with masks, and the claims' statistics."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from intellimetry.survival.failure_counts import failure_counts
from intellimetry.survival.search import retrievers, study, tasks
from intellimetry.survival.search.tasks import Collection, Section


def collection(documents, queries, reference, excluded=()) -> Collection:
    return Collection("toy", "toy", tuple(documents), tuple(f"d{i}" for i in range(len(documents))),
                      tuple(queries), np.asarray(reference, dtype=np.int64), tuple(excluded))


ANIMALS = ["the cat sat on the mat", "dogs chase cats in the park", "quantum physics of black holes"]


# ----------------------------------------------------------------------------- BM25

def lucene_bm25(query_terms, documents_terms, k1=1.5, b=0.75):
    """Lucene's BM25 written out: idf = ln(1 + (N - df + 0.5) / (df + 0.5)) times the saturated term
    frequency tf / (tf + k1 (1 - b + b |d| / avgdl)) (Lucene dropped the constant factor k1 + 1)."""
    n = len(documents_terms)
    average = sum(map(len, documents_terms)) / n
    scores = []
    for terms in documents_terms:
        score = 0.0
        for term in set(query_terms):
            df = sum(term in d for d in documents_terms)
            tf = terms.count(term)
            if tf:
                idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
                score += idf * tf / (tf + k1 * (1 - b + b * len(terms) / average))
        scores.append(score)
    return np.array(scores)


def test_bm25_puts_the_obvious_document_first_and_counts_a_mismatch_by_hand():
    toy = collection(ANIMALS, ["quantum black holes", "cat mat"], [2, 1])
    # "cat mat" names document 0 only ("cats" is another term: no stemming); its right document (1)
    # scores 0 and so does document 2, a tie that counts for the model: one failure.
    assert retrievers.bm25_failure_counts(toy).tolist() == [0, 1]


def test_bm25_scores_are_lucene_bm25_computed_by_hand():
    documents = ["apple banana apple", "banana cherry", "cherry cherry date elderberry", "fig"]
    scores = retrievers.BM25Scores(documents, ["apple cherry", "banana"])
    terms = retrievers.lexical_terms(documents)
    for row, query in enumerate(["apple cherry", "banana"]):
        expected = lucene_bm25(query.split(), terms)
        np.testing.assert_allclose(scores[row:row + 1][0], expected, rtol=1e-5)


def test_a_query_no_document_contains_is_left_out_and_counted():
    sections = [Section("a#Cats", "Cats", ANIMALS[0]), Section("b#Dogs", "Dogs", ANIMALS[1]),
                Section("c#Zebra", "Zebra", ANIMALS[2]), Section("faq/d#Why cats?", "Why cats?", "cats, because")]
    built = tasks.python_collections(sections=sections)["python-titles"]
    assert sorted(built.queries) == ["Cats", "Dogs"]  # both words occur in document 1; "zebra" nowhere
    assert built.unmatched == 1


# ----------------------------------------------------------------------------- score matrices with masks

def test_masked_candidates_never_count_as_failures():
    scores = np.array([[0.9, 0.8, 0.1, 0.7],
                       [0.2, 0.5, 0.5, 0.9],
                       [0.3, 0.3, 0.3, 0.3]])
    reference = [1, 1, 2]
    assert failure_counts(scores, reference).tolist() == [1, 1, 0]  # ties count for the model
    # the other right documents of a query are masked: query 0's document 0, query 1's document 3
    assert failure_counts(scores, reference, [[0], [3], []]).tolist() == [0, 0, 0]


def test_beir_folder_makes_one_event_per_relevant_document_and_masks_the_others(tmp_path):
    (tmp_path / "qrels").mkdir()
    corpus = [{"_id": "a", "title": "Cats", "text": "the cat sat on the mat"},
              {"_id": "b", "title": "", "text": "a cat and a mat again"},
              {"_id": "c", "title": "Holes", "text": "quantum physics of black holes"}]
    (tmp_path / "corpus.jsonl").write_text("\n".join(json.dumps(row) for row in corpus))
    (tmp_path / "queries.jsonl").write_text(json.dumps({"_id": "q1", "text": "cat mat"}) + "\n"
                                            + json.dumps({"_id": "q2", "text": "black holes"}))
    (tmp_path / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\ta\t1\nq1\tb\t1\nq2\tc\t1\nq2\ta\t0\n")
    beir = tasks.load_beir(tmp_path)
    assert beir.queries == ("cat mat", "cat mat", "black holes")
    refs = [beir.document_ids[i] for i in beir.reference]
    assert refs == ["a", "b", "c"]
    assert [[beir.document_ids[i] for i in e] for e in beir.excluded] == [["b"], ["a"], []]
    assert "Cats the cat sat on the mat" in beir.documents
    # each cat query has its other right document masked: no failure whichever of the two BM25 prefers
    assert retrievers.bm25_failure_counts(beir).tolist() == [0, 0, 0]


def test_beir_folder_with_a_missing_file_says_which(tmp_path):
    with pytest.raises(FileNotFoundError, match="qrels/test.tsv"):
        tasks.load_beir(tmp_path)


# ----------------------------------------------------------------------------- dense retrieval

@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory):
    """A randomly initialised two-layer BERT and a word-level tokenizer, saved like a downloaded model."""
    import torch
    from transformers import BertConfig, BertModel, BertTokenizerFast

    folder = tmp_path_factory.mktemp("tiny-bert")
    words = sorted({w for text in ANIMALS + ["cat mat", "black holes", "dogs park"] for w in text.split()})
    (folder / "vocab.txt").write_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *words]) + "\n")
    BertTokenizerFast(vocab_file=str(folder / "vocab.txt")).save_pretrained(folder)
    torch.manual_seed(0)
    config = BertConfig(vocab_size=5 + len(words), hidden_size=16, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=24, max_position_embeddings=32)
    BertModel(config).save_pretrained(folder)
    return folder


def brute_force_dense_counts(folder, documents, queries, reference):
    """One text at a time, no batching or sorting: cosine of mean-pooled states, rank by hand."""
    import torch
    from transformers import AutoModel, AutoTokenizer

    tokenizer, model = AutoTokenizer.from_pretrained(folder), AutoModel.from_pretrained(folder).eval()

    def embed(text):
        batch = tokenizer(text, return_tensors="pt")
        with torch.no_grad():
            states = model(**batch).last_hidden_state[0]
        vector = states.mean(dim=0).numpy()
        return vector / np.linalg.norm(vector)

    docs = np.stack([embed(d) for d in documents])
    counts = []
    for query, right in zip(queries, reference):
        scores = docs @ embed(query)
        counts.append(int(sum(s > scores[right] + 1e-6 for s in scores)))
    return counts


def test_dense_counts_on_a_tiny_random_bert_equal_a_brute_force_ranking(tiny_bert):
    queries, reference = ["cat mat", "black holes", "dogs park"], [0, 2, 1]
    toy = collection(ANIMALS, queries, reference)
    encoder = retrievers.load_encoder(str(tiny_bert), max_tokens=16)
    first = retrievers.dense_failure_counts(encoder, toy, batch_size=2)
    again = retrievers.dense_failure_counts(retrievers.load_encoder(str(tiny_bert), max_tokens=16), toy, batch_size=2)
    assert first.tolist() == again.tolist() == brute_force_dense_counts(tiny_bert, ANIMALS, queries, reference)


def test_non_embedding_size_of_a_bert_matches_its_layer_formula(tiny_bert):
    encoder = retrievers.load_encoder(str(tiny_bert), max_tokens=16)
    assert encoder.non_embedding_parameters == 2 * retrievers.bert_layer_parameters(16, 24)


def test_document_embeddings_come_back_from_the_cache(tiny_bert, tmp_path):
    encoder = retrievers.load_encoder(str(tiny_bert), max_tokens=16)
    stored = retrievers.cached_embeddings(encoder, ANIMALS, cache_root=tmp_path)

    def refuse(*args, **kwargs):
        raise AssertionError("encoded again although the cache holds these embeddings")

    encoder.encode = refuse
    np.testing.assert_array_equal(retrievers.cached_embeddings(encoder, ANIMALS, cache_root=tmp_path), stored)


def test_mean_pool_ignores_padding_and_returns_unit_rows():
    hidden = np.array([[[1.0, 0.0], [3.0, 0.0], [100.0, 100.0]]])
    pooled = retrievers.mean_pool(hidden, np.array([[1, 1, 0]]))
    np.testing.assert_allclose(pooled, [[1.0, 0.0]])


def test_the_l3_onnx_file_holds_exactly_its_stated_architecture():
    """3 layers of 384 with the uncased 30,522-token vocabulary: float32 weights fill the file."""
    arch = retrievers.L3_ARCHITECTURE
    weights = arch["layers"] * retrievers.bert_layer_parameters(arch["hidden"], arch["intermediate"]) \
        + retrievers.bert_embedding_parameters(arch["vocabulary"], arch["positions"], arch["hidden"])
    size = retrievers.minilm_l3_file().stat().st_size
    assert 4 * weights <= size < 4 * weights * 1.01


@pytest.mark.slow
def test_the_real_minilms_find_a_paraphrased_question():
    documents = ["To open a file for reading, call open() with the mode r.",
                 "The garbage collector frees objects that are no longer referenced.",
                 "Lists are mutable sequences; tuples cannot be changed after creation."]
    toy = collection(documents, ["how do I read a text file", "why can a tuple not be modified"], [0, 2])
    for model in (retrievers.MINILM_L3, retrievers.MINILM_L6):
        encoder = retrievers.load_encoder(model, max_tokens=64)
        assert retrievers.dense_failure_counts(encoder, toy).tolist() == [0, 0], model
    l6 = retrievers.load_encoder(retrievers.MINILM_L6, max_tokens=64)
    assert l6.non_embedding_parameters == 6 * retrievers.bert_layer_parameters(384, 1536)


# ----------------------------------------------------------------------------- collections

RST = """\
.. _intro:

************
  Overview
************

Intro text with :func:`~os.path.join` and ``code``, see `the site <https://example.org>`_.

.. index:: single: hidden

   index text that must go

Examples
========

.. function:: spam(eggs, ham=None)
   :noindex:

   Return **spam** made of *eggs*.

   .. versionadded:: 3.2

Examples
--------

Second examples section, title used twice.
"""


def test_rst_sections_split_on_titles_and_clean_the_markup():
    sections = tasks.rst_sections(RST)
    assert [title for title, _ in sections] == ["Overview", "Examples", "Examples"]
    assert sections[0][1] == "Intro text with os.path.join and code, see the site."
    assert sections[1][1] == "spam(eggs, ham=None) Return spam made of *eggs*. 3.2"


def test_python_sections_drop_shared_titles_and_short_bodies():
    sections = tasks.python_doc_sections(min_chars=10, texts=[("library/x.rst.txt", RST)])
    assert [s.title for s in sections] == ["Overview"]
    assert tasks.python_doc_sections(min_chars=100, texts=[("library/x.rst.txt", RST)]) == []


def test_the_python_pool_keeps_faq_answers_to_half_and_asks_each_section_once():
    sections = [Section(f"faq/general.rst.txt#Why spam {i}?", f"Why spam {i}?", f"spam answer {i} eggs")
                for i in range(6)]
    sections += [Section(f"library/m{i}.rst.txt#Module spam {i}", f"Module spam {i}", f"module {i} spam text")
                 for i in range(6)]
    pool = tasks.python_collections(documents=6, sections=sections)
    titles, faq = pool["python-titles"], pool["python-faq"]
    assert titles.documents is faq.documents and len(titles.documents) == 6
    assert len(faq.queries) == 3 and len(titles.queries) == 3
    for built in (titles, faq):
        for query, right in zip(built.queries, built.reference):
            assert built.document_ids[right].endswith("#" + query)


MANPAGE = """NAME

getgid, getegid - get group identity

SYNOPSIS

gid_t getgid(void);

DESCRIPTION

getgid() returns the real group ID of the calling process.

getegid() returns the effective group ID.

ERRORS

These functions are always successful."""


def test_manpage_parts_are_the_names_and_the_description():
    names, description = tasks.manpage_parts(MANPAGE)
    assert names == "getgid, getegid"
    assert description == ("getgid() returns the real group ID of the calling process. "
                           "getegid() returns the effective group ID.")
    assert tasks.manpage_parts("NAME\n\nfoo - bar") is None  # no DESCRIPTION: no document


# ----------------------------------------------------------------------------- claims

def rate(alpha, level="Limited", half=0.01, events=60, status="measured"):
    return {"alpha": alpha, "level": level, "ci_low": alpha - half, "ci_high": alpha + half, "events_in_range": events,
            "status": status}


UNFITTED = {"alpha": None, "level": None, "ci_low": None, "ci_high": None, "events_in_range": 3,
            "status": "too few events"}


def test_claims_read_levels_order_and_the_title_task():
    rates = {"BM25": {"python-titles": rate(1.3), "python-faq": rate(1.2), "manpages": rate(1.5)},
             "L3": {"python-titles": rate(1.5), "python-faq": rate(1.25), "manpages": rate(1.4)},
             "L6": {"python-titles": rate(1.8), "python-faq": rate(1.3), "manpages": rate(1.6)}}
    found = study.claims(rates, rates["BM25"])
    assert found["all_limited"] and found["rises_on_main_tasks"] and found["largest_beats_bm25_on_main_tasks"]
    assert found["title_task_closest_to_capable"]  # 1.8 is the largest rate of any task
    assert found["rises"] == {"python-titles": True, "python-faq": True, "manpages": False}
    # with intervals: the title task's 1.8 leads manpages' 1.6 by [0.18, 0.22]; the smallest step up the
    # model order is faq's 1.25 -> 1.3 (0.05, interval [0.03, 0.07]); L6 over BM25: faq's 0.1
    assert found["title_margin"] == pytest.approx(0.2) and found["title_margin_interval"] == pytest.approx([0.18, 0.22])
    assert found["rise"] == pytest.approx(0.05) and found["rise_interval"] == pytest.approx([0.03, 0.07])
    assert found["largest_over_simplest"] == pytest.approx(0.1)
    assert found["measured"]["measured"] and found["measured"]["tasks_present"] and found["all_decaying"]
    wide = {m: {t: rate(r["alpha"], half=0.2) for t, r in by.items()} for m, by in rates.items()}
    assert study.claims(wide, wide["BM25"])["rise_interval"][0] < 0 < study.claims(wide, wide["BM25"])["rise"]
    rates["L6"]["manpages"] = rate(2.2, "Capable")
    found = study.claims(rates, rates["BM25"])
    assert not found["all_limited"] and not found["title_task_closest_to_capable"]
    assert found["level_counts"] == {"Limited": 8, "Capable": 1, "Autonomous": 0, "unmeasured": 0}


def test_a_rise_needs_measured_rates_whose_intervals_are_apart():
    assert study.rises([rate(0.4), rate(0.9), rate(1.5)])  # rates below 1 are values now
    assert not study.rises([rate(1.2, half=0.1), rate(1.25, half=0.1)])  # the intervals overlap
    assert not study.rises([rate(1.3), rate(1.3)])
    assert not study.rises([rate(0.4), rate(1.5, status="not a power law")])  # apart, but one is not measured
    assert not study.rises([rate(1.3)])


def test_a_rate_not_fitted_leaves_the_margins_undefined_and_the_run_unmeasured():
    rates = {"BM25": {"python-titles": rate(1.3), "python-faq": rate(1.2), "manpages": rate(1.5)},
             "L6": {"python-titles": rate(1.8), "python-faq": dict(UNFITTED), "manpages": rate(1.6)}}
    found = study.claims(rates, rates["BM25"])
    assert found["rise"] == 0 and found["rise_interval"] == [0.0, 0.0]  # an undefined margin, never a number
    assert found["largest_over_simplest_interval"] == [0.0, 0.0] and not found["largest_beats_bm25_on_main_tasks"]
    assert found["alpha_max"]["python-faq"] == 1.2  # the largest fitted rate
    assert not found["all_decaying"] and not found["all_limited"]
    assert found["measured"]["statuses"] == {"measured": 5, "too few events": 1} and not found["measured"]["measured"]


def test_rates_are_fitted_on_each_tasks_documents():
    small = collection(ANIMALS, ["cat", "dogs"], [0, 1])
    large = collection(ANIMALS * 40, ["cat", "dogs"], [0, 1])
    assert study.supports({"small": small, "large": large}) == {"small": 3, "large": 120}
    rng = np.random.default_rng(0)
    counts = {"m": {"small": rng.integers(0, 3, 500), "large": rng.integers(0, 120, 500)}}
    rates = study.rates_by_model(counts, 1, study.supports({"small": small, "large": large}), 20, 0)
    assert rates["m"]["small"]["k_max"] == 2 and rates["m"]["large"]["k_max"] == 119
    assert abs(rates["m"]["large"]["alpha"]) < 0.15 and rates["m"]["large"]["ci_low"] < 0  # flat: alpha near 0
    with pytest.raises(ValueError, match="must lie in"):
        study.rates_by_model(counts, 1, 100, 20, 0)  # a count of 119 cannot come from 100 documents
