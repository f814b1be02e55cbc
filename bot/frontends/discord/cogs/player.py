"""What a player does with slash commands: /orders show|clear, /status, /map, /prestige, /join, /ready,
/concede, /draw."""

from __future__ import annotations

import asyncio
import io
from typing import Any, Protocol, runtime_checkable

import discord
from discord import app_commands
from discord.ext import commands

from adjudicator.modules import standing_column
from adjudicator.variant import get_variant

from bot.service import ServiceError
from bot.service.texts import ending

from ..client import JudgeBotMixin, JudgeInteraction, reply
from ..formatting import file_name, my_orders_text, readiness_text, status_text
from ..identity import player_key
from ..maps import board_png, orders_png
from ..menu_button import open_button
from ..transformers import Game, OpenGame, PowerArg, ProvinceArg, RunningGame, my_game
from bot.store.rows import GameStatus, PlayerStatus


@runtime_checkable
class OpensPanels(Protocol):
    """The panel cog, as this one asks it (an extension's classes are its own: known by what they do)."""

    async def open(self, interaction: JudgeInteraction, game: str) -> None: ...


class Player(commands.Cog):
    def __init__(self, bot: JudgeBotMixin) -> None:
        self.bot = bot
        self.service = bot.service

    orders = app_commands.Group(name="orders", description="Your orders for the current phase (only you see them)")

    @orders.command(name="show", description="Show the orders you have in for this phase, drawn on the map")
    @app_commands.describe(game="The game (default: your only running game)")
    async def orders_show(self, interaction: JudgeInteraction, game: RunningGame | None = None) -> None:
        entry = await my_game(interaction, game)
        mine = await self.bot.call(self.service.my_orders, entry.name, player_key(interaction.user))
        text = my_orders_text(mine, get_variant(entry.variant))
        orders = [line.order for line in mine.orders if line.order is not None]
        menu: dict[str, Any] = {"view": open_button(entry.name)} if mine.must_order else {}
        if not orders:
            await reply(interaction, text, **menu)
            return
        # the picture is for the asker alone, like the text: an ephemeral answer with it attached
        await interaction.response.defer(ephemeral=True, thinking=True)
        variant, position = await self.bot.call(self.service.board, entry.name)
        png = None
        if str(position.phase) == mine.phase:  # not adjudicated meanwhile
            png = await asyncio.to_thread(orders_png, variant, position, orders)
        if png is None:
            await reply(interaction, text, **menu)
            return
        await reply(interaction, text, file=discord.File(io.BytesIO(png), file_name(
            f"{entry.name}-{mine.phase}-{mine.power}-orders", "png")), **menu)

    @orders.command(name="edit", description="Order by menus and buttons (only you see them)")
    @app_commands.describe(game="The game (default: your only running game)")
    async def orders_edit(self, interaction: JudgeInteraction, game: RunningGame | None = None) -> None:
        entry = await my_game(interaction, game)
        panel = self.bot.get_cog("PanelCog")
        assert isinstance(panel, OpensPanels)  # (loaded with this one)
        await panel.open(interaction, entry.name)

    @orders.command(name="clear", description="Withdraw your orders for this phase (all, or one unit's)")
    @app_commands.describe(game="The game (default: your only running game)",
                           province="Only the order for the unit in this province")
    async def orders_clear(self, interaction: JudgeInteraction, game: RunningGame | None = None,
                           province: ProvinceArg | None = None) -> None:
        entry = await my_game(interaction, game)
        mine = await self.bot.call(self.service.clear_orders, entry.name, player_key(interaction.user),
                                       province.province if province is not None else None)
        await reply(interaction, "Withdrawn.\n" + my_orders_text(mine, get_variant(entry.variant)))

    @app_commands.command(name="status", description="Phase, deadline and who has orders in")
    @app_commands.describe(game="The game (default: your only game)")
    async def status(self, interaction: JudgeInteraction, game: Game | None = None) -> None:
        entry = await my_game(interaction, game)
        view = await self.bot.call(self.service.status, entry.name)
        await reply(interaction, status_text(view, get_variant(entry.variant)), ephemeral=False)

    @app_commands.command(name="map", description="The board as it stands")
    @app_commands.describe(game="The game (default: your only game)")
    async def map(self, interaction: JudgeInteraction, game: Game | None = None) -> None:
        entry = await my_game(interaction, game)
        await interaction.response.defer(thinking=True)
        variant, position = await self.bot.call(self.service.board, entry.name)
        png = await asyncio.to_thread(board_png, variant, position)
        if png is None:
            await interaction.followup.send("The map picture is not available on this judge; `/status` has the "
                                            "centre counts.")
            return
        await interaction.followup.send(f"{entry.name}, {position.phase}",
                                        file=discord.File(io.BytesIO(png), file_name(f"{entry.name}-{position.phase}", "png")))

    @app_commands.command(name="prestige", description="Prestige of every power (prestige games)")
    @app_commands.describe(game="The game (default: your only running game)")
    async def prestige(self, interaction: JudgeInteraction, game: RunningGame | None = None) -> None:
        entry = await my_game(interaction, game)
        variant, position = await self.bot.call(self.service.board, entry.name)
        column = standing_column(position)
        if column is None:
            await reply(interaction, f"'{entry.name}' is not played with the prestige rules.")
            return
        me = entry.power
        if me is None:
            mine = [g for g in await self.bot.call(self.service.directory, player=player_key(interaction.user))
                    if g.id == entry.id]
            me = mine[0].power if mine else None
        lines = [f"**Prestige in {entry.name}, {position.phase}**"]
        for power, amount in sorted(column[1].items()):
            you = " (you)" if power == me else ""
            lines.append(f"{variant.power_name(power)}{you}: {amount}")
        await reply(interaction, "\n".join(lines))

    @app_commands.command(name="join", description="Join a game (one under way: its waiting list)")
    @app_commands.describe(game="A game that is forming, or under way",
                           power="The power you would like (default: drawn at start)")
    async def join(self, interaction: JudgeInteraction, game: OpenGame, power: PowerArg | None = None) -> None:
        me = player_key(interaction.user)
        view = await self.bot.call(self.service.join, game.name, me, power)
        seated = [p for p in view.players if p.status != PlayerStatus.WAITING]
        if any(p.player == me and p.status == PlayerStatus.WAITING for p in view.players):
            waiting = len(view.players) - len(seated)
            why = "is under way" if view.status != GameStatus.FORMING else "has a player for every power"
            text = (f"'{view.name}' {why}: {interaction.user.mention} is on its waiting list ({waiting} waiting); "
                    "the game master may give you a power.")
        else:
            as_power = f" as {get_variant(game.variant).power_name(power)}" if power else ""
            powers = len(get_variant(game.variant).powers)
            text = (f"{interaction.user.mention} joined '{view.name}'{as_power}; "
                    f"{len(seated)} of {powers} player(s) so far.")
        await reply(interaction, text, ephemeral=view.anonymous)  # an anonymous game names nobody

    @app_commands.command(name="ready", description="Say your orders for this phase are final (or, ready:False, "
                                                     "that they are not)")
    @app_commands.describe(game="The game (default: your only running game)",
                           ready="True: final (new orders take it back); False: not final any more")
    async def ready(self, interaction: JudgeInteraction, game: RunningGame | None = None, ready: bool = True) -> None:
        entry = await my_game(interaction, game)
        await interaction.response.defer(ephemeral=True, thinking=True)  # the last one ready adjudicates the phase
        answer = await self.bot.call(self.service.ready, entry.name, player_key(interaction.user), ready)
        await reply(interaction, readiness_text(answer, get_variant(entry.variant)))
        if answer.adjudicated:
            self.bot.kick_outbox()

    @app_commands.command(name="concede", description="Concede the game to a power (or withdraw your concession)")
    @app_commands.describe(game="The game (default: your only running game)", to="The power you concede the game to",
                           withdraw="True to withdraw your concession")
    async def concede(self, interaction: JudgeInteraction, game: RunningGame | None = None,
                      to: PowerArg | None = None, withdraw: bool = False) -> None:
        if (to is None) == (not withdraw):
            raise ServiceError("name the power you concede the game to (`to`), or withdraw your concession "
                               "(`withdraw:True`)")
        entry = await my_game(interaction, game)
        view = await self.bot.call(self.service.concede, entry.name, player_key(interaction.user),
                                   None if withdraw else to)
        variant = get_variant(entry.variant)
        if view.status == GameStatus.ENDED:
            text = f"{ending(view.outcome).strip()} ('{view.name}')"
        elif withdraw or to is None:  # (no power only when withdrawn, as checked above)
            text = f"Your concession in '{view.name}' is withdrawn."
        else:
            text = (f"You concede '{view.name}' to {variant.power_name(to)}: the game ends with its victory once the "
                    "players of every other surviving power concede it too. (`/concede withdraw:True` takes it back.)")
        await reply(interaction, text)
        self.bot.kick_outbox()

    @app_commands.command(name="draw", description="Vote for (or withdraw your vote for) a draw")
    @app_commands.describe(game="The game (default: your only running game)", vote="True to vote for, False to withdraw")
    async def draw(self, interaction: JudgeInteraction, game: RunningGame | None = None, vote: bool = True) -> None:
        entry = await my_game(interaction, game)
        view = await self.bot.call(self.service.vote_draw, entry.name, player_key(interaction.user), vote)
        if view.status == GameStatus.ENDED:
            text = f"'{view.name}' has ended in a draw."
        else:
            text = f"Your draw vote in '{view.name}' is {'recorded' if vote else 'withdrawn'}."
        await reply(interaction, text)
        self.bot.kick_outbox()


async def setup(bot: JudgeBotMixin) -> None:
    await bot.add_cog(Player(bot))
