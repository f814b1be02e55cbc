"""The judge as a service: games, orders, deadlines, adjudication, announcements.

Knows nothing of Discord or e-mail: front ends convert what a user wrote, call a method here,
and format the answer; announcements leave through the outbox (``bot.store.outbox``) to whatever
notifiers the front ends registered.

:class:`GameService` is made of parts, each owning its share of the work and sharing one
:class:`~bot.service.context.Context` (the database, the clock, the games' rows and views,
their timers, the outbox): the :class:`~bot.service.lobby.Lobby` (games made, joined, started,
listed), the :class:`~bot.service.orders.OrderDesk` (a player's orders and votes), the
:class:`~bot.service.gm.GameMaster` and the :class:`~bot.service.judge.Judge` (deadlines and
adjudication). Front ends call the service by the names below; each is its part's.
"""

from __future__ import annotations

from datetime import datetime
from collections.abc import Callable

from bot.store.database import Database
from bot.store.rows import utcnow
from .context import Context
from .durations import MAX_DURATION, MIN_PHASE, format_duration, parse_duration, parse_durations, parse_moment
from .errors import (InputError, NoSuchGameError, NotAllowedError, NotFoundError, NotPlayingError, ServiceError,
                     UnplayedPowersError, WrongStateError)
from .gm import GameMaster
from .judge import Judge
from .lobby import Lobby
from .menus import Menus, Panel, PanelUnit, StalePanelError
from .orders import OrderDesk
from .press import PressDesk, PressHistory, PressLine, PressReceipt
from .policy import DeadlinePolicy
from .routing import Ambiguous, NoGameError, Routed
from .views import (GameEntry, GameView, OrderLine, PlayerOrders, PlayerView, PolicyChange, Readiness, Seat,
                    Seats, SubmissionReport)


class _Part:
    """A method of :class:`GameService` that one of its parts answers: ``status = _Part("lobby")``."""

    def __init__(self, part: str) -> None:
        self.part = part

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, service: GameService | None, owner: type | None = None):
        if service is None:
            return self
        return getattr(getattr(service, self.part), self.name)


class GameService:
    """Everything a running judge does between "a player wrote orders" and "the season is archived".

    ``pictures``: whether a season's picture is drawn when it is adjudicated and stored with it.
    """

    def __init__(self, db: Database, *, clock: Callable[[], datetime] = utcnow, node: str = "local",
                 pictures: bool = True) -> None:
        self.context = Context(db, clock=clock, node=node, pictures=pictures)
        self.judge = Judge(self.context)
        self.lobby = Lobby(self.context)
        self.orders = OrderDesk(self.context, self.lobby, self.judge)
        self.menus = Menus(self.context, self.orders)
        self.gm = GameMaster(self.context, self.judge)
        self.press = PressDesk(self.context)

    @property
    def db(self) -> Database:
        return self.context.db

    @property
    def timer_listeners(self) -> list:
        """Called with the timers each transaction arms (the scheduler listens)."""
        return self.context.timer_listeners

    @property
    def clock(self) -> Callable[[], datetime]:
        """What the service asks the time (timezone-aware UTC); tests set a controlled one."""
        return self.context.clock

    @clock.setter
    def clock(self, clock: Callable[[], datetime]) -> None:
        self.context.clock = clock

    def now(self) -> datetime:
        return self.context.now()

    # games: made, joined, started, listed; their boards and seasons
    check_new_game = _Part("lobby")
    create_game = _Part("lobby")
    games = _Part("lobby")
    directory = _Part("lobby")
    players = _Part("lobby")
    directories = _Part("lobby")
    entry = _Part("lobby")
    board = _Part("lobby")
    season = _Part("lobby")
    status = _Part("lobby")
    seats = _Part("lobby")
    policy_of = _Part("lobby")
    join = _Part("lobby")
    leave = _Part("lobby")
    assign = _Part("lobby")
    start = _Part("lobby")
    history = _Part("lobby")
    power_code = _Part("lobby")
    # a player's orders and votes
    route = _Part("orders")
    departure = _Part("orders")
    submit_messages = _Part("orders")
    submit_orders = _Part("orders")
    submit_many = _Part("orders")
    clear_orders = _Part("orders")
    my_orders = _Part("orders")
    orders_of_power = _Part("orders")
    vote_draw = _Part("orders")
    concede = _Part("orders")
    ready = _Part("orders")
    # orders chosen from menus
    panel = _Part("menus")
    choices = _Part("menus")
    submit_values = _Part("menus")
    # the game master
    pause = _Part("gm")
    resume = _Part("gm")
    extend = _Part("gm")
    set_deadline = _Part("gm")
    force_adjudicate = _Part("gm")
    rollback = _Part("gm")
    replace_player = _Part("gm")
    take_over = _Part("gm")
    remove_player = _Part("gm")
    set_civil_disorder = _Part("gm")
    restore_player = _Part("gm")
    end_game = _Part("gm")
    set_policy = _Part("gm")
    # press between the players
    send_press = _Part("press")
    press_history = _Part("press")
    published_press = _Part("press")
    # the clock: timers, deadlines, adjudication
    fire_due = _Part("judge")
    fire_timer = _Part("judge")
    adjudicate = _Part("judge")


__all__ = [
    "MAX_DURATION",
    "MIN_PHASE",
    "Ambiguous",
    "DeadlinePolicy",
    "GameEntry",
    "GameMaster",
    "GameService",
    "GameView",
    "InputError",
    "Judge",
    "Lobby",
    "Menus",
    "NoGameError",
    "NoSuchGameError",
    "NotAllowedError",
    "NotFoundError",
    "NotPlayingError",
    "OrderDesk",
    "OrderLine",
    "Panel",
    "PanelUnit",
    "PlayerOrders",
    "PlayerView",
    "PolicyChange",
    "PressDesk",
    "PressHistory",
    "PressLine",
    "PressReceipt",
    "Readiness",
    "Routed",
    "Seat",
    "Seats",
    "ServiceError",
    "StalePanelError",
    "SubmissionReport",
    "UnplayedPowersError",
    "WrongStateError",
    "format_duration",
    "parse_duration",
    "parse_durations",
    "parse_moment",
]
