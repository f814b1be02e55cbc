"""One game per name on Discord, whatever its case and punctuation: a Discord command acts on the
game its permission check looked at."""

from __future__ import annotations


async def test_on_discord_a_stranger_can_neither_take_a_games_name_nor_command_it_in_another_case(fake_discord,
                                                                                                     world):
    world.settings = world.settings.model_copy(update={"gm_role": ""})  # anyone may create games
    fake_discord.allow_command(world.guild, "game", role=world.guild.everyone)  # and the server shows /game to all
    # the operator's game, made at the shell
    world.service.create_game("Tannenberg", "standard", f"discord:{world.gm.id}")
    async with world.running():
        _resp, text = await world.answer(world.stranger, "game new", {"name": "tannenberg", "variant": "standard"})
        assert "there is already a game called 'Tannenberg'" in text
        for spelling in ("tannenberg", "TANNENBERG", "Tannenberg"):
            _resp, text = await world.answer(world.stranger, "game end", {"game": spelling, "reason": "mine now"})
            assert text.startswith("Only the game master of 'Tannenberg'"), text
        assert world.service.status("Tannenberg").status == "forming"
        _resp, text = await world.answer(world.gm, "game end", {"game": "TANNENBERG", "reason": "done"})
        assert world.service.status("Tannenberg").status == "ended"
