"""E-mail addresses as the judge accepts them: one plain ``local@domain``, compared without case."""

from __future__ import annotations

import re
from email.utils import getaddresses

from adjudicator.errors import CrusaderError

_ADDRESS_RE = re.compile(r"[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
                         r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*")
_NO_REPLY_LOCAL_PARTS = {"mailer-daemon", "postmaster", "noreply", "no-reply", "do-not-reply"}


class AddressError(CrusaderError, ValueError):
    """Not an address the judge will register or write to."""


def normalise(address: str) -> str:
    """``address`` lower-cased if it is one plain ``local@domain``; :class:`AddressError` otherwise."""
    text = address.strip()
    if len(text) > 254 or not _ADDRESS_RE.fullmatch(text) or ".." in text or text.startswith("."):
        raise AddressError(f"not a plain e-mail address like player@example.org: {address[:80]!r}")
    return text.lower()


def single_address(header_value: str | None) -> str | None:
    """The one address a From header names, normalised; ``None`` for none, several or a malformed one."""
    if not header_value:
        return None
    try:
        pairs = [pair for pair in getaddresses([str(header_value)]) if pair[1]]
    except Exception:  # noqa: BLE001 (a header too broken for the standard library's parser)
        return None
    if len(pairs) != 1:
        return None
    try:
        return normalise(pairs[0][1])
    except AddressError:
        return None


def may_reply_to(address: str | None, judge_address: str | None) -> bool:
    """Whether an automatic reply may go to ``address``: not empty, not a daemon, not the judge itself."""
    if not address:
        return False
    local = address.split("@", 1)[0]
    return local not in _NO_REPLY_LOCAL_PARTS and address != (judge_address or "").lower()
