"""A whole year of a game of the Crusader map played by mail, over SMTP on loopback: seven players
join by mail, one of them with a mailbox that refuses everything; the game master is an address too.
Every other player gets every announcement once; the game master is told about the dead mailbox,
the missed orders and the civil disorder that follows. ``pytest -s`` prints what each one reads."""

from __future__ import annotations

import os
import re
from collections import Counter
from datetime import timedelta

import pytest

from bot.frontends.mail import passwords
from bot.service import DeadlinePolicy

GM = "gm@outremer.test"
DEAD = "sel@dead.test"
PLAYERS = {"ANT": "ant@players.test", "BYZ": "byz@players.test", "EDE": "ede@players.test",
           "FAT": "fat@players.test", "JER": "jer@players.test", "RUM": "rum@players.test", "SEL": DEAD}
POLICY = DeadlinePolicy(movement=timedelta(hours=48), retreat=timedelta(hours=24), adjustment=timedelta(hours=24),
                        reminders=(timedelta(hours=12),), nmr_limit=2)
SPRING = {
    "ANT": "A ant - ata\nA tar - tam\nF lat H",
    "BYZ": "A sin - pap\nA nic H\nF con H\nF smy H",
    "EDE": "A ede - har\nA tur S A ede - har\nA rab H",
    "FAT": "A cai - sid\nA min H\nF alx H\nF dmt H",
    "JER": "A gal - dms\nA bei S A gal - dms\nA jer H\nF acr H",
    "RUM": "A ico H\nA seb H\nA anc H\nA cae H",
}
FALL = {
    "ANT": "A ata H\nA tam H\nF lat H",
    "BYZ": "A nic - anc\nA pap S A nic - anc\nF con H\nF smy H",
    "EDE": "A har H\nA tur H\nA rab H",
    "FAT": "A sid H\nA min H\nF alx H\nF dmt H",
    "JER": "A dms H\nA bei H\nA jer H\nF acr H",
    "RUM": "A ico H\nA seb H\nA anc H\nA cae H",
}
SHOW = os.environ.get("CRUSADER_SHOW_MAIL") or None


def subject(mail) -> str:
    return str(mail.message["Subject"])


@pytest.fixture
def rig(sqlite_db, monkeypatch, open_rig, picky_relay):
    monkeypatch.setattr(passwords, "SCRYPT_N", 2**10)
    picky_relay.refuse[DEAD] = "550 5.2.1 mailbox disabled, not accepting messages"
    with open_rig(sqlite_db, capture=picky_relay) as rig:
        yield rig


def test_a_year_by_mail_with_a_dead_mailbox(rig, capsys):
    relay, service = rig.capture, rig.service
    began = rig.clock.now
    service.create_game("outremer", "crusader", GM, policy=POLICY, seed=7)

    # the players join by mail, one of them without asking for a power
    for power, address in PLAYERS.items():
        if address == DEAD:  # its answer bounces: it belongs to no game, so nobody is told
            rig.mail(address, "JOIN outremer")
            continue
        reply = rig.ask(address, f"JOIN outremer {power}")
        assert f"you have joined 'outremer' as {power}" in reply.text, reply.text
    listed = rig.ask(PLAYERS["ANT"], "LIST outremer")
    assert "is forming: 7 of its 7 powers have a player" in listed.text and DEAD not in listed.text
    service.start("outremer", GM)
    rig.flush()

    # the start: each player's own password, and how to sign on
    secrets = {}
    for power, address in PLAYERS.items():
        if address == DEAD:
            continue
        [start] = [m for m in relay.to(address) if subject(m) == "outremer: the game has started"]
        found = re.search(rf"SIGNON {power}outremer (\S+)", start.text)
        assert found, start.text
        secrets[power] = found.group(1)
        assert "Supply centres:" in start.text and "Units:" in start.text
    [gm_start] = [m for m in relay.to(GM) if subject(m) == "outremer: the game has started"]
    assert "SIGNON" not in gm_start.text  # the game master plays no power: no password

    def orders(season: dict[str, str]) -> None:
        for power, text in season.items():
            reply = rig.ask(PLAYERS[power], f"SIGNON {power}outremer {secrets[power]}\n{text}\nSIGNOFF")
            assert "REJECTED" not in reply.text and reply.text.count("accepted:") == len(text.splitlines()), reply.text

    def deadline(hours: float) -> None:
        rig.clock.advance(timedelta(hours=hours, seconds=1))
        service.fire_due()
        rig.flush()

    orders(SPRING)
    deadline(48)
    assert service.status("outremer").phase == "F1101M"
    orders(FALL)
    deadline(48)
    assert service.status("outremer").phase == "F1101R"
    # RUM's army at Ancyra was dislodged: its player reads where it may go, and retreats there; the
    # judge's mail of the retreat phase, to RUM alone, says what it has to decide
    [opened] = [m for m in relay.to(PLAYERS["RUM"]) if subject(m) == "outremer: RUM has to decide in F1101R"]
    assert opened.text.replace("\r\n", "\n").startswith(
        "Fall 1101 Retreat (F1101R) has begun in 'outremer', and The Seldjuks of Rum has to decide:\n"
        "  · A Ancyra: retreat to "), opened.text
    assert not [m for m in relay.to(PLAYERS["ANT"]) if "has to decide in F1101R" in subject(m)]
    [fall] = [m for m in relay.to(PLAYERS["RUM"]) if subject(m) == "outremer: results of F1101M"]
    retreats = re.search(r"RUM A anc: retreat to (.+), or disband", fall.text)
    assert retreats, fall.text
    place = retreats.group(1).replace(" or ", ", ").split(", ")[0]
    reply = rig.ask(PLAYERS["RUM"], f"SIGNON RUMoutremer {secrets['RUM']}\nA anc - {place}\nSIGNOFF")
    assert "accepted: RUM: A anc - " in reply.text, reply.text
    deadline(24)
    assert service.status("outremer").phase == "W1101B"
    [fall_retreat] = [m for m in relay.to(PLAYERS["BYZ"]) if subject(m) == "outremer: results of F1101R"]
    winter = fall_retreat.text
    assert "Builds and removals (W1101B):" in winter and "BYZ builds 1" in winter and "RUM removes 1" in winter
    winter_orders = {}
    for power, count, sites in re.findall(r"^  (\w{3}) builds (\d), at (.+)$", winter, re.MULTILINE):
        first = re.split(r", | or ", sites.strip())[0]
        winter_orders[power] = f"Build {'F' if '/' in first else 'A'} {first}"
    winter_orders["RUM"] = "Remove A seb"
    assert set(winter_orders) >= {"BYZ", "EDE", "JER", "RUM"}, winter
    orders(winter_orders)
    # a player changes their mind: a removal beyond those due takes the place of the one standing (29)
    rum = f"SIGNON RUMoutremer {secrets['RUM']}\n"
    changed = rig.ask(PLAYERS["RUM"], rum + "Remove A cae\nSIGNOFF")
    assert "accepted: RUM: A cae disband (in place of A seb disband)" in changed.text, changed.text
    assert changed.text.split("Orders standing for RUM")[1].count("disband") == 1
    # a build at the same site replaces the one there
    site = winter_orders["BYZ"].split()[-1]
    again = rig.ask(PLAYERS["BYZ"], f"SIGNON BYZoutremer {secrets['BYZ']}\nBuild A {site}\nSIGNOFF")
    assert f"accepted: BYZ: A {site} build" in again.text
    assert again.text.split("Orders standing for BYZ")[1].count("build") == 1
    deadline(24)
    assert service.status("outremer").phase == "S1102M"
    [built] = [m for m in relay.to(PLAYERS["ANT"]) if subject(m) == "outremer: results of W1101B"]
    assert "Disband A Caesarea" in built.text and "Disband A Sebastea" not in built.text

    # every live player read every announcement once; the dead mailbox was tried once for each
    public = ["outremer: the game has started", "outremer: results of S1101M", "outremer: results of S1101R",
              "outremer: results of F1101M", "outremer: results of F1101R", "outremer: results of W1101B"]
    for address in [a for a in PLAYERS.values() if a != DEAD] + [GM]:
        got = Counter(subject(m) for m in relay.to(address) if subject(m).startswith("outremer: "))
        assert all(got[s] == 1 for s in public), (address, got)
        assert all(n == 1 for n in got.values()), (address, got)
    assert not relay.to(DEAD)
    assert all(Counter(a for a, _ in relay.refused)[a] == 0 for a in PLAYERS.values() if a != DEAD)

    # the game master was told: each mail the dead mailbox refused, the missed orders, the civil disorder
    gm = {subject(m): m.text for m in relay.to(GM)}
    undelivered = [s for s in gm if s.endswith(f"could not be delivered to {DEAD}")]
    assert "outremer: 'outremer: the game has started' could not be delivered to sel@dead.test" in gm
    # once a day at most, not once for each of the announcements the mailbox refused (all but the answer to its JOIN)
    days = (rig.clock.now - began).days + 1
    assert 1 <= len(undelivered) <= days and len(undelivered) < Counter(a for a, _ in relay.refused)[DEAD] - 1
    assert "mailbox disabled" in gm["outremer: 'outremer: the game has started' could not be delivered to "
                                    "sel@dead.test"]
    assert "No orders for S1101M from: SEL." in gm["outremer: no orders from SEL"]
    assert "SEL (sel@dead.test) sent no orders for 2 phases in a row" in gm["outremer: SEL is in civil disorder"]
    from bot.store import database
    with rig.db.session() as session:  # the player was told too (and it bounced)
        bounced = database.refused_to(session, service.status("outremer").id, "mail", DEAD)
    assert "outremer: SEL is in civil disorder" in [subject for _, subject in bounced]

    with capsys.disabled():
        if SHOW:
            for mail in relay.to(SHOW):
                print(f"\n===== To: {SHOW}  Subject: {subject(mail)}\n{mail.text}")

