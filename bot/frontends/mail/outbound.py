"""Outbound mail through the configured SMTP relay (aiosmtplib), one recipient per message.

The recipient is given explicitly and is the only one: headers such as ``Cc`` or ``Bcc`` are
never added, and the envelope never names anyone else. :meth:`Mailer.deliver` says how a
message went as the outbox wants it: delivered, refused for good (the relay's 5xx: a mailbox
that does not exist) or to try again later (a 4xx, the relay unreachable, slow, or refusing the
judge itself: its login, its address, relaying for it; the mail waits until the relay is mended,
at most three days).

The relay itself is watched: one that cannot be reached, refuses the judge's login or sender, or
will not relay for it is :attr:`Mailer.relay_problem` (a sentence naming the settings), which
``crusader health`` reports, until a message goes through or :meth:`Mailer.probe` (the exchange
of a message up to its sender, then ``RSET``) finds the relay well again.
"""

from __future__ import annotations

from email.message import EmailMessage

import aiosmtplib
import structlog

from bot.store.outbox import DELIVERED, Outcome, Refused, RetryLater
from .config import MailSettings

log = structlog.get_logger("crusader.mail")


class Mailer:
    def __init__(self, settings: MailSettings) -> None:
        if not settings.address:
            raise ValueError("the judge needs its own address to send mail: set CRUSADER_MAIL_ADDRESS")
        self.settings = settings
        self.relay_problem: str | None = None
        """What is wrong with the relay (``None``: the last message, or probe, went through)."""
        self._refusing = False  # the problem is that it will not relay for the judge

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
            response = await client.mail(s.address)
            if not 200 <= response.code < 300:
                raise aiosmtplib.SMTPSenderRefused(response.code, response.message, s.address)
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

    async def send(self, message: EmailMessage, to: str) -> None:
        """Send ``message`` to ``to`` alone; raises ``aiosmtplib.SMTPException`` or ``OSError`` on failure."""
        s = self.settings
        password = s.relay_password.get_secret_value() if s.relay_password else None
        await aiosmtplib.send(message, sender=s.address, recipients=[to], hostname=s.relay_host, port=s.relay_port,
                              username=s.relay_username, password=password, use_tls=s.relay_tls,
                              start_tls=s.relay_starttls, cert_bundle=s.relay_ca_file, timeout=s.relay_timeout)
        log.info("mail sent", to=to, subject=str(message["Subject"]))

    async def deliver(self, message: EmailMessage, to: str) -> Outcome:
        """Send ``message`` to ``to`` and say how it went."""
        try:
            await self.send(message, to)
        except (TimeoutError, aiosmtplib.SMTPException, OSError) as exc:
            outcome = outcome_of(exc)
            self._noted(exc)
            log.warning("mail not sent", to=to, subject=str(message["Subject"]), error=f"{type(exc).__name__}: {exc}",
                        again=isinstance(outcome, RetryLater))
            return outcome
        self._noted(None)
        return DELIVERED


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
