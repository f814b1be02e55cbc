"""Outbound mail through the configured SMTP relay (aiosmtplib), one recipient per message.

The recipient is given explicitly and is the only one: headers such as ``Cc`` or ``Bcc`` are
never added, and the envelope never names anyone else. :meth:`Mailer.deliver` says how a
message went as the outbox wants it: delivered, refused for good (the relay's 5xx: a mailbox
that does not exist) or to try again later (a 4xx, the relay unreachable or slow).
"""

from __future__ import annotations

import asyncio
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
        except (aiosmtplib.SMTPException, OSError, asyncio.TimeoutError) as exc:
            outcome = outcome_of(exc)
            log.warning("mail not sent", to=to, subject=str(message["Subject"]), error=f"{type(exc).__name__}: {exc}",
                        again=isinstance(outcome, RetryLater))
            return outcome
        return DELIVERED


def outcome_of(exc: BaseException) -> Refused | RetryLater:
    """A failed send as the outbox sees it: a 5xx answer is a refusal for good, anything else
    (a 4xx, no connection, a timeout) is worth another try later."""
    code = getattr(exc, "code", None)
    if isinstance(exc, aiosmtplib.SMTPRecipientsRefused) and exc.recipients:
        exc = exc.recipients[0]
        code = exc.code
    text = " ".join(str(getattr(exc, "message", "") or exc).split())[:300]
    if isinstance(code, int) and 500 <= code < 600 and not isinstance(exc, aiosmtplib.SMTPAuthenticationError):
        return Refused(f"the mail relay refused it: {code} {text}")
    if isinstance(code, int):
        return RetryLater(f"the mail relay answered {code} {text}")
    return RetryLater(f"the mail relay could not be reached: {type(exc).__name__}: {text}")
