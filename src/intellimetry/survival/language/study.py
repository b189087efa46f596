"""The language experiments as functions the notebooks call (Figs. 6-13): failure counts of a model
on documents or on a task's answers, cached by content so the figures that share a model and a test
set score it once; decay rates and levels per test set; decay rate against model size per task.

A language model ranks its whole vocabulary at every event, so its failure counts lie in [0, K-1] for
a vocabulary of K tokens, and every decay rate of Figs. 6-10 is fitted on [k_min, K-1] (`subject_rates`).
"""
from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np

from intellimetry.cache import ModelCache, TrainingCode
from intellimetry.survival import controls
from intellimetry.survival.failure_counts import failure_counts_from_embeddings
from intellimetry.survival.language import corpora, family, scoring, tasks
from intellimetry.survival.rates import (  # noqa: F401  (the notebooks call them through this module)
    alpha_span,
    decay_rates,
    is_measured,
    level_counts,
    levels,
    rising_share,
    shown_rate,
    size_scaling,
)
from intellimetry.survival.scaling import fit_scaling

COUNTS_CODE = TrainingCode(
    namespace="survival-lm-counts", version=1,
    definitions=(scoring.document_failure_counts, scoring._sliding_window_counts, scoring.answer_failure_counts,
                 scoring._hidden_states_cached, scoring._count_targets, failure_counts_from_embeddings),
    packages=("torch", "transformers"))


# A family small enough for the notebooks' smoke runs (tests): as many sizes as quick, tiny, 8 steps each.
SMOKE_RECIPE = family.Recipe(vocab_size=512, context=64, batch_size=4, steps=8, learning_rate=2e-3,
                             warmup_steps=2, seed=0,
                             sizes=((1, 8, 2), (1, 16, 2), (1, 24, 2), (2, 32, 2), (2, 48, 4), (2, 64, 4)))
RECIPES = {"smoke": SMOKE_RECIPE, "quick": family.QUICK_RECIPE, "full": family.FULL_RECIPE}
# Our family learns from the train split of every corpus, so it is scored on all of them (test split).
FAMILY_CORPORA = corpora.CORPORA
SUBJECT_ROLES = ("pretrained", "ours")  # Figs. 6-11: the pretrained model, then our largest member
CONTROL_KEYS = ("alpha", "ci_low", "ci_high", "level", "status", "support", "events", "events_in_range", "summary")
# What the book states about each member's training (from its cache record).
TRAINING_SUMMARY = ("steps", "tokens_seen", "train_seconds", "tokens_per_second", "final_train_loss",
                    "validation_loss", "trained_now")
CHARS_PER_TOKEN = 5  # generous: a document cut at max_tokens * 5 characters holds max_tokens tokens


WRITING_LABELS = {"code": "code (Python stdlib)", "law": "law (licence texts)",
                  "literary": "literary (Austen, KJV)", "technical": "technical (Python docs, jargon)"}
LANGUAGE_LABELS = {"en": "English", "de": "German", "fr": "French", "es": "Spanish", "pl": "Polish",
                   "ja": "Japanese", "it": "Italian", "pt-br": "Portuguese (Brazil)"}
TASK_GROUPS = {"coding": ("humaneval", "cruxeval"), "mathematics": ("gsm8k", "cmath", "math_steps"),
               "qa": ("mmlu_pro", "facts")}


@dataclass(frozen=True)
class TestSet:
    """Documents (next-token prediction) or examples (teacher-forced answers) under one name."""
    name: str
    label: str
    kind: str  # "documents" or "answers"
    items: tuple
    description: str = ""
    notices: tuple[str, ...] = ()


def document_set(corpus: str, label: str, documents: int, max_tokens: int, min_prefix: int) -> TestSet:
    """Up to `documents` test-split documents of a corpus, each long enough for events after min_prefix."""
    max_chars = max_tokens * CHARS_PER_TOKEN
    # at least twice the skipped prefix in characters, so a kept document has events to score
    min_chars = min(max_chars // 2, max(corpora.DEFAULT_MIN_CHARS, 2 * min_prefix * CHARS_PER_TOKEN))
    found = corpora.documents(corpus, split="test", max_documents=documents, max_chars=max_chars,
                              min_chars=min_chars)
    if not found:
        raise ValueError(f"corpus {corpus!r} has no test documents of at least {min_chars} characters"
                         + (f" ({'; '.join(found.notices)})" if found.notices else "")
                         + ": run `make language-data`, or lower min_prefix")
    return TestSet(corpus, label, "documents", tuple(d.text for d in found), notices=tuple(found.notices))


def task_set(name: str, examples: int, seed: int) -> TestSet:
    task = tasks.build_task(name, examples, seed)
    # the paper names the shots in each panel's title
    return TestSet(name, f"{task.label}, {task.shots}-shot", "answers", task.examples, task.description)


def family_models(recipe: str, train_chars: int, progress: bool = True,
                  workers: int = 1) -> list[scoring.LanguageModel]:
    """Our GPT-2 family trained (or loaded from the model cache) on the corpora's train split, the
    missing members in ``workers`` processes (or on the Dask cluster in use)."""
    text = corpora.training_text(FAMILY_CORPORA, max_chars=train_chars)
    members = family.train_family([text], RECIPES[recipe], progress=progress, workers=workers)
    return [scoring.LanguageModel(name=f"ours-{m.name}", model=m.model, tokenizer=m.tokenizer,
                                  identity=f"family:{m.record['key']}",
                                  description=f"our GPT-2 {m.name} ({recipe} recipe)", record=m.record)
            for m in members]


def model_label(lm: scoring.LanguageModel) -> str:
    return "SmolLM2-135M" if lm.name == scoring.DEFAULT_MODEL else lm.name


def subjects(model: str, recipe: str, train_chars: int, workers: int = 1) -> tuple[dict, list]:
    """The pretrained model and our family's largest member side by side, and the whole family."""
    pretrained = scoring.load_language_model(model)
    ours = family_models(recipe, train_chars, workers=workers)
    return {model_label(pretrained): pretrained, ours[-1].name: ours[-1]}, ours


def model_rows(models: dict) -> dict:
    """What the page says about each model: description, sizes, context, vocabulary."""
    return {label: {"name": label, "description": lm.description, "non_embedding_params": lm.non_embedding_params,
                    "context": lm.context, "vocabulary": int(lm.model.get_output_embeddings().weight.shape[0])}
            for label, lm in models.items()}


def failure_counts_by_model(models: dict, test_sets: dict, *, min_prefix: int, max_tokens: int,
                            progress: bool = True) -> dict:
    """{model label: {test set: failure counts}} for every model on every test set (cached)."""
    results = {}
    for label, lm in models.items():
        results[label] = {}
        for name, test_set in test_sets.items():
            if test_set.kind == "documents":
                scored = document_counts(lm, test_set.items, min_prefix=min_prefix,
                                         max_tokens=max_tokens, progress=progress)
            else:
                scored = answer_counts(lm, test_set.items, progress=progress)
            results[label][name] = scored["counts"]
    return results


def document_counts(lm: scoring.LanguageModel, texts, *, min_prefix: int, max_tokens: int,
                    cache_root=None, progress: bool = True) -> dict:
    """`scoring.score_documents`, cached by model, documents and the position rule."""
    texts = list(texts)
    inputs = {"kind": "documents", "model": lm.identity, "texts": family.text_fingerprint(texts),
              "min_prefix": min_prefix, "max_tokens": max_tokens}
    return _cached(inputs, cache_root, lambda: scoring.score_documents(
        lm, texts, min_prefix=min_prefix, max_tokens=max_tokens, progress=progress))


def answer_counts(lm: scoring.LanguageModel, examples, *, cache_root=None, progress: bool = True) -> dict:
    """`scoring.score_answers` on (prompt, answer) examples, cached by model and examples."""
    examples = list(examples)
    inputs = {"kind": "answers", "model": lm.identity,
              "examples": family.text_fingerprint([json.dumps([e.prompt, e.answer]) for e in examples])}
    return _cached(inputs, cache_root, lambda: scoring.score_answers(lm, examples, progress=progress))


def _cached(inputs: dict, cache_root, compute) -> dict:
    cache = ModelCache(COUNTS_CODE, root=cache_root)
    key = cache.key(**inputs)
    with cache.claim(key):  # a figure run beside this one waits, then reads them
        return _load_or_compute(cache, key, compute)


def _load_or_compute(cache: ModelCache, key: str, compute) -> dict:
    stored = cache.lookup(key, ".npz")
    if stored is not None:
        with np.load(stored) as saved:
            return {"counts": saved["counts"], "events_per_document": saved["events_per_document"].tolist()}
    result = compute()

    def write(tmp):
        with open(tmp, "wb") as stream:
            np.savez(stream, counts=result["counts"], events_per_document=np.asarray(result["events_per_document"]))

    cache.store_file(key, ".npz", write)
    return result


def writing_sets(documents: int, max_tokens: int, min_prefix: int) -> dict:
    return {name: document_set(name, label, documents, max_tokens, min_prefix)
            for name, label in WRITING_LABELS.items()}


def language_sets(languages, documents: int, max_tokens: int, min_prefix: int) -> dict:
    return {lang: document_set(f"manpages-{lang}", LANGUAGE_LABELS[lang], documents, max_tokens, min_prefix)
            for lang in languages}


def task_sets(group: str, examples: int, seed: int) -> dict:
    return {name: task_set(name, examples, seed) for name in TASK_GROUPS[group]}


def corpus_changes(names) -> dict:
    """Per corpus: its size now and the files that differ from the committed manifest (one sentence
    each), and a one-line summary for the book."""
    by_corpus, changed = {}, 0
    for name in names:
        expected, actual = corpora.expected_manifest(name), corpora.manifest(name)
        if expected is None:
            changes = ["no manifest is committed for this corpus"]
        else:
            changes = corpora.describe_changes(corpora.compare_manifest(expected, actual))
        changed += len(changes)
        by_corpus[name] = {"changes": changes, "files": actual["totals"]["files"],
                           "words": actual["totals"]["words"], "notices": actual.get("notices", [])}
    summary = ("every file matches the committed manifests" if not changed else
               f"{changed} file(s) differ from the committed manifests: "
               + "; ".join(c for row in by_corpus.values() for c in row["changes"][:3]))
    return {"by_corpus": by_corpus, "changed_files": changed, "summary": summary}


def candidates(models: dict) -> dict:
    """{model label: the candidates it ranks at every event (its vocabulary)}."""
    return {label: int(lm.model.get_output_embeddings().weight.shape[0]) for label, lm in models.items()}


def subject_rates(models: dict, counts: dict, k_min: int, resamples: int, seed: int) -> dict:
    """{model label: {test set: rate row}}: each model's counts fitted on [k_min, K-1], K its vocabulary
    (`candidates`), every model with its own bootstrap generator from `seed`."""
    vocabularies = candidates(models)
    return {label: decay_rates(counts[label], k_min, vocabularies[label], resamples, np.random.default_rng(seed))
            for label in models}


def measured_only(rows: dict) -> dict:
    """{set: row} with every rate that was not measured (too few events, a bound, not a power law) replaced
    by a row with no rate, so a comparison counts it neither way (it stays inside the share's interval)."""
    return {name: row if is_measured(row) else {**row, "alpha": None, "ci_low": None, "ci_high": None}
            for name, row in rows.items()}


def claim_statistics(sizes: dict, vocabularies: dict, test_sets, rates: dict) -> dict:
    """What the language figures' verdicts read, for any subjects (ours or the control's) given their
    sizes ({label: non-embedding parameters}), vocabularies and rates ({label: {set: row}}, each fitted
    on [k_min, K-1] of the model's vocabulary K):

    * all_limited: every (model, set) rate fitted and Limited; all_decaying: every rate's interval above
      0 (a uniformly random ranker's counts are flat, alpha about 0);
    * larger_faster_share: the share of sets on which the larger model's measured rate is the higher, and
      its interval from the rates' bootstrap intervals (`controls.faster_share`; a set where either rate
      was not measured decides nothing and stays inside the interval);
    * measured (`controls.measurement`): every rate measured (enough events in [k_min, K-1], not a bound,
      not beaten by a truncated alternative), with the fewest events in range and the statuses; and every
      model's first guess right more often than chance (one in its vocabulary)."""
    names = list(test_sets)
    by_size = sorted(sizes, key=sizes.get)
    smaller, larger = by_size[0], by_size[-1]
    rows = [rates[label][name] for label in sizes for name in names]
    share = controls.faster_share(measured_only(rates[larger]), measured_only(rates[smaller]), names)
    above_chance = all(rates[label][name]["first_try"] > 1 / vocabularies[label] for label in sizes for name in names)
    return {"larger_model": larger, "smaller_model": smaller,
            "all_limited": controls.all_limited(rows), "all_decaying": controls.all_decaying(rows),
            "larger_faster_sets": share["sets"], "larger_faster_share": share["share"],
            "larger_faster_interval": share["interval"], "larger_faster_apart": share["apart_faster"],
            "measured": {**controls.measurement(rows), "above_chance": above_chance}}


def comparison(models: dict, test_sets: dict, counts: dict, rates: dict) -> dict:
    """The numbers a side-by-side figure quotes: models, test sets, rates, the levels of the measured
    rates, and the claims' statistics (`claim_statistics`)."""
    labels = list(models)
    roles = dict(zip(SUBJECT_ROLES, labels))  # stable keys for the book, whatever the models are called
    sizes = {label: models[label].non_embedding_params for label in labels}
    return {
        "subjects": roles, "models": model_rows(models),
        "by_subject": {role: {"model": model_rows({label: models[label]})[label],
                              "rates": {name: shown_rate(rates[label][name]) for name in test_sets},
                              **alpha_span(rates[label])}
                       for role, label in roles.items()},
        "test_sets": {name: {"label": t.label, "kind": t.kind, "items": len(t.items), "description": t.description,
                             "notices": list(t.notices),
                             "events": {m: int(np.asarray(counts[m][name]).size) for m in labels}}
                      for name, t in test_sets.items()},
        "rates": rates, "levels": levels(rates), "level_counts": level_counts(rates),
        **claim_statistics(sizes, candidates(models), test_sets, rates),
    }


def random_ranker_control(models: dict, test_sets: dict, counts: dict, k_min: int, resamples: int,
                          seed: int) -> dict:
    """The claim statistics of the figure's control: each model replaced by a uniformly random ranker
    over its own vocabulary K, for as many events on each set, fitted on [k_min, K-1] by the same code."""
    rng = controls.control_rng(seed)
    vocabularies = candidates(models)
    null = controls.random_ranker_like({label: {name: counts[label][name] for name in test_sets}
                                        for label in models}, vocabularies, rng)
    rates = {label: controls.null_decay_rates(by_set, k_min, vocabularies[label], resamples, rng)
             for label, by_set in null.items()}
    sizes = {label: models[label].non_embedding_params for label in models}
    return {"subject": controls.NULL_SUBJECT,
            "rates": {label: {name: {key: row[key] for key in CONTROL_KEYS} for name, row in by_set.items()}
                      for label, by_set in rates.items()},
            **claim_statistics(sizes, vocabularies, test_sets, rates)}


GENERAL = "general"  # our general domain: the four writing domains' events pooled


def family_counts(ours: list, test_sets: dict, *, min_prefix: int, max_tokens: int) -> dict:
    """{member: {test set: failure counts}} for our family (cached), plus the pooled writing domains
    ("general")."""
    models = {lm.name: lm for lm in ours}
    counts = failure_counts_by_model(models, test_sets, min_prefix=min_prefix, max_tokens=max_tokens)
    for by_set in counts.values():
        by_set[GENERAL] = np.concatenate([by_set[name] for name in WRITING_LABELS if name in by_set])
    return counts


def family_lines(ours: list, rates: dict) -> dict:
    """Per test set: the log-log line of α on non-embedding size over the family (`rates.size_scaling`:
    slope with its interval, p, R², each member's rate, interval and status), `measured` only when every
    member's rate is measured and positive (a line through bounds or rejected laws measures nothing)."""
    return size_scaling({lm.name: rates[lm.name] for lm in ours}, {lm.name: lm.non_embedding_params for lm in ours})


def family_scaling(ours: list, test_sets: dict, *, min_prefix: int, max_tokens: int, k_min: int,
                   resamples: int, seed: int) -> tuple[dict, dict]:
    """Our family on every test set plus the pooled writing domains ("general"): each member's decay
    rates on its whole vocabulary, and per test set the log-log line of α on non-embedding size."""
    counts = family_counts(ours, test_sets, min_prefix=min_prefix, max_tokens=max_tokens)
    vocabularies = candidates({lm.name: lm for lm in ours})
    rates = {label: decay_rates(by_set, k_min, vocabularies[label], resamples, np.random.default_rng(seed))
             for label, by_set in counts.items()}
    return rates, family_lines(ours, rates)


def member_rows(ours: list, rates: dict) -> list[dict]:
    """Per member, smallest first: its sizes and vocabulary, its training record (steps, tokens, time,
    validation loss) and its general-domain decay rate with interval and status, side by side."""
    rows = []
    for lm in ours:
        general = rates[lm.name][GENERAL]
        rows.append({**model_rows({lm.name: lm})[lm.name], **{key: lm.record.get(key) for key in TRAINING_SUMMARY},
                     **{f"general_{key}": general[key] for key in ("alpha", "ci_low", "ci_high", "status",
                                                                     "events_in_range")}})
    return rows


def family_control(ours: list, rates: dict, *, k_min: int, resamples: int, seed: int) -> dict:
    """Fig. 12's statistics for the control: every member replaced by a uniformly random ranker over
    its vocabulary, for as many events on each test set as the member had (`rates`, from
    `family_scaling`; the general domain pooled from the writing domains' as for ours), fitted and
    lined up by the same code."""
    rng = controls.control_rng(seed)
    vocabularies = candidates({lm.name: lm for lm in ours})
    null = {lm.name: {name: controls.random_ranker_counts(vocabularies[lm.name], rng, n_events=row["events"])
                      for name, row in rates[lm.name].items() if name != GENERAL}
            for lm in ours}
    for by_set in null.values():
        by_set[GENERAL] = np.concatenate([by_set[name] for name in WRITING_LABELS if name in by_set])
    null_rates = {label: controls.null_decay_rates(by_set, k_min, vocabularies[label], resamples, rng)
                  for label, by_set in null.items()}
    lines = family_lines(ours, null_rates)
    return {"subject": controls.NULL_SUBJECT, "family_general": lines[GENERAL], "rising": rising_share(lines),
            "general_alphas": lines[GENERAL]["alphas"]}


def family_prediction(line: dict, timeline, hardware) -> tuple:
    """The paper's extrapolation applied to our family's line on one test set: (fit or None, values), with
    the size, year and cost at which α reaches 2 and 3, and how many decades beyond our largest member
    that is; no extrapolation unless every member's rate is measured and α rises with size."""
    from intellimetry.survival.study import levels_reached

    largest = max(line["sizes"])
    fit = fit_scaling(line["sizes"], line["alphas"]) if line["slope"] is not None else None
    rises = fit is not None and fit.slope > 0
    values = {"members": len(line["sizes"]), "fit": None if fit is None else fit.as_dict(),
              "decades_measured": line["decades"], "largest_params": largest, "unmeasured": line["unmeasured"],
              "statuses": line["statuses"], "measured": line["measured"], "rises": rises,
              "reaches_levels": bool(line["measured"] and rises)}
    if values["reaches_levels"]:
        for name, row in levels_reached(fit, timeline, hardware).items():
            values[name] = {**row, "decades_extrapolated": float(np.log10(row["params"] / largest))}
    values["summary"] = prediction_summary(values)
    return fit, values


def line_summary(line: dict) -> str:
    """A size line in one sentence, whatever the run found (the book quotes it)."""
    members = len(line["sizes"])
    kinds = sorted({status for status in line["statuses"] if status != "measured"})
    if line["slope"] is None:
        return (f"no log-log line: some of the {members} members' rates have no positive value "
                f"({', '.join(kinds) or 'a rate at or below zero'})")
    interval = line["slope_interval"]
    spread = f" [{interval[0]:+.4f}, {interval[1]:+.4f}]" if interval else ""
    rates = ("every member's rate measured" if line["measured"] else
             f"{line['unmeasured']} of the {members} members' rates not measured ({', '.join(kinds)})")
    return (f"log10 α rises {line['slope']:+.4f}{spread} per decade of parameters (p = {line['p']:.2g}, "
            f"R² = {line['r2']:.2f}) over {line['decades']:.1f} decades; {rates}")


def prediction_summary(values: dict) -> str:
    """The extrapolation in one sentence, whatever the run found (the book quotes it)."""
    if values["fit"] is None:
        return (f"a member's decay rate was not fitted or not positive ({', '.join(values['statuses'])}), "
                "so there is no log-log line to extend")
    if not values["measured"]:
        kinds = sorted({s for s in values["statuses"] if s != "measured"})
        return (f"{values['unmeasured']} of our {values['members']} members' rates are not measured "
                f"({', '.join(kinds)}), so the line (slope {values['fit']['slope']:+.3f}) is not extended")
    if not values["reaches_levels"]:
        return (f"α does not rise with size over our {values['members']} members "
                f"(slope {values['fit']['slope']:+.3f}), so no size reaches the Capable or Autonomous level")
    auto = values["autonomous"]
    return (f"α = 3 at N ≈ {auto['params']:.1e} non-embedding parameters (year {auto['year']:.0f}), "
            f"{auto['decades_extrapolated']:.1f} decades beyond our largest member, from a line measured "
            f"over {values['decades_measured']:.1f} decades")


def fit_quality(models: dict, counts: dict, k_min: int, k_max: int, bins_per_decade: int, resamples: int,
                seed: int = 0) -> dict:
    """Fig. 11 on real LM counts, keyed by subject role (SUBJECT_ROLES, in `models` order): the paper's
    least-squares line over [k_min, k_max] with its R² and attainable R², beside the bounded fit on each
    model's whole vocabulary [k_min, K-1] and its words (`fit_quality.line_fit_quality`, each rate's `summary`)."""
    from intellimetry.survival.fit_quality import line_fit_quality

    roles = dict(zip(SUBJECT_ROLES, models))
    vocabularies = candidates(models)
    return line_fit_quality({role: counts[label] for role, label in roles.items()},
                            {role: vocabularies[label] for role, label in roles.items()},
                            k_min, k_max, bins_per_decade, resamples, seed)


def fit_quality_control(models: dict, counts: dict, k_min: int, k_max: int, bins_per_decade: int, resamples: int,
                        seed: int = 0) -> dict:
    """`fit_quality` for the control: each model ({label: model}, its counts in `counts` under the same
    label) replaced by a uniformly random ranker over its vocabulary, for as many events per set."""
    null = controls.random_ranker_like(counts, candidates(models), controls.control_rng(seed))
    return {"subject": controls.NULL_SUBJECT,
            "lm_fit": fit_quality(models, null, k_min, k_max, bins_per_decade, resamples, seed)}


def recipe_plan(recipe: str) -> dict:
    """What a recipe trains, without training it: sizes, their non-embedding parameters (models built
    on torch's meta device, so nothing is allocated), steps and tokens per member."""
    import torch
    from transformers import GPT2LMHeadModel

    chosen = RECIPES[recipe]
    with torch.device("meta"):
        params = [scoring.non_embedding_parameters(GPT2LMHeadModel(family.model_config(
            size, chosen.vocab_size, 0, chosen.context))) for size in chosen.sizes]
    return {"recipe": recipe, "members": len(chosen.sizes), "non_embedding_params": params,
            "smallest": min(params), "largest": max(params), "decades": float(np.log10(max(params) / min(params))),
            "steps": chosen.steps, "context": chosen.context, "batch_size": chosen.batch_size,
            "vocab_size": chosen.vocab_size, "tokens_per_member": chosen.steps * chosen.batch_size * chosen.context}


def language_profiles() -> dict:
    """The language figures' shared settings per profile (notebooks/survival/_language.yaml, full and
    smoke over quick), so a page can state what the full profile runs beside what this build ran."""
    import yaml

    from intellimetry import paths

    profiles = yaml.safe_load(paths.project_file("notebooks/survival/_language.yaml").read_text())["profiles"]
    return {name: {**profiles["quick"], **(values or {})} for name, values in profiles.items()}
