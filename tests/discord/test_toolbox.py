"""A year of a crusader game run by a game master who uses nothing but slash commands: settings
chosen at creation and changed on the way, phases ended early once every power said "ready", a
retreat and a winter whose powers are told by DM what they have to decide when the phase begins, a
build changed twice, a player removed and another replaced (each told at once, and told why when
they try to play on), a rollback whose results say they are new. Every post and DM is checked, and
printed (``pytest -s``) as the players read it."""

from __future__ import annotations

import logging
from datetime import timedelta

import structlog.testing

from bot.frontends.discord import refs

CRUSADERS = ("ANT", "BYZ", "EDE", "FAT", "JER", "SEL", "RUM")


class _Seed:
    """The game's seed, fixed: a neutral dislodged with several retreats goes where the seed says (3.4)."""

    def randrange(self, *_):
        return 206489530  # Shaizar's neutral retreats to the Syrian Desert, and is disbanded at the year's end


def transcript(fake, places: dict[str, object]) -> str:
    """Every message of the bot in these places, as a reader sees it: text, embeds, files."""
    out = []
    for label, place in places.items():
        out.append(f"===== {label} =====")
        for m in fake.bot_messages(place):
            if not m["content"] and not m["embeds"] and not m["attachments"]:
                continue  # an answer deferred ("thinking..."), given in the message that follows
            if m["flags"] & 64:
                out.append(f"(only {m['interaction_metadata']['user']['username']} sees this)")
            text = refs.unmark(m["content"])[0].strip()
            if text:
                out.append(text)
            for embed in m["embeds"]:
                out.append(f"[embed] {embed.get('title', '')}\n{embed.get('description', '')}")
            for attachment in m["attachments"]:
                out.append(f"[file] {attachment['filename']}")
            out.append("-----")
    return "\n".join(out)


async def test_a_game_masters_year_with_slash_commands_only(world, caplog, monkeypatch):
    monkeypatch.setattr("bot.service.lobby.random.SystemRandom", _Seed)
    fake = world.fake
    users = dict(zip(CRUSADERS, world.players.values()))
    newcomer = fake.add_user("newcomer")
    fake.add_member(world.guild, newcomer)
    gm = world.gm

    def posts() -> list[dict]:
        return fake.bot_messages(world.results)

    def season_posts() -> list[dict]:
        return [m for m in posts() if m["embeds"]]

    def dms(user) -> list[str]:
        return [refs.unmark(m["content"])[0] for m in fake.bot_messages(user)]

    async def ready_all(powers) -> str:
        """Each power's player says its orders are final; the last answer."""
        text = ""
        for power in powers:
            resp, text = await world.answer(users[power], "ready", {"game": "Outremer"})
            assert resp.ephemeral and "are final" in text, (power, text)
        await world.flush()
        return text

    with structlog.testing.capture_logs() as events:
        async with world.running():
            # -- the game made with its settings, one of them changed before the start ------------------
            resp, text = await world.answer(gm, "game new", {
                "name": "Outremer", "variant": "crusader", "early": True, "reminders": "24h, 1h", "nmr_limit": 3,
                "retreat": "24h", "adjustment": "24h"})
            assert "crusader, prestige rules" in text
            assert "• early adjudication: on (as soon as every power that must decide has marked its orders ready)" \
                   in text and "• NMR limit: 3 (" in text and "• grace after a missed deadline: none" in text
            resp, text = await world.answer(gm, "game settings", {"game": "Outremer"})
            assert resp.ephemeral and text.startswith("Settings of 'Outremer'") and "• movement phases: 2d" in text
            resp, text = await world.answer(gm, "game settings", {"game": "Outremer", "grace": "6h"})
            assert resp.ephemeral and "• grace after a missed deadline: none → 6h" in text
            resp, text = await world.answer(gm, "game settings", {"game": "Outremer", "reminders": "soon"})
            assert resp.ephemeral and "a reminder must be a number and a unit" in text
            await world.flush()
            [changed] = [m for m in posts() if "settings changed" in m["content"]]
            assert "grace after a missed deadline: none -> 6h" in changed["content"]
            for power, user in users.items():
                resp, text = await world.answer(user, "join", {"game": "Outremer", "power": power})
                assert "joined" in text
            resp, text = await world.answer(gm, "game start", {"game": "Outremer"})
            assert "is active" in text
            resp, text = await world.answer(newcomer, "join", {"game": "Outremer"})
            assert f"'Outremer' is under way: <@{newcomer.id}> is on its waiting list (1 waiting)" in text
            resp, text = await world.answer(newcomer, "status", {"game": "Outremer"})
            assert f"Waiting list: <@{newcomer.id}>" in text and "(power to be drawn)" not in text
            resp, text = await world.answer(gm, "game assign", {"game": "Outremer", "player": newcomer})
            assert resp.ephemeral and text == ("'Outremer' is under way (S1101M); /game assign is not for a game in "
                                               "that state: to give one of its powers to a player now, use "
                                               "`/game replace`.")
            await world.flush()
            [started] = [m for m in posts() if "has started" in m["content"]]
            assert "Early adjudication is on" in started["content"]

            # -- spring: orders, "ready", one taken back by a new order, the phase ended early ------------
            await world.dm(users["ANT"], "VASSAL A ale BID 2\nA ant H\nA tar H\nF lat H")
            await world.dm(users["JER"], "bribe A ale bid 1\nA jer H")
            await world.dm(users["RUM"], "A ico - phr\nA anc S A ico - phr")
            await world.dm(users["EDE"], "VASSAL A har BID 3")
            resp, text = await world.answer(users["ANT"], "ready", {"game": "Outremer"})
            assert text.startswith("✅ Your orders for Spring 1101 Movement (S1101M) in 'Outremer' are final.")
            assert "the other 6 powers that must decide are ready too" in text
            answer = await world.dm(users["ANT"], "F lat H")
            assert "you are no longer ready: `/ready` once they are" in answer
            resp, text = await world.answer(users["FAT"], "status", {"game": "Outremer"})
            assert "📝 The Principality of Antioch" in text and "⏳ The Fatimid Caliphate" in text
            before = len(season_posts())
            text = await ready_all(CRUSADERS)
            assert "Every power was ready: S1101M has been adjudicated" in text
            assert world.service.status("Outremer").phase == "F1101M"
            assert world.clock.now == world.service.status("Outremer").deadline_at - timedelta(hours=48)  # early
            spring = season_posts()[before]["embeds"][0]
            assert spring["title"] == "Outremer: Spring 1101 Movement (S1101M)"
            assert "Vassal: the neutral army of Aleppo obeys The Principality of Antioch" in spring["description"] and "No orders from" not in spring["description"]

            # -- a setting changed on the way: from the next phase -----------------------------------------
            resp, text = await world.answer(gm, "game settings", {"game": "Outremer", "movement": "36h"})
            assert "• movement phases: 2d → 1d12h" in text and "keeps its deadline" in text

            # -- a player removed, another replaced: each told at once --------------------------------------
            resp, text = await world.answer(gm, "game kick", {"game": "Outremer", "power": "SEL"})
            assert "has been removed from 'Outremer' (told by DM)" in text and not resp.ephemeral
            resp, text = await world.answer(gm, "game replace", {"game": "Outremer", "power": "EDE",
                                                                 "player": newcomer})
            assert text == f"The County of Edessa in 'Outremer' is now played by <@{newcomer.id}>."
            assert [int(u["id"]) for u in resp.message["mentions"]] == [newcomer.id]
            await world.flush()
            assert dms(users["SEL"])[-1] == (
                "The game master has removed you from The Seldjuks of the East in 'Outremer': you no longer play "
                "in the game, and The Seldjuks of the East is in civil disorder (its units hold) until it has a new "
                "player.")
            assert dms(users["EDE"])[-1] == ("The game master has given The County of Edessa in 'Outremer' to another "
                                             "player: you no longer play in the game.")
            assert dms(newcomer)[-1].startswith(
                "The game master has given you The County of Edessa in 'Outremer': you play it from now on.\n"
                "In Fall 1101 Movement (F1101M) it has to decide:\n  · Units to order: ")
            [removed] = [m for m in posts() if "SEL has been removed; the power is in civil disorder" in m["content"]]
            assert not removed["mentions"]  # the removed player is not pinged
            [replaced] = [m for m in posts() if "EDE has a new player" in m["content"]]
            assert [int(u["id"]) for u in replaced["mentions"]] == [newcomer.id]
            resp, text = await world.answer(gm, "status", {"game": "Outremer"})
            assert "\n— The Seldjuks of the East: no player · 3 centres · removed" in text
            assert f"The County of Edessa: <@{newcomer.id}>" in text and "Waiting list" not in text
            # ...and told what happened when they try to play on, in their own words, without a mention
            resp, text = await world.answer(users["SEL"], "draw", {"game": "Outremer"})
            assert resp.ephemeral and text.startswith("The game master removed you from The Seldjuks of the East in "
                                                      "'Outremer': you no longer play in it")
            answer = await world.dm(users["SEL"], "A bag H")
            assert answer.startswith("The game master removed you from") and "<@" not in answer
            answer = await world.dm(users["EDE"], "A ede H")
            assert answer.startswith("The game master gave The County of Edessa in 'Outremer' to another player: "
                                     "you no longer play in it. You play in no other running game")
            assert "<@" not in answer
            resp, text = await world.answer(users["EDE"], "orders show", {"game": "Outremer"})
            assert text.startswith("The game master gave The County of Edessa") and "<@" not in text
            resp, text = await world.answer(users["EDE"], "ready")  # no game named: the one they were in
            assert text == ("The game master gave The County of Edessa in 'Outremer' to another player: you no "
                            "longer play in it. You are in no other game.")

            # -- autumn: the removed power is not waited for ----------------------------------------------------
            await world.dm(users["ANT"], "A ant - sha\nA ale S A ant - sha\nA tar H\nF lat H")
            await world.dm(users["RUM"], "A phr - nic\nA anc S A phr - nic")
            await world.dm(users["BYZ"], "A nic H\nF con H\nA sin H\nF smy H")
            users_now = {**users, "EDE": newcomer}
            for power in ("ANT", "BYZ", "EDE", "FAT", "JER", "RUM"):
                resp, text = await world.answer(users_now[power], "ready", {"game": "Outremer"})
            await world.flush()
            assert "Every power was ready: F1101M has been adjudicated" in text
            assert world.service.status("Outremer").phase == "F1101R"
            fall = season_posts()[-1]["embeds"][0]["description"]
            assert "Dislodged: A Nicaea (The Byzantine Empire), attacked from Phrygia" in fall

            # -- the retreat: Byzantium is told at once, reminded halfway through the day ---------------------
            opened = [t for t in dms(users["BYZ"]) if "has begun" in t]
            assert opened == [dms(users["BYZ"])[-1]] and opened[0].startswith(
                "Fall 1101 Retreat (F1101R) has begun in 'Outremer', and The Byzantine Empire has to decide:\n"
                "  · A Nicaea: retreat to ")
            assert "<t:" in opened[0] and "UTC" not in opened[0]  # the deadline in the reader's own time zone
            assert not [t for t in dms(users["ANT"]) if "has begun" in t]  # nothing to decide: not told
            world.clock.advance(timedelta(hours=12, seconds=1))
            world.service.fire_due()
            await world.flush()
            assert "Reminder" in dms(users["BYZ"])[-1] and "To decide:\n· A Nicaea: retreat to " in dms(users["BYZ"])[-1]
            await world.dm(users["BYZ"], "A nic - lyd")
            text = await ready_all(["BYZ"])
            assert "Every power was ready: F1101R has been adjudicated" in text
            assert world.service.status("Outremer").phase == "W1101B"

            # -- winter: every power with builds or removals told; a build changed twice ----------------------
            view = world.service.status("Outremer")
            winter = {p for p in view.must_order if view.player_of(p) and view.player_of(p).status == "active"}
            assert {"ANT", "BYZ", "RUM"} <= winter and "SEL" not in winter
            for power in CRUSADERS:
                told = [t for t in dms(users_now[power]) if t.startswith("Winter 1101 Adjustment (W1101B) has begun")]
                assert len(told) == (1 if power in winter else 0), power
            [ant] = [t for t in dms(users["ANT"]) if t.startswith("Winter 1101")]
            assert "The Principality of Antioch has to decide:\n  · Builds: 1, at Antioch (or waive)" in ant
            assert "✅ Build A Antioch" in await world.dm(users["ANT"], "build A ant")
            assert "✅ Waive a build (replaces Build A Antioch)" in await world.dm(users["ANT"], "waive")
            assert "✅ Build A Antioch (replaces Waive a build)" in await world.dm(users["ANT"], "build army antioch")
            assert "✅ Build A Iconium" in await world.dm(users["RUM"], "build A ico")
            assert "✅ Disband A Lydia" in await world.dm(users["BYZ"], "disband A lyd")
            resp, text = await world.answer(users["ANT"], "orders show", {"game": "Outremer"})
            assert "• Build A Antioch" in text and "Waive" not in text and "Once they are final: `/ready`." in text
            text = await ready_all(sorted(winter))
            assert world.service.status("Outremer").phase == "S1102M"
            post = season_posts()[-1]["embeds"][0]
            assert "Built: A Antioch (The Principality of Antioch)" in post["description"] and "Removed: A Lydia (The Byzantine Empire)" in post["description"]
            assert "36h" not in post["description"]  # (the deadline is a timestamp)
            assert world.service.status("Outremer").deadline_at == world.clock.now + timedelta(hours=36)

            # -- the winter rolled back and adjudicated again: its new results say so ------------------------
            resp, text = await world.answer(gm, "game rollback", {"game": "Outremer"})
            assert "Rolled back" in text and "W1101B" in text
            resp, text = await world.answer(gm, "game adjudicate", {"game": "Outremer"})
            await world.flush()
            again = season_posts()[-1]["embeds"][0]
            assert again["title"] == "Outremer: Winter 1101 Adjustment (W1101B) (adjudicated again)"
            assert again["description"].startswith("*Adjudicated again: the game master rolled the game back")
            assert [m["embeds"][0]["title"] for m in season_posts()].count(
                "Outremer: Winter 1101 Adjustment (W1101B)") == 1

            # -- what everyone saw ----------------------------------------------------------------------------
            [thread] = fake.threads(world.results)
            places = {"#results": world.results, "archive thread": thread, "game master (DMs)": gm}
            places.update({f"{power} (DMs)": users[power] for power in CRUSADERS})
            places["newcomer, EDE (DMs)"] = newcomer
            print("\n" + transcript(fake, places))
            seen = [m for place in places.values() for m in fake.bot_messages(place)]
            for message in seen:
                assert len(message["content"]) <= 2000 and len(message["embeds"]) <= 10
                assert not message["mention_everyone"] and not message["mention_roles"]
                if message["mentions"]:
                    assert any(meant in message["content"] for meant in ("has started", "has a new player",
                                                                          "is now played by")), message
    assert fake.problems() == []
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not [e for e in events if e["log_level"] in ("error", "critical")]
