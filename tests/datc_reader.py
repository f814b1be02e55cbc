"""Reading the DATC test data (tests/data/datc/): its units and its cases.

The order lines (``ENG: F nth -> pic``, ``ENG: F nth convoys A lon -> bel``,
``FRA: A gas -> mar via convoy``, ``GER: A ber build``, coasts as ``spa(nc)``) are read by the
players' own grammar, :func:`grammar.parse_order`, as a player's message would be.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from adjudicator.orders import Order
from adjudicator.vocab import Phase, Unit
from grammar import parse_order

DATA = Path(__file__).parent / "data" / "datc"


def read_order(text: str, variant, phase: Phase) -> Order:
    return parse_order(text, variant, phase=phase)


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
