"""The map questions the checks and the resolver ask on every order, answered once per variant.

:func:`map_tables` turns a :class:`~adjudicator.variant.Variant` into plain dictionaries keyed
by province id (and coast), so that a phase's hot loops do string lookups only: no
:class:`~adjudicator.vocab.Location` is built or hashed to ask who touches whom.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from collections.abc import Mapping

from .vocab import Location, ProvinceId, ProvinceKind, UnitType
from .variant import Province, Variant

_COAST_WORDS = {"nc": "north", "sc": "south", "ec": "east", "wc": "west"}


@dataclass(frozen=True, eq=False)
class MapTables:
    """Lookup tables of one variant.

    ``kind``: each province's kind. ``coasts``: the named coasts of each province (empty for
    most). ``army_adjacent``: the provinces an army may move to. ``neighbours``: every province
    touching each province, for any unit type and coast. ``fleet_reach``: for a fleet at
    (province, coast), the coasts of each province it can move to (``None`` for a province
    without named coasts), sorted as :meth:`Variant.fleet_can_reach` sorts them. ``seas``: the
    sea provinces; ``shores``: land touching a sea (where convoys start and end). ``names``:
    each province's name as it reads in a sentence ("the North Sea").

    The last three are keyed by a unit as it stands, (unit type, province, coast or None):

    ``steps`` lists where the unit can move by itself, each destination keyed as an order may
    name it, (province, coast or None), with the destination understood: an army's coast
    dropped, a fleet's only reachable coast filled in. ``reach``: the provinces it could move
    to by itself, any coast (where it may support). ``supported``: the destinations a support
    may name for a move of the unit, keyed as ``steps``, understood as the support is (an
    army's coast dropped; a fleet's coast may be left out, DATC 6.B.7). A destination not
    listed needs the full check.
    """

    kind: Mapping[ProvinceId, ProvinceKind]
    coasts: Mapping[ProvinceId, tuple[str, ...]]
    army_adjacent: Mapping[ProvinceId, frozenset[ProvinceId]]
    neighbours: Mapping[ProvinceId, frozenset[ProvinceId]]
    fleet_reach: Mapping[tuple[ProvinceId, str | None], Mapping[ProvinceId, tuple[str | None, ...]]]
    seas: frozenset[ProvinceId]
    shores: frozenset[ProvinceId]
    names: Mapping[ProvinceId, str]
    steps: Mapping[tuple[UnitType, ProvinceId, str | None], Mapping[tuple[ProvinceId, str | None], Location]]
    reach: Mapping[tuple[UnitType, ProvinceId, str | None], frozenset[ProvinceId]]
    supported: Mapping[tuple[UnitType, ProvinceId, str | None], Mapping[tuple[ProvinceId, str | None], Location]]

    def fleet_coasts(self, source: Location, province: ProvinceId) -> tuple[str | None, ...]:
        """The coasts of ``province`` a fleet at ``source`` can move to (empty: not adjacent)."""
        return self.fleet_reach.get((source.province, source.coast), _NOWHERE).get(province, ())

    def name(self, province: ProvinceId) -> str:
        return self.names.get(province, province)

    def location_name(self, location: Location) -> str:
        """``the north coast of Spain``, ``Picardy``."""
        name = self.names.get(location.province, location.province)
        if location.coast:
            return f"the {_COAST_WORDS.get(location.coast, location.coast)} coast of {name}"
        return name


_NOWHERE: Mapping[ProvinceId, tuple[str | None, ...]] = {}


@functools.lru_cache(maxsize=8)
def map_tables(variant: Variant) -> MapTables:
    """The lookup tables of ``variant`` (built on first use, then shared)."""
    provinces = variant.provinces
    neighbours = {p: variant.province_neighbours(p) for p in provinces}
    seas = frozenset(p for p, prov in provinces.items() if prov.kind is ProvinceKind.SEA)
    shores = frozenset(p for p, prov in provinces.items()
                       if prov.kind is ProvinceKind.COAST and neighbours[p] & seas)
    fleet_reach: dict[tuple[ProvinceId, str | None], dict[ProvinceId, tuple[str | None, ...]]] = {}
    for p in provinces:
        for source in variant.fleet_locations(p):
            targets = {x.province for x in variant.fleet_neighbours(source)}
            fleet_reach[(source.province, source.coast)] = {t: variant.fleet_can_reach(source, t) for t in targets}
    coasts = {p: prov.coasts for p, prov in provinces.items()}
    army_adjacent = {p: variant.army_neighbours(p) for p in provinces}
    StepKey = tuple[UnitType, ProvinceId, str | None]
    steps: dict[StepKey, dict[tuple[ProvinceId, str | None], Location]] = {}
    reach: dict[StepKey, frozenset[ProvinceId]] = {}
    supported: dict[StepKey, dict[tuple[ProvinceId, str | None], Location]] = {}
    for p, adjacent in army_adjacent.items():
        if provinces[p].kind is not ProvinceKind.SEA:
            steps[ARMY, p, None] = supported[ARMY, p, None] = _army_steps(adjacent, coasts)
            reach[ARMY, p, None] = frozenset(adjacent)
    for (p, coast), fleet in fleet_reach.items():
        steps[FLEET, p, coast] = _fleet_steps(fleet, coasts)
        reach[FLEET, p, coast] = frozenset(fleet)
        supported[FLEET, p, coast] = _fleet_supported(fleet, coasts)
    return MapTables(
        kind={p: prov.kind for p, prov in provinces.items()},
        coasts=coasts,
        army_adjacent=army_adjacent,
        neighbours=neighbours,
        fleet_reach=fleet_reach,
        seas=seas,
        shores=shores,
        names={p: _in_sentence(prov) for p, prov in provinces.items()},
        steps=steps,
        reach=reach,
        supported=supported,
    )


ARMY, FLEET = UnitType.ARMY, UnitType.FLEET


def _army_steps(adjacent: frozenset[ProvinceId], coasts: Mapping[ProvinceId, tuple[str, ...]]
                ) -> dict[tuple[ProvinceId, str | None], Location]:
    """An army's moves: to each adjacent province, named with or without one of its coasts."""
    steps: dict[tuple[ProvinceId, str | None], Location] = {}
    for p in adjacent:
        steps[(p, None)] = Location(p)
        for c in coasts[p]:
            steps[(p, c)] = Location(p)
    return steps


def _fleet_steps(reach: Mapping[ProvinceId, tuple[str | None, ...]], coasts: Mapping[ProvinceId, tuple[str, ...]]
                 ) -> dict[tuple[ProvinceId, str | None], Location]:
    """A fleet's moves: to each province it reaches, at a coast it reaches; the coast may be
    left out where the province has no named coasts or the fleet reaches only one of them."""
    steps: dict[tuple[ProvinceId, str | None], Location] = {}
    for p, reached in reach.items():
        if not coasts[p]:
            steps[(p, None)] = Location(p)
            continue
        for c in reached:
            steps[(p, c)] = Location(p, c)
        if len(reached) == 1:
            steps[(p, None)] = Location(p, reached[0])
    return steps


def _fleet_supported(reach: Mapping[ProvinceId, tuple[str | None, ...]], coasts: Mapping[ProvinceId, tuple[str, ...]]
                     ) -> dict[tuple[ProvinceId, str | None], Location]:
    """A fleet's moves as a support names them: to each province it reaches, with no coast or
    a coast it reaches; to a province without coasts, also with any coast named (and dropped)."""
    steps: dict[tuple[ProvinceId, str | None], Location] = {}
    for p, reached in reach.items():
        steps[(p, None)] = Location(p)
        if coasts[p]:
            for c in reached:
                steps[(p, c)] = Location(p, c)
        else:
            for c in _COAST_WORDS:
                steps[(p, c)] = Location(p)
    return steps


def _in_sentence(province: Province) -> str:
    """``Picardy``, ``the North Sea``."""
    if province.kind is ProvinceKind.SEA and not province.name.startswith("the "):
        return f"the {province.name}"
    return province.name
