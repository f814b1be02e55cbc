"""The judge's mailbox: an SMTP listener (aiosmtpd) on the running event loop.

A message is read and carried out before the listener answers ``250``; what the judge says
back is sent afterwards, in the background. If carrying it out fails unexpectedly the listener
answers ``451`` (try again later), so the sending server keeps the message: nothing accepted is
lost. Mail larger than ``max_bytes`` gets a polite refusal by mail; mail larger than four times
that is refused during the SMTP exchange (``552``) without being kept in memory.
"""

from __future__ import annotations

import asyncio
import logging

import structlog
from aiosmtpd.smtp import SMTP, Envelope, Session

from ..outbox import OutboxDispatcher
from ..service import GameService
from .accounts import MailAccounts
from .config import MailSettings
from .conversation import Conversation, MailJudge
from .notifier import MailNotifier
from .outbound import Mailer
from .reading import read_mail
from .replies import alert_message, reply_message

log = structlog.get_logger("crusader.mail")

AIOSMTPD_LOGGERS = ("mail.log", "mail.debug")


def quiet_aiosmtpd() -> None:
    """aiosmtpd logs every line of every message at DEBUG, passwords included: never below INFO."""
    for name in AIOSMTPD_LOGGERS:
        logger = logging.getLogger(name)
        if logger.level < logging.INFO:  # NOTSET included: the root's level must not decide
            logger.setLevel(logging.INFO)


class MailHandler:
    """aiosmtpd's handler: every message goes through :class:`MailJudge`, one at a time."""

    def __init__(self, judge: MailJudge, mailer: Mailer, settings: MailSettings) -> None:
        self.judge = judge
        self.mailer = mailer
        self.settings = settings
        self._one_at_a_time = asyncio.Lock()

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        raw = envelope.original_content or b""
        if isinstance(raw, str):
            raw = raw.encode("utf-8", errors="surrogateescape")
        try:
            async with self._one_at_a_time:
                talk = await asyncio.to_thread(self._answer, raw, envelope.mail_from)
        except Exception:
            log.exception("message not carried out; the sender is asked to try again", peer=str(session.peer))
            return "451 4.3.0 The judge could not take this message now; please try again later"
        self._send(talk)
        return "250 2.0.0 Message received by the judge; a reply follows"

    def _answer(self, raw: bytes, envelope_sender: str | None) -> Conversation:
        mail = read_mail(raw, envelope_sender=envelope_sender, max_bytes=self.settings.max_bytes)
        return self.judge.answer(mail)

    def _send(self, talk: Conversation) -> None:
        address = self.settings.address
        if talk.to is not None:
            self.mailer.send_later(reply_message(talk, address), talk.to)
        if talk.alert is not None:
            self.mailer.send_later(alert_message(address, *talk.alert), talk.alert[0])


class MailFrontEnd:
    """The e-mail front end of ``crusader serve``: the listener, the outbound mailer, the notifier."""

    name = "mail"

    def __init__(self, service: GameService, dispatcher: OutboxDispatcher | None, settings: MailSettings, *,
                 retry_delay: float = 5.0) -> None:
        if not settings.address:
            raise ValueError("the e-mail front end needs the judge's own address: set CRUSADER_MAIL_ADDRESS")
        self.settings = settings
        self.service = service
        self.accounts = MailAccounts(service, failures_per_hour=settings.signon_failures)
        self.mailer = Mailer(settings, retry_delay=retry_delay)
        self.judge = MailJudge(service, self.accounts, judge_address=settings.address.lower())
        self.handler = MailHandler(self.judge, self.mailer, settings)
        self.notifier = MailNotifier(service.db, self.accounts, self.mailer, judge_address=settings.address,
                                     attach_maps=settings.attach_maps)
        self.dispatcher = dispatcher
        self._server: asyncio.AbstractServer | None = None

    @property
    def port(self) -> int:
        """The port the listener is bound to (useful with ``listen_port=0``)."""
        if self._server is None:
            raise RuntimeError("the mail listener is not started")
        return self._server.sockets[0].getsockname()[1]

    async def start(self) -> None:
        quiet_aiosmtpd()
        loop = asyncio.get_running_loop()
        s = self.settings
        self._server = await loop.create_server(
            lambda: SMTP(self.handler, data_size_limit=4 * s.max_bytes, enable_SMTPUTF8=True,
                         hostname=s.address.rpartition("@")[2] or None, ident="Crusader Judge", timeout=120,
                         loop=loop),
            host=s.listen_host, port=s.listen_port)
        if self.dispatcher is not None:
            self.dispatcher.register(self.notifier)
        log.info("mail listener started", host=s.listen_host, port=self.port, relay=f"{s.relay_host}:{s.relay_port}")

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            try:
                await asyncio.wait_for(self._server.wait_closed(), timeout=5)
            except asyncio.TimeoutError:
                pass
            self._server = None
        await self.mailer.drain(timeout=min(self.settings.relay_timeout, 10.0))
