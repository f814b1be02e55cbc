"""What the front ends show of the prestige rules, as the module answers it
(:class:`~adjudicator.modules.RuleModule`): its orders in words and as a picture draws them, the
lords of the vassals on a board, the units bribed in a season, what an order cost, and its parts
of a phase's results report. The front ends name places, powers and units their own way
(:class:`~adjudicator.modules.Names`); the rest is said here, once.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from ..modules import Ledger, Mark, MenuEntry, Names, ReportPart
from ..position import Position
from ..results import Adjudication
from ..variant import Variant
from ..vocab import NEUTRAL, Location, Power, ProvinceId, Unit
from .events import PrestigeEvents, PrestigeYear
from .orders import Bribe, Lend, Rebel, SecureLoyalty, SeizeFief, Vassal
from .state import has_state, lord_of, put_state, state_of


def spell(order: Any, names: Names) -> str:
    """A prestige order in words: ``VASSAL A Damascus BID 2``, ``LEND 1 prestige to The Kingdom
    of Jerusalem``, ``BRIBE The Byzantine Empire's A Nicaea BID 1, then A Nicaea H``."""
    match order:
        case Vassal():
            return f"VASSAL {names.unit(order.unit_type, order.location)} BID {order.bid}"
        case Bribe():
            owner = f"{names.power(order.owner)}'s " if order.owner else ""
            text = f"BRIBE {owner}{names.unit(order.unit_type, order.location)} BID {order.bid}"
            return f"{text}, then {names.order(order.order)}" if order.order is not None else text
        case SeizeFief():
            return f"SEIZE FIEF {names.place(Location(order.province))}"
        case Rebel():
            return f"REBEL {names.place(Location(order.province))} BID {order.bid}"
        case SecureLoyalty():
            return f"SECURE LOYALTY BID {order.bid}"
        case Lend():
            return f"LEND {order.amount} prestige to {names.power(order.to)}"
    return str(order)


def mark(order: Any) -> Mark | None:
    """How a picture draws a prestige order: a VASSAL or BRIBE bid on its unit, a SEIZE FIEF or a
    REBEL bid on its centre; SECURE LOYALTY and LEND with no place on the map."""
    match order:
        case Vassal():
            return Mark("vassal", order.power, order.location.province, on_unit=True, amount=order.bid, lord=True)
        case Bribe():
            return Mark("bribe", order.power, order.location.province, on_unit=True, amount=order.bid)
        case SeizeFief():
            return Mark("fief", order.power, order.province)
        case Rebel():
            return Mark("rebel", order.power, order.province, amount=order.bid)
        case SecureLoyalty():
            return Mark("loyalty", order.power, amount=order.bid)
        case Lend():
            return Mark("lend", order.power, amount=order.amount, to=order.to)
    return None


_KINDS: dict[type, tuple[str, str, str]] = {
    Vassal: ("Vassal", "VASSAL", "take a neutral unit as vassal for the year (sealed bid)"),
    Bribe: ("Bribe", "BRIBE", "command a neutral or enemy unit this season (sealed bid)"),
    SeizeFief: ("SeizeFief", "SEIZE FIEF", "make a conquered centre a home centre"),
    Rebel: ("Rebel", "REBEL", "turn an enemy's conquered centre neutral (sealed bid)"),
    SecureLoyalty: ("SecureLoyalty", "SECURE LOYALTY", "raise the price of rebellion and bribes against you"),
    Lend: ("Lend", "LEND", "give prestige to another power"),
}
"""Each prestige order's kind in a menu, in the rules' order: its name, its label, what it does."""


def menu(order: Any, names: Names) -> MenuEntry:
    """How a menu offers a prestige order: the unit, centre or power it is for, and the amount the
    player gives in a form (every prestige order but SEIZE FIEF takes one, written last)."""
    kind, label, about = _KINDS[type(order)]
    rank = list(_KINDS).index(type(order))
    match order:
        case Vassal() | Bribe():
            subject = names.unit(order.unit_type, Location(order.location.province))
        case SeizeFief() | Rebel():
            subject = names.place(Location(order.province))
        case Lend():
            subject = names.power(order.to)
        case _:
            subject = ""
    if isinstance(order, SeizeFief):
        return MenuEntry(kind, rank, label, about, subject, str(order), False, None, str(order), "")
    template = str(order).rsplit(" ", 1)[0]
    least = order.amount if isinstance(order, Lend) else order.bid
    title = f"LEND to {names.power(order.to)}" if isinstance(order, Lend) else template.removesuffix(" BID")
    prompt = "Prestige to lend" if isinstance(order, Lend) else "Your bid (prestige)"
    return MenuEntry(kind, rank, label, about, subject, template, True, least, title, prompt)


def lords(position: Position) -> Mapping[ProvinceId, Power]:
    """The neutral units held in vassaldom on ``position``'s board: where each stands -> its lord."""
    if not has_state(position):
        return {}
    state = state_of(position)
    out: dict[ProvinceId, Power] = {}
    for unit in position.units:
        lord = lord_of(state, unit)
        if lord is not None:
            out[unit.province] = lord
    return out


def commanded(rule: object | None) -> Mapping[ProvinceId, Power]:
    """The units bribed in a movement phase (its :class:`~.events.PrestigeEvents`): where -> briber."""
    return dict(rule.bribed) if isinstance(rule, PrestigeEvents) else {}


def spent(rule: object | None, order: Any) -> int:
    """What ``order``'s power spent on it in a movement phase (its :class:`~.events.PrestigeEvents`)."""
    return rule.spent_on(order) if isinstance(rule, PrestigeEvents) else 0


def ledger(rule: object | None) -> tuple[Ledger, ...]:
    """Each power's prestige account of a movement phase (its :class:`~.events.PrestigeEvents`), by power."""
    if not isinstance(rule, PrestigeEvents):
        return ()
    return tuple(Ledger(power, a.start, a.received, tuple((s.order, s.amount) for s in a.spent), a.left)
                 for power, a in sorted(rule.ledger.items()))


def annihilation(unit: Unit, by: Power | None, commander: Power | None, names: Names) -> str:
    """The prestige an annihilation earns and costs at the year's end (rules 2.3.2-2.3.5)."""
    parts = []
    if by and by != NEUTRAL:
        parts.append(f"+1 prestige to {names.power(by)} at the year's end (rules 2.3.2, 2.3.3)")
    if unit.power != NEUTRAL:
        parts.append(f"-1 to {names.power(unit.power)} (rule 2.3.2)")
    elif commander and commander != NEUTRAL:
        parts.append(f"-1 to {names.power(commander)}, who commanded it (rule 2.3.4)")
    return ", ".join(parts) if parts else "no prestige changes hands (rule 2.3.4)"


def report(variant: Variant, before: Position, adjudication: Adjudication, names: Names) -> tuple[ReportPart, ...]:
    """The prestige parts of a phase's results report: what the prestige orders did (vassals,
    bribes, rebellions, each power's ledger) and the end of the year (each power's prestige for
    the year ahead with the rule of each part, homeless neutrals disbanded, fiefs lost)."""
    events = adjudication.events
    rule, year = events.rule, events.rule_year
    return (ReportPart("prestige", "Prestige", tuple(_prestige(rule, names)) if isinstance(rule, PrestigeEvents)
                       else ()),
            ReportPart("year", f"The end of {before.phase.year}",
                       tuple(_year_end(year, names, before.phase.year)) if isinstance(year, PrestigeYear) else ()))


def _prestige(rule: PrestigeEvents, names: Names) -> list[str]:
    out = []
    for home, lord in rule.vassals.items():
        out.append(f"Vassal: the neutral army of {names.place(Location(home))} obeys {names.power(lord)} "
                   f"until the year's end (rule 2.4)")
    for province, briber in rule.bribed.items():
        out.append(f"Bribed: the unit in {names.place(Location(province))} obeys {names.power(briber)} "
                   f"this season, to hold, support or convoy (rules 2.5, 2.8)")
    for province in rule.rebellions:
        out.append(f"Rebellion: {names.place(Location(province))} is neutral now (rule 2.7)")
    for power, a in rule.ledger.items():
        paid = sum(s.amount for s in a.spent)
        if a.start == a.left and not paid and not a.received:
            continue
        received = f", received {a.received}" if a.received else ""
        out.append(f"{names.titled(power)}: had {a.start}{received}, spent {paid}, {a.left} left")
    return out


def _year_end(year: PrestigeYear, names: Names, this_year: int) -> list[str]:
    out = []
    for power, total in year.prestige.items():
        award, extra = year.award.get(power, 0), year.annihilations.get(power, 0)
        line = (f"{names.titled(power)}: {total} prestige for {this_year + 1} — {award} for "
                f"{year.centres.get(power, 0)} centres by rank (rule 2.3.1)")
        if extra:
            line += f", {extra:+d} for annihilations (rule 2.3.2)"
        if award + extra < 0:
            line += ", but never below 0 (rule 2.3.6)"
        out.append(line)
    for u in year.disbanded:
        out.append(f"Disbanded: {names.owned(u)}, away from home and in no supply centre at the year's end "
                   f"(rules 2.4.7, 3.1)")
    for power, centres in year.fiefs_lost.items():
        places = ", ".join(names.place(Location(c)) for c in centres)
        out.append(f"{names.power(power)} loses its seized fief {places}: another power holds it (rule 2.6.3)")
    return out


def seed(position: Position) -> int | None:
    """The seed of the neutrals' random retreats (rule 3.4) the position carries."""
    return state_of(position).seed if has_state(position) else None


def with_seed(position: Position, seed: int) -> Position:
    """The position with the neutrals' random retreats seeded by ``seed`` (a new game's)."""
    return put_state(position, replace(state_of(position), seed=seed))
