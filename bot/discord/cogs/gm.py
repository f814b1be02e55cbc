"""Game masters' commands: /game new|start|deadline|pause|resume|extend|adjudicate|rollback|replace|kick|end|export.

Each is refused, with a message, to anyone who is not the game's master and holds no configured
game-master role (:func:`bot.discord.checks.is_gm`).
"""

from __future__ import annotations

import io
import json
import discord
from discord import app_commands
from discord.ext import commands

from adjudicator.variant import get_variant, variant_names

from ...archive import export_game
from ...service import DeadlinePolicy, GameView, ServiceError
from ..checks import acting_gm, is_gm
from ..client import reply
from ..formatting import deadline_text, phase_name
from ..identity import player_key
from ..transformers import Duration, Game, PowerArg, RunningGame

VARIANTS = [app_commands.Choice(name=name, value=name) for name in variant_names()]


def _started(view: GameView) -> str:
    return f"'{view.name}' is {view.status}: {phase_name(view.phase)}, deadline {deadline_text(view.deadline_at)}."


def _deadline(view: GameView) -> str:
    return f"Deadline for {view.phase} in '{view.name}': {deadline_text(view.deadline_at)}."


@app_commands.guild_only()
class GameMaster(commands.GroupCog, group_name="game", group_description="Run a game (its game master only)"):
    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot
        self.service = bot.service
        super().__init__()

    async def _act(self, interaction: discord.Interaction, text: str, *, public: bool = True) -> None:
        await reply(interaction, text, ephemeral=not public)
        self.bot.kick_outbox()

    @app_commands.command(name="new", description="Create a game; results are posted in this (or the given) channel")
    @app_commands.describe(name="The game's name", variant="The map", channel="Where results go (default: here)",
                           movement="Length of movement phases, e.g. 48h", retreat="Length of retreat phases, e.g. 24h",
                           adjustment="Length of adjustment phases, e.g. 24h",
                           prestige="Play with the prestige rules (default: on for crusader)")
    @app_commands.choices(variant=VARIANTS)
    @is_gm(new_game=True)
    async def new(self, interaction: discord.Interaction, name: app_commands.Range[str, 1, 100], variant: str,
                  channel: discord.TextChannel | None = None, movement: Duration | None = None,
                  retreat: Duration | None = None, adjustment: Duration | None = None,
                  prestige: bool | None = None) -> None:
        target = channel or interaction.channel
        if not isinstance(target, discord.TextChannel):
            raise ServiceError("results need a text channel: run /game new in one, or give the channel option")
        games = await self.bot.call(self.service.directory)
        if any(g.name.lower() == name.strip().lower() for g in games):
            raise ServiceError(f"there is already a game called {name.strip()!r}; choose another name")
        await interaction.response.defer()
        try:
            archive = await target.create_thread(name=f"{name.strip()} archive"[:100],
                                                 type=discord.ChannelType.public_thread, auto_archive_duration=10080)
        except discord.HTTPException as exc:
            raise ServiceError(f"I cannot open the archive thread in {target.mention} ({exc.text or exc}); "
                               "I need Create Public Threads and Send Messages in Threads there") from None
        defaults = DeadlinePolicy()
        policy = DeadlinePolicy(movement=movement or defaults.movement, retreat=retreat or defaults.retreat,
                                adjustment=adjustment or defaults.adjustment,
                                extra={"discord": {"guild": interaction.guild_id, "channel": target.id,
                                                   "archive": archive.id}})
        rules = ("prestige",) if (prestige if prestige is not None else variant == "crusader") else ()
        view = await self.bot.call(self.service.create_game, name, variant, player_key(interaction.user),
                                       policy=policy, rules=rules)
        await archive.send(f"Archive of '{view.name}': each adjudicated season is filed here.")
        await interaction.followup.send(
            f"Game '{view.name}' ({variant}{', prestige rules' if rules else ''}) created by "
            f"{interaction.user.mention}. Results go to {target.mention}, the archive to {archive.mention}. "
            f"Players: `/join game:{view.name}`; then `/game start`.")

    @app_commands.command(name="start", description="Start the game: powers are drawn, the clock starts")
    @is_gm()
    async def start(self, interaction: discord.Interaction, game: Game) -> None:
        view = await self.bot.call(self.service.start, game.name, acting_gm(interaction, game))
        await self._act(interaction, _started(view))

    @app_commands.command(name="deadline", description="Set this phase's deadline to a time from now")
    @app_commands.describe(after="How long from now, e.g. 36h")
    @is_gm()
    async def deadline(self, interaction: discord.Interaction, game: RunningGame, after: Duration) -> None:
        at = self.service.now() + after
        view = await self.bot.call(self.service.set_deadline, game.name, acting_gm(interaction, game), at)
        await self._act(interaction, _deadline(view))

    @app_commands.command(name="pause", description="Pause the game (the deadline is suspended)")
    @is_gm()
    async def pause(self, interaction: discord.Interaction, game: RunningGame) -> None:
        view = await self.bot.call(self.service.pause, game.name, acting_gm(interaction, game))
        await self._act(interaction, f"'{view.name}' is paused.")

    @app_commands.command(name="resume", description="Resume a paused game")
    @is_gm()
    async def resume(self, interaction: discord.Interaction, game: RunningGame) -> None:
        view = await self.bot.call(self.service.resume, game.name, acting_gm(interaction, game))
        await self._act(interaction, _started(view))

    @app_commands.command(name="extend", description="Push the deadline back")
    @app_commands.describe(by="How much longer, e.g. 24h")
    @is_gm()
    async def extend(self, interaction: discord.Interaction, game: RunningGame, by: Duration) -> None:
        view = await self.bot.call(self.service.extend, game.name, acting_gm(interaction, game), by)
        await self._act(interaction, _deadline(view))

    @app_commands.command(name="adjudicate", description="Adjudicate now (missing orders count as NMR)")
    @is_gm()
    async def adjudicate(self, interaction: discord.Interaction, game: RunningGame) -> None:
        await interaction.response.defer()
        outcome = await self.bot.call(self.service.force_adjudicate, game.name, acting_gm(interaction, game))
        view = await self.bot.call(self.service.status, game.name)
        await interaction.followup.send(f"{game.phase} of '{game.name}': {outcome}. {_started(view)}")
        self.bot.kick_outbox()

    @app_commands.command(name="rollback", description="Undo the last adjudication")
    @is_gm()
    async def rollback(self, interaction: discord.Interaction, game: Game) -> None:
        view = await self.bot.call(self.service.rollback, game.name, acting_gm(interaction, game))
        await self._act(interaction, f"Rolled back. {_started(view)}")

    @app_commands.command(name="replace", description="Give a power to another player")
    @app_commands.describe(power="The power", player="Its new player")
    @is_gm()
    async def replace(self, interaction: discord.Interaction, game: Game, power: PowerArg, player: discord.User) -> None:
        await self.bot.call(self.service.replace_player, game.name, acting_gm(interaction, game), power,
                                player_key(player))
        await self._act(interaction, f"{get_variant(game.variant).power_name(power)} in '{game.name}' is now played "
                                     f"by {player.mention}.")

    @app_commands.command(name="kick", description="Remove a power's player (the power goes into civil disorder)")
    @is_gm()
    async def kick(self, interaction: discord.Interaction, game: Game, power: PowerArg) -> None:
        await self.bot.call(self.service.remove_player, game.name, acting_gm(interaction, game), power)
        await self._act(interaction, f"{get_variant(game.variant).power_name(power)}'s player has been removed from "
                                     f"'{game.name}'; the power is in civil disorder.")

    @app_commands.command(name="end", description="End the game")
    @app_commands.describe(reason="Why (shown to the players)")
    @is_gm()
    async def end(self, interaction: discord.Interaction, game: Game, reason: str = "") -> None:
        await self.bot.call(self.service.end_game, game.name, acting_gm(interaction, game), reason)
        await self._act(interaction, f"'{game.name}' has ended{': ' + reason if reason else ''}.")

    @app_commands.command(name="export", description="The whole game as one JSON file (for `crusader verify`)")
    @is_gm()
    async def export(self, interaction: discord.Interaction, game: Game) -> None:
        doc = await self.bot.call(export_game, self.service.db, game.name)
        if doc["game"]["status"] in ("active", "paused"):  # this phase's orders stay private until adjudicated
            current = doc["game"]["version"]
            doc["orders"] = []
            doc["submissions"] = [s for s in doc.get("submissions", []) if s["version"] < current]
        data = json.dumps(doc, ensure_ascii=False, indent=1, sort_keys=True).encode("utf-8")
        await interaction.response.send_message(
            f"Export of '{game.name}' ({len(doc.get('seasons', []))} seasons).", ephemeral=True,
            file=discord.File(io.BytesIO(data), f"{game.name}.json"))


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(GameMaster(bot))
