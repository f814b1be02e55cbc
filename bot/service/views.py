"""What the service answers with: plain frozen values, no rows, no sessions."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from adjudicator.orders import Order, canonical
from adjudicator.results import Reason
from adjudicator.turn import Duty
from adjudicator.vocab import Power

from bot.store.rows import GameStatus, PlayerStatus
from .policy import DeadlinePolicy


@dataclass(frozen=True)
class PlayerView:
    player: str
    power: Power | None
    status: PlayerStatus
    nmr_count: int = 0
    has_orders: bool = False
    draw_vote: bool = False
    concede_to: str | None = None
    ready: bool = False
    """The player has marked the phase's orders final (``ready``)."""


@dataclass(frozen=True)
class GameView:
    """A game as anyone may see it: never the content of standing orders."""

    id: int
    name: str
    variant: str
    rules: tuple[str, ...]
    gm: str
    status: GameStatus
    phase: str | None
    version: int
    deadline_at: datetime | None
    players: tuple[PlayerView, ...]
    centers: dict[str, int] = field(default_factory=dict)
    must_order: tuple[str, ...] = ()
    outcome: dict | None = None
    timezone: str = "UTC"
    """The game's time zone (its policy's): how its deadlines are shown, next to UTC."""
    early: bool = False
    """Early adjudication (its policy's): a phase ends once every power that must decide is ready."""
    anonymous: bool = False
    """Who plays which power is hidden from the players (its policy's ``anonymous``, until the game
    ends): show the players' names through :func:`~bot.service.texts.shown_player`."""

    def player_of(self, power: str) -> PlayerView | None:
        return next((p for p in self.players if p.power == power), None)


@dataclass(frozen=True)
class Seat:
    """A player of a game and the power they hold (``None``: not yet, or on the waiting list)."""

    player: str
    power: Power | None
    status: PlayerStatus


@dataclass(frozen=True)
class Seats:
    """Who plays a game: its game master and its players with their powers, as a front end asks it
    to know whom to tell (neither the board nor the orders are read for it, as a
    :class:`GameView`'s are)."""

    id: int
    gm: str
    players: tuple[Seat, ...]

    def player_of(self, power: str) -> Seat | None:
        return next((p for p in self.players if p.power == power), None)


@dataclass(frozen=True)
class PolicyChange:
    """A game's settings changed by its game master (:meth:`bot.service.gm.GameMaster.set_policy`):
    the game, its policy before and after (:class:`~bot.service.policy.DeadlinePolicy`), and the
    names of the settings that changed (none: nothing to change, nothing announced)."""

    game: GameView
    before: DeadlinePolicy
    after: DeadlinePolicy
    changed: tuple[str, ...]


@dataclass(frozen=True)
class GameEntry:
    """A game as a directory lists it: enough to route a message to it, never the board or orders.

    ``power`` is the asker's power when the directory was asked for one player's games;
    ``extra`` is what front ends keep with the game (``DeadlinePolicy.extra``, e.g. where to post);
    ``version`` and ``deadline_at`` where it stands (whether a season's results are its latest,
    when its phase ends).
    """

    id: int
    name: str
    variant: str
    status: GameStatus
    gm: str
    phase: str | None
    power: str | None = None
    extra: dict = field(default_factory=dict, compare=False)
    version: int = 0
    deadline_at: datetime | None = None


@dataclass(frozen=True)
class OrderLine:
    """A line of orders: as written, and the order the judge understood, or why not.

    ``reason``: why the line was not accepted, a sentence; ``refusal``: the engine's reason as a
    value when the line was read but the order cannot be given (its ``code`` is what a program
    may branch on; a line that could not be read has none). ``note``: for an accepted order that
    only the adjudication can settle (a bid that may lose, prestige beyond what the power holds),
    what it needs. ``replaces``: the order an accepted one takes the place of (the power's standing
    order of the same unit, bid or site, or an earlier line of the same message). ``line_no``: the
    line of the message it was written on, counting from 1 (``None`` for an order not written in
    a message: a standing one, one chosen from a menu).
    """

    written: str
    order: Order | None = None
    reason: str | None = None
    refusal: Reason | None = None
    note: Reason | None = None
    replaces: Order | None = None
    line_no: int | None = None

    @property
    def canonical(self) -> str | None:
        """The order in the judge's notation with its power (``FRA: A par - bur``)."""
        return canonical(self.order) if self.order is not None else None


@dataclass(frozen=True)
class SubmissionReport:
    """The answer to a message of orders: what was accepted, what was not and why, what now stands."""

    game: str
    phase: str
    power: Power
    accepted: tuple[OrderLine, ...]
    rejected: tuple[OrderLine, ...]
    standing: tuple[OrderLine, ...]
    deadline_at: datetime | None = None
    duty: Duty | None = None
    """What the power has still to decide in this phase, its standing orders taken into account
    (:func:`adjudicator.turn.still_to_decide`)."""
    variant: str = ""
    ready_cleared: bool = False
    """The player had marked the phase's orders final (ready), and this message changed them: no
    longer ready."""

    def to_text(self) -> str:
        out = [f"Orders for {self.power} in {self.game}, {self.phase}:"]
        for line in self.accepted:
            out.append(f"  accepted: {line.written}  ->  {line.canonical}"
                       + (f"  (conditional: {line.note})" if line.note else ""))
        for line in self.rejected:
            out.append(f"  REJECTED: {line.written}  ({line.reason})")
        out.append("Standing orders:" if self.standing else "No standing orders.")
        out.extend(f"  {line.canonical}" for line in self.standing)
        if self.ready_cleared:
            out.append("No longer ready: the orders changed (ready again once they are final).")
        return "\n".join(out) + "\n"


@dataclass(frozen=True)
class PlayerOrders:
    """A player's own standing orders and its rule module's standings column (prestige, as
    ``column``: its name and the power's number): visible to that player and the judge only."""

    game: str
    phase: str
    power: Power
    orders: tuple[OrderLine, ...]
    must_order: bool
    column: tuple[str, int] | None
    deadline_at: datetime | None
    duty: Duty | None = None
    """What the power has still to decide in this phase, its standing orders taken into account
    (:func:`adjudicator.turn.still_to_decide`)."""
    variant: str = ""
    timezone: str = "UTC"
    """The game's time zone (how its deadlines are shown, next to UTC)."""
    ready: bool = False
    """The player has marked these orders final (ready)."""


@dataclass(frozen=True)
class Readiness:
    """A player's orders marked final, or no longer (:meth:`bot.service.orders.OrderDesk.ready`).

    ``left``: what the power still leaves undecided (its units hold, its dislodged units are
    disbanded, its builds waived, its removals made as civil disorder would make them);
    ``waiting_for``: the powers that must decide and are not ready yet; ``early``: the game
    adjudicates once every one is; ``adjudicated``: this was the last, and the phase has been."""

    game: GameView
    phase: str
    power: str
    ready: bool
    left: Duty
    waiting_for: tuple[str, ...]
    early: bool
    adjudicated: bool = False
