"""The winter recalculation of prestige (rules 2.3.1-2.3.6) and the end of the neutrals' year.

Run once a year, at the adjustment after autumn, on the position whose centres have just
changed hands. Whatever was left of last year's prestige, loans included, is discarded.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ..position import Position
from ..variant import Variant
from ..vocab import NEUTRAL, Power, Unit
from .state import neutral_home, state_of, with_state
from .events import PrestigeYear

LARGEST, NEXT_THREE, REST = 3, 2, 1


def ranking_award(counts: Mapping[Power, int]) -> dict[Power, int]:
    """Prestige earned by supply-centre ranking (2.3.1; decision 10).

    The powers with the most centres get 3. Of the rest, a power gets 2 when fewer than three
    of the rest have strictly more centres than it (so every power tied at the edge of "the
    next three" gets 2); the others get 1. ``counts`` names only the powers still in the game.
    """
    if not counts:
        return {}
    top = max(counts.values())
    award: dict[Power, int] = {}
    rest = {p: n for p, n in counts.items() if n != top}
    for power, n in counts.items():
        if n == top:
            award[power] = LARGEST
        else:
            stronger = sum(1 for m in rest.values() if m > n)
            award[power] = NEXT_THREE if stronger < 3 else REST
    return award


def powers_in_game(variant: Variant, position: Position) -> list[Power]:
    """Powers that still own a centre or a unit and are not eliminated (decision 10), in the
    variant's order."""
    return position.powers_in_game(variant.powers)


def homeless_neutrals(variant: Variant, position: Position) -> list[Unit]:
    """Neutral units disbanded at the adjustment (2.4.7, 3.1; decision 16).

    A neutral unit that stands neither in its home centre nor in another supply centre is
    disbanded, unless it was some power's vassal this year: a released vassal has the whole of
    the next year to go home (2.4.7, "by the next fall turn").
    """
    state = state_of(position)
    out = []
    for unit in position.units:
        if unit.power != NEUTRAL:
            continue
        home = neutral_home(state, unit)
        if unit.province == home or variant.provinces[unit.province].supply_center:
            continue
        if unit.location in state.vassals:
            continue
        out.append(unit)
    return out


def new_year(variant: Variant, position: Position) -> tuple[Position, PrestigeYear]:
    """The winter step: homeless neutrals disbanded, prestige recalculated, vassals released.

    Returns the new position and what the year's end did (:class:`~.events.PrestigeYear`).
    """
    state = state_of(position)
    gone = homeless_neutrals(variant, position)
    gone_locations = {u.location for u in gone}
    units = tuple(u for u in position.units if u not in gone)
    homes = {loc: h for loc, h in state.neutral_homes.items() if loc not in gone_locations}
    position = position.with_changes(units=units)

    in_game = powers_in_game(variant, position)
    counts = supply_center_count(position, in_game)
    award = ranking_award(counts)
    prestige = {p: max(0, award[p] + state.annihilations.get(p, 0)) for p in in_game}  # 2.3.6: floor 0
    position = with_state(position, prestige=prestige, prestige_start=dict(prestige), neutral_homes=homes,
                          vassals={}, annihilations={}, bribed={})
    year = PrestigeYear(centres=dict(sorted(counts.items())), award=dict(sorted(award.items())),
                        annihilations={p: n for p, n in sorted(state.annihilations.items()) if n},
                        prestige=dict(sorted(prestige.items())), disbanded=tuple(gone))
    return position, year


def supply_center_count(position: Position, powers: Iterable[Power]) -> dict[Power, int]:
    """Directly owned centres per power (a vassal's centre stays neutral: 1.2, 2.4.3)."""
    counts = {p: 0 for p in powers}
    for owner in position.supply_centers.values():
        if owner in counts:
            counts[owner] += 1
    return counts
