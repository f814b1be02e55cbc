"""The reference each message the outbox posts carries, invisible to readers.

Exactly once: before posting a part of an announcement the sink reads the channel's recent
history for the part's reference (``12:7:results#1/2``) and posts only what is missing. The
reference travels at the end of the message's text as zero-width characters (two bits each,
between two invisible separators): Discord keeps them, every client draws nothing, and a reader
sees only what the judge says. A reference longer than :data:`LONGEST` bytes travels as its
digest (``~`` and 40 hex digits), which :func:`key` gives for comparing.

Messages posted by earlier versions carry the reference as a last line ``-# ref ...`` or in an
embed footer ``ref ...``: :func:`read` still finds those, so an upgrade posts nothing twice.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

START, END = "\u2063", "\u2064"  # INVISIBLE SEPARATOR, INVISIBLE PLUS: where a reference begins and ends
DIGITS = ("\u200b", "\u2060", "\u2061", "\u2062")  # ZERO WIDTH SPACE, WORD JOINER, two invisible operators
LONGEST = 100
ROOM = 4 * LONGEST + 2  # characters to keep free in a message for its reference


def key(ref: str) -> str:
    """What a message carries for ``ref``: itself, or its digest when it is longer than :data:`LONGEST` bytes."""
    if len(ref.encode("utf-8")) <= LONGEST:
        return ref
    return "~" + hashlib.sha256(ref.encode("utf-8")).hexdigest()[:40]


def mark(text: str, ref: str) -> str:
    """``text`` with ``ref`` appended invisibly."""
    data = key(ref).encode("utf-8")
    return text + START + "".join(DIGITS[(byte >> i) & 3] for byte in data for i in (6, 4, 2, 0)) + END


def unmark(text: str) -> tuple[str, str | None]:
    """``(text without its reference, the reference (or its :func:`key`) or None)``."""
    start = text.rfind(START)
    end = text.find(END, start + 1) if start >= 0 else -1
    if start < 0 or end < 0:
        return text, None
    digits = text[start + 1:end]
    if len(digits) % 4 or any(c not in DIGITS for c in digits):
        return text, None
    values = [DIGITS.index(c) for c in digits]
    data = bytes((a << 6) | (b << 4) | (c << 2) | d for a, b, c, d in zip(*[iter(values)] * 4))
    try:
        return text[:start] + text[end + 1:], data.decode("utf-8")
    except UnicodeDecodeError:
        return text, None


def read(content: str, embeds: Sequence[Any] = ()) -> str | None:
    """The reference a posted message carries, if any (invisible, or as earlier versions wrote it)."""
    _, ref = unmark(content or "")
    if ref is not None:
        return ref
    last = (content or "").splitlines()[-1:]
    if last and last[0].startswith("-# ref "):
        return last[0][len("-# ref "):].strip()
    for embed in embeds:
        text = embed.footer.text if embed.footer else None
        if text and text.startswith("ref "):
            return text[4:].strip()
    return None
