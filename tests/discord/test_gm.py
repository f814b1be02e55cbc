"""Game masters' commands on Discord: who may run a game, and what each command does."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest

from tests.fakediscord import CommandNotShown


async def test_game_is_shown_only_to_manage_server_and_whom_the_server_allows(world):
    fake = world.fake
    async with world.running():
        [command] = [c for c in fake.commands().values() if c["name"] == "game"]
        assert int(command["default_member_permissions"]) == 1 << 5  # Manage Server
        assert all(c["default_member_permissions"] is None for c in fake.commands().values() if c["name"] != "game")
        with pytest.raises(CommandNotShown):  # a member without it does not even see /game
            await world.answer(world.stranger, "game new", {"name": "rogue", "variant": "standard"})
        manager = fake.add_user("manager")
        fake.add_member(world.guild, manager, roles=[fake.add_role(world.guild, "Mods", permissions=1 << 5)])
        _resp, text = await world.answer(manager, "game new", {"name": "managed", "variant": "standard"})
        assert text == "Only holders of the game-master role (Judge) may create games."  # and the runtime check
        _resp, text = await world.answer(world.gm, "game new", {"name": "judged", "variant": "standard"})
        assert "created" in text  # the Judge role, allowed in the server's Integrations settings


async def test_a_non_gm_is_refused_with_a_message(world):
    world.fake.allow_command(world.guild, "game", role=world.guild.everyone)  # the server shows /game to all
    async with world.running():
        resp, text = await world.answer(world.stranger, "game new", {"name": "rogue", "variant": "standard"})
        assert resp.ephemeral and text == "Only holders of the game-master role (Judge) may create games."
        resp, text = await world.answer(world.gm, "game new", {"name": "tannenberg", "variant": "standard"})
        assert "created" in text
        for command, options in (("game start", {}), ("game pause", {}), ("game end", {"reason": "mine now"}),
                                 ("game kick", {"power": "France"}), ("game export", {})):
            resp, text = await world.answer(world.stranger, command, {"game": "tannenberg", **options})
            assert resp.ephemeral, command
            assert text.startswith("Only the game master of 'tannenberg'"), (command, text)
            assert f"<@{world.gm.id}>" in text and "game-master role (Judge)" in text
        assert world.service.status("tannenberg").status == "forming"
        # a player of the game is no game master either
        resp, text = await world.answer(world.players["FRA"], "join", {"game": "tannenberg", "power": "France"})
        resp, text = await world.answer(world.players["FRA"], "game start", {"game": "tannenberg"})
        assert text.startswith("Only the game master") and world.service.status("tannenberg").status == "forming"


async def test_a_gm_role_holder_may_run_another_masters_game(world):
    async with world.running():
        await world.start_game()
        resp, text = await world.answer(world.referee, "game pause", {"game": "tannenberg"})
        assert text == "'tannenberg' is paused." and not resp.ephemeral
        resp, text = await world.answer(world.referee, "game resume", {"game": "tannenberg"})
        assert "is active" in text


async def test_without_a_configured_role_anyone_may_create_a_game_and_masters_only_their_own(fake_discord, world):
    world.settings = world.settings.model_copy(update={"gm_role": ""})
    fake_discord.allow_command(world.guild, "game", role=world.guild.everyone)
    async with world.running():
        _resp, text = await world.answer(world.stranger, "game new", {"name": "mine", "variant": "crusader"})
        assert "created" in text and "prestige rules" in text
        assert world.service.entry("mine").gm == f"discord:{world.stranger.id}"
        _resp, text = await world.answer(world.gm, "game start", {"game": "mine"})
        assert text == f"Only the game master of 'mine' (<@{world.stranger.id}>) may do that."
    world.db.dispose()


async def test_deadline_pause_resume_extend_adjudicate_rollback(start, world):
    async with world.running():
        await world.start_game()
        resp, text = await world.answer(world.gm, "game deadline", {"game": "tannenberg", "after": "12h"})
        at = int((start + timedelta(hours=12)).timestamp())
        assert f"<t:{at}:R>" in text
        assert world.service.status("tannenberg").deadline_at == start + timedelta(hours=12)
        resp, text = await world.answer(world.gm, "game extend", {"game": "tannenberg", "by": "1d"})
        assert world.service.status("tannenberg").deadline_at == start + timedelta(hours=36)
        resp, text = await world.answer(world.gm, "game extend", {"game": "tannenberg", "by": "soon"})
        assert resp.ephemeral and "a duration must be a number and a unit, like 36h" in text
        resp, text = await world.answer(world.gm, "game pause", {"game": "tannenberg"})
        assert world.service.status("tannenberg").status == "paused"
        resp, text = await world.answer(world.gm, "game adjudicate", {"game": "tannenberg"})
        assert "paused; resume it first" in text
        await world.answer(world.gm, "game resume", {"game": "tannenberg"})
        await world.dm("FRA", "A par - bur")
        resp, text = await world.answer(world.gm, "game adjudicate", {"game": "tannenberg"})
        assert "S1901M of 'tannenberg': adjudicated" in text and "Fall 1901" in text
        await world.flush()
        assert any(m["embeds"] for m in world.fake.bot_messages(world.results))
        resp, text = await world.answer(world.gm, "game rollback", {"game": "tannenberg"})
        assert "Rolled back" in text and "S1901M" in text
        mine = world.service.my_orders("tannenberg", f"discord:{world.players['FRA'].id}")
        assert [o.canonical for o in mine.orders] == ["FRA: A par - bur"]


async def test_replace_kick_end_and_export(world):
    fake = world.fake
    newcomer = fake.add_user("newcomer")
    fake.add_member(world.guild, newcomer)
    async with world.running():
        await world.start_game()
        await world.dm("FRA", "A par - bur")
        resp, text = await world.answer(world.gm, "game replace", {"game": "tannenberg", "power": "italy",
                                                                   "player": newcomer})
        assert text == f"Italy in 'tannenberg' is now played by <@{newcomer.id}>."
        assert "Italy" in await world.dm(newcomer, "A ven H")
        resp, text = await world.answer(world.gm, "game kick", {"game": "tannenberg", "power": "TUR"})
        assert "Turkey's player has been removed" in text
        assert world.service.status("tannenberg").player_of("TUR").status == "removed"
        resp, text = await world.answer(world.gm, "game export", {"game": "tannenberg"})
        assert resp.ephemeral
        doc = json.loads(fake.file_bytes(resp.message["attachments"][0]))
        assert doc["game"]["name"] == "tannenberg" and doc["orders"] == []  # this phase's orders stay private
        resp, text = await world.answer(world.gm, "game end", {"game": "tannenberg", "reason": "time's up"})
        assert text == "'tannenberg' has ended: time's up."
        await world.flush()
        assert any("ended by the game master: time's up" in m["content"] for m in fake.bot_messages(world.results))


async def test_autocomplete_for_games_powers_and_provinces(world):
    fake = world.fake
    async with world.running():
        await world.start_game()
        await world.answer(world.gm, "game new", {"name": "outremer", "variant": "crusader"})
        inter = await fake.autocomplete(world.gm, "game pause", {"game": "tan"}, focused="game", guild=world.guild)
        resp = await fake.wait_for_interaction_response(inter)
        assert [c["value"] for c in resp.choices] == ["tannenberg"]
        inter = await fake.autocomplete(world.players["FRA"], "join", {"game": "outremer", "power": "jer"},
                                        focused="power", guild=world.guild)
        resp = await fake.wait_for_interaction_response(inter)
        assert [c["value"] for c in resp.choices] == ["JER"]
        inter = await fake.autocomplete(world.players["FRA"], "orders clear", {"game": "tannenberg", "province": "bur"},
                                        focused="province", guild=world.guild)
        resp = await fake.wait_for_interaction_response(inter)
        assert resp.choices[0] == {"name": "Burgundy (bur)", "value": "bur"}
        # a province transformed on the way in: clear one unit's order
        await world.dm("FRA", "A par - bur\nF bre - mao")
        resp, text = await world.answer(world.players["FRA"], "orders clear", {"game": "tannenberg",
                                                                                "province": "Paris"})
        assert resp.ephemeral and "Mid-Atlantic Ocean" in text and "Burgundy" not in text
        resp, text = await world.answer(world.players["FRA"], "orders clear", {"game": "tannenberg",
                                                                                "province": "Atlantis"})
        assert resp.ephemeral and "Atlantis" in text


async def test_player_commands_map_orders_and_a_draw_by_everyone(world):
    fake = world.fake
    async with world.running():
        await world.start_game()
        await world.dm("FRA", "A par - bur")
        resp, text = await world.answer(world.players["FRA"], "orders show")  # the player's only game
        assert resp.ephemeral and "A Paris - Burgundy" in text
        inter = await world.slash(world.players["FRA"], "map", {"game": "tannenberg"})
        resp = await fake.wait_for_interaction_response(inter, timeout=30)
        assert resp.type == 5
        followup = await fake.wait_for_followup(inter, timeout=30)
        if followup["attachments"]:
            assert fake.file_bytes(followup["attachments"][0]).startswith(b"\x89PNG")
            assert followup["content"] == "tannenberg, S1901M"
        else:
            assert "not available" in followup["content"]
        resp, text = await world.answer(world.stranger, "orders show", {"game": "tannenberg"})
        assert resp.ephemeral and text == "You are not playing in 'tannenberg'."
        for user in world.players.values():
            resp, text = await world.answer(user, "draw", {"game": "tannenberg"})
        assert text == "'tannenberg' has ended in a draw."
        await world.flush()
        assert world.service.status("tannenberg").outcome == {"draw": sorted(world.players)}
        assert any("a draw shared by AUS, ENG, FRA" in m["content"] for m in fake.bot_messages(world.results))


async def test_a_gm_role_in_another_server_gives_no_say_over_this_servers_games(fake_discord, world):
    elsewhere = fake_discord.add_guild("Elsewhere", text_channels=("general",))
    judges = fake_discord.add_role(elsewhere, "Judge")
    fake_discord.add_member(elsewhere, world.stranger, roles=[judges])
    fake_discord.allow_command(elsewhere, "game", role=judges)
    async with world.running():
        await world.start_game()
        inter = await fake_discord.slash(world.stranger, "game pause", {"game": "tannenberg"}, guild=elsewhere,
                                         channel=fake_discord.text_channel(elsewhere, "general"))
        resp = await fake_discord.wait_for_interaction_response(inter)
        assert resp.ephemeral and resp.content.startswith("Only the game master of 'tannenberg'")
        assert world.service.status("tannenberg").status == "active"
    world.db.dispose()
