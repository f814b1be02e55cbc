"""The board as a player by mail plans from it: a pure function of values to lines of text.

After each season's results, the mail says who owns which supply centre and how many, where
every unit stands, every dislodged unit with the places it may retreat to, the builds and
removals each power has to make, and each power's prestige. Every rules answer in it (who is
still playing, where a unit may retreat, how many builds, at which sites) is the engine's
(:func:`adjudicator.turn.survivors`, :func:`~adjudicator.turn.retreats`, :func:`~adjudicator.turn.duty`),
and a rule module's standings column is its own (:func:`adjudicator.modules.standing_column`);
this module only writes them down, in the judge's notation (``A ant``, ``lat``) that players
write their orders in.
"""

from __future__ import annotations

from adjudicator.modules import standing_column
from adjudicator.position import Position
from adjudicator.turn import duty, retreats, survivors
from adjudicator.variant import Variant
from adjudicator.vocab import NEUTRAL, PhaseKind, Power, Season


def _either(words: list[str]) -> str:
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"


def _alive(variant: Variant, position: Position) -> list[Power]:
    """The powers still in the game (the engine's :func:`~adjudicator.turn.survivors`), in the variant's order."""
    playing = set(survivors(variant, position))
    return [p for p in variant.powers if p in playing]


def centres(variant: Variant, position: Position, before: Position | None = None) -> list[str]:
    """``Supply centres:`` a line per power with its count (and the change since ``before``) and its
    centres; the neutral centres last."""
    counts = position.center_counts()
    was = before.center_counts() if before is not None else {}
    out = ["Supply centres:"]
    for power in _alive(variant, position):
        n = counts.get(power, 0)
        change = f" ({n - was[power]:+d})" if before is not None and n != was.get(power, 0) else ""
        out.append(f"  {power} {n:2}{change}: {', '.join(position.centers_of(power)) or '-'}")
    neutral = position.centers_of(NEUTRAL)
    if neutral:
        out.append(f"  neutral {len(neutral)}: {', '.join(neutral)}")
    return out


def units(variant: Variant, position: Position) -> list[str]:
    """``Units:`` a line per power (the neutral units last), and the units dislodged."""
    out = ["Units:"]
    for power in [*_alive(variant, position), NEUTRAL]:
        mine = [u.short for u in position.units_of(power)]
        if mine:
            out.append(f"  {power if power != NEUTRAL else 'neutral'} {len(mine)}: {', '.join(mine)}")
    return out


def to_decide(variant: Variant, position: Position) -> list[str]:
    """What the phase ``position`` waits for, power by power: every dislodged unit with where it may
    retreat (a retreat phase), the builds with their sites and the removals (an adjustment phase)."""
    kind = position.phase.kind
    if kind is PhaseKind.MOVEMENT:
        return []
    out: list[str] = []
    ordered = set()
    for power in variant.powers:
        todo = duty(variant, position, power)
        for unit, options in todo.retreats:
            ordered.add(unit.location.province)
            places = [str(o) for o in options]
            out.append(f"  {power} {unit.short}: " + (f"retreat to {_either(places)}, or disband" if places
                                                      else "disband (nowhere to retreat to)"))
        if todo.builds:
            sites = [str(s) for s in todo.sites]
            out.append(f"  {power} builds {todo.builds}" + (f", at {_either(sites)}" if sites else
                                                            " but has no free home centre to build in (waived)"))
        if todo.disbands:
            out.append(f"  {power} removes {todo.disbands} unit{'s' if todo.disbands != 1 else ''}")
    for d, _, open_to in retreats(variant, position):
        if d.unit.location.province not in ordered:     # the neutrals: the judge retreats them at random
            places = [str(loc) for loc in open_to]
            whose = d.unit.power if d.unit.power != NEUTRAL else "neutral"
            where = ("it is disbanded (nowhere to go)" if not places else
                     f"it retreats to {places[0]}, the one place open to it" if len(places) == 1 else
                     f"it retreats at random to {_either(places)}")
            out.append(f"  {whose} {d.unit.short}: no power orders it; {where}")
    if not out:
        return []
    head = "Dislodged units and where they may retreat" if kind is PhaseKind.RETREAT else "Builds and removals"
    return [f"{head} ({position.phase}):", *out]


def column(variant: Variant, position: Position) -> list[str]:
    """Each power's number in the rule module's standings column (prestige), when the game plays
    with one: for the new year after a winter."""
    standing = standing_column(position)
    if standing is None:
        return []
    name, numbers = standing
    phase = position.phase
    new_year = phase.kind is PhaseKind.MOVEMENT and phase.season is Season.SPRING
    head = f"{name.capitalize()} for {phase.year}:" if new_year else f"{name.capitalize()}:"
    return [head + " " + ", ".join(f"{p} {numbers.get(p, 0)}" for p in _alive(variant, position))]


def planning(variant: Variant, position: Position, before: Position | None = None) -> list[str]:
    """Everything a player plans the next phase from, section by section."""
    out: list[str] = []
    for section in (to_decide(variant, position), centres(variant, position, before), units(variant, position),
                    column(variant, position)):
        if section:
            out += [*section, ""]
    return out


def standings(variant: Variant, position: Position) -> list[str]:
    """The final standings: every power by centres (most first), with its units."""
    counts = position.center_counts()
    ranked = sorted(variant.powers, key=lambda p: (-counts.get(p, 0), -len(position.units_of(p)), p))
    out = ["Final standings (supply centres, units):"]
    for power in ranked:
        out.append(f"  {power} {variant.power_name(power)}: {counts.get(power, 0)} centre(s), "
                   f"{len(position.units_of(power))} unit(s)")
    return out
