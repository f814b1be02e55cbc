"""A game's deadline policy: how long each phase lasts, grace, reminders, NMR handling."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field, fields
from datetime import timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from adjudicator.vocab import PhaseKind

_DURATION_RE = re.compile(r"(\d+(?:\.\d+)?)\s*([wdhms])")
_UNIT_SECONDS = {"w": 604800, "d": 86400, "h": 3600, "m": 60, "s": 1}
_LENGTHS = ("movement", "retreat", "adjustment", "grace")  # stored as seconds


def parse_duration(text: str) -> timedelta:
    """``48h``, ``2d``, ``1d12h``, ``90m``, ``30s`` or a bare number of seconds."""
    cleaned = text.strip().lower().replace(" ", "")
    if re.fullmatch(r"\d+(\.\d+)?", cleaned):
        return timedelta(seconds=float(cleaned))
    parts = _DURATION_RE.findall(cleaned)
    if not parts or "".join(n + u for n, u in parts) != cleaned:
        raise ValueError(f"duration must look like 48h, 2d, 1d12h, 90m or 30s: {text!r}")
    return timedelta(seconds=sum(float(n) * _UNIT_SECONDS[u] for n, u in parts))


def format_duration(delta: timedelta) -> str:
    seconds = int(delta.total_seconds())
    out = []
    for unit in "dhms":
        n, seconds = divmod(seconds, _UNIT_SECONDS[unit])
        if n:
            out.append(f"{n}{unit}")
    return "".join(out) or "0s"


@dataclass(frozen=True)
class DeadlinePolicy:
    """Phase lengths, grace after a missed deadline, reminders before it, NMR limit.

    ``nmr_limit`` consecutive phases without orders put a power in civil disorder (0: never).
    ``early`` adjudicates as soon as every power that must order has orders in.
    ``timezone`` (an IANA name) is how announcements show deadlines, next to UTC; times are
    always stored in UTC.
    """

    movement: timedelta = timedelta(hours=48)
    retreat: timedelta = timedelta(hours=24)
    adjustment: timedelta = timedelta(hours=24)
    grace: timedelta = timedelta(0)
    reminders: tuple[timedelta, ...] = (timedelta(hours=24), timedelta(hours=1))
    nmr_limit: int = 2
    early: bool = False
    timezone: str = "UTC"
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        try:
            ZoneInfo(self.timezone)
        except (ZoneInfoNotFoundError, ValueError):
            raise ValueError(f"unknown time zone {self.timezone!r}; use an IANA name like Europe/Paris or UTC") from None

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
            raise ValueError(f"unknown deadline policy key {unknown[0]!r}; known: {', '.join(known)}")
        kw: dict[str, Any] = {}
        for key in _LENGTHS:
            if key in d:
                kw[key] = timedelta(seconds=float(d[key]))
        if "reminders" in d:
            kw["reminders"] = tuple(sorted((timedelta(seconds=float(r)) for r in d["reminders"]), reverse=True))
        if "nmr_limit" in d:
            kw["nmr_limit"] = int(d["nmr_limit"])
        if "early" in d:
            kw["early"] = bool(d["early"])
        if "timezone" in d:
            kw["timezone"] = str(d["timezone"])
        if "extra" in d:
            kw["extra"] = dict(d["extra"])
        return cls(**kw)
