"""The 16 domains' generators: each draws slot values from an rng and returns (specification, flow)."""
from __future__ import annotations

import copy
import json
import random

from intellimetry.gindex.domains.builder import (
    _browser,
    _change,
    _chatbot_config,
    _debug,
    _find_tab,
    _Flow,
    _function,
    _inject,
    _open,
    _page_action,
    _set,
    _tab_count_switch,
    _update_tab,
)
from intellimetry.gindex.domains.cron import describe_cron, random_cron
from intellimetry.gindex.domains.vocabulary import (
    _CHATBOT,
    _DASHBOARD,
    _FORM_FIELDS,
    _HTTP_METHODS,
    _NOUNS,
    _NUMBER_WORDS,
    _ORDINALS,
    _RED,
    _STATUS_CODES,
    _SYSTEM,
    _TIME_ZONES,
    _WORDS,
    _clauses,
    _distinct,
    _email,
    _file_name,
    _hashtag,
    _listing,
    _number,
    _topic,
    _url,
    _user_name,
    _words,
)

DOMAINS: tuple[str, ...] = (
    "cron-reminder", "cron-schedule", "facebook", "gmail-send", "google-search", "googlesearch-to-csv",
    "http", "telegram-2-reply", "telegram-3-reply", "template-form", "template-slider", "twitter",
    "url-skill", "youtube-pause", "youtube-play", "youtube-resume",
)


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
