"""The judge's mailbox: an SMTP listener (aiosmtpd) on the running event loop.

A message is read and carried out before the listener answers ``250``; what the judge says
back is written to the outbox first, and mailed from there (tried again while the relay is
away, like every announcement). If carrying it out fails unexpectedly the listener
answers ``451`` (try again later), so the sending server keeps the message: nothing accepted is
lost. Mail larger than ``max_bytes`` gets a polite refusal by mail; mail larger than four times
that is refused during the SMTP exchange (``552``) without being kept in memory.
"""

from __future__ import annotations

import asyncio
import logging

import structlog
from aiosmtpd.smtp import SMTP, Envelope, Session

from bot.service import GameService
from bot.store.outbox import OutboxDispatcher
from .accounts import MailAccounts
from .config import MailSettings
from . import press  # noqa: F401  (plugs PRESS, BROADCAST and HISTORY PRESS into the table of commands)
from .conversation import Conversation, MailJudge
from .notifier import MailNotifier
from .outbound import Mailer
from .reading import read_mail
from .replies import answers

log = structlog.get_logger("crusader.mail")

AIOSMTPD_LOGGERS = ("mail.log", "mail.debug")


def quiet_aiosmtpd() -> None:
    """aiosmtpd logs every line of every message at DEBUG, passwords included: never below INFO."""
    for name in AIOSMTPD_LOGGERS:
        logger = logging.getLogger(name)
        if logger.level < logging.INFO:  # NOTSET included: the root's level must not decide
            logger.setLevel(logging.INFO)


class MailHandler:
    """aiosmtpd's handler: every message goes through :class:`MailJudge`, one at a time.

    What the judge says back is written to the outbox before the listener answers ``250``, so
    it is mailed (and tried again while the relay is away) even if the server stops.
    """

    def __init__(self, judge: MailJudge, dispatcher: OutboxDispatcher, settings: MailSettings) -> None:
        self.judge = judge
        self.dispatcher = dispatcher
        self.settings = settings
        self._one_at_a_time = asyncio.Lock()

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        raw = envelope.original_content or b""
        if isinstance(raw, str):
            raw = raw.encode("utf-8", errors="surrogateescape")
        try:
            async with self._one_at_a_time:
                await asyncio.to_thread(self._answer, raw, envelope.mail_from)
        except Exception:
            log.exception("message not carried out; the sender is asked to try again", peer=str(session.peer))
            return "451 4.3.0 The judge could not take this message now; please try again later"
        self.dispatcher.kick()
        return "250 2.0.0 Message received by the judge; a reply follows"

    def _answer(self, raw: bytes, envelope_sender: str | None) -> Conversation:
        mail = read_mail(raw, envelope_sender=envelope_sender, max_bytes=self.settings.max_bytes)
        talk = self.judge.answer(mail)
        for announcement in answers(talk):
            self.dispatcher.enqueue(announcement)
        return talk


class MailFrontEnd:
    """The e-mail front end of ``crusader serve``: the listener, the outbound mailer, the notifier.

    Its :attr:`problem` is the relay's (:attr:`Mailer.relay_problem`): a relay that cannot be
    reached or refuses the judge's mail keeps the listener running and makes ``crusader health``
    unhealthy, with the sentence. The relay is tried at start, and every ``recheck`` seconds while
    it is unwell (the outbox's retries may be an hour apart)."""

    name = "mail"
    recheck = 60.0

    def __init__(self, service: GameService, dispatcher: OutboxDispatcher | None, settings: MailSettings, *,
                 archive_url: str | None = None) -> None:
        if not settings.address:
            raise ValueError("the e-mail front end needs the judge's own address: set CRUSADER_MAIL_ADDRESS")
        self.settings = settings
        self.address: str = settings.address
        """The judge's own address."""
        self.service = service
        self.accounts = MailAccounts(service, failures_per_hour=settings.signon_failures)
        self.mailer = Mailer(settings)
        self.judge = MailJudge(service, self.accounts, judge_address=settings.address.lower(),
                               pictures=settings.attach_maps)
        self.notifier = MailNotifier(service.db, self.accounts, self.mailer, judge_address=settings.address,
                                     attach_maps=settings.attach_maps, archive_url=archive_url)
        self.dispatcher = dispatcher if dispatcher is not None else OutboxDispatcher(service.db)
        self.handler = MailHandler(self.judge, self.dispatcher, settings)
        self._server: asyncio.Server | None = None
        self._watch: asyncio.Task | None = None

    @property
    def problem(self) -> str | None:
        """What is wrong with the e-mail front end (its relay), or ``None``."""
        return self.mailer.relay_problem

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
        try:
            self._server = await loop.create_server(
                lambda: SMTP(self.handler, data_size_limit=4 * s.max_bytes, enable_SMTPUTF8=True,
                             hostname=self.address.rpartition("@")[2] or None, ident="Crusader Judge", timeout=120,
                             loop=loop),
                host=s.listen_host, port=s.listen_port)
        except OSError as exc:
            from bot.app.setup import listen_error

            raise listen_error(exc, "the e-mail listener", s.listen_host, s.listen_port, "CRUSADER_MAIL_LISTEN_HOST",
                               "CRUSADER_MAIL_LISTEN_PORT", off=" (or CRUSADER_MAIL_ADDRESS empty to turn e-mail "
                               "off)") from None
        self.dispatcher.register(self.notifier)
        log.info("mail listener started", host=s.listen_host, port=self.port, relay=f"{s.relay_host}:{s.relay_port}")
        self._watch = asyncio.create_task(self._watch_relay(), name="mail-relay-watch")

    async def _watch_relay(self) -> None:
        """Try the relay now, and again every :attr:`recheck` seconds while it is unwell."""
        while True:
            try:
                await self.mailer.probe()
            except Exception:
                log.exception("the mail relay could not be tried")
            while self.mailer.relay_problem is None:
                await asyncio.sleep(self.recheck)
            await asyncio.sleep(self.recheck)

    async def stop(self) -> None:
        if self._watch is not None:
            self._watch.cancel()
            await asyncio.gather(self._watch, return_exceptions=True)
            self._watch = None
        if self._server is not None:
            self._server.close()
            try:
                await asyncio.wait_for(self._server.wait_closed(), timeout=5)
            except TimeoutError:
                pass
            self._server = None
        if self.notifier in self.dispatcher.notifiers:
            self.dispatcher.notifiers.remove(self.notifier)
        await self.mailer.close()
