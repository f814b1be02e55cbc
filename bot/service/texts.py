"""The words of the judge's announcements, e-mail judge style. Pure functions of data."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from adjudicator.vocab import Phase

from ..report import result_text


def when(moment: datetime | None, tz: str = "UTC") -> str:
    """``Sat 01 Mar 2031 12:00 UTC``; with a game's time zone, local time first and UTC after."""
    if moment is None:
        return "none (no deadline)"
    utc = moment.astimezone(UTC).strftime("%a %d %b %Y %H:%M UTC")
    if tz in ("UTC", ""):
        return utc
    local = moment.astimezone(ZoneInfo(tz))
    return f"{local.strftime('%a %d %b %Y %H:%M')} {local.tzname()} ({utc})"


def phase_name(phase: str | None) -> str:
    return Phase.parse(phase).long_name if phase else "-"


def started(game: str, variant: str, phase: str, deadline: datetime | None, assignments: dict[str, str],
            tz: str = "UTC") -> str:
    lines = [f"Game '{game}' ({variant}) has started.", "", "Powers:"]
    lines += [f"  {power}: {player}" for power, player in sorted(assignments.items())]
    lines += ["", f"Orders for {phase_name(phase)} ({phase}) are due by {when(deadline, tz)}."]
    return "\n".join(lines) + "\n"


def results(game: str, phase: str, result: dict, nmr: list[str], next_phase: str | None,
            deadline: datetime | None, outcome: dict | None, tz: str = "UTC") -> str:
    lines = [f"Diplomacy results for {phase_name(phase)} ({phase}) in game '{game}'.", ""]
    body = result_text(result)
    lines.append(body.rstrip("\n"))
    if nmr:
        lines += ["", "No orders received from: " + ", ".join(nmr) + "."]
    lines.append("")
    if outcome:
        lines.append(ending(outcome).rstrip("\n"))
    elif next_phase:
        lines.append(f"The next phase is {phase_name(next_phase)} ({next_phase}); orders are due by {when(deadline, tz)}.")
    return "\n".join(lines) + "\n"


def ending(outcome: dict) -> str:
    if outcome.get("winner"):
        return f"The game is over: {outcome['winner']} has won.\n"
    if outcome.get("draw"):
        return "The game is over: a draw shared by " + ", ".join(outcome["draw"]) + ".\n"
    return f"The game has been ended by the game master{': ' + outcome['reason'] if outcome.get('reason') else ''}.\n"


def reminder(game: str, phase: str, deadline: datetime | None, powers: list[str], tz: str = "UTC") -> str:
    return (f"Reminder: orders for {phase_name(phase)} ({phase}) in game '{game}' are due by {when(deadline, tz)}.\n"
            f"No orders have been received yet from: {', '.join(powers)}.\n")


def late(game: str, phase: str, deadline: datetime | None, powers: list[str], tz: str = "UTC") -> str:
    return (f"The deadline for {phase} in game '{game}' has passed without orders from {', '.join(powers)}.\n"
            f"Grace period: orders are accepted until {when(deadline, tz)}; then missing orders are NMR.\n")
