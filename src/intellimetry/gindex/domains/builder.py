"""Flow construction: a Node-RED flow under construction on one tab, and the node kinds the domains share."""
from __future__ import annotations

import json
import random

from intellimetry.gindex.domains.vocabulary import _BROWSER, _CHATBOT, _RED


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
