"""The prestige part of a position (:class:`PrestigeState`, carried as ``position.prestige``):
the opening state and the small questions the other prestige modules ask of it.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Mapping

from ..position import Position
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
    """

    prestige: Mapping[Power, int] = field(default_factory=dict)
    prestige_start: Mapping[Power, int] = field(default_factory=dict)
    home_centers: Mapping[Power, tuple[ProvinceId, ...]] = field(default_factory=dict)
    neutral_homes: Mapping[Location, ProvinceId] = field(default_factory=dict)
    vassals: Mapping[Location, Power] = field(default_factory=dict)
    annihilations: Mapping[Power, int] = field(default_factory=dict)
    seed: int = 0
    bribed: Mapping[ProvinceId, Power] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in ("prestige", "prestige_start", "home_centers", "neutral_homes", "vassals", "annihilations",
                     "bribed"):
            object.__setattr__(self, name, _frozen(getattr(self, name)))


def _frozen(mapping: Mapping | None) -> Mapping:
    return MappingProxyType(dict(mapping or {}))


STARTING_PRESTIGE = 2
"""Rule 2.2: every power begins the first year with two prestige."""


def initial_state(variant, position: Position, *, seed: int = 0) -> PrestigeState:
    """The prestige state of a fresh game: 2 prestige each, the variant's home centres.

    Every neutral unit stands in its own home, so ``neutral_homes`` starts empty. ``seed``
    drives the random neutral retreats (rule 3.4); a game stores it so that every phase can
    be replayed exactly.
    """
    powers = [p for p in variant.powers if p not in position.eliminated]
    prestige = {p: STARTING_PRESTIGE for p in powers}
    homes = {p: tuple(variant.home_centers(p)) for p in variant.powers}
    return PrestigeState(prestige=prestige, prestige_start=dict(prestige), home_centers=homes, seed=seed)


def state_of(position: Position) -> PrestigeState:
    """The position's prestige state, or an empty one when the position has none yet."""
    return position.prestige if position.prestige is not None else PrestigeState()


def neutral_home(state: PrestigeState, unit: Unit) -> ProvinceId:
    """Where a neutral unit belongs: its recorded home, else where it stands."""
    return state.neutral_homes.get(unit.location, unit.province)


def lord_of(state: PrestigeState, unit: Unit) -> Power | None:
    """The power holding this neutral unit in vassaldom this year, if any."""
    if unit.power != NEUTRAL:
        return None
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


def vassals_by_home(state: PrestigeState, units: list[Unit]) -> tuple[dict[ProvinceId, Power], dict[Location, Power]]:
    """Vassaldom by home province where that names one unit (a position document's ``vassals``),
    and by location for a vassal whose home another of ``units`` (the neutral units) shares."""
    homes: dict[ProvinceId, int] = {}
    for unit in units:
        home = state.neutral_homes.get(unit.location, unit.province)
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


def moved_homes(state: PrestigeState, moves: Mapping[Location, Location],
                removed: frozenset[Location] | set[Location] = frozenset()) -> dict[Location, ProvinceId]:
    """``neutral_homes`` after neutral units moved (``moves``: from -> to) or left the board.

    ``moves`` must name only neutral units; every neutral unit not named stays where it was.
    Entries for a unit standing in its own home are dropped (the default says it already).
    """
    homes: dict[Location, ProvinceId] = {}
    moving = set(moves)
    for loc, home in state.neutral_homes.items():
        if loc not in moving and loc not in removed:
            homes[loc] = home
    for src, dst in moves.items():
        home = state.neutral_homes.get(src, src.province)
        if dst.province != home:
            homes[dst] = home
        else:
            homes.pop(dst, None)
    return homes


def moved_vassals(state: PrestigeState, moves: Mapping[Location, Location],
                  removed: frozenset[Location] | set[Location] = frozenset()) -> dict[Location, Power]:
    """``vassals`` after neutral units moved (``moves``: from -> to) or left the board (``removed``):
    vassaldom belongs to a unit and goes where it goes."""
    vassals = {loc: lord for loc, lord in state.vassals.items() if loc not in moves and loc not in removed}
    for src, dst in moves.items():
        lord = state.vassals.get(src)
        if lord is not None:
            vassals[dst] = lord
    return vassals


def with_state(position: Position, **changes) -> Position:
    """The position with its prestige state changed (an immutable copy)."""
    return position.with_changes(prestige=replace(state_of(position), **changes))
