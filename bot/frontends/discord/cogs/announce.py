"""Plugs the Discord sink into the outbox while the extension is loaded."""

from __future__ import annotations

from discord.ext import commands

from ..notifier import DiscordNotifier
from ..client import JudgeBotMixin


class Announce(commands.Cog):
    def __init__(self, bot: JudgeBotMixin) -> None:
        self.bot = bot
        self.notifier = DiscordNotifier(bot)

    async def cog_load(self) -> None:
        if self.bot.dispatcher is not None:
            self.bot.dispatcher.register(self.notifier)

    async def cog_unload(self) -> None:
        if self.bot.dispatcher is not None and self.notifier in self.bot.dispatcher.notifiers:
            self.bot.dispatcher.notifiers.remove(self.notifier)


async def setup(bot: JudgeBotMixin) -> None:
    await bot.add_cog(Announce(bot))
