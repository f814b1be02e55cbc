"""The fake Discord drives a real discord.py bot end to end: login, sync, DMs, slash commands,
autocomplete, attachments, RESUME after a dropped connection, and 429 handling."""

from __future__ import annotations

import asyncio
import io
import logging
import time

import discord
import pytest
from discord import app_commands
from discord.ext import commands

from tests.fakediscord import FakeDiscord, install_error_collector, remove_error_collector

pytest_plugins = ["tests.fakediscord.fixtures", "pytester"]

PROVINCES = ["Acre", "Aleppo", "Antioch", "Ascalon", "Damascus", "Jerusalem", "Tripoli", "Tyre"]


class EchoBot(commands.Bot):
    """A minimal bot: echoes DMs, has a /game group with /game orders and /ping."""

    def __init__(self, guild_id: int | None = None, **kwargs):
        intents = discord.Intents.default()
        intents.message_content = True
        super().__init__(command_prefix="!", intents=intents, **kwargs)
        self.sync_guild_id = guild_id
        self.dm_seen: list[str] = []

        game = app_commands.Group(name="game", description="Game commands")

        @game.command(name="orders", description="Submit orders")
        @app_commands.describe(province="Where", orders="What")
        async def orders(interaction: discord.Interaction, province: str, orders: str, ephemeral: bool = False):
            await interaction.response.send_message(
                f"{interaction.user.name} in {province}: {orders}", ephemeral=ephemeral
            )

        @orders.autocomplete("province")
        async def province_autocomplete(interaction: discord.Interaction, current: str):
            return [app_commands.Choice(name=p, value=p) for p in PROVINCES if p.lower().startswith(current.lower())]

        @app_commands.command(name="ping", description="Pong")
        async def ping(interaction: discord.Interaction):
            await interaction.response.defer(thinking=True)
            await interaction.followup.send("pong")

        self.tree.add_command(game)
        self.tree.add_command(ping)

    async def setup_hook(self) -> None:
        await self.tree.sync()
        if self.sync_guild_id:
            guild = discord.Object(self.sync_guild_id)
            self.tree.copy_global_to(guild=guild)
            await self.tree.sync(guild=guild)

    async def on_message(self, message: discord.Message) -> None:
        if message.author == self.user:
            return
        if message.guild is None:
            self.dm_seen.append(message.content)
            if message.content == "map":
                await message.channel.send("Your map", file=discord.File(io.BytesIO(b"\x89PNG fake"), "map.png"))
            else:
                await message.channel.send(f"echo: {message.content}")


async def test_login_sync_dm_and_slash(fake_discord: FakeDiscord):
    guild = fake_discord.add_guild("Outremer")
    alice = fake_discord.add_user("alice")
    fake_discord.add_member(guild, alice)
    t0 = time.perf_counter()
    async with fake_discord.run(EchoBot(**fake_discord.client_kwargs())) as bot:
        ready = time.perf_counter() - t0
        assert bot.user.id == fake_discord.bot.id
        assert bot.get_guild(guild.id) is not None
        cmds = await fake_discord.wait_for_commands()
        assert set(cmds) == {"game", "ping"}

        t1 = time.perf_counter()
        await fake_discord.user_sends_dm(alice, "hello")
        reply = await fake_discord.wait_for_message(alice)
        rt = time.perf_counter() - t1
        assert reply["content"] == "echo: hello"

        inter = await fake_discord.slash(alice, "game orders", {"province": "Acre", "orders": "A Acre H"}, guild=guild)
        resp = await fake_discord.wait_for_interaction_response(inter)
        assert resp.type == 4 and resp.content == "alice in Acre: A Acre H"
    print(f"ready {ready*1000:.1f} ms, DM round trip {rt*1000:.1f} ms")
