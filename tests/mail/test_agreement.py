"""Ending a game by agreement by mail, over SMTP on loopback: the players vote a draw (DRAW, DRAW
OFF) or concede the game to one power (CONCEDE, CONCEDE OFF), and each is told where the vote
stands, why it is refused, and, when every surviving power agrees, that the game is over."""

from __future__ import annotations

import pytest

from bot.frontends.mail import passwords
from tests.mail.test_play import ADDRESSES, POLICY, POWERS, signed


def said(reply, command: str) -> str:
    """What the judge answered to the line ``command`` of a message (the lines under its echo)."""
    lines = reply.text.replace("\r\n", "\n").split("\n")
    start = lines.index(f"> {command}") + 1
    end = next((i for i in range(start, len(lines)) if lines[i].startswith(">") or not lines[i].strip()), len(lines))
    return " ".join(" ".join(lines[start:end]).split())


@pytest.fixture
def rig(sqlite_db, monkeypatch, open_rig):
    monkeypatch.setattr(passwords, "SCRYPT_N", 2**10)  # the real cost is tested in test_accounts
    with open_rig(sqlite_db) as rig:
        rig.register_game("crusade1", ADDRESSES, policy=POLICY)
        rig.flush()
        yield rig


def test_a_draw_voted_by_mail_ends_the_game_shared_by_every_surviving_power(rig):
    *first, last = POWERS
    for power in first:
        reply = rig.ask(ADDRESSES[power], signed(power, "DRAW"))
        assert said(reply, "DRAW") == ("your vote for a draw is recorded; the game ends in a draw when every "
                                       "surviving power has voted for one"), reply.text
    taken_back = rig.ask(ADDRESSES["ANT"], signed("ANT", "DRAW OFF"))
    assert said(taken_back, "DRAW OFF") == "your vote for a draw is taken back"
    assert rig.service.status("crusade1").status == "active"
    rig.ask(ADDRESSES[last], signed(last, "DRAW"))
    assert rig.service.status("crusade1").status == "active"     # ANT no longer agrees
    ended = rig.ask(ADDRESSES["ANT"], signed("ANT", "DRAW"))
    assert said(ended, "DRAW") == "every surviving power voted for a draw: the game has ended"
    view = rig.service.status("crusade1")
    assert view.status == "ended" and sorted(view.outcome["draw"]) == sorted(POWERS)

    rig.flush()
    over = rig.capture.wait(lambda m: "the game is over" in str(m.message["Subject"]), count=len(POWERS))
    assert sorted(r for m in over for r in m.rcpt_tos) == sorted(ADDRESSES.values())
    assert all("The game is over: a draw shared by " + ", ".join(sorted(POWERS)) in " ".join(m.text.split())
               for m in over), over[0].text

    late = rig.ask(ADDRESSES["BYZ"], signed("BYZ", "DRAW OFF"))
    assert said(late, "DRAW OFF") == "not done: game 'crusade1' is ended; this needs it to be active or paused"
    assert rig.service.status("crusade1").outcome["draw"]        # the end stands


def test_a_concession_by_mail_ends_the_game_with_its_winner_and_a_wrong_one_is_refused(rig):
    wrong = rig.ask(ADDRESSES["ANT"], signed("ANT", "CONCEDE\nCONCEDE ANT\nCONCEDE Narnia"))
    assert said(wrong, "CONCEDE") == "write CONCEDE and the power you concede to, or CONCEDE OFF"
    assert said(wrong, "CONCEDE ANT") == ("not done: ANT cannot concede the game to itself; the other players "
                                          "concede it to you")
    assert said(wrong, "CONCEDE Narnia").startswith("not done: 'Narnia' is not a power of crusader; its powers are ")
    others = [power for power in POWERS if power != "FAT"]
    for power in others[:-1]:
        reply = rig.ask(ADDRESSES[power], signed(power, "CONCEDE Fatimids"))
        assert said(reply, "CONCEDE Fatimids") == ("your concession to FAT is recorded; the game ends with FAT the "
                                                   "winner when every other surviving power concedes to it")
    taken_back = rig.ask(ADDRESSES["ANT"], signed("ANT", "CONCEDE OFF"))
    assert said(taken_back, "CONCEDE OFF") == "your concession is taken back"
    rig.ask(ADDRESSES[others[-1]], signed(others[-1], "CONCEDE FAT"))
    assert rig.service.status("crusade1").status == "active"     # ANT no longer concedes
    ended = rig.ask(ADDRESSES["ANT"], signed("ANT", "CONCEDE fat"))
    assert said(ended, "CONCEDE fat") == "the game has ended: FAT wins"
    view = rig.service.status("crusade1")
    assert view.status == "ended" and view.outcome == {"winner": "FAT", "conceded": sorted(others)}

    rig.flush()
    over = rig.capture.wait(lambda m: "the game is over" in str(m.message["Subject"]), count=len(POWERS))
    assert all(f"The game is over: {', '.join(sorted(others))} conceded it to FAT, who has won."
               in " ".join(m.text.split()) for m in over), over[0].text


def test_a_vote_in_a_game_not_under_way_is_refused_with_why(sqlite_db, monkeypatch, open_rig):
    monkeypatch.setattr(passwords, "SCRYPT_N", 2**10)
    with open_rig(sqlite_db) as rig:
        rig.register_game("crusade2", {"ANT": ADDRESSES["ANT"], "BYZ": ADDRESSES["BYZ"]}, start=False)
        reply = rig.ask(ADDRESSES["ANT"], signed("ANT", "DRAW\nCONCEDE BYZ", game="crusade2"))
        refusal = "not done: game 'crusade2' is forming; this needs it to be active or paused"
        assert said(reply, "DRAW") == refusal and said(reply, "CONCEDE BYZ") == refusal, reply.text
        assert rig.service.status("crusade2").status == "forming"


def test_a_power_in_civil_disorder_has_no_vote_and_shares_the_draw(sqlite_db, monkeypatch, open_rig):
    """Every survivor shares a draw (DIAS), but only the powers played vote for it: one in civil
    disorder (never played, or its player resigned) neither holds the game up nor is left out."""
    monkeypatch.setattr(passwords, "SCRYPT_N", 2**10)
    played = {power: address for power, address in ADDRESSES.items() if power != "SEL"}
    with open_rig(sqlite_db) as rig:
        rig.register_game("crusade1", played, policy=POLICY)   # SEL starts in civil disorder, nobody's
        assert rig.service.status("crusade1").player_of("SEL") is None
        rig.ask(played["FAT"], signed("FAT", "RESIGN"))
        del played["FAT"]
        *first, last = played
        for power in first:
            rig.ask(played[power], signed(power, "DRAW"))
        assert rig.service.status("crusade1").status == "active"
        ended = rig.ask(played[last], signed(last, "DRAW"))
        assert said(ended, "DRAW") == "every surviving power voted for a draw: the game has ended"
        assert sorted(rig.service.status("crusade1").outcome["draw"]) == sorted(POWERS)
