"""Readable text of a result document, in the style of the e-mail judges' results."""

from __future__ import annotations

from typing import Any

_MARK = {"succeeds": "", "fails": "  (fails)", "invalid": "  (invalid)"}


def result_text(result: dict[str, Any]) -> str:
    """The results of a phase, grouped by power, each order with its outcome and reason."""
    by_power: dict[str, list[str]] = {}
    for entry in result.get("results", []):
        text = entry.get("canonical") or entry["order"]
        power, _, order = text.partition(": ")
        if not order:
            power, order = "?", text
        line = f"  {order}{_MARK.get(entry['result'], '')}"
        if entry.get("reason") and entry["result"] != "succeeds":
            line += f": {entry['reason']}"
        by_power.setdefault(power, []).append(line)
    for entry in result.get("implicit", []):
        power, _, order = entry["canonical"].partition(": ")
        reason = f": {entry['reason']}" if entry.get("reason") else ""
        by_power.setdefault(power, []).append(f"  {order}  (no order given){reason}")
    out = []
    for power in sorted(by_power):
        out.append(f"{power}:")
        out.extend(by_power[power])
        out.append("")
    position = result.get("position", {})
    if position:
        out.append(f"Next phase: {position.get('phase')}")
        dislodged = position.get("dislodged") or []
        for d in dislodged:
            out.append(f"  dislodged: {d['unit']} (attacked from {d['from']})")
    return "\n".join(out) + "\n"
