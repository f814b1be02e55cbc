"""What a game master writes for time: durations (``36h``, ``2d``, ``90m``, ``1d12h``) and moments
(``2031-03-01 18:00 Europe/Paris``), read once here for the shell, Discord and mail alike.

Bounds, so that no typo runs away or overflows:

- A duration needs a unit; a bare number (``10``: seconds? hours?) is refused with the forms
  accepted. It is at most :data:`MAX_DURATION` (a year): ``99999999d`` is refused with a message.
- A phase lasts at least :data:`MIN_PHASE` (one minute; live games play 5 to 15 minute phases).
  Shorter, a typo such as ``0.001s`` would adjudicate hundreds of seasons a minute. A deadline set
  by hand for one phase (``deadline --in 30s``) may be sooner: it does not repeat.
- A moment is in a named IANA time zone (written after it, else the game's); a local time that a
  clock change skips or repeats is refused, with the way to say it unambiguously.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from .errors import InputError

MIN_PHASE = timedelta(minutes=1)
MAX_DURATION = timedelta(days=365)
_MAX_TEXT = 64  # characters of a duration or moment; anything longer is no duration

_UNITS = {
    "w": 604800, "week": 604800, "weeks": 604800,
    "d": 86400, "day": 86400, "days": 86400,
    "h": 3600, "hr": 3600, "hrs": 3600, "hour": 3600, "hours": 3600,
    "m": 60, "min": 60, "mins": 60, "minute": 60, "minutes": 60,
    "s": 1, "sec": 1, "secs": 1, "second": 1, "seconds": 1,
}
_PART_RE = re.compile(r"(\d{1,12}(?:\.\d{1,6})?)\s*([a-z]+)\s*")
FORMS = "a number and a unit, like 36h, 2d, 90m, 1d12h or 45s (units w, d, h, m, s)"
NONE = ("none", "no", "off", "0")
"""What reads as no duration at all, where nothing is a value (no grace, no reminders)."""


def parse_duration(text: str, *, what: str = "a duration", zero: bool = False) -> timedelta:
    """``36h``, ``2d``, ``90m``, ``1d12h``, ``1.5h``, ``2 days`` as a ``timedelta``.

    Positive (or zero with ``zero``: then also ``none``, ``0``) and at most :data:`MAX_DURATION`;
    ``what`` names the value in the refusal (``"the movement phase"``). Every refusal is a
    ``ValueError`` saying what would be accepted.
    """
    cleaned = text.strip().lower() if isinstance(text, str) else ""
    if not cleaned or len(cleaned) > _MAX_TEXT:
        raise InputError(f"{what} must be {FORMS}: {_shown(text)}")
    if zero and cleaned in NONE:
        return timedelta(0)
    if re.fullmatch(r"\d+(\.\d+)?", cleaned):
        raise InputError(f"{what} needs a unit: {cleaned!r} could be seconds or hours; write {cleaned}h, "
                         f"{cleaned}m or {cleaned}d (units w, d, h, m, s; combined like 1d12h)")
    seconds, pos = 0.0, 0
    for match in _PART_RE.finditer(cleaned):
        if match.start() != pos or match.group(2) not in _UNITS:
            break
        seconds += float(match.group(1)) * _UNITS[match.group(2)]
        pos = match.end()
    if pos != len(cleaned):
        raise InputError(f"{what} must be {FORMS}: {_shown(text)}")
    if seconds > MAX_DURATION.total_seconds():
        raise InputError(f"{what} is too long: {_shown(text)} is more than {format_duration(MAX_DURATION)} "
                         "(a year); pause the game instead")
    delta = timedelta(seconds=round(seconds, 6))
    if delta < timedelta(0) or (delta == timedelta(0) and not zero):
        raise InputError(f"{what} must be more than nothing, like 24h: {_shown(text)}")
    return delta


def parse_durations(text: str, *, what: str = "a duration") -> tuple[timedelta, ...]:
    """Several durations in one text, ``24h, 1h`` (between them commas, or else spaces: ``24h 1h``),
    each as :func:`parse_duration` reads it; ``none`` (or ``0``): none at all."""
    cleaned = text.strip().lower() if isinstance(text, str) else ""
    if cleaned in NONE:
        return ()
    if len(cleaned) > _MAX_TEXT:
        raise InputError(f"{what} are at most a few durations like 24h, 1h: {_shown(text)}")
    parts = re.split(r"[,;]", cleaned) if re.search(r"[,;]", cleaned) else re.split(r"\s+(?=\d)", cleaned)
    return tuple(parse_duration(part.strip(), what=what) for part in parts if part.strip())


def check_phase_length(delta: timedelta, what: str = "a phase") -> timedelta:
    """``delta`` if it is a length a phase may have (:data:`MIN_PHASE` to :data:`MAX_DURATION`)."""
    if delta < MIN_PHASE:
        raise InputError(f"{what} must last at least {format_duration(MIN_PHASE)}, not {format_duration(delta)}; "
                         "a shorter phase would adjudicate seasons faster than anyone can order")
    if delta > MAX_DURATION:
        raise InputError(f"{what} may last at most {format_duration(MAX_DURATION)}, not {format_duration(delta)}")
    return delta


def format_duration(delta: timedelta) -> str:
    """``1d12h``, ``90m`` reads as ``1h30m``; below a second, ``0s`` (or the fraction, ``0.001s``)."""
    total = delta.total_seconds()
    seconds = int(total)
    out = []
    for unit in "dhms":
        n, seconds = divmod(seconds, _UNITS[unit])
        if n:
            out.append(f"{n}{unit}")
    if not out and total > 0:
        return f"{total:g}s"
    return "".join(out) or "0s"


# -- moments ---------------------------------------------------------------------------------------

_MOMENT_RE = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})[ t]+(\d{1,2}):(\d{2})(?::(\d{2}))?\s*(.*)", re.IGNORECASE)
_OFFSET_RE = re.compile(r"([+-])(\d{2}):?(\d{2})")
_ZONE_RE = re.compile(r"[A-Za-z][A-Za-z0-9_+\-]*(?:/[A-Za-z0-9_+\-]+){0,2}")
MOMENT_FORMS = ("a date and time, like 2031-03-01 18:00, then a time zone if it is not the game's: "
                "2031-03-01 18:00 Europe/Paris, 2031-03-01 17:00 UTC or 2031-03-01T18:00+01:00")


def zone(name: str) -> ZoneInfo:
    """The IANA time zone ``name`` (``Europe/Paris``, ``UTC``), or a ``ValueError`` saying so."""
    if not isinstance(name, str) or not _ZONE_RE.fullmatch(name.strip()) or len(name) > _MAX_TEXT:
        raise InputError(f"unknown time zone {_shown(name)}; use an IANA name like Europe/Paris, America/New_York "
                         "or UTC")
    try:
        return ZoneInfo(name.strip())
    except (ZoneInfoNotFoundError, ValueError, OSError):
        raise InputError(f"unknown time zone {_shown(name)}; use an IANA name like Europe/Paris, America/New_York "
                         "or UTC") from None


def parse_moment(text: str, default_zone: str = "UTC") -> datetime:
    """A date and time as a GM writes it, as a timezone-aware UTC ``datetime``.

    ``2031-03-01 18:00`` is in ``default_zone`` (the game's); a zone may follow: an IANA name
    (``Europe/Paris``), ``UTC`` or ``Z``, or an offset (``+01:00``). A local time that does not
    exist (the clocks go forward over it) or happens twice (they go back) is refused.
    """
    cleaned = text.strip() if isinstance(text, str) else ""
    match = _MOMENT_RE.fullmatch(cleaned) if 0 < len(cleaned) <= _MAX_TEXT else None
    if match is None:
        raise InputError(f"a deadline must be {MOMENT_FORMS}: {_shown(text)}")
    year, month, day, hour, minute, second, where = match.groups()
    try:
        naive = datetime(int(year), int(month), int(day), int(hour), int(minute), int(second or 0))
    except ValueError as exc:
        raise InputError(f"{_shown(text)} is not a date and time: {exc}") from None
    where = where.strip()
    if where.upper() in ("Z", "UTC", "GMT"):
        return naive.replace(tzinfo=UTC)
    offset = _OFFSET_RE.fullmatch(where)
    if offset:
        sign = 1 if offset.group(1) == "+" else -1
        hours, minutes = int(offset.group(2)), int(offset.group(3))
        if hours > 23 or minutes > 59:
            raise InputError(f"{where!r} is not a UTC offset; write it like +01:00 or -05:00")
        fixed = timezone(sign * timedelta(hours=hours, minutes=minutes))
        return naive.replace(tzinfo=fixed).astimezone(UTC)
    name = where or default_zone
    tz = zone(name)
    first, second_ = naive.replace(tzinfo=tz, fold=0), naive.replace(tzinfo=tz, fold=1)
    if first.utcoffset() != second_.utcoffset():
        if first.astimezone(UTC).astimezone(tz).replace(tzinfo=None) != naive:
            raise InputError(f"{naive:%Y-%m-%d %H:%M} does not exist in {name}: the clocks go forward over it; "
                             "choose another time")
        raise InputError(f"{naive:%Y-%m-%d %H:%M} happens twice in {name} (the clocks go back); say which with "
                         f"its UTC offset, like {naive:%Y-%m-%dT%H:%M}{_offset(first)} or "
                         f"{naive:%Y-%m-%dT%H:%M}{_offset(second_)}")
    return first.astimezone(UTC)


def _offset(moment: datetime) -> str:
    offset = moment.utcoffset()
    assert offset is not None, "a time with its zone has an offset"
    minutes = int(offset.total_seconds() // 60)
    sign = "+" if minutes >= 0 else "-"
    return f"{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


def _shown(text) -> str:
    """What the user wrote, quoted, cut short when it is long."""
    text = str(text)
    return repr(text if len(text) <= _MAX_TEXT else text[:_MAX_TEXT] + "...")
