"""Readable text of a phase's results, in the style of the e-mail judges' results."""

from __future__ import annotations

from typing import Iterable

from adjudicator.results import Adjudication, Outcome

_MARK = {Outcome.SUCCEEDS: "", Outcome.FAILS: "  (fails)", Outcome.INVALID: "  (invalid)"}


def result_text(adjudication: Adjudication, unread: Iterable[tuple[str, str, str]] = ()) -> str:
    """The results of a phase, grouped by power, each order with its outcome and reason; then the
    next phase and its dislodged units. ``unread``: (whose, text, reason) of each line of a
    document that could not be read as an order."""
    by_power: dict[str, list[str]] = {}
    for whose, text, reason in unread:
        by_power.setdefault(whose, []).append(f"  {text}{_MARK[Outcome.INVALID]}: {reason}")
    for r in adjudication.results:
        line = f"  {r.order}{_MARK[r.outcome]}"
        if r.reason and r.outcome is not Outcome.SUCCEEDS:
            line += f": {r.reason}"
        by_power.setdefault(r.order.power, []).append(line)
    for r in adjudication.implicit:
        reason = f": {r.reason}" if r.reason else ""
        by_power.setdefault(r.order.power, []).append(f"  {r.order}  (no order given){reason}")
    out = []
    for power in sorted(by_power):
        out.append(f"{power}:")
        out.extend(by_power[power])
        out.append("")
    after = adjudication.position
    out.append(f"Next phase: {after.phase}")
    for d in after.dislodged:
        out.append(f"  dislodged: {d.unit} (attacked from {d.attacker_from})")
    return "\n".join(out) + "\n"
