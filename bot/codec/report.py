"""Readable text of a phase's results, in the style of the e-mail judges' results."""

from __future__ import annotations

from typing import Iterable

from adjudicator.orders import Build, Hold, Waive
from adjudicator.position import Position
from adjudicator.results import Adjudication, Outcome
from adjudicator.turn import duty, supplied_by
from adjudicator.variant import Variant
from adjudicator.vocab import NEUTRAL, PhaseKind

_MARK = {Outcome.SUCCEEDS: "", Outcome.FAILS: "  (fails)", Outcome.INVALID: "  (invalid)"}
SUPPLIED = {"no-order": "no order given", "disorder": "no order given", "bribe": "the order written with the BRIBE",
            "neutral": "neutral, nobody commands it", "random": "neutral, nobody commands it: drawn at random, rule 3.4"}
"""The words for why the judge gave a unit its order (:func:`adjudicator.turn.supplied_by`)."""


def result_text(adjudication: Adjudication, variant: Variant, unread: Iterable[tuple[str, str, str]] = (), *,
                before: Position | None = None) -> str:
    """The results of a phase, grouped by power, each order with its outcome and reason; then the
    builds not made and the year's prestige; then the next phase and its dislodged units.
    ``unread``: (whose, text, reason) of each line of a document that could not be read as an
    order. The orders the judge gave are marked with why (:func:`adjudicator.turn.supplied_by`);
    the neutral units nobody commands that simply held are named on one line. ``before``: the
    position the phase was played from, for the builds each power was allowed (an adjustment
    phase's builds not ordered are waived)."""
    by_power: dict[str, list[str]] = {}
    for whose, text, reason in unread:
        by_power.setdefault(whose, []).append(f"  {text}{_MARK[Outcome.INVALID]}: {reason}")
    for r in adjudication.results:
        line = f"  {r.order}{_MARK[r.outcome]}"
        if r.reason and r.outcome is not Outcome.SUCCEEDS:
            line += f": {r.reason}"
        by_power.setdefault(r.order.power, []).append(line)
    held = []
    for r in adjudication.implicit:
        why = supplied_by(variant, adjudication, r)
        if why == "neutral" and isinstance(r.order, Hold) and r.succeeded:      # held, not dislodged
            held.append(r.order.unit_text)
            continue
        reason = f": {r.reason}" if r.reason else ""
        by_power.setdefault(r.order.power, []).append(f"  {r.order}  ({SUPPLIED[why]}){reason}")
    if held:
        by_power.setdefault(NEUTRAL, []).append(f"  held, nobody commands them: {', '.join(held)}")
    out = []
    for power in sorted(by_power):
        out.append(f"{power}:")
        out.extend(by_power[power])
        out.append("")
    out += _year_end(adjudication, variant, before)
    after = adjudication.position
    out.append(f"Next phase: {after.phase}")
    for d in after.dislodged:
        out.append(f"  dislodged: {d.unit} (attacked from {d.attacker_from})")
    return "\n".join(out) + "\n"


def _year_end(adjudication: Adjudication, variant: Variant, before: Position | None) -> list[str]:
    """An adjustment phase's builds not made (waived: by no orders at all, or too few), and the
    year's prestige (awarded by centres, for annihilations, neutrals disbanded away from home)."""
    out = []
    if before is not None and before.phase.kind is PhaseKind.ADJUSTMENT:
        waived = []
        for power in sorted({p for p in before.supply_centers.values()} - {NEUTRAL}):
            allowed = duty(variant, before, power).builds
            if not allowed:
                continue
            mine = [r for r in adjudication.results if r.order.power == power]
            used = sum(1 for r in mine if r.succeeded and isinstance(r.order, (Build, Waive)))
            if used < allowed:
                why = "no orders given" if not mine else "not ordered"
                waived.append(f"  {power}: {allowed - used} of {allowed} ({why})")
        if waived:
            out += ["Builds waived:", *waived, ""]
    year = adjudication.events.get("prestige_year")
    if isinstance(year, dict):
        lines = []
        if year.get("award"):
            lines.append("  awarded by centres: " + ", ".join(f"{p} {n}" for p, n in year["award"].items()))
        if year.get("annihilations"):
            lines.append("  for annihilations: " + ", ".join(f"{p} {n:+d}" for p, n in year["annihilations"].items()))
        if year.get("prestige"):
            lines.append("  prestige for the year ahead: " + ", ".join(f"{p} {n}" for p, n in year["prestige"].items()))
        if year.get("disbanded"):
            lines.append("  neutral units disbanded away from home: " + ", ".join(year["disbanded"]))
        if lines:
            out += [f"The year's prestige ({before.phase.year if before is not None else 'winter'}):", *lines, ""]
    return out
