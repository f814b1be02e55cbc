"""Who may act for a power by mail: the power's password and its registered address.

The game master (or the judge's operator, ``actor=None``) sets both; the power's own player
may change its password (``SET PASSWORD`` once signed on). The service's games and players
are read through :class:`~bot.service.GameService`; only the mail tables are written here.
"""

from __future__ import annotations

import time
from collections import defaultdict, deque
from dataclasses import dataclass

from adjudicator.variant import get_variant

from ..service import GameService, GameView, NotAllowedError, ServiceError
from ..storage import utcnow
from . import store
from .addresses import normalise
from .passwords import check_new_password, hash_password, verify_password


class SignonRefused(ValueError):
    """A sign-on that is not accepted; the message is safe to mail back (never a password)."""


class ForeignSender(SignonRefused):
    """A sign-on from an address other than the power's registered one (``registered``)."""

    def __init__(self, message: str, *, registered: str, password_right: bool) -> None:
        super().__init__(message)
        self.registered = registered
        self.password_right = password_right


@dataclass(frozen=True)
class Identity:
    """A power of a game as the mail front end knows it."""

    game_id: int
    game: str
    power: str
    player: str | None
    address: str | None


class MailAccounts:
    def __init__(self, service: GameService, *, failures_per_hour: int = 10) -> None:
        self.service = service
        self.db = service.db
        self.failures_per_hour = failures_per_hour
        self._failures: dict[tuple[int, str], deque[float]] = defaultdict(deque)

    # -- the game master's side ----------------------------------------------------------------

    def set_power_password(self, game: str | int, actor: str | None, power: str, password: str) -> None:
        """Set ``power``'s password in ``game``; ``actor`` is the game master, the power's player or ``None``."""
        view, power = self._authorise(game, actor, power)
        digest = hash_password(check_new_password(password))
        with self.db.session() as session:
            row = self._row(session, view.id, power)
            row.password_hash, row.updated_at = digest, utcnow()
            session.add(row)
        self._failures.pop((view.id, power), None)  # a new password lifts a lock

    def set_power_address(self, game: str | int, actor: str | None, power: str, address: str) -> None:
        """Register the address that may sign on for ``power`` and that receives the game's mail."""
        view, power = self._authorise(game, actor, power, gm_only=True)
        address = normalise(address)
        with self.db.session() as session:
            row = self._row(session, view.id, power)
            row.address, row.updated_at = address, utcnow()
            session.add(row)

    def register(self, game: str | int, actor: str | None, power: str, *, address: str, password: str) -> None:
        """Address and password at once: what a game master does for each player by mail."""
        check_new_password(password)
        self.set_power_address(game, actor, power, address)
        self.set_power_password(game, actor, power, password)

    def forget_password(self, game_id: int, power: str) -> None:
        """After a resignation: nobody signs on for the power until the game master sets a new password."""
        with self.db.session() as session:
            row = store.identity(session, game_id, power)
            if row is not None:
                row.password_hash, row.updated_at = None, utcnow()
                session.add(row)

    # -- the player's side ---------------------------------------------------------------------

    def authenticate(self, game: str, power: str, password: str, sender: str | None) -> Identity:
        """The identity of ``power`` in ``game`` if ``sender`` is its registered address and ``password`` is right.

        Otherwise :class:`SignonRefused`. A sender that is not the registered address is refused
        with the same words whether the password was right or not (no oracle for guessing it);
        :class:`ForeignSender` says whether to warn the registered address. Only wrong passwords
        from the registered address count towards the hourly limit, so that nobody can lock a
        player out by writing from their own address.
        """
        try:
            view = self.service.status(game)
        except ServiceError:
            raise SignonRefused(f"there is no game called {game!r} on this judge") from None
        powers = list(get_variant(view.variant).powers)
        if power not in powers:
            raise SignonRefused(f"{power!r} is not a power of game '{view.name}'; its powers are {', '.join(powers)}")
        with self.db.session() as session:
            row = store.identity(session, view.id, power)
            stored = row.password_hash if row is not None else None
            address = row.address if row is not None else None
        if stored is None or address is None:
            raise SignonRefused(f"{power} in game '{view.name}' cannot be played by mail yet: the game master "
                                f"({view.gm}) registers its address and password")
        if sender != address:
            raise ForeignSender(
                f"this message did not come from the address registered for {power} in game '{view.name}'; "
                f"write from that address, or ask the game master ({view.gm}) to register this one",
                registered=address, password_right=verify_password(password, stored))
        failures = self._recent_failures(view.id, power)
        if len(failures) >= self.failures_per_hour:
            raise SignonRefused(f"too many wrong passwords for {power} in game '{view.name}' in the last hour; "
                                f"try again later or ask the game master ({view.gm}) for a new password")
        if not verify_password(password, stored):
            failures.append(time.monotonic())
            raise SignonRefused(f"that is not the password of {power} in game '{view.name}'; "
                                f"the game master ({view.gm}) can set a new one")
        holder = view.player_of(power)
        return Identity(view.id, view.name, power, holder.player if holder else None, address)

    def recipients(self, game_id: int, powers: tuple[str, ...] | None = None) -> list[tuple[str, str]]:
        """``(power, address)`` of every registered address in the game (or of ``powers`` only)."""
        with self.db.session() as session:
            rows = store.identities_of(session, game_id)
        return [(r.power, r.address) for r in rows if r.address and (powers is None or r.power in powers)]

    # -- inside --------------------------------------------------------------------------------

    def _authorise(self, game: str | int, actor: str | None, power: str, *,
                   gm_only: bool = False) -> tuple[GameView, str]:
        view = self.service.status(game)
        power = power.strip().upper()
        powers = list(get_variant(view.variant).powers)
        if power not in powers:
            raise ServiceError(f"{power!r} is not a power of {view.variant}; powers: {', '.join(powers)}")
        holder = view.player_of(power)
        if actor is None or actor == view.gm:
            return view, power
        if not gm_only and holder is not None and holder.player == actor:
            return view, power
        who = f"the game master of '{view.name}' ({view.gm})" + ("" if gm_only else f" or the player of {power}")
        raise NotAllowedError(f"only {who} may do that")

    @staticmethod
    def _row(session, game_id: int, power: str) -> store.MailIdentityRow:
        row = store.identity(session, game_id, power)
        return row or store.MailIdentityRow(game_id=game_id, power=power, updated_at=utcnow())

    def _recent_failures(self, game_id: int, power: str) -> deque[float]:
        failures = self._failures[(game_id, power)]
        horizon = time.monotonic() - 3600
        while failures and failures[0] < horizon:
            failures.popleft()
        return failures
