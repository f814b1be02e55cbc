"""Outbound mail over a bounded pool of SMTP connections: the mails of an announcement share one
connection and one written-out picture; a connection the relay closed meanwhile is replaced
before anything is sent, so that every mail still goes exactly once."""

from __future__ import annotations

import asyncio
import contextlib
import os

import pytest
from aiosmtpd.smtp import SMTP
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.frontends.mail.config import MailSettings
from bot.frontends.mail.outbound import Mailer, on_the_wire
from bot.frontends.mail.replies import announcement_message, picture_part



class Sessions:
    """A relay's handler that counts its connections and keeps each message's bytes."""

    def __init__(self) -> None:
        self.connections = 0
        self.mails: list[tuple[tuple[str, ...], bytes]] = []
        self.servers: list[SMTP] = []
        self.open = self.most_open = 0

    async def handle_DATA(self, server, session, envelope) -> str:
        self.mails.append((tuple(envelope.rcpt_tos), envelope.original_content))
        return "250 OK"


@contextlib.asynccontextmanager
async def relay(handler: Sessions):
    loop = asyncio.get_running_loop()

    class Counted(SMTP):
        def connection_made(self, transport) -> None:
            handler.open += 1
            handler.most_open = max(handler.most_open, handler.open)
            super().connection_made(transport)

        def connection_lost(self, exc) -> None:
            handler.open -= 1
            super().connection_lost(exc)

    def protocol():
        handler.connections += 1
        smtp = Counted(handler, loop=loop, enable_SMTPUTF8=True)
        handler.servers.append(smtp)
        return smtp

    server = await loop.create_server(protocol, host="127.0.0.1", port=0)
    try:
        yield server.sockets[0].getsockname()[1]
    finally:
        server.close()
        await server.wait_closed()


def _settings(port: int, judge_address: str) -> MailSettings:
    return MailSettings(address=judge_address, relay_host="127.0.0.1", relay_port=port)


@pytest.mark.asyncio
async def test_the_seven_mails_of_a_season_share_one_connection_and_one_written_picture(judge_address):
    handler = Sessions()
    png = b"\x89PNG\r\n\x1a\n" + os.urandom(20_000)
    part = picture_part(png, "acre-S1101M.png")
    players = [f"{p}@players.test" for p in ("ant", "byz", "ede", "fat", "jer", "sel", "rum")]
    async with relay(handler) as port:
        mailer = Mailer(_settings(port, judge_address))
        for to in players:
            message = announcement_message(judge_address, to, "Results", f"the season, for {to}", picture=part,
                                           message_id=f"<{to}@judge.test>")
            await mailer.send(message, to)
        await mailer.close()
    assert handler.connections == 1 and mailer.connections == 1
    assert [rcpt for rcpt, _ in handler.mails] == [(to,) for to in players]  # each once, to itself alone
    from email import message_from_bytes, policy

    for (rcpt, raw), to in zip(handler.mails, players):
        mail = message_from_bytes(raw, policy=policy.default)
        assert mail["To"] == to and f"for {to}" in mail.get_body(("plain",)).get_content()
        [attached] = list(mail.iter_attachments())
        assert attached.get_content() == png and attached.get_filename() == "acre-S1101M.png"


@pytest.mark.asyncio
async def test_a_connection_the_relay_closed_is_replaced_and_the_mail_goes_once(judge_address):
    handler = Sessions()
    async with relay(handler) as port:
        mailer = Mailer(_settings(port, judge_address))
        first = announcement_message(judge_address, "ant@players.test", "One", "one")
        await mailer.send(first, "ant@players.test")
        for smtp in handler.servers:  # the relay drops its idle connections
            smtp.transport.close()
        await asyncio.sleep(0.05)
        second = announcement_message(judge_address, "byz@players.test", "Two", "two")
        await mailer.send(second, "byz@players.test")
        await mailer.close()
    assert [rcpt for rcpt, _ in handler.mails] == [("ant@players.test",), ("byz@players.test",)]
    assert handler.connections == 2


class Closing(Sessions):
    """A relay that closes each connection at its second MAIL, answering 421 (as a relay that
    closed an idle connection answers the next command)."""

    def __init__(self) -> None:
        super().__init__()
        self.mails_from: dict[int, int] = {}

    async def handle_MAIL(self, server, session, envelope, address, mail_options) -> str:
        seen = self.mails_from[id(server)] = self.mails_from.get(id(server), 0) + 1
        if seen > 1:
            server.transport.close()
            return "421 4.4.2 closing the connection"
        envelope.mail_from = address
        return "250 OK"


@pytest.mark.asyncio
async def test_a_kept_connection_refusing_the_sender_is_replaced_and_the_mail_goes_once(judge_address):
    handler = Closing()
    async with relay(handler) as port:
        mailer = Mailer(_settings(port, judge_address))
        for to in ("ant@players.test", "byz@players.test", "ede@players.test"):
            await mailer.send(announcement_message(judge_address, to, "Hi", "hi"), to)
        await mailer.close()
    assert [rcpt for rcpt, _ in handler.mails] == [("ant@players.test",), ("byz@players.test",), ("ede@players.test",)]
    assert handler.connections == mailer.connections == 3


@pytest.mark.asyncio
async def test_the_pool_is_bounded_and_an_idle_connection_is_not_kept(judge_address):
    handler = Sessions()
    async with relay(handler) as port:
        mailer = Mailer(_settings(port, judge_address), pool=2)
        messages = [(announcement_message(judge_address, f"p{i}@players.test", "Hi", "hi"), f"p{i}@players.test")
                    for i in range(6)]
        await asyncio.gather(*(mailer.send(m, to) for m, to in messages))  # six at once: two connections
        assert sorted(rcpt for rcpt, _ in handler.mails) == sorted((to,) for _, to in messages)
        assert handler.connections == 2 and handler.most_open == 2
        await mailer.close()

        mailer = Mailer(_settings(port, judge_address), idle=0.0)  # kept no time at all
        for m, to in messages[:3]:
            await mailer.send(m, to)
        await mailer.close()
    assert handler.connections == 2 + 3


@settings(max_examples=2000, deadline=None)
@given(st.binary(max_size=40).map(lambda b: bytes(b"ab.\r\n"[x % 5] for x in b)))
def test_a_message_goes_on_the_wire_as_aiosmtplib_would_put_it(message):
    from aiosmtplib.protocol import PERIOD_REGEX, normalize_message_line_endings

    assert on_the_wire(message) == PERIOD_REGEX.sub(b"..", normalize_message_line_endings(message)) + b".\r\n"
