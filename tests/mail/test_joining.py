"""Getting into a game by mail, over SMTP on loopback: JOIN a forming game (a power drawn at the start
or asked for), the password mailed with the start, LEAVE before it; JOIN a game under way to take
over a power nobody plays; an address that no longer plays its power signs on no more."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
import sqlalchemy as sa

from bot.frontends.mail import passwords
from bot.service import DeadlinePolicy

GM = "gm@outremer.test"
POLICY = DeadlinePolicy(movement=timedelta(hours=48), retreat=timedelta(hours=24), adjustment=timedelta(hours=24),
                        reminders=(), nmr_limit=0)


@pytest.fixture
def rig(sqlite_db, monkeypatch, open_rig):
    monkeypatch.setattr(passwords, "SCRYPT_N", 2**10)
    with open_rig(sqlite_db) as rig:
        rig.service.create_game("crusade2", "crusader", GM, policy=POLICY, seed=5)
        yield rig


def subject(mail) -> str:
    return str(mail.message["Subject"])


def signon_line(mail, game: str = "crusade2") -> tuple[str, str]:
    found = re.search(rf"SIGNON (\w{{3}}){game} ([a-z0-9-]+)", mail.text)
    assert found, mail.text
    return found.group(1), found.group(2)


def test_players_join_a_forming_game_by_mail_and_the_start_brings_each_their_password(rig):
    forming = rig.ask("ann@players.test", "LIST crusade2")
    assert "Game 'crusade2' (crusader) is forming: 0 of its 7 powers have a player" in forming.text
    assert "centres" not in forming.text and "To join: JOIN crusade2" in forming.text

    joined = rig.ask("ann@players.test", "JOIN crusade2")
    assert "you have joined 'crusade2' (your power is drawn when the game starts); 1 of its 7 powers has a player" \
        in " ".join(joined.text.split())
    asked = rig.ask("bob@players.test", "JOIN crusade2 BYZ\nSIGNOFF thanks")
    assert "you have joined 'crusade2' as BYZ" in asked.text
    taken = rig.ask("cat@players.test", "JOIN crusade2 BYZ")
    assert "not joined: BYZ is taken in 'crusade2'; the powers still free are ANT, EDE" in taken.text
    assert "bob@players.test" not in taken.text and "move or remove" not in taken.text  # no address, no GM's words
    assert "no game" in rig.ask("cat@players.test", "JOIN nosuchgame").text
    rig.ask("dan@players.test", "JOIN crusade2")
    assert "you have left 'crusade2'" in rig.ask("dan@players.test", "LEAVE crusade2").text
    listed = rig.ask("cat@players.test", "LIST crusade2").text
    assert "Powers taken: BYZ" in listed and "drawn at the start: 1" in listed
    assert "@players.test" not in listed  # who joined is not told to strangers

    rig.service.start("crusade2", GM, fill_civil_disorder=True)
    rig.flush()
    starts = {m.rcpt_tos[0]: m for m in rig.capture.messages if subject(m) == "crusade2: the game has started"}
    assert set(starts) == {"ann@players.test", "bob@players.test", GM}
    assert "SIGNON" not in starts[GM].text
    power, secret = signon_line(starts["bob@players.test"])
    assert power == "BYZ" and f"Your password for BYZ in 'crusade2' is: {secret}" in starts["bob@players.test"].text
    ann_power, ann_secret = signon_line(starts["ann@players.test"])
    assert ann_power == rig.service.status("crusade2").player_of(ann_power).power != "BYZ"
    assert rig.service.status("crusade2").player_of(ann_power).player == "ann@players.test"

    # the password was made as the mail left: it is in no table, and it works from the player's address
    dump = "\n".join(rig.db.engine.raw_connection().driver_connection.iterdump())
    assert secret not in dump and ann_secret not in dump
    reply = rig.ask("bob@players.test", f"SIGNON BYZcrusade2 {secret}\nF con H\nSIGNOFF")
    assert "accepted: BYZ: F con H" in reply.text
    again = rig.ask("bob@players.test", f"SIGNON BYZcrusade2 {secret}\nLIST\nSIGNOFF")
    assert "BYZ   4 centres  orders in" in again.text and "[no player]" in again.text
    assert f"signed on as {ann_power}" in rig.ask("ann@players.test", f"SIGNON {ann_power}crusade2 {ann_secret}").text


def test_a_power_nobody_plays_is_taken_over_by_mail_and_its_old_address_stops_working(rig):
    rig.ask("bob@players.test", "JOIN crusade2 BYZ")
    rig.ask("fay@players.test", "JOIN crusade2 FAT")
    rig.service.start("crusade2", GM, fill_civil_disorder=True)
    rig.flush()
    _, fay_secret = signon_line(rig.capture.to("fay@players.test")[-1])

    waiting = rig.ask("cat@players.test", "JOIN crusade2")
    assert "'crusade2' is under way: you are on its waiting list" in " ".join(waiting.text.split())
    assert "Nobody plays ANT, EDE, JER, SEL, RUM: JOIN crusade2 ANT takes it over" in " ".join(waiting.text.split())
    assert "not joined" in rig.ask("cat@players.test", "JOIN crusade2 BYZ").text  # bob plays it
    taken = rig.ask("cat@players.test", "JOIN crusade2 JER")
    assert "you now play JER in 'crusade2'" in taken.text
    rig.flush()
    [news] = [m for m in rig.capture.to("cat@players.test") if subject(m) == "crusade2: JER has a new player"]
    power, secret = signon_line(news)
    assert power == "JER"
    assert [subject(m) for m in rig.capture.to(GM)][-1] == "crusade2: JER has a new player"
    assert "JER is now played by cat@players.test" in rig.capture.to("bob@players.test")[-1].text
    assert "accepted: JER: A jer - heb" in rig.ask("cat@players.test", f"SIGNON JERcrusade2 {secret}\nA jer - heb").text

    # the game master gives FAT to someone else: fay's address no longer plays it
    rig.service.replace_player("crusade2", GM, "FAT", "gil@players.test")
    rig.flush()
    refused = rig.ask("fay@players.test", f"SIGNON FATcrusade2 {fay_secret}\nA cai - sid")
    assert "not signed on" in refused.text and "accepted" not in refused.text
    power, gil_secret = signon_line(rig.capture.to("gil@players.test")[-1])
    assert power == "FAT"
    assert "accepted: FAT: A cai - sid" in rig.ask("gil@players.test", f"SIGNON FATcrusade2 {gil_secret}\nA cai - sid").text
    rig.service.force_adjudicate("crusade2", GM)
    rig.flush()
    assert {m.rcpt_tos[0] for m in rig.capture.messages if subject(m) == "crusade2: results of S1101M"} == {
        "bob@players.test", "cat@players.test", "gil@players.test", GM}  # fay's address is no player's now


def test_a_game_master_registers_an_address_and_the_judge_mails_it_a_password(rig):
    rig.service.join("crusade2", "discord:1234567890123456", "ANT")
    rig.service.start("crusade2", GM, fill_civil_disorder=True)
    rig.accounts.register("crusade2", GM, "ANT", address="ant@players.test")
    rig.flush()
    [mailed] = [m for m in rig.capture.to("ant@players.test") if subject(m) == "crusade2: your password for ANT"]
    assert "registered this address to play The Principality of Antioch (ANT) by mail" in " ".join(mailed.text.split())
    _, secret = signon_line(mailed)
    with rig.db.engine.connect() as connection:
        bodies = connection.execute(sa.text("SELECT body FROM outbox")).scalars().all()
    assert not any(secret in body for body in bodies)
    assert "signed on as ANT" in rig.ask("ant@players.test", f"SIGNON ANTcrusade2 {secret}\nSIGNOFF").text


def test_a_rollback_that_gives_a_power_back_to_its_player_mails_that_player_a_new_password(rig):
    rig.ask("fay@players.test", "JOIN crusade2 FAT")
    rig.service.start("crusade2", GM, fill_civil_disorder=True)
    rig.service.force_adjudicate("crusade2", GM)  # the season keeps fay as FAT's player
    rig.flush()
    rig.service.replace_player("crusade2", GM, "FAT", "gil@players.test")
    rig.flush()
    _, gil_secret = signon_line(rig.capture.to("gil@players.test")[-1])
    rig.service.rollback("crusade2", GM)
    rig.flush()
    [back] = [m for m in rig.capture.to("fay@players.test") if subject(m) == "crusade2: S1101M rolled back"]
    power, secret = signon_line(back)
    assert power == "FAT" and "rolled 'crusade2' back" in back.text
    assert "signed on as FAT" in rig.ask("fay@players.test", f"SIGNON FATcrusade2 {secret}").text
    assert "not signed on" in rig.ask("gil@players.test", f"SIGNON FATcrusade2 {gil_secret}").text


def test_automatic_mail_joins_nobody(rig):
    rig.mail("ann@players.test", "JOIN crusade2", Auto_Submitted="auto-replied")
    rig.mail("mailer-daemon@players.test", "JOIN crusade2")
    assert "joined" in rig.ask("bob@players.test", "JOIN crusade2").text  # answered; the two before were not
    assert [p.player for p in rig.service.status("crusade2").players] == ["bob@players.test"]
