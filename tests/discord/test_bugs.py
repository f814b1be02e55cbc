"""A bug behind a Discord answer is the judge's, never the player's: logged with its traceback, and
the player gets a short apology (a refusal of the judge's own is shown as it is)."""

from __future__ import annotations

from structlog.testing import capture_logs

from bot.frontends.discord.client import BUG_APOLOGY


def _broken(*args, **kwargs):
    raise ValueError("a bug that happens to be a ValueError")


async def test_a_bug_behind_a_dm_is_logged_and_the_player_gets_an_apology(world, monkeypatch):
    async with world.running():
        await world.start_game()
        monkeypatch.setattr(world.service, "submit_messages", _broken)
        with capture_logs() as events:
            answer = await world.dm("FRA", "A par - bur")
        assert answer == BUG_APOLOGY
        [event] = [e for e in events if e["event"] == "a message of orders not taken"]
        assert event["log_level"] == "error" and event["exc_info"] is True


async def test_a_bug_behind_a_slash_command_is_logged_and_the_user_gets_an_apology(world, monkeypatch,
                                                                                   discord_errors):
    async with world.running():
        await world.start_game()
        _refused, text = await world.answer(world.players["FRA"], "orders show", {"game": "nothing"})
        assert text != BUG_APOLOGY and "nothing" in text                # a refusal: the user's to fix
        assert discord_errors.records == []
        monkeypatch.setattr(world.service, "my_orders", _broken)
        response, text = await world.answer(world.players["FRA"], "orders show")
        assert response.ephemeral and text == BUG_APOLOGY
        [record] = discord_errors.records                               # the bug, logged with its traceback
        assert record.exc_info is not None and "a bug that happens" in str(record.exc_info[1])
        discord_errors.records.clear()
