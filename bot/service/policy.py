"""A game's deadline policy: how long each phase lasts, grace, reminders, NMR handling."""

from __future__ import annotations

import typing
from dataclasses import asdict, dataclass, field, fields, replace
from datetime import timedelta
from typing import Any
from collections.abc import Mapping

from adjudicator.vocab import PhaseKind

from .durations import (MAX_DURATION, MIN_PHASE, check_phase_length, format_duration, parse_duration, parse_durations,
                        zone)
from .errors import InputError

__all__ = ["SETTINGS", "DeadlinePolicy", "format_duration", "parse_duration"]

_PHASES = ("movement", "retreat", "adjustment")
PRESS_RULES = ("full", "public", "grey", "none")
"""What players may say to each other through the judge (:mod:`bot.service.press`): ``full`` private
press to any set of powers and press to everyone, ``public`` only press to everyone, ``grey`` as
``full`` and a sender may stay anonymous, ``none`` no press between players. Press to the game
master is always allowed."""
MAX_PRESS_CHARS = 20000
_LENGTHS = (*_PHASES, "grace")  # stored as seconds


@dataclass(frozen=True)
class DeadlinePolicy:
    """Phase lengths, grace after a missed deadline, reminders before it, NMR limit.

    ``nmr_limit`` consecutive phases without orders put a power in civil disorder (0: never).
    ``early`` adjudicates as soon as every power that must decide has marked its orders final (ready).
    ``reminders`` come that long before a deadline (:meth:`reminders_for`: in a phase shorter than
    one, halfway through it instead).
    ``press`` (:data:`PRESS_RULES`) is what players may say to each other; ``press_all_phases``
    lets press flow in retreat and adjustment phases (off: in movement phases only);
    ``press_published`` puts the game's press (not that to the game master) on its archive site
    when the game ends; ``press_max_chars`` bounds one message, ``press_per_hour`` the messages
    one power sends in an hour (0: no bound). ``anonymous``: nobody but the game master learns who
    plays which power until the game ends.
    ``timezone`` (an IANA name) is how announcements show deadlines, next to UTC, and the zone of
    a deadline the game master writes without one; times are always stored in UTC. A phase lasts
    :data:`~bot.service.durations.MIN_PHASE` to :data:`~bot.service.durations.MAX_DURATION`.
    """

    movement: timedelta = timedelta(hours=48)
    retreat: timedelta = timedelta(hours=24)
    adjustment: timedelta = timedelta(hours=24)
    grace: timedelta = timedelta(0)
    reminders: tuple[timedelta, ...] = (timedelta(hours=24), timedelta(hours=1))
    nmr_limit: int = 2
    early: bool = False
    timezone: str = "UTC"
    press: str = "full"
    press_all_phases: bool = True
    press_published: bool = False
    press_max_chars: int = 4000
    press_per_hour: int = 30
    anonymous: bool = False
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        zone(self.timezone)
        for key in _PHASES:
            check_phase_length(getattr(self, key), f"the {key} phase")
        if not timedelta(0) <= self.grace <= MAX_DURATION:
            raise InputError(f"the grace period must be 0 to {format_duration(MAX_DURATION)}, "
                             f"not {format_duration(self.grace)}")
        for before in self.reminders:
            if not timedelta(0) < before <= MAX_DURATION:
                raise InputError(f"a reminder comes 1s to {format_duration(MAX_DURATION)} before the deadline, "
                                 f"not {format_duration(before)}")
        if self.press not in PRESS_RULES:
            raise InputError(f"press is one of {', '.join(PRESS_RULES)}, not {str(self.press)[:20]!r}")
        if not 1 <= self.press_max_chars <= MAX_PRESS_CHARS:
            raise InputError(f"press_max_chars is 1 to {MAX_PRESS_CHARS} characters, not {self.press_max_chars}")
        if not 0 <= self.press_per_hour <= 1000:
            raise InputError(f"press_per_hour is 0 (no bound) to 1000 messages, not {self.press_per_hour}")
        if not 0 <= self.nmr_limit <= 1000:
            raise InputError(f"the NMR limit is a number of phases from 0 (never) to 1000, not {self.nmr_limit}")

    def changed(self, changes: Mapping[str, Any]) -> DeadlinePolicy:
        """This policy with ``changes`` (setting name -> typed value: a ``timedelta`` for a length or
        the grace, a sequence of ``timedelta`` for the reminders, an ``int`` NMR limit, a ``bool``
        for early adjudication, an IANA name for the time zone), checked as a new policy is; an
        :class:`InputError` names a setting that is unknown or a value of the wrong kind."""
        hints = typing.get_type_hints(DeadlinePolicy)
        values: dict[str, Any] = {}
        for key, value in changes.items():
            if key not in SETTINGS:
                raise InputError(f"unknown setting {str(key)[:40]!r}; the settings are {', '.join(SETTINGS)}")
            wanted = hints[key]
            if wanted == tuple[timedelta, ...]:
                if isinstance(value, (str, bytes)) or not all(isinstance(v, timedelta) for v in value):
                    raise InputError(f"{key} is a list of durations before the deadline, not {value!r}")
                value = tuple(sorted(set(value), reverse=True))
            elif not isinstance(value, wanted) or (wanted is int and isinstance(value, bool)):
                raise InputError(f"{key} is {_KINDS.get(wanted, wanted.__name__)}, not {value!r}")
            values[key] = value
        return replace(self, **values)

    def reminders_for(self, length: timedelta) -> tuple[timedelta, ...]:
        """How long before the deadline of a phase of ``length`` (or of the time left until it) its
        reminders come: the policy's own that fall within it and, when one of them would fall at or
        before its start (a phase of a day with a reminder a day before), one halfway through it
        instead, unless another comes in its first half already. Latest last."""
        inside = {before for before in self.reminders if before < length}
        if len(inside) < len(self.reminders) and not any(before >= length / 2 for before in inside):
            half = timedelta(seconds=int(length.total_seconds() // 2))
            if half > timedelta(0):
                inside.add(half)
        return tuple(sorted(inside, reverse=True))

    def length(self, kind: PhaseKind) -> timedelta:
        return {PhaseKind.MOVEMENT: self.movement, PhaseKind.RETREAT: self.retreat,
                PhaseKind.ADJUSTMENT: self.adjustment}[kind]

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        for key in _LENGTHS:
            d[key] = d[key].total_seconds()
        d["reminders"] = [r.total_seconds() for r in self.reminders]
        return d

    @staticmethod
    def extra_of(d: dict[str, Any]) -> dict[str, Any]:
        """``from_dict(d).extra`` without reading the rest (a directory lists it for every game of every DM)."""
        return dict(d.get("extra") or {})

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> DeadlinePolicy:
        known = sorted(f.name for f in fields(cls))
        unknown = sorted(set(d) - set(known))
        if unknown:
            raise InputError(f"unknown deadline policy key {unknown[0]!r}; known: {', '.join(known)}")
        kw: dict[str, Any] = {}
        for key in _LENGTHS:
            if key in d:  # a game stored before the bounds keeps its pace within them
                low = MIN_PHASE if key in _PHASES else timedelta(0)
                kw[key] = min(max(timedelta(seconds=float(d[key])), low), MAX_DURATION)
        if "reminders" in d:
            kw["reminders"] = tuple(sorted((timedelta(seconds=float(r)) for r in d["reminders"]), reverse=True))
        for key in ("nmr_limit", "press_max_chars", "press_per_hour"):
            if key in d:
                kw[key] = int(d[key])
        for key in ("early", "press_all_phases", "press_published", "anonymous"):
            if key in d:
                kw[key] = bool(d[key])
        for key in ("timezone", "press"):
            if key in d:
                kw[key] = str(d[key])
        if "extra" in d:
            kw["extra"] = dict(d["extra"])
        return cls(**kw)


SETTINGS = tuple(f.name for f in fields(DeadlinePolicy) if f.name != "extra")
"""What a game master may set (:meth:`DeadlinePolicy.changed`); ``extra`` is the front ends' own."""
PRESS_SETTINGS = ("press", "press_all_phases", "press_published", "press_max_chars", "press_per_hour", "anonymous")
_KINDS = {timedelta: "a duration", int: "a whole number", bool: "on or off (True or False)", str: "a name"}


SETTING_WORDS = {"movement": "movement", "retreat": "retreat", "retreats": "retreat", "adjustment": "adjustment",
                 "adjustments": "adjustment", "builds": "adjustment", "grace": "grace", "reminder": "reminders",
                 "reminders": "reminders", "nmr": "nmr_limit", "nmr_limit": "nmr_limit", "nmr-limit": "nmr_limit",
                 "nmrlimit": "nmr_limit", "early": "early", "timezone": "timezone", "zone": "timezone", "tz": "timezone",
                 **{key: key for key in PRESS_SETTINGS}, **{key.replace("_", "-"): key for key in PRESS_SETTINGS}}
"""How a game master may write a setting's name in a message (``SET movement 48h``)."""


def read_setting(name: str, text: str) -> tuple[str, Any]:
    """A setting as written in words (``movement``, ``48h``) to its name and typed value, for
    :meth:`DeadlinePolicy.changed`; an :class:`InputError` saying what would be accepted."""
    key = SETTING_WORDS.get(name.strip().lower())
    if key is None:
        raise InputError(f"{name[:30]!r} is not a setting; the settings are movement, retreat, adjustment, grace, "
                         f"reminders, nmr_limit, early, timezone, {', '.join(PRESS_SETTINGS)}")
    text = text.strip()
    try:
        if key in ("movement", "retreat", "adjustment"):
            return key, parse_duration(text, what=f"the {key} phase")
        if key == "grace":
            return key, parse_duration(text, what="the grace", zero=True)
        if key == "reminders":
            return key, parse_durations(text, what="a reminder")
    except ValueError as exc:
        raise InputError(str(exc)) from None
    if key in ("nmr_limit", "press_max_chars", "press_per_hour"):
        if not text.isdigit():
            raise InputError(f"{key} is a whole number, not {text[:20]!r}")
        return key, int(text)
    if key in ("early", "press_all_phases", "press_published", "anonymous"):
        words = {"on": True, "yes": True, "true": True, "off": False, "no": False, "false": False}
        if text.lower() not in words:
            raise InputError(f"{key} is on or off, not {text[:20]!r}")
        return key, words[text.lower()]
    if key == "press":
        return key, text.lower()
    return key, text
