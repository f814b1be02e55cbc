"""The DATC v3.0 test cases (and the Math of Adjudication's figures), one test id per case.

The data (tests/data/datc/) follows its schema's conventions: without ``starting_state`` the
units are those the orders name; a Retreat case runs its ``preceding_main_phase`` first; in a
Build case supply centres have their standard owners, changed by ``occupiers`` and by the
units of ``starting_state`` standing in centres. "Succeeds" means the order succeeded,
"Fails" that it failed or was invalid, null is not checked. The order lines are read by the
players' grammar (:func:`grammar.parse_order`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from adjudicator.adjudicate import adjudicate
from adjudicator.orders import Disband, Order
from adjudicator.position import Position
from adjudicator.results import Adjudication, Outcome
from adjudicator.variant import get_variant
from adjudicator.vocab import Phase, Power, ProvinceId, Unit
from grammar import parse_order

# -- reading the data: its units, its cases, its order lines ------------------------------------

DATA = Path(__file__).resolve().parents[1] / "data" / "datc"


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


# -- the cases ----------------------------------------------------------------------------------

STANDARD = get_variant("standard")
CASES = load_cases("datc.json") + load_cases("dipmath.json")


def _expectations(adjudication: Adjudication, lines) -> list[str]:
    wrong = []
    for (text, expected), result in zip(lines, adjudication.results, strict=True):
        if expected is None:
            continue
        succeeded = result.outcome is Outcome.SUCCEEDS
        if succeeded != (expected == "Succeeds"):
            wrong.append(f"{text}: expected {expected}, got {result.outcome.value} ({result.reason})")
    return wrong


def _units(starting_state, orders):
    if starting_state is not None:
        return tuple(read_unit(u) for u in starting_state)
    units = {}
    for order in orders:
        units.setdefault(order.province, unit_of(order))
    return tuple(units.values())


def _main(data: dict, phase: str = "S1901M") -> tuple[Adjudication, list[str]]:
    lines = order_lines(data)
    orders = [read_order(text, STANDARD, Phase.parse(phase)) for text, _ in lines]
    position = Position("standard", Phase.parse(phase), _units(data.get("starting_state"), orders),
                        STANDARD.starting_owners)
    adjudication = adjudicate(STANDARD, position, orders)
    return adjudication, _expectations(adjudication, lines)


def _retreat(data: dict) -> list[str]:
    main, wrong = _main(data["preceding_main_phase"])
    after = main.position
    position = Position("standard", Phase.parse("S1901R"), after.units, after.supply_centers,
                        dislodged=main.events.dislodged, standoffs=frozenset(main.events.standoffs))
    lines = order_lines(data)
    orders = [read_order(text, STANDARD, position.phase) for text, _ in lines]
    adjudication = adjudicate(STANDARD, position, orders)
    return wrong + _expectations(adjudication, lines)


def _build(data: dict) -> list[str]:
    units = tuple(read_unit(u) for u in data.get("starting_state", ()))
    owners = dict(STANDARD.starting_owners)
    owners.update({ProvinceId(p): Power(w) for p, w in data.get("occupiers", {}).items()})
    owners.update({u.province: u.power for u in units if u.province in owners})
    position = Position("standard", Phase.parse("W1901B"), units, owners)
    lines = order_lines(data)
    orders = [read_order(text, STANDARD, position.phase) for text, _ in lines]
    adjudication = adjudicate(STANDARD, position, orders)
    wrong = _expectations(adjudication, lines)
    disorder = sorted(str(r.order.power) + ": " + r.order.unit_text for r in adjudication.implicit
                      if isinstance(r.order, Disband))
    expected = sorted(str(read_unit(u)) for u in data.get("civil_disorder", ()))
    if disorder != expected:
        wrong.append(f"civil disorder removed {disorder}, expected {expected}")
    return wrong


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_datc(case):
    data = case.data
    if data["phase"] == "Main":
        wrong = _main(data)[1]
    elif data["phase"] == "Retreat":
        wrong = _retreat(data)
    else:
        wrong = _build(data)
    assert not wrong, "\n".join(wrong)


def test_case_ids_are_unique():
    ids = [c.id for c in CASES]
    assert len(ids) == len(set(ids))
