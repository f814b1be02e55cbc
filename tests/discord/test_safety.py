"""Nobody is pinged unless a player is meant, and files keep their names, whatever a game is called.

The fake Discord decides who a message notifies as Discord does (without ``allowed_mentions``
every mention in the text notifies, ``@everyone`` included) and keeps an uploaded file's name as
Discord does (only letters, digits, ``_ - .``): an embed that shows an attachment by a name the
message does not carry fails the test."""

from __future__ import annotations

import json
from datetime import timedelta


NAME = "@everyone party <@&{role}> ü/x"


async def test_a_game_called_everyone_pings_nobody_and_its_files_keep_safe_names(spelled, world):
    fake = world.fake
    role = next(iter(world.guild.roles.values()))
    name = NAME.format(role=role.id)
    async with world.running():
        resp, text = await world.answer(world.gm, "game new", {"name": name, "variant": "standard",
                                                               "channel": world.results})
        assert "created" in text
        for power, user in world.players.items():
            resp, text = await world.answer(user, "join", {"game": name, "power": spelled[power]})
            assert "joined" in text, text
        await world.answer(world.gm, "game start", {"game": name})
        await world.flush()
        world.clock.advance(timedelta(hours=48))
        world.service.fire_due()
        await world.flush()
        inter = await world.slash(world.players["FRA"], "map", {"game": name})
        followup = await fake.wait_for_followup(inter, timeout=30)
        resp, _ = await world.answer(world.gm, "game export", {"game": name})

        posted = fake.bot_messages(world.results)
        [thread] = fake.threads(world.results)
        posted += fake.bot_messages(thread)
        assert any("@everyone party" in m["content"] for m in posted)
        assert not any(m["mention_everyone"] or m["mention_roles"] for m in posted)
        players = {u.id for u in world.players.values()}
        for m in posted:
            pinged = {int(u["id"]) for u in m["mentions"]}
            if "has started" in m["content"]:
                assert pinged == players  # the players are meant: each is told the game began
            else:
                assert not pinged, m["content"]

        [season] = [m for m in fake.bot_messages(world.results) if m["embeds"]]
        [picture] = season["attachments"]
        assert picture["filename"] == f"everyone_party_{role.id}_x-S1901M.png"
        assert season["embeds"][0]["image"]["url"] == f"attachment://{picture['filename']}"
        assert all(c.isalnum() or c in "_-." for c in picture["filename"])
        assert all(c.isalnum() or c in "_-." for c in followup["attachments"][0]["filename"])
        export = resp.message["attachments"][0]
        assert export["filename"].endswith(".json") and all(c.isalnum() or c in "_-." for c in export["filename"])
        assert json.loads(fake.file_bytes(export))["game"]["name"] == name


async def test_a_reply_that_names_a_player_pings_only_that_player(world):
    fake = world.fake
    newcomer = fake.add_user("newcomer")
    fake.add_member(world.guild, newcomer)
    async with world.running():
        await world.answer(world.gm, "game new", {"name": "tannenberg", "variant": "standard"})
        resp, text = await world.answer(world.players["FRA"], "join", {"game": "tannenberg", "power": "France"})
        assert f"<@{world.players['FRA'].id}>" in text and resp.message["mentions"] == []
        resp, text = await world.answer(world.gm, "game replace", {"game": "tannenberg", "power": "france",
                                                                   "player": newcomer})
        assert [int(u["id"]) for u in resp.message["mentions"]] == [newcomer.id]
