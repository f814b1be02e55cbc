"""The words of the judge's announcements, e-mail judge style. Pure functions of data."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from adjudicator.vocab import Phase

from bot.codec.season import Season

from .durations import format_duration
from .report import Report, report_of, report_text


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


HIDDEN_PLAYER = "a player (this game is anonymous)"


def shown_player(player: str, anonymous: bool) -> str:
    """A player as the other players may read them: their name, or in an anonymous game (until it
    ends) no name at all. Every text that names a player to others goes through here."""
    return HIDDEN_PLAYER if anonymous else player


def unmasked(players: dict[str, str]) -> str:
    """At the end of an anonymous game: who played which power (the last player of each)."""
    return "\nThe game was anonymous; its players were:\n" + "".join(
        f"  {power}: {player}\n" for power, player in sorted(players.items()))


def started(game: str, variant: str, phase: str, deadline: datetime | None, assignments: dict[str, str],
            tz: str = "UTC", unplayed: Sequence[str] = (), *, early: bool = False, anonymous: bool = False) -> str:
    lines = [f"Game '{game}' ({variant}) has started.", "", "Powers:"]
    lines += [f"  {power}: {shown_player(player, anonymous)}" for power, player in sorted(assignments.items())]
    lines += [f"  {power}: no player (civil disorder: its units hold)" for power in unplayed]
    if anonymous:
        lines += ["", "This game is anonymous: nobody but the game master knows who plays which power until it ends."]
    lines += ["", f"Orders for {phase_name(phase)} ({phase}) are due by {when(deadline, tz)}."]
    if early:
        lines.append(EARLY)
    return "\n".join(lines) + "\n"


EARLY = ("Early adjudication is on: a phase ends as soon as every power that must decide has said its orders are "
         "final (ready).")


AGAIN = "Adjudicated again: the game master rolled the game back, and these results replace the earlier ones."


def results(season: Season, next_phase: str | None, deadline: datetime | None, outcome: dict | None,
            tz: str = "UTC", *, again: bool = False) -> str:
    """The results post of a phase (and, when nobody had anything to decide in it, that it did not
    wait; ``again``: that it was adjudicated before and rolled back since)."""
    return report_text(season_results(season, next_phase, when(deadline, tz) if deadline else None, outcome,
                                      again=again))


def season_results(season: Season, next_phase: str | None, due: str | None, outcome: dict | None, *,
                   again: bool = False) -> Report:
    """The results report of a season (:mod:`bot.service.report`): ``due``, the deadline of the
    next phase in words; ``outcome``, how the game ended, if it did."""
    phase = str(season.phase)
    notices = [AGAIN] if again else []
    if season.at_once:
        notices.append("No power had anything to decide in this phase: it was adjudicated at once.")
    if outcome:
        following = ending(outcome).rstrip("\n")
    elif next_phase and due is None:
        following = f"The next phase is {phase_name(next_phase)} ({next_phase})."
    elif next_phase:
        following = f"The next phase is {phase_name(next_phase)} ({next_phase}); orders are due by {due}."
    else:
        following = ""
    return report_of(season, notices=notices, next_phase=following,
                          title=f"Diplomacy results for {phase_name(phase)} ({phase}) in game '{season.game}'")


CALENDAR_ENDS = ("the calendar has run out: W9999B is the last phase the judge can write (years have four "
                 "digits), so the game ends there, its last winter not adjudicated")


def ending(outcome: dict) -> str:
    if outcome.get("calendar"):
        return f"The game is over: {CALENDAR_ENDS}.\n"
    if outcome.get("conceded"):
        return f"The game is over: {', '.join(outcome['conceded'])} conceded it to {outcome['winner']}, who has won.\n"
    if outcome.get("winner"):
        return f"The game is over: {outcome['winner']} has won.\n"
    if outcome.get("draw"):
        return "The game is over: a draw shared by " + ", ".join(outcome["draw"]) + ".\n"
    return f"The game has been ended by the game master{': ' + outcome['reason'] if outcome.get('reason') else ''}.\n"


def reminder(game: str, phase: str, deadline: datetime | None, powers: Sequence[str], tz: str = "UTC") -> str:
    return (f"Reminder: orders for {phase_name(phase)} ({phase}) in game '{game}' are due by {when(deadline, tz)}.\n"
            f"No orders have been received yet from: {', '.join(powers)}.\n")


def phase_opened(game: str, phase: str, power: str, to_decide: list[str], deadline: datetime | None,
                 tz: str = "UTC") -> str:
    """To the player of ``power`` (its name), when a retreat or adjustment phase begins: what it has to
    decide (``to_decide``: :func:`bot.codec.spelled.duty`'s lines), and by when."""
    lines = [f"{phase_name(phase)} ({phase}) has begun in '{game}', and {power} has to decide:"]
    lines += [f"  · {line}" for line in to_decide]
    lines.append(f"Orders are due by {when(deadline, tz)}.")
    return "\n".join(lines) + "\n"


def unseated(game: str, power: str, how: str, *, started: bool) -> str:
    """To a player the game master took off ``power`` (its name): ``how`` ``removed`` (the power in
    civil disorder) or ``replaced`` (given to another player)."""
    if not started:
        return (f"The game master has taken you out of '{game}' before its start: you were to play {power}, "
                "and no longer are in the game.\n")
    if how == "replaced":
        return f"The game master has given {power} in '{game}' to another player: you no longer play in the game.\n"
    return (f"The game master has removed you from {power} in '{game}': you no longer play in the game, and "
            f"{power} is in civil disorder (its units hold) until it has a new player.\n")


def seated(game: str, phase: str | None, power: str, to_decide: list[str], deadline: datetime | None,
           tz: str = "UTC", *, started: bool) -> str:
    """To a player the game master gave ``power`` (its name) to: what it has to decide now, and by when."""
    if not started:
        return f"The game master has given you {power} in '{game}'; the game has not started yet.\n"
    lines = [f"The game master has given you {power} in '{game}': you play it from now on."]
    if to_decide:
        lines += [f"In {phase_name(phase)} ({phase}) it has to decide:", *(f"  · {line}" for line in to_decide)]
        lines.append(f"Orders are due by {when(deadline, tz)}.")
    else:
        lines.append(f"It has nothing to decide in {phase_name(phase)} ({phase}); the deadline is {when(deadline, tz)}.")
    return "\n".join(lines) + "\n"


def late(game: str, phase: str, deadline: datetime | None, powers: Sequence[str], tz: str = "UTC") -> str:
    return (f"The deadline for {phase} in game '{game}' has passed without orders from {', '.join(powers)}.\n"
            f"Grace period: orders are accepted until {when(deadline, tz)}; then missing orders are NMR.\n")


SETTING_NAMES = {"movement": "movement phases", "retreat": "retreat phases", "adjustment": "adjustment phases",
                 "grace": "grace after a missed deadline", "reminders": "reminders before the deadline",
                 "nmr_limit": "NMR limit", "early": "early adjudication", "timezone": "time zone",
                 "press": "press", "press_all_phases": "press in retreat and adjustment phases",
                 "press_published": "press published at the game's end", "press_max_chars": "longest press message",
                 "press_per_hour": "press messages per power and hour", "anonymous": "anonymous game"}
"""What each setting of a game's policy is called in announcements and answers."""


def setting(policy, key: str) -> str:
    """One setting of ``policy`` (a :class:`~bot.service.policy.DeadlinePolicy`) in words."""
    value = getattr(policy, key)
    if key == "reminders":
        return (", ".join(format_duration(r) for r in value) + " (in a phase shorter than a reminder: one halfway "
                "through it)") if value else "none"
    if key == "grace":
        return format_duration(value) if value else "none"
    if key == "nmr_limit":
        return (f"{value} (civil disorder after {value} phase{'s' if value != 1 else ''} in a row without orders)"
                if value else "0 (never civil disorder)")
    if key == "early":
        return ("on (as soon as every power that must decide has marked its orders ready)" if value
                else "off (at the deadline)")
    if key == "timezone":
        return value
    if key == "press":
        return PRESS_WORDS.get(value, value)
    if key in ("press_all_phases", "press_published"):
        return "yes" if value else "no"
    if key == "press_max_chars":
        return f"{value} characters"
    if key == "press_per_hour":
        return str(value) if value else "no bound"
    if key == "anonymous":
        return ("yes (nobody but the game master knows who plays which power until the game ends)" if value
                else "no")
    return format_duration(value)


PRESS_WORDS = {"full": "full (private press to any powers, and press to everyone)",
               "public": "public (press to everyone only)",
               "grey": "grey (as full, and a sender may stay anonymous)",
               "none": "none (no press between players)"}
"""The press rules (:data:`bot.service.policy.PRESS_RULES`) in words; press to the game master is always allowed."""


def settings(policy) -> list[str]:
    """Every setting of ``policy``, a line each."""
    return [f"  {SETTING_NAMES[key]}: {setting(policy, key)}" for key in SETTING_NAMES]


def policy_changed(game: str, before, after, changed: list[str], *, running: bool) -> str:
    """The announcement of a game master's change of the game's settings: what changed, from when,
    and all of them as they now are."""
    lines = [f"The game master has changed the settings of '{game}':"]
    lines += [f"  {SETTING_NAMES[key]}: {setting(before, key)} -> {setting(after, key)}" for key in changed]
    if running and any(key in changed for key in ("press", "press_all_phases", "press_max_chars", "press_per_hour")):
        lines += ["", "The press settings apply at once."]
    if running and any(not key.startswith("press") for key in changed):
        lines += ["", "This phase keeps its deadline; the new lengths count from the next phase. Grace, the NMR "
                      "limit and early adjudication apply from this phase's deadline, and the reminders still to "
                      "come in this phase follow the new times."]
    lines += ["", "The game's settings are now:", *settings(after)]
    return "\n".join(lines) + "\n"


def full(game: str, powers: int) -> str:
    """To the game master: the last seat of a forming game was filled."""
    return (f"Every one of the {powers} powers of '{game}' has a player now: the game may start. Start it "
            f"when you are ready (by mail: sign on as the game master and write START; on Discord: /game "
            f"start; at the judge's shell: crusader game start {game}). Until then a player may still leave, "
            f"and a newcomer goes on the waiting list.\n")
