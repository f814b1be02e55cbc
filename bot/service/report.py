"""The results of a phase: one report, as a value (:func:`phase_report`), and its text.

Every front end shows a phase's results from this one report: the e-mail results and the season's
report on the archive site (:func:`report_text`), Discord's results post (the same lines, the
sections as embeds: ``bot.frontends.discord.formatting``) and ``crusader adjudicate --format text``.

What it says, in order: every order of every power with its outcome (a prestige order with what it
won and spent; the units a power commands as a vassal's lord or a briber marked so; the orders the
judge gave, with why); what changed on the board (dislodgements, annihilations with the prestige
they earn or cost, retreats, disbands, builds, removals, centres changing hands); what the prestige
orders did (vassals, bribes, rebellions, each power's ledger); the end of the year (each power's
prestige for the year ahead with the rule of each part, homeless neutrals disbanded, fiefs lost,
builds waived); the standings; who is out, who has won, who sent no orders; the next phase, once.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING
from collections.abc import Iterable, Mapping, Sequence

from adjudicator.events import Events
from adjudicator.modules import annihilation_note, commanded, order_kind, report_parts, spent, standing_column
from adjudicator.orders import Build, Hold, Order, Retreat, UnitOrder, Waive, is_rule_order
from adjudicator.position import Position
from adjudicator.results import Adjudication, OrderResult, Outcome
from adjudicator.turn import duty, supplied_by, survivors
from adjudicator.variant import Variant
from adjudicator.vocab import NEUTRAL, Location, Phase, PhaseKind, Power, ProvinceId, Unit

from bot.codec.spelled import named, names, place, power_name, spell

if TYPE_CHECKING:
    from bot.codec.season import Season

SUPPLIED = {"no-order": "no order given", "disorder": "no order given", "bribe": "the order written with the BRIBE",
            "neutral": "neutral, nobody commands it", "random": "neutral, nobody commands it: drawn at random, rule 3.4"}
"""The words for why the judge gave a unit its order (:func:`adjudicator.turn.supplied_by`)."""

_VERDICT = {Outcome.SUCCEEDS: "succeeds", Outcome.FAILS: "fails", Outcome.INVALID: "invalid"}
_KIND_VERDICT = {"bid": {Outcome.SUCCEEDS: "won", Outcome.FAILS: "lost", Outcome.INVALID: "invalid"},
                 "loan": {Outcome.SUCCEEDS: "lent", Outcome.FAILS: "not lent", Outcome.INVALID: "invalid"},
                 "pledge": {Outcome.SUCCEEDS: "secured", Outcome.FAILS: "not secured", Outcome.INVALID: "invalid"}}
"""The words of a rule module's order's outcome, by what the module says it is (``order_kind``)."""
_SPENT_TAILS = ("; nothing spent", "; nothing lent")


@dataclass(frozen=True, slots=True)
class OrderLine:
    """One order with its outcome: ``words`` (the order in words, and whose unit it commands when
    not its own: ``(vassal)``, ``(bribed)``), ``verdict`` (``succeeds``, ``fails``, ``won, 2 spent``,
    ``lost, 1 spent``...), ``why`` (the judge's reason, when it adds something) and ``supplied``
    (why the judge gave the order, for an order nobody wrote)."""

    power: Power
    words: str
    outcome: Outcome
    verdict: str
    why: str = ""
    supplied: str = ""
    rule_order: bool = False
    """A rule module's order (a bid, a loan, a pledge of loyalty), not a unit's."""

    @property
    def text(self) -> str:
        out = f"{self.words} — {self.verdict}" if self.verdict else self.words
        if self.supplied:
            out += f" ({self.supplied})"
        return f"{out}: {self.why}" if self.why else out


@dataclass(frozen=True, slots=True)
class PowerOrders:
    """A power's orders (``power`` ``NEU`` for the neutral units nobody commands)."""

    power: Power
    name: str
    lines: tuple[OrderLine, ...]


@dataclass(frozen=True, slots=True)
class Section:
    """A part of the report: ``key`` says which (``changes``, a rule module's parts (prestige:
    ``prestige``, ``year``), ``waived``, ``standings``, ``game``), for a front end that shows some
    part its own way."""

    key: str
    title: str
    lines: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Report:
    """A phase's results: ``notices`` first (adjudicated again, at once), ``orders`` by power, then
    ``sections`` (what changed, prestige, the end of the year, standings, the end of the game), and
    ``next`` (the next phase and its deadline, or how the game ended), said once."""

    title: str
    phase: Phase
    notices: tuple[str, ...]
    orders: tuple[PowerOrders, ...]
    sections: tuple[Section, ...]
    next: str = ""


# -- the report as a value ---------------------------------------------------------------------


def phase_report(adjudication: Adjudication, variant: Variant, before: Position, *, title: str = "",
                 unread: Iterable[tuple[str, str, str]] = (), nmr: Sequence[str] = (), notices: Sequence[str] = (),
                 next_phase: str = "") -> Report:
    """The report of the phase ``before`` was adjudicated into ``adjudication``. ``unread``: (whose,
    text, reason) of each line that could not be read as an order; ``nmr``: the powers that sent
    no orders; ``next_phase``: the line that says what comes next (or how the game ended)."""
    events = adjudication.events
    sections = [
        Section("changes", "What changed", tuple(_changes(adjudication, variant, before))),
        *(Section(part.key, part.title, part.lines) for part in report_parts(variant, before, adjudication,
                                                                             names(variant))),
        Section("waived", "Builds waived", tuple(_waived(adjudication, variant, before))),
        Section("standings", _standings_title(adjudication.position, before.phase, events.rule_year is not None),
                tuple(_standings(before, adjudication, variant))),
        Section("game", "The game", tuple(_game(events, variant, nmr))),
    ]
    return Report(title=title or f"Results of {before.phase.long_name} ({before.phase})", phase=before.phase,
                  notices=tuple(notices), orders=tuple(_orders(adjudication, variant, before, unread)),
                  sections=tuple(s for s in sections if s.lines), next=next_phase)


def report_of(season: Season, *, title: str = "", notices: Sequence[str] = (), next_phase: str = "") -> Report:
    """:func:`phase_report` of an archived season, with ``title``, ``notices`` and ``next_phase``
    as each front end words them. The rest is made once for the season: the front ends that show
    one season read it once between them (:class:`~bot.service.context.SeasonsRead`: the Discord
    post and its archive thread, the archive's files, the archive site's page of the season; on
    the server that adjudicated it, the season its judge kept, reported for its announcement)
    and show its one report."""
    with _REPORTS_LOCK:
        kept = _REPORTS.get(id(season))
        if kept is not None and kept[0] is season:
            _REPORTS.move_to_end(id(season))
    if kept is None or kept[0] is not season:
        kept = (season, phase_report(season.adjudication, season.variant, season.position, nmr=season.nmr))
        with _REPORTS_LOCK:
            _REPORTS[id(season)] = kept  # the season itself kept with it: its id not given to another meanwhile
            while len(_REPORTS) > REPORTS_KEPT:
                _REPORTS.popitem(last=False)
    report = kept[1]
    return replace(report, title=title or report.title, notices=tuple(notices), next=next_phase)


REPORTS_KEPT = 32
"""Seasons whose report :func:`report_of` keeps (as many as the seasons read are kept)."""
_REPORTS: OrderedDict[int, tuple[Season, Report]] = OrderedDict()
_REPORTS_LOCK = threading.Lock()  # (the front ends report from their threads)


def _orders(adjudication: Adjudication, variant: Variant, before: Position,
            unread: Iterable[tuple[str, str, str]]) -> list[PowerOrders]:
    rule = adjudication.events.rule
    bribed = commanded(before, rule)
    by_power: dict[str, list[OrderLine]] = {}
    for whose, text, reason in unread:
        by_power.setdefault(whose, []).append(OrderLine(Power(whose), text, Outcome.INVALID, "not understood",
                                                        reason))
    for r in adjudication.results:
        by_power.setdefault(r.order.power, []).append(_order_line(r, variant, before, rule, bribed))
    held: dict[str, list[str]] = {}
    for r in adjudication.implicit:
        why = supplied_by(variant, adjudication, r)
        words = _words(r.order, variant, before, bribed)
        if isinstance(r.order, Hold) and r.succeeded and why in ("neutral", "no-order"):
            held.setdefault(r.order.power, []).append(_held(r.order, variant, before, bribed))
            continue
        line = OrderLine(r.order.power, words, r.outcome, _VERDICT[r.outcome], _why(r, words, variant), SUPPLIED[why])
        by_power.setdefault(r.order.power, []).append(line)
    for power, units in held.items():
        label = "held, nobody commands them" if power == NEUTRAL else "held, no order given"
        by_power.setdefault(power, []).append(OrderLine(Power(power), f"{label}: {', '.join(units)}",
                                                        Outcome.SUCCEEDS, ""))
    return [PowerOrders(Power(p), "Neutral units" if p == NEUTRAL else _name(p, variant), tuple(by_power[p]))
            for p in sorted(by_power, key=lambda p: (p == NEUTRAL, p))]


def order_outcome(result: OrderResult, variant: Variant, before: Position, events: Events) -> OrderLine:
    """One order given in the phase ``before`` was played from, with its outcome as the report words it."""
    return _order_line(result, variant, before, events.rule, commanded(before, events.rule))


def _order_line(r: OrderResult, variant: Variant, before: Position, rule: object | None,
                bribed: Mapping[ProvinceId, Power]) -> OrderLine:
    order = r.order
    words = _words(order, variant, before, bribed)
    if not is_rule_order(order):
        return OrderLine(order.power, words, r.outcome, _VERDICT[r.outcome], _why(r, words, variant))
    cost = spent(before, rule, order)
    why = named(r.reason, variant)
    for tail in (*_SPENT_TAILS, f"; {cost} prestige spent"):
        why = why.removesuffix(tail)
    kind = order_kind(order)
    verdict = _KIND_VERDICT.get(kind, _VERDICT)[r.outcome]
    if kind == "loan" and r.succeeded:
        why = ""        # "2 prestige lent to ...": the order says it
    if cost:
        verdict += f", {cost} spent"
    elif r.outcome is not Outcome.SUCCEEDS:
        verdict += ", nothing spent"
    return OrderLine(order.power, words, r.outcome, verdict, why, rule_order=True)


def _words(order: Order, variant: Variant, before: Position, bribed: Mapping[ProvinceId, Power]) -> str:
    """The order in words, with whose unit it commands when it is not the power's own."""
    return spell(order, variant) + _whose(order, variant, before, bribed)


def _whose(order: Order, variant: Variant, before: Position, bribed: Mapping[ProvinceId, Power]) -> str:
    """`` (vassal)``, `` (bribed, neutral)``, `` (bribed, The Byzantine Empire's)`` for a unit its
    commander does not own; else nothing."""
    if not isinstance(order, UnitOrder) or isinstance(order, Build):
        return ""
    province = order.location.province
    if before.phase.kind is PhaseKind.RETREAT:
        owner = next((d.unit.power for d in before.dislodged if d.unit.province == province), order.power)
    else:
        unit = before.unit_at(province)
        owner = unit.power if unit is not None else order.power
    if owner == order.power:
        return ""
    if bribed.get(province) == order.power:
        whose = "neutral" if owner == NEUTRAL else power_name(owner, variant) + "'s"
        return f" (bribed, {whose})"
    return " (vassal)" if owner == NEUTRAL else ""


def _why(r: OrderResult, words: str, variant: Variant) -> str:
    """The judge's reason for an order that did not succeed (one that did says it all: it moved,
    held, supported, retreated, was built), its units and places by name (:func:`named`)."""
    if r.succeeded or not r.reason:
        return ""
    why = named(r.reason, variant)
    return "" if why in words else why


def _held(order: Order, variant: Variant, before: Position, bribed: Mapping[ProvinceId, Power]) -> str:
    """``A Harran`` for ``A Harran H``, with whose it is when not its commander's own."""
    return spell(order, variant).removesuffix(" H") + _whose(order, variant, before, bribed)


def _name(power: str, variant: Variant) -> str:
    return names(variant).titled(Power(power))


def _unit(u: Unit, variant: Variant) -> str:
    """``A Tarsus (Antioch)``, ``A Damascus (neutral)``."""
    return names(variant).owned(u)


# -- the sections ------------------------------------------------------------------------------


def _changes(adjudication: Adjudication, variant: Variant, before: Position) -> list[str]:
    events = adjudication.events
    out: list[str] = []
    gone = {a.unit for a in events.annihilated}
    for d in events.dislodged:
        if d.unit not in gone:
            out.append(f"Dislodged: {_unit(d.unit, variant)}, attacked from {place(Location(d.attacker_from), variant)}"
                       f"{' by convoy' if d.by_convoy else ''}: it retreats or is disbanded next")
    commander = {r.order.location.province: r.order.power for r in (*adjudication.results, *adjudication.implicit)
                 if isinstance(r.order, UnitOrder) and not isinstance(r.order, Build)}
    for a in events.annihilated:
        line = f"Destroyed: {_unit(a.unit, variant)}, dislodged with nowhere to retreat"
        if a.by and a.by != NEUTRAL:
            line += f" (by {variant.power_name(a.by)})"
        note = annihilation_note(before, a.unit, a.by, commander.get(a.unit.province), names(variant))
        if note:
            line += "; " + note
        out.append(line)
    if before.phase.kind is PhaseKind.RETREAT:
        for r in (*adjudication.results, *adjudication.implicit):
            if r.succeeded and isinstance(r.order, Retreat):
                owner = next((d.unit for d in before.dislodged if d.unit.province == r.order.location.province), None)
                who = _unit(owner, variant) if owner is not None else place(r.order.location, variant)
                out.append(f"Retreated: {who} to {place(r.order.destination, variant)}")
    out += [f"Disbanded: {_unit(u, variant)}" for u in events.disbanded]
    out += [f"Built: {_unit(u, variant)}" for u in events.built]
    out += [f"Removed: {_unit(u, variant)}" for u in events.removed]
    for c in events.centres:
        out.append(f"{place(Location(c.province), variant)}: {_owner(c.before, variant)} → {_owner(c.after, variant)}")
    return out




def _owner(power: str, variant: Variant) -> str:
    return "neutral" if power == NEUTRAL else variant.power_name(Power(power)) if power in variant.powers else power






def _waived(adjudication: Adjudication, variant: Variant, before: Position) -> list[str]:
    """An adjustment phase's builds not made (waived: by no orders at all, or too few)."""
    if before.phase.kind is not PhaseKind.ADJUSTMENT:
        return []
    out = []
    for power in sorted({p for p in before.supply_centers.values()} - {NEUTRAL}):
        allowed = duty(variant, before, power).builds
        if not allowed:
            continue
        mine = [r for r in adjudication.results if r.order.power == power]
        used = sum(1 for r in mine if r.succeeded and isinstance(r.order, (Build, Waive)))
        if used < allowed:
            why = "no orders given" if not mine else "not ordered"
            out.append(f"{_name(power, variant)}: {allowed - used} of {allowed} ({why})")
    return out


def _standings_title(after: Position, phase: Phase, year_ended: bool) -> str:
    column = standing_column(after)
    if column is None:
        return "Centres · units"
    if year_ended or phase.kind is PhaseKind.ADJUSTMENT:
        return f"Centres · units · {column[0]} for {phase.year + 1}"
    return f"Centres · units · {column[0]} left for {phase.year}"


def _standings(before: Position, adjudication: Adjudication, variant: Variant) -> list[str]:
    """A line per power still in the game: centres (with the change), units, prestige."""
    after = adjudication.position
    was, now = before.center_counts(), after.center_counts()
    column = standing_column(after)
    # the powers still in the game, and any that lost its last centre this phase and is not out yet
    shown = set(survivors(variant, after)) | {p for p in survivors(variant, before)
                                              if was.get(p) and p not in after.eliminated}
    out = []
    for power in variant.powers:
        centres, units = now.get(power, 0), len(after.units_of(power))
        if power not in shown:
            continue
        delta = centres - was.get(power, 0)
        line = f"{_name(power, variant)}: {centres}{f' ({delta:+d})' if delta else ''} · {units}"
        if column is not None:
            line += f" · {column[1].get(power, 0)}"
        out.append(line)
    return out


def _game(events: Events, variant: Variant, nmr: Sequence[str]) -> list[str]:
    out = []
    if events.eliminated:
        out.append("Out of the game: " + ", ".join(_name(p, variant) for p in events.eliminated))
    if events.victory:
        out.append("Victory: " + ", ".join(_name(p, variant) for p in events.victory))
    if nmr:
        out.append("No orders from: " + ", ".join(_name(p, variant) for p in nmr))
    return out


# -- the report as text ------------------------------------------------------------------------


def report_lines(report: Report, heading: str = "{}:", *, every_order: bool = True) -> list[str]:
    """The report's lines: ``heading`` formats each title (``**{}**`` for Discord); the lines under
    a title are indented by two spaces unless the heading is bold. Without ``every_order`` (a
    summary, every order being shown elsewhere), only the prestige orders, under one title."""
    indent = "" if heading.startswith("**") else "  "
    out = [*report.notices]
    if report.notices:
        out.append("")
    if every_order:
        for group in report.orders:
            out.append(heading.format(group.name))
            out += [indent + line.text.replace("\n", "\n" + indent + "    ") for line in group.lines]
            out.append("")
    else:
        bids = [f"{line.power}: {line.text}" for group in report.orders for line in group.lines if line.rule_order]
        if bids:
            out += [heading.format("Prestige orders"), *(indent + b for b in bids), ""]
    for section in report.sections:
        out.append(heading.format(section.title))
        out += [indent + line for line in section.lines]
        out.append("")
    if report.next:
        out.append(report.next)
    while out and not out[-1]:
        out.pop()
    return out


def report_text(report: Report) -> str:
    """The report as plain text (mail, the archive's season report, the command line)."""
    return "\n".join([report.title, "=" * min(len(report.title), 72), "", *report_lines(report)]) + "\n"
