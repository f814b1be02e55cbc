"""Outbound mail through a relay that wants STARTTLS and a login, the map picture on the results,
and the front end as ``crusader serve`` finds it."""

from __future__ import annotations

import contextlib
import ssl
from datetime import timedelta
from email.message import EmailMessage

import pytest
import trustme
from aiosmtpd.smtp import SMTP, AuthResult
from pydantic import SecretStr

from bot.frontends.mail import create_front_end, passwords
from bot.frontends.mail.config import MailSettings
from bot.frontends.mail.listener import MailFrontEnd
from bot.frontends.mail.outbound import Mailer
from bot.store.outbox import RetryLater
from bot.store import database


@pytest.fixture
def tls_relay(tmp_path):
    ca = trustme.CA()
    server_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("127.0.0.1", "localhost").configure_cert(server_context)
    ca_file = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(ca_file))
    return server_context, str(ca_file)


@contextlib.asynccontextmanager
async def login_relay(capture, server_context, logins: list | None = None):
    """A relay on a free port (yielded) that wants STARTTLS and the login judge / relay-secret,
    keeping each login tried (its name, and whether over TLS) in ``logins``."""
    import asyncio

    def authenticator(server, session, envelope, mechanism, auth_data):
        if logins is not None:
            logins.append((auth_data.login, session.ssl is not None))
        right = auth_data.login == b"judge" and auth_data.password == b"relay-secret"
        return AuthResult(success=right, handled=False)  # (aiosmtpd answers 535 itself)

    loop = asyncio.get_running_loop()
    server = await loop.create_server(
        lambda: SMTP(capture, tls_context=server_context, require_starttls=True, auth_required=True,
                     authenticator=authenticator, loop=loop), host="127.0.0.1", port=0)
    try:
        yield server.sockets[0].getsockname()[1]
    finally:
        server.close()
        await server.wait_closed()


async def test_mail_leaves_through_a_relay_with_starttls_and_a_login(judge_address, capture, tls_relay):
    server_context, ca_file = tls_relay
    logins = []
    async with login_relay(capture, server_context, logins) as port:
        settings = MailSettings(address=judge_address, relay_host="127.0.0.1", relay_port=port, relay_starttls=True,
                                relay_username="judge", relay_password="relay-secret", relay_ca_file=ca_file)
        message = EmailMessage()
        message["From"], message["To"], message["Subject"] = judge_address, "ant@players.test", "hello"
        message.set_content("results")
        sender = Mailer(settings)
        await sender.send(message, "ant@players.test")
        await sender.close()  # (its connection, kept for the next mail, closed as a server's is at a stop)
        [sent] = capture.wait(lambda m: True)
        assert sent.rcpt_tos == ("ant@players.test",) and sent.mail_from == judge_address
        assert logins == [(b"judge", True)]

        wrong = settings.model_copy(update={"relay_password": None, "relay_username": None})
        with pytest.raises(Exception, match="(?i)auth"):
            await Mailer(wrong).send(message, "ant@players.test")
        assert len(capture.messages) == 1


def test_results_carry_the_map_picture(sqlite_db, monkeypatch, open_rig):
    pytest.importorskip("bot.render")
    monkeypatch.setattr(passwords, "SCRYPT_N", 2**10)
    with open_rig(sqlite_db, attach_maps=True) as rig:
        rig.register_game("crusade1", {"ANT": "ant@players.test", "BYZ": "byz@players.test"})
        rig.flush()
        started = rig.capture.wait(lambda m: "has started" in str(m.message["Subject"]), count=2)
        for mail in started:  # the opening board, named after the phase it shows
            [picture] = mail.attachments
            assert picture.get_filename() == "crusade1-S1101M.png"
        rig.ask("ant@players.test", "SIGNON ANTcrusade1 pw-ANT\nA ant - ata\nSIGNOFF")
        rig.clock.advance(timedelta(hours=49))
        rig.service.fire_due()
        rig.flush()
        results = rig.capture.wait(lambda m: "results of S1101M" in str(m.message["Subject"]), count=2)
        for mail in results:
            [picture] = mail.attachments
            assert picture.get_content_type() == "image/png"
            assert picture.get_filename() == "crusade1-S1101M.png"  # the season's board, with its orders
            assert picture.get_content().startswith(b"\x89PNG\r\n\x1a\n")


def test_serve_starts_the_mail_front_end_unless_the_judge_address_is_empty(sqlite_db, monkeypatch):
    class App:  # what crusader serve hands a front end
        from bot.app.settings import Settings
        from bot.service import GameService
        service = GameService(sqlite_db)
        dispatcher = None
        settings = Settings()

    for name in ("ADDRESS", "LISTEN_PORT", "RELAY_HOST"):
        monkeypatch.delenv(f"CRUSADER_MAIL_{name}", raising=False)
    assert create_front_end(App).settings.address == "judge@localhost"  # on by default
    monkeypatch.setenv("CRUSADER_MAIL_ADDRESS", "")
    assert create_front_end(App) is None
    monkeypatch.setenv("CRUSADER_MAIL_ADDRESS", "judge@example.org")
    monkeypatch.setenv("CRUSADER_MAIL_LISTEN_PORT", "2626")
    front = create_front_end(App)
    assert isinstance(front, MailFrontEnd) and front.name == "mail"
    assert (front.settings.listen_host, front.settings.listen_port) == ("127.0.0.1", 2626)
    assert MailSettings().listen_port == 2626 and MailSettings(_env_file=None).max_bytes == 256_000


def test_one_refused_address_is_reported_and_holds_up_nobody_and_a_busy_one_is_tried_again_alone(
        sqlite_db, monkeypatch, open_rig, picky_relay):
    monkeypatch.setattr(passwords, "SCRYPT_N", 2**10)
    relay = picky_relay
    relay.refuse = {"byz@players.test": "550 5.1.1 no such user here", "jer@players.test": "451 4.2.1 mailbox busy"}
    with open_rig(sqlite_db, capture=relay) as rig:
        players = {"ANT": "ant@players.test", "BYZ": "byz@players.test", "JER": "jer@players.test",
                   "SEL": "sel@players.test"}
        rig.register_game("crusade1", players)
        rig.flush()
        started = {m.rcpt_tos[0] for m in relay.messages if "has started" in str(m.message["Subject"])}
        assert started == {"ant@players.test", "sel@players.test"}
        with rig.db.session() as session:
            states = {d.recipient: (d.state, d.reason) for d in database.deliveries_of(session) if d.notifier == "mail"}
            [notice] = [o for o in database.outbox_of(session) if o.kind == "undeliverable"]
        assert states["byz@players.test"][0] == "refused" and "550" in states["byz@players.test"][1]
        assert states["jer@players.test"][0] == "pending" and "451" in states["jer@players.test"][1]
        assert notice.audience == "gm" and "byz@players.test" in notice.body and "no such user" in notice.body

        # the relay takes JER's mail again: JER gets it at the next try, alone; BYZ is not tried again
        del relay.refuse["jer@players.test"]
        rig.clock.advance(timedelta(minutes=1))
        rig.flush()
        assert [m.rcpt_tos for m in relay.messages if "has started" in str(m.message["Subject"])][-1] == \
            ("jer@players.test",)
        assert [a for a, _ in relay.refused].count("byz@players.test") == 1


def test_a_reply_waits_in_the_outbox_while_the_relay_is_away_and_goes_out_when_it_is_back(
        sqlite_db, monkeypatch, open_rig, picky_relay):
    monkeypatch.setattr(passwords, "SCRYPT_N", 2**10)
    relay = picky_relay
    with open_rig(sqlite_db, capture=relay) as rig:
        rig.register_game("crusade1", {"ANT": "ant@players.test", "BYZ": "byz@players.test"})
        rig.flush()
        relay.refuse["*"] = "421 4.3.2 service not available, closing"
        message_id = rig.mail("ant@players.test", "SIGNON ANTcrusade1 pw-ANT\nA ant - ata\nSIGNOFF")
        for _ in range(3):  # an hour of relay outage: the reply is kept, tried again now and then
            rig.clock.advance(timedelta(minutes=20))
            rig.flush()
        assert not [m for m in relay.messages if m.message["In-Reply-To"] == message_id]
        del relay.refuse["*"]
        rig.clock.advance(timedelta(hours=1))
        rig.flush()
        reply = rig.reply(message_id)
        assert "accepted: ANT: A ant - ata" in reply.text and reply.rcpt_tos == ("ant@players.test",)
        assert str(reply.message["Auto-Submitted"]) == "auto-replied"


async def test_a_relay_that_cannot_be_reached_or_will_not_relay_is_the_front_ends_problem_until_it_is_well(
        judge_address, sqlite_db, picky_relay):
    """The e-mail front end tries its relay at start and while it is unwell: one that cannot be
    reached, wants a login, or refuses to relay for the judge is its ``problem`` (what ``crusader
    health`` reports, naming the settings); a refused mailbox is not; a good exchange clears it."""
    import asyncio
    import socket

    from bot.app.serve import _problems
    from bot.service import GameService

    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    nobody = closed.getsockname()[1]
    closed.close()  # nothing listens there now
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = judge_address, "ant@players.test", "hello"
    message.set_content("results")

    settings = MailSettings(address=judge_address, listen_port=0, relay_host="127.0.0.1", relay_port=nobody,
                            relay_timeout=5)
    front = MailFrontEnd(GameService(sqlite_db), None, settings)
    front.recheck = 0.05
    await front.start()
    try:
        for _ in range(100):
            if front.problem:
                break
            await asyncio.sleep(0.02)
        assert front.problem.startswith(f"the mail relay 127.0.0.1:{nobody} cannot be reached")
        assert "set CRUSADER_MAIL_RELAY_HOST and CRUSADER_MAIL_RELAY_PORT" in front.problem
        class App:
            front_ends = [front]
        assert _problems(App) == {"mail": front.problem}

        # a relay that answers, but will not relay for the judge: nobody would get mail
        loop = asyncio.get_running_loop()
        server = await loop.create_server(lambda: SMTP(picky_relay, loop=loop), host="127.0.0.1", port=0)
        port = server.sockets[0].getsockname()[1]
        mailer = Mailer(settings.model_copy(update={"relay_port": port}))
        try:
            picky_relay.refuse["*"] = "554 5.7.1 <ant@players.test>: Relay access denied"
            outcome = await mailer.deliver(message, "ant@players.test")
            assert isinstance(outcome, RetryLater) and "Relay access denied" in outcome.reason  # kept, not lost
            assert mailer.relay_problem.startswith(f"the mail relay 127.0.0.1:{port} refuses to relay the judge's mail")
            assert await mailer.probe() is not None  # a probe names no recipient: it cannot tell it is mended
            # one mailbox it does not know says nothing of the relay; the next message that goes clears it
            picky_relay.refuse = {"nobody@players.test": "550 5.1.1 no such user"}
            await mailer.deliver(message, "nobody@players.test")
            assert mailer.relay_problem is not None
            assert await mailer.deliver(message, "ant@players.test") is not None and mailer.relay_problem is None
            # the front end's own watch finds the relay well again once it answers where it looks
            front.mailer.settings = front.mailer.settings.model_copy(update={"relay_port": port})
            for _ in range(200):
                if front.problem is None:
                    break
                await asyncio.sleep(0.02)
            assert front.problem is None
        finally:
            await mailer.close()  # the connection the last mail kept, closed before the relay goes
            server.close()
            await server.wait_closed()
    finally:
        await front.stop()


async def test_a_relay_that_wants_a_login_is_named_so(judge_address, capture, tls_relay):
    server_context, ca_file = tls_relay
    async with login_relay(capture, server_context) as port:
        settings = MailSettings(address=judge_address, relay_host="127.0.0.1", relay_port=port, relay_starttls=True,
                                relay_ca_file=ca_file, relay_timeout=5)
        problem = await Mailer(settings).probe()
        assert problem.startswith(f"the mail relay 127.0.0.1:{port} wants the judge to log in (530"), problem
        problem = await Mailer(settings.model_copy(update={"relay_username": "judge",
                                                            "relay_password": SecretStr("wrong")})).probe()
        assert problem.startswith(f"the mail relay 127.0.0.1:{port} refuses the judge's login (535"), problem
        right = settings.model_copy(update={"relay_username": "judge", "relay_password": SecretStr("relay-secret")})
        assert await Mailer(right).probe() is None
        assert capture.messages == []  # a probe sends nothing


def test_the_game_masters_test_of_the_whole_mail_loop(sqlite_db, monkeypatch, open_rig, judge_address, capsys):
    """``crusader mail test ADDRESS``: the relay tried, a test message through it to the game
    master's own address; the game master's reply reaches the judge, which answers it."""
    from bot.cli.main import main

    with open_rig(sqlite_db) as rig:
        monkeypatch.setenv("CRUSADER_MAIL_ADDRESS", judge_address)
        monkeypatch.setenv("CRUSADER_MAIL_RELAY_HOST", "127.0.0.1")
        monkeypatch.setenv("CRUSADER_MAIL_RELAY_PORT", str(rig.settings.relay_port))
        assert main(["mail", "test", "GM@Players.test"]) == 0
        out = capsys.readouterr().out
        assert f"the relay 127.0.0.1:{rig.settings.relay_port} takes the judge's mail from {judge_address}" in out
        [sent] = rig.capture.wait(lambda m: "a test of the mail loop" in str(m.message["Subject"]))
        assert sent.rcpt_tos == ("gm@players.test",) and sent.mail_from == judge_address
        assert "reply to it, as it is" in sent.text.replace("\r\n", "\n").replace("\n", " ")
        # the game master replies, quoting it: the judge answers with its commands
        quoted = "\n".join("> " + line for line in sent.text.splitlines())
        answer = rig.ask("gm@players.test", f"It came.\n\n{quoted}\n",
                         subject="Re: Crusader Judge: a test of the mail loop",
                         In_Reply_To=str(sent.message["Message-ID"]))
        assert "SIGNON" in answer.text and answer.rcpt_tos == ("gm@players.test",)

        # a relay that cannot be used: exit 1 with the reason, nothing sent
        monkeypatch.setenv("CRUSADER_MAIL_RELAY_PORT", "1")
        assert main(["mail", "test", "gm@players.test"]) == 1
        assert "crusader: the mail relay 127.0.0.1:1 cannot be reached" in capsys.readouterr().err
        monkeypatch.setenv("CRUSADER_MAIL_ADDRESS", "")
        assert main(["mail", "test", "gm@players.test"]) == 1
        assert "e-mail is off: set CRUSADER_MAIL_ADDRESS" in capsys.readouterr().err
