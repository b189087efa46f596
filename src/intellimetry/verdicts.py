"""Reproduction verdicts: does our run support the paper's claim, by a criterion fixed in advance?

Every figure and table of every paper is an *item* in data/reference/<paper>/items.yaml with a `kind`:

    claim   an empirical result of the paper, something that could have come out otherwise
    check   a definition, identity or property of our implementation: computed and shown, never
            counted as a reproduction

An item our run covers names the figure that tests it and a `criterion` (intellimetry.criteria) set
from the paper's claim alone, before looking at our number, with `in_words` saying it for a reader. A
claim also has:

    measured         optional list of criteria, each with `means:` in words, that say what "measured"
                     means for it (events in range, an estimate off its bound, a non-degenerate output)
    conclusive_with  what would make an inconclusive run conclusive (profile, data, model)
    control          {values: <dotted key>, subject: <in words>}: the same statistics for a null subject
                     (random ranker, untrained network, shuffled labels...), computed in the same run
                     through the same code; the claim must fail for it
    no_control       instead of `control`: why no null makes sense
    qualitative      optional weaker criterion: "the direction holds"

A claim's verdict, in order:

    inconclusive     a `measured` condition fails, the criterion is undecided (an interval straddles
                     the line), or the control passes too: the run could not tell
    reproduced       the criterion holds for our subject and fails for its control
    qualitative      it does not, but the qualitative criterion does (and fails for the control)
    not reproduced   neither holds while the measurement worked: our run contradicts the paper (a
                     qualitative reading whose interval straddles its line is noted, not counted)

A check's verdict is `holds`, `fails` or `inconclusive` (undecided).

A chapter that is not a paper (a study, intellimetry.STUDIES) makes claims of its own: items of kind

    finding  a claim of this book, not of a paper: judged exactly as a claim (`measured`, criterion,
             `control` that must fail, `conclusive_with`) but never a reproduction, and without a
             `qualitative` criterion (no paper's size to fall short of)

whose verdict is `supported` (where a claim's would be reproduced), `not supported` (not reproduced)
or `inconclusive` (the same rules).
"""
from __future__ import annotations

from collections.abc import Mapping

from intellimetry import paths
from intellimetry.criteria import (  # noqa: F401 (re-exported: the book and tests read them from here)
    FAILS,
    HOLDS,
    TESTS,
    UNDECIDED,
    CriterionError,
    judge,
    keys_read,
    value_at,
)

REPRODUCED, QUALITATIVE, NOT_REPRODUCED, INCONCLUSIVE = "reproduced", "qualitative", "not reproduced", "inconclusive"
VERDICTS = (REPRODUCED, QUALITATIVE, NOT_REPRODUCED, INCONCLUSIVE)
CHECK_VERDICTS = (HOLDS, FAILS, INCONCLUSIVE)
SUPPORTED, NOT_SUPPORTED = "supported", "not supported"
FINDING_VERDICTS = (SUPPORTED, NOT_SUPPORTED, INCONCLUSIVE)
CLAIM, CHECK, FINDING = "claim", "check", "finding"
KINDS = (CLAIM, CHECK, FINDING)
# A claim's or a finding's verdict when its criterion holds / fails on a working measurement.
HELD_OR_FAILED = {CLAIM: (REPRODUCED, NOT_REPRODUCED), FINDING: (SUPPORTED, NOT_SUPPORTED)}
# An item is covered by one of our figures, waits for a later issue, or is not a result at all.
COVERED, NOT_YET, NOT_A_RESULT = "covered", "not yet", "not a result"
STATUS_KEYS = {"figure": COVERED, "not_yet": NOT_YET, "not_a_result": NOT_A_RESULT}
ITEMS_FILE = "items.yaml"
CANNOT_TELL = "the criterion cannot tell a null from a result: it holds for the control too"


def item_status(item: Mapping) -> str:
    """covered, not yet or not a result: exactly one of `figure`, `not_yet`, `not_a_result`."""
    present = [key for key in STATUS_KEYS if item.get(key)]
    if len(present) != 1:
        raise CriterionError(f"item {item.get('id')!r} needs exactly one of {', '.join(STATUS_KEYS)}; "
                             f"has {present or 'none'}")
    return STATUS_KEYS[present[0]]


def item_kind(item: Mapping) -> str:
    kind = item.get("kind")
    if kind not in KINDS:
        raise CriterionError(f"item {item.get('id')!r} needs kind: claim, check or finding (with kind_reason), "
                             f"got {kind!r}")
    return kind


def verdict(item: Mapping, values: Mapping) -> dict:
    """The verdict record of one covered item (see the module's docstring for the order of rules)."""
    if "criterion" not in item:
        raise CriterionError(f"item {item['id']!r} names figure {item['figure']!r} but has no criterion")
    kind = item_kind(item)
    if kind == FINDING and "qualitative" in item:
        raise CriterionError(f"finding {item['id']!r} has a `qualitative` criterion: a finding of this book is "
                             "supported or not by its criterion alone (remove it, or make it a finding of its own)")
    state, ours, words = judge(item["criterion"], values)
    record = {"label": item["label"], "kind": kind, "ours": ours, "criterion": words,
              "in_words": " ".join(str(item.get("in_words", words)).split())}
    if kind == CHECK:
        record["verdict"] = {HOLDS: HOLDS, FAILS: FAILS, UNDECIDED: INCONCLUSIVE}[state]
        return record
    control = _control(item, values)
    record.update(control)
    unmeasured = _unmeasured(item, values)
    if unmeasured:
        return _inconclusive(record, item, "not measured: " + "; ".join(unmeasured))
    if state == UNDECIDED:
        return _inconclusive(record, item, f"the interval includes no difference ({words})")
    if control.get("control", {}).get("outcome") == HOLDS:
        return _inconclusive(record, item, CANNOT_TELL)
    held, failed = HELD_OR_FAILED[kind]
    record["verdict"] = held if state == HOLDS else failed
    if state == FAILS and "qualitative" in item:
        q_state, q_ours, q_words = judge(item["qualitative"], values)
        record.update(qualitative_criterion=q_words, qualitative_ours=q_ours)
        if q_state == HOLDS:
            if _control_state(item, values, "qualitative") == HOLDS:
                return _inconclusive(record, item, "the qualitative criterion holds for the control too")
            record["verdict"] = QUALITATIVE
        elif q_state == UNDECIDED:
            # the claim's own criterion failed on a working measurement: that stands, and the weaker
            # reading's straddling interval is said beside it
            record["qualitative_note"] = f"the qualitative reading's interval includes no difference ({q_words})"
    return record


def _inconclusive(record: dict, item: Mapping, reason: str) -> dict:
    record.update(verdict=INCONCLUSIVE, reason=reason)
    if item.get("conclusive_with"):
        record["conclusive_with"] = " ".join(str(item["conclusive_with"]).split())
    return record


def _control_values(item: Mapping, values: Mapping):
    try:
        control_values = value_at(values, item["control"]["values"])
    except KeyError as err:
        raise CriterionError(f"the control's values: {err.args[0]}; recorded: {sorted(values)}") from None
    if not isinstance(control_values, Mapping):
        raise CriterionError(f"the control's values {item['control']['values']!r} must be a mapping")
    return control_values


def _control_state(item: Mapping, values: Mapping, which: str = "criterion") -> str | None:
    if "control" not in item:
        return None
    return judge(item[which], _control_values(item, values))[0]


def _control(item: Mapping, values: Mapping) -> dict:
    """{'control': {subject, outcome, ours}} or {'no_control': why}; a claim must have one of them."""
    if "control" in item:
        control = item["control"]
        if not isinstance(control, Mapping) or not control.get("values") or not control.get("subject"):
            raise CriterionError(f"item {item['id']!r}: control needs `values` (a dotted key) and `subject`")
        state, ours, _ = judge(item["criterion"], _control_values(item, values))
        return {"control": {"subject": " ".join(str(control["subject"]).split()), "outcome": state, "ours": ours}}
    if item.get("no_control"):
        return {"no_control": " ".join(str(item["no_control"]).split())}
    raise CriterionError(f"{item['kind']} {item['id']!r} needs a `control` (a null subject's values) or "
                         "`no_control` (why none)")


def _unmeasured(item: Mapping, values: Mapping) -> list[str]:
    """What the run failed to measure: the `means` of every `measured` condition that does not hold."""
    missing = []
    for condition in item.get("measured", []):
        if not condition.get("means"):
            raise CriterionError(f"item {item['id']!r}: every `measured` condition needs `means` (in words)")
        state, ours, _ = judge(condition, values)
        if state != HOLDS:
            missing.append(f"{condition['means']} (ours: {_short(ours)})")
    return missing


def _short(value) -> str:
    if isinstance(value, float):
        return f"{value:.3g}"
    if isinstance(value, Mapping):
        return ", ".join(f"{k} {_short(v)}" for k, v in value.items())
    if isinstance(value, list):
        return ", ".join(_short(v) for v in value)
    return "yes" if value is True else "no" if value is False else str(value)


def load_items(paper: str) -> dict:
    """A paper's item registry (data/reference/<paper>/items.yaml), its items checked for a status."""
    registry = paths.load_reference(f"{paper}/{ITEMS_FILE}")
    for item in registry["items"]:
        item_status(item)
    return registry


def judge_figure(fig_id: str, values: Mapping, registry: Mapping | None = None) -> dict:
    """{item id: verdict record} for every item of the figure's paper that names this figure.

    A paper without an items.yaml has no items (e.g. a test project); a criterion that names a value
    the figure did not record is an error, so a notebook cannot silently drop a checked number.
    """
    if registry is None:
        paper = paths.paper_of(fig_id)
        if not paths.reference_exists(f"{paper}/{ITEMS_FILE}"):
            return {}
        registry = load_items(paper)
    records = {}
    for item in registry["items"]:
        if item.get("figure") == fig_id:
            try:
                records[item["id"]] = verdict(item, values)
            except CriterionError as err:
                raise CriterionError(f"{fig_id}, item {item['id']} ({item['label']}): {err}") from None
    return records
