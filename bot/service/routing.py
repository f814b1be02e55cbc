"""Which game a message of orders is for, decided once for every front end.

A player who plays in one running game need not say which; one who plays in several starts the
message with a line ``game: NAME`` (the name as the game is called, case, spaces and punctuation
aside), or the front end asks which (:class:`Ambiguous`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from collections.abc import Sequence

from bot.store.names import game_key
from .errors import NotFoundError
from .views import GameEntry
from bot.store.rows import GameStatus

_GAME_LINE = re.compile(r"^\s*game\s*[:=]\s*(?P<name>.+?)\s*$", re.IGNORECASE)

RUNNING = (GameStatus.ACTIVE, GameStatus.PAUSED)
"""The games a message of orders may be for."""


@dataclass(frozen=True)
class Routed:
    """A message for ``game``: its ``text`` without the ``game:`` line."""

    game: GameEntry
    text: str


@dataclass(frozen=True)
class Ambiguous:
    """A message that may be for any of ``games`` (the writer's running games) and does not say which."""

    games: tuple[GameEntry, ...]
    text: str


class NoGameError(NotFoundError):
    """A message of orders that goes to no game: its writer plays in none that is running (``games``
    empty), in none of the name it gives (``named``), or it has no orders after its ``game:`` line."""

    def __init__(self, message: str, *, games: Sequence[str] = (), named: str | None = None) -> None:
        super().__init__(message)
        self.games = tuple(games)
        self.named = named


def split_game_line(text: str) -> tuple[str | None, str]:
    """``("NAME", rest)`` when the first non-blank line is ``game: NAME``; else ``(None, text)``."""
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if line.strip():
            m = _GAME_LINE.match(line)
            if m:
                return m.group("name"), "\n".join(lines[i + 1:])
            break
    return None, text


def route(text: str, games: Sequence[GameEntry], chosen: GameEntry | None = None) -> Routed | Ambiguous:
    """The game ``text`` is for, among the writer's running ``games`` (or ``chosen``, the one the
    writer picked); :class:`NoGameError` says why it is for none."""
    name, body = split_game_line(text)
    game = chosen
    if game is None:
        if not games:
            raise NoGameError("You are not playing in any running game, so there is nothing to order.")
        if name is not None:
            game = next((g for g in games if game_key(g.name) == game_key(name)), None)
            if game is None:
                raise NoGameError(f"You play in no running game called {name!r}. Your games: "
                                  + ", ".join(g.name for g in games) + ".", games=[g.name for g in games], named=name)
        elif len(games) == 1:
            game = games[0]
        else:
            return Ambiguous(tuple(games), body)
    if not body.strip():
        raise NoGameError(f"No orders after the `game: {game.name}` line. Write one order per line.", named=game.name)
    return Routed(game, body)
