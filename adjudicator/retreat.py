"""Resolving a retreat phase: legal retreats go through unless two or more meet in one place.

Orders reach :func:`resolve_retreats` already checked (:mod:`.validate`): a retreat is legal
only to an adjacent, empty province that is neither where the attacker came from (unless it came
by convoy) nor left empty by a standoff. Two or more retreats to one province all fail and
those units are disbanded (DATC 6.H.7, 6.H.8); a dislodged unit without an order disbands.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from collections.abc import Mapping

from .orders import Disband, Retreat
from .position import Position
from .results import OrderResult, Outcome
from .validate import province_name
from .vocab import ProvinceId, Unit
from .variant import Variant

SUCCEEDS, FAILS = Outcome.SUCCEEDS, Outcome.FAILS


@dataclass(frozen=True)
class RetreatOutcome:
    """``results``: province of each dislodged unit -> the result of its order (of the judge's
    disband for those without one); ``units``: the board after the retreats."""

    results: Mapping[ProvinceId, OrderResult]
    units: tuple[Unit, ...]
    disbanded: tuple[Unit, ...]
    ordered: frozenset[ProvinceId]


def resolve_retreats(variant: Variant, position: Position, orders: Mapping[ProvinceId, Retreat | Disband]) -> RetreatOutcome:
    """Resolve legal ``orders`` (by the province of the dislodged unit) of ``position``."""
    wanted = Counter(o.destination.province for o in orders.values() if isinstance(o, Retreat))
    results, units, disbanded = {}, list(position.units), []
    for d in position.dislodged:
        unit, p = d.unit, d.unit.province
        order = orders.get(p)
        if order is None:
            results[p] = OrderResult(Disband(unit.power, unit.type, unit.location), SUCCEEDS,
                                     "no retreat ordered: the unit is disbanded")
            disbanded.append(unit)
        elif isinstance(order, Disband):
            results[p] = OrderResult(order, SUCCEEDS, "disbanded")
            disbanded.append(unit)
        elif wanted[order.destination.province] > 1:
            where = province_name(variant, order.destination.province)
            results[p] = OrderResult(order, FAILS, f"bounced: another unit also retreated to {where}; disbanded")
            disbanded.append(unit)
        else:
            results[p] = OrderResult(order, SUCCEEDS, f"retreats to {province_name(variant, order.destination.province)}")
            units.append(Unit(unit.power, unit.type, order.destination))
    return RetreatOutcome(results=results, units=tuple(units), disbanded=tuple(disbanded),
                          ordered=frozenset(orders))
