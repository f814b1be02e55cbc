"""The Discord front end: orders by DM, slash commands for players and game masters, results,
archives and reminders posted through the outbox.

:func:`make_bot` builds the bot over a :class:`~bot.service.GameService`; ``crusader serve``
starts it through :func:`create_front_end` when ``DISCORD_TOKEN`` is set.
"""

from __future__ import annotations

import asyncio
import logging

from .client import JudgeBot, ShardedJudgeBot, make_bot
from .config import DiscordSettings, point_discord_at

log = logging.getLogger("crusader.discord")


class DiscordFrontEnd:
    """The bot as one of ``crusader serve``'s front ends."""

    name = "discord"

    def __init__(self, app, settings: DiscordSettings, token: str) -> None:
        self.app = app
        self.settings = settings
        self.token = token
        self.bot = None
        self._task: asyncio.Task | None = None

    async def start(self) -> None:
        point_discord_at(self.settings.api_base, self.settings.gateway_url)
        self.bot = make_bot(self.app.service, settings=self.settings, dispatcher=self.app.dispatcher)
        self._task = asyncio.create_task(self.bot.start(self.token), name="discord")
        self._task.add_done_callback(self._stopped)

    @staticmethod
    def _stopped(task: asyncio.Task) -> None:
        if not task.cancelled() and task.exception() is not None:
            log.error("the Discord front end stopped", exc_info=task.exception())

    async def stop(self) -> None:
        if self.bot is not None and not self.bot.is_closed():
            await self.bot.close()
        if self._task is not None:
            await asyncio.wait([self._task], timeout=10)


def create_front_end(app) -> DiscordFrontEnd | None:
    """The Discord front end when a token is configured (``DISCORD_TOKEN``), else ``None``."""
    settings = DiscordSettings()
    token = settings.token or getattr(app.settings, "discord_token", None)
    if token is None:
        return None
    return DiscordFrontEnd(app, settings, token.get_secret_value())


__all__ = ["DiscordFrontEnd", "DiscordSettings", "JudgeBot", "ShardedJudgeBot", "create_front_end", "make_bot",
           "point_discord_at"]
