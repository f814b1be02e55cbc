"""What a game master meets on Discord before and around the start: a full game, players moved,
removed and assigned, deadlines by duration and by date, options that do what they say, nothing
left behind by a refused game, and a missing permission told once."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta

import structlog.testing

from adjudicator.prestige.state import has_state
from tests.fakediscord import payloads as P


async def _forming(world, name: str = "tannenberg", **options) -> None:
    _resp, text = await world.answer(world.gm, "game new", {"name": name, "variant": "standard", **options})
    assert "created" in text, text


async def test_joining_stops_at_seven_then_a_waiting_list_and_the_gm_moves_removes_and_assigns(spelled, world):
    fake = world.fake
    eighth = fake.add_user("latecomer")
    fake.add_member(world.guild, eighth)
    async with world.running():
        await _forming(world)
        for power, user in world.players.items():
            await world.answer(user, "join", {"game": "tannenberg", "power": spelled[power]})
        resp, text = await world.answer(eighth, "join", {"game": "tannenberg"})
        assert "has a player for every power" in text and "on its waiting list (1 waiting)" in text
        assert "8 player" not in text
        resp, text = await world.answer(world.stranger, "join", {"game": "tannenberg", "power": "France"})
        assert resp.ephemeral and "join without a power to go on its waiting list" in text
        resp, text = await world.answer(world.stranger, "join", {"game": "tannenberg"})
        assert "(2 waiting)" in text

        # removing a forming player: the power's player leaves, the first waiting takes the seat
        resp, text = await world.answer(world.gm, "game kick", {"game": "tannenberg", "power": "Turkey"})
        assert text == "Turkey's player is out of 'tannenberg' (told by DM). 7 of 7 player(s), 1 waiting."
        view = world.service.status("tannenberg")
        assert view.player_of("TUR") is None and len([p for p in view.players if p.status == "active"]) == 7
        # the GM gives the freed power to the newcomer, then moves a player to another power
        resp, text = await world.answer(world.gm, "game assign", {"game": "tannenberg", "player": eighth,
                                                                  "power": "Turkey"})
        assert text.startswith(f"<@{eighth.id}> plays Turkey in 'tannenberg'. 7 of 7 player(s)")
        assert [int(u["id"]) for u in resp.message["mentions"]] == [eighth.id]
        resp, text = await world.answer(world.gm, "game assign", {"game": "tannenberg", "player": eighth,
                                                                  "power": "France"})
        assert resp.ephemeral and "FRA" in text  # France has a player: move or remove them first
        resp, text = await world.answer(world.gm, "game replace", {"game": "tannenberg", "power": "Italy",
                                                                   "player": world.players["TUR"]})
        assert text == f"Italy in 'tannenberg' is now played by <@{world.players['TUR'].id}>."
        view = world.service.status("tannenberg")
        assert view.player_of("TUR").player == f"discord:{eighth.id}"
        assert view.player_of("ITA").player == f"discord:{world.players['TUR'].id}"
        assert all(p.player != f"discord:{world.players['ITA'].id}" for p in view.players)

        resp, text = await world.answer(world.gm, "game start", {"game": "tannenberg"})
        assert "is active" in text, text


async def test_a_game_short_of_players_starts_only_when_asked_to_fill_with_civil_disorder(spelled, world):
    async with world.running():
        await _forming(world)
        for power in ("FRA", "GER"):
            await world.answer(world.players[power], "join", {"game": "tannenberg", "power": spelled[power]})
        resp, text = await world.answer(world.gm, "game start", {"game": "tannenberg"})
        assert resp.ephemeral and "5 power(s) would have no player" in text
        assert "`/game start game:tannenberg fill:True`" in text
        resp, text = await world.answer(world.gm, "game start", {"game": "tannenberg", "fill": True})
        assert "is active" in text
        view = world.service.status("tannenberg")
        assert view.player_of("AUS") is None or view.player_of("AUS").status != "active"


async def test_deadlines_need_a_unit_stay_within_a_year_and_may_be_a_date_in_the_games_time_zone(start, world, caplog):
    async with world.running():
        await world.start_game(timezone="Europe/Paris")
        for bad, says in (("10", "needs a unit: '10' could be seconds or hours; write 10h, 10m or 10d"),
                          ("99999999d", "is too long"), ("soon", "must be a number and a unit, like 36h")):
            resp, text = await world.answer(world.gm, "game deadline", {"game": "tannenberg", "after": bad})
            assert resp.ephemeral and says in text, (bad, text)
            assert "Something went wrong" not in text
        resp, text = await world.answer(world.gm, "game extend", {"game": "tannenberg", "by": "3000000d"})
        assert resp.ephemeral and "is too long" in text
        assert world.service.status("tannenberg").deadline_at == start + timedelta(hours=48)

        resp, text = await world.answer(world.gm, "game deadline", {"game": "tannenberg", "at": "2031-03-02 18:00"})
        moment = datetime(2031, 3, 2, 17, 0, tzinfo=UTC)  # 18:00 in Paris, in winter
        assert world.service.status("tannenberg").deadline_at == moment
        assert f"<t:{int(moment.timestamp())}:F>" in text and not resp.ephemeral
        resp, text = await world.answer(world.gm, "game deadline", {"game": "tannenberg",
                                                                    "at": "2031-03-02 18:00 America/New_York"})
        assert world.service.status("tannenberg").deadline_at == datetime(2031, 3, 2, 23, 0, tzinfo=UTC)
        resp, text = await world.answer(world.gm, "game deadline", {"game": "tannenberg", "at": "tomorrow"})
        assert resp.ephemeral and "like 2031-03-01 18:00" in text
        resp, text = await world.answer(world.gm, "game deadline", {"game": "tannenberg", "at": "2031-03-02 18:00",
                                                                    "after": "2d"})
        assert resp.ephemeral and "one way" in text
        resp, text = await world.answer(world.gm, "game deadline", {"game": "tannenberg", "at": "2030-01-01 10:00"})
        assert resp.ephemeral and "after now" in text
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


async def test_the_prestige_option_is_honoured_or_refused_and_a_refused_game_leaves_no_thread(world):
    fake = world.fake
    async with world.running():
        resp, text = await world.answer(world.gm, "game new", {"name": "outremer", "variant": "crusader",
                                                               "prestige": False})
        assert resp.ephemeral and "always played with the prestige rules" in text
        resp, text = await world.answer(world.gm, "game new", {"name": "prestigious", "variant": "standard",
                                                               "prestige": True})
        assert "standard, prestige rules" in text
        _, position = world.service.board("prestigious")
        assert has_state(position)
        resp, text = await world.answer(world.gm, "game new", {"name": "plain", "variant": "standard"})
        assert "prestige" not in text and not has_state(world.service.board("plain")[1])
        threads = len(fake.threads(world.results))
        for name in ("Prestigious", "12345", " plain "):  # taken (in any case), only digits, taken
            resp, text = await world.answer(world.gm, "game new", {"name": name, "variant": "standard"})
            assert resp.ephemeral and "created" not in text, (name, text)
        resp, text = await world.answer(world.gm, "game new", {"name": "zoned", "variant": "standard",
                                                               "timezone": "Mars/Olympus"})
        assert resp.ephemeral and "unknown time zone" in text
        assert len(fake.threads(world.results)) == threads  # nothing left behind


async def test_a_channel_without_the_permissions_a_game_needs_is_refused_before_anything_is_made(fake_discord, world):
    [bot_role] = [r for r in world.guild.roles.values() if r.managed]
    bot_role.permissions = sum(1 << b for b in (10, 11, 14, 15, 16, 38))  # no Create Public Threads
    async with world.running():
        resp, text = await world.answer(world.gm, "game new", {"name": "tannenberg", "variant": "standard"})
        assert resp.ephemeral and "I lack the permission(s) create_public_threads" in text
        assert not fake_discord.threads(world.results) and world.service.directory() == []
    world.db.dispose()


async def test_a_missing_permission_is_one_warning_the_gm_told_once_and_the_retries_quiet(world, caplog):
    fake = world.fake
    [bot_role] = [r for r in world.guild.roles.values() if r.managed]
    bot_role.permissions = sum(1 << b for b in (10, 11, 14, 15, 16, 35, 38))  # what the invite asks for
    async with world.running():
        await world.start_game()
        channel = fake.channels[world.results.id]
        channel.permission_overwrites = [{"id": str(world.guild.id), "type": 0, "allow": "0", "deny": str(1 << 15)}]
        await fake.dispatch("CHANNEL_UPDATE", P.channel_payload(channel), P.INTENT_GUILDS)
        cached = world.bot.get_channel(world.results.id)
        await fake.wait_until(lambda: not cached.permissions_for(cached.guild.me).attach_files, what="the overwrite")
        caplog.clear()
        world.clock.advance(timedelta(hours=48))
        with structlog.testing.capture_logs() as events:
            world.service.fire_due()
            for _ in range(6):  # the outbox tries again and again
                await world.flush()
        notices = [t for t in world.texts_to(world.gm) if "could not post" in t and "results channel" in t]
        assert len(notices) == 1 and "attach_files" in notices[0]
        deferred = [e for e in events if e["event"] == "delivery deferred" and e["recipient"] == "results-channel"]
        assert next(e["log_level"] for e in deferred) == "warning" and len(deferred) >= 3
        assert all(e["log_level"] == "info" for e in deferred[1:])  # retried, quietly
        assert not [e for e in events if e["log_level"] in ("error", "critical") or e.get("exc_info")]
        assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    world.db.dispose()


async def test_the_join_refusal_names_the_powers_once(powers, world):
    async with world.running():
        await _forming(world)
        resp, text = await world.answer(world.players["FRA"], "join", {"game": "tannenberg", "power": "Narnia"})
        assert resp.ephemeral and "'Narnia' is not a power" in text
        for power in powers:
            assert text.count(f"({power})") == 1, text
        assert "ENG, FRA" not in text
