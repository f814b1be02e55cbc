"""The Discord front end when things go wrong or get complicated: rate limits, a dropped gateway, a
results channel that is gone or closed to the bot, players in several games, sharding, and the
settings that point the bot at another Discord-compatible server."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import discord.gateway
import discord.http
import pytest

from bot.frontends.discord import DiscordSettings, create_front_end, make_bot
from tests.fakediscord import FakeDiscord, payloads as P

MESSAGES = "POST /channels/{channel_id}/messages"


async def test_a_429_with_retry_after_is_honoured(world):
    fake = world.fake
    async with world.running():
        await world.start_game()
        fake.rate_limit(MESSAGES, count=1, retry_after=0.3)
        answer = await world.dm("FRA", "A par - bur")
        assert "✅ A Paris - Burgundy" in answer
        limited, retried = [r for r in fake.requests_to(MESSAGES) if r.params["channel_id"] == str(
            fake.dm_channel(world.players["FRA"]).id)][-2:]
        assert (limited.status, retried.status) == (429, 200)
        assert retried.time - limited.time >= 0.3
        # results posted through the outbox ride out a rate limit too
        fake.rate_limit(MESSAGES, count=2, retry_after=0.2)
        world.clock.advance(timedelta(hours=48))
        world.service.fire_due()
        await world.flush()
        assert len([m for m in fake.bot_messages(world.results) if m["embeds"]]) >= 1
        limited = [r for r in fake.requests_to(MESSAGES) if r.status == 429]
        assert len(limited) == 3
        from bot.store import database
        with world.db.session() as session:
            assert all(r.delivered_at is not None for r in database.outbox_of(session))


async def test_a_player_who_refuses_dms_is_reported_to_the_gm(world):
    fake = world.fake
    async with world.running():
        await world.start_game()
        fake.close_dms(world.players["ITA"])
        world.clock.advance(timedelta(hours=24))
        world.service.fire_due()
        await world.flush()
        [notice] = [t for t in world.texts_to(world.gm) if "could not be delivered" in t]
        assert f"<@{world.players['ITA'].id}>" in notice and "Cannot send messages to this user" in notice
        assert "Reminder" in notice or "orders due" in notice
        assert any("Reminder" in t for t in world.texts_to(world.players["AUS"]))


async def test_a_dropped_gateway_is_resumed_and_orders_sent_meanwhile_are_answered(world):
    fake = world.fake
    async with world.running():
        await world.start_game()
        await fake.drop_connection(4000)
        await fake.user_sends_dm(world.players["GER"], "A mun - bur")
        await fake.wait_for_resume()
        reply = await fake.wait_for_message(world.players["GER"], lambda m: "Munich" in m["content"])
        assert "✅ A Munich - Burgundy" in reply["content"]
        assert fake.identifies == 1 and fake.resumes == 1
        assert "✅ A Berlin - Kiel" in await world.dm("GER", "A ber - kie")


async def test_a_missing_results_channel_is_reported_to_the_gm_and_posted_later_exactly_once(ref_of, world):
    fake = world.fake
    async with world.running():
        await world.start_game()
        results = fake.channels.pop(world.results.id)  # the channel is deleted behind the bot's back
        world.clock.advance(timedelta(hours=48))
        world.service.fire_due()
        await world.flush()
        notices = [t for t in world.texts_to(world.gm) if "could not post" in t and "archive" not in t]
        assert len(notices) == 1
        assert "tannenberg: results of S1901M" in notices[0] and "Unknown Channel" in notices[0]
        with world.db.session() as session:
            from bot.store import database
            pending = [r.kind for r in database.outbox_of(session) if r.delivered_at is None]
        assert pending == ["results"]

        await world.flush()  # still missing: the master is not told twice
        assert len([t for t in world.texts_to(world.gm) if "could not post" in t and "archive" not in t]) == 1

        fake.channels[results.id] = results  # the channel is back
        await world.flush()
        await world.flush()
        posted = [m for m in fake.bot_messages(results) if m["embeds"]]
        found = [ref_of(m) for m in posted]
        assert found == ["1:0:results#1/1"]
        assert posted[0]["embeds"][0]["title"] == "tannenberg: Spring 1901 Movement (S1901M)"
        with world.db.session() as session:
            assert all(r.delivered_at is not None for r in database.outbox_of(session))


async def test_a_missing_permission_is_reported_to_the_gm(world):
    fake = world.fake
    [bot_role] = [r for r in world.guild.roles.values() if r.managed]
    bot_role.permissions = sum(1 << b for b in (10, 11, 14, 15, 16, 35, 38))  # view, send, embed, attach, history, threads
    async with world.running():
        await world.start_game()
        assert not [t for t in world.texts_to(world.gm) if "could not post" in t]
        channel = fake.channels[world.results.id]
        channel.permission_overwrites = [{"id": str(world.guild.id), "type": 0, "allow": "0", "deny": str(1 << 15)}]
        await fake.dispatch("CHANNEL_UPDATE", P.channel_payload(channel), P.INTENT_GUILDS)
        cached = world.bot.get_channel(world.results.id)
        await fake.wait_until(lambda: not cached.permissions_for(cached.guild.me).attach_files, what="the overwrite")
        world.clock.advance(timedelta(hours=48))
        world.service.fire_due()
        await world.flush()
        [notice] = [t for t in world.texts_to(world.gm) if "could not post" in t and "results channel" in t]
        assert "lack the permission(s) attach_files" in notice and f"<#{world.results.id}>" in notice
        assert not [m for m in fake.bot_messages(world.results) if m["embeds"]]
    world.db.dispose()


async def test_a_player_in_two_games_names_the_game_or_picks_it_from_a_menu(world):
    fake = world.fake
    async with world.running():
        await world.start_game("tannenberg")
        await world.start_game("gallipoli")
        flo = world.players["FRA"]
        answer = await world.dm("FRA", "game: gallipoli\nA par - bur")
        assert "France in gallipoli" in answer and "✅ A Paris - Burgundy" in answer
        answer = await world.dm("FRA", "game: verdun\nA par - bur")
        assert "no running game called 'verdun'" in answer and "tannenberg" in answer and "gallipoli" in answer

        before = len(fake.bot_messages(flo))
        await fake.user_sends_dm(flo, "F bre - mao")
        menu = await fake.wait_for_message(flo, lambda m: m["components"] and m["components"][0]["components"][0]["type"] == 3)
        assert "Which one" in menu["content"]
        options = [o["value"] for o in menu["components"][0]["components"][0]["options"]]
        assert sorted(options) == ["gallipoli", "tannenberg"]
        pick = await world.click_select(flo, menu, "tannenberg")
        resp = await fake.wait_for_interaction_response(pick)
        assert resp.type == 7 and "France in tannenberg" in resp.content and "Mid-Atlantic Ocean" in resp.content
        assert resp.data["components"] == []
        assert len(fake.bot_messages(flo)) == before + 1  # the menu, edited in place
        assert [o.canonical for o in world.service.my_orders("tannenberg", f"discord:{flo.id}").orders] == [
            "FRA: F bre - mao"]
        assert [o.canonical for o in world.service.my_orders("gallipoli", f"discord:{flo.id}").orders] == [
            "FRA: A par - bur"]


async def test_someone_not_playing_is_told_so(world):
    async with world.running():
        answer = await world.dm(world.stranger, "A par - bur")
        assert "not playing in any running game" in answer


async def test_the_sharded_bot_asks_for_the_shard_count_and_works(fake_discord, world):
    world.settings = DiscordSettings(token=None, gm_role="Judge", shards="auto")
    async with world.running() as bot:
        assert isinstance(bot, discord.AutoShardedClient)
        assert fake_discord.requests_to("GET /gateway/bot")
        await world.start_game()
        assert "✅ A Paris - Burgundy" in await world.dm("FRA", "A par - bur")
    world.db.dispose()


def test_settings_come_from_the_environment(monkeypatch):
    monkeypatch.setenv("DISCORD_TOKEN", "abc")
    monkeypatch.setenv("DISCORD_GM_ROLE", "Judge, 1234")
    monkeypatch.setenv("DISCORD_SHARDS", "4")
    monkeypatch.setenv("DISCORD_API_BASE", "http://127.0.0.1:9/api/v10")
    s = DiscordSettings()
    assert s.token.get_secret_value() == "abc" and s.gm_roles == ("Judge", "1234")
    assert s.sharded and s.shard_count == 4 and s.api_base == "http://127.0.0.1:9/api/v10"
    monkeypatch.setenv("DISCORD_SHARDS", "many")
    with pytest.raises(ValueError, match="DISCORD_SHARDS must be a positive number of shards or 'auto'"):
        DiscordSettings()


async def test_crusader_serve_front_end_runs_against_the_urls_in_the_environment(tmp_path, monkeypatch, discord_errors):
    """DISCORD_API_BASE and DISCORD_GATEWAY_URL point the bot at any Discord-compatible server."""
    from bot.app.serve import build_app
    from bot.app.settings import Settings

    monkeypatch.setattr(discord.http.Route, "BASE", discord.http.Route.BASE)  # restored after the test
    monkeypatch.setattr(discord.gateway.DiscordWebSocket, "DEFAULT_GATEWAY",
                        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY)
    fake = await FakeDiscord().start(tls=False)
    try:
        monkeypatch.setenv("DISCORD_TOKEN", fake.token)
        monkeypatch.setenv("DISCORD_API_BASE", fake.api_base)
        monkeypatch.setenv("DISCORD_GATEWAY_URL", fake.gateway_url)
        app = build_app(Settings(data_dir=tmp_path / "data"))
        front = create_front_end(app)
        assert front is not None and front.name == "discord"
        await front.start()
        await fake.wait_until(lambda: front.bot.is_ready(), what="the bot to be ready")
        assert str(discord.http.Route.BASE) == fake.api_base
        assert fake.connections[0].path == "/"
        alice = fake.add_user("alice")
        await fake.user_sends_dm(alice, "A par - bur")
        reply = await fake.wait_for_message(alice)
        assert "not playing in any running game" in reply["content"]
        await front.stop()
        app.db.dispose()
    finally:
        await fake.stop()
    assert fake.problems() == []


def test_no_token_no_front_end(tmp_path, monkeypatch):
    from bot.app.serve import build_app
    from bot.app.settings import Settings

    monkeypatch.delenv("DISCORD_TOKEN", raising=False)
    monkeypatch.delenv("CRUSADER_DISCORD_TOKEN", raising=False)
    app = build_app(Settings(data_dir=tmp_path / "data"))
    assert create_front_end(app) is None
    app.db.dispose()


def test_make_bot_passes_client_options_through():
    bot = make_bot(None, settings=DiscordSettings(token=None), guild_ready_timeout=0.25, max_messages=50)
    assert bot._connection.guild_ready_timeout == 0.25 and bot._connection.max_messages == 50
    asyncio.run(bot.close())


async def test_the_bot_is_sent_no_message_of_a_server_s_channels_not_even_its_own_posts(world):
    from tests.fakediscord import payloads

    fake = world.fake
    async with world.running() as bot:
        assert not fake.session.intents & payloads.INTENT_GUILD_MESSAGES
        seen: list[discord.Message] = []

        async def heard(message: discord.Message) -> None:
            seen.append(message)

        bot.add_listener(heard, "on_message")
        await world.start_game()
        world.clock.advance(timedelta(hours=48))
        world.service.fire_due()
        await world.flush()
        assert [m for m in fake.bot_messages(world.results) if m["embeds"]]  # the results posted
        assert "✅ A Paris - Burgundy" in await world.dm("FRA", "A par - bur")  # DMs are read
    assert seen and all(m.guild is None for m in seen)


def test_the_bot_keeps_no_message_cache_unless_asked():
    bot = make_bot(None, settings=DiscordSettings(token=None))
    assert bot._connection.max_messages is None and bot._connection._messages is None
    asyncio.run(bot.close())


async def test_results_adjudicated_while_the_bot_was_away_are_posted_when_it_comes_back_once(world):
    fake = world.fake
    async with world.running():
        await world.start_game()
        await world.dm("FRA", "A par - bur")
    assert world.dispatcher.notifiers == [world.recorder]  # the sink left with the bot
    world.clock.advance(timedelta(hours=48))
    world.service.fire_due()  # nobody posts: the announcements wait in the outbox
    from bot.store import database
    with world.db.session() as session:
        assert "results" in [r.kind for r in database.outbox_of(session) if r.delivered_at is None]
    assert not [m for m in fake.bot_messages(world.results) if m["embeds"]]
    async with world.running():  # back: on_ready delivers what is pending
        await fake.wait_until(lambda: [m for m in fake.bot_messages(world.results) if m["embeds"]],
                              timeout=60, what="the results")
        await world.bot.drain()
    posted = len(fake.bot_messages(world.results))
    dms = {power: len(fake.bot_messages(user)) for power, user in world.players.items()}
    with world.db.session() as session:
        for row in database.outbox_of(session):
            row.delivered_at = None  # as if the server died before marking them: all delivered again
            session.add(row)
    async with world.running():
        await world.flush()
    assert len(fake.bot_messages(world.results)) == posted
    assert {power: len(fake.bot_messages(user)) for power, user in world.players.items()} == dms
    embeds = [e for m in fake.bot_messages(world.results) if m["embeds"] for e in m["embeds"]]
    assert sum(1 for e in embeds if e["title"].startswith("tannenberg: Spring 1901")) == 1


async def test_a_season_s_results_read_the_service_in_one_hand_off_for_both_posts(world):
    """A season's results deliveries (the channel's post, the archive thread's), made together,
    read the game, the season and the game as it stands in one call to the service's worker
    threads between them, and post as before."""
    from bot.frontends.discord.notifier import ARCHIVE, CHANNEL

    fake = world.fake
    async with world.running():
        await world.start_game()
        calls: list[tuple[str, tuple]] = []
        call = world.bot.call

        async def counted(fn, /, *args, **kwargs):
            calls.append((getattr(fn, "__name__", repr(fn)), args))
            return await call(fn, *args, **kwargs)

        world.bot.call = counted
        world.clock.advance(timedelta(hours=48))
        world.service.fire_due()
        await world.flush()
    results = [(name, args) for name, args in calls if args and getattr(args[0], "kind", None) == "results"]
    reads = [args[1] for name, args in results if name == "_read" and args[1] is not None]
    assert len(reads) == 1 and reads[0] in (CHANNEL, ARCHIVE)
    assert [name for name, _ in calls if name in ("season", "status")] == []
    posted = [m for m in fake.bot_messages(world.results) if m["embeds"]]
    assert [e["title"] for m in posted for e in m["embeds"]][:1] == ["tannenberg: Spring 1901 Movement (S1901M)"]
    assert [a["filename"] for a in posted[0]["attachments"]] == ["tannenberg-S1901M.png"]
    [thread] = fake.threads(world.results)
    archived = [m for m in fake.bot_messages(thread) if m["embeds"]]
    assert [a["filename"] for a in archived[0]["attachments"]] == ["0000-S1901M.txt"]
