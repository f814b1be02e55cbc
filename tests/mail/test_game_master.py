"""The game master by mail, over SMTP on loopback: a game master named by an e-mail address reads the
game's announcements and what is for the game master alone (no orders from a power, civil disorder,
a mail that could not be delivered); a player put in civil disorder is told; the end of the game
comes with the standings."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta

import pytest

from bot.frontends.mail import passwords
from bot.service import DeadlinePolicy

GM = "gm@outremer.test"
PLAYERS = {"ANT": "ant@players.test", "BYZ": "byz@players.test", "JER": "jer@players.test"}
POLICY = DeadlinePolicy(movement=timedelta(hours=48), retreat=timedelta(hours=24), adjustment=timedelta(hours=24),
                        reminders=(), nmr_limit=2)


def subject(mail) -> str:
    return str(mail.message["Subject"])


@pytest.fixture
def rig(sqlite_db, monkeypatch, open_rig, picky_relay):
    monkeypatch.setattr(passwords, "SCRYPT_N", 2**10)
    picky_relay.refuse["jer@players.test"] = "550 5.1.1 no such user"
    with open_rig(sqlite_db, capture=picky_relay) as rig:
        rig.service.create_game("crusade1", "crusader", GM, policy=POLICY, seed=11)
        for power, address in PLAYERS.items():
            rig.service.join("crusade1", address, power)
            rig.accounts.register("crusade1", GM, power, address=address, password=f"pw-{power}")
        rig.service.start("crusade1", GM, fill_civil_disorder=True)
        rig.flush()
        yield rig


def test_the_game_master_reads_the_notices_and_the_player_in_civil_disorder_is_told(rig):
    relay = rig.capture
    gm = lambda: {subject(m): m.text for m in relay.to(GM)}  # noqa: E731
    assert "crusade1: the game has started" in gm()
    undelivered = gm()["crusade1: 'crusade1: the game has started' could not be delivered to jer@players.test"]
    assert "550 5.1.1 no such user" in undelivered and "everybody else received it" in undelivered

    rig.ask(PLAYERS["ANT"], "SIGNON ANTcrusade1 pw-ANT\nA ant - ata\nSIGNOFF")
    for _ in range(2):  # BYZ and JER miss two phases: civil disorder
        rig.service.force_adjudicate("crusade1", GM)
        rig.flush()
    notices = gm()
    assert "No orders for S1101M from: BYZ, JER." in notices["crusade1: no orders from BYZ, JER"]
    # both fell at the same deadline: the game master reads it in one notice, not one a power
    fallen = notices["crusade1: BYZ, JER are in civil disorder"]
    assert "BYZ (byz@players.test) sent no orders for 2 phases in a row" in fallen
    assert "JER (jer@players.test) sent no orders for 2 phases in a row" in fallen
    assert not [s for s in notices if s.endswith(("BYZ is in civil disorder", "JER is in civil disorder"))]
    told = [m for m in relay.to(PLAYERS["BYZ"]) if subject(m) == "crusade1: BYZ is in civil disorder"]
    assert len(told) == 1 and "Send orders for" in told[0].text and "to play it again" in told[0].text
    assert not [m for m in relay.to(PLAYERS["ANT"]) if "civil disorder" in subject(m)]  # nobody else's business
    # the game master was told of the dead mailbox once that day, not once per announcement
    assert not [s for s in notices if s.startswith("crusade1: 'crusade1: JER is in civil disorder' could not")]
    assert sum(1 for s in notices if s.endswith("could not be delivered to jer@players.test")) == 1
    assert "not reported one by one" in undelivered

    # JER's mailbox works again: the next mail says what it missed meanwhile, once
    del relay.refuse[PLAYERS["JER"]]
    rig.service.pause("crusade1", GM)
    rig.flush()
    [back] = [m for m in relay.to(PLAYERS["JER"]) if subject(m) == "crusade1: paused"]
    text = back.text.replace("\r\n", "\n")
    assert "could not be delivered for a while; you missed" in text and "  crusade1: the game has started\n" in text
    assert "  crusade1: JER is in civil disorder\n" in text and "LIST crusade1 shows where the game stands" in text
    rig.service.resume("crusade1", GM)
    rig.flush()
    [again] = [m for m in relay.to(PLAYERS["JER"]) if subject(m) == "crusade1: resumed"]
    assert "you missed" not in again.text

    rig.service.end_game("crusade1", GM, "a test")
    rig.flush()
    for address in (GM, PLAYERS["ANT"], PLAYERS["BYZ"]):
        [over] = [m for m in relay.to(address) if subject(m) == "crusade1: the game is over"]
        assert "The game has been ended by the game master: a test." in over.text
        assert "Final standings (supply centres, units):" in over.text
        assert "BYZ The Byzantine Empire: 4 centre(s), 4 unit(s)" in over.text, over.text
    assert all(n == 1 for n in Counter((m.rcpt_tos, subject(m)) for m in relay.messages).values())


def test_a_game_master_on_discord_gets_no_mail(sqlite_db, monkeypatch, open_rig):
    monkeypatch.setattr(passwords, "SCRYPT_N", 2**10)
    with open_rig(sqlite_db) as rig:
        rig.service.create_game("crusade1", "crusader", "discord:123456789012345678", policy=POLICY, seed=1)
        rig.service.join("crusade1", PLAYERS["ANT"], "ANT")
        rig.service.start("crusade1", None, fill_civil_disorder=True)
        rig.service.force_adjudicate("crusade1", None)
        rig.flush()
        assert rig.capture.all_recipients() == {PLAYERS["ANT"]}
