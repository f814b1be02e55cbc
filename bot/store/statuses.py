"""Where a game and a player stand: the statuses the rows store, kept apart from the tables so
that what only names a status (the command line's choices, say) loads no database code."""

from __future__ import annotations

from enum import StrEnum


class GameStatus(StrEnum):
    """Where a game is in its life (stored as its value: ``game.status``)."""

    FORMING = "forming"     # created; players join; not started
    ACTIVE = "active"       # under way: deadlines run
    PAUSED = "paused"       # under way, its clock stopped by the game master
    ENDED = "ended"         # over: won, drawn, conceded or ended by the game master


class PlayerStatus(StrEnum):
    """Where a player stands in a game (stored as its value: ``player.status``)."""

    ACTIVE = "active"                   # plays their power (or will be given one at the start)
    CIVIL_DISORDER = "civil_disorder"   # missed too many deadlines: their units hold; orders bring them back
    REMOVED = "removed"                 # taken out, or resigned: the power has no player
    WAITING = "waiting"                 # on the waiting list: no power yet
