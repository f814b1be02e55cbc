"""The service's window on the rules: parse and check orders, adjudicate, ask who must order.

Positions travel as the command-line contract's position documents, so what the service
stores is exactly what ``crusader adjudicate`` and ``crusader verify`` read.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from adjudicator.orders import Bribe, Lend, Order, Rebel, SecureLoyalty, SeizeFief, Vassal, Waive, canonical
from adjudicator.position import Position
from adjudicator.variant import Variant
from adjudicator.vocab import NEUTRAL, PhaseKind, Power, ProvinceId

from ..documents import adjudicate_document, position_from_dict, position_to_dict


@dataclass(frozen=True)
class Line:
    """One written order and what the judge made of it: an order, or the reason it was refused."""

    written: str
    order: Order | None = None
    reason: str | None = None

    @property
    def canonical(self) -> str | None:
        return canonical(self.order) if self.order is not None else None


def load(doc: dict[str, Any]) -> tuple[Variant, Position]:
    return position_from_dict({k: v for k, v in doc.items() if k != "orders"})


def dump(position: Position, variant: Variant) -> dict[str, Any]:
    return position_to_dict(position, variant)


def read_orders(text: str, variant: Variant, position: Position, power: Power,
                bids: Iterable[ProvinceId] = ()) -> list[Line]:
    """Every order line of ``text`` read as ``power``'s and checked against ``position``.

    The grammar passes over what is not meant as orders (greetings, quoted replies, the
    signature); each line it could not read, and each order illegal here, comes back with
    the reason. A unit ``power`` bids for with VASSAL or BRIBE (in ``text``, or ``bids``: the
    provinces of its standing bids) may be ordered too: the order is carried out if the bid
    wins (rule 2.4.1).
    """
    from grammar import parse_message
    from adjudicator.adjudicate import validate

    parsed = parse_message(text, variant, power, phase=position.phase)
    bid_on = set(bids) | {ln.order.location.province for ln in parsed.lines if isinstance(ln.order, (Vassal, Bribe))}
    out = []
    for line in parsed.lines:
        if line.joined_to is not None:
            continue  # the bribed unit's order, part of the BRIBE line before it
        if line.order is None:
            out.append(Line(line.text.strip(), reason=str(line.error)))
            continue
        province = getattr(line.order, "location", None)
        commander = ({province.province: power}
                     if province is not None and province.province in bid_on
                     and not isinstance(line.order, (Vassal, Bribe)) else None)
        reason = validate(variant, position, line.order, commander=commander)
        out.append(Line(line.text.strip(), order=line.order) if reason is None
                   else Line(line.text.strip(), reason=reason))
    return out


def order_key(order: Order, index: int) -> str:
    """What a later order replaces: the same unit, the same bid, the same build site."""
    match order:
        case Waive():
            return f"waive:{index}"
        case Vassal():
            return f"vassal:{order.location.province}"
        case Bribe():
            return f"bribe:{order.location.province}"
        case SeizeFief():
            return f"fief:{order.province}"
        case Rebel():
            return f"rebel:{order.province}"
        case SecureLoyalty():
            return "loyalty"
        case Lend():
            return f"lend:{order.to}"
        case _:  # a unit's order, a build or a disband
            return f"unit:{order.location.province}"


def adjudicate(position_doc: dict[str, Any], order_texts: list[str]) -> dict[str, Any]:
    """The contract's result document for the stored position and the standing orders."""
    return adjudicate_document({**position_doc, "orders": list(order_texts)})


def _buildable(variant: Variant, position: Position, power: Power) -> int:
    homes = (position.prestige.home_centers.get(power, variant.home_centers(power))
             if position.prestige is not None else variant.home_centers(power))
    return sum(1 for p in homes if position.supply_centers.get(p) == power and position.unit_at(p) is None)


def powers_to_order(variant: Variant, position: Position) -> set[Power]:
    """The powers that have something to decide in this phase."""
    kind = position.phase.kind
    if kind is PhaseKind.MOVEMENT:
        return {u.power for u in position.units if u.power != NEUTRAL} - set(position.eliminated)
    if kind is PhaseKind.RETREAT:
        return {d.unit.power for d in position.dislodged if d.unit.power != NEUTRAL}
    out = set()
    counts = position.center_counts()
    for power in variant.powers:
        delta = counts.get(power, 0) - len(position.units_of(power))
        if delta < 0 or (delta > 0 and _buildable(variant, position, power) > 0):
            out.add(power)
    return out


def survivors(variant: Variant, position: Position) -> list[Power]:
    counts = position.center_counts()
    return sorted(p for p in variant.powers
                  if p not in position.eliminated and (counts.get(p, 0) or position.units_of(p)))


def winner(doc: dict[str, Any]) -> Power | None:
    """The power holding enough centres to win in a position document, if any (without parsing it)."""
    from adjudicator.variant import get_variant

    variant = get_variant(doc["variant"])
    owners = {**variant.starting_owners, **doc.get("supply_centers", {})}
    counts: dict[str, int] = {}
    for owner in owners.values():
        counts[owner] = counts.get(owner, 0) + 1
    return next((Power(p) for p, n in sorted(counts.items()) if p != NEUTRAL and n >= variant.victory_centers), None)
