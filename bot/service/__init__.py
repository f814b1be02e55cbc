"""The judge as a service: games, orders, deadlines, adjudication, announcements.

Knows nothing of Discord or e-mail: front ends convert what a user wrote, call a method here,
and format the answer; announcements leave through the outbox (``bot.outbox``) to whatever
notifiers the front ends registered.
"""

from __future__ import annotations

from .errors import NotAllowedError, NotFoundError, ServiceError, WrongStateError
from .gm import GameMasterActions
from .judge import Judge
from .players import PlayerActions
from .policy import DeadlinePolicy, format_duration, parse_duration
from .views import GameEntry, GameView, OrderLine, PlayerOrders, PlayerView, SubmissionReport


class GameService(PlayerActions, GameMasterActions, Judge):
    """Everything a running judge does between "a player wrote orders" and "the season is archived"."""


__all__ = [
    "DeadlinePolicy", "GameEntry", "GameMasterActions", "GameService", "GameView", "Judge", "NotAllowedError", "NotFoundError",
    "OrderLine", "PlayerActions", "PlayerOrders", "PlayerView", "ServiceError", "SubmissionReport",
    "WrongStateError", "format_duration", "parse_duration",
]
