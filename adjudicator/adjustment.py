"""Resolving an adjustment phase: builds, removals, waives and civil disorder.

Orders reach :func:`resolve_adjustments` already checked (:mod:`.validate`) and are taken one
by one in the order given (DATC 6.I.1, 6.J.1): a build succeeds while the power has builds
left and nothing was built in that centre yet (6.I.7); a removal succeeds while removals are
left and the unit was not removed already (6.J.2). A power that removes fewer units than it
must is in civil disorder for the rest (2023 rulebook, DATC 6.J): the units farthest from any
supply centre it owns go first, counting moves through any province (armies and fleets alike
may cross land and sea, so a split coast needs no special count); at equal distance a fleet
before an army, then alphabetical order of the province names.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from collections.abc import Collection, Sequence

from .orders import Build, Disband, Waive
from .position import Position, units_by_province
from .results import Outcome, Phrase
from .validate import adjustment_count, province_name
from .vocab import NEUTRAL, Power, ProvinceId, Unit, UnitType
from .variant import Variant

FLEET = UnitType.FLEET
SUCCEEDS, FAILS = Outcome.SUCCEEDS, Outcome.FAILS


@dataclass(frozen=True)
class Allowance:
    """What one power does in an adjustment phase: ``builds`` it may make (no more than its free
    ``sites``, the home centres it owns where no unit stands), or ``disbands`` it must make."""

    builds: int = 0
    sites: tuple[ProvinceId, ...] = ()
    disbands: int = 0

    def __bool__(self) -> bool:
        return bool(self.builds or self.disbands)


def allowance(position: Position, power: Power, home_centers: Sequence[ProvinceId]) -> Allowance:
    """``power``'s builds (at most one per free site) or disbands, with ``home_centers`` where it may build."""
    if power in position.eliminated:
        return Allowance()
    centres, units = adjustment_count(position, power)
    if units > centres:
        return Allowance(disbands=units - centres)
    if units == centres:
        return Allowance()
    owners, occupied = position.supply_centers, units_by_province(position)
    sites = tuple(h for h in home_centers if owners.get(h) == power and h not in occupied)
    return Allowance(builds=min(centres - units, len(sites)), sites=sites)


@dataclass(frozen=True)
class AdjustmentOutcome:
    """``results``: by index of the order given; ``implicit``: civil-disorder removals."""

    results: dict[int, tuple[Build | Disband | Waive, Outcome, str]]
    implicit: tuple[tuple[Disband, Outcome, str], ...]
    units: tuple[Unit, ...]
    built: tuple[Unit, ...]
    removed: tuple[Unit, ...]


def resolve_adjustments(variant: Variant, position: Position,
                        orders: Sequence[tuple[int, Build | Disband | Waive]]) -> AdjustmentOutcome:
    """Resolve legal ``orders`` (each with the index it was given at) of ``position``."""
    left: dict[Power, int] = {}
    built_in: set[ProvinceId] = set()
    removed: dict[ProvinceId, Unit] = {}
    built: list[Unit] = []
    results: dict[int, tuple[Build | Disband | Waive, Outcome, str]] = {}
    for i, order in orders:
        power = order.power
        if power not in left:
            centres, units = adjustment_count(position, power)
            left[power] = abs(centres - units)
        if isinstance(order, Build):
            where = province_name(variant, order.province)
            if order.province in built_in:
                results[i] = (order, FAILS, f"a unit is already being built in {where}")
            elif left[power] <= 0:
                results[i] = (order, FAILS, "no builds left: the others were used by earlier orders")
            else:
                left[power] -= 1
                built_in.add(order.province)
                assert order.unit_type is not None, "validation gives every build its unit type"
                new = Unit(power, order.unit_type, order.location)
                built.append(new)
                results[i] = (order, SUCCEEDS, Phrase("builds ", new, f" in {where}"))
        elif isinstance(order, Waive):
            if left[power] <= 0:
                results[i] = (order, FAILS, "no builds left to waive")
            else:
                left[power] -= 1
                results[i] = (order, SUCCEEDS, "a build waived")
        else:
            if order.province in removed:
                gone = removed[order.province]
                results[i] = (order, FAILS, Phrase(gone, " is already removed")
                              if gone.type is order.unit_type and gone.location == order.location
                              else f"{order.unit_text} is already removed")
            elif left[power] <= 0:
                results[i] = (order, FAILS, "no removals left: the others were made by earlier orders")
            else:
                left[power] -= 1
                unit = position.unit_at(order.province)
                assert unit is not None, "validation removes only a unit that stands there"
                removed[order.province] = unit
                results[i] = (order, SUCCEEDS, "removed")
    implicit = []
    for power in _powers_in(position):
        centres, units = adjustment_count(position, power)
        if centres >= units:
            continue
        done = sum(1 for u in removed.values() if u.power == power)
        for unit, distance in civil_disorder(variant, position, power, units - centres - done, removed):
            removed[unit.province] = unit
            owner = variant.power_name(power)
            moves = f"{distance} move{'s' if distance != 1 else ''}"
            why = (Phrase("civil disorder: ", unit, f" is {moves} from the nearest centre {owner} owns")
                   if distance != math.inf else f"civil disorder: {owner} owns no centre")
            implicit.append((Disband(power, unit.type, unit.location), SUCCEEDS, why))
    after = tuple(u for u in position.units if u.province not in removed) + tuple(built)
    return AdjustmentOutcome(results=results, implicit=tuple(implicit), units=after, built=tuple(built),
                             removed=tuple(removed.values()))


def _powers_in(position: Position) -> list[Power]:
    return sorted(({u.power for u in position.units} | set(position.supply_centers.values())) - {NEUTRAL})


def civil_disorder(variant: Variant, position: Position, power: Power, count: int,
                   exclude: Collection[ProvinceId] = ()) -> list[tuple[Unit, float]]:
    """The ``count`` units of ``power`` that civil disorder removes, with their distances."""
    if count <= 0:
        return []
    owned = position.centers_of(power)
    # armies and fleets count moves alike (Variant.distances_to): one search serves both
    distances = variant.distances_to(owned, FLEET) if owned else {}
    ranked: list[tuple[tuple[float, bool, str], Unit, float]] = []
    for unit in position.units:
        if unit.power != power or unit.province in exclude:
            continue
        distance = distances.get(unit.province, math.inf)
        name = variant.provinces[unit.province].name.lower()
        ranked.append(((-distance, unit.type is not FLEET, name), unit, distance))
    ranked.sort(key=lambda item: item[0])
    return [(unit, distance) for _, unit, distance in ranked[:count]]
