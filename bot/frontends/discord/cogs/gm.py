"""Game masters' commands: /game new|settings|start|assign|kick|replace|restore|deadline|pause|resume|
extend|adjudicate|rollback|end|export.

Discord shows ``/game`` to members with Manage Server, and to the roles and members a server's
Integrations settings allow (its default member permissions). Each command is also refused, with a
message, to anyone who is not the game's master and holds no configured game-master role
(:func:`bot.frontends.discord.checks.is_gm`).
"""

from __future__ import annotations

import io
import json
from dataclasses import replace

import discord
from discord import app_commands
from discord.ext import commands

from adjudicator.errors import CrusaderError
from adjudicator.variant import get_variant, variant_names
from adjudicator.vocab import Power

from bot.archive.games import export_game
from bot.service import DeadlinePolicy, GameView, ServiceError, UnplayedPowersError, parse_moment
from bot.service.policy import MAX_PRESS_CHARS, PRESS_RULES
from bot.service.texts import SETTING_NAMES, setting
from ..checks import acting_gm, is_gm
from ..client import JudgeBotMixin, JudgeInteraction, reply
from ..formatting import deadline_text, file_name, phase_name, settings_lines
from ..notifier import ARCHIVE_NEEDS, RESULTS_NEEDS
from ..identity import player_key
from ..transformers import Duration, Durations, FormingGame, Game, Grace, PowerArg, RunningGame
from bot.store.rows import GameStatus, PlayerStatus

VARIANTS = [app_commands.Choice(name=name, value=name) for name in variant_names()]
# What a new game needs of its channel: its results posted there, its archive thread opened and posted in
NEW_GAME_NEEDS = tuple(dict.fromkeys((*RESULTS_NEEDS, "create_public_threads", *ARCHIVE_NEEDS)))


def _started(view: GameView) -> str:
    return f"'{view.name}' is {view.status}: {phase_name(view.phase)}, deadline {deadline_text(view.deadline_at)}."


def variant_power(game, power: str) -> str:
    return get_variant(game.variant).power_name(Power(power))


def _seats(view: GameView, game) -> str:
    """Who has joined a forming game so far: how many of the powers have a player, and who waits."""
    powers = len(get_variant(game.variant).powers)
    seated = [p for p in view.players if p.status != PlayerStatus.WAITING]
    waiting = len(view.players) - len(seated)
    return (f"{len(seated)} of {powers} player(s)" + (f", {waiting} waiting" if waiting else "") + ".")


def _deadline(view: GameView) -> str:
    return f"Deadline for {view.phase} in '{view.name}': {deadline_text(view.deadline_at)}."


SETTINGS_HELP = {
    "movement": "Length of movement phases, e.g. 48h",
    "retreat": "Length of retreat phases, e.g. 24h",
    "adjustment": "Length of adjustment (build) phases, e.g. 24h",
    "grace": "After a missed deadline, wait this long for the late (e.g. 12h; none: no grace)",
    "reminders": "Reminders this long before each deadline, e.g. 24h, 1h (none: no reminders)",
    "nmr_limit": "Phases in a row without orders before a power goes into civil disorder (0: never)",
    "early": "End a phase as soon as every power that must decide is ready (/ready)",
    "timezone": "The game's time zone (an IANA name like Europe/Paris): how dates and times are read",
    "press": "What players may say to each other: full, public (to everyone only), grey (may be anonymous), none",
    "press_all_phases": "Press flows in retreat and adjustment phases too (off: in movement phases only)",
    "press_published": "Put the game's press on its archive site when the game ends",
    "press_max_chars": "The longest message of press, in characters",
    "press_per_hour": "Messages of press one power may send in an hour (0: no bound)",
    "anonymous": "Nobody but the game master knows who plays which power until the end (before the start only)",
}
PRESS_CHOICES = [app_commands.Choice(name=rule, value=rule) for rule in PRESS_RULES]
"""Every setting of a game (:data:`bot.service.policy.SETTINGS`) as ``/game new`` and ``/game settings``
describe it: the two commands take the same settings, and ``crusader game set`` too."""


def _changes(**options) -> dict:
    """The settings a command was given (those left out: not there), as the service takes them."""
    return {key: value.strip() if isinstance(value, str) else value
            for key, value in options.items() if value is not None}


@app_commands.guild_only()
@app_commands.default_permissions(manage_guild=True)  # shown to Manage Server, or whom the server's Integrations allow
class GameMaster(commands.GroupCog, group_name="game", group_description="Run a game (its game master only)"):
    def __init__(self, bot: JudgeBotMixin) -> None:
        self.bot = bot
        self.service = bot.service
        super().__init__()

    async def _act(self, interaction: JudgeInteraction, text: str, *, public: bool = True,
                   player: discord.abc.Snowflake | None = None) -> None:
        """Answer (publicly by default) and deliver what the action announced; ``player``: the one
        player the answer is about, who is notified (nobody else is)."""
        mentions = discord.AllowedMentions(users=[player]) if player is not None else discord.AllowedMentions.none()
        await reply(interaction, text, ephemeral=not public, allowed_mentions=mentions)
        self.bot.kick_outbox()

    @app_commands.command(name="new", description="Create a game; results are posted in this (or the given) channel")
    @app_commands.describe(name="The game's name", variant="The map", channel="Where results go (default: here)",
                           prestige="Add the prestige rules to a map played without them (crusader always has them)",
                           **SETTINGS_HELP)
    @app_commands.choices(variant=VARIANTS, press=PRESS_CHOICES)
    @is_gm(new_game=True)
    async def new(self, interaction: JudgeInteraction, name: app_commands.Range[str, 1, 100], variant: str,
                  channel: discord.TextChannel | None = None, movement: Duration | None = None,
                  retreat: Duration | None = None, adjustment: Duration | None = None,
                  timezone: app_commands.Range[str, 1, 64] | None = None, prestige: bool | None = None,
                  grace: Grace | None = None, reminders: Durations | None = None,
                  nmr_limit: app_commands.Range[int, 0, 1000] | None = None, early: bool | None = None,
                  press: str | None = None, press_all_phases: bool | None = None, press_published: bool | None = None,
                  press_max_chars: app_commands.Range[int, 1, MAX_PRESS_CHARS] | None = None,
                  press_per_hour: app_commands.Range[int, 0, 1000] | None = None,
                  anonymous: bool | None = None) -> None:
        target = channel or interaction.channel
        if not isinstance(target, discord.TextChannel):
            raise ServiceError("results need a text channel: run /game new in one, or give the channel option")
        missing = [p for p in NEW_GAME_NEEDS if not getattr(target.permissions_for(target.guild.me), p)]
        if missing:
            raise ServiceError(f"I lack the permission(s) {', '.join(missing)} in {target.mention}, where this game "
                               "would post its results and open its archive thread; give them to me there, or "
                               "choose another channel")
        own = get_variant(variant).rules
        if prestige is False and "prestige" in own:
            raise ServiceError(f"the {variant} map is always played with the prestige rules (its neutral units, "
                               "vassals and bids need them); leave the prestige option out")
        rules = ("prestige",) if prestige and "prestige" not in own else ()
        policy = DeadlinePolicy().changed(_changes(movement=movement, retreat=retreat, adjustment=adjustment,
                                                   grace=grace, reminders=reminders, nmr_limit=nmr_limit,
                                                   early=early, timezone=timezone, press=press,
                                                   press_all_phases=press_all_phases, press_published=press_published,
                                                   press_max_chars=press_max_chars, press_per_hour=press_per_hour,
                                                   anonymous=anonymous))
        # the name and the rest are checked before anything is made: a refused game leaves no thread behind
        await self.bot.call(self.service.check_new_game, name, variant, rules)
        await interaction.response.defer()
        try:
            archive = await target.create_thread(name=f"{name.strip()} archive"[:100],
                                                 type=discord.ChannelType.public_thread, auto_archive_duration=10080)
        except discord.HTTPException as exc:
            raise ServiceError(f"I cannot open the archive thread in {target.mention} ({exc.text or exc}); "
                               "I need Create Public Threads and Send Messages in Threads there") from None
        policy = replace(policy, extra={"discord": {"guild": interaction.guild_id, "channel": target.id,
                                                    "archive": archive.id}})
        view = await self.bot.call(self.service.create_game, name, variant, player_key(interaction.user),
                                   policy=policy, rules=rules)
        with_prestige = "prestige" in own or "prestige" in rules
        await archive.send(f"Archive of '{view.name}': each adjudicated season is filed here.")
        await interaction.followup.send(
            f"Game '{view.name}' ({variant}{', prestige rules' if with_prestige else ''}"
            f"{f', deadlines in {policy.timezone}' if policy.timezone != 'UTC' else ''}) created by "
            f"{interaction.user.mention}. Results go to {target.mention}, the archive to {archive.mention}. "
            f"Players: `/join game:{view.name}`; then `/game start`.\nSettings (`/game settings` changes them):\n"
            + "\n".join(settings_lines(policy)))

    @app_commands.command(name="settings", description="The game's settings; give any of them to change it "
                                                        "(from the next deadline)")
    @app_commands.describe(**SETTINGS_HELP)
    @app_commands.choices(press=PRESS_CHOICES)
    @is_gm()
    async def settings(self, interaction: JudgeInteraction, game: Game, movement: Duration | None = None,
                       retreat: Duration | None = None, adjustment: Duration | None = None,
                       grace: Grace | None = None, reminders: Durations | None = None,
                       nmr_limit: app_commands.Range[int, 0, 1000] | None = None, early: bool | None = None,
                       timezone: app_commands.Range[str, 1, 64] | None = None, press: str | None = None,
                       press_all_phases: bool | None = None, press_published: bool | None = None,
                       press_max_chars: app_commands.Range[int, 1, MAX_PRESS_CHARS] | None = None,
                       press_per_hour: app_commands.Range[int, 0, 1000] | None = None,
                       anonymous: bool | None = None) -> None:
        changes = _changes(movement=movement, retreat=retreat, adjustment=adjustment, grace=grace,
                           reminders=reminders, nmr_limit=nmr_limit, early=early, timezone=timezone, press=press,
                           press_all_phases=press_all_phases, press_published=press_published,
                           press_max_chars=press_max_chars, press_per_hour=press_per_hour, anonymous=anonymous)
        if not changes:
            policy = await self.bot.call(self.service.policy_of, game.name)
            await reply(interaction, f"Settings of '{game.name}' (give any of them to change it):\n"
                        + "\n".join(settings_lines(policy)))
            return
        await interaction.response.defer(ephemeral=True, thinking=True)  # early adjudication turned on may adjudicate
        change = await self.bot.call(self.service.set_policy, game.name, acting_gm(interaction, game), changes)
        if not change.changed:
            await reply(interaction, f"Nothing to change: the settings of '{game.name}' were already so.")
            return
        where = (game.extra.get("discord") or {}).get("channel")
        told = f"announced in <#{where}>" if where else "announced to the players"
        when = "; the phase under way keeps its deadline" if change.game.status != GameStatus.FORMING else ""
        await reply(interaction, f"Changed in '{game.name}' ({told}{when}):\n"
                    + "\n".join(f"• {SETTING_NAMES[key]}: {setting(change.before, key)} → {setting(change.after, key)}"
                                 for key in change.changed))
        self.bot.kick_outbox()

    @app_commands.command(name="start", description="Start the game: powers are drawn, the clock starts")
    @app_commands.describe(fill="Start even though some powers have no player: they start in civil disorder")
    @is_gm()
    async def start(self, interaction: JudgeInteraction, game: Game, fill: bool = False) -> None:
        try:
            view = await self.bot.call(self.service.start, game.name, acting_gm(interaction, game),
                                       fill_civil_disorder=fill)
        except UnplayedPowersError as exc:
            raise UnplayedPowersError(f"{exc}: `/game start game:{game.name} fill:True`", exc.unplayed) from None
        await self._act(interaction, _started(view))

    @app_commands.command(name="deadline", description="Set this phase's deadline: a time from now, or a date and time")
    @app_commands.describe(after="How long from now, e.g. 36h, 2d or 90m",
                           at="A date and time, e.g. 2031-03-01 18:00 (in the game's time zone) or "
                              "2031-03-01 18:00 Europe/Paris")
    @is_gm()
    async def deadline(self, interaction: JudgeInteraction, game: RunningGame,
                       after: Duration | None = None, at: app_commands.Range[str, 1, 64] | None = None) -> None:
        if (after is None) == (at is None):
            raise ServiceError("give the new deadline one way: `after` (a time from now, like 36h) or `at` (a date "
                               "and time, like 2031-03-01 18:00)")
        if at is not None:
            policy = await self.bot.call(self.service.policy_of, game.name)
            try:
                moment = parse_moment(at, policy.timezone)
            except CrusaderError as exc:
                raise ServiceError(str(exc)) from None
        else:
            assert after is not None  # (one of the two, as checked above)
            moment = self.service.now() + after
        view = await self.bot.call(self.service.set_deadline, game.name, acting_gm(interaction, game), moment)
        await self._act(interaction, _deadline(view))

    @app_commands.command(name="pause", description="Pause the game (the deadline is suspended)")
    @is_gm()
    async def pause(self, interaction: JudgeInteraction, game: RunningGame) -> None:
        view = await self.bot.call(self.service.pause, game.name, acting_gm(interaction, game))
        await self._act(interaction, f"'{view.name}' is paused.")

    @app_commands.command(name="resume", description="Resume a paused game")
    @is_gm()
    async def resume(self, interaction: JudgeInteraction, game: RunningGame) -> None:
        view = await self.bot.call(self.service.resume, game.name, acting_gm(interaction, game))
        await self._act(interaction, _started(view))

    @app_commands.command(name="extend", description="Push the deadline back")
    @app_commands.describe(by="How much longer, e.g. 24h")
    @is_gm()
    async def extend(self, interaction: JudgeInteraction, game: RunningGame, by: Duration) -> None:
        view = await self.bot.call(self.service.extend, game.name, acting_gm(interaction, game), by)
        await self._act(interaction, _deadline(view))

    @app_commands.command(name="adjudicate", description="Adjudicate now (missing orders count as NMR)")
    @is_gm()
    async def adjudicate(self, interaction: JudgeInteraction, game: RunningGame) -> None:
        await interaction.response.defer()
        outcome = await self.bot.call(self.service.force_adjudicate, game.name, acting_gm(interaction, game))
        view = await self.bot.call(self.service.status, game.name)
        await interaction.followup.send(f"{game.phase} of '{game.name}': {outcome}. {_started(view)}")
        self.bot.kick_outbox()

    @app_commands.command(name="rollback", description="Undo the last adjudication")
    @is_gm()
    async def rollback(self, interaction: JudgeInteraction, game: Game) -> None:
        view = await self.bot.call(self.service.rollback, game.name, acting_gm(interaction, game))
        await self._act(interaction, f"Rolled back. {_started(view)}")

    @app_commands.command(name="replace", description="Give a power to another player")
    @app_commands.describe(power="The power", player="Its new player")
    @is_gm()
    async def replace(self, interaction: JudgeInteraction, game: Game, power: PowerArg, player: discord.User) -> None:
        view = await self.bot.call(self.service.replace_player, game.name, acting_gm(interaction, game), power,
                                   player_key(player))
        await self._act(interaction, f"{get_variant(game.variant).power_name(power)} in '{game.name}' is now played "
                                     f"by {player.mention}.", player=player, public=not view.anonymous)

    @app_commands.command(name="assign", description="Before the start: give a player a power, move them to "
                                                     "another, or leave theirs to be drawn")
    @app_commands.describe(player="The player (joined, waiting, or not yet in the game)",
                           power="The power (leave it out: drawn at the start)")
    @is_gm()
    async def assign(self, interaction: JudgeInteraction, game: FormingGame, player: discord.User,
                     power: PowerArg | None = None) -> None:
        view = await self.bot.call(self.service.assign, game.name, acting_gm(interaction, game), player_key(player),
                                   power)
        what = f"plays {get_variant(game.variant).power_name(power)}" if power else "has a power drawn at the start"
        await self._act(interaction, f"{player.mention} {what} in '{game.name}'. {_seats(view, game)}", player=player,
                        public=not view.anonymous)  # in an anonymous game, for the game master alone

    @app_commands.command(name="kick", description="Remove a player: before the start they leave the game; after, "
                                                   "their power goes into civil disorder")
    @app_commands.describe(power="The power whose player to remove", player="Or the player (also one who is waiting)")
    @is_gm()
    async def kick(self, interaction: JudgeInteraction, game: Game, power: PowerArg | None = None,
                   player: discord.User | None = None) -> None:
        if (power is None) == (player is None):
            raise ServiceError("name the power whose player to remove, or the player (one of the two)")
        view = await self.bot.call(self.service.remove_player, game.name, acting_gm(interaction, game), power,
                                   player=player_key(player) if player is not None else None)
        key = player_key(player) if player is not None else None
        row = view.player_of(power) if power else next((p for p in view.players if p.player == key), None)
        if power:
            who = f"{variant_power(game, power)}'s player"
        else:
            assert player is not None  # (one of the two, as checked above)
            who = player.mention
        if row is not None and row.status == PlayerStatus.REMOVED:
            text = (f"{who} has been removed from '{game.name}' (told by DM); {variant_power(game, row.power)} is in "
                    "civil disorder until `/game replace` gives it a player.")
        else:
            text = f"{who} is out of '{game.name}' (told by DM). {_seats(view, game)}"
        await self._act(interaction, text, public=not view.anonymous)

    @app_commands.command(name="restore", description="Bring a power back from civil disorder: its player plays again")
    @is_gm()
    async def restore(self, interaction: JudgeInteraction, game: RunningGame, power: PowerArg) -> None:
        await self.bot.call(self.service.restore_player, game.name, acting_gm(interaction, game), power)
        await self._act(interaction, f"{variant_power(game, power)} is back in play in '{game.name}'.")

    @app_commands.command(name="end", description="End the game")
    @app_commands.describe(reason="Why (shown to the players)")
    @is_gm()
    async def end(self, interaction: JudgeInteraction, game: Game, reason: str = "") -> None:
        await self.bot.call(self.service.end_game, game.name, acting_gm(interaction, game), reason)
        await self._act(interaction, f"'{game.name}' has ended{': ' + reason if reason else ''}.")

    @app_commands.command(name="export", description="The whole game as one JSON file (for `crusader verify`)")
    @is_gm()
    async def export(self, interaction: JudgeInteraction, game: Game) -> None:
        doc = await self.bot.call(export_game, self.service.db, game.id)
        if doc["game"]["status"] in (GameStatus.ACTIVE, GameStatus.PAUSED):  # this phase's orders stay private until adjudicated
            current = doc["game"]["version"]
            doc["orders"] = []
            doc["submissions"] = [s for s in doc.get("submissions", []) if s["version"] < current]
        data = json.dumps(doc, ensure_ascii=False, indent=1, sort_keys=True).encode("utf-8")
        await interaction.response.send_message(
            f"Export of '{game.name}' ({len(doc.get('seasons', []))} seasons).", ephemeral=True,
            file=discord.File(io.BytesIO(data), file_name(game.name, "json")))


async def setup(bot: JudgeBotMixin) -> None:
    await bot.add_cog(GameMaster(bot))
