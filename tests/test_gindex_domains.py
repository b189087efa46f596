"""The 16 task-domain generators: well-formed flows, seeded determinism, slots in text and flow, Δ structure."""
from __future__ import annotations

import itertools
import json
import os
import random
import re
import subprocess
import sys
from collections import Counter

import numpy as np
import pytest

from intellimetry.gindex import divergence, domain_distance_matrix, parse_flow
from intellimetry.gindex.divergence import IGNORED_KEYS
from intellimetry.gindex.domains import (
    DOMAINS,
    Task,
    describe_cron,
    generate_corpus,
    generate_task,
    generate_tasks,
    task_from_json,
    task_to_json,
)

APPENDIX_A = [
    "cron-reminder", "cron-schedule", "facebook", "gmail-send", "google-search", "googlesearch-to-csv", "http",
    "telegram-2-reply", "telegram-3-reply", "template-form", "template-slider", "twitter", "url-skill",
    "youtube-pause", "youtube-play", "youtube-resume",
]
NODE_ID = re.compile(r"^[0-9a-f]{8}\.[0-9a-f]{6}$")


def nodes_of(task: Task, type_: str) -> list[dict]:
    """The task's nodes of one type, in flow order."""
    return [node for node in task.flow if node["type"] == type_]


def one(task: Task, type_: str) -> dict:
    """The task's only node of a type."""
    (node,) = nodes_of(task, type_)
    return node


def signature(task: Task) -> str:
    """The flow's node types and compared property values, without ids, positions or id references."""
    ids = {node["id"] for node in task.flow}
    rows = [(node["type"], {k: v for k, v in node.items() if k not in IGNORED_KEYS and not (
        isinstance(v, str) and v in ids)}) for node in task.flow]
    return json.dumps(rows, sort_keys=True)


def types(task: Task) -> tuple:
    """The sorted node types of a flow (its structure, up to wiring)."""
    return tuple(sorted(node["type"] for node in task.flow))


# ---------------------------------------------------------------- slot extractors: flow value -> text in the spec

def chat_slots(task: Task) -> list[str]:
    """Questions, answers, bot name and users of a reply bot."""
    config = next(node for node in task.flow if node["type"].endswith("-node"))
    values = [rule["v"] for rule in one(task, "switch")["rules"]]
    values += [node["message"][0]["message"] for node in nodes_of(task, "chatbot-message")]
    values += [config["botname"]] if config["botname"] else []
    return values + [user for user in config["usernames"].split(",") if user]


def search_queries(task: Task) -> list[str]:
    """The search terms the 'Set Search Terms' change node writes (a JSON list)."""
    return json.loads(nodes_of(task, "change")[0]["rules"][0]["to"])


def http_slots(task: Task) -> list[str]:
    """Path, method, status code and reply text of an HTTP endpoint."""
    endpoint, response = one(task, "http in"), one(task, "http response")
    values = [endpoint["url"].lstrip("/"), endpoint["method"].upper()]
    values += [response["statusCode"]] if response["statusCode"] else []
    return values + [rule["to"] for node in nodes_of(task, "change") for rule in node["rules"]]


def youtube_control_slots(task: Task) -> list[str]:
    """Only the non-default slots are named: which tab (ordinal) and whether it is YouTube Music."""
    tab = int(re.fullmatch(r"tabs\[(\d)\]\.id", one(task, "maya-browser-execute-function")["tabId"]).group(1))
    music = "music.youtube.com" in one(task, "maya-browser-find-tab")["query"]
    return ([["first", "second", "third"][tab]] if tab else []) + (["Music"] if music else [])


def cron_slots(task: Task) -> list[str]:
    """Schedule description, topic (reminders), time zone and text payload of a cron-plus node."""
    node = one(task, "cronplus")
    option = node["options"][0]
    values = [describe_cron(option["expression"])] + ([node["timeZone"]] if node["timeZone"] else [])
    values += [option["topic"]] if task.domain == "cron-reminder" else []
    return values + ([option["payload"]] if option["payload"] else [])


SLOTS = {
    "cron-reminder": cron_slots,
    "cron-schedule": cron_slots,
    "facebook": chat_slots,
    "gmail-send": lambda t: [rule["to"] for rule in one(t, "change")["rules"]],
    "google-search": search_queries,
    "googlesearch-to-csv": lambda t: search_queries(t) + [one(t, "file")["filename"]],
    "http": http_slots,
    "telegram-2-reply": chat_slots,
    "telegram-3-reply": chat_slots,
    "template-form": lambda t: [o["label"].lower() for o in one(t, "ui_form")["options"]],
    "template-slider": lambda t: [f"{nodes_of(t, 'ui_slider')[0][key]:g}" for key in ("min", "max")],
    "twitter": lambda t: one(t, "twitter in")["tags"].split(","),
    "url-skill": lambda t: [one(t, "bot-intent")["options"][0]["value"], one(t, "change")["rules"][0]["to"]],
    "youtube-pause": youtube_control_slots,
    "youtube-play": lambda t: [one(t, "change")["rules"][0]["to"]],
    "youtube-resume": youtube_control_slots,
}


# ---------------------------------------------------------------- tests

def test_domains_are_the_sixteen_of_appendix_a_in_order():
    assert DOMAINS == tuple(APPENDIX_A)
    assert set(SLOTS) == set(DOMAINS)


@pytest.mark.parametrize("domain", DOMAINS)
def test_every_flow_is_a_node_red_dag_on_one_tab(domain):
    for seed in (0, 1):
        for task in generate_tasks(domain, 25, seed):
            assert task.domain == domain
            assert isinstance(task.spec, str) and task.spec.strip() and "{" not in task.spec
            graph = parse_flow(task.flow)  # raises on duplicate ids, dangling wires and cycles
            assert len(graph) == len(task.flow)
            (tab,) = [node for node in task.flow if node["type"] == "tab"]
            for node in task.flow:
                assert NODE_ID.match(node["id"]), node["id"]
                if node is not tab:
                    assert node["z"] == tab["id"]
                    assert isinstance(node["x"], float) and isinstance(node["y"], float)
                    assert isinstance(node["wires"], list)


def test_same_seed_gives_the_same_tasks_and_longer_runs_extend_shorter_ones():
    for domain in DOMAINS:
        tasks = generate_tasks(domain, 6, 11)
        assert tasks == generate_tasks(domain, 6, 11)
        assert generate_tasks(domain, 3, 11) == tasks[:3]
        assert generate_tasks(domain, 0, 11) == []
        assert [t.flow for t in generate_tasks(domain, 6, 12)] != [t.flow for t in tasks]


def test_corpus_streams_depend_only_on_seed_and_domain():
    corpus = generate_corpus(DOMAINS, 4, 3)
    assert list(corpus) == list(DOMAINS)
    assert all(corpus[d] == generate_tasks(d, 4, 3) for d in DOMAINS)
    # a corpus over fewer domains, in another order, leaves each domain's tasks unchanged
    assert generate_corpus(["twitter", "http"], 4, 3) == {"twitter": corpus["twitter"], "http": corpus["http"]}
    # the streams of different domains are not copies of one another
    assert corpus["youtube-pause"][0].flow[0]["id"] != corpus["youtube-resume"][0].flow[0]["id"]


def test_generate_task_draws_from_the_given_rng():
    assert generate_task("http", random.Random(5)) == generate_task("http", random.Random(5))
    rng = random.Random(5)
    assert generate_task("http", rng) != generate_task("http", rng)


def test_streams_do_not_depend_on_the_string_hash_salt():
    code = ("from intellimetry.gindex.domains import generate_tasks; "
            "t = generate_tasks('facebook', 2, 7)[1]; print(t.spec, t.flow[0]['id'])")
    outputs = {subprocess.run([sys.executable, "-c", code], env={**os.environ, "PYTHONHASHSEED": salt},
                              capture_output=True, text=True, check=True).stdout for salt in ("1", "2")}
    task = generate_tasks("facebook", 2, 7)[1]
    assert outputs == {f"{task.spec} {task.flow[0]['id']}\n"}


@pytest.mark.parametrize("domain", DOMAINS)
def test_draws_differ_in_slot_values_but_mostly_share_node_types(domain):
    tasks = generate_tasks(domain, 12, 0)
    assert len({signature(t) for t in tasks}) >= 4  # the known unknowns change from draw to draw
    _, most = Counter(types(t) for t in tasks).most_common(1)[0]
    assert most >= 6 or domain == "template-slider"  # slider counts vary by design (2..8)


def test_structure_varies_only_where_designed():
    varying = {d for d in DOMAINS if len({types(t) for t in generate_tasks(d, 40, 0)}) > 1}
    assert varying == {"http", "template-slider"}
    slider_counts = {len(nodes_of(t, "ui_slider")) for t in generate_tasks("template-slider", 40, 0)}
    assert slider_counts <= set(range(2, 9)) and len(slider_counts) >= 4


@pytest.mark.parametrize("domain", DOMAINS)
def test_slot_values_appear_in_both_spec_and_flow(domain):
    named = 0
    for task in generate_tasks(domain, 30, 5):
        values = SLOTS[domain](task)
        for value in values:
            assert value and value in task.spec, (value, task.spec)
        named += bool(values)
    # every draw names its slots, except pause/resume, whose defaults (first tab, YouTube) go unsaid
    assert named == 30 or (domain.startswith("youtube-") and named >= 5)


def test_slots_are_where_the_samples_put_them():
    cron = one(generate_tasks("cron-reminder", 1, 0)[0], "cronplus")
    assert len(cron["options"][0]["expression"].split()) == 5
    form = one(generate_tasks("template-form", 1, 0)[0], "ui_form")
    assert set(form["formValue"]) == {o["value"] for o in form["options"]}
    intent = one(generate_tasks("url-skill", 1, 0)[0], "bot-intent")
    assert intent["endpointUrl"] == "/intent-" + intent["id"].replace(".", "-")
    chat = generate_tasks("telegram-3-reply", 1, 0)[0]
    switch = one(chat, "switch")
    assert switch["outputs"] == 3 and len(switch["wires"]) == 3
    # port k of the switch leads to the k-th answer
    answers = {node["id"]: node["message"][0]["message"] for node in nodes_of(chat, "chatbot-message")}
    assert [answers[port[0]] for port in switch["wires"]] == chat_slots(chat)[3:6]


def test_within_domain_divergence_is_below_cross_domain_divergence():
    corpus = generate_corpus(DOMAINS, 3, 0)
    graphs = {d: [parse_flow(t.flow) for t in tasks] for d, tasks in corpus.items()}
    assert all(divergence(g, g) == 0.0 for gs in graphs.values() for g in gs)
    within = {d: np.mean([divergence(a, b) for a, b in itertools.permutations(gs, 2)]) for d, gs in graphs.items()}
    names, omega = domain_distance_matrix(graphs)
    assert names == list(DOMAINS)
    cross = omega[~np.eye(len(names), dtype=bool)]
    # measured: mean within ≈ 0.2, mean cross ≈ 0.9 (the 32 sample flows give 0.16 and 0.90)
    assert np.mean(list(within.values())) < 0.35 < 0.8 < cross.mean()
    for a, name in enumerate(names):
        row = np.delete(omega[a], a)
        assert within[name] < row.mean(), name
    # the nearest pair of domains: pause and resume differ only in the function called
    pause, resume = names.index("youtube-pause"), names.index("youtube-resume")
    assert 0 < omega[pause, resume] < 0.3


@pytest.mark.parametrize("expression, text", [
    ("30 8 * * 1", "at 08:30 AM, only on Monday"),
    ("0 0 1 1 *", "at 12:00 AM, on day 1 of the month, only in January"),
    ("*/15 9-17 * * 1-5", "every 15 minutes, between 09:00 AM and 05:59 PM, Monday through Friday"),
    ("5/20 * 2,9,16 * *", "every 20 minutes, starting at 5 minutes past the hour, on day 2, 9, and 16 of the month"),
    ("0 */6 * 3-8 *", "at the top of the hour, every 6 hours, March through August"),
    ("45 13 */3 */2 *", "at 01:45 PM, every 3 days, every 2 months"),
    ("* 22 * * 0,6", "every minute, between 10:00 PM and 10:59 PM, only on Sunday and Saturday"),
])
def test_describe_cron_known_answers(expression, text):
    assert describe_cron(expression) == text


@pytest.mark.parametrize("bad", ["* * * *", "61 * * * *", "x * * * *", "* * * * 7", "5-1 * * * *"])
def test_describe_cron_rejects_what_it_cannot_describe(bad):
    with pytest.raises(ValueError):
        describe_cron(bad)


def test_json_round_trip():
    for domain in DOMAINS:
        for task in generate_tasks(domain, 3, 2):
            record = task_to_json(task)
            assert set(record) == {"domain", "text", "flow"} and record["text"] == task.spec
            assert task_from_json(json.loads(json.dumps(record))) == task
    record = task_to_json(generate_tasks("http", 1, 0)[0])
    record["flow"][0]["url"] = "/changed"  # the record is a copy, not a view of the task
    assert task_from_json(record) != generate_tasks("http", 1, 0)[0]
    with pytest.raises(ValueError, match="text"):
        task_from_json({"domain": "http", "flow": []})
    with pytest.raises(ValueError, match="'sudoku'"):
        task_from_json({"domain": "sudoku", "text": "x", "flow": []})


@pytest.mark.parametrize("call", [
    lambda: generate_tasks("sudoku", 3, 0),
    lambda: generate_task("sudoku", random.Random(0)),
    lambda: generate_corpus(["http", "sudoku"], 3, 0),
])
def test_unknown_domain_names_the_value_and_the_allowed_ones(call):
    with pytest.raises(ValueError) as err:
        call()
    assert "'sudoku'" in str(err.value) and all(domain in str(err.value) for domain in DOMAINS)


def test_negative_n_is_refused():
    with pytest.raises(ValueError, match="-1"):
        generate_tasks("http", -1, 0)
    with pytest.raises(ValueError):
        generate_corpus(DOMAINS, -2, 0)
