"""Press on Discord: ``/press send`` (recipients by power, with autocomplete, and the text),
``/press history``, and the same by direct message for people who type::

    press to ANT, BYZ: the text, on as many lines as it takes
    anonymous press to ANT: ...     (under grey press: the recipients are not told who sent it)
    press to ALL: ...               (to everyone; GM: to the game master)

A player in several running games starts the DM with a line ``game: NAME``. The service decides
who may send what to whom; this only reads what was written and shows the answer (the echo: where
it went, as what, what was refused and why). Press reaches each recipient through the outbox.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from discord import app_commands
from discord.ext import commands

from bot.service import Ambiguous, Routed, ServiceError
from bot.service.press import history_lines, receipt_text, split_recipients
from ..client import JudgeBotMixin, JudgeInteraction, reply
from ..formatting import refusal_text
from ..identity import player_key
from ..transformers import MAX_CHOICES, Game, RunningGame, _variant_of_game_option, my_game

_DM = re.compile(r"^\s*(?P<anonymous>anonymous\s+|anon\s+|grey\s+)?press\s+to\s+(?P<to>[^:\n]{1,400}):[ \t]*\n?"
                 r"(?P<text>.*)\Z", re.IGNORECASE | re.DOTALL)
_HISTORY = re.compile(r"^\s*press\s+history\s*\Z", re.IGNORECASE)
HISTORY_SHOWN = 30  # messages in one answer to /press history


@dataclass(frozen=True)
class PressDM:
    """A direct message of press as written: its recipients, its text, anonymous or not; or a request
    for the history (``history``)."""

    to: str = ""
    text: str = ""
    anonymous: bool = False
    history: bool = False


def read_press_dm(text: str) -> PressDM | None:
    """``text`` (without its ``game:`` line) as press, when it starts ``press to ...:``; else ``None``."""
    if _HISTORY.match(text):
        return PressDM(history=True)
    m = _DM.match(text)
    if m is None:
        return None
    return PressDM(m.group("to").strip(), m.group("text").strip(), bool(m.group("anonymous")))


async def _recipients_autocomplete(interaction: JudgeInteraction, value: str) -> list[app_commands.Choice[str]]:
    """The recipients typed so far, and each power (then ALL and GM) that may come next."""
    variant, _ = await _variant_of_game_option(interaction)
    head, _, last = value.rpartition(",")
    typed = last.strip().lower()
    before = split_recipients(head) if head.strip() else []
    prefix = ", ".join(before) + (", " if before else "")
    options = [(f"{info.name} ({code})", code) for code, info in variant.powers.items() if code not in before]
    options += [("everyone (ALL)", "ALL"), ("the game master (GM)", "GM")]
    hits = [(label, code) for label, code in options if not typed or typed in code.lower() or typed in label.lower()]
    hits.sort(key=lambda hit: not (hit[1].lower().startswith(typed) or hit[0].lower().startswith(typed)))
    return [app_commands.Choice(name=f"{prefix}{label}"[:100], value=f"{prefix}{code}"[:100])
            for label, code in hits][:MAX_CHOICES]


class Press(commands.GroupCog, group_name="press", group_description="Press: messages to the other powers"):
    def __init__(self, bot: JudgeBotMixin) -> None:
        self.bot = bot
        self.service = bot.service
        super().__init__()

    @app_commands.command(name="send", description="Send press to powers (only they read it)")
    @app_commands.describe(to="Powers, like ANT, BYZ; ALL for everyone; GM for the game master",
                           text="What you say", anonymous="Under grey press: the recipients are not told who sent it",
                           game="The game (default: your only running game)")
    @app_commands.autocomplete(to=_recipients_autocomplete)
    async def send(self, interaction: JudgeInteraction, to: app_commands.Range[str, 1, 400],
                   text: app_commands.Range[str, 1, 6000], anonymous: bool = False,
                   game: RunningGame | None = None) -> None:
        entry = await my_game(interaction, game)
        receipt = await self.bot.call(self.service.send_press, entry.name, player_key(interaction.user), to, text,
                                      anonymous=anonymous)
        await reply(interaction, receipt_text(receipt))
        self.bot.kick_outbox()

    @app_commands.command(name="history", description="The press your power sent and received, by phase")
    @app_commands.describe(game="The game (default: your only game)")
    async def history(self, interaction: JudgeInteraction, game: Game | None = None) -> None:
        entry = await my_game(interaction, game)
        await reply(interaction, await self.bot.call(self.history_text, entry.name, player_key(interaction.user)))

    def history_text(self, game: str, asker: str) -> str:
        history = self.service.press_history(game, asker)
        who = f"{history.power}'s press" if history.power else "The game master's press"
        return f"**{who} in '{history.game}'**\n" + "\n".join(history_lines(history, limit=HISTORY_SHOWN))

    # -- by direct message -------------------------------------------------------------------------

    def take_dm(self, player: str, text: str) -> str | None:
        """A DM of press (or ``press history``), carried out: the answer; ``None`` when it is not press.
        (In a worker thread.)"""
        from bot.service.routing import split_game_line

        _, rest = split_game_line(text)
        wanted = read_press_dm(rest)
        if wanted is None:
            return None
        try:
            found = self.service.route(player, text)
        except ServiceError as exc:
            return refusal_text(exc)
        if isinstance(found, Ambiguous):
            return ("You play in several games (" + ", ".join(g.name for g in found.games) + "): start the message "
                    "with a line `game: NAME`, then `press to ...:`.")
        assert isinstance(found, Routed)
        try:
            if wanted.history:
                return self.history_text(found.game.name, player)
            if not wanted.text:
                return ("The press has no text: write `press to ANT, BYZ:` and then what you say (on the same line "
                        "or the next ones).")
            return receipt_text(self.service.send_press(found.game.name, player, wanted.to, wanted.text,
                                                        anonymous=wanted.anonymous))
        except ServiceError as exc:
            return refusal_text(exc)


async def setup(bot: JudgeBotMixin) -> None:
    await bot.add_cog(Press(bot))


__all__ = ["Press", "PressDM", "read_press_dm"]
