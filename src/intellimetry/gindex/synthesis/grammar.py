"""The grammar of compact program text, as a character automaton that constrained decoding follows.

A prefix the automaton accepts can always be completed to text that `decode_flow` turns into a flow:

    flow   := "[" node ("," node)* "]"                  at least one node, no whitespace outside strings
    node   := "{" member ("," member)* "}"              keys without escapes, none repeated, none of
                                                        id / x / y / z; "type" a non-empty string
    wires  := "[" (port ("," port)*)? "]"               the value of a node's "wires"
    port   := "[" (index ("," index)*)? "]"             an index is a later node's position (so the
                                                        wiring is acyclic), below 1000, no leading 0
    any other value: JSON (strings, numbers, true/false/null, arrays, objects)

Wires point forward, as `encode_flow` writes them (nodes in topological order), and the flow's "]" is
refused until every index names a node, so each accepted prefix stays completable and every completed
text decodes. States are immutable: `step` returns a new state or None, so a decoder can try a token's
characters without undoing anything.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

_RESERVED = frozenset({"id", "x", "y", "z"})
_DIGITS = frozenset("0123456789")
_HEX = frozenset("0123456789abcdefABCDEF")
_ESCAPES = frozenset('"\\/bfnrt')
_LITERALS = {"t": "rue", "f": "alse", "n": "ull"}
_MAX_INDEX_DIGITS = 3
# number phases after which the number may end (JSON: no trailing "-", ".", "e" or "e+")
_NUMBER_ENDS = frozenset({"zero", "int", "frac", "exp"})


@dataclass(frozen=True)
class FlowState:
    """Where an accepted prefix stands: a stack of frames (tuples, innermost last), the index of the node
    being written (= nodes finished), the nodes the wires so far need, and the current node's keys."""

    stack: tuple = (("top", "start"),)
    nodes: int = 0
    need: int = 0
    keys: frozenset = frozenset()

    @property
    def done(self) -> bool:
        """The flow's closing "]" has been written: only the end of the text may follow."""
        return self.stack == (("top", "done"),)

    def step(self, char: str) -> FlowState | None:
        """The state after `char`, or None when no valid program continues this way."""
        return _step(self, char)

    def feed(self, text: str) -> FlowState | None:
        """The state after every character of `text`, or None at the first refused one."""
        state = self
        for char in text:
            state = _step(state, char)
            if state is None:
                return None
        return state


def accepts(text: str) -> bool:
    """Whether `text` is a whole program of the grammar (not just a prefix)."""
    state = FlowState().feed(text)
    return state is not None and state.done


def _push(state: FlowState, top: tuple, *frames: tuple, **changes) -> FlowState:
    """Replace the innermost frame by `top` and push `frames` above it."""
    return replace(state, stack=state.stack[:-1] + (top, *frames), **changes)


def _pop(state: FlowState, **changes) -> FlowState:
    return replace(state, stack=state.stack[:-1], **changes)


def _step(state: FlowState, char: str) -> FlowState | None:
    frame = state.stack[-1]
    return _HANDLERS[frame[0]](state, frame, char)


def _value_start(state: FlowState, parent: tuple, char: str) -> FlowState | None:
    """A generic JSON value beginning with `char`, above the parent frame (already in its next phase)."""
    if char == '"':
        return _push(state, parent, ("str", "body"))
    if char == "{":
        return _push(state, parent, ("obj", "first"))
    if char == "[":
        return _push(state, parent, ("arr", "first"))
    if char == "-":
        return _push(state, parent, ("num", "sign"))
    if char in _DIGITS:
        return _push(state, parent, ("num", "zero" if char == "0" else "int"))
    if char in _LITERALS:
        return _push(state, parent, ("lit", _LITERALS[char]))
    return None


def _top(state, frame, char):
    phase = frame[1]
    if phase == "start":
        return _push(state, ("top", "first")) if char == "[" else None
    if phase in ("first", "item"):  # a node must come (the flow has at least one)
        return _push(state, ("top", "next"), ("node", "first")) if char == "{" else None
    if phase == "next":
        if char == ",":
            return _push(state, ("top", "item"))
        if char == "]" and state.need <= state.nodes:  # every wire names a node
            return _push(state, ("top", "done"))
    return None  # "done": nothing may follow


def _node(state, frame, char):
    phase = frame[1]
    if phase in ("first", "item"):
        return _push(state, ("node", "key", "")) if char == '"' else None  # "type" is still to come
    if phase == "key":
        key = frame[2]
        if char == '"':
            if key in _RESERVED or key in state.keys:
                return None
            return _push(state, ("node", "colon", key), keys=state.keys | {key})
        if char == "\\" or char < " ":
            return None
        return _push(state, ("node", "key", key + char))
    if phase == "colon":
        return _push(state, ("node", "value", frame[2])) if char == ":" else None
    if phase == "value":
        key, after = frame[2], ("node", "next")
        if key == "type":
            return _push(state, after, ("str", "first-nonempty")) if char == '"' else None
        if key == "wires":
            return _push(state, after, ("wires", "first")) if char == "[" else None
        return _value_start(state, after, char)
    # "next"
    if char == ",":
        return _push(state, ("node", "item"))
    if char == "}" and "type" in state.keys:
        return _pop(state, nodes=state.nodes + 1, keys=frozenset())
    return None


def _string(state, frame, char):
    phase = frame[1]
    if phase in ("body", "first-nonempty"):
        if char == '"':
            return None if phase == "first-nonempty" else _pop(state)
        if char == "\\":
            return _push(state, ("str", "escape"))
        return None if char < " " else _push(state, ("str", "body"))
    if phase == "escape":
        if char == "u":
            return _push(state, ("str", "hex", 4))
        return _push(state, ("str", "body")) if char in _ESCAPES else None
    # "hex": frame[2] hex digits still to come
    if char not in _HEX:
        return None
    left = frame[2] - 1
    return _push(state, ("str", "hex", left) if left else ("str", "body"))


def _number(state, frame, char):
    phase = frame[1]
    if char in _DIGITS:
        following = {"sign": "zero" if char == "0" else "int", "int": "int", "dot": "frac", "frac": "frac",
                     "e": "exp", "esign": "exp", "exp": "exp"}.get(phase)  # no digit after a leading 0
        return _push(state, ("num", following)) if following else None
    if char == "." and phase in ("zero", "int"):
        return _push(state, ("num", "dot"))
    if char in "eE" and phase in ("zero", "int", "frac"):
        return _push(state, ("num", "e"))
    if char in "+-" and phase == "e":
        return _push(state, ("num", "esign"))
    if phase in _NUMBER_ENDS:  # the number ends here: the character belongs to the parent
        return _step(_pop(state), char)
    return None


def _literal(state, frame, char):
    rest = frame[1]
    if char != rest[0]:
        return None
    return _pop(state) if len(rest) == 1 else _push(state, ("lit", rest[1:]))


def _array(state, frame, char):
    phase = frame[1]
    if phase == "first" and char == "]":
        return _pop(state)
    if phase in ("first", "item"):
        return _value_start(state, ("arr", "next"), char)
    if char == ",":
        return _push(state, ("arr", "item"))
    return _pop(state) if char == "]" else None


def _object(state, frame, char):
    phase = frame[1]
    if phase in ("first", "item"):
        if char == '"':
            return _push(state, ("obj", "colon"), ("str", "body"))
        return _pop(state) if char == "}" and phase == "first" else None
    if phase == "colon":
        return _push(state, ("obj", "value")) if char == ":" else None
    if phase == "value":
        return _value_start(state, ("obj", "next"), char)
    if char == ",":
        return _push(state, ("obj", "item"))
    return _pop(state) if char == "}" else None


def _wires(state, frame, char):
    phase = frame[1]
    if phase == "first" and char == "]":
        return _pop(state)
    if phase in ("first", "item"):
        return _push(state, ("wires", "next"), ("port", "first")) if char == "[" else None
    if char == ",":
        return _push(state, ("wires", "item"))
    return _pop(state) if char == "]" else None


def _port(state, frame, char):
    phase = frame[1]
    if phase == "first" and char == "]":
        return _pop(state)
    if phase in ("first", "item"):
        if char in _DIGITS and _reachable(char, state.nodes):
            return _push(state, ("port", "next"), ("index", char))
        return None
    if char == ",":
        return _push(state, ("port", "item"))
    return _pop(state) if char == "]" else None


def _reachable(digits: str, nodes: int) -> bool:
    """Whether some index starting with `digits` (no leading zero, at most _MAX_INDEX_DIGITS digits) names a
    node after node `nodes`: the prefix stays completable."""
    if digits == "0":
        return False  # 0 cannot grow and no node comes before node 0
    return int(digits.ljust(_MAX_INDEX_DIGITS, "9")) > nodes


def _index(state, frame, char):
    digits = frame[1]
    if char in _DIGITS:
        longer = digits + char
        if len(longer) > _MAX_INDEX_DIGITS or not _reachable(longer, state.nodes):
            return None
        return _push(state, ("index", longer))
    if char not in ",]":
        return None
    target = int(digits)
    if target <= state.nodes:  # a wire must point to a later node: the wiring stays acyclic
        return None
    return _step(_pop(state, need=max(state.need, target + 1)), char)


_HANDLERS = {"top": _top, "node": _node, "str": _string, "num": _number, "lit": _literal, "arr": _array,
             "obj": _object, "wires": _wires, "port": _port, "index": _index}
