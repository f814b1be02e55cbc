"""Orders as the judge wrote them when migrations 0003 and 0004 were written: frozen.

Those migrations turn orders kept as text (the judge's canonical notation, ``ENG: F nth - nwy``)
into orders kept as values (the JSON of their fields, ``{"type": "Move", "power": "ENG", ...}``),
and back. What they do must not change when the engine, the notation or the codec changes
later, so they import nothing of the judge: this module is a copy of what they used, as it was
then (``adjudicator.notation`` and ``adjudicator.prestige.notation`` reading the notation,
``adjudicator.orders`` and ``adjudicator.prestige.orders`` writing it, ``bot.codec.values``
turning an order into JSON), reduced to text and JSON. Never edit it to follow the judge; a
later migration that needs other shapes gets a copy of its own.

The notation is read as the judge wrote it, strictly; the ids are not checked against a map (the
text was the judge's own, written for ids of its map).
"""

from __future__ import annotations

import re
from typing import Any

Json = dict[str, Any]

_UNIT_TYPES = ("A", "F")
_ID = re.compile(r"[a-z][a-z0-9_]*(/[a-z]+)?\Z")
_POWER = re.compile(r"[A-Z]{3}\Z")


class FrozenNotationError(ValueError):
    """Text that is not an order as the judge wrote it then."""


def _location(word: str) -> str:
    if not _ID.match(word) or word in {"via", "convoy", "disband", "build", "waive"}:
        raise ValueError(word)
    return word


def _province(word: str) -> str:
    if "/" in word:
        raise ValueError(word)
    return _location(word)


def _amount(word: str) -> int:
    if not word.isdigit() or not word.isascii() or (word[0] == "0" and word != "0"):
        raise ValueError(word)
    return int(word)


def _unit_at(words: list[str], i: int) -> tuple[str | None, str, int]:
    if words[i] in _UNIT_TYPES:
        return words[i], _location(words[i + 1]), i + 2
    return None, _location(words[i]), i + 1


def _unit_order(power: str, words: list[str], i: int = 0) -> Json | None:
    unit_type, location, i = _unit_at(words, i)
    head = {"power": power, "unit_type": unit_type, "location": location}
    verb, rest = words[i], len(words) - i - 1
    if verb == "-":
        destination = _location(words[i + 1])
        if rest == 1:
            return {"type": "Move", **head, "destination": destination, "via_convoy": False}
        if rest == 3 and words[i + 2] == "via" and words[i + 3] == "convoy":
            return {"type": "Move", **head, "destination": destination, "via_convoy": True}
        return None
    if verb in ("S", "C"):
        target_type, target, j = _unit_at(words, i + 1)
        if j == len(words) and verb == "S":
            return {"type": "SupportHold", **head, "target_type": target_type, "target": target}
        if j + 2 != len(words) or words[j] != "-":
            return None
        return {"type": "SupportMove" if verb == "S" else "Convoy", **head, "target_type": target_type,
                "target": target, "destination": _location(words[j + 1])}
    if rest:
        return None
    kind = {"H": "Hold", "build": "Build", "disband": "Disband"}.get(verb)
    return {"type": kind, **head} if kind else None


def _vassal(power: str, words: list[str]) -> Json | None:
    unit_type, location, i = _unit_at(words, 1)
    if i + 2 != len(words) or words[i] != "BID":
        return None
    return {"type": "Vassal", "power": power, "unit_type": unit_type, "location": location,
            "bid": _amount(words[i + 1])}


def _bribe(power: str, words: list[str]) -> Json | None:
    owner, i = None, 1
    if (_POWER.match(words[1]) or words[1] == "NEU") and words[2] in _UNIT_TYPES:
        owner, i = words[1], 2
    unit_type, location, i = _unit_at(words, i)
    if words[i] != "BID":
        return None
    bid = _amount(words[i + 1])
    order = None
    if i + 2 < len(words):
        order = _unit_order(power, words, i + 2)
        if order is None:
            return None
    return {"type": "Bribe", "power": power, "unit_type": unit_type, "location": location, "bid": bid,
            "owner": owner, "order": order}


def _seize_fief(power: str, words: list[str]) -> Json | None:
    if len(words) != 3 or words[1] != "FIEF":
        return None
    return {"type": "SeizeFief", "power": power, "province": _province(words[2])}


def _rebel(power: str, words: list[str]) -> Json | None:
    if len(words) != 4 or words[2] != "BID":
        return None
    return {"type": "Rebel", "power": power, "province": _province(words[1]), "bid": _amount(words[3])}


def _secure_loyalty(power: str, words: list[str]) -> Json | None:
    if len(words) != 4 or words[1:3] != ["LOYALTY", "BID"]:
        return None
    return {"type": "SecureLoyalty", "power": power, "bid": _amount(words[3])}


def _lend(power: str, words: list[str]) -> Json | None:
    if len(words) != 3 or not _POWER.match(words[1]):
        return None
    return {"type": "Lend", "power": power, "to": words[1], "amount": _amount(words[2])}


def _waive(power: str, words: list[str]) -> Json | None:
    return {"type": "Waive", "power": power} if len(words) == 1 else None


_HEADS = {"waive": _waive, "VASSAL": _vassal, "BRIBE": _bribe, "SEIZE": _seize_fief, "REBEL": _rebel,
          "SECURE": _secure_loyalty, "LEND": _lend}


def order_json(text: str, phase: str) -> Json:
    """The JSON of the order ``text`` (``ENG: F nth - nwy``) in ``phase`` (``F1901R``: a move
    read in a retreat phase is a retreat)."""
    try:
        power, sep, body = text.partition(": ")
        if sep and (_POWER.match(power) or power == "NEU"):
            words = body.split(" ")
            order = _HEADS.get(words[0], _unit_order)(power, words)
            if order is not None:
                if order["type"] == "Move" and not order["via_convoy"] and phase.endswith("R"):
                    del order["via_convoy"]
                    order["type"] = "Retreat"
                return order
    except (KeyError, IndexError, ValueError):
        pass
    raise FrozenNotationError(f"not an order as the judge writes it (like 'ENG: F nth - nwy'): {text!r}")


def _unit_text(unit_type: str | None, location: str) -> str:
    return f"{unit_type} {location}" if unit_type else location


def _body(order: Json) -> str:
    kind = order["type"]
    if kind == "Waive":
        return "waive"
    if kind == "Vassal":
        return f"VASSAL {_unit_text(order['unit_type'], order['location'])} BID {order['bid']}"
    if kind == "Bribe":
        owner = f"{order['owner']} " if order.get("owner") else ""
        text = f"BRIBE {owner}{_unit_text(order['unit_type'], order['location'])} BID {order['bid']}"
        return f"{text} {_body(order['order'])}" if order.get("order") else text
    if kind == "SeizeFief":
        return f"SEIZE FIEF {order['province']}"
    if kind == "Rebel":
        return f"REBEL {order['province']} BID {order['bid']}"
    if kind == "SecureLoyalty":
        return f"SECURE LOYALTY BID {order['bid']}"
    if kind == "Lend":
        return f"LEND {order['to']} {order['amount']}"
    unit = _unit_text(order["unit_type"], order["location"])
    if kind == "Hold":
        return f"{unit} H"
    if kind == "Move":
        return f"{unit} - {order['destination']}" + (" via convoy" if order["via_convoy"] else "")
    if kind == "Retreat":
        return f"{unit} - {order['destination']}"
    if kind == "SupportHold":
        return f"{unit} S {_unit_text(order['target_type'], order['target'])}"
    if kind in ("SupportMove", "Convoy"):
        verb = "S" if kind == "SupportMove" else "C"
        return f"{unit} {verb} {_unit_text(order['target_type'], order['target'])} - {order['destination']}"
    if kind == "Disband":
        return f"{unit} disband"
    if kind == "Build":
        return f"{unit} build"
    raise FrozenNotationError(f"an order of an unknown type: {order!r}")


def order_text(order: Json) -> str:
    """The text of the order whose JSON is ``order``: ``ENG: F nth - nwy``."""
    return f"{order['power']}: {_body(order)}"
