"""Seeded generators for the 16 task domains of the g-index paper (Venkatasubramanian et al. 2021, Appendix A).

A domain is a family of tasks that share one program structure and differ in the values of a few slots:
times and cron schedules, search queries, chat messages, e-mail fields, URLs, file names, hashtags, bot
and user names, slider ranges, form fields.  Each draw fills the slots from a `random.Random` and returns
a pair (English task specification, reference Node-RED flow) in which the slot values appear in the
node properties (cron expression, reminder topic, switch rules, query, URL, file name, ...), so that a
program-synthesis model could copy them from the text: the "known unknowns" of level-1 generalisation.

The node types, property keys and wiring follow the Node-RED node packages that the paper's programs use
(node-red, node-red-contrib-cron-plus, node-red-contrib-chatbot, node-red-node-twitter and the authors'
maya-red-* packages).  The sentence templates, vocabularies, value pools, selectors and functions are this
project's own: they are not the authors' data set, and nothing here reads it.
"""
from __future__ import annotations

import copy
import hashlib
import json
import operator
import random
from dataclasses import dataclass

DOMAINS: tuple[str, ...] = (
    "cron-reminder", "cron-schedule", "facebook", "gmail-send", "google-search", "googlesearch-to-csv",
    "http", "telegram-2-reply", "telegram-3-reply", "template-form", "template-slider", "twitter",
    "url-skill", "youtube-pause", "youtube-play", "youtube-resume",
)


@dataclass(frozen=True)
class Task:
    """One task: its domain, English specification and reference flow (a list of Node-RED node dicts)."""

    domain: str
    spec: str
    flow: list  # includes one "tab" node; every other node has "z" (the tab id), "x", "y" and "wires"


# ---------------------------------------------------------------- vocabularies (the project's own)

_NOUNS = (
    "lantern harbor meadow pepper violin glacier compass orchard ribbon falcon quartz saddle thimble walnut "
    "canyon beacon biscuit cactus dolphin ember feather garnet hammock jasmine kettle lagoon marble oyster "
    "pebble quilt raven satchel tundra umbrella velvet willow yarn anchor blossom candle daisy engine "
    "fountain gadget horizon island jigsaw kayak ladder mosaic notebook orbit puzzle riddle scooter teapot "
    "tractor voyage whistle almond bracelet cobalt drizzle easel gravel helmet jacket koala lemon mitten "
    "nutmeg otter parcel rocket sparrow tulip wagon button cabin dune forest garden harvest journal kitchen "
    "library mountain napkin ocean piano river summit tiger valley window planet meteor comet station "
    "bridge tunnel market festival recipe budget invoice meeting report project deadline seminar lecture "
    "workshop concert holiday birthday dentist groceries laundry parking payroll backup server sprint "
    "review launch webinar podcast newsletter playlist"
).split()
_ADJECTIVES = (
    "amber brave calm dusty eager fuzzy gentle hollow icy jolly keen lively mellow nimble olive polished "
    "quiet rapid silent tidy urban vivid warm young zesty ancient bright crisp daring early fancy golden "
    "humble loyal modern narrow proud rustic shiny tender vast wild weekly daily monthly urgent"
).split()
_VERBS = (
    "check water call book renew pay send clean review update feed pack order print submit visit plan "
    "cancel collect prepare"
).split()
_WORDS = _NOUNS + _ADJECTIVES + _VERBS
_FIRST_NAMES = (
    "alice bruno chen dara elena farid greta hiro ines jonas kofi lena mateo nadia omar priya quinn rosa "
    "sven tomas uma vera wei yusuf zoe"
).split()
_LAST_NAMES = (
    "adams berg costa diaz evans fischer garcia haddad ito jensen kim lopez moreau novak okafor patel "
    "rossi silva tanaka varga weber xu young zhang"
).split()
_TLDS = ("com", "org", "net", "io", "dev", "co.uk", "edu")
_TIME_ZONES = ("Europe/Berlin", "America/New_York", "Asia/Tokyo", "Australia/Sydney", "Africa/Lagos",
               "America/Sao_Paulo", "Asia/Kolkata", "Europe/London")
_HTTP_METHODS = ("get", "post", "put", "delete", "patch")
_STATUS_CODES = ("200", "201", "202", "204", "400", "404")
_FORM_FIELDS = (
    ("name", "text"), ("first name", "text"), ("last name", "text"), ("email address", "email"),
    ("password", "password"), ("age", "number"), ("height", "number"), ("weight", "number"),
    ("price", "number"), ("quantity", "number"), ("score", "number"), ("rating", "number"),
    ("date of birth", "date"), ("start date", "date"), ("due date", "date"), ("date of submission", "date"),
    ("appointment time", "time"), ("comments", "multiline"), ("address", "multiline"),
    ("description", "multiline"), ("notes", "multiline"), ("phone number", "text"), ("city", "text"),
    ("company", "text"), ("country", "text"), ("website", "text"), ("title", "text"),
    ("newsletter", "checkbox"), ("terms accepted", "checkbox"), ("dark mode", "switch"),
)
_NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
_ORDINALS = ("first", "second", "third", "fourth", "fifth")
_MONTHS = ("", "January", "February", "March", "April", "May", "June", "July", "August", "September",
           "October", "November", "December")
_DAYS = ("Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday")

# module names of the node packages
_RED, _CHATBOT, _BROWSER = "node-red", "node-red-contrib-chatbot", "maya-red-browser-automation"
_SYSTEM, _DASHBOARD = "maya-red-system-utils", "maya-red-dashboard"


def _words(rng: random.Random, lo: int, hi: int) -> str:
    """A phrase of lo..hi random words."""
    return " ".join(rng.sample(_WORDS, rng.randint(lo, hi)))


def _topic(rng: random.Random) -> str:
    """A short reminder topic or skill name."""
    form = rng.randrange(4)
    if form == 0:
        return f"{rng.choice(_VERBS)} the {rng.choice(_NOUNS)}"
    if form == 1:
        return f"{rng.choice(_ADJECTIVES)} {rng.choice(_NOUNS)}"
    if form == 2:
        return f"{rng.choice(_VERBS)} {rng.choice(_ADJECTIVES)} {rng.choice(_NOUNS)}"
    return _words(rng, 1, 5)


def _distinct(rng: random.Random, k: int, make) -> list:
    """k distinct values of make(rng), in draw order."""
    values = []
    while len(values) < k:
        value = make(rng)
        if value not in values:
            values.append(value)
    return values


def _listing(items) -> str:
    """'a', 'a and b', 'a, b, and c'."""
    items = [str(item) for item in items]
    if len(items) <= 2:
        return " and ".join(items)
    return ", ".join(items[:-1]) + ", and " + items[-1]


def _clauses(items) -> str:
    """Clauses joined as 'a, and b' or 'a, b, and c'."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + ", and " + items[-1]


def _domain_name(rng: random.Random) -> str:
    """A host name such as 'golden-harbor.org'."""
    words = [rng.choice(_WORDS) for _ in range(rng.randint(1, 2))]
    return "-".join(words) + "." + rng.choice(_TLDS)


def _email(rng: random.Random) -> str:
    """An e-mail address."""
    local = f"{rng.choice(_FIRST_NAMES)}.{rng.choice(_LAST_NAMES)}"
    if rng.random() < 0.4:
        local += str(rng.randint(1, 99))
    return f"{local}@{_domain_name(rng)}"


def _url(rng: random.Random) -> str:
    """A web address, sometimes with a path."""
    url = "https://" + ("www." if rng.random() < 0.3 else "") + _domain_name(rng)
    if rng.random() < 0.4:
        url += "/" + "-".join(rng.choice(_NOUNS) for _ in range(rng.randint(1, 2)))
    return url


def _hashtag(rng: random.Random) -> str:
    """A hashtag, e.g. '#lantern' or '#GoldenHarbor'."""
    if rng.random() < 0.5:
        return "#" + rng.choice(_NOUNS)
    return "#" + rng.choice(_ADJECTIVES).capitalize() + rng.choice(_NOUNS).capitalize()


def _file_name(rng: random.Random) -> str:
    """A CSV file name."""
    if rng.random() < 0.3:
        return f"{rng.choice(_NOUNS)}_{rng.randint(2015, 2030)}.csv"
    return f"{rng.choice(_WORDS)}-{rng.choice(_NOUNS)}.csv"


def _user_name(rng: random.Random) -> str:
    """A chat user name."""
    return rng.choice(_FIRST_NAMES) + (str(rng.randint(1, 99)) if rng.random() < 0.5 else "")


def _number(value: float) -> str:
    """A number as written in a sentence: 60.0 -> '60', 0.5 -> '0.5'."""
    return f"{value:g}"


# ---------------------------------------------------------------- cron schedules

def _cron_field(rng: random.Random, form: str, lo: int, hi: int, steps) -> str:
    """One cron field of the given form ('any', 'one', 'list', 'range', 'step') over lo..hi."""
    if form == "any":
        return "*"
    if form == "one":
        return str(rng.randint(lo, hi))
    if form == "list":
        return ",".join(map(str, sorted(rng.sample(range(lo, hi + 1), rng.randint(2, 4)))))
    if form == "range":
        first, last = sorted(rng.sample(range(lo, hi + 1), 2))
        return f"{first}-{last}"
    step = rng.choice(steps)
    return f"{'*' if rng.random() < 0.5 else rng.randint(lo, min(hi, lo + 2 * step))}/{step}"


def _pick(rng: random.Random, weights: dict) -> str:
    """A key of weights, drawn with those weights."""
    return rng.choices(list(weights), weights=list(weights.values()))[0]


def random_cron(rng: random.Random) -> str:
    """A five-field cron expression (minute hour day-of-month month day-of-week); at most one day field set."""
    minute = _pick(rng, {"one": 5, "any": 1, "step": 2, "range": 2, "list": 2})
    if minute == "one":
        hour = _pick(rng, {"one": 5, "any": 1, "range": 2, "step": 1})
    else:
        hour = _pick(rng, {"any": 3, "one": 1, "range": 3})
    day = _pick(rng, {"none": 3, "dom": 3, "dow": 4})  # cron ORs the two day fields, so set only one
    dom = _pick(rng, {"one": 2, "list": 2, "range": 2, "step": 1}) if day == "dom" else "any"
    dow = _pick(rng, {"one": 3, "list": 2, "range": 2}) if day == "dow" else "any"
    month = _pick(rng, {"any": 5, "one": 2, "list": 1, "range": 2, "step": 1})
    return " ".join([
        _cron_field(rng, minute, 0, 59, (5, 10, 15, 20, 30)), _cron_field(rng, hour, 0, 23, (2, 3, 4, 6, 8)),
        _cron_field(rng, dom, 1, 31, (2, 3, 5, 7, 10)), _cron_field(rng, month, 1, 12, (2, 3, 4, 6)),
        _cron_field(rng, dow, 0, 6, (2, 3)),
    ])


def _parse_field(text: str, lo: int, hi: int) -> tuple:
    """A cron field as (form, values): any (), one (v,), list (v, ...), range (a, b), step (a or None, s)."""
    try:
        if text == "*":
            return "any", ()
        if "/" in text:
            start, step = text.split("/")
            form, values = "step", (None if start == "*" else int(start), int(step))
            checked = [] if start == "*" else [values[0]]
            if values[1] < 1:
                raise ValueError
        elif "-" in text:
            form, values = "range", tuple(int(v) for v in text.split("-"))
            checked = values
            if len(values) != 2 or values[0] > values[1]:
                raise ValueError
        else:
            values = tuple(int(v) for v in text.split(","))
            form, checked = ("list" if len(values) > 1 else "one"), values
    except ValueError:
        raise ValueError(f"unsupported cron field {text!r}") from None
    if any(not lo <= v <= hi for v in checked):
        raise ValueError(f"cron field {text!r} is outside {lo}-{hi}")
    return form, values


def _clock(hour: int, minute: int) -> str:
    """12-hour clock time: (8, 30) -> '08:30 AM', (0, 5) -> '12:05 AM', (17, 0) -> '05:00 PM'."""
    return f"{(hour % 12) or 12:02d}:{minute:02d} {'AM' if hour < 12 else 'PM'}"


def _describe_minute(form: str, values: tuple) -> str:
    """English for the minute field."""
    if form == "any":
        return "every minute"
    if form in ("one", "list"):
        return "at the top of the hour" if values == (0,) else f"at {_listing(values)} minutes past the hour"
    if form == "range":
        return f"minutes {values[0]} through {values[1]} past the hour"
    start, step = values
    return f"every {step} minutes" + ("" if start is None else f", starting at {start} minutes past the hour")


def _describe_hour(form: str, values: tuple) -> str:
    """English for the hour field (when it is not folded into a clock time)."""
    if form == "one":
        return f"between {_clock(values[0], 0)} and {_clock(values[0], 59)}"
    if form == "range":
        return f"between {_clock(values[0], 0)} and {_clock(values[1], 59)}"
    if form == "list":
        return "during the hours starting at " + _listing(_clock(h, 0) for h in values)
    start, step = values
    return f"every {step} hours" + ("" if start is None else f", starting at {_clock(start, 0)}")


def _describe_day(form: str, values: tuple) -> str:
    """English for the day-of-month field."""
    if form in ("one", "list"):
        return f"on day {_listing(values)} of the month"
    if form == "range":
        return f"between day {values[0]} and {values[1]} of the month"
    start, step = values
    return f"every {step} days" + ("" if start is None else f", starting on day {start} of the month")


def _describe_named(form: str, values: tuple, names: tuple, unit: str, single: str) -> str:
    """English for the month or day-of-week field (values are indices into names)."""
    if form in ("one", "list"):
        return f"{single} {_listing(names[v] for v in values)}"
    if form == "range":
        return f"{names[values[0]]} through {names[values[1]]}"
    start, step = values
    return f"every {step} {unit}" + ("" if start is None else f", starting {single.split()[-1]} {names[start]}")


def describe_cron(expression: str) -> str:
    """The English description of a five-field cron expression that the specifications use."""
    fields = expression.split()
    if len(fields) != 5:
        raise ValueError(f"need a five-field cron expression, got {expression!r}")
    bounds = ((0, 59), (0, 23), (1, 31), (1, 12), (0, 6))
    minute, hour, dom, month, dow = (_parse_field(f, lo, hi) for f, (lo, hi) in zip(fields, bounds))
    if minute[0] == "one" and hour[0] == "one":
        parts = [f"at {_clock(hour[1][0], minute[1][0])}"]
    else:
        parts = [_describe_minute(*minute)] + ([] if hour[0] == "any" else [_describe_hour(*hour)])
    if dom[0] != "any":
        parts.append(_describe_day(*dom))
    if dow[0] != "any":
        parts.append(_describe_named(*dow, _DAYS, "days of the week", "only on"))
    if month[0] != "any":
        parts.append(_describe_named(*month, _MONTHS, "months", "only in"))
    return ", ".join(parts)


# ---------------------------------------------------------------- flow construction

class _Flow:
    """A flow under construction on one tab; node ids and positions are drawn from the rng."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.used = set()
        self.tab = self.new_id()
        self.nodes, self.configs, self.by_id, self.place = [], [], {}, {}

    def new_id(self) -> str:
        """A fresh Node-RED style id: 8 hex digits, a dot, 6 hex digits."""
        while True:
            node_id = f"{self.rng.getrandbits(32):08x}.{self.rng.getrandbits(24):06x}"
            if node_id not in self.used:
                self.used.add(node_id)
                return node_id

    def _node(self, type_: str, col: float, row: float, props: dict, node_id: str | None) -> dict:
        """A node dict laid out left to right: x grows with col, y with row, with a little jitter."""
        x = round(120 + 180 * col + self.rng.uniform(-20, 20), 3)
        y = round(80 + 80 * row + self.rng.uniform(-15, 15), 3)
        node = {"id": node_id or self.new_id(), "type": type_, "z": self.tab, "x": x, "y": y, "wires": [], **props}
        self.by_id[node["id"]] = node
        return node

    def add(self, type_: str, col: float, row: float, props: dict, node_id: str | None = None) -> str:
        """Add a node of the flow; returns its id."""
        node = self._node(type_, col, row, props, node_id)
        self.nodes.append(node)
        self.place[node["id"]] = (col, row)
        return node["id"]

    def add_config(self, type_: str, props: dict, node_id: str | None = None) -> str:
        """Add a configuration node (bot, dashboard group or tab), listed after the flow's nodes."""
        node = self._node(type_, len(self.configs), 8, props, node_id)
        self.configs.append(node)
        return node["id"]

    def wire(self, source: str, target: str, port: int = 0) -> None:
        """Connect output `port` of source to target."""
        wires = self.by_id[source]["wires"]
        while len(wires) <= port:
            wires.append([])
        wires[port].append(target)

    def chain(self, *ids: str) -> None:
        """Wire the nodes one after another on their first output."""
        for source, target in zip(ids, ids[1:]):
            self.wire(source, target)

    def finish(self) -> list:
        """The node list: flow nodes from left to right, configuration nodes, then the tab."""
        tab = {"id": self.tab, "type": "tab", "label": f"Flow {self.rng.randint(1, 300)}", "disabled": False,
               "info": "", "module": _RED}
        nodes = sorted(self.nodes, key=lambda node: self.place[node["id"]])  # stable: ties keep their order
        return nodes + self.configs + [tab]


def _inject(f: _Flow, col: float, row: float = 0) -> str:
    """A manual trigger."""
    return f.add("inject", col, row, {
        "name": "", "topic": "", "payload": "", "payloadType": "date", "repeat": "", "crontab": "", "once": False,
        "onceDelay": 0.1, "module": _RED, "props": [{"p": "payload"}, {"p": "topic", "vt": "str"}]})


def _debug(f: _Flow, col: float, row: float = 0, complete: str = "false") -> str:
    """A debug sidebar output."""
    return f.add("debug", col, row, {
        "name": "", "active": True, "tosidebar": True, "console": False, "tostatus": False, "complete": complete,
        "module": _RED, "statusVal": "", "statusType": "auto"})


def _set(prop: str, value, value_type: str = "str") -> dict:
    """A change-node rule that sets msg.prop."""
    return {"t": "set", "p": prop, "pt": "msg", "to": value, "tot": value_type}


def _change(f: _Flow, col: float, rules: list, name: str = "", row: float = 0) -> str:
    """A change node with the given rules."""
    return f.add("change", col, row, {
        "name": name, "rules": rules, "action": "", "property": "", "to": "", "reg": False, "module": _RED,
        "from": ""})


def _function(f: _Flow, col: float, name: str, func: str, row: float = 0) -> str:
    """A JavaScript function node."""
    return f.add("function", col, row, {
        "name": name, "func": func, "outputs": 1, "noerr": 0, "module": _RED, "initialize": "", "finalize": ""})


def _switch(f: _Flow, col: float, prop: str, rules: list, checkall: str, row: float = 0) -> str:
    """A switch node with one output per rule."""
    return f.add("switch", col, row, {
        "name": "", "outputs": len(rules), "rules": rules, "checkall": checkall, "repair": False, "property": prop,
        "propertyType": "msg", "module": _RED})


def _tab_count_switch(f: _Flow, col: float, found_first: bool) -> str:
    """A switch on msg.tabs.length: one output for 'tab found', one for 'no tab'."""
    found, missing = {"t": "gt", "v": "0", "vt": "num"}, {"t": "lte", "v": "0", "vt": "num"}
    return _switch(f, col, "tabs.length", [found, missing] if found_first else [missing, found], "true")


def _browser(extra: dict) -> dict:
    """Properties every browser-automation node carries, plus extra."""
    return {"isProfileConfigNode": False, "session": "", "module": _BROWSER, **extra}


def _find_tab(f: _Flow, col: float, pattern: str, name: str) -> str:
    """Find open browser tabs whose URL matches pattern."""
    return f.add("maya-browser-find-tab", col, 0, _browser(
        {"name": name, "payloadTypequery": "json", "query": json.dumps({"url": pattern}, separators=(",", ":"))}))


def _open(f: _Flow, col: float, url: str, url_type: str, name: str = "", row: float = 0) -> str:
    """Open a new browser tab at url (a string, or a msg property)."""
    return f.add("maya-browser-open", col, row, _browser({"url": url, "name": name, "payloadTypeurl": url_type}))


def _update_tab(f: _Flow, col: float, updates: str, updates_type: str, name: str, row: float = 1) -> str:
    """Update (navigate or focus) the first found tab."""
    return f.add("maya-browser-update-tab", col, row, _browser({
        "payloadTypeupdates": updates_type, "payloadTypetabId": "msg", "updates": updates, "name": name,
        "timeout": "2000", "payloadTypetimeout": "num", "tabId": "tabs[0].id"}))


def _page_action(f: _Flow, type_: str, col: float, selector: str, name: str, extra: dict) -> str:
    """A click or type action on an element of the first found tab."""
    return f.add(type_, col, 0, _browser({
        "payloadTypetabId": "msg", "payloadTypeindex": "num", "name": name, "timeout": "2000", "index": "0",
        "payloadTypeselector": "str", "payloadTypetimeout": "num", "selector": selector, "tabId": "tabs[0].id",
        **extra}))


def _chatbot_config(platform: str, botname: str, users: list) -> dict:
    """Properties of the chat-bot configuration node."""
    common = {"botname": botname, "usernames": ",".join(users)}
    if platform == "telegram":
        return {**common, "providerToken": "", "polling": "1000", "store": "", "log": "", "debug": True,
                "webHook": "", "connectMode": "polling", "module": _CHATBOT}
    return {**common, "store": "", "log": "", "debug": False, "multiWebHook": False,
            "profileFields": "first_name,last_name", "module": _CHATBOT}


# ---------------------------------------------------------------- the domains

def _maybe_zone(rng: random.Random) -> str:
    """A time zone for one schedule in five, else '' (the server's zone)."""
    return rng.choice(_TIME_ZONES) if rng.random() < 0.2 else ""


def _cronplus(f: _Flow, schedule: str, topic: str, expression: str, zone: str, payload: str = "") -> str:
    """A cron-plus scheduler with one cron schedule."""
    option = {"name": schedule, "topic": topic, "payloadType": "str" if payload else "default",
              "payload": payload, "expressionType": "cron", "expression": expression, "location": "",
              "offset": "0", "solarType": "all", "solarEvents": "sunrise,sunset"}
    return f.add("cronplus", 0, 0, {
        "name": "", "outputField": "payload", "timeZone": zone, "persistDynamic": False, "outputs": 1,
        "options": [option], "module": "node-red-contrib-cron-plus"})


def _cron_reminder(rng: random.Random):
    """cronplus -> desktop-system-notify: a desktop reminder on a schedule."""
    topic, expression, zone, sound = _topic(rng), random_cron(rng), _maybe_zone(rng), rng.random() < 0.25
    f = _Flow(rng)
    cron = _cronplus(f, "schedule", topic, expression, zone)
    notify = f.add("desktop-system-notify", 1, 0, {
        "title": "Reminder", "messageType": "msg", "sound": sound, "name": "Set Reminder", "module": _SYSTEM,
        "wait": True, "titleType": "str", "message": "topic"})
    f.wire(cron, notify)
    lead = rng.choice(["Set a reminder for", "Remind me about", "Create a desktop reminder for"])
    spec = f"{lead} '{topic}' {describe_cron(expression)}" + (f" ({zone} time)" if zone else "")
    return spec + (", with a sound" if sound else ""), f.finish()


def _cron_schedule(rng: random.Random):
    """cronplus -> debug: a repeating trigger, sometimes carrying a text payload."""
    expression, zone = random_cron(rng), _maybe_zone(rng)
    payload = _words(rng, 1, 4) if rng.random() < 0.3 else ""
    f = _Flow(rng)
    f.chain(_cronplus(f, "schedule1", "schedule1", expression, zone, payload), _debug(f, 1, complete="payload"))
    lead = rng.choice(["Repeat", "Trigger a flow", "Run a schedule", "Fire an event"])
    spec = f"{lead} {describe_cron(expression)}" + (f" ({zone} time)" if zone else "")
    return spec + (f", sending '{payload}'" if payload else ""), f.finish()


def _chat_spec(rng: random.Random, platform: str, pairs: list, match: str) -> str:
    """The sentence for a reply bot: one clause per (question, answer) pair."""
    if match == "cont":
        return f"On {platform}, " + _clauses([f"when a message contains '{q}', reply with '{a}'" for q, a in pairs])
    form = rng.randrange(3)
    if form == 0:
        return f"On {platform}, " + _clauses([f"when user says '{q}', reply with '{a}'" for q, a in pairs])
    if form == 1:
        return "Reply " + _clauses([f"'{a}' to '{q}'" for q, a in pairs]) + f" on {platform}"
    return f"Make a {platform} bot that answers " + _clauses([f"'{q}' with '{a}'" for q, a in pairs])


def _chat(rng: random.Random, platform: str, n_pairs: int):
    """<platform>-receive -> switch -> n x (chatbot-message -> <platform>-send), plus the bot configuration."""
    questions = _distinct(rng, n_pairs, lambda r: _words(r, 1, 6))
    pairs = [(q, _words(rng, 1, 8)) for q in questions]
    match = "cont" if rng.random() < 0.25 else "eq"
    botname = f"{rng.choice(_WORDS)}_{rng.choice(_NOUNS)}_bot" if rng.random() < 0.3 else ""
    users = _distinct(rng, rng.randint(1, 2), _user_name) if rng.random() < 0.2 else []
    f = _Flow(rng)
    config = f.add_config(f"chatbot-{platform}-node", _chatbot_config(platform, botname, users))
    bot = {"bot": config, "botProduction": config}
    receive = f.add(f"chatbot-{platform}-receive", 0, (n_pairs - 1) / 2, {**bot, "module": _CHATBOT})
    rules = [{"t": match, "v": q, "vt": "str"} for q in questions]
    switch = f.add("switch", 1, (n_pairs - 1) / 2, {
        "name": "", "outputs": n_pairs, "rules": rules, "checkall": "false", "repair": False,
        "property": "payload.content", "propertyType": "msg", "module": _RED})
    f.wire(receive, switch)
    for k, (_, answer) in enumerate(pairs):
        message = f.add("chatbot-message", 2, k, {
            "name": f"Reply {k + 1}", "message": [{"message": answer}], "language": "en", "module": _CHATBOT})
        send = f.add(f"chatbot-{platform}-send", 3, k, {
            **bot, "track": False, "passThrough": False, "errorOutput": False, "outputs": 0, "module": _CHATBOT})
        f.wire(switch, message, port=k)
        f.wire(message, send)
    spec = _chat_spec(rng, platform.capitalize(), pairs, match)
    spec += f", using the bot '{botname}'" if botname else ""
    people = "the user" if len(users) == 1 else "the users"
    return spec + (f", only for {people} {_listing(users)}" if users else ""), f.finish()


def _gmail_send(rng: random.Random):
    """inject -> change -> find-tab -> switch -> (open | update-tab) -> click -> 3 x type -> click -> debug."""
    body, subject, email = _words(rng, 1, 8), _words(rng, 1, 6), _email(rng)
    f = _Flow(rng)
    params = _change(f, 1, [_set("payload.body", body), _set("payload.subject", subject),
                            _set("payload.email", email)], name="Set Params")
    find = _find_tab(f, 2, "*://mail.google.com/*", "Find Gmail tab")
    switch = _tab_count_switch(f, 3, found_first=False)
    opened = _open(f, 4, "https://mail.google.com", "str", "Open Gmail")
    focused = _update_tab(f, 4, '{"active":true}', "json", "Focus Gmail tab")
    f.chain(_inject(f, 0), params, find, switch)
    f.wire(switch, opened, 0)
    f.wire(switch, focused, 1)
    compose = _page_action(f, "maya-browser-click", 5, "//div[@role='button' and text()='Compose']",
                           "Compose", {"timeout": "10000"})
    f.wire(opened, compose)
    f.wire(focused, compose)
    typed = [_page_action(f, "maya-browser-type", 6 + k, selector, name,
                          {"payloadTypecontent": "msg", "content": content}) for k, (selector, name, content) in
             enumerate([("//input[@aria-label='To recipients']", "Recipient", "payload.email"),
                        ("//input[@name='subjectbox']", "Subject", "payload.subject"),
                        ("//div[@aria-label='Message Body']", "Body", "payload.body")])]
    send = _page_action(f, "maya-browser-click", 9, "//div[@role='button' and starts-with(@data-tooltip,'Send')]",
                        "Send", {})
    f.chain(compose, *typed, send, _debug(f, 10))
    template = rng.choice(["Send email with body '{b}' and subject '{s}' to email {e}",
                           "Email {e} with the subject '{s}' and the body '{b}'",
                           "Write a Gmail message to {e}, subject '{s}', saying '{b}'"])
    return template.format(b=body, s=subject, e=email), f.finish()


_RESULT_FIELDS = [
    {"key": "text", "xpath": "//div[@id='search']//a/h3", "extract": "/text()"},
    {"key": "link", "xpath": "//div[@id='search']//a[h3]", "extract": "/@href"},
    {"key": "desc", "xpath": "//div[@id='search']//div[@data-sncf='1']", "extract": "/text()"},
]


def _search_nodes(f: _Flow, queries: list) -> str:
    """inject -> change -> split -> function -> open -> query -> close-tabs; returns the last node's id."""
    terms = _change(f, 1, [_set("payload", json.dumps(queries), "json")], name="Set Search Terms")
    split = f.add("split", 2, 0, {
        "name": "", "splt": "\\n", "spltType": "str", "arraySplt": 1, "arraySpltType": "len", "stream": False,
        "addname": "", "module": _RED})
    url = _function(f, 3, "Set URL",
                    'msg.url = "https://www.google.com/search?q=" + encodeURIComponent(msg.payload);\nreturn msg;')
    opened = _open(f, 4, "url", "msg")
    query = f.add("maya-browser-query", 5, 0, _browser({
        "options": copy.deepcopy(_RESULT_FIELDS), "payloadTypeTimeout": "num", "payloadTypeTabId": "msg",
        "name": "Scrape results", "timeout": 5000, "mergeOutputs": True, "tabId": "tabs[0].id"}))
    close = f.add("maya-browser-close-tabs", 6, 0, _browser({
        "tabIds": "tabs", "action": "Close", "name": "", "timeout": "3000", "payloadTypetabIds": "msg",
        "payloadTypetimeout": "num"}))
    f.chain(_inject(f, 0), terms, split, url, opened, query, close)
    return close


def _queries(rng: random.Random) -> tuple[list, str]:
    """One search query (three times in four) or two, and how the sentence names them."""
    queries = _distinct(rng, 1 if rng.random() < 0.75 else 2, lambda r: _words(r, 1, 6))
    if len(queries) == 1 and rng.random() < 0.5:
        return queries, queries[0]
    return queries, _listing(f"'{q}'" for q in queries)


def _google_search(rng: random.Random):
    """inject -> change -> split -> function -> open -> query -> close-tabs -> debug."""
    queries, named = _queries(rng)
    f = _Flow(rng)
    f.chain(_search_nodes(f, queries), _debug(f, 7, complete="true"))
    template = rng.choice(["Search Google for {q} and scrape results", "Scrape the Google results for {q}",
                           "Look up {q} on Google and collect the results"])
    return template.format(q=named), f.finish()


def _googlesearch_to_csv(rng: random.Random):
    """google-search's chain -> change -> csv -> file -> debug."""
    queries, named = _queries(rng)
    file_name, append = _file_name(rng), rng.random() < 0.25
    header, separator = rng.random() < 0.25, ";" if rng.random() < 0.2 else ","
    f = _Flow(rng)
    close = _search_nodes(f, queries)
    result = _change(f, 7, [_set("payload", "result", "msg")])
    csv = f.add("csv", 8, 0, {
        "name": "Create CSV", "sep": separator, "hdrin": "", "hdrout": "all" if header else "none", "multi": "one",
        "ret": "\\n", "temp": "text,link,desc", "skip": "0", "strings": True, "module": _RED,
        "include_empty_strings": "", "include_null_values": ""})
    write = f.add("file", 9, 0, {
        "name": "Write CSV", "filename": file_name, "appendNewline": True, "createDir": False,
        "overwriteFile": "false" if append else "true", "encoding": "none", "module": _RED})
    f.chain(close, result, csv, write, _debug(f, 10))
    verb = "append them to" if append else rng.choice(["put them into", "save them to", "write them to"])
    template = rng.choice(["Search Google for {q}, scrape results and {v} {file}",
                           "Scrape the Google results for {q} and {v} {file}"])
    spec = template.format(q=named, v=verb, file=file_name) + (" with a header row" if header else "")
    return spec + (" using ';' as the separator" if separator == ";" else ""), f.finish()


def _http(rng: random.Random):
    """http in -> [change ->] http response, and http in -> debug."""
    method = rng.choice(_HTTP_METHODS)
    name = "-".join(rng.choice(_WORDS) for _ in range(rng.randint(1, 4)))
    status = rng.choice(_STATUS_CODES) if rng.random() < 0.25 else ""
    reply = _words(rng, 1, 4) if rng.random() < 0.3 else ""
    f = _Flow(rng)
    endpoint = f.add("http in", 0, 0, {
        "name": "", "url": "/" + name, "method": method, "upload": False, "swaggerDoc": "", "module": _RED})
    response = f.add("http response", 2, 0, {"name": "", "statusCode": status, "headers": {}, "module": _RED})
    if reply:
        f.chain(endpoint, _change(f, 1, [_set("payload", reply)], name="Set reply"), response)
    else:
        f.wire(endpoint, response)
    f.wire(endpoint, _debug(f, 1, 1))
    template = rng.choice(["Create a HTTP {m} endpoint called {n}", "Create an HTTP {m} endpoint at /{n}",
                           "Add a {m} route /{n} to the web server"])
    answer = _listing(([f"'{reply}'"] if reply else []) + ([f"status code {status}"] if status else []))
    return template.format(m=method.upper(), n=name) + (f" that responds with {answer}" if answer else ""), f.finish()


def _dashboard(f: _Flow) -> str:
    """Dashboard group and tab configuration nodes; returns the group's id."""
    ui_tab = f.new_id()
    group = f.add_config("ui_group", {
        "tab": ui_tab, "name": f"UI Group {f.rng.randint(1, 99)}", "order": 1, "disp": True, "width": "6",
        "collapse": False, "module": _DASHBOARD})
    f.add_config("ui_tab", {
        "tab": f.tab, "name": f"UI Tab {f.rng.randint(1, 99)}", "icon": "dashboard", "order": 1, "disabled": False,
        "hidden": False, "module": _DASHBOARD}, node_id=ui_tab)
    return group


def _template_form(rng: random.Random):
    """ui_form -> debug, with its dashboard group and tab."""
    fields = rng.sample(_FORM_FIELDS, rng.randint(3, 8))
    optional = [rng.random() < 0.15 for _ in fields]
    submit = rng.choice(["Send", "Save", "Done", "Register"]) if rng.random() < 0.25 else "Submit"
    options = [{"value": name.replace(" ", "_"), "type": kind, "label": name.capitalize(), "required": not opt,
                "rows": None} for (name, kind), opt in zip(fields, optional)]
    f = _Flow(rng)
    group = _dashboard(f)
    form = f.add("ui_form", 0, 0, {
        "group": group, "name": f"Form {rng.randint(1, 99)}", "label": "", "order": 0, "width": 0, "height": 0,
        "options": options, "formValue": {o["value"]: "" for o in options}, "payload": "", "submit": submit,
        "cancel": "Cancel", "topic": "", "module": _DASHBOARD})
    f.wire(form, _debug(f, 1))
    named = _listing(name + (" (optional)" if opt else "") for (name, _), opt in zip(fields, optional))
    template = rng.choice(["Enter {f}", "Create a form with fields for entering {f}", "Make a form asking for {f}"])
    spec = template.format(f=named) + (f", with a '{submit}' button" if submit != "Submit" else "")
    return spec, f.finish()


def _count_word(rng: random.Random, n: float) -> str:
    """A small whole number as a word half of the time, else as digits."""
    if n == int(n) and 0 <= n <= 10 and rng.random() < 0.5:
        return _NUMBER_WORDS[int(n)]
    return _number(n)


def _template_slider(rng: random.Random):
    """n x ui_slider -> debug, with their dashboard group and tab."""
    n, step = rng.randint(2, 8), rng.choice([1, 1, 2, 5, 5, 10, 20, 0.5, 0.25])
    low = step * rng.randint(-20, 15)
    high = low + step * rng.randint(4, 40)
    on_release = rng.random() < 0.25
    f = _Flow(rng)
    group = _dashboard(f)
    sliders = [f.add("ui_slider", 0, k, {
        "group": group, "name": "", "label": f"Slider {k}", "tooltip": "", "order": 0, "width": 0, "height": 0,
        "passthru": True, "outs": "end" if on_release else "all", "topic": "", "min": float(low),
        "max": float(high), "step": float(step), "module": _DASHBOARD}) for k in range(n)]
    debug = _debug(f, 1, (n - 1) / 2)
    for slider in sliders:
        f.wire(slider, debug)
    count, size = _count_word(rng, n), _count_word(rng, step)
    low, high = _number(low), _number(high)
    template = rng.choice([
        "This flow contains {n} sliders with values ranging from {lo} to {hi} changing in steps of {s}",
        "{N} sliders with values ranging from {lo} to {hi} in steps of {s}",
        "Create {n} sliders from {lo} to {hi} with a step of {s}"])
    spec = template.format(n=count, N=count.capitalize(), lo=low, hi=high, s=size)
    return spec + (" that only send their value when released" if on_release else ""), f.finish()


def _twitter(rng: random.Random):
    """twitter in -> function -> debug."""
    tags = _distinct(rng, 1 if rng.random() < 0.7 else 2, _hashtag)
    following, author = rng.random() < 0.2, rng.random() < 0.3
    f = _Flow(rng)
    tweets = f.add("twitter in", 0, 0, {
        "tags": ",".join(tags), "twitter": "", "user": "true" if following else "false", "name": "", "inputs": 1,
        "module": "node-red-node-twitter"})
    func = ("msg.payload = '@' + msg.tweet.user.screen_name + ': ' + msg.payload;\nreturn msg;" if author
            else "return msg;")
    f.chain(tweets, _function(f, 1, "Format tweets" if author else "Pass tweets", func), _debug(f, 2))
    verb = rng.choice(["Obtain", "Pull", "Fetch", "Collect", "Scrape", "Stream"])
    source = "tweets from accounts I follow" if following else "tweets"
    topic = "the topic" if len(tags) == 1 else "the topics"
    spec = f"{verb} {source} about {topic} {_listing(tags)}" + (" and show who posted them" if author else "")
    return spec, f.finish()


def _url_skill(rng: random.Random):
    """bot-intent -> change -> desktop-system-open: a named skill that opens a web page."""
    name, url = _topic(rng), _url(rng)
    f = _Flow(rng)
    intent_id = f.new_id()
    intent = f.add("bot-intent", 0, 0, {
        "options": [{"value": name, "type": "prompt", "required": True}], "formValue": {name: ""},
        "endpointUrl": "/intent-" + intent_id.replace(".", "-"), "name": "Skill Definition", "order": 0,
        "payload": "", "module": "maya-red-bot-utils"}, node_id=intent_id)
    opener = f.add("desktop-system-open", 2, 0, {"targetType": "msg", "name": "", "module": _SYSTEM, "target": "url"})
    f.chain(intent, _change(f, 1, [_set("url", url)]), opener)
    template = rng.choice(["Create a skill called '{n}' which opens url {u}", "Make a skill named '{n}' that opens {u}",
                           "Add a skill '{n}' to open the website {u}"])
    return template.format(n=name, u=url), f.finish()


def _youtube_control(rng: random.Random, action: str, verb: str):
    """find-tab -> execute-function: call the page's <video> element's pause() or play()."""
    music, tab = rng.random() < 0.3, rng.choice([0, 0, 0, 1, 2])
    site = "YouTube Music" if music else "YouTube"
    f = _Flow(rng)
    find = _find_tab(f, 0, "*://music.youtube.com/*" if music else "*://*.youtube.com/*", "Find YouTube tab")
    run = f.add("maya-browser-execute-function", 1, 0, _browser({
        "payloadTypetabId": "msg", "func": action, "args": "[]", "payloadTypeargs": "json",
        "name": f"Execute {action.capitalize()}", "payloadTypefunc": "str", "timeout": "2000",
        "payloadTypeselector": "str", "payloadTypetimeout": "num", "selector": "//video",
        "tabId": f"tabs[{tab}].id"}))
    f.wire(find, run)
    if tab:
        spec = f"{verb.capitalize()} the video in the {_ORDINALS[tab]} {site} tab"
    else:
        verb_ = verb.capitalize()
        spec = rng.choice([f"{site} {verb}", f"{verb_} {site} video", f"{verb_} the {site} video"])
    return spec, f.finish()


def _youtube_play(rng: random.Random):
    """inject -> change -> function -> find-tab -> switch -> (update-tab | open) -> click."""
    query, rank = _words(rng, 1, 6), rng.choice([1, 1, 1, 2, 3])
    f = _Flow(rng)
    search = _function(f, 2, "Build search URL", "msg.tabUpdates = {\n    url: 'https://www.youtube.com/results?"
                       "search_query=' + encodeURIComponent(msg.payload.value)\n};\nreturn msg;")
    switch = _tab_count_switch(f, 4, found_first=True)
    f.chain(_inject(f, 0), _change(f, 1, [_set("payload.value", query)], name="Set Query"), search,
            _find_tab(f, 3, "*://*.youtube.com/*", "Find YouTube tab"), switch)
    updated = _update_tab(f, 5, "tabUpdates", "msg", "Search in YouTube tab", row=0)
    opened = _open(f, 5, "tabUpdates.url", "msg", "Open YouTube search", row=1)
    click = _page_action(f, "maya-browser-click", 6, f"(//ytd-video-renderer//a[@id='thumbnail'])[{rank}]",
                         "Click result", {})
    f.wire(switch, updated, 0)
    f.wire(switch, opened, 1)
    f.wire(updated, click)
    f.wire(opened, click)
    if rank == 1:
        spec = rng.choice([f"Find and play {query} on Youtube", f"Play '{query}' on YouTube"])
    else:
        spec = f"Search YouTube for '{query}' and play the {_ORDINALS[rank - 1]} result"
    return spec, f.finish()


_GENERATORS = {
    "cron-reminder": _cron_reminder,
    "cron-schedule": _cron_schedule,
    "facebook": lambda rng: _chat(rng, "facebook", 2),
    "gmail-send": _gmail_send,
    "google-search": _google_search,
    "googlesearch-to-csv": _googlesearch_to_csv,
    "http": _http,
    "telegram-2-reply": lambda rng: _chat(rng, "telegram", 2),
    "telegram-3-reply": lambda rng: _chat(rng, "telegram", 3),
    "template-form": _template_form,
    "template-slider": _template_slider,
    "twitter": _twitter,
    "url-skill": _url_skill,
    "youtube-pause": lambda rng: _youtube_control(rng, "pause", "pause"),
    "youtube-play": _youtube_play,
    "youtube-resume": lambda rng: _youtube_control(rng, "play", "resume"),
}
assert tuple(_GENERATORS) == DOMAINS


# ---------------------------------------------------------------- public interface

def _check_domain(domain) -> None:
    """Raise ValueError for a name that is not one of DOMAINS."""
    if domain not in _GENERATORS:
        raise ValueError(f"unknown task domain {domain!r}; allowed: {', '.join(DOMAINS)}")


def _stream_seed(seed: int, domain: str) -> int:
    """The seed of a domain's stream, derived from (seed, domain index) with SHA-256 (stable across processes)."""
    text = f"intellimetry.gindex.domains:{seed}:{DOMAINS.index(domain)}"
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


def generate_task(domain: str, rng: random.Random) -> Task:
    """One task of the domain, drawn from rng."""
    _check_domain(domain)
    spec, flow = _GENERATORS[domain](rng)
    return Task(domain, spec, flow)


def generate_tasks(domain: str, n: int, seed: int) -> list[Task]:
    """n tasks of the domain from its own seeded stream; the first k of n equal generate_tasks(domain, k, seed)."""
    _check_domain(domain)
    n, seed = operator.index(n), operator.index(seed)
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    rng = random.Random(_stream_seed(seed, domain))
    return [generate_task(domain, rng) for _ in range(n)]


def generate_corpus(domains, n_per_domain: int, seed: int) -> dict[str, list[Task]]:
    """n_per_domain tasks for each domain; each domain's tasks depend only on (seed, its index in DOMAINS)."""
    domains = list(domains)
    for domain in domains:
        _check_domain(domain)
    return {domain: generate_tasks(domain, n_per_domain, seed) for domain in domains}


def task_to_json(task: Task) -> dict:
    """The task as a JSON-ready dict {"domain", "text", "flow"}."""
    return {"domain": task.domain, "text": task.spec, "flow": copy.deepcopy(task.flow)}


def task_from_json(data: dict) -> Task:
    """The Task of a dict written by task_to_json."""
    missing = [key for key in ("domain", "text", "flow") if key not in data]
    if missing:
        raise ValueError(f"task record lacks {', '.join(missing)}")
    _check_domain(data["domain"])
    if not isinstance(data["text"], str) or not isinstance(data["flow"], list):
        raise ValueError("task record needs a string 'text' and a list 'flow'")
    return Task(data["domain"], data["text"], copy.deepcopy(data["flow"]))
