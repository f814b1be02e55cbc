"""Fixtures of the e-mail tests: a judge's mailbox on loopback, the front end and an SMTP server
that captures what the judge sends, both on an event loop in a background thread, so that tests
(and hypothesis) can talk SMTP to them from ordinary synchronous code."""

from __future__ import annotations

import asyncio
import smtplib
import threading
import time
from typing import Self
from dataclasses import dataclass
from datetime import datetime, timedelta
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from email.utils import make_msgid

import pytest
from aiosmtpd.smtp import SMTP

from bot.frontends.mail.accounts import MailAccounts
from bot.frontends.mail.config import MailSettings
from bot.frontends.mail.listener import MailFrontEnd
from bot.service import GameService
from bot.store.database import Database
from bot.store.outbox import OutboxDispatcher

JUDGE = "judge@crusader.test"
WAIT = 60.0     # seconds a wait for a mail may last before the test fails: a guard (it ends when the mail comes)


class Clock:
    """The service's clock, moved by hand."""

    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def advance(self, by: timedelta) -> None:
        self.now += by


@dataclass(frozen=True)
class Captured:
    mail_from: str
    rcpt_tos: tuple[str, ...]
    message: EmailMessage

    @property
    def text(self) -> str:
        body = self.message.get_body(preferencelist=("plain",))
        return body.get_content() if body is not None else ""

    @property
    def attachments(self) -> list[EmailMessage]:
        return list(self.message.iter_attachments())


class Capture:
    """aiosmtpd handler keeping every message the judge sends."""

    def __init__(self) -> None:
        self.messages: list[Captured] = []
        self._changed = threading.Condition()

    async def handle_DATA(self, server, session, envelope) -> str:
        message = BytesParser(policy=policy.default).parsebytes(envelope.original_content)
        with self._changed:
            self.messages.append(Captured(envelope.mail_from, tuple(envelope.rcpt_tos), message))
            self._changed.notify_all()
        return "250 OK"

    def wait(self, predicate, *, count: int = 1, timeout: float = WAIT) -> list[Captured]:
        """The first ``count`` captured messages matching ``predicate``, waiting for them if need be."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                found = [m for m in self.messages if predicate(m)]
                if len(found) >= count:
                    return found
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"expected {count} message(s), got {len(found)}; captured: "
                                         f"{[(m.rcpt_tos, str(m.message['Subject'])) for m in self.messages]}")
                self._changed.wait(left)

    def to(self, address: str) -> list[Captured]:
        with self._changed:
            return [m for m in self.messages if address in m.rcpt_tos]

    def all_recipients(self) -> set[str]:
        with self._changed:
            return {r for m in self.messages for r in m.rcpt_tos}


class PickyRelay(Capture):
    """A capturing relay that answers some recipients with the code a test chooses
    (``refuse[address] = "550 5.1.1 no such user"``), and everybody with ``refuse["*"]``."""

    def __init__(self) -> None:
        super().__init__()
        self.refuse: dict[str, str] = {}
        self.refused: list[tuple[str, str]] = []

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options) -> str:
        answer = self.refuse.get(address) or self.refuse.get("*")
        if answer:
            self.refused.append((address, answer))
            return answer
        envelope.rcpt_tos.append(address)
        return "250 OK"


class MailRig:
    """The judge (service + e-mail front end) and a capturing relay, on one background loop.
    The outbox runs on the service's clock."""

    def __init__(self, db: Database, clock: Clock, *, capture: Capture | None = None, archive_url: str | None = None,
                 **settings) -> None:
        self.db = db
        self.clock = clock
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name="mail-rig", daemon=True)
        self._thread.start()
        self.service = GameService(db, clock=clock)
        self.dispatcher = OutboxDispatcher(db, clock=clock)
        self.capture = capture or Capture()
        self._capture_server = self.run(self.loop.create_server(
            lambda: SMTP(self.capture, enable_SMTPUTF8=True), host="127.0.0.1", port=0))
        relay_port = self._capture_server.sockets[0].getsockname()[1]
        options = dict(address=JUDGE, listen_host="127.0.0.1", listen_port=0, relay_host="127.0.0.1",
                       relay_port=relay_port, attach_maps=False)
        options.update(settings)
        self.settings = MailSettings(**options)
        self.front = MailFrontEnd(self.service, self.dispatcher, self.settings, archive_url=archive_url)
        self.accounts: MailAccounts = self.front.accounts
        self.run(self.front.start())

    def run(self, coro, timeout: float = WAIT):
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    # -- talking to the judge -------------------------------------------------------------------

    def send_raw(self, raw: bytes, *, mail_from: str = "someone@players.test", to: str = JUDGE) -> int:
        """Send ``raw`` as is; the listener's answer code to DATA (or to whatever refused it)."""
        with smtplib.SMTP("127.0.0.1", self.front.port, timeout=10) as client:
            try:
                client.sendmail(mail_from, [to], raw)
            except smtplib.SMTPResponseException as exc:
                return exc.smtp_code
            except smtplib.SMTPRecipientsRefused as exc:
                return next(iter(exc.recipients.values()))[0]
            return 250

    def mail(self, sender: str, body: str, *, subject: str = "orders", envelope: str | None = None,
             **headers: str) -> str:
        """Send a plain-text message from ``sender``; its Message-ID, to find the reply by."""
        msg = EmailMessage()
        msg["From"] = sender
        msg["To"] = JUDGE
        msg["Subject"] = subject
        msg["Message-ID"] = make_msgid(domain="players.test")
        for name, value in headers.items():
            msg[name.replace("_", "-")] = value
        msg.set_content(body)
        code = self.send_raw(msg.as_bytes(policy=policy.SMTP), mail_from=envelope or sender)
        assert code == 250, f"the listener answered {code}"
        return msg["Message-ID"]

    def reply(self, message_id: str, timeout: float = WAIT) -> Captured:
        [reply] = self.capture.wait(lambda m: m.message["In-Reply-To"] == message_id, timeout=timeout)
        return reply

    def ask(self, sender: str, body: str, **kw) -> Captured:
        """Mail the judge and wait for its answer."""
        return self.reply(self.mail(sender, body, **kw))

    # -- the rest of the judge ---------------------------------------------------------------------

    def flush(self) -> int:
        """Deliver pending announcements (the outbox) through the e-mail notifier."""
        return self.run(self.dispatcher.flush())

    def close(self) -> None:
        try:
            self.run(self.front.stop())
            self.run(self.dispatcher.close())
            self._capture_server.close()
            self.run(self._capture_server.wait_closed())
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self._thread.join(timeout=5)
            self.loop.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def register_game(self, name: str, players: dict[str, str], *, policy=None, start: bool = True,
                      discord: dict[str, str] | None = None) -> None:
        """Create ``name`` (Crusader map), join each power's player and register its address and password.

        ``players``: power -> address; the password of each power is ``pw-<power>``. ``discord``: powers
        played by a Discord user (power -> user id), who also get the mail identity of ``players``.
        """
        self.service.create_game(name, "crusader", "gm", policy=policy, seed=11)
        for power, address in players.items():
            self.service.join(name, (discord or {}).get(power, address), power)
            self.accounts.register(name, "gm", power, address=address, password=f"pw-{power}")
        if start:
            self.service.start(name, "gm", fill_civil_disorder=True)


@pytest.fixture(scope="session")
def judge_address() -> str:
    """The judge's own address in the e-mail tests."""
    return JUDGE


@pytest.fixture
def capture() -> Capture:
    """An aiosmtpd handler that keeps every message it is given (``.messages``, ``.wait(...)``)."""
    return Capture()


@pytest.fixture
def picky_relay() -> PickyRelay:
    """A capturing relay that refuses the recipients a test names (``refuse[address] = "550 ..."``)."""
    return PickyRelay()


@pytest.fixture(scope="session")
def open_rig(start):
    """``open_rig(db, **settings)``: the judge (service and e-mail front end, clock at ``start``) and
    a capturing relay; close it, or use it in a ``with`` block."""
    return lambda db, **settings: MailRig(db, Clock(start), **settings)
