"""Press by mail over real SMTP on loopback: PRESS TO ... ENDPRESS, BROADCAST, grey press, HISTORY
PRESS, each answered in the reply, each delivered to exactly its recipients' addresses."""

from __future__ import annotations

import re

import pytest

from bot.frontends.mail import passwords
from bot.frontends.mail.commands import read_script
from bot.service import DeadlinePolicy

POWERS = ("ANT", "BYZ", "EDE", "FAT")
ADDRESSES = {power: f"{power.lower()}@players.test" for power in POWERS}


def signed(power: str, body: str) -> str:
    return f"SIGNON {power}parley pw-{power}\n{body}\nSIGNOFF\n"


@pytest.fixture
def rig(sqlite_db, monkeypatch, open_rig):
    monkeypatch.setattr(passwords, "SCRYPT_N", 2**10)
    with open_rig(sqlite_db) as rig:
        rig.register_game("parley", ADDRESSES, policy=DeadlinePolicy(press="grey"))
        rig.flush()
        rig.capture.wait(lambda m: "has started" in str(m.message["Subject"]), count=len(POWERS))
        rig.capture.messages.clear()
        yield rig


def _press_to(rig, address: str) -> list[str]:
    return [m.text for m in rig.capture.to(address) if "press in" in str(m.message["Subject"])]


def test_a_block_of_press_is_one_command_and_orders_after_it_are_read_as_orders():
    from bot.frontends.mail import press  # noqa: F401  (its commands in the table)

    script = read_script("PRESS TO BYZ EDE\nA ant - ata\nsecond line\nENDPRESS\nA tar - tam\n")
    assert [c.kind for c in script.commands] == ["press", "order"]
    assert script.commands[0].args == ("BYZ EDE", "") and script.commands[0].body == ("A ant - ata", "second line")
    script = read_script("BROADCAST GREY\nhello\nENDPRESS\nSIGNOFF\nignored")
    assert [c.kind for c in script.commands] == ["broadcast", "signoff"]
    assert script.commands[0].args == ("ALL", "anonymous")
    assert read_script("PRESS\nhi\nENDPRESS").commands[0].error.startswith("say whom the press is for")
    assert read_script("HISTORY PRESS").commands[0].kind == "history"


def test_press_by_mail_reaches_exactly_its_recipients_and_the_sender_is_told_where_it_went(rig):
    reply = rig.ask(ADDRESSES["ANT"], signed("ANT", "PRESS TO BYZ EDE JER\nShall we ally?\nYours, Antioch\nENDPRESS\n"
                                                   "A ant - ata"))
    assert "Press sent in 'parley' (S1101M) to BYZ, EDE, as ANT." in reply.text
    assert "Not sent to JER: nobody plays JER." in reply.text
    assert "accepted: ANT: A ant - ata" in reply.text
    rig.flush()
    for power in ("BYZ", "EDE"):
        [text] = _press_to(rig, ADDRESSES[power])
        assert re.search(r"from The Principality of Antioch \(ANT\) to [^\n]+ \(BYZ\), [^\n]+ \(EDE\):", text)
        assert "Yours, Antioch" in text
        assert ADDRESSES["ANT"] not in text
    assert not _press_to(rig, ADDRESSES["FAT"]) and not _press_to(rig, ADDRESSES["ANT"])


def test_grey_broadcast_and_history_by_mail(rig):
    reply = rig.ask(ADDRESSES["FAT"], signed("FAT", "BROADCAST GREY\nThe Seldjuks are coming.\nENDPRESS"))
    assert "to everyone, anonymously" in reply.text
    rig.flush()
    for power in ("ANT", "BYZ", "EDE"):
        [text] = _press_to(rig, ADDRESSES[power])
        assert "from an anonymous power to everyone" in text and "FAT" not in text and "Fatimid" not in text
    reply = rig.ask(ADDRESSES["BYZ"], signed("BYZ", "HISTORY PRESS"))
    assert "from an anonymous power to everyone" in reply.text and "The Seldjuks are coming." in reply.text
    reply = rig.ask(ADDRESSES["FAT"], signed("FAT", "HISTORY PRESS"))
    assert "sent to everyone (anonymously)" in reply.text


def test_press_refused_under_the_rules_is_answered_and_a_stranger_sends_none(rig):
    rig.service.set_policy("parley", "gm", {"press": "none"})
    reply = rig.ask(ADDRESSES["ANT"], signed("ANT", "PRESS TO BYZ\nhello\nENDPRESS"))
    assert "not sent:" in reply.text and "no press between players" in reply.text
    reply = rig.ask("nobody@players.test", "PRESS TO BYZ\nspam spam\nENDPRESS\n")
    assert "spam" not in reply.text
    rig.flush()
    assert not _press_to(rig, ADDRESSES["BYZ"])


def test_a_dead_mailbox_holds_up_no_other_recipient_and_nothing_is_lost_across_a_restart(sqlite_db, monkeypatch,
                                                                                      open_rig, picky_relay):
    monkeypatch.setattr(passwords, "SCRYPT_N", 2**10)
    picky_relay.refuse[ADDRESSES["BYZ"]] = "550 5.1.1 no such user"
    with open_rig(sqlite_db, capture=picky_relay) as rig:
        rig.register_game("parley", ADDRESSES)
        rig.flush()
        rig.dispatcher.wind_down()  # the judge stops before delivering what follows
        rig.service.send_press("parley", ADDRESSES["ANT"], "ALL", "Anyone for an alliance?")
    with open_rig(sqlite_db, capture=picky_relay) as rig:  # started again on the same database
        rig.flush()
        got = [m for m in picky_relay.messages if "press in" in str(m.message["Subject"])]
        assert sorted(r for m in got for r in m.rcpt_tos) == [ADDRESSES["EDE"], ADDRESSES["FAT"]]
        assert (ADDRESSES["BYZ"], "550 5.1.1 no such user") in picky_relay.refused


def test_the_game_master_by_mail_sets_the_press_rules_and_answers_press(sqlite_db, monkeypatch, open_rig):
    monkeypatch.setattr(passwords, "SCRYPT_N", 2**10)
    gm = "master@players.test"
    with open_rig(sqlite_db) as rig:
        rig.service.create_game("parley", "crusader", gm, seed=11)
        for power, address in ADDRESSES.items():
            rig.service.join("parley", address, power)
            rig.accounts.register("parley", None, power, address=address, password=f"pw-{power}")
        rig.service.start("parley", gm, fill_civil_disorder=True)
        rig.accounts.mail_password("parley", None, "GM")
        rig.flush()
        [mail] = [m for m in rig.capture.to(gm) if "your password for GM" in str(m.message["Subject"])]
        password = re.search(r"SIGNON GMparley (\S+)", mail.text).group(1)
        reply = rig.ask(ADDRESSES["BYZ"], signed("BYZ", "PRESS TO GM\nMay I build at sea?\nENDPRESS"))
        assert "to the game master, as BYZ" in reply.text
        reply = rig.ask(gm, f"SIGNON GMparley {password}\nSET press none\nPRESS TO BYZ\nNo.\nENDPRESS\nHISTORY PRESS")
        assert "Press sent in 'parley' (S1101M) to BYZ, as the game master." in reply.text, reply.text
        assert "from BYZ to GM" in reply.text and "May I build at sea?" in reply.text
        assert rig.service.policy_of("parley").press == "none"
        rig.flush()
        [answer] = _press_to(rig, ADDRESSES["BYZ"])
        assert "from the game master to" in answer and "No." in answer
