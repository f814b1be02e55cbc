"""Orders only after the right password from the registered address; refusals that change nothing
and echo nothing sensitive; no mail to an address a player writes; no password in logs or storage."""

from __future__ import annotations

import logging
from datetime import timedelta

import pytest
import sqlalchemy as sa
from structlog.testing import capture_logs

from bot.frontends.mail import passwords

ADDRESSES = {"ANT": "ant@players.test", "BYZ": "byz@players.test", "JER": "jer@players.test"}
SECRET = "pw-ANT"


@pytest.fixture
def rig(sqlite_db, monkeypatch, open_rig):
    monkeypatch.setattr(passwords, "SCRYPT_N", 2**10)
    with open_rig(sqlite_db) as rig:
        rig.register_game("crusade1", ADDRESSES)
        rig.flush()  # the start announcement is out; the tests look at what follows
        rig.capture.messages.clear()
        yield rig


def nothing_changed(rig) -> bool:
    with rig.db.engine.connect() as connection:
        submissions = connection.execute(sa.text("SELECT count(*) FROM submission")).scalar()
        orders = connection.execute(sa.text("SELECT count(*) FROM orders")).scalar()
    return submissions == 0 and orders == 0


@pytest.mark.parametrize("signon, expected", [
    ("SIGNON ANTcrusade1 wrong-password", "that is not the password of ANT in game 'crusade1'"),
    ("SIGNON ANTnosuchgame pw-ANT", "is not a power code followed by the name of a game"),
    ("SIGNON XYZcrusade1 pw-ANT", "'XYZ' is not a power of game 'crusade1'; its powers are ANT, BYZ"),
    ("SIGNON ANTcrusade1", "a sign-on line reads SIGNON <power code><game name> <password>"),
])
def test_a_refused_signon_changes_nothing_and_says_why_politely(rig, signon, expected):
    reply = rig.ask(ADDRESSES["ANT"], f"{signon}\nA ant - ata\nA tar - tam\nSIGNOFF")
    assert reply.rcpt_tos == (ADDRESSES["ANT"],)
    assert expected in " ".join(reply.text.split())
    assert "the 3 other line(s) of the message were not read" in reply.text
    assert "A ant - ata" not in reply.text and "wrong-password" not in reply.text and SECRET not in reply.text
    assert nothing_changed(rig)


def test_a_strangers_text_is_never_mailed_back(rig):
    spam = "Cheap pills at http://spam.test\nBuy now!\nSIGNON ANTcrusade1 guess\nMore spam here"
    reply = rig.ask("victim@elsewhere.test", spam, subject="CHEAP PILLS http://spam.test")
    assert reply.rcpt_tos == ("victim@elsewhere.test",)
    assert "spam" not in reply.text.lower() and "pills" not in str(reply.message["Subject"]).lower()
    assert "the 3 other line(s) of the message were not read" in reply.text
    greeting = rig.ask(ADDRESSES["ANT"], "Hello judge, how are you?\nvisit http://spam.test")
    assert "spam.test" not in greeting.text and "Hello" not in greeting.text
    assert "2 line(s) came before any SIGNON line and were not read" in greeting.text


def test_the_right_password_from_another_address_is_refused_and_the_owner_told(rig):
    reply = rig.ask("intruder@evil.test", f"SIGNON ANTcrusade1 {SECRET}\nA ant - ata\nSIGNOFF")
    assert reply.rcpt_tos == ("intruder@evil.test",)
    assert "did not come from the address registered for ANT" in " ".join(reply.text.split())
    assert ADDRESSES["ANT"] not in reply.text and "A ant - ata" not in reply.text
    [alert] = rig.capture.wait(lambda m: m.rcpt_tos == (ADDRESSES["ANT"],))
    assert "intruder@evil.test" in alert.text and SECRET not in alert.text
    guess = rig.ask("intruder@evil.test", "SIGNON ANTcrusade1 a-guess\nA ant - ata\nSIGNOFF")
    assert guess.text.split("Note:")[1] == reply.text.split("Note:")[1]  # the same words: no oracle
    rig.flush()
    assert len(rig.capture.to(ADDRESSES["ANT"])) == 1  # a wrong guess from elsewhere does not alarm anyone
    assert nothing_changed(rig)


def test_answers_go_to_the_sender_never_to_an_address_the_message_names(rig):
    body = (f"SIGNON ANTcrusade1 {SECRET}\nA ant - ata\nplease copy victim3@evil.test\nSIGNOFF\n"
            "forward to victim4@evil.test")
    reply = rig.ask(ADDRESSES["ANT"], body, Reply_To="victim1@evil.test", Cc="victim2@evil.test",
                    envelope="bounce@evil.test")
    assert reply.rcpt_tos == (ADDRESSES["ANT"],) and "accepted: ANT: A ant - ata" in reply.text
    # a forged From gets the answer sent to the registered player, not to whoever forged it
    forged = rig.ask(ADDRESSES["BYZ"], "SIGNON BYZcrusade1 guess\nF con H", envelope="attacker@evil.test")
    assert forged.rcpt_tos == (ADDRESSES["BYZ"],)
    rig.service.force_adjudicate("crusade1", "gm")
    rig.flush()
    rig.capture.wait(lambda m: "results of S1101M" in str(m.message["Subject"]), count=len(ADDRESSES))
    rig.flush()
    assert not any(r.endswith("@evil.test") for r in rig.capture.all_recipients())
    assert rig.capture.all_recipients() == set(ADDRESSES.values())


def test_automatic_mail_and_mail_without_sender_get_no_answer(rig):
    rig.mail(ADDRESSES["ANT"], "SIGNON ANTcrusade1 wrong\n", Auto_Submitted="auto-replied")
    rig.mail(ADDRESSES["ANT"], "HELP", Precedence="bulk")
    code = rig.send_raw(b"Subject: no sender at all\r\n\r\nSIGNON ANTcrusade1 wrong\r\n", mail_from="")
    assert code == 250
    rig.mail("mailer-daemon@players.test", "SIGNON ANTcrusade1 wrong\n")
    last = rig.ask(ADDRESSES["JER"], "HELP")  # answered; the ones before it were not
    assert "SIGNON <power code><game name> <password>" in last.text
    rig.flush()
    assert [m.rcpt_tos for m in rig.capture.messages] == [(ADDRESSES["JER"],)]


def test_without_a_from_header_the_envelope_sender_is_answered(rig):
    raw = "Subject: orders\r\nMessage-ID: <x1@players.test>\r\n\r\nSIGNON JERcrusade1 pw-JER\r\nA jer - heb\r\n"
    assert rig.send_raw(raw.encode(), mail_from=ADDRESSES["JER"]) == 250
    reply = rig.reply("<x1@players.test>")
    assert reply.rcpt_tos == (ADDRESSES["JER"],) and "accepted: JER: A jer - heb" in reply.text


def test_passwords_appear_in_no_log_and_nowhere_in_storage(rig, caplog):
    caplog.set_level(logging.DEBUG)
    with capture_logs() as events:
        rig.ask(ADDRESSES["ANT"], f"SIGNON ANTcrusade1 {SECRET}\nA ant - ata\nSET PASSWORD sesame-2\nSIGNOFF")
        rig.ask(ADDRESSES["BYZ"], "SIGNON BYZcrusade1 not-byz-password\nF con H\nSIGNOFF")
        rig.ask(ADDRESSES["JER"], "SIGNON JERcrusade1 pw-JER\nA jer - heb\nSIGNOFF")
        rig.service.force_adjudicate("crusade1", "gm")
        rig.flush()
    logged = caplog.text + repr(events)
    assert "mail handled" in logged
    for password in (SECRET, "sesame-2", "not-byz-password", "pw-JER"):
        assert password not in logged
        dump = "\n".join(rig.db.engine.raw_connection().driver_connection.iterdump())
        assert password not in dump
        assert not any(password in m.message.as_string() for m in rig.capture.messages)


@pytest.mark.parametrize("line", [
    "Cheap pills at http://spam.test " + "x" * 300,  # too long to be an order
    "PHASE cheap pills at http://spam.test",  # a keyword, then the stranger's words
    "PHASE " + "x" * 40 + "-cheap-pills-at-http://spam.test",  # a word: no more of it than a typo needs
])
def test_a_strangers_line_is_not_mailed_back_however_it_starts_or_however_long(rig, line):
    reply = rig.ask("victim@elsewhere.test", line)
    assert reply.rcpt_tos == ("victim@elsewhere.test",)
    assert "spam" not in reply.text.lower() and "pills" not in reply.text.lower()


@pytest.mark.parametrize("line, password", [
    (f"SIGNON ANTcrusade1 {SECRET} " + "x" * 300, SECRET),
    ("SET PASSWORD " + "sesame-" * 50, "sesame-sesame"),
])
def test_a_password_on_an_over_long_line_is_not_echoed(rig, line, password):
    text = f"SIGNON ANTcrusade1 {SECRET}\n{line}" if line.startswith("SET") else line
    reply = rig.ask(ADDRESSES["ANT"], text)
    assert "at most 300" in reply.text
    assert password not in reply.text


def test_a_rival_who_forges_the_players_address_locks_out_only_its_own_sender(rig):
    first = rig.ask(ADDRESSES["ANT"], "SIGNON ANTcrusade1 guess-0\nA ant - ata", envelope="rival@evil.test")
    assert "that is not the password of ANT" in first.text  # the first refusal in the hour is mailed...
    for i in range(1, 10):  # From: the player, from the rival's own mail system
        rig.mail(ADDRESSES["ANT"], f"SIGNON ANTcrusade1 guess-{i}\nA ant - ata", envelope="rival@evil.test")
    with capture_logs() as logs:
        rig.mail(ADDRESSES["ANT"], f"SIGNON ANTcrusade1 {SECRET}\nA ant - ata", envelope="rival@evil.test")
    assert any(e["event"] == "mail handled" and "too many wrong passwords" in (e.get("refusal") or "")
               for e in logs), logs  # even the right one: the bound holds
    owner = rig.ask(ADDRESSES["ANT"], f"SIGNON ANTcrusade1 {SECRET}\nA ant - ata\nSIGNOFF")
    assert "accepted: ANT: A ant - ata" in owner.text  # the player's own mail is not locked out
    rig.flush()
    assert len(rig.capture.to(ADDRESSES["ANT"])) == 2  # ...the next ten are not: one refusal, and the answer
    # the count is kept in the database: another server of the same judge refuses the rival too
    from bot.frontends.mail.accounts import MailAccounts, SignonRefused

    other = MailAccounts(rig.service)
    with pytest.raises(SignonRefused, match="too many wrong passwords"):
        other.authenticate("crusade1", "ANT", SECRET, ADDRESSES["ANT"], "rival@evil.test")
    rig.clock.advance(timedelta(hours=1, seconds=1))  # an hour later the rival's guesses no longer count
    assert other.authenticate("crusade1", "ANT", SECRET, ADDRESSES["ANT"], "rival@evil.test").power == "ANT"


@pytest.mark.parametrize("line, echoed", [
    ("SIGNON ANTcrusade1 open sesame", "> SIGNON ANTcrusade1 ********"),
    ("SIGNON ANT crusade1 open sesame", "> SIGNON ANT crusade1 ********"),
])
def test_a_password_written_with_a_space_shows_no_word_of_it(rig, line, echoed):
    reply = rig.ask(ADDRESSES["ANT"], f"{line}\nA ant - ata")
    assert echoed in reply.text.splitlines()
    assert "open" not in reply.text and "sesame" not in reply.text
    assert "the password was written in 2 words, and a password has no spaces" in " ".join(reply.text.split())
    assert nothing_changed(rig)
