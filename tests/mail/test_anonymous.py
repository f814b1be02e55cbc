"""An anonymous game played by mail, over SMTP on loopback: until it ends, no player's name or
address appears in what the judge shows of it (mail's LIST, SUMMARY and HISTORY, every mail to its
players, the map pictures, the archive site's pages); the announcement of its end says who
played which power."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import pytest

from bot.archive.games import game_archive
from bot.frontends.mail import passwords
from bot.frontends.site.writer import SiteWriter
from bot.render.season import orders_picture, render_png, season_picture
from tests.mail.test_play import POLICY, SPRING, signed

NAMES = {"ANT": "amalric", "BYZ": "basileia", "EDE": "edessan", "FAT": "fayruz", "JER": "jocelyn", "RUM": "rukn",
         "SEL": "sanjar"}
ADDRESSES = {power: f"{name}@players.test" for power, name in NAMES.items()}
STRANGER = "stranger@elsewhere.test"


def named(text: str) -> set[str]:
    """The players' names and addresses that ``text`` holds."""
    lowered = text.lower()
    return ({a for a in ADDRESSES.values() if a in lowered}
            | {n for n in NAMES.values() if n in re.findall(r"[a-z]+", lowered)})


def site_text(root: Path) -> str:
    """Everything the archive site's pages and files say, but its pictures."""
    return "\n".join(p.read_text(encoding="utf-8") for p in sorted(root.rglob("*")) if p.is_file() and p.suffix != ".png")


@pytest.fixture
def masked(sqlite_db, monkeypatch, open_rig):
    """An anonymous game of the Crusader map, every power played by mail, on a judge that attaches
    map pictures."""
    monkeypatch.setattr(passwords, "SCRYPT_N", 2**10)  # the real cost is tested in test_accounts
    with open_rig(sqlite_db, attach_maps=True) as rig:
        rig.register_game("crusade1", ADDRESSES, policy=replace(POLICY, anonymous=True))
        rig.flush()
        yield rig


def test_an_anonymous_game_names_no_player_by_mail_in_its_pictures_or_on_its_site_until_it_ends(masked, tmp_path):
    rig = masked
    assert rig.service.status("crusade1").anonymous
    for power, orders in SPRING.items():
        assert "REJECTED" not in rig.ask(ADDRESSES[power], signed(power, orders)).text

    # what a player and a stranger can ask of the game
    mine = rig.ask(ADDRESSES["ANT"], "SIGNON ANTcrusade1 pw-ANT\nLIST\nSUMMARY\nHISTORY\nSIGNOFF\n")
    public = rig.ask(STRANGER, "LIST crusade1\nSUMMARY crusade1\nSUMMARY crusade1 FAT\nHISTORY crusade1\nLIST")
    for reply in (mine, public):
        assert "the game's status" in reply.text and "the summary is below" in reply.text, reply.text
        assert "REJECTED" not in reply.text and not named(reply.text.replace(ADDRESSES["ANT"], "")), reply.text
    # the pictures: the orders standing, the board, drawn from the game alone
    [orders] = mine.attachments
    variant, position = rig.service.board("crusade1")
    ant = [line.order for line in rig.service.my_orders("crusade1", ADDRESSES["ANT"]).orders]
    assert orders.get_content() == orders_picture(variant, position, ant)
    [board] = rig.ask(STRANGER, "GET MAP crusade1").attachments
    assert board.get_content() == render_png(variant, position)

    rig.clock.advance(timedelta(hours=48, seconds=1))   # the deadline passes
    rig.service.fire_due()
    rig.flush()
    results = rig.capture.wait(lambda m: "results of S1101M" in str(m.message["Subject"]), count=len(NAMES))
    [entry] = rig.service.history("crusade1")[1]
    season = rig.service.season("crusade1", entry.version)
    drawn = season_picture(season.variant, season.position, season.adjudication, game="crusade1")
    for mail in results:
        [picture] = mail.attachments                    # the season's picture, drawn from the game alone
        assert picture.get_content() == drawn == season.picture
    site = tmp_path / "site"
    SiteWriter(site).write_game(game_archive(rig.db, "crusade1"))
    assert (site / "crusade1" / "S1101M.html").is_file() and (site / "crusade1" / "S1101M.png").read_bytes() == drawn
    assert not named(site_text(site)), sorted(named(site_text(site)))

    # no mail to any player before the end names another
    for address in ADDRESSES.values():
        for mail in rig.capture.to(address):
            assert not named(mail.text.replace(address, "")), (address, mail.text)

    rig.service.end_game("crusade1", "gm")
    rig.flush()
    over = rig.capture.wait(lambda m: "the game is over" in str(m.message["Subject"]), count=len(NAMES))
    for mail in over:
        text = mail.text.replace("\r\n", "\n")
        assert "The game was anonymous; its players were:" in text
        assert all(f"  {power}: {address}\n" in text for power, address in ADDRESSES.items()), text
    SiteWriter(site).write_game(game_archive(rig.db, "crusade1"))
    assert not named(site_text(site))                   # the site names no players, in any game
    assert "ended" in site_text(site)
