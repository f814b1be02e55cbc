"""Connecting the bot, as an operator does it (docs/discord.md): a refused token stops `crusader serve`
with the setting to change, the invite URL is in the log, slash commands are registered only when
they changed (globally, or in a test server only), and a connection that ends for good is reported
by `crusader health`, while the rest of the judge keeps running."""

from __future__ import annotations

import asyncio
import logging
import os

import discord.gateway
import discord.http
import pytest

from bot.app.errors import SetupError
from bot.app.serve import build_app, serve
from bot.app.settings import Settings
from bot.cli.common import Exit
from bot.cli.main import main
from bot.frontends.discord import create_front_end
from bot.frontends.discord.registration import PERMISSIONS, invite_url
from tests.fakediscord import FakeDiscord

PUT_GLOBAL = "PUT /applications/{application_id}/commands"


@pytest.fixture
async def fake(monkeypatch, tmp_path):
    """A fake Discord on plain HTTP and an environment that points the judge at it, as docs/discord.md says."""
    monkeypatch.setattr(discord.http.Route, "BASE", discord.http.Route.BASE)  # restored after the test
    monkeypatch.setattr(discord.gateway.DiscordWebSocket, "DEFAULT_GATEWAY",
                        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY)
    for key in list(os.environ):
        if key.startswith(("CRUSADER_", "DISCORD_")):
            monkeypatch.delenv(key)
    fake = await FakeDiscord().start(tls=False)
    fake.add_guild("Outremer", text_channels=("general", "results"))
    monkeypatch.setenv("DISCORD_TOKEN", fake.token)
    monkeypatch.setenv("DISCORD_API_BASE", fake.api_base)
    monkeypatch.setenv("DISCORD_GATEWAY_URL", fake.gateway_url)
    monkeypatch.setenv("CRUSADER_DATA_DIR", str(tmp_path / "data"))
    yield fake
    await fake.stop()
    assert fake.problems() == []


async def start_front_end(tmp_path):
    app = build_app(Settings(data_dir=tmp_path / "data"))
    front = create_front_end(app)
    await front.start()
    return app, front


async def test_a_refused_token_is_a_setup_error_naming_discord_token(fake, tmp_path, monkeypatch):
    monkeypatch.setenv("DISCORD_TOKEN", "not-the-token")
    app = build_app(Settings(data_dir=tmp_path / "data"))
    with pytest.raises(SetupError, match=r"Discord refused the bot's token \(DISCORD_TOKEN\): copy it again"):
        await create_front_end(app).start()
    monkeypatch.setenv("DISCORD_API_BASE", "http://127.0.0.1:1/api/v10")
    with pytest.raises(SetupError, match=r"cannot reach Discord at http://127.0.0.1:1/api/v10 .*DISCORD_API_BASE"):
        await create_front_end(app).start()
    app.db.dispose()


async def test_the_invite_url_is_logged_with_both_scopes_and_the_permissions(fake, tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="crusader.discord")
    app, front = await start_front_end(tmp_path)
    try:
        url = invite_url(fake.application_id)
        assert f"invite the bot to a server with {url}" in caplog.text
        assert url == (f"https://discord.com/oauth2/authorize?client_id={fake.application_id}"
                       f"&scope=bot+applications.commands&permissions={PERMISSIONS.value}")
        assert {name for name, on in PERMISSIONS if on} == {  # read_messages is View Channel
            "read_messages", "send_messages", "read_message_history", "embed_links", "attach_files",
            "create_public_threads", "send_messages_in_threads"}
    finally:
        await front.stop()
        app.db.dispose()


async def test_slash_commands_are_registered_once_not_on_every_start(fake, tmp_path):
    for _ in range(2):
        app, front = await start_front_end(tmp_path)
        await fake.wait_until(lambda front=front: front.bot.is_ready(), what="the bot to be ready")
        await front.stop()
        app.db.dispose()
    assert len(fake.requests_to(PUT_GLOBAL)) == 1
    assert "game" in fake.commands()
    (tmp_path / "data" / "discord-commands.json").unlink()  # a new data directory registers again
    app, front = await start_front_end(tmp_path)
    await front.stop()
    app.db.dispose()
    assert len(fake.requests_to(PUT_GLOBAL)) == 2


async def test_a_test_server_gets_the_commands_at_once_and_never_can_be_asked(fake, tmp_path, monkeypatch):
    [guild] = fake.guilds.values()
    monkeypatch.setenv("DISCORD_COMMAND_GUILDS", str(guild.id))
    app, front = await start_front_end(tmp_path)
    await front.stop()
    app.db.dispose()
    assert "game" in fake.commands(guild=guild) and not fake.requests_to(PUT_GLOBAL)
    monkeypatch.delenv("DISCORD_COMMAND_GUILDS")
    monkeypatch.setenv("DISCORD_SYNC_COMMANDS", "never")
    app, front = await start_front_end(tmp_path)
    await front.stop()
    app.db.dispose()
    assert not fake.requests_to(PUT_GLOBAL)


async def test_a_connection_ended_for_good_makes_health_unhealthy_and_the_judge_runs_on(fake, tmp_path, capsys):
    stop = asyncio.Event()
    running = asyncio.create_task(serve(Settings(data_dir=tmp_path / "data", front_ends="discord"), stop=stop))
    try:
        await fake.wait_until(lambda: fake.identifies >= 1 and fake.session is not None, what="the bot connected")
        await fake.wait_until(lambda: _status_says(tmp_path, '"discord": null'), what="the status file written")
        assert main(["health"]) == Exit.OK
        assert "serving (discord)" in capsys.readouterr().out

        fake.token = "reset-in-the-portal"  # the operator reset the token: the session cannot come back
        await fake.invalidate_session()
        await fake.wait_until(lambda: not running.done() and _status_says(tmp_path, "not valid any more"),
                              what="the status file to report the closed gateway")
        assert main(["health"]) == Exit.FAILED
        err = capsys.readouterr().err
        assert "crusader: unhealthy: discord front end of" in err and "DISCORD_TOKEN" in err
        assert not running.done()  # deadlines, mail and the site go on
    finally:
        stop.set()
        await asyncio.wait_for(running, 60)
    assert not list((tmp_path / "data" / "run").glob("serve-*.json"))  # a clean stop leaves no status


def _status_says(tmp_path, words: str) -> bool:
    return any(words in path.read_text() for path in (tmp_path / "data" / "run").glob("serve-*.json"))


def test_crusader_discord_sync_and_invite(tmp_path, monkeypatch, capsys):
    """The commands an operator runs by hand: register the commands now (in a test server only),
    and the invite URL, each logging in and leaving at once."""
    from tests.fakediscord.threaded import FakeDiscordThread

    monkeypatch.setattr(discord.http.Route, "BASE", discord.http.Route.BASE)
    monkeypatch.setattr(discord.gateway.DiscordWebSocket, "DEFAULT_GATEWAY",
                        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY)
    for key in list(os.environ):
        if key.startswith(("CRUSADER_", "DISCORD_")):
            monkeypatch.delenv(key)
    threaded = FakeDiscordThread()
    try:
        fake = threaded.fake
        guild = threaded.read(lambda: fake.add_guild("Test server"))
        data = ["--data-dir", str(tmp_path / "data")]
        assert main(["discord", "sync", *data]) == Exit.FAILED
        assert "set DISCORD_TOKEN to the bot's token first" in capsys.readouterr().err
        monkeypatch.setenv("DISCORD_TOKEN", fake.token)
        monkeypatch.setenv("DISCORD_API_BASE", fake.api_base)
        monkeypatch.setenv("DISCORD_GATEWAY_URL", fake.gateway_url)
        assert main(["discord", "sync", "--guild", str(guild.id), *data]) == Exit.OK
        out = capsys.readouterr().out
        assert f"(guild:{guild.id})" in out and f"invite URL: {invite_url(fake.application_id)}" in out
        assert "game" in threaded.read(lambda: fake.commands(guild=guild))
        assert not threaded.read(lambda: fake.requests_to(PUT_GLOBAL))
        assert main(["discord", "invite", *data]) == Exit.OK
        assert capsys.readouterr().out == f"invite URL: {invite_url(fake.application_id)}\n"
        monkeypatch.setenv("DISCORD_TOKEN", "wrong")
        assert main(["discord", "invite", *data]) == Exit.FAILED
        assert "Discord refused the bot's token (DISCORD_TOKEN)" in capsys.readouterr().err
        assert threaded.read(fake.problems) == []
    finally:
        threaded.stop()
