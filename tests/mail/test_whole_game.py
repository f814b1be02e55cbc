"""A game formed, started and played for a year by mail only, the game master included, over SMTP on
loopback, while a rival forges the players' addresses: a JOIN and a LEAVE in another's name, and 150
sign-ons with guessed passwords from a handful of mail systems. Nothing a forgery asks is done, the
victim's mailbox gets a handful of mails about it, and the real player signs on at once, from their
own mail system and from a new one. Every reply is read as a player reads it."""

from __future__ import annotations

import os
import re
from datetime import timedelta

import pytest

from bot.frontends.mail import passwords
from bot.service import DeadlinePolicy
from .test_year import FALL, PLAYERS as SEATS, SPRING

GM = "gm@outremer.test"
PLAYERS = {power: address.replace("dead.test", "players.test") for power, address in SEATS.items()}
INNOCENT = "bystander@players.test"
RIVALS = [f"rival{i}@{domain}" for domain in ("evil.test", "worse.test", "bad.test") for i in range(5)]
SHOW = os.environ.get("CRUSADER_SHOW_MAIL") or None  # pytest -s: what that address read
POLICY = DeadlinePolicy(movement=timedelta(hours=72), retreat=timedelta(hours=24), adjustment=timedelta(hours=24),
                        reminders=(), nmr_limit=0)


def flat(text: str) -> str:
    return " ".join(text.split())


def subject(mail) -> str:
    return str(mail.message["Subject"])


@pytest.fixture
def rig(sqlite_db, monkeypatch, open_rig):
    monkeypatch.setattr(passwords, "SCRYPT_N", 2**10)
    with open_rig(sqlite_db, archive_url="https://judge.example.org/") as rig:
        yield rig


def test_a_game_formed_started_and_played_for_a_year_by_mail_through_forgeries(rig, capsys):
    relay, service = rig.capture, rig.service
    service.create_game("outremer", "crusader", GM, policy=POLICY, seed=7)  # crusader game create, at the shell

    # a newcomer finds the game: LIST alone lists the judge's games, forming ones first, and how to join
    listed = rig.ask(PLAYERS["ANT"], "LIST")
    assert "outremer (crusader): forming, 0 of 7 powers have a player; game master gm@outremer.test" in flat(listed.text)
    assert "to join: JOIN outremer (or JOIN outremer <power>: free are ANT, BYZ" in flat(listed.text)

    # the players join by mail; a power is asked for by its code, its name's word or its adjective
    asked = {"ANT": "ANT", "BYZ": "Byzantine", "EDE": "Edessa", "FAT": "Fatimid", "JER": "JER", "RUM": "RUM"}
    for power, word in asked.items():
        reply = rig.ask(PLAYERS[power], f"JION outremer {word}" if power == "JER" else f"JOIN outremer {word}")
        if power == "JER":  # a typo is answered as a typo, not with the whole list of commands
            assert "JION is not a command of this judge; did you mean JOIN?" in flat(reply.text)
            assert "How to play by mail" not in reply.text
            reply = rig.ask(PLAYERS[power], f"JOIN outremer {word}")
        assert f"you have joined 'outremer' as {power}" in reply.text, reply.text

    # a forged LEAVE (From: ANT's address, sent from the rival's mail system) takes nobody out
    rig.mail(PLAYERS["ANT"], "LEAVE outremer", envelope=RIVALS[0])
    assert service.status("outremer").player_of("ANT").player == PLAYERS["ANT"]
    # a forged JOIN in a bystander's name takes no seat (and its answer tells the bystander why)
    forged_join = rig.ask(INNOCENT, "JOIN outremer SEL", envelope=RIVALS[1])
    assert "it was sent by another mail system (as rival1@evil.test)" in flat(forged_join.text)
    assert "someone used your address: ignore this mail, nothing was changed" in flat(forged_join.text)
    assert service.status("outremer").player_of("SEL") is None
    assert "no command waits for that token" in rig.ask(INNOCENT, "CONFIRM aaaa-bbbb-cccc").text  # no guessing
    # a stranger asking for a taken power learns that it is taken, not who plays it
    taken = rig.ask(INNOCENT, "JOIN outremer BYZ")
    assert "BYZ is taken in 'outremer'; the powers still free are SEL" in flat(taken.text)
    assert PLAYERS["BYZ"] not in taken.text

    # the last seat: the game master is told, with the game master's password
    assert "you have joined 'outremer' as SEL" in rig.ask(PLAYERS["SEL"], "JOIN outremer SEL").text
    rig.flush()
    [full] = [m for m in relay.to(GM) if subject(m) == "outremer: every power has a player"]
    gm_password = re.search(r"SIGNON GMoutremer (\S+)", full.text).group(1)
    assert "sign on as the game master and write START" in flat(full.text)

    # the game master starts the game by mail, having set a setting first
    gm = f"SIGNON GMoutremer {gm_password}\n"
    started = rig.ask(GM, gm + "SET movement 48h\nSTART\nSIGNOFF")
    assert "signed on as the game master of 'outremer' (forming" in started.text, started.text
    assert "movement changed" in started.text and "'outremer' has started: S1101M, orders due by" in flat(started.text)
    assert service.status("outremer").status == "active"
    rig.flush()
    secrets = {}
    for power, address in PLAYERS.items():
        [start] = [m for m in relay.to(address) if subject(m) == "outremer: the game has started"]
        secrets[power] = re.search(rf"SIGNON {power}outremer (\S+)", start.text).group(1)

    # a rival guesses ANT's password 150 times, From: ANT's address, from fifteen addresses at three providers
    victim = PLAYERS["ANT"]
    before = len(relay.to(victim))
    for i in range(150):
        rig.mail(victim, f"SIGNON ANToutremer guess-{i}\nA ant - ata\nSIGNOFF", envelope=RIVALS[i % len(RIVALS)])
    rig.flush()
    about = relay.to(victim)[before:]
    assert len(about) <= 3, [subject(m) for m in about]  # a handful, not 150 (the forged LEAVE's answer was one)
    forged = [m for m in relay.to(victim) if "another mail system" in m.text or "not the password" in m.text]
    assert 1 <= len(forged) <= 3, [m.text for m in forged]
    assert service.my_orders("outremer", victim).orders == ()

    def orders(season: dict[str, str], *, envelope: dict[str, str] | None = None) -> None:
        for power, text in season.items():
            sender = (envelope or {}).get(power)
            reply = rig.ask(PLAYERS[power], f"SIGNON {power}outremer {secrets[power]}\n{text}\nSIGNOFF",
                            envelope=sender)
            assert "REJECTED" not in reply.text and reply.text.count("accepted:") == len(text.splitlines()), reply.text

    # the player signs on at once, from a new mail system (travelling) as from the usual one
    told = rig.ask(victim, f"SIGNON ANToutremer {secrets['ANT']}\n{SPRING['ANT']}\nSIGNOFF", envelope="ant@travel.test")
    assert "accepted: ANT: A ant - ata" in told.text
    # the refusals held back are counted in the player's next answer: the player learns of the attack
    assert "150 other message(s) in this address's name were refused without an answer" in flat(told.text), told.text
    orders(SPRING)

    # the game master by mail: pause, resume, extend, and adjudicate without waiting for the deadline
    paused = rig.ask(GM, gm + "PAUSE")
    assert "'outremer' is paused in S1101M" in paused.text
    listed = rig.ask(PLAYERS["BYZ"], "LIST outremer")
    assert "paused; phase S1101M; the deadline is suspended until the game master resumes it" in flat(listed.text)
    assert "paused; phase S1101M" in listed.text and re.search(r"^  BYZ\s+4 centres", listed.text, re.MULTILINE), listed.text
    mine = rig.ask(PLAYERS["BYZ"], f"SIGNON BYZoutremer {secrets['BYZ']}\nLIST")
    assert "Orders standing for BYZ" in mine.text and re.search(r"^  SEL\s+3 centres\s+must order", mine.text, re.MULTILINE)
    resumed = rig.ask(GM, gm + "RESUME\nEXTEND 24h")
    assert "'outremer' has resumed" in resumed.text and "the deadline of S1101M is now" in resumed.text
    refused = rig.ask(PLAYERS["BYZ"], f"SIGNON BYZoutremer {secrets['BYZ']}\nADJUDICATE")
    assert "sign on as the game master" in refused.text or "only the game master" in refused.text
    assert "has been adjudicated" in rig.ask(GM, gm + "ADJUDICATE").text
    assert service.status("outremer").phase == "F1101M"
    orders(FALL)
    rig.ask(GM, gm + "ADJUDICATE")
    assert service.status("outremer").phase == "F1101R"
    rig.flush()
    [fall] = [m for m in relay.to(PLAYERS["RUM"]) if subject(m) == "outremer: results of F1101M"]
    assert "The season on the archive site: https://judge.example.org/outremer/F1101M.html" in fall.text
    place = re.search(r"RUM A anc: retreat to (.+), or disband", fall.text).group(1).replace(" or ", ", ").split(", ")[0]
    orders({"RUM": f"A anc - {place}"})
    rig.ask(GM, gm + "ADJUDICATE")
    assert service.status("outremer").phase == "W1101B"
    rig.flush()
    [winter] = [m for m in relay.to(PLAYERS["BYZ"]) if subject(m) == "outremer: results of F1101R"]
    builds = {}
    for power, _count, sites in re.findall(r"^  (\w{3}) builds (\d), at (.+)$", winter.text, re.MULTILINE):
        first = re.split(r", | or ", sites.strip())[0]
        builds[power] = f"Build {'F' if '/' in first else 'A'} {first}"
    builds["RUM"] = "Remove A seb"
    # the e-mail judges' spelling of the winter phase is read; lines after a phase it cannot read are not
    byz = f"SIGNON BYZoutremer {secrets['BYZ']}\n"
    njudge = rig.ask(PLAYERS["BYZ"], byz + f"PHASE W1101A\n{builds['BYZ']}\nSIGNOFF")
    assert "W1101B is the current phase" in njudge.text and "accepted: BYZ:" in njudge.text
    unread = rig.ask(PLAYERS["BYZ"], byz + "PHASE W11O1B\nA con H\nSIGNOFF")
    assert "not read: an order for W11O1B" in unread.text
    orders({p: o for p, o in builds.items() if p != "BYZ"})
    rig.ask(GM, gm + "ADJUDICATE")
    assert service.status("outremer").phase == "S1102M"

    # the game's record by mail
    history = rig.ask(INNOCENT, "HISTORY outremer")
    seasons = re.findall(r"^  ([SFW]1101[MRB]) ", history.text, re.MULTILINE)
    assert seasons == ["S1101M", "S1101R", "F1101M", "F1101R", "W1101B"], history.text
    assert re.search(r"^  W1101B\s+3\s+5\s+4\s+4\s+5\s+3\s+3 ", history.text, re.MULTILINE), history.text
    summary = rig.ask(INNOCENT, "SUMMARY outremer BYZ")
    assert "BYZ The Byzantine Empire: played, 5 centre(s)" in flat(summary.text) or "BYZ" in summary.text
    assert re.search(r"^    W1101B\s+\d+ centre\(s\)", summary.text, re.MULTILINE), summary.text
    rules = rig.ask(INNOCENT, "GET RULES")
    assert "VASSAL" in rules.text and "BRIBE" in rules.text
    press = rig.ask(PLAYERS["FAT"], f"SIGNON FAToutremer {secrets['FAT']}\nPRESS TO JER\nA cai - sid\nENDPRESS\nSIGNOFF")
    assert "Press sent in 'outremer'" in press.text and "accepted" not in press.text  # its text is never orders
    other = rig.ask(PLAYERS["FAT"], "WHOGAME outremer")
    assert "WHOGAME is a command of other e-mail judges that this judge does not have" in flat(other.text)

    # nothing a forgery asked was done: ANT played throughout, SEL is its own player's, the bystander has no seat
    view = service.status("outremer")
    assert view.player_of("ANT").player == PLAYERS["ANT"] and view.player_of("SEL").player == PLAYERS["SEL"]
    assert all(p.player != INNOCENT for p in view.players)
    assert sum(1 for m in relay.to(INNOCENT) if "another mail system" in m.text) == 1

    with capsys.disabled():
        if SHOW:
            for mail in relay.to(SHOW):
                print(f"\n===== To: {SHOW}  Subject: {subject(mail)}\n{mail.text}")


def test_a_join_from_another_mail_system_is_carried_out_once_its_address_confirms_it(sqlite_db, monkeypatch,
                                                                                       open_rig):
    monkeypatch.setattr(passwords, "SCRYPT_N", 2**10)
    with open_rig(sqlite_db) as rig:
        rig.service.create_game("outremer", "crusader", GM, seed=3)
        # a player's mail leaves through a service that sends it as another address (a forwarder)
        asked = rig.ask(PLAYERS["FAT"], "JOIN outremer Fatimids", envelope="bounces+fat@relay.test")
        token = re.search(r"CONFIRM (\S+) \(within a day\)", flat(asked.text)).group(1)
        assert rig.service.status("outremer").player_of("FAT") is None  # not yet
        stolen = rig.ask(INNOCENT, f"CONFIRM {token}")  # the token works only from the address it went to
        assert "no command waits for that token" in stolen.text and token not in stolen.text
        done = rig.ask(PLAYERS["FAT"], f"CONFIRM {token}", envelope="bounces+fat@relay.test")
        assert "confirmed: JOIN outremer ..." in done.text and "you have joined 'outremer' as FAT" in done.text
        assert token not in done.text
        assert rig.service.status("outremer").player_of("FAT").player == PLAYERS["FAT"]
        again = rig.ask(PLAYERS["FAT"], f"CONFIRM {token}")
        assert "no command waits for that token" in again.text  # used once


def test_get_map_mails_the_board_and_the_game_master_may_have_a_password_made(sqlite_db, monkeypatch, open_rig):
    monkeypatch.setattr(passwords, "SCRYPT_N", 2**10)
    with open_rig(sqlite_db, attach_maps=True) as rig:
        rig.register_game("crusade1", {"ANT": PLAYERS["ANT"]})
        got = rig.ask(INNOCENT, "GET MAP crusade1")
        assert "the map of 'crusade1' as it stands (S1101M) is attached" in got.text
        [png] = got.attachments
        assert png.get_content_type() == "image/png" and png.get_filename() == "crusade1-S1101M.png"
        assert png.get_content().startswith(b"\x89PNG")
        # a game master whose game started without filling up asks the operator for a password
        rig.service.create_game("crusade2", "crusader", GM, seed=3)
        assert rig.accounts.mail_password("crusade2", None, "GM") == GM
        rig.flush()
        [mail] = [m for m in rig.capture.to(GM) if subject(m) == "crusade2: your password for GM"]
        password = re.search(r"SIGNON GMcrusade2 (\S+)", mail.text).group(1)
        refused = rig.ask(PLAYERS["ANT"], f"SIGNON GMcrusade2 {password}\nPAUSE")  # not from the game master's address
        assert "not signed on" in refused.text and "PAUSE" not in refused.text
        gm = rig.ask(GM, f"SIGNON GMcrusade2 {password}\nPAUSE\nA ant - ata\nJOIN crusade2")
        assert "not done: game 'crusade2' is forming" in gm.text
        assert "not read: the game master gives no orders" in gm.text
