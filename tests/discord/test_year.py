"""A whole year of a crusader game on Discord, as its seven players and its game master live it:
a vassal bought in spring and ordered in autumn, a retreat, builds and a disband, the year's end;
every message they see checked, and nothing logged as an error on the way."""

from __future__ import annotations

import logging
from datetime import timedelta

import structlog.testing

CRUSADERS = ("ANT", "BYZ", "EDE", "FAT", "JER", "SEL", "RUM")


class _Seed:
    """The game's seed, fixed: a neutral dislodged with several retreats goes where the seed says (3.4)."""

    def randrange(self, *_):
        return 206489530  # Shaizar's neutral retreats to the Syrian Desert, and is disbanded at the year's end


async def test_a_year_of_outremer_on_discord(world, caplog, ref_of, visible, monkeypatch):
    monkeypatch.setattr("bot.service.lobby.random.SystemRandom", _Seed)
    fake = world.fake
    users = dict(zip(CRUSADERS, world.players.values()))

    def season_posts() -> list[dict]:
        return [m for m in fake.bot_messages(world.results) if m["embeds"]]

    async def deadline(hours: int) -> dict:
        """The clock runs to the deadline; the season's one message in the results channel."""
        before = len(season_posts())
        world.clock.advance(timedelta(hours=hours))
        world.service.fire_due()
        await world.flush()
        posts = season_posts()
        assert len(posts) > before
        return posts[before]

    with structlog.testing.capture_logs() as events:
        async with world.running():
            resp, text = await world.answer(world.gm, "game new", {"name": "Outremer", "variant": "crusader"})
            assert "crusader, prestige rules" in text
            for power, user in users.items():
                resp, text = await world.answer(user, "join", {"game": "Outremer", "power": power})
                assert "joined" in text
            await world.answer(world.gm, "game start", {"game": "Outremer"})
            await world.flush()

            # -- spring: a vassal bought, a bid lost, a neutral dislodged --------------------------
            answer = await world.dm(users["ANT"], "VASSAL A ale BID 2\nA ant H\nA tar H\nF lat H")
            assert "✅ VASSAL A Aleppo BID 2" in answer and "Not accepted" not in answer
            answer = await world.dm(users["JER"], "bribe A ale bid 1\nA jer H\nA jer H")
            assert "✅ BRIBE A Aleppo BID 1" in answer and answer.count("✅ A Jerusalem H") == 1
            await world.dm(users["RUM"], "A ico - phr\nA anc S A ico - phr")
            answer = await world.dm(users["EDE"], "vassal A mel bid 1\nVASSAL A har BID 3")
            assert "Not accepted (1):\n❌ `vassal A mel bid 1`" in answer and "minimum bid" in answer  # cannot succeed
            assert "✅ VASSAL A Harran BID 3\n  ⚠️ conditional: " in answer  # beyond the 2 prestige held
            post = await deadline(48)
            summary = post["embeds"][0]["description"]
            assert post["embeds"][0]["title"] == "Outremer: Spring 1101 Movement (S1101M)"
            assert post["attachments"][0]["filename"] == "Outremer-S1101M.png"
            assert "ANT: VASSAL A Aleppo BID 2 — won, 2 spent" in summary and "JER: BRIBE A Aleppo BID 1 — lost" in summary
            assert "Vassal: the neutral army of Aleppo obeys The Principality of Antioch" in summary
            assert "Dislodged: A Phrygia (neutral), attacked from Iconium" in summary
            assert "**Centres · units · prestige left for 1101**" in summary
            for power in CRUSADERS:
                assert f" ({power}): " in summary  # every power, its centres, units and prestige
            at_once = season_posts()[-1]["embeds"][0]
            assert at_once["title"] == "Outremer: Spring 1101 Retreat (S1101R)"
            assert "adjudicated at once" in at_once["description"] and "Retreated: A Phrygia (neutral) to " in at_once["description"]

            # -- autumn: the vassal ordered, a power dislodged ----------------------------------
            answer = await world.dm(users["ANT"], "A ant - sha\nA ale S A ant - sha\nA tar H\nF lat H")
            assert "✅ A Aleppo S A Antioch - Shaizar" in answer and "Not accepted" not in answer
            await world.dm(users["RUM"], "A phr - nic\nA anc S A phr - nic")
            answer = await world.dm(users["BYZ"], "Nicaea H\nF con H\nA sin H\nF smy H\nF smy - aeg\nF smy - myr")
            assert "✅ A Nicaea H" in answer  # the unit type the player left out, from the board
            assert "✅ F Smyrna - Myra (replaces F Smyrna - Aegean Sea)" in answer
            assert "✅ F Smyrna - Aegean Sea (replaced by a later line)" in answer
            answer = await world.dm(users["BYZ"], "F smy H")
            assert "✅ F Smyrna H (replaces F Smyrna - Myra)" in answer
            post = await deadline(48)
            summary = post["embeds"][0]["description"]
            assert "Dislodged: A Nicaea (The Byzantine Empire), attacked from Phrygia" in summary
            assert "Dislodged: A Shaizar (neutral), attacked from Antioch" in summary
            assert "Next: Fall 1101 Retreat (F1101R)" in summary

            # -- the retreat, and the year's end ---------------------------------------------------
            resp, shown = await world.answer(users["BYZ"], "orders show", {"game": "Outremer"})
            assert resp.ephemeral and "To decide:\n· A Nicaea: retreat to " in shown and ", or disband" in shown
            assert "Lydia" in shown.split("To decide:")[1].splitlines()[1]
            answer = await world.dm(users["BYZ"], "A nic - lyd")
            assert "✅ A Nicaea retreats to Lydia" in answer
            assert "To decide" not in answer            # ordered: nothing is left to decide
            post = await deadline(24)
            summary = post["embeds"][0]["description"]
            assert "Retreated: A Nicaea (The Byzantine Empire) to Lydia" in summary
            assert "Shaizar: neutral → The Principality of Antioch" in summary and "Nicaea: The Byzantine Empire → The Seldjuks of Rum" in summary
            assert "Retreated: A Shaizar (neutral) to Syrian Desert" in summary
            assert "**The end of 1101**" in summary
            assert "Disbanded: A Syrian Desert (neutral), away from home and in no supply centre" in summary
            assert "The Principality of Antioch (ANT): 2 prestige for 1102 — 2 for 4 centres by rank (rule 2.3.1)" \
                in summary
            assert "**Centres · units · prestige for 1102**" in summary
            assert "The Seldjuks of Rum (RUM): 5 (+1) · 4 · 3" in summary
            assert "The Principality of Antioch (ANT): 4 (+1) · 3 · 2" in summary

            # -- winter: builds and a disband -------------------------------------------------------
            world.clock.advance(timedelta(hours=23))  # the reminder an hour before the deadline
            world.service.fire_due()
            await world.flush()
            reminders = {p: [t for t in world.texts_to(users[p]) if "Reminder" in t] for p in ("ANT", "BYZ", "RUM")}
            assert "To decide:\n· Units to remove: 1" in reminders["BYZ"][-1]
            assert "To decide:\n· Builds: 1, at Iconium (or waive)" in reminders["RUM"][-1]
            assert "To decide:\n· Builds: 1, at Antioch (or waive)" in reminders["ANT"][-1]
            assert not [t for t in world.texts_to(users["FAT"]) if "Winter" in t and "Reminder" in t]
            assert "✅ Build A Iconium" in await world.dm(users["RUM"], "build A ico")
            assert "✅ Build A Antioch" in await world.dm(users["ANT"], "build army antioch")
            assert "✅ Disband A Lydia" in await world.dm(users["BYZ"], "disband A lyd")
            post = await deadline(1)
            summary = post["embeds"][0]["description"]
            assert "Built: A Iconium (The Seldjuks of Rum)" in summary and "Built: A Antioch (The Principality of Antioch)" in summary
            assert "Removed: A Lydia (The Byzantine Empire)" in summary
            assert "Next: Spring 1102 Movement (S1102M)" in summary
            assert world.service.status("Outremer").phase == "S1102M"

            # -- what everyone saw ------------------------------------------------------------------
            [thread] = fake.threads(world.results)
            archived = [m for m in fake.bot_messages(thread) if m["attachments"]]
            assert [m["attachments"][0]["filename"] for m in archived] == [
                "0000-S1101M.txt", "0001-S1101R.txt", "0002-F1101M.txt", "0003-F1101R.txt", "0004-W1101B.txt"]
            assert len(season_posts()) == 5  # one message a season
            seen = fake.bot_messages(world.results) + fake.bot_messages(thread) + fake.bot_messages(world.gm)
            for user in users.values():
                seen += fake.bot_messages(user)
            for message in seen:
                assert len(message["content"]) <= 2000 and len(message["embeds"]) <= 10
                assert "-# ref" not in message["content"] and "ref " not in visible(message["content"])
                assert not message["mention_everyone"] and not message["mention_roles"]
                if message["mentions"]:
                    assert "has started" in message["content"]
            assert all(ref_of(m) for m in season_posts())
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not [e for e in events if e["log_level"] in ("error", "critical")]
