"""Outbound mail through the configured SMTP relay (aiosmtplib), one recipient per message.

The recipient is given explicitly and is the only one: headers such as ``Cc`` or ``Bcc`` are
never added, and the envelope never names anyone else. :meth:`Mailer.deliver` says how a
message went as the outbox wants it: delivered, refused for good (the relay's 5xx: a mailbox
that does not exist) or to try again later (a 4xx, the relay unreachable, slow, or refusing the
judge itself: its login, its address, relaying for it; the mail waits until the relay is mended,
at most three days).

Mail is sent over a bounded pool of SMTP connections (``pool`` connections at most, each kept
open ``idle`` seconds after its last message and closed by :meth:`Mailer.close`), so that the
seven mails of a season cost one connection, not seven; a kept connection the relay has closed
meanwhile is found out at the sender's command (MAIL), before anything is sent, and replaced. A part
shared by the messages of one announcement (the map picture, 140 kB: :func:`.replies.picture_part`
makes it once for all its addresses) is written out (MIME, base64) once, not for every address,
and an announcement's mail is composed once for all of them (a :class:`Letter`: its headers,
text and picture written out and made ready for the wire once; each address's copy writes only
its own ``To`` and ``Message-ID``).

The relay itself is watched: one that cannot be reached, refuses the judge's login or sender, or
will not relay for it is :attr:`Mailer.relay_problem` (a sentence naming the settings), which
``crusader health`` reports, until a message goes through or :meth:`Mailer.probe` (the exchange
of a message up to its sender, then ``RSET``) finds the relay well again.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import io
import re
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from email.generator import BytesGenerator
from email.message import EmailMessage, Message
from email.policy import Policy
from typing import Any

import aiosmtplib
import structlog

from bot.store.outbox import DELIVERED, Outcome, Refused, RetryLater
from .config import MailSettings
from .policies import WIRE, one_line

log = structlog.get_logger("crusader.mail")


POOL = 4
"""Connections to the relay at most at once (the outbox delivers several mails at a time)."""
IDLE = 15.0
"""Seconds a connection is kept open after its last message (relays close idle ones after minutes)."""


class Mailer:
    def __init__(self, settings: MailSettings, *, pool: int = POOL, idle: float = IDLE) -> None:
        if not settings.address:
            raise ValueError("the judge needs its own address to send mail: set CRUSADER_MAIL_ADDRESS")
        if pool < 1:
            raise ValueError("a pool of at least one connection")
        self.settings = settings
        self.address: str = settings.address
        """The judge's own address, the sender of every mail."""
        self.relay_problem: str | None = None
        """What is wrong with the relay (``None``: the last message, or probe, went through)."""
        self._refusing = False  # the problem is that it will not relay for the judge
        self.idle = idle
        self.pool = pool
        self._loop: asyncio.AbstractEventLoop | None = None  # the loop the pool's connections belong to
        self._free: list[tuple[aiosmtplib.SMTP, float]] = []  # connections ready, with when each was last used
        self._slots: asyncio.Semaphore | None = None
        self._parts: OrderedDict[tuple, tuple[Message, bytes]] = OrderedDict()  # shared parts, written out
        self.connections = 0
        """Connections opened so far (for the benchmarks and the tests)."""

    def _client(self) -> aiosmtplib.SMTP:
        s = self.settings
        password = s.relay_password.get_secret_value() if s.relay_password else None
        return aiosmtplib.SMTP(hostname=s.relay_host, port=s.relay_port, username=s.relay_username,
                               password=password, use_tls=s.relay_tls, start_tls=s.relay_starttls,
                               cert_bundle=s.relay_ca_file, timeout=s.relay_timeout)

    def _own_loop(self) -> asyncio.Semaphore:
        """The pool of this event loop (connections of a loop that has ended are dropped)."""
        loop = asyncio.get_running_loop()
        if loop is not self._loop or self._slots is None:
            for client, _ in self._free:
                _drop(client)
            self._free, self._loop, self._slots = [], loop, asyncio.Semaphore(self.pool)
        return self._slots

    async def close(self) -> None:
        """Close the connections kept open (at a stop)."""
        free, self._free = self._free, []
        for client, _ in free:
            await _quit(client)

    def _take(self) -> aiosmtplib.SMTP | None:
        """A kept connection still young enough, if any (the older ones closed)."""
        now = asyncio.get_running_loop().time()
        while self._free:
            client, since = self._free.pop()
            if client.is_connected and now - since < self.idle:
                return client
            _drop(client)
        return None

    def _keep(self, client: aiosmtplib.SMTP) -> None:
        if client.is_connected:
            self._free.append((client, asyncio.get_running_loop().time()))

    @property
    def relay(self) -> str:
        return f"{self.settings.relay_host}:{self.settings.relay_port}"

    async def probe(self) -> str | None:
        """Try the relay as a message would, without sending one: connect (TLS as set), greet, log in
        when set, give the judge's address as the sender, and take it back (``RSET``). What is wrong
        (also kept in :attr:`relay_problem`), or ``None``."""
        s = self.settings
        password = s.relay_password.get_secret_value() if s.relay_password else None
        client = aiosmtplib.SMTP(hostname=s.relay_host, port=s.relay_port, username=s.relay_username,
                                 password=password, use_tls=s.relay_tls, start_tls=s.relay_starttls,
                                 cert_bundle=s.relay_ca_file, timeout=s.relay_timeout)
        try:
            await client.connect()
            response = await client.mail(self.address)
            if not 200 <= response.code < 300:
                raise aiosmtplib.SMTPSenderRefused(response.code, response.message, self.address)
            await client.rset()
        except (TimeoutError, aiosmtplib.SMTPException, OSError) as exc:
            self._noted(exc, probe=True)
        else:
            self._noted(None, probe=True)
        finally:
            if client.is_connected:
                try:
                    await client.quit()
                except (TimeoutError, aiosmtplib.SMTPException, OSError):
                    client.close()
        return self.relay_problem

    def _noted(self, exc: BaseException | None, *, probe: bool = False) -> None:
        """Keep what ``exc`` (``None``: a message, or with ``probe`` a probe, went through) says of the
        relay itself; a refusal of one recipient (a mailbox that does not exist) says nothing of
        it, and a probe, which names no recipient, cannot tell that a relay refusing to relay for
        the judge has mended: only a message that goes through can."""
        problem = relay_problem(exc, self.relay) if exc is not None else None
        if exc is not None and problem is None:
            return
        if probe and problem is None and self._refusing:
            return
        self._refusing = exc is not None and relay_fault(exc) == "relaying"
        if problem != self.relay_problem:
            (log.warning if problem else log.info)("mail relay " + ("unusable" if problem else "well again"),
                                                   relay=self.relay, problem=problem)
        self.relay_problem = problem

    async def send(self, message: EmailMessage | Addressed, to: str) -> None:
        """Send ``message`` (a mail, or a :class:`Letter`'s copy for one address) to ``to`` alone;
        raises ``aiosmtplib.SMTPException`` or ``OSError`` on failure."""
        mail = message if isinstance(message, Addressed) else Addressed(Letter(message, own=()), {})
        sender = self.address
        async with self._own_loop():
            client = self._take()
            try:
                options = None
                if client is not None:
                    try:  # a kept connection: the relay may have closed it meanwhile, found out at MAIL
                        options = await self._mail(client, sender, to)
                    except (TimeoutError, aiosmtplib.SMTPException, OSError):
                        _drop(client)  # nothing is sent yet: the mail goes on a new connection
                        client = None
                if client is None:
                    client = self._client()
                    await client.connect()
                    self.connections += 1
                    options = await self._mail(client, sender, to)
                assert options is not None
                wire = self._wire(mail, utf8="SMTPUTF8" in options, eight_bit="BODY=8BITMIME" in options)
                await self._data(client, to, wire, options)
            except BaseException:
                if client is not None:
                    _drop(client)  # in doubt: the next message opens another
                raise
            self._keep(client)
        log.debug("mail sent", to=to, subject=mail.letter.subject)  # the outbox records it

    async def _mail(self, client: aiosmtplib.SMTP, sender: str, to: str) -> list[str]:
        """The start of a mail transaction (a greeting first if the connection is new, then MAIL),
        failing as aiosmtplib's ``sendmail`` fails; the options the transaction goes on with."""
        if client.is_ehlo_or_helo_needed:
            try:
                await client.ehlo()
            except aiosmtplib.SMTPHeloError:
                await client.helo()
        options = _options(client, sender, to)
        await client.mail(sender, options=options, encoding="utf-8" if "SMTPUTF8" in options else "ascii")
        return options

    async def _data(self, client: aiosmtplib.SMTP, to: str, wire: list[bytes], options: list[str]) -> None:
        """The rest of the transaction :meth:`_mail` began (RCPT, DATA), failing as aiosmtplib's
        ``sendmail`` fails; ``wire``: the message as :func:`on_the_wire` puts it for DATA, in
        pieces (:meth:`_wire`), written one after the other."""
        try:
            await client.rcpt(to, encoding="utf-8" if "SMTPUTF8" in options else "ascii")
        except aiosmtplib.SMTPRecipientRefused as exc:
            raise aiosmtplib.SMTPRecipientsRefused([exc]) from None
        response = await client.execute_command(b"DATA")
        if response.code != 354:
            raise aiosmtplib.SMTPDataError(response.code, response.message)
        if client.protocol is None:
            raise aiosmtplib.SMTPServerDisconnected("the relay closed the connection")
        for piece in wire:
            client.protocol.write(piece)
        response = await client.protocol.read_response(timeout=self.settings.relay_timeout)
        if response.code != 250:
            raise aiosmtplib.SMTPDataError(response.code, response.message)

    def _wire(self, mail: Addressed, *, utf8: bool, eight_bit: bool) -> list[bytes]:
        """``mail`` as the DATA command sends it (as aiosmtplib would write it), in two pieces: its
        letter is written out once for this kind of relay, and for each address only the part up
        to the end of ``mail``'s own headers is joined anew; the rest, the text and the picture's
        230 kB, is written to the relay as the letter has it, not copied for every address."""
        letter, key = mail.letter, (utf8, eight_bit)
        policy = WIRE[key]
        pieces = letter.written.get(key)
        if pieces is None:
            out = io.BytesIO()
            _SharingGenerator(out, policy=policy, parts=self._parts, key=key).flatten(_without_bcc(letter.message))
            pieces = letter.written[key] = _pieces(on_the_wire(out.getvalue()), letter.own)
        *head, tail = pieces  # (the tail, after the last own header's field, is the letter's own bytes)
        assert isinstance(tail, bytes)
        return [b"".join(piece if isinstance(piece, bytes)
                         else own_field(policy, piece[0], mail.own[piece[0]], raw=piece[0] in letter.raw)
                         if piece[0] in mail.own else piece[1]
                         for piece in head), tail]

    async def deliver(self, message: EmailMessage | Addressed, to: str) -> Outcome:
        """Send ``message`` to ``to`` and say how it went."""
        try:
            await self.send(message, to)
        except (TimeoutError, aiosmtplib.SMTPException, OSError) as exc:
            outcome = outcome_of(exc)
            self._noted(exc)
            subject = message.letter.subject if isinstance(message, Addressed) else str(message["Subject"])
            log.warning("mail not sent", to=to, subject=subject, error=f"{type(exc).__name__}: {exc}",
                        again=isinstance(outcome, RetryLater))
            return outcome
        self._noted(None)
        return DELIVERED


OWN_HEADERS = ("To", "Message-ID")
"""The headers a :class:`Letter`'s copy for one address gives anew."""


class Letter:
    """One mail for several addresses, composed once: ``message`` is the mail as one of them gets
    it, and a copy for another (:meth:`to`) differs only in its own headers (``own``, by default
    :data:`OWN_HEADERS`: ``To`` and ``Message-ID``), which must be in ``message``. The rest (the
    other headers, the text, the picture) is written out and made ready for the wire once for each
    kind of relay (SMTPUTF8, 8BITMIME or neither), whatever the number of addresses. Not to be
    changed once sent."""

    def __init__(self, message: EmailMessage, *, own: tuple[str, ...] = OWN_HEADERS) -> None:
        stored = {name.lower(): value for name, value in message.raw_items()}
        missing = [name for name in own if name.lower() not in stored]
        if missing:
            raise ValueError(f"a letter gives each address its own {', '.join(missing)}: the mail has none")
        self.message = message
        self.own = own
        self.raw = frozenset(name for name in own if not hasattr(stored[name.lower()], "name"))
        """Own headers ``message`` has as set (:meth:`~email.message.Message.set_raw`, as the judge's
        ``To`` and ``Message-ID``), not parsed: each copy's are written so too."""
        self.subject = str(message["Subject"])
        self.written: dict[tuple[bool, bool], list[bytes | tuple[str, bytes]]] = {}
        """By kind of relay: the mail ready for the wire, in pieces, each own header's field apart
        (its name, and its field as ``message`` has it)."""

    def to(self, address: str, message_id: str) -> Addressed:
        """The copy of this letter for ``address``, as its mail ``message_id``."""
        return Addressed(self, {"To": address, "Message-ID": message_id})


@dataclass(frozen=True, slots=True)
class Addressed:
    """A :class:`Letter`'s copy for one address: the letter with ``own`` for its own headers."""

    letter: Letter
    own: Mapping[str, str]


def _pieces(wire: bytes, names: tuple[str, ...]) -> list[bytes | tuple[str, bytes]]:
    """``wire`` (a mail ready for the wire) cut around the fields of its headers ``names``: the
    bytes before, each such field as ``(name, its bytes)``, the bytes between and after."""
    if not names:
        return [wire]
    end = wire.index(b"\r\n\r\n") + 2  # the end of the headers (no header has an empty line)
    wanted = {name.lower(): name for name in names}
    out: list[bytes | tuple[str, bytes]] = []
    start = field = 0
    while field < end:
        after = wire.index(b"\r\n", field) + 2
        while after < end and wire[after] in b" \t":  # a folded field's next line
            after = wire.index(b"\r\n", after) + 2
        colon = wire.find(b":", field, after)
        name = wanted.get(wire[field:colon].decode("ascii", "replace").strip().lower()) if colon > 0 else None
        if name is not None:
            out += [wire[start:field], (name, wire[field:after])]
            start = after
        field = after
    out.append(wire[start:])
    return out


def own_field(policy: Policy, name: str, value: str, *, raw: bool = False) -> bytes:
    """The field ``name: value`` as the email package writes it with ``policy`` (so a message
    with that header would have it; ``raw``: the header set as it is, with
    :meth:`~email.message.Message.set_raw`, not parsed)."""
    if raw:
        return policy.fold_binary(name, one_line(value))
    return policy.fold_binary(*policy.header_store_parse(name, value))


def on_the_wire(message: bytes) -> bytes:
    """A message as the DATA command sends it (RFC 5321 4.5.2): every line ended by CRLF, a line
    that starts with a period given another, and the period that ends it. What the email package
    writes with the SMTP policy has its lines so ended already (then only the periods are looked
    for, with ``bytes.replace``: a regular expression over a picture's 190 kB cost 3 ms a mail);
    anything else is ended so first, as aiosmtplib does."""
    if not (message.count(b"\n") == message.count(b"\r") == message.count(b"\r\n")):
        message = _LINE_ENDS.sub(b"\r\n", message)
    if not message.endswith(b"\r\n"):
        message += b"\r\n"
    message = message.replace(b"\r\n.", b"\r\n..")
    return (b"." + message if message.startswith(b".") else message) + b".\r\n"


_LINE_ENDS = re.compile(rb"\r\n|\n|\r(?!\n)")

SHARED_PARTS = 16
"""Parts written out kept for the next messages (a few announcements' pictures)."""


class _Generator(BytesGenerator):
    """Writes a message as :class:`~email.generator.BytesGenerator` does, a text's lines in one
    write (the email package writes a line at a time: 3,400 writes for a picture's 190 kB)."""

    def _write_lines(self, lines: str) -> None:
        # each line ended by the policy's line end, as the email package's generator ends it (the
        # text the package itself encodes, a picture's base64, has only "\n": replaced ten times
        # faster than by the expression)
        if lines:
            end: str = self._NL  # type: ignore[attr-defined]  # (the generator's line end, set as it flattens)
            self.write(lines.replace("\n", end) if "\r" not in lines else _LINE_END.sub(end, lines))


_LINE_END = re.compile(r"\r\n|\r|\n")
"""A line's end as the email package's generator finds it (``email.generator.NLCRE``)."""


class _SharingGenerator(_Generator):
    """Writes a message as :class:`~email.generator.BytesGenerator` does, but a non-multipart part
    it has written before (the same object: the map picture attached to the mail of every address
    of an announcement) is taken as then written, not encoded again."""

    def __init__(self, outfp: Any, *, policy: Policy, parts: OrderedDict, key: tuple, top: bool = True) -> None:
        super().__init__(outfp, policy=policy)
        self._out, self._shared, self._key, self._top, self._policy = outfp, parts, key, top, policy

    def clone(self, fp: Any) -> _SharingGenerator:
        return _SharingGenerator(fp, policy=self._policy, parts=self._shared, key=self._key, top=False)

    def flatten(self, msg: Message, unixfrom: bool = False, linesep: str | None = None) -> None:
        if self._top or msg.is_multipart():
            return super().flatten(msg, unixfrom, linesep)
        ident = (id(msg), self._key, linesep)
        kept = self._shared.get(ident)
        if kept is None or kept[0] is not msg:
            out = io.BytesIO()
            _Generator(out, policy=self.policy).flatten(msg, unixfrom, linesep)
            kept = self._shared[ident] = (msg, out.getvalue())  # the part itself kept: its id not reused
            while len(self._shared) > SHARED_PARTS:
                self._shared.popitem(last=False)
        self._out.write(kept[1])


def _without_bcc(message: EmailMessage) -> EmailMessage:
    if message["Bcc"] is None and message["Resent-Bcc"] is None:
        return message
    message = copy.copy(message)
    del message["Bcc"]
    del message["Resent-Bcc"]
    return message


def _options(client: aiosmtplib.SMTP, sender: str, to: str) -> list[str]:
    """The MAIL options aiosmtplib's ``send_message`` would give: SMTPUTF8 for an address that is
    not ASCII, 8BITMIME where the relay has it."""
    options = []
    if not (sender + to).isascii():
        if not client.supports_extension("smtputf8"):
            raise aiosmtplib.SMTPNotSupported("an address is not ASCII, and the mail relay does not take SMTPUTF8")
        options.append("SMTPUTF8")
    if client.supports_extension("8BITMIME"):
        options.append("BODY=8BITMIME")
    return options


def _drop(client: aiosmtplib.SMTP) -> None:
    """Close a connection at once, saying nothing to the relay."""
    with contextlib.suppress(RuntimeError, OSError):  # a connection of a loop that has ended
        client.close()


async def _quit(client: aiosmtplib.SMTP) -> None:
    try:
        if client.is_connected:
            await client.quit()
    except (TimeoutError, aiosmtplib.SMTPException, OSError):
        _drop(client)


def outcome_of(exc: BaseException) -> Refused | RetryLater:
    """A failed send as the outbox sees it: a 5xx answer about the recipient or the message is a
    refusal for good; anything about the relay itself (it cannot be reached, wants a login, refuses
    the judge's address or will not relay for it: see :func:`relay_fault`) and any 4xx is worth
    another try later, so that the mail waits while the operator mends the relay."""
    code = getattr(exc, "code", None)
    fault = relay_fault(exc)
    if isinstance(exc, aiosmtplib.SMTPRecipientsRefused) and exc.recipients:
        exc = exc.recipients[0]
        code = exc.code
    text = " ".join(str(getattr(exc, "message", "") or exc).split())[:300]
    if fault is None and isinstance(code, int) and 500 <= code < 600:
        return Refused(f"the mail relay refused it: {code} {text}")
    if fault in ("unreachable", None) and not isinstance(code, int):
        return RetryLater(f"the mail relay could not be reached: {type(exc).__name__}: {text}")
    return RetryLater(f"the mail relay answered {code} {text}")


RELAY_SETTINGS = "CRUSADER_MAIL_RELAY_HOST and CRUSADER_MAIL_RELAY_PORT"


def relay_fault(exc: BaseException) -> str | None:
    """What a failed exchange says of the relay itself: ``unreachable``, ``wants-login``, ``login``
    (refused), ``sender`` (the judge's address refused), ``relaying`` (it will not relay for the
    judge), ``answer`` (another error of the relay's); ``None`` when it concerns one recipient or
    one message only (a mailbox the relay does not know, a message it will not take)."""
    code = getattr(exc, "code", None)
    if isinstance(exc, aiosmtplib.SMTPRecipientsRefused) and exc.recipients:
        first = exc.recipients[0]
        text = str(first.message)
        return "relaying" if "relay" in text.lower() or "5.7." in text else None
    if isinstance(exc, aiosmtplib.SMTPAuthenticationError):
        return "login"
    if isinstance(exc, aiosmtplib.SMTPSenderRefused):
        return "wants-login" if code == 530 else "sender"
    if isinstance(exc, (aiosmtplib.SMTPRecipientRefused, aiosmtplib.SMTPDataError)):
        return None
    if isinstance(code, int) and code >= 400 and not isinstance(exc, aiosmtplib.SMTPConnectError):
        return "answer"
    return "unreachable"


def relay_problem(exc: BaseException, relay: str) -> str | None:
    """What a failed exchange says of the relay itself (:func:`relay_fault`), as a sentence naming
    the settings to look at; ``None`` when it concerns one recipient or message only."""
    fault = relay_fault(exc)
    if fault is None:
        return None
    code = getattr(exc, "code", None)
    text = " ".join(str(getattr(exc, "message", "") or exc).split())[:200]
    if isinstance(exc, aiosmtplib.SMTPRecipientsRefused) and exc.recipients:
        code, text = exc.recipients[0].code, " ".join(str(exc.recipients[0].message).split())[:200]
    return {
        "relaying": f"the mail relay {relay} refuses to relay the judge's mail ({code} {text}); let the judge's "
                    f"address or this machine relay there, or set {RELAY_SETTINGS} to one that does",
        "login": f"the mail relay {relay} refuses the judge's login ({code} {text}); set CRUSADER_MAIL_RELAY_USERNAME "
                 "and CRUSADER_MAIL_RELAY_PASSWORD to an account it accepts",
        "wants-login": f"the mail relay {relay} wants the judge to log in ({code} {text}); set "
                       "CRUSADER_MAIL_RELAY_USERNAME and CRUSADER_MAIL_RELAY_PASSWORD (and CRUSADER_MAIL_RELAY_STARTTLS "
                       "or _TLS as it asks)",
        "sender": f"the mail relay {relay} refuses the judge's address as sender ({code} {text}); set "
                  f"CRUSADER_MAIL_ADDRESS to an address it sends for, or {RELAY_SETTINGS} to another relay",
        "answer": f"the mail relay {relay} answers {code} {text}; check it, or set {RELAY_SETTINGS} to another relay",
        "unreachable": f"the mail relay {relay} cannot be reached ({type(exc).__name__}: {text or 'no answer'}); "
                       f"start it, or set {RELAY_SETTINGS} to the relay the judge sends through",
    }[fault]
