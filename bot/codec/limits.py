"""How much the judge reads, the same at every edge: a message of orders (Discord, mail, the
shell), a line of one, an order of a position document, a number in one.

Whatever lies beyond a bound is not read, and the writer is told what was not read and what
would be: a line too long is one refused line among the others, the lines after the last one
read are counted, a character that is not text is shown as ``\\ufffd``. Nothing here takes time
or memory out of proportion to what it keeps.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from adjudicator import fields
from adjudicator.vocab import Phase, PhaseKind

MAX_LINE = 300
"""Characters in one line of orders, or one order of a position document."""
MAX_LINES = 400
"""Lines of one message read as orders."""
MAX_NUMBER = fields.MAX_NUMBER
"""The largest prestige (or count) a position document may give (``adjudicator.fields``
reads a document's numbers)."""
LAST_YEAR = 9999
"""The last year the phase notation writes (``W9999B``): four digits, as the e-mail judges wrote."""

# lone surrogates, NUL and the other control characters but tab, line feed and carriage return
_NOT_TEXT = re.compile(r"[\ud800-\udfff\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def clean(text: str) -> str:
    """``text`` with every character that is not text (a lone surrogate, NUL, a control
    character other than tab and line ends) made ``\\ufffd``: it can be stored, echoed and mailed."""
    return _NOT_TEXT.sub("\ufffd", text)


def excerpt(text: str, size: int = 40) -> str:
    """The start of ``text``, enough to recognise it in an answer."""
    return text if len(text) <= size else text[:size] + "…"


@dataclass(frozen=True)
class NotRead:
    """A line of a message that was not read: its number (from 1), its start, and why."""

    line_no: int
    written: str
    reason: str


@dataclass(frozen=True)
class Bounded:
    """A message as the judge reads it: ``text`` for the grammar (cleaned; a line too long made
    empty, so that the line numbers stay; nothing after line :data:`MAX_LINES`), ``shown`` for the
    audit log (the same, with the start of each line too long), and what was ``not_read``."""

    text: str
    shown: str
    not_read: tuple[NotRead, ...]


def bounded_message(text: str) -> Bounded:
    """``text`` bounded: see :class:`Bounded`. Linear in the length of ``text``, one copy of it."""
    lines = text.split("\n")
    read, shown, not_read = [], [], []
    for number, line in enumerate(lines[:MAX_LINES], 1):
        if len(line.rstrip("\r")) > MAX_LINE:
            start = clean(excerpt(line.strip()))
            not_read.append(NotRead(number, start, f"the line is {len(line):,} characters long; "
                                                   f"a line of orders has at most {MAX_LINE}"))
            read.append("")
            shown.append(start)
        else:
            read.append(clean(line))
            shown.append(read[-1])
    rest = [line for line in lines[MAX_LINES:] if line.strip()]
    if rest:
        not_read.append(NotRead(MAX_LINES + 1, clean(excerpt(rest[0].strip())),
                                f"{len(rest)} more line(s) not read: a message is read up to its {MAX_LINES}th "
                                f"line; send the rest in another message"))
        shown.append(f"[{len(rest)} more line(s) not read]")
    return Bounded("\n".join(read), "\n".join(shown), tuple(not_read))


def calendar_ends(phase: Phase) -> bool:
    """Whether ``phase`` is the last the phase notation lets a game reach (``W9999B``): the
    year after it would have five digits. A game there ends, its last winter not adjudicated."""
    return phase.kind is PhaseKind.ADJUSTMENT and phase.year >= LAST_YEAR
