"""Positions: everything on the board at the start of a phase, as an immutable value."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Iterable, Mapping

from .vocab import NEUTRAL, Location, Phase, Power, ProvinceId, Unit


def _frozen(mapping: Mapping | None) -> Mapping:
    return MappingProxyType(dict(mapping or {}))


@dataclass(frozen=True)
class Dislodgement:
    """A unit dislodged in the movement phase just adjudicated, waiting to retreat."""

    unit: Unit
    attacker_from: ProvinceId
    by_convoy: bool = False


@dataclass(frozen=True)
class PrestigeState:
    """The prestige module's part of a position (see ``adjudicator.prestige``).

    ``prestige`` is what each power may spend now; ``prestige_start`` what it began the year
    with; ``home_centers`` the current home centres (starting plus seized fiefs);
    ``neutral_homes`` the home of every neutral unit not standing in its own home;
    ``vassals`` maps a neutral's home province to its lord for this year; ``annihilations``
    carries this year's annihilation bonus/malus to the winter recalculation; ``bribed``
    names the units a briber commanded in the movement phase just adjudicated (province ->
    briber), kept through its retreat phase because a bribed unit never captures (2.5.6, 2.8.5);
    ``seed`` drives the random neutral retreats (3.4).
    """

    prestige: Mapping[Power, int] = field(default_factory=dict)
    prestige_start: Mapping[Power, int] = field(default_factory=dict)
    home_centers: Mapping[Power, tuple[ProvinceId, ...]] = field(default_factory=dict)
    neutral_homes: Mapping[Location, ProvinceId] = field(default_factory=dict)
    vassals: Mapping[ProvinceId, Power] = field(default_factory=dict)
    annihilations: Mapping[Power, int] = field(default_factory=dict)
    seed: int = 0
    bribed: Mapping[ProvinceId, Power] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in ("prestige", "prestige_start", "home_centers", "neutral_homes", "vassals", "annihilations",
                     "bribed"):
            object.__setattr__(self, name, _frozen(getattr(self, name)))


@dataclass(frozen=True, init=False)
class Position:
    """A position: the phase to be played and the board as it stands.

    ``supply_centers`` gives the owner of every supply centre (``NEU`` for neutral).
    ``units`` is ordered as given; use :meth:`unit_at` to look one up by province.
    """

    variant: str
    phase: Phase
    units: tuple[Unit, ...]
    supply_centers: Mapping[ProvinceId, Power]
    dislodged: tuple[Dislodgement, ...] = ()
    standoffs: frozenset[ProvinceId] = frozenset()
    rules: frozenset[str] = frozenset()
    eliminated: frozenset[Power] = frozenset()
    prestige: PrestigeState | None = None

    def __init__(self, variant: str, phase: Phase, units: Iterable[Unit], supply_centers: Mapping[ProvinceId, Power],
                 dislodged: Iterable[Dislodgement] = (), standoffs: Iterable[ProvinceId] = frozenset(),
                 rules: Iterable[str] = frozenset(), eliminated: Iterable[Power] = frozenset(),
                 prestige: PrestigeState | None = None) -> None:
        # Each field stored as _NORMALISE says, all at once (a frozen dataclass's own __init__
        # sets them one by one through object.__setattr__).
        units = tuple(units)
        self.__dict__.update(variant=variant, phase=phase, units=units, supply_centers=_frozen(supply_centers),
                             dislodged=tuple(dislodged), standoffs=frozenset(standoffs), rules=frozenset(rules),
                             eliminated=frozenset(eliminated), prestige=prestige, _index=_unit_index(units))

    def unit_at(self, province: ProvinceId) -> Unit | None:
        return self._index.get(province)  # type: ignore[attr-defined]

    @property
    def unit_index(self) -> Mapping[ProvinceId, Unit]:
        """Each unit by its province, in the order of ``units`` (read-only)."""
        return MappingProxyType(self._index)  # type: ignore[attr-defined]

    def units_of(self, power: Power) -> list[Unit]:
        return [u for u in self.units if u.power == power]

    def centers_of(self, power: Power) -> list[ProvinceId]:
        return sorted(p for p, owner in self.supply_centers.items() if owner == power)

    def center_counts(self) -> dict[Power, int]:
        counts: dict[Power, int] = {}
        for owner in self.supply_centers.values():
            if owner != NEUTRAL:
                counts[owner] = counts.get(owner, 0) + 1
        return counts

    def with_changes(self, **changes) -> Position:
        """A copy with ``changes`` (field name -> value), checked as the constructor checks them."""
        if not _FIELD_NAMES.issuperset(changes):
            return replace(self, **changes)     # raises the usual TypeError for the unknown name
        fields = self.__dict__.copy()
        for name, value in changes.items():
            normalise = _NORMALISE.get(name)
            fields[name] = value if normalise is None else normalise(value)
        if "units" in changes:
            fields["_index"] = _unit_index(fields["units"])
        copy = object.__new__(Position)
        copy.__dict__.update(fields)
        return copy


def units_by_province(position: Position) -> Mapping[ProvinceId, Unit]:
    """``position.unit_index`` without the read-only view: the position's own index, for the
    engine's checks and resolver, which read it on every order and never change it."""
    return position._index  # type: ignore[attr-defined]


def _unit_index(units: tuple[Unit, ...]) -> dict[ProvinceId, Unit]:
    """Each unit by its province; two units in one province are an error."""
    index = {unit.location.province: unit for unit in units}
    if len(index) == len(units):
        return index
    index = {}
    for unit in units:
        province = unit.location.province
        if province in index:
            raise ValueError(f"two units in {province}: {index[province]} and {unit}")
        index[province] = unit
    return index


# How each field of a Position is stored, whatever iterable or mapping it was given as.
_NORMALISE = {"units": tuple, "dislodged": tuple, "standoffs": frozenset, "rules": frozenset,
              "eliminated": frozenset, "supply_centers": _frozen}
_FIELD_NAMES = frozenset(f.name for f in dataclasses.fields(Position))


def starting_position(variant, rules: Iterable[str] = ()) -> Position:
    """The variant's opening position (prestige state filled in by the prestige module)."""
    all_rules = frozenset(variant.rules) | frozenset(rules)
    position = Position(
        variant=variant.name,
        phase=variant.start_phase,
        units=variant.starting_units,
        supply_centers=variant.starting_owners,
        rules=all_rules,
    )
    if "prestige" in all_rules:
        from .prestige import initial_state  # the rule module is optional

        position = position.with_changes(prestige=initial_state(variant, position))
    return position
