"""A player's mail as the judge reads it: who sent it, and the lines it means.

MIME is read with the standard library (``email``, policy ``default``): ``text/plain`` is
preferred, an HTML-only message is turned into text (:mod:`bot.frontends.mail.htmltext`), attachments are
noted and ignored. Quoted replies (``>`` lines and the "On ... wrote:" line before them) and
everything from a signature delimiter (``-- ``), a forwarded/original-message marker or the first
line of one of the judge's own mails (quoted without ``>``) on are dropped. A message that is too large or cannot be read as e-mail is not an error: it becomes an
:class:`InboundMail` with a ``problem`` to answer with.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from email import policy
from email.message import EmailMessage
from email.parser import BytesHeaderParser, BytesParser

from bot.codec.limits import MAX_LINES

from .addresses import single_address
from .htmltext import html_to_text

_END_MARKERS = re.compile(r"^(--\s*|-{3,}\s*original message\s*-{3,}|_{10,}|begin forwarded message:?"
                          r"|-{3,}\s*forwarded message\s*-{3,})$", re.IGNORECASE)
_WROTE = re.compile(r"\bwrote:\s*$", re.IGNORECASE)
_JUDGES_OWN = re.compile(r"^(diplomacy results for |orders standing for |the game's settings are now:|"
                         r"game '[^']*' \(\w+\) has started\.|your message was (not read|refused)|"
                         r"crusader judge\. write help)", re.IGNORECASE)
"""The first line of one of the judge's own mails (results, an answer, the start): a reply that quotes
it without ``>`` (indented, or not marked at all) ends there, so that the results' orders are not
read as the player's."""
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


@dataclass(frozen=True)
class InboundMail:
    """What the judge took from one message. ``problem`` set: the text could not be read, and why.

    ``sender``: who answers go to (the ``From`` address, else the envelope sender); ``envelope``:
    the envelope sender as the SMTP exchange gave it (wrong passwords are counted by it).
    """

    sender: str | None
    subject: str
    message_id: str | None
    text: str
    problem: str | None = None
    notes: tuple[str, ...] = ()
    automatic: bool = False
    envelope: str | None = None


def read_mail(raw: bytes, *, envelope_sender: str | None = None, max_bytes: int = 256_000) -> InboundMail:
    """Never raises: a message the judge cannot read comes back with ``problem`` saying why."""
    envelope = single_address(envelope_sender) if envelope_sender and envelope_sender != "<>" else None
    bounce = not envelope_sender or envelope_sender == "<>"
    if len(raw) > max_bytes:
        headers = _headers_only(raw)
        return InboundMail(
            _sender(headers, envelope), _subject(headers), _message_id(headers), "",
            problem=(f"the message is {len(raw):,} bytes and the judge reads at most {max_bytes:,}; "
                     f"send your orders as plain text, without attachments"),
            automatic=bounce or _automatic(headers), envelope=envelope)
    try:
        msg = BytesParser(policy=policy.default).parsebytes(raw)
    except Exception:  # noqa: BLE001 (a message too broken to parse is answered as broken)
        msg = None
    if msg is None:
        return InboundMail(envelope, "", None, "", problem=_BROKEN, automatic=bounce, envelope=envelope)
    sender, subject, message_id = _sender(msg, envelope), _subject(msg), _message_id(msg)
    automatic = bounce or _automatic(msg)
    try:
        text, notes = _body_text(msg)
    except _Unreadable as exc:
        return InboundMail(sender, subject, message_id, "", problem=str(exc), automatic=automatic, envelope=envelope)
    except Exception:  # noqa: BLE001 (a message too broken to read is answered as broken)
        return InboundMail(sender, subject, message_id, "", problem=_BROKEN, automatic=automatic, envelope=envelope)
    text, beyond, quoted = read_lines(text)
    if quoted:
        notes += ("the judge's own mail quoted in the message (from its first line on) was not read",)
    if beyond:
        notes += (f"the judge reads a message up to its {MAX_LINES}th line: the {beyond} line(s) after it were "
                  f"not read (the last order read is the one echoed last below); send the rest in another message",)
    if not text.strip():
        return InboundMail(sender, subject, message_id, "", notes=notes, automatic=automatic, envelope=envelope,
                           problem="the message has no text the judge could read; write SIGNON, your orders "
                                   "and SIGNOFF in the body of the message, as plain text")
    return InboundMail(sender, subject, message_id, text, notes=notes, automatic=automatic, envelope=envelope)


def _broken(detail: str = "") -> str:
    return ("the judge could not read this message as e-mail: its MIME structure is broken"
            + (f" ({detail})" if detail else "") + "; send your orders as a plain-text message")


_BROKEN = _broken()


class _Unreadable(ValueError):
    pass


def clean_text(text: str) -> str:
    """The lines a player meant: no quoted replies, no signature, no forwarded tail."""
    return read_lines(text)[0]


def read_lines(text: str) -> tuple[str, int, bool]:
    """:func:`clean_text`, at most :data:`~bot.codec.limits.MAX_LINES` lines of it, how many
    lines with something on them came after those (not read), and whether the text ended at a
    quote of the judge's own mail."""
    lines = [_CONTROL.sub("", line).rstrip() for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    out: list[str] = []
    beyond, quoted = 0, False
    for i, line in enumerate(lines):
        if _END_MARKERS.match(line.strip()):
            break
        if _JUDGES_OWN.match(line.strip()):
            quoted = True
            break
        if line.lstrip().startswith(">"):
            continue
        if _WROTE.search(line) and _next_is_quote(lines, i + 1):
            continue
        if len(out) >= MAX_LINES:
            beyond += bool(line.strip())
            continue
        out.append(line)
    return "\n".join(out).strip("\n") + "\n", beyond, quoted


def _next_is_quote(lines: list[str], start: int) -> bool:
    for line in lines[start:start + 5]:
        if line.strip():
            return line.lstrip().startswith(">")
    return True  # "... wrote:" at the very end: the quote was cut


def _headers_only(raw: bytes) -> EmailMessage:
    end = raw.find(b"\r\n\r\n")
    end = raw.find(b"\n\n") if end < 0 else end
    head = raw[: end if 0 <= end < 64_000 else 64_000]
    try:
        return BytesHeaderParser(policy=policy.default).parsebytes(head)
    except Exception:  # noqa: BLE001 (headers too broken to parse count as none)
        return EmailMessage()


def _header(msg, name: str) -> str | None:
    try:
        value = msg.get(name)
        return None if value is None else str(value)
    except Exception:  # noqa: BLE001 (a header the parser chokes on counts as absent)
        return None


def _sender(msg, envelope: str | None) -> str | None:
    return single_address(_header(msg, "From")) or envelope


def _subject(msg) -> str:
    subject = _CONTROL.sub("", (_header(msg, "Subject") or "").replace("\n", " ").replace("\r", " "))
    return " ".join(subject.split())[:150]


def _message_id(msg) -> str | None:
    value = (_header(msg, "Message-ID") or "").strip()
    return value if re.fullmatch(r"<[^<>\s]{1,250}>", value) else None


def _automatic(msg) -> bool:
    auto = (_header(msg, "Auto-Submitted") or "no").strip().lower()
    precedence = (_header(msg, "Precedence") or "").strip().lower()
    return auto != "no" or precedence in {"bulk", "junk", "list"} or _header(msg, "List-Id") is not None


def _body_text(msg: EmailMessage) -> tuple[str, tuple[str, ...]]:
    notes: list[str] = []
    body = msg.get_body(preferencelist=("plain", "html"))
    if msg.is_multipart():
        for part in msg.iter_attachments():
            name = part.get_filename() or part.get_content_type()
            notes.append(f"the attachment {_CONTROL.sub('', str(name))[:80]!r} was ignored")
    if body is None and msg.defects:
        details = "; ".join(dict.fromkeys((type(d).__doc__ or type(d).__name__).strip().split("\n")[0].rstrip(".")
                                          for d in msg.defects))
        raise _Unreadable(_broken(details[:200].lower()))
    if body is None:
        kind = msg.get_content_type()
        raise _Unreadable(f"the message has no plain-text or HTML part (it is {kind}); "
                          "write your orders in the body of the message, as plain text")
    text = _content(body)
    if body.get_content_type() == "text/html":
        notes.append("the message had no plain-text part; its HTML was read as text")
        text = html_to_text(text)
    return text, tuple(notes)


def _content(part) -> str:
    try:
        content = part.get_content()
        if isinstance(content, str):
            return content
    except (LookupError, UnicodeError, ValueError, AssertionError):
        pass
    payload = part.get_payload(decode=True)
    if isinstance(payload, bytes):
        return payload.decode("utf-8", errors="replace")
    raise _Unreadable(_BROKEN)
