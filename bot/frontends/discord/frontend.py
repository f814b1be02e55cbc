"""The bot as one of ``crusader serve``'s front ends (:class:`DiscordFrontEnd`), and what to tell an
operator when it cannot log in or its connection ends for good."""

from __future__ import annotations

import asyncio
import logging

import aiohttp
import discord

from .client import JudgeBot, ShardedJudgeBot, make_bot
from .config import DISCORD_API_BASE, DiscordSettings, point_discord_at
from .registration import invite_url

log = logging.getLogger("crusader.discord")


class DiscordFrontEnd:
    """The bot as one of ``crusader serve``'s front ends.

    ``start`` logs in (a token Discord refuses, or a Discord that cannot be reached, is a
    :class:`~bot.app.errors.SetupError` naming the setting), registers the slash commands when
    they changed, logs the invite URL, and connects to the gateway in the background; ``problem``
    says what is wrong once the connection has ended for good.
    """

    name = "discord"

    def __init__(self, app, settings: DiscordSettings, token: str) -> None:
        self.app = app
        self.settings = settings
        self.token = token
        self.bot: JudgeBot | ShardedJudgeBot | None = None
        self._task: asyncio.Task | None = None
        self.problem: str | None = None

    async def start(self) -> None:
        point_discord_at(self.settings.api_base, self.settings.gateway_url)
        self.bot = bot = make_bot(self.app.service, settings=self.settings, dispatcher=self.app.dispatcher)
        bot.sync_record = self.app.settings.data_dir / "discord-commands.json"
        try:
            await bot.login(self.token)
        except BaseException as exc:  # noqa: BLE001 (any failure to log in is explained to the operator)
            await bot.close()
            raise login_error(exc, self.settings.api_base or DISCORD_API_BASE) from None
        if bot.application_id is not None:  # (logging in reads it)
            log.info("invite the bot to a server with %s", invite_url(bot.application_id))
        self._task = asyncio.create_task(bot.connect(reconnect=True), name="discord")
        self._task.add_done_callback(self._stopped)

    def _stopped(self, task: asyncio.Task) -> None:
        if task.cancelled() or (exc := task.exception()) is None:
            return
        self.problem = connection_problem(exc)
        log.debug("the Discord connection ended", exc_info=exc)

    async def stop(self) -> None:
        if self.bot is not None and not self.bot.is_closed():
            await self.bot.close()
        if self._task is not None:
            await asyncio.wait([self._task], timeout=10)


def login_error(exc: BaseException, api_base: str) -> BaseException:
    """What to tell an operator when the bot could not log in."""
    from bot.app.errors import SetupError

    if isinstance(exc, discord.LoginFailure):
        return SetupError("Discord refused the bot's token (DISCORD_TOKEN): copy it again from the Developer "
                          "Portal, your application, Bot, Reset Token (docs/discord.md)")
    if isinstance(exc, discord.HTTPException):
        answer = f"{exc.status} {exc.text}" if exc.text else str(exc.status)
        return SetupError(f"Discord answered {answer} at {api_base} while the bot logged in and registered its "
                          "commands; check DISCORD_TOKEN and DISCORD_API_BASE")
    if isinstance(exc, (OSError, aiohttp.ClientError, asyncio.TimeoutError)):
        return SetupError(f"cannot reach Discord at {api_base} ({type(exc).__name__}: {exc}); check the network, "
                          "or DISCORD_API_BASE")
    return exc


def connection_problem(exc: BaseException) -> str:
    """One sentence for a gateway connection that ended for good."""
    if isinstance(exc, discord.PrivilegedIntentsRequired):
        return "Discord refused the gateway connection: the bot asked for an intent the application does not allow"
    if isinstance(exc, discord.ConnectionClosed) and exc.code == 4004:
        return "Discord closed the gateway: the token (DISCORD_TOKEN) is not valid any more; reset it in the Developer Portal"
    if isinstance(exc, discord.LoginFailure):
        return "Discord refused the bot's token (DISCORD_TOKEN)"
    return f"the Discord connection ended: {type(exc).__name__}: {exc}"
