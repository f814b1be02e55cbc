"""The email package's policies the judge's mail is composed and written out with: the package's
own (``default`` for a mail being composed, ``SMTP``, ``SMTPUTF8`` and their 7-bit clones for the
wire), sharing one header registry whose classes are made once.

The email package's :class:`~email.headerregistry.HeaderRegistry` makes a new class (``type()``)
for every header it is asked for: each header set on a message, each one counted on the way in
(``header_max_count``), each field written out anew. :class:`HeaderClasses` is that registry,
asked once for each kind of header: the headers themselves (their parsing, their folding) are
still the email package's, their text the same.
"""

from __future__ import annotations

from email.headerregistry import BaseHeader, HeaderRegistry
from email.policy import SMTP, SMTPUTF8, EmailPolicy, default
from typing import Any


class HeaderClasses(HeaderRegistry):
    """A :class:`~email.headerregistry.HeaderRegistry` that makes the class for each kind of header
    (the specialised class a name is registered to, or the default) once, not on every call."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._made: dict[type, type[BaseHeader]] = {}  # by the class a name is registered to

    def __getitem__(self, name: str) -> type[BaseHeader]:
        kind = self.registry.get(name.lower(), self.default_class)
        made = self._made.get(kind)
        if made is None:
            made = self._made[kind] = super().__getitem__(name)
        return made


HEADERS = HeaderClasses()

COMPOSING: EmailPolicy[Any] = default.clone(header_factory=HEADERS)
"""``email.policy.default``, for the mail the judge composes."""

WIRE: dict[tuple[bool, bool], EmailPolicy[Any]] = {
    (False, True): SMTP.clone(header_factory=HEADERS),
    (True, True): SMTPUTF8.clone(header_factory=HEADERS),
    (False, False): SMTP.clone(header_factory=HEADERS, cte_type="7bit"),
    (True, False): SMTPUTF8.clone(header_factory=HEADERS, cte_type="7bit"),
}
"""The policy a mail is written out with for a relay, by whether it takes SMTPUTF8 (and the
address is not ASCII) and 8BITMIME: ``SMTPUTF8`` or ``SMTP``, with ``cte_type="7bit"`` when the
relay takes no 8-bit text."""


def one_line(value: str) -> str:
    """``value``, to be set as it is (:meth:`~email.message.Message.set_raw`) and written so: on one
    line, as the email package wants any header's value it parses (set as it is, it would write
    the line break)."""
    if len(value.splitlines()) > 1:
        raise ValueError(f"a header's value on more than one line: {value!r}")
    return value
