"""A game's settings on Discord: the same set as the shell's, chosen at creation, shown and changed
with /game settings; and what a player meets at the edges of a game: /concede, /draw after the end,
/ready with nothing to decide."""

from __future__ import annotations

import argparse
from datetime import timedelta

from bot.cli.main import build_parser
from bot.service.policy import SETTINGS


def _subcommand(parser: argparse.ArgumentParser, *path: str) -> argparse.ArgumentParser:
    for name in path:
        [action] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        parser = action.choices[name]
    return parser


async def test_game_new_game_settings_and_the_shell_offer_every_setting_of_a_game(world):
    async with world.running():
        [game] = [c for c in world.fake.commands().values() if c["name"] == "game"]
        options = {sub["name"]: {o["name"] for o in sub.get("options", [])} for sub in game["options"]}
    assert options["settings"] == {"game", *SETTINGS}
    assert set(SETTINGS) <= options["new"]
    shell = {a.dest for a in _subcommand(build_parser(), "game", "set")._actions}
    assert {"reminder" if key == "reminders" else key for key in SETTINGS} <= shell


async def test_settings_chosen_at_creation_shown_and_changed_with_what_would_be_refused(world, start):
    async with world.running():
        resp, text = await world.answer(world.gm, "game new", {
            "name": "tannenberg", "variant": "standard", "movement": "1d", "grace": "2h", "reminders": "none",
            "nmr_limit": 0, "early": True, "timezone": "Europe/Paris"})
        policy = world.service.policy_of("tannenberg")
        assert (policy.movement, policy.grace, policy.reminders, policy.nmr_limit, policy.early, policy.timezone) == (
            timedelta(days=1), timedelta(hours=2), (), 0, True, "Europe/Paris")
        assert "• reminders before the deadline: none" in text and "• NMR limit: 0 (never civil disorder)" in text
        for options, says in (({"grace": "soon"}, "the grace period must be a number and a unit"),
                              ({"reminders": "24h, 2"}, "a reminder needs a unit"),
                              ({"timezone": "Mars/Olympus"}, "unknown time zone"),
                              ({"retreat": "10s"}, "the retreat phase must last at least 1m")):
            resp, text = await world.answer(world.gm, "game settings", {"game": "tannenberg", **options})
            assert resp.ephemeral and says in text, (options, text)
        resp, text = await world.answer(world.gm, "game settings", {"game": "tannenberg", "reminders": "12h 1h",
                                                                    "nmr_limit": 2})
        assert text.startswith("Changed in 'tannenberg' (announced in ") and "• NMR limit: 0 (never" in text
        assert world.service.policy_of("tannenberg").reminders == (timedelta(hours=12), timedelta(hours=1))
        resp, text = await world.answer(world.gm, "game settings", {"game": "tannenberg", "nmr_limit": 2})
        assert text == "Nothing to change: the settings of 'tannenberg' were already so."
        await world.flush()
        posts = [m["content"] for m in world.fake.bot_messages(world.results) if "settings changed" in m["content"]]
        assert len(posts) == 1 and "NMR limit: 0 (never civil disorder) -> 2 (" in posts[0]


async def test_a_concession_a_draw_after_the_end_and_ready_with_nothing_to_decide(world):
    async with world.running():
        await world.start_game()
        resp, text = await world.answer(world.players["FRA"], "concede", {"game": "tannenberg"})
        assert resp.ephemeral and "name the power you concede the game to" in text
        for power, user in world.players.items():
            if power == "AUS":
                continue
            resp, text = await world.answer(user, "concede", {"game": "tannenberg", "to": "Austria"})
        assert text == "The game is over: ENG, FRA, GER, ITA, RUS, TUR conceded it to AUS, who has won. ('tannenberg')"
        resp, text = await world.answer(world.players["FRA"], "draw", {"game": "tannenberg"})
        assert resp.ephemeral and text == "'tannenberg' is over; /draw is not for a game in that state."
        resp, text = await world.answer(world.players["FRA"], "ready", {"game": "tannenberg"})
        assert text == "'tannenberg' is over; /ready is not for a game in that state."
        resp, text = await world.answer(world.gm, "game pause", {"game": "tannenberg"})
        assert text == "'tannenberg' is over; /game pause is not for a game in that state."
