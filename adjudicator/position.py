"""Positions: everything on the board at the start of a phase, as an immutable value."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import TYPE_CHECKING, Any
from collections.abc import Callable, Iterable, Mapping

from .vocab import NEUTRAL, Phase, Power, ProvinceId, Unit


def _frozen(mapping: Mapping[Any, Any] | None) -> Mapping[Any, Any]:
    return MappingProxyType(dict(mapping or {}))


_NO_MODULES: Mapping[str, object] = MappingProxyType({})


def _modules(mapping: Mapping[str, object] | None) -> Mapping[str, object]:
    """Each rule module's state by name, read-only; a module without state (None) is left out."""
    if not mapping:
        return _NO_MODULES
    return MappingProxyType({name: state for name, state in mapping.items() if state is not None})


@dataclass(frozen=True)
class Dislodgement:
    """A unit dislodged in the movement phase just adjudicated, waiting to retreat."""

    unit: Unit
    attacker_from: ProvinceId
    by_convoy: bool = False


@dataclass(frozen=True, init=False)
class Position:
    """A position: the phase to be played and the board as it stands.

    ``supply_centers`` gives the owner of every supply centre (``NEU`` for neutral).
    ``units`` is ordered as given; use :meth:`unit_at` to look one up by province.
    ``modules`` holds each rule module's own part of the position by the module's name (a
    read-only mapping; each value's type is its module's, and only its module looks inside it:
    :func:`module_state` and :meth:`with_module_state`).
    """

    variant: str
    phase: Phase
    units: tuple[Unit, ...]
    supply_centers: Mapping[ProvinceId, Power]
    dislodged: tuple[Dislodgement, ...] = ()
    standoffs: frozenset[ProvinceId] = frozenset()
    rules: frozenset[str] = frozenset()
    eliminated: frozenset[Power] = frozenset()
    modules: Mapping[str, object] = dataclasses.field(default_factory=lambda: _NO_MODULES)
    if TYPE_CHECKING:       # set by __init__ beside the fields, never a field itself
        _index: dict[ProvinceId, Unit] = dataclasses.field(init=False, repr=False, compare=False)

    def __init__(self, variant: str, phase: Phase, units: Iterable[Unit], supply_centers: Mapping[ProvinceId, Power],
                 dislodged: Iterable[Dislodgement] = (), standoffs: Iterable[ProvinceId] = frozenset(),
                 rules: Iterable[str] = frozenset(), eliminated: Iterable[Power] = frozenset(),
                 modules: Mapping[str, object] | None = None) -> None:
        # Each field stored as _NORMALISE says, all at once (a frozen dataclass's own __init__
        # sets them one by one through object.__setattr__).
        units = tuple(units)
        self.__dict__.update(variant=variant, phase=phase, units=units, supply_centers=_frozen(supply_centers),
                             dislodged=tuple(dislodged), standoffs=frozenset(standoffs), rules=frozenset(rules),
                             eliminated=frozenset(eliminated), modules=_modules(modules),
                             _index=_unit_index(units))

    def unit_at(self, province: ProvinceId) -> Unit | None:
        return self._index.get(province)

    @property
    def unit_index(self) -> Mapping[ProvinceId, Unit]:
        """Each unit by its province, in the order of ``units`` (read-only)."""
        return MappingProxyType(self._index)

    def units_of(self, power: Power) -> list[Unit]:
        return [u for u in self.units if u.power == power]

    def centers_of(self, power: Power) -> list[ProvinceId]:
        return sorted(p for p, owner in self.supply_centers.items() if owner == power)

    def powers_in_game(self, powers: Iterable[Power]) -> list[Power]:
        """Of ``powers``, in their order, those still in the game: not eliminated, owning a supply
        centre or a unit (decision 10). The one answer to who is still playing."""
        owners = set(self.supply_centers.values())
        owners.update(u.power for u in self.units)
        return [p for p in powers if p in owners and p not in self.eliminated]

    def center_counts(self) -> dict[Power, int]:
        counts: dict[Power, int] = {}
        for owner in self.supply_centers.values():
            if owner != NEUTRAL:
                counts[owner] = counts.get(owner, 0) + 1
        return counts

    def with_module_state(self, name: str, state: object | None) -> Position:
        """A copy whose rule module ``name`` has ``state`` (None: none). Only the module calls this,
        and the core where it sets a module's part of an opening or of a position document."""
        return self.with_changes(modules={**self.modules, name: state})

    def with_changes(self, **changes: Any) -> Position:
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


def module_state(position: Position, name: str) -> object | None:
    """Rule module ``name``'s part of ``position``, None when it has none. Only the module reads
    inside it (the core and the front ends pass it on, or ask the module)."""
    return position.modules.get(name)


def units_by_province(position: Position) -> Mapping[ProvinceId, Unit]:
    """``position.unit_index`` without the read-only view: the position's own index, for the
    engine's checks and resolver, which read it on every order and never change it."""
    return position._index


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
_NORMALISE: dict[str, Callable[[Any], object]] = {"units": tuple, "dislodged": tuple, "standoffs": frozenset, "rules": frozenset,
              "eliminated": frozenset, "supply_centers": _frozen, "modules": _modules}
_FIELD_NAMES = frozenset(f.name for f in dataclasses.fields(Position))
