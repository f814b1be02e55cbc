"""Who may act for a power by mail: the power's registered address, its player and its password.

The game master (or the judge's operator, ``actor=None``) registers an address for a power, with
a password or without one: then the judge makes one and mails it to that address. The power's
own player may change its password (``SET PASSWORD`` once signed on). When the service gives a
power to a player named by an e-mail address (at the start, or as a new player), that address
is registered for the power and sent a new password with the announcement
(:meth:`MailAccounts.adopt`). An address stands for the player it was registered for: once the
power has another player, or none (removed), it no longer signs on or receives the game's mail.

Wrong passwords are counted by power and envelope sender together (``mail_signon_failure``,
shared by every server): a sender that guesses wrong :attr:`failures_per_hour` times in an hour
is refused without checking, and so is a sending domain that has guessed wrong ten times as often
(a rival with many addresses at one provider). The senders its player has signed on from are
always checked. A rival who forges a player's ``From:`` therefore locks out only their own sending
address or domain, and the owner's right password from the owner's own mail system, or from a
new one elsewhere, is always accepted.

The game master of a game named by an e-mail address signs on as ``GM`` (``SIGNON GMcrusade1
secret``): the password is mailed to that address when the game's last seat is filled (and made
anew by ``crusader mail password <game> GM``); it is kept as the ``GM`` row of ``mail_identity``.

Refusals and alarms mailed to one address are counted (``mail_notice``, :meth:`MailAccounts.notice`):
past a few in an hour they are held back, and the next one mailed says how many were.

The service's games and players are read through :class:`~bot.service.GameService`; only the
mail tables (and the outbox, for a password mail) are written here.
"""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING

from adjudicator.errors import CrusaderError
from adjudicator.variant import get_variant
from adjudicator.vocab import Power

from bot.service import GameService, GameView, NotAllowedError, Seats, ServiceError
from bot.store import database
from bot.store import mail as mail_store
from bot.store import outbox
from bot.store.outbox import Announcement
from .addresses import AddressError, normalise
from .passwords import check_new_password, hash_password, new_password, verify_password
from bot.store.rows import PlayerStatus

if TYPE_CHECKING:
    from sqlmodel import Session

WINDOW = timedelta(hours=1)
"""How long a wrong password counts."""
DOMAIN_SENDERS = 10
"""A sending domain's wrong passwords for a power, in units of the per-sender bound, beyond which
that domain's senders (but those the player has signed on from) are refused without checking."""
GM = "GM"
"""The game master's "power" in a sign-on and in ``mail_identity``."""
CONFIRM_WITHIN = timedelta(days=1)
"""How long a command written in an address's name from another mail system waits for CONFIRM."""
NOTICES = {"refusal": 10, "suspect": 1, "alarm": 1}
"""How many mails of each kind an address is sent in an hour: refusals of its own messages, answers
to messages in its name from another mail system (a forged From), alarms about its power."""
PASSWORD_KINDS = ("started", "replaced")
"""Announcements that give a power to a player: an address player reads how to sign on with them."""
ADOPTING = (*PASSWORD_KINDS, "rolled_back")
"""Announcements after which a power may have a player named by an address it was not registered for."""


class SignonRefused(CrusaderError, ValueError):
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


@dataclass(frozen=True)
class Registration:
    """A power's mail identity as the game master sees it (never the password)."""

    power: str
    address: str | None
    player: str | None
    has_password: bool
    password_owed: bool
    """A new password is owed to the address and has not left yet (it goes when ``crusader serve``
    next sends the judge's mail)."""
    current: bool
    password_mailed: bool = False
    """A new password was mailed and its player has not signed on with it yet."""


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def address_of(player: str | None) -> str | None:
    """The e-mail address a player is named by, if it is one."""
    if not player or "@" not in player or player.startswith("discord:"):
        return None
    try:
        return normalise(player)
    except AddressError:
        return None


def _holds(row: mail_store.MailIdentityRow, view: GameView | Seats) -> bool:
    """Whether ``row`` still speaks for its power: the power has no player yet, or the player it
    was registered for (or, registered for nobody in particular, whoever) plays it."""
    if row.power == GM:
        return row.address is not None and row.address == address_of(view.gm)
    holder = view.player_of(row.power)
    if holder is None:
        return row.player is None
    return holder.status not in (PlayerStatus.REMOVED, PlayerStatus.WAITING) and row.player in (None, holder.player)


class MailAccounts:
    def __init__(self, service: GameService, *, failures_per_hour: int = 10) -> None:
        self.service = service
        self.db = service.db
        self.failures_per_hour = failures_per_hour

    # -- the game master's side ----------------------------------------------------------------

    def set_power_password(self, game: str | int, actor: str | None, power: str, password: str) -> None:
        """Set ``power``'s password in ``game``; ``actor`` is the game master, the power's player or ``None``."""
        view, power = self._authorise(game, actor, power)
        digest = hash_password(check_new_password(password))
        with self.db.session() as session:
            row = self._row(session, view, power)
            row.password_hash, row.password_mail, row.updated_at = digest, None, self.service.now()
            session.add(row)
            mail_store.clear_failures(session, view.id, power)  # a new password lifts a lock

    def set_own_password(self, me: Identity, password: str) -> None:
        """SET PASSWORD: the signed-on ``me`` changes its own power's password, acting as itself
        (never with the operator's rights): as the power's player, as the game master for the game
        master's own identity, or, for a power nobody plays yet, as the address it was registered
        for."""
        self.set_power_password(me.game, self._acting_as(me), me.power, password)

    def _acting_as(self, me: Identity) -> str | None:
        """Who ``me`` acts as: the game's game master for the game master's identity, else the
        power's player, else (nobody plays it yet) the address it signed on from."""
        if me.power == GM:
            return self.service.status(me.game).gm
        return me.player if me.player is not None else me.address

    def set_power_address(self, game: str | int, actor: str | None, power: str, address: str) -> None:
        """Register the address that may sign on for ``power`` and that receives the game's mail."""
        view, power = self._authorise(game, actor, power, gm_only=True)
        address = normalise(address)
        with self.db.session() as session:
            row = self._row(session, view, power)
            if row.address is not None and row.address != address:
                row.password_hash, row.password_mail = None, None  # a password was for the old address
            holder = view.player_of(power)
            row.address, row.player, row.updated_at = address, holder.player if holder else None, self.service.now()
            session.add(row)

    def register(self, game: str | int, actor: str | None, power: str, *, address: str,
                 password: str | None = None) -> None:
        """What a game master does for each player by mail: the address, and a password, or
        (``password=None``) a new one that the judge makes and mails to the address."""
        if password is not None:
            check_new_password(password)
        self.set_power_address(game, actor, power, address)
        if password is not None:
            self.set_power_password(game, actor, power, password)
        else:
            self.mail_password(game, actor, power)

    def mail_password(self, game: str | int, actor: str | None, power: str) -> str:
        """A new password for ``power``, made by the judge and mailed to its registered address (the
        old one stops working when the mail leaves); the address."""
        view, power = self._authorise(game, actor, power, gm_only=True)
        now = self.service.now()
        with self.db.session() as session:
            row = mail_store.identity(session, view.id, power)
            if power == GM:
                row = row or mail_store.MailIdentityRow(game_id=view.id, power=GM, updated_at=now)
                row.address = address_of(view.gm)
            if row is None or not row.address:
                raise ServiceError(f"no address is registered for {power} in '{view.name}': register one first")
            key = f"mail-password:{uuid.uuid4().hex}"
            row.password_mail, row.updated_at = key, now
            session.add(row)
            name = get_variant(view.variant).power_name(Power(power))
            body = (f"The game master of '{view.name}' ({view.gm}) has registered this address to play "
                    f"{name} ({power}) by mail.\n") if power != GM else (
                    f"This is the game master's password of '{view.name}': sign on with it to start, pause, "
                    f"resume, extend or adjudicate the game by mail.\n")
            outbox.write(session, Announcement(
                key=key, kind="password", audience="direct", subject=f"{view.name}: your password for {power}",
                body=body,
                game_id=view.id, game=view.name, powers=(power,), recipients=(row.address,),
                data={"via": "mail", "auto": "auto-generated"}), now)
            return row.address

    def remove(self, game: str | int, actor: str | None, power: str) -> str | None:
        """Forget ``power``'s address and password; the address it had, if any."""
        view, power = self._authorise(game, actor, power, gm_only=True)
        with self.db.session() as session:
            row = mail_store.identity(session, view.id, power)
            if row is None:
                raise ServiceError(f"no address is registered for {power} in '{view.name}'")
            session.delete(row)
            return row.address

    def registrations(self, game: str | int) -> tuple[GameView, list[Registration]]:
        """Every power of ``game`` registered for mail, as the game master sees it."""
        view = self.service.status(game)
        out = []
        with self.db.session() as session:
            for r in mail_store.identities_of(session, view.id):
                mailed = (r.password_mail is not None and r.address is not None
                          and database.delivery_state(session, r.password_mail, "mail", r.address) == "delivered")
                out.append(Registration(r.power, r.address, r.player, r.password_hash is not None,
                                        r.password_mail is not None and not mailed, _holds(r, view), mailed))
        return view, out

    def forget(self, game_id: int, power: str) -> None:
        """After a resignation: the address no longer signs on for the power nor receives its mail."""
        with self.db.session() as session:
            row = mail_store.identity(session, game_id, power)
            if row is not None:
                session.delete(row)

    # -- the service's news --------------------------------------------------------------------

    def adopt(self, announcement: Announcement) -> None:
        """The service gave powers to players (the start, a new player, a rollback that brings a
        player back): register each player named by an e-mail address for the power they now
        play, and owe the address a new password, carried by ``announcement``."""
        a = announcement
        if a.game_id is not None and a.kind == "full":
            self._owe_gm_password(a, a.game_id)
        if a.game_id is None or a.kind not in ADOPTING:
            return
        view = self.service.status(a.game_id)
        now = self.service.now()
        with self.db.session() as session:
            rows = {r.power: r for r in mail_store.identities_of(session, a.game_id)}
            for holder in view.players:
                if not holder.power or holder.status in (PlayerStatus.WAITING, PlayerStatus.REMOVED):
                    continue
                row, address = rows.get(holder.power), address_of(holder.player)
                if address is None:
                    if row is not None and row.player is None and a.kind == "replaced" and \
                            a.data.get("power") == holder.power:
                        session.delete(row)  # registered for whoever played it: not for the new player
                    continue
                if row is not None and row.address == address and row.player in (None, holder.player) and \
                        (row.password_hash or row.password_mail):
                    continue  # registered already, with a password (or one on its way)
                row = row or mail_store.MailIdentityRow(game_id=a.game_id, power=holder.power, updated_at=now)
                row.address, row.player, row.password_hash, row.password_mail = address, holder.player, None, a.key
                row.signon_sender, row.updated_at = None, now
                session.add(row)

    def _owe_gm_password(self, a: Announcement, game_id: int) -> None:
        """The game is full: its game master, named by an address, is owed the game master's password
        (carried by ``a``), unless one works already."""
        view = self.service.status(game_id)
        address = address_of(view.gm)
        if address is None:
            return
        with self.db.session() as session:
            row = mail_store.identity(session, game_id, GM)
            if row is not None and row.address == address and (row.password_hash or row.password_mail):
                return
            row = row or mail_store.MailIdentityRow(game_id=game_id, power=GM, updated_at=self.service.now())
            row.address, row.player, row.password_hash, row.password_mail = address, None, None, a.key
            row.signon_sender, row.updated_at = None, self.service.now()
            session.add(row)

    def notice(self, address: str, kind: str) -> tuple[bool, int]:
        """May a mail of ``kind`` (:data:`NOTICES`) go to ``address`` now, and how many were held back
        since the last one went (see :func:`bot.store.mail.notice`)."""
        with self.db.session() as session:
            return mail_store.notice(session, address[:254], kind, self.service.now(), limit=NOTICES[kind],
                                     window=WINDOW)

    def pending(self, address: str, line: str) -> str:
        """Keep ``line`` (a JOIN or LEAVE in ``address``'s name from another mail system) until the
        address confirms it; the token to confirm it with, which only the mail to the address carries."""
        token = new_password()
        with self.db.session() as session:
            mail_store.add_pending(session, address[:254], _token_hash(token), line, self.service.now(),
                                   lasts=CONFIRM_WITHIN)
        return token

    def confirmed(self, address: str, token: str) -> str | None:
        """The command ``address`` confirms with ``token`` (``None``: no such token for it, or too late)."""
        with self.db.session() as session:
            return mail_store.take_pending(session, address[:254], _token_hash(token.strip().lower()),
                                           self.service.now() - CONFIRM_WITHIN)

    def held_back(self, address: str) -> int:
        """How many refusals were held back from ``address`` since it was last told (it is being told now)."""
        with self.db.session() as session:
            return mail_store.take_held(session, address[:254])

    def owed(self, announcement: Announcement, *, session: Session | None = None) -> set[str]:
        """The addresses ``announcement`` carries a new password to (those :meth:`password_for`
        makes one for). Known once the announcement is adopted (:meth:`adopt`): it owes none to
        another address later. Read in ``session`` if given (with the caller's other reads)."""
        if announcement.game_id is None:
            return set()
        if session is None:
            with self.db.session(read_only=True) as reading:
                return self.owed(announcement, session=reading)
        return {row.address for row in mail_store.identities_of(session, announcement.game_id)
                if row.address and row.password_mail == announcement.key}

    def password_for(self, announcement: Announcement, address: str) -> list[tuple[str, str]]:
        """The ``(power, password)`` pairs ``announcement`` carries to ``address``: for each power whose
        new password it owes that address, a new one, made now (the last one mailed is the one that
        works, should a mail be sent twice)."""
        if announcement.game_id is None:
            return []
        out = []
        with self.db.session() as session:
            for row in mail_store.identities_of(session, announcement.game_id):
                if row.address == address and row.password_mail == announcement.key:
                    password = new_password()
                    row.password_hash, row.updated_at = hash_password(password), self.service.now()
                    session.add(row)
                    mail_store.clear_failures(session, row.game_id, row.power)
                    out.append((row.power, password))
        return out

    # -- the player's side ---------------------------------------------------------------------

    def authenticate(self, game: str, power: str, password: str, sender: str | None,
                     envelope: str | None = None) -> Identity:
        """The identity of ``power`` in ``game`` if ``sender`` is its registered address and ``password`` is right.

        Otherwise :class:`SignonRefused`. A sender that is not the registered address is refused
        with the same words whether the password was right or not (no oracle for guessing it);
        :class:`ForeignSender` says whether to warn the registered address. Wrong passwords from
        the registered address count by ``envelope`` sender (see the module's note).
        """
        try:
            view = self.service.status(game)
        except ServiceError:
            raise SignonRefused(f"there is no game called {game!r} on this judge") from None
        powers = list(get_variant(view.variant).powers)
        if power not in powers and power != GM:
            raise SignonRefused(f"{power!r} is not a power of game '{view.name}'; its powers are {', '.join(powers)}")
        with self.db.session() as session:
            row = mail_store.identity(session, view.id, power)
            if row is not None:
                session.expunge(row)
        if power == GM and (address_of(view.gm) is None or row is None or row.address != address_of(view.gm)
                            or (row.password_hash is None and row.password_mail is None)):
            raise SignonRefused(f"the game master of '{view.name}' has no password for mail yet: it is mailed to "
                                f"the game master's address when every power has a player")
        if row is None or row.address is None or (row.password_hash is None and row.password_mail is None):
            raise SignonRefused(f"{power} in game '{view.name}' cannot be played by mail yet: the game master "
                                f"({view.gm}) registers its address")
        if sender != row.address:
            raise ForeignSender(
                f"this message did not come from the address registered for {power} in game '{view.name}'; "
                f"write from that address, or ask the game master ({view.gm}) to register this one",
                registered=row.address, password_right=verify_password(password, row.password_hash))
        if not _holds(row, view):
            raise SignonRefused(f"this address no longer plays {power} in game '{view.name}'")
        if row.password_hash is None:
            raise SignonRefused(f"the password of {power} in game '{view.name}' is on its way to this address "
                                f"by mail; sign on with it when it arrives")
        now, source = self.service.now(), (envelope or "")[:254]
        domain = "@" + source.rpartition("@")[2] if source else ""
        known = row.signon_sender is not None and row.signon_sender == source
        with self.db.session() as session:
            mine = mail_store.failures_since(session, view.id, power, now - WINDOW, source=source)
            theirs = (mail_store.failures_since(session, view.id, power, now - WINDOW, domain=domain)
                      if domain and not known else 0)
        if mine >= self.failures_per_hour or theirs >= DOMAIN_SENDERS * self.failures_per_hour:
            raise SignonRefused(f"too many wrong passwords for {power} in game '{view.name}' in the last hour; "
                                f"try again later or ask the game master ({view.gm}) for a new password")
        right = verify_password(password, row.password_hash)
        with self.db.session() as session:
            if not right:
                mail_store.record_failure(session, view.id, power, source, now)
            elif row.password_mail is not None or row.signon_sender != source:
                stored = mail_store.identity(session, view.id, power)
                if stored is not None:  # (unless unregistered since it was read)
                    # a sender the player uses: checked even while the power is guessed at
                    stored.signon_sender = source
                    stored.password_mail = None  # the password arrived: a late copy of its mail changes nothing
                    session.add(stored)
        if not right:
            raise SignonRefused(f"that is not the password of {power} in game '{view.name}'; "
                                f"the game master ({view.gm}) can set a new one")
        holder = view.player_of(power) if power != GM else None
        return Identity(view.id, view.name, power, holder.player if holder else None, row.address)

    def recipients(self, seats: Seats, powers: tuple[str, ...] | None = None) -> list[tuple[str, str]]:
        """``(power, address)`` of every address that speaks for a power of the game whose ``seats``
        these are (or for one of ``powers`` only)."""
        with self.db.session() as session:
            rows = mail_store.identities_of(session, seats.id)
        return [(r.power, r.address) for r in rows
                if r.address and r.power != GM and (powers is None or r.power in powers) and _holds(r, seats)]

    def powers_of(self, game_id: int, address: str) -> list[str]:
        """The powers of the game ``address`` speaks for."""
        return [power for power, a in self.recipients(self.service.seats(game_id)) if a == address]

    # -- inside --------------------------------------------------------------------------------

    def _authorise(self, game: str | int, actor: str | None, power: str, *,
                   gm_only: bool = False) -> tuple[GameView, str]:
        view = self.service.status(game)
        power = power.strip().upper()
        powers = list(get_variant(view.variant).powers)
        if power == GM and (actor is None or actor == view.gm):
            if address_of(view.gm) is None:
                raise ServiceError(f"the game master of '{view.name}' ({view.gm}) is not named by an e-mail address")
            return view, power
        if power not in powers:
            raise ServiceError(f"{power!r} is not a power of {view.variant}; powers: {', '.join(powers)}")
        holder = view.player_of(power)
        if actor is None or actor == view.gm:
            return view, power
        if not gm_only and holder is not None and holder.player == actor:
            return view, power
        if not gm_only and holder is None and actor is not None and self._registered(view, power) == address_of(actor):
            return view, power      # a power nobody plays yet: the address registered for it
        who = f"the game master of '{view.name}' ({view.gm})" + ("" if gm_only else f" or the player of {power}")
        raise NotAllowedError(f"only {who} may do that")

    def _registered(self, view: GameView, power: str) -> str | None:
        """The address registered for ``power`` in the game (None: none)."""
        with self.db.session() as session:
            row = mail_store.identity(session, view.id, power)
            return row.address if row is not None else None

    def _row(self, session, view: GameView, power: str) -> mail_store.MailIdentityRow:
        row = mail_store.identity(session, view.id, power)
        if row is None:
            holder = view.player_of(power)
            row = mail_store.MailIdentityRow(game_id=view.id, power=power, updated_at=self.service.now(),
                                             player=holder.player if holder else None)
        return row
