"""Outbound mail through the configured SMTP relay (aiosmtplib), one recipient per message.

The recipient is given explicitly and is the only one: headers such as ``Cc`` or ``Bcc`` are
never added, and the envelope never names anyone else.
"""

from __future__ import annotations

import asyncio
from email.message import EmailMessage

import aiosmtplib
import structlog

from .config import MailSettings

log = structlog.get_logger("crusader.mail")


class Mailer:
    def __init__(self, settings: MailSettings, *, retry_delay: float = 5.0) -> None:
        if not settings.address:
            raise ValueError("the judge needs its own address to send mail: set CRUSADER_MAIL_ADDRESS")
        self.settings = settings
        self.retry_delay = retry_delay
        self._tasks: set[asyncio.Task] = set()

    async def send(self, message: EmailMessage, to: str) -> None:
        """Send ``message`` to ``to`` alone; raises ``aiosmtplib.SMTPException`` or ``OSError`` on failure."""
        s = self.settings
        password = s.relay_password.get_secret_value() if s.relay_password else None
        await aiosmtplib.send(message, sender=s.address, recipients=[to], hostname=s.relay_host, port=s.relay_port,
                              username=s.relay_username, password=password, use_tls=s.relay_tls,
                              start_tls=s.relay_starttls, cert_bundle=s.relay_ca_file, timeout=s.relay_timeout)
        log.info("mail sent", to=to, subject=str(message["Subject"]))

    async def send_with_retries(self, message: EmailMessage, to: str) -> bool:
        for attempt in range(1, self.settings.send_attempts + 1):
            try:
                await self.send(message, to)
                return True
            except (aiosmtplib.SMTPException, OSError, asyncio.TimeoutError) as exc:
                log.warning("mail not sent", to=to, attempt=attempt, error=f"{type(exc).__name__}: {exc}")
                if attempt < self.settings.send_attempts:
                    await asyncio.sleep(self.retry_delay * attempt)
        log.error("mail given up", to=to, subject=str(message["Subject"]))
        return False

    def send_later(self, message: EmailMessage, to: str) -> None:
        """Send in the background (a reply must not hold up the SMTP session it answers)."""
        task = asyncio.get_running_loop().create_task(self.send_with_retries(message, to))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def drain(self, timeout: float | None = None) -> None:
        """Wait for every background send to finish; after ``timeout`` seconds, give the rest up (logged)."""
        try:
            await asyncio.wait_for(self._wait_all(), timeout)
        except asyncio.TimeoutError:
            pending = list(self._tasks)
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
            log.error("mail given up at shutdown", count=len(pending))

    async def _wait_all(self) -> None:
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)
