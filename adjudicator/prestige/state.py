"""The prestige part of a position (:class:`PrestigeState`, the module state ``prestige`` of a
position: :func:`state_of`, :func:`put_state`):
the opening state and the small questions the other prestige modules ask of it.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any
from collections.abc import Mapping, Sequence

from ..position import Position, module_state
from ..variant import Variant
from ..vocab import NEUTRAL, Location, Power, ProvinceId, Unit


@dataclass(frozen=True)
class PrestigeState:
    """The prestige module's part of a position (see ``adjudicator.prestige``).

    ``prestige`` is what each power may spend now; ``prestige_start`` what it began the year
    with; ``home_centers`` the current home centres (starting plus seized fiefs);
    ``neutral_homes`` the home of every neutral unit not standing in its own home;
    ``vassals`` maps each neutral unit held in vassaldom (by where it stands) to its lord for
    this year; ``annihilations`` carries this year's annihilation bonus/malus to the winter
    recalculation; ``bribed`` names the units a briber commanded in the movement phase just
    adjudicated and that still stand where they stood (province -> briber), kept through its
    retreat phase because a bribed unit never captures (2.5.6, 2.8.5); ``seed`` drives the
    random neutral retreats (3.4).

    In a retreat phase a dislodged unit stands in the same location as the unit that dislodged
    it, so the dislodged neutral units are kept apart: ``dislodged_homes`` has the home of every
    dislodged neutral unit (at home or not), ``dislodged_vassals`` the lord of each one held in
    vassaldom, both by where it was dislodged; ``neutral_homes`` and ``vassals`` are then those
    of the units on the board alone. Both are empty outside a retreat phase.
    """

    prestige: Mapping[Power, int] = field(default_factory=dict)
    prestige_start: Mapping[Power, int] = field(default_factory=dict)
    home_centers: Mapping[Power, tuple[ProvinceId, ...]] = field(default_factory=dict)
    neutral_homes: Mapping[Location, ProvinceId] = field(default_factory=dict)
    vassals: Mapping[Location, Power] = field(default_factory=dict)
    annihilations: Mapping[Power, int] = field(default_factory=dict)
    seed: int = 0
    bribed: Mapping[ProvinceId, Power] = field(default_factory=dict)
    dislodged_homes: Mapping[Location, ProvinceId] = field(default_factory=dict)
    dislodged_vassals: Mapping[Location, Power] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in ("prestige", "prestige_start", "home_centers", "neutral_homes", "vassals", "annihilations",
                     "bribed", "dislodged_homes", "dislodged_vassals"):
            object.__setattr__(self, name, _frozen(getattr(self, name)))


def _frozen(mapping: Mapping[Any, Any] | None) -> Mapping[Any, Any]:
    return MappingProxyType(dict(mapping or {}))


STARTING_PRESTIGE = 2
"""Rule 2.2: every power begins the first year with two prestige."""


def initial_state(variant: Variant, position: Position, *, seed: int = 0) -> PrestigeState:
    """The prestige state of a fresh game: 2 prestige each, the variant's home centres.

    Every neutral unit stands in its own home, so ``neutral_homes`` starts empty. ``seed``
    drives the random neutral retreats (rule 3.4); a game stores it so that every phase can
    be replayed exactly.
    """
    powers = [p for p in variant.powers if p not in position.eliminated]
    prestige = {p: STARTING_PRESTIGE for p in powers}
    homes = {p: tuple(variant.home_centers(p)) for p in variant.powers}
    return PrestigeState(prestige=prestige, prestige_start=dict(prestige), home_centers=homes, seed=seed)


NAME = "prestige"
"""The module's name: in ``rules``, and of its state among a position's ``modules``."""


def state_of(position: Position) -> PrestigeState:
    """The position's prestige state, or an empty one when the position has none yet."""
    state = module_state(position, NAME)
    return state if isinstance(state, PrestigeState) else PrestigeState()


def has_state(position: Position) -> bool:
    """Does ``position`` carry a prestige state (is it played with the prestige rules)?"""
    return isinstance(module_state(position, NAME), PrestigeState)


def put_state(position: Position, state: PrestigeState) -> Position:
    """The position with ``state`` as its prestige state (an immutable copy)."""
    return position.with_module_state(NAME, state)


def neutral_home(state: PrestigeState, unit: Unit, *, dislodged: bool = False) -> ProvinceId:
    """Where a neutral unit belongs: its recorded home, else where it stands. ``dislodged``: the
    unit is a dislodged one (in a retreat phase, the unit that dislodged it stands there too)."""
    if dislodged and unit.location in state.dislodged_homes:
        return state.dislodged_homes[unit.location]
    return state.neutral_homes.get(unit.location, unit.province)


def lord_of(state: PrestigeState, unit: Unit, *, dislodged: bool = False) -> Power | None:
    """The power holding this neutral unit in vassaldom this year, if any (``dislodged``: as
    :func:`neutral_home`)."""
    if unit.power != NEUTRAL:
        return None
    if dislodged and unit.location in state.dislodged_homes:
        return state.dislodged_vassals.get(unit.location)
    return state.vassals.get(unit.location)


def vassal_homes(state: PrestigeState, power: Power) -> set[ProvinceId]:
    """The home centres of ``power``'s vassals this year (its own units cannot capture them, 2.4.5)."""
    return {state.neutral_homes.get(loc, loc.province) for loc, lord in state.vassals.items() if lord == power}


def neutral_units(position: Position) -> list[Unit]:
    """Every neutral unit of the position: on the board, then dislodged."""
    return ([u for u in position.units if u.power == NEUTRAL]
            + [d.unit for d in position.dislodged if d.unit.power == NEUTRAL])


def vassals_from_homes(state: PrestigeState, units: list[Unit],
                       by_home: Mapping[ProvinceId, Power]) -> dict[Location, Power]:
    """Vassaldom written by home province (a position document's ``vassals``), by unit: each of
    ``units`` (the neutral units) whose home is named is held by that lord."""
    found: dict[Location, Power] = {}
    for unit in units:
        lord = by_home.get(state.neutral_homes.get(unit.location, unit.province))
        if lord is not None:
            found[unit.location] = lord
    return found


def vassals_by_home(state: PrestigeState, units: list[Unit],
                    dislodged: Sequence[Unit] = ()) -> tuple[dict[ProvinceId, Power], dict[Location, Power]]:
    """The vassaldom of ``units`` (neutral units on the board) by home province where that names
    one unit (a position document's ``vassals``), and by location for a vassal whose home another
    neutral unit shares, on the board or among the ``dislodged`` neutral units."""
    homes: dict[ProvinceId, int] = {}
    for unit in units:
        home = state.neutral_homes.get(unit.location, unit.province)
        homes[home] = homes.get(home, 0) + 1
    for unit in dislodged:
        home = neutral_home(state, unit, dislodged=True)
        homes[home] = homes.get(home, 0) + 1
    by_home: dict[ProvinceId, Power] = {}
    by_location: dict[Location, Power] = {}
    for loc, lord in state.vassals.items():
        home = state.neutral_homes.get(loc, loc.province)
        if homes.get(home, 0) > 1:
            by_location[loc] = lord
        else:
            by_home[home] = lord
    return by_home, by_location


def is_home_center(state: PrestigeState, power: Power, province: ProvinceId) -> bool:
    return province in state.home_centers.get(power, ())


def with_state(position: Position, **changes: Any) -> Position:
    """The position with its prestige state changed (an immutable copy)."""
    return put_state(position, replace(state_of(position), **changes))
