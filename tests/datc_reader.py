"""Reading the DATC test data (tests/data/datc/): its order notation and its cases.

The notation is the data file's own, with province ids: ``ENG: F nth -> pic``,
``ENG: F nth convoys A lon -> bel``, ``AUS: A vie supports A ven -> tri``, ``ITA: A ven hold``,
``FRA: A gas -> mar via convoy``, ``GER: A ber build``, ``FRA: A par disband``, coasts as
``spa(nc)``. In a retreat phase a move is a retreat. This reader knows only this notation;
the players' grammar is :mod:`grammar`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from adjudicator.orders import Build, Convoy, Disband, Hold, Move, Order, Retreat, SupportHold, SupportMove
from adjudicator.vocab import Location, Power, Unit, UnitType

DATA = Path(__file__).parent / "data" / "datc"

_UNIT = r"(?:([AF]) )?([a-z]{3}(?:\([a-z]{2}\))?)"
_ORDER = re.compile(
    rf"^([A-Z]{{3}}): {_UNIT}(?: (?P<rest>.*))?$", re.IGNORECASE)
_MOVE = re.compile(rf"^-> {_UNIT}(?P<via> via convoy)?$", re.IGNORECASE)
_SUPPORT = re.compile(rf"^(supports|convoys) {_UNIT}(?: -> {_UNIT})?$", re.IGNORECASE)


def _loc(text: str) -> Location:
    return Location.parse(text.lower())


def _type(text: str | None) -> UnitType | None:
    return UnitType.parse(text) if text else None


def read_order(text: str, *, retreat: bool = False) -> Order:
    m = _ORDER.match(text.strip())
    if not m:
        raise ValueError(f"not DATC notation: {text!r}")
    power, utype, loc = Power(m.group(1)), _type(m.group(2)), _loc(m.group(3))
    rest = (m.group("rest") or "hold").strip()
    word = rest.lower()
    if word in ("hold", "holds"):
        return Hold(power, utype, loc)
    if word == "build":
        return Build(power, utype, loc)
    if word in ("disband", "remove"):
        return Disband(power, utype, loc)
    if mv := _MOVE.match(rest):
        dest = _loc(mv.group(2))
        if retreat:
            return Retreat(power, utype, loc, dest)
        return Move(power, utype, loc, dest, via_convoy=bool(mv.group("via")))
    if sp := _SUPPORT.match(rest):
        verb, ttype, target, dest = sp.group(1).lower(), sp.group(2), _loc(sp.group(3)), sp.group(5)
        if verb == "convoys":
            return Convoy(power, utype, loc, _type(ttype) or UnitType.ARMY, target, _loc(dest))
        if dest is None:
            return SupportHold(power, utype, loc, _type(ttype), target)
        return SupportMove(power, utype, loc, _type(ttype), target, _loc(dest))
    raise ValueError(f"not DATC notation: {text!r}")


def read_unit(text: str) -> Unit:
    return Unit.parse(text.replace("(", "/").replace(")", ""))


def unit_of(order: Order) -> Unit:
    return Unit(order.power, order.unit_type, order.location)


@dataclass(frozen=True)
class Case:
    name: str
    data: dict

    @property
    def id(self) -> str:
        edition = self.data.get("edition")
        return f"{self.name}-{edition}" if edition else self.name


def load_cases(filename: str) -> list[Case]:
    cases = json.loads((DATA / filename).read_text(encoding="utf-8"))["cases"]
    return [Case(c["name"], c) for c in cases]


def order_lines(data: dict) -> list[tuple[str, str | None]]:
    """A phase's orders with their expectations, in the order given."""
    return list(data.get("orders", {}).items()) + [tuple(x) for x in data.get("order_list", ())]
