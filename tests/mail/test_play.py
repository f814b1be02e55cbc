"""Playing by mail over a real SMTP exchange on loopback: players mail the judge's listener, the
judge answers and announces through a relay that the test runs and reads."""

from __future__ import annotations

import re

from datetime import timedelta

import pytest

from bot.frontends.mail import passwords
from bot.service import DeadlinePolicy

POWERS = ("ANT", "BYZ", "EDE", "FAT", "JER", "RUM", "SEL")
ADDRESSES = {power: f"{power.lower()}@players.test" for power in POWERS}
POLICY = DeadlinePolicy(movement=timedelta(hours=48), retreat=timedelta(hours=24), adjustment=timedelta(hours=24),
                        reminders=(timedelta(hours=24),), nmr_limit=0)
SPRING = {
    "ANT": "A ant - ata\nA tar - tam\nF lat H",
    "BYZ": "A nic - lyd\nA sin H\nF con H\nF smy H",
    "EDE": "A ede - dia\nA rab H\nA tur H",
    "FAT": "A cai - sid\nA min H\nF alx H\nF dmt H",
    "JER": "A jer - heb\nA bei H\nA gal H\nF acr H",
    "RUM": "A ico - att\nA seb - erz\nA anc H\nA cae H",
    "SEL": "A bag - ara\nA bas H\nA mos H",
}


def signed(power: str, orders: str, game: str = "crusade1", password: str | None = None) -> str:
    return f"SIGNON {power}{game} {password or 'pw-' + power}\n{orders}\nSIGNOFF\n"


@pytest.fixture
def rig(sqlite_db, monkeypatch, open_rig):
    monkeypatch.setattr(passwords, "SCRYPT_N", 2**10)  # the real cost is tested in test_accounts
    with open_rig(sqlite_db) as rig:
        rig.register_game("crusade1", ADDRESSES, policy=POLICY, discord={"ANT": "discord:1001"})
        rig.flush()
        yield rig


def test_a_season_played_by_mail_reaches_every_player(judge_address, rig):
    started = rig.capture.wait(lambda m: "has started" in str(m.message["Subject"]), count=len(POWERS))
    assert {m.rcpt_tos for m in started} == {(a,) for a in ADDRESSES.values()}

    for power, orders in SPRING.items():
        reply = rig.ask(ADDRESSES[power], signed(power, orders))
        assert reply.rcpt_tos == (ADDRESSES[power],) and reply.mail_from == judge_address
        assert "REJECTED" not in reply.text, reply.text
        assert reply.text.count("accepted:") == len(orders.splitlines())
    mine = rig.service.my_orders("crusade1", "discord:1001")
    assert sorted(o.canonical for o in mine.orders) == ["ANT: A ant - ata", "ANT: A tar - tam", "ANT: F lat H"]

    rig.clock.advance(timedelta(hours=48, seconds=1))  # the deadline passes
    rig.service.fire_due()
    rig.flush()
    results = rig.capture.wait(lambda m: "results of S1101M" in str(m.message["Subject"]), count=len(POWERS))
    assert sorted(r for m in results for r in m.rcpt_tos) == sorted(ADDRESSES.values())
    for m in results:
        assert "A Antioch - Alexandretta" in m.text and "A Cairo - Sinai Desert" in m.text and "F1101M" in m.text
    assert rig.service.status("crusade1").phase == "F1101M"

    # the autumn: two powers order by mail, the game master adjudicates at once
    rig.ask(ADDRESSES["ANT"], signed("ANT", "A ata H\nA tam H"))
    rig.ask(ADDRESSES["FAT"], signed("FAT", "A sid - cai"))
    assert rig.service.force_adjudicate("crusade1", "gm") == "adjudicated"
    rig.flush()
    autumn = rig.capture.wait(lambda m: "results of F1101M" in str(m.message["Subject"]), count=len(POWERS))
    assert all("A Sinai Desert - Cairo" in m.text for m in autumn)
    assert rig.service.status("crusade1").phase != "F1101M"


def test_ready_by_mail_after_the_orders_ends_the_phase_once_every_power_is_ready(rig):
    rig.service.set_policy("crusade1", None, {"early": True})
    powers = list(SPRING)
    for power in powers[:-1]:
        reply = rig.ask(ADDRESSES[power], signed(power, SPRING[power] + "\nREADY"))
        assert "> READY\n    your orders for S1101M are marked final; the phase ends once the " in \
            reply.text.replace("\r\n", "\n"), reply.text
    # a later order takes it back, and says so; READY again
    reply = rig.ask(ADDRESSES["ANT"], signed("ANT", "F lat H"))
    assert "no longer marked final: write READY again" in " ".join(reply.text.split()), reply.text
    assert not rig.service.status("crusade1").player_of("ANT").ready
    rig.ask(ADDRESSES["ANT"], signed("ANT", "READY"))
    last = powers[-1]
    reply = rig.ask(ADDRESSES[last], signed(last, SPRING[last] + "\nREADY"))
    assert "every power was ready, and S1101M has been adjudicated" in " ".join(reply.text.split()), reply.text
    assert rig.service.status("crusade1").phase == "F1101M"
    rig.flush()
    rig.capture.wait(lambda m: "results of S1101M" in str(m.message["Subject"]), count=len(POWERS))
    reply = rig.ask(ADDRESSES["BYZ"], signed("BYZ", "READY OFF"))
    assert "your orders for F1101M are no longer marked final" in reply.text
    reply = rig.ask(ADDRESSES["BYZ"], signed("BYZ", "READY NOW"))
    assert "write READY when your orders are final, or READY OFF" in " ".join(reply.text.split())


def test_mixed_good_and_bad_lines_are_answered_line_by_line(rig):
    reply = rig.ask(ADDRESSES["JER"], signed("JER", "A jer - heb\nA jer - xyzzy\nF acr - jaf\nA gal - egypt-ish\n"
                                                    "F bei - baa"))
    lines = reply.text.splitlines()
    assert "> SIGNON JERcrusade1 ********" in lines
    answer = {lines[i][2:]: lines[i + 1].strip() for i, line in enumerate(lines[:-1]) if line.startswith("> ")}
    assert answer["A jer - heb"] == "accepted: JER: A jer - heb"
    assert answer["F acr - jaf"] == "accepted: JER: F acr - jaf"
    assert answer["A jer - xyzzy"].startswith("REJECTED:") and "xyzzy" in reply.text
    assert answer["A gal - egypt-ish"].startswith("REJECTED:")
    assert answer["F bei - baa"].startswith("REJECTED:")  # an army, not a fleet
    far = rig.ask(ADDRESSES["JER"], signed("JER", "A jer - dms"))
    assert "REJECTED: not adjacent" in far.text and "(would be accepted: acr, asc, gal, heb, jaf, oul)" in far.text
    standing = lines[lines.index("Orders standing for JER in 'crusade1', S1101M:") + 1:]
    assert standing[:2] == ["  JER: A jer - heb", "  JER: F acr - jaf"]


def test_later_orders_replace_earlier_ones_whoever_sends_them(rig):
    rig.ask(ADDRESSES["ANT"], signed("ANT", "A ant - ata\nA tar - tam"))
    # the same power's player on Discord changes one order through the service
    rig.service.submit_orders("crusade1", "discord:1001", "A ant - ala")
    reply = rig.ask(ADDRESSES["ANT"], signed("ANT", "A tar - cap\nA tar - sel\nLIST"))
    assert "accepted: ANT: A tar - cap (then replaced by a later order for the same unit)" in reply.text
    assert "    accepted: ANT: A tar - sel" in reply.text.splitlines()
    assert "  ANT: A ant - ala" in reply.text and "  ANT: A tar - sel" in reply.text
    assert "A tar - tam" not in reply.text.split("Orders standing")[1]
    mine = rig.service.my_orders("crusade1", "discord:1001")
    assert sorted(o.canonical for o in mine.orders) == ["ANT: A ant - ala", "ANT: A tar - sel"]
    assert "ANT" in {p.power for p in rig.service.status("crusade1").players if p.has_orders}
    moved = rig.ask(ADDRESSES["ANT"], signed("ANT", "A tar - tam"))  # an order of an earlier message: named
    assert "accepted: ANT: A tar - tam (in place of A tar - sel)" in moved.text


def test_reminders_go_by_mail_to_the_powers_without_orders(rig):
    for power in ("ANT", "BYZ"):
        rig.ask(ADDRESSES[power], signed(power, SPRING[power]))
    rig.clock.advance(timedelta(hours=24, seconds=1))
    rig.service.fire_due()
    rig.flush()
    reminded = rig.capture.wait(lambda m: "orders due" in str(m.message["Subject"]), count=len(POWERS) - 2)
    assert sorted(r for m in reminded for r in m.rcpt_tos) == sorted(
        ADDRESSES[p] for p in POWERS if p not in ("ANT", "BYZ"))
    assert all("S1101M" in m.text for m in reminded)
    [ede] = [m for m in reminded if m.rcpt_tos == (ADDRESSES["EDE"],)]  # what its power has still to decide
    assert "EDE has still to decide, in S1101M:\n  Units to order: A Edessa, A Raban, A Turbessel" in \
        ede.text.replace("\r\n", "\n"), ede.text
    rig.flush()  # delivered again after a restart would be: mailed once per address all the same
    assert len(rig.capture.wait(lambda m: "orders due" in str(m.message["Subject"]), count=1)) == len(POWERS) - 2


def test_list_shows_the_game_and_the_powers_orders(rig):
    rig.ask(ADDRESSES["SEL"], signed("SEL", "A bag - ara"))
    reply = rig.ask(ADDRESSES["SEL"], "SIGNON SELcrusade1 pw-SEL\nLIST\nSIGNOFF\n")
    assert "Game 'crusade1' (crusader), active; phase S1101M" in reply.text
    assert "  SEL: A bag - ara" in reply.text
    public = rig.ask("stranger@elsewhere.test", "LIST crusade1")
    assert "Game 'crusade1'" in public.text and "SEL: A bag - ara" not in public.text
    # deadlines in the game's time zone first, as its announcements show them, and UTC after
    rig.service.set_policy("crusade1", "gm", {"timezone": "Europe/Paris"})
    text = rig.ask(ADDRESSES["SEL"], "SIGNON SELcrusade1 pw-SEL\nLIST\nSIGNOFF\n").text
    local = r"\w{3} \d\d \w{3} \d{4} \d\d:\d\d CES?T \(\w{3} \d\d \w{3} \d{4} \d\d:\d\d UTC\)"
    assert re.search("; deadline " + local + "; game master", text) and re.search("Deadline: " + local, text), text


def test_orders_for_a_later_phase_are_refused_clearly(rig):
    reply = rig.ask(ADDRESSES["EDE"], signed("EDE", "PHASE F1101M\nA ede - dia\nPHASE S1101M\nA tur H"))
    assert "does not yet accept orders for a later phase (F1101M)" in reply.text
    assert "not read: an order for F1101M" in reply.text
    assert "accepted: EDE: A tur H" in reply.text
    mine = rig.service.my_orders("crusade1", ADDRESSES["EDE"])
    assert [o.canonical for o in mine.orders] == ["EDE: A tur H"]


def test_a_phase_the_judge_cannot_read_is_answered_with_phases_it_can(rig):
    from adjudicator.vocab import Phase

    reply = rig.ask(ADDRESSES["EDE"], signed("EDE", "PHASE X1101Q\nA tur H\nPHASE S1101M\nA rab H"))
    assert "'X1101Q' is not a phase" in reply.text
    examples = re.search(r"phases are written like (\S+), (\S+) or (\S+) ", reply.text)
    assert examples, reply.text
    for example in examples.groups():
        assert Phase.parse(example).year == 1101
    # the order lines after a phase the judge cannot read are not taken for the current phase
    assert "not read: an order for X1101Q" in reply.text and "accepted: EDE: A tur H" not in reply.text
    assert "accepted: EDE: A rab H" in reply.text
    # the e-mail judges' spelling of a winter (W1101A) is read as this judge's (W1101B)
    njudge = rig.ask(ADDRESSES["EDE"], signed("EDE", "PHASE W1101A\nA tur H"))
    assert "does not yet accept orders for a later phase (W1101B)" in " ".join(njudge.text.split())
    assert "accepted: EDE: A tur H" not in njudge.text


def test_a_player_changes_the_password_and_the_old_one_stops_working(rig):
    reply = rig.ask(ADDRESSES["RUM"], "SIGNON RUMcrusade1 pw-RUM\nSET PASSWORD brand-new\nSIGNOFF")
    assert "> SET PASSWORD ********" in reply.text and "brand-new" not in reply.text
    refused = rig.ask(ADDRESSES["RUM"], signed("RUM", "A ico - att"))
    assert "not signed on" in refused.text and "accepted" not in refused.text
    accepted = rig.ask(ADDRESSES["RUM"], signed("RUM", "A ico - att", password="brand-new"))
    assert "accepted: RUM: A ico - att" in accepted.text


def test_resigning_withdraws_the_orders_and_leaves_the_power_in_civil_disorder(rig):
    rig.ask(ADDRESSES["FAT"], signed("FAT", "A cai - sid\nF alx H"))
    reply = rig.ask(ADDRESSES["FAT"], signed("FAT", "RESIGN\nA min H"))
    assert "you have resigned FAT in 'crusade1': its orders are withdrawn" in " ".join(reply.text.split())
    assert "not read: you have resigned the power" in reply.text
    assert rig.service.status("crusade1").player_of("FAT").status == "removed"
    assert rig.service.orders_of_power("crusade1", None, "FAT") == []  # its units hold
    again = rig.ask(ADDRESSES["FAT"], signed("FAT", "A cai - sid"))
    assert "not signed on" in again.text
    rig.service.force_adjudicate("crusade1", "gm")
    rig.flush()
    assert not [m for m in rig.capture.to(ADDRESSES["FAT"]) if "results" in str(m.message["Subject"])]


def test_words_after_signoff_are_a_remark_and_list_says_what_follows(rig):
    reply = rig.ask(ADDRESSES["ANT"], "SIGNON ANTcrusade1 pw-ANT\nA ant - ata\nLIST crusade1\n"
                                      "SIGNOFF please adjudicate soon\nthanks")
    lines = reply.text.splitlines()
    assert "> SIGNOFF ..." in lines and "REJECTED" not in reply.text and "takes nothing" not in reply.text
    assert "signed off (what follows SIGNOFF is not read; write to the game master for anything else)" in reply.text
    assert "the game's status and your orders are below" in reply.text
    assert "the game's status is below" in rig.ask("stranger@elsewhere.test", "LIST crusade1").text


def test_a_bribes_unit_line_is_read_with_it(rig):
    reply = rig.ask(ADDRESSES["ANT"], signed("ANT", "BRIBE A ale BID 2\nA ale H\nA ant - ata"))
    answer = {line: nxt.strip() for line, nxt in zip(reply.text.splitlines(), reply.text.splitlines()[1:])}
    assert answer["> BRIBE A ale BID 2"].startswith("accepted: ANT: BRIBE A ale BID 2 A ale H")
    assert answer["> A ale H"] == "read with the BRIBE above: the bribed unit's order, A ale H"
    assert "not an order" not in reply.text
    refused = rig.ask(ADDRESSES["ANT"], signed("ANT", "BRIBE A ale BID 2\nA ale - ala"))
    answer = {line: nxt.strip() for line, nxt in zip(refused.text.splitlines(), refused.text.splitlines()[1:])}
    assert answer["> BRIBE A ale BID 2"].startswith("REJECTED: a bribed unit may only hold, support or convoy")
    assert answer["> A ale - ala"] == "read with the BRIBE above: refused with it"


def test_a_message_of_more_than_400_lines_says_what_was_not_read(rig):
    body = "SIGNON ANTcrusade1 pw-ANT\n" + "A ant - ata\n" * 398 + "A tar - tam\n" + "F lat H\n" * 25
    reply = rig.ask(ADDRESSES["ANT"], body)
    assert ("Note: the judge reads a message up to its 400th line: the 25 line(s) after it were not read"
            in " ".join(reply.text.split()))
    mine = rig.service.my_orders("crusade1", "discord:1001")
    assert sorted(o.canonical for o in mine.orders) == ["ANT: A ant - ata", "ANT: A tar - tam"]


def test_an_html_only_reply_with_quotes_and_a_signature_is_read(judge_address, rig):
    html = ("<html><body><p>SIGNON EDEcrusade1 pw-EDE</p><div>A ede - dia<br>A rab H</div>"
            "<p>SIGNOFF</p><blockquote>A tur - rav</blockquote></body></html>")
    from email import policy
    from email.message import EmailMessage
    from email.utils import make_msgid
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = ADDRESSES["EDE"], judge_address, "Re: spring"
    msg["Message-ID"] = make_msgid(domain="players.test")
    msg.set_content(html, subtype="html")
    assert rig.send_raw(msg.as_bytes(policy=policy.SMTP), mail_from=ADDRESSES["EDE"]) == 250
    reply = rig.reply(msg["Message-ID"])
    assert "its HTML was read as text" in reply.text
    assert "accepted: EDE: A ede - dia" in reply.text and "accepted: EDE: A rab H" in reply.text
    text = ("Sorry, one more:\n\nSIGNON EDEcrusade1 pw-EDE\nA tur H\n\n-- \nEd\nA rab - rav\n\n"
            "On Mon, Ed wrote:\n> SIGNON EDEcrusade1 pw-EDE\n> A tur - rav\n")
    quoted = rig.ask(ADDRESSES["EDE"], text)
    assert "accepted: EDE: A tur H" in quoted.text and "rav" not in quoted.text.split("Orders standing")[0]
    mine = rig.service.my_orders("crusade1", ADDRESSES["EDE"])
    assert sorted(o.canonical for o in mine.orders) == ["EDE: A ede - dia", "EDE: A rab H", "EDE: A tur H"]


def test_a_bug_while_carrying_out_a_message_is_logged_and_the_player_gets_an_apology(rig, monkeypatch):
    """Only the judge's own refusals are the writer's to fix: any other error is the judge's fault,
    logged with its traceback; the reply says so, and keeps what was done before it."""
    from structlog.testing import capture_logs

    from bot.frontends.mail.conversation import BUG_APOLOGY

    def broken(*args, **kwargs):
        raise ValueError("a bug that happens to be a ValueError")

    monkeypatch.setattr(rig.service, "submit_orders", broken)
    with capture_logs() as events:
        reply = rig.ask(ADDRESSES["BYZ"], signed("BYZ", "A nic - lyd\nA sin H"))
    assert "signed on as BYZ" in reply.text
    assert " ".join(BUG_APOLOGY.split()) in " ".join(reply.text.split())
    assert "REJECTED" not in reply.text and "a bug that happens" not in reply.text
    [event] = [e for e in events if e["event"] == "a message not carried out to its end"]
    assert event["log_level"] == "error" and event["exc_info"] is True


@pytest.fixture
def pictured(sqlite_db, monkeypatch, open_rig):
    """The game of ``rig`` on a judge that attaches map pictures (the setting's default)."""
    monkeypatch.setattr(passwords, "SCRYPT_N", 2**10)
    with open_rig(sqlite_db, attach_maps=True) as rig:
        rig.register_game("crusade1", ADDRESSES, policy=POLICY)
        rig.flush()
        yield rig


def test_list_attaches_the_powers_own_orders_drawn_on_the_board(pictured):
    """LIST, signed on, answers with the power's standing orders drawn on the board (the picture
    only its player receives); a public LIST, or a power with no orders, carries none."""
    from bot.render.season import orders_picture

    rig = pictured
    rig.ask(ADDRESSES["SEL"], signed("SEL", "A bag - ara"))
    rig.ask(ADDRESSES["ANT"], signed("ANT", "A ant - ata"))
    reply = rig.ask(ADDRESSES["SEL"], "SIGNON SELcrusade1 pw-SEL\nLIST\nSIGNOFF\n")
    [picture] = reply.attachments
    assert picture.get_content_type() == "image/png"
    assert picture.get_filename() == "crusade1-S1101M-SEL-orders.png"
    variant, position = rig.service.board("crusade1")
    mine = [line.order for line in rig.service.my_orders("crusade1", ADDRESSES["SEL"]).orders]
    theirs = [line.order for line in rig.service.my_orders("crusade1", ADDRESSES["ANT"]).orders]
    assert picture.get_content() == orders_picture(variant, position, mine)
    assert picture.get_content() != orders_picture(variant, position, mine + theirs)
    assert rig.ask("stranger@elsewhere.test", "LIST crusade1").attachments == []
    assert rig.ask(ADDRESSES["EDE"], "SIGNON EDEcrusade1 pw-EDE\nLIST\nSIGNOFF\n").attachments == []
    # orders without LIST: the usual reply, no picture
    assert rig.ask(ADDRESSES["SEL"], signed("SEL", "A bag - ara")).attachments == []


def test_a_start_mailed_after_the_first_season_shows_the_board_it_was_written_at(sqlite_db, monkeypatch, open_rig):
    """The judge was down from the start to after the first season: the start still shows the
    opening board (its units where they began), and the results the board after them."""
    monkeypatch.setattr(passwords, "SCRYPT_N", 2**10)
    with open_rig(sqlite_db) as rig:
        rig.register_game("crusade1", {"ANT": "ant@players.test", "BYZ": "byz@players.test"})
        rig.service.submit_orders("crusade1", "ant@players.test", "A ant - ata")
        rig.service.force_adjudicate("crusade1", "gm")
        rig.flush()
        [start] = rig.capture.wait(lambda m: "has started" in str(m.message["Subject"])
                                   and m.rcpt_tos == ("ant@players.test",))
        [results] = rig.capture.wait(lambda m: "results of S1101M" in str(m.message["Subject"])
                                     and m.rcpt_tos == ("ant@players.test",))
        units = lambda text: next(line for line in text.replace("\r\n", "\n").splitlines()  # noqa: E731
                                  if line.strip().startswith("ANT 3:"))
        assert "A ant" in units(start.text) and "A ata" not in units(start.text)
        assert "A ata" in units(results.text)
