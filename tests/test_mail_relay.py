"""Outbound mail through a relay that wants STARTTLS and a login, the map picture on the results,
and the front end as ``crusader serve`` finds it."""

from __future__ import annotations

import ssl
from datetime import timedelta
from email.message import EmailMessage

import pytest
import trustme
from aiosmtpd.smtp import SMTP, AuthResult

from bot.mail import create_front_end, passwords
from bot.mail.config import MailSettings
from bot.mail.listener import MailFrontEnd
from bot.mail.outbound import Mailer
from tests.mail_support import JUDGE, Capture, Clock, MailRig, registered_game
from tests.service_support import START, sqlite_db  # noqa: F401


@pytest.fixture
def tls_relay(tmp_path):
    ca = trustme.CA()
    server_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("127.0.0.1", "localhost").configure_cert(server_context)
    ca_file = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(ca_file))
    return server_context, str(ca_file)


async def test_mail_leaves_through_a_relay_with_starttls_and_a_login(tls_relay):
    import asyncio

    server_context, ca_file = tls_relay
    capture, logins = Capture(), []

    def authenticator(server, session, envelope, mechanism, auth_data):
        logins.append((auth_data.login, session.ssl is not None))
        return AuthResult(success=auth_data.login == b"judge" and auth_data.password == b"relay-secret")

    loop = asyncio.get_running_loop()
    server = await loop.create_server(
        lambda: SMTP(capture, tls_context=server_context, require_starttls=True, auth_required=True,
                     authenticator=authenticator, loop=loop), host="127.0.0.1", port=0)
    port = server.sockets[0].getsockname()[1]
    try:
        settings = MailSettings(address=JUDGE, relay_host="127.0.0.1", relay_port=port, relay_starttls=True,
                                relay_username="judge", relay_password="relay-secret", relay_ca_file=ca_file)
        message = EmailMessage()
        message["From"], message["To"], message["Subject"] = JUDGE, "ant@players.test", "hello"
        message.set_content("results")
        await Mailer(settings).send(message, "ant@players.test")
        [sent] = capture.wait(lambda m: True, timeout=5)
        assert sent.rcpt_tos == ("ant@players.test",) and sent.mail_from == JUDGE
        assert logins == [(b"judge", True)]

        wrong = settings.model_copy(update={"relay_password": None, "relay_username": None})
        with pytest.raises(Exception, match="(?i)auth"):
            await Mailer(wrong).send(message, "ant@players.test")
        assert len(capture.messages) == 1
    finally:
        server.close()
        await server.wait_closed()


def test_results_carry_the_map_picture(sqlite_db, monkeypatch):
    pytest.importorskip("bot.render")
    monkeypatch.setattr(passwords, "SCRYPT_N", 2**10)
    rig = MailRig(sqlite_db, Clock(START), attach_maps=True)
    try:
        registered_game(rig, "crusade1", {"ANT": "ant@players.test", "BYZ": "byz@players.test"})
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
    finally:
        rig.close()


def test_serve_starts_the_mail_front_end_unless_the_judge_address_is_empty(sqlite_db, monkeypatch):
    class App:  # what crusader serve hands a front end
        from bot.service import GameService
        service = GameService(sqlite_db)
        dispatcher = None

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
