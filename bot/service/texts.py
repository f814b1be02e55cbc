"""The words of the judge's announcements, e-mail judge style. Pure functions of data."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from adjudicator.vocab import Phase

from bot.codec.report import result_text
from bot.codec.season import Season


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
            tz: str = "UTC", unplayed: list[str] = ()) -> str:
    lines = [f"Game '{game}' ({variant}) has started.", "", "Powers:"]
    lines += [f"  {power}: {player}" for power, player in sorted(assignments.items())]
    lines += [f"  {power}: no player (civil disorder: its units hold)" for power in unplayed]
    lines += ["", f"Orders for {phase_name(phase)} ({phase}) are due by {when(deadline, tz)}."]
    return "\n".join(lines) + "\n"


def results(season: Season, next_phase: str | None, deadline: datetime | None, outcome: dict | None,
            tz: str = "UTC") -> str:
    """The results post of a phase (and, when nobody had anything to decide in it, that it did not wait)."""
    phase = str(season.phase)
    lines = [f"Diplomacy results for {phase_name(phase)} ({phase}) in game '{season.game}'.", ""]
    if season.at_once:
        lines += ["No power had anything to decide in this phase: it was adjudicated at once.", ""]
    lines.append(result_text(season.adjudication, season.variant).rstrip("\n"))
    if season.nmr:
        lines += ["", "No orders received from: " + ", ".join(season.nmr) + "."]
    lines.append("")
    if outcome:
        lines.append(ending(outcome).rstrip("\n"))
    elif next_phase and deadline is None:
        lines.append(f"The next phase is {phase_name(next_phase)} ({next_phase}).")
    elif next_phase:
        lines.append(f"The next phase is {phase_name(next_phase)} ({next_phase}); orders are due by {when(deadline, tz)}.")
    return "\n".join(lines) + "\n"


CALENDAR_ENDS = ("the calendar has run out: W9999B is the last phase the judge can write (years have four "
                 "digits), so the game ends there, its last winter not adjudicated")


def ending(outcome: dict) -> str:
    if outcome.get("calendar"):
        return f"The game is over: {CALENDAR_ENDS}.\n"
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
