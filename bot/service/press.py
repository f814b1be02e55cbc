"""Press: what players say to each other (and to the game master) through the judge.

The service decides who may send what to whom under the game's press rules (its policy's
``press``: :data:`~bot.service.policy.PRESS_RULES`); the front ends only read what a player wrote
and show the answer. A message is stored (:class:`~bot.store.rows.PressRow`) and, in the same
transaction, written to the outbox once per recipient power (to that power's player, on
whichever front end they play: a Discord DM, a mail to the power's address) and once for the game
master when addressed to them, so it is delivered exactly as reliably as results.

What a recipient reads names the game, the phase, the sending power (or "an anonymous power"
under grey press) and the other recipients, never the sender's Discord name or address. The
sender gets a :class:`PressReceipt`: where it went, as what, and what was refused and why.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from collections.abc import Sequence

from sqlmodel import Session

from adjudicator.errors import CrusaderError
from adjudicator.turn import survivors
from adjudicator.vocab import Phase, PhaseKind

from bot.codec.documents import position_from_dict
from bot.store import database
from bot.store.rows import GameRow, PressRow
from .context import WAITING, Context
from .errors import InputError, NotAllowedError, WrongStateError
from .policy import DeadlinePolicy

EVERYONE = ("ALL", "EVERYONE", "EVERYBODY", "BROADCAST", "*")
GAME_MASTER = ("GM", "MASTER", "GAMEMASTER")
MAX_RECIPIENTS_TEXT = 400
RATE_WINDOW = timedelta(hours=1)
GM = "GM"


@dataclass(frozen=True)
class PressReceipt:
    """What became of one message: ``sent_to`` the powers it reached (and ``GM``), as anonymous or
    not, ``broadcast`` when addressed to everyone; ``refused`` pairs a recipient as written with
    why it was not sent there."""

    game: str
    phase: str
    power: str
    sent_to: tuple[str, ...]
    broadcast: bool
    anonymous: bool
    refused: tuple[tuple[str, str], ...]
    id: int


@dataclass(frozen=True)
class PressLine:
    """One message as the asker may see it. ``sender`` is ``None`` for anonymous press the asker
    received; ``sent``: the asker's power sent it."""

    id: int
    phase: str
    at: datetime
    sent: bool
    sender: str | None
    to: tuple[str, ...]
    broadcast: bool
    to_gm: bool
    anonymous: bool
    text: str


@dataclass(frozen=True)
class PressHistory:
    """A game's press as one asker may see it, oldest first: a power's (``power``), what it sent and
    received; or the game master's (``power`` None): what was sent to the game master, and the
    number of messages each power sent in each phase (``volume``: ``(phase, power, count)``)."""

    game: str
    variant: str
    power: str | None
    lines: tuple[PressLine, ...]
    volume: tuple[tuple[str, str, int], ...] = ()


def split_recipients(text: str) -> list[str]:
    """``"ANT, BYZ"``, ``"ant byz"``, ``"Antioch, the County of Edessa"``: the recipients as written,
    in order (a power's name of several words stays whole between commas)."""
    if len(text) > MAX_RECIPIENTS_TEXT:
        raise InputError(f"the recipients are a few powers, like ANT, BYZ; not {len(text)} characters")
    return [item.strip() for item in re.split(r"[,;]+", text) if item.strip()]


def _each_recipient(variant, items: Sequence[str]) -> list[str]:
    """Recipients as written, one each: an item that is not a power's name (nor ALL, nor GM) as a
    whole is read word by word (``ANT BYZ``)."""
    out: list[str] = []
    for item in items:
        whole = item.upper() in EVERYONE or item.upper() in GAME_MASTER or _power(variant, item) is not None
        out += [item] if whole or " " not in item.strip() else item.split()
    return out


class PressDesk:
    """Press sent and read (the service's ``send_press``, ``press_history`` and ``published_press``).
    The game master (of a game they play no power in) sends press too, under their own name, to any
    power or everyone, whatever the press rules, and without the hourly bound."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    def send_press(self, game: str | int, player: str, to: Sequence[str] | str, text: str, *,
                   anonymous: bool = False) -> PressReceipt:
        """``player`` sends ``text`` to ``to`` (power codes or names, ``ALL`` for everyone, ``GM`` for
        the game master; a string is split at commas and spaces), anonymously under grey press if
        asked. Recipients refused one by one (an unknown, eliminated or unplayed power; private press
        under public press...) are in the receipt; a message that can go nowhere, is too long, comes
        over the power's hourly bound, or comes from a power that is out of the game, is refused
        whole with a :class:`~bot.service.errors.ServiceError` that says why."""
        words = split_recipients(to) if isinstance(to, str) else [str(w).strip() for w in to if str(w).strip()]
        body = (text or "").strip()
        if not words:
            raise InputError("say whom the press is for: powers (like ANT, BYZ), ALL for everyone, GM for the "
                             "game master")
        if not body:
            raise InputError("the press has no text")
        now = self.ctx.now()
        with self.ctx.db.session() as session:
            row = self.ctx.game(session, game)
            if row.status not in ("active", "paused"):
                raise WrongStateError(f"'{row.name}' is {row.status}: press goes between the players of a game under "
                                      "way" + (" (it has not started)" if row.status == "forming" else ""))
            policy = self.ctx.policy(row)
            if len(body) > policy.press_max_chars:
                raise InputError(f"the press is {len(body)} characters long; a message in '{row.name}' has at most "
                                 f"{policy.press_max_chars}: split it, or say it shorter")
            players = database.players_of(session, row.id)
            variant, position = position_from_dict(row.position)
            words = _each_recipient(variant, words)
            alive = set(survivors(variant, position))
            from_gm = player == row.gm and not any(
                p.player == player and p.power and p.status not in (WAITING, "removed") for p in players)
            sender = GM if from_gm else str(self.ctx.playing(session, row, players, player).power)  # (it plays one)
            if from_gm and anonymous:
                raise NotAllowedError("the game master's press goes under the game master's name")
            if not from_gm and sender not in alive:
                raise NotAllowedError(f"{sender} has been eliminated from '{row.name}': it sends no press")
            if policy.press_per_hour and not from_gm:
                recent = database.press_count_since(session, row.id, sender, now - RATE_WINDOW)
                if recent >= policy.press_per_hour:
                    raise NotAllowedError(f"{sender} has sent {recent} messages of press in '{row.name}' in the last "
                                          f"hour, as many as the game allows ({policy.press_per_hour} an hour); "
                                          "wait a while, or say more in each")
            if anonymous and policy.press != "grey":
                raise NotAllowedError(f"anonymous press is allowed only under grey press; '{row.name}' has "
                                      f"{policy.press} press: send it under your power's name")
            phase = str(row.phase)  # (a game under way is in a phase)
            kind = Phase.parse(phase).kind
            between_players = (None if from_gm  # the game master writes to anyone, in any phase
                               else "no press between players in this game (only to the game master)"
                               if policy.press == "none"
                               else None if policy.press_all_phases or kind is PhaseKind.MOVEMENT
                               else "no press between players in retreat and adjustment phases in this game "
                                    "(only to the game master)")
            held = {p.power: p for p in players if p.power and p.status not in (WAITING, "removed")}
            targets: list[str] = []
            refused: list[tuple[str, str]] = []
            broadcast = to_gm = False
            for word in words:
                upper = word.upper()
                if upper in GAME_MASTER:
                    if from_gm:
                        refused.append((word, "that is you"))
                    else:
                        to_gm = True
                    continue
                if upper in EVERYONE:
                    if between_players:
                        refused.append((word, between_players))
                    else:
                        broadcast = True
                    continue
                power = _power(variant, word)
                if power is None:
                    refused.append((word, f"not a power of {row.variant} (powers: {', '.join(variant.powers)}; "
                                          "ALL for everyone, GM for the game master)"))
                elif between_players:
                    refused.append((word, between_players))
                elif policy.press == "public" and not from_gm:
                    refused.append((word, "this game has public press only: write to ALL (everyone) or the GM"))
                elif power == sender:
                    refused.append((word, "that is your own power"))
                elif power not in alive:
                    refused.append((word, f"{power} has been eliminated"))
                elif power not in held:
                    refused.append((word, f"nobody plays {power}"))
                elif power not in targets:
                    targets.append(power)
            if broadcast:
                targets = sorted(p for p in held if p != sender and p in alive)
            if not targets and not to_gm:
                raise NotAllowedError("the press was not sent: " + "; ".join(f"{w}: {why}" for w, why in refused))
            press = PressRow(game_id=row.id, version=row.version, phase=phase, power=sender, player=player,
                             to=list(targets), broadcast=broadcast, to_gm=to_gm, anonymous=anonymous, text=body, at=now)
            session.add(press)
            session.flush()
            subject = f"{row.name}: press in {phase}"
            text_out = press_text(row.name, phase, variant, press)
            for power in targets:
                self.ctx.announce(session, row, "press", "players", subject, text_out,
                                  key=f"{row.id}:press:{press.id}:{power}", powers=[power],
                                  recipients=[held[power].player], data={"press": press.id})
            if to_gm:
                self.ctx.announce(session, row, "press", "gm", subject, text_out, key=f"{row.id}:press:{press.id}:gm",
                                  data={"press": press.id})
            assert press.id is not None  # (written)
            return PressReceipt(game=row.name, phase=phase, power=sender,
                                sent_to=tuple(targets) + ((GM,) if to_gm else ()), broadcast=broadcast,
                                anonymous=anonymous, refused=tuple(refused), id=press.id)

    def press_history(self, game: str | int, asker: str) -> PressHistory:
        """The game's press as ``asker`` may see it: a player, their power's (what it sent and
        received, whoever played it then; anonymous senders kept so); the game master, what was
        sent to them and how much each power sent in each phase."""
        with self.ctx.db.session() as session:
            row = self.ctx.game(session, game)
            players = database.players_of(session, row.id)
            rows = database.press_of(session, row.id)
            mine = next((p for p in players if p.player == asker and p.power and p.status not in (WAITING, "removed")),
                        None)
            if mine is None and asker == row.gm:
                counts: dict[tuple[str, str], int] = {}
                for p in rows:
                    counts[(p.phase, p.power)] = counts.get((p.phase, p.power), 0) + 1
                order: dict[str, int] = {}
                for p in rows:
                    order.setdefault(p.phase, p.version)
                volume = tuple((phase, power, n) for (phase, power), n in
                               sorted(counts.items(), key=lambda item: (order[item[0][0]], item[0][1])))
                lines = tuple(_line(p, GM) for p in rows if p.to_gm or p.power == GM)
                return PressHistory(row.name, row.variant, None, lines, volume)
            me = self.ctx.playing(session, row, players, asker) if mine is None else mine
            lines = tuple(_line(p, me.power) for p in rows if p.power == me.power or me.power in p.to)
            return PressHistory(row.name, row.variant, me.power, lines)

    def published_press(self, game: str | int) -> PressHistory | None:
        """The press of an ended game that publishes it (its policy's ``press_published``): what the
        players sent each other (not what went to the game master alone; anonymous press stays
        anonymous); ``None`` for a game under way, or one that keeps its press private."""
        with self.ctx.db.session() as session:
            row = self.ctx.game(session, game)
            lines = published(session, row)
            return None if lines is None else PressHistory(row.name, row.variant, None, lines)


def published(session: Session, game: GameRow) -> tuple[PressLine, ...] | None:
    """The press ``game`` publishes (:meth:`PressDesk.published_press`; the archive site shows it),
    oldest first; ``None`` while it is under way or when it keeps its press private."""
    if game.status != "ended" or not DeadlinePolicy.from_dict(game.policy).press_published:
        return None
    return tuple(_public_line(p) for p in database.press_of(session, game.id) if p.to)


def press_text(game: str, phase: str, variant, press: PressRow) -> str:
    """What a recipient of ``press`` reads (every recipient the same)."""
    sender = ("an anonymous power" if press.anonymous else "the game master" if press.power == GM
              else _named(variant, press.power))
    if press.broadcast:
        to = "everyone" + (" and the game master" if press.to_gm else "")
    else:
        to = ", ".join([_named(variant, p) for p in press.to] + (["the game master"] if press.to_gm else []))
    return (f"Press in '{game}' ({phase}) from {sender} to {to}:\n\n{press.text}\n\n"
            f"({ANSWER_HINT})\n")


ANSWER_HINT = ("to answer, write through the judge: /press send on Discord, or PRESS TO <powers> ... ENDPRESS "
               "in a signed-on mail")


def _named(variant, power: str) -> str:
    return f"{variant.power_name(power)} ({power})"


def _power(variant, word: str) -> str | None:
    """The power ``word`` names (code, name, adjective: :func:`grammar.resolve_power_name`), or ``None``."""
    from grammar import resolve_power_name  # (read when needed: importing the service reads no grammar)

    try:
        return resolve_power_name(word.strip(), variant)
    except CrusaderError:
        return None


def _line(p: PressRow, power: str | None) -> PressLine:
    sent = p.power == power
    return PressLine(id=p.id or 0, phase=p.phase, at=p.at, sent=sent,
                     sender=None if p.anonymous and not sent else p.power, to=tuple(p.to), broadcast=p.broadcast,
                     to_gm=p.to_gm, anonymous=p.anonymous, text=p.text)


def _public_line(p: PressRow) -> PressLine:
    return PressLine(id=p.id or 0, phase=p.phase, at=p.at, sent=False, sender=None if p.anonymous else p.power,
                     to=tuple(p.to), broadcast=p.broadcast, to_gm=False, anonymous=p.anonymous, text=p.text)


def history_lines(history: PressHistory, *, limit: int | None = None) -> list[str]:
    """``history`` as text, by phase (the front ends' one way of showing it): a line per message,
    ``limit`` the latest messages only."""
    lines: list[str] = []
    shown = history.lines[-limit:] if limit else history.lines
    if limit and len(history.lines) > limit:
        lines.append(f"(the latest {limit} of {len(history.lines)} messages)")
    phase = None
    for p in shown:
        if p.phase != phase:
            phase = p.phase
            lines += ["", f"{phase}:"]
        to = "everyone" if p.broadcast else ", ".join(list(p.to) + ([GM] if p.to_gm else []))
        if p.sent:
            head = f"sent to {to}" + (" (anonymously)" if p.anonymous else "")
        else:
            head = f"from {p.sender or 'an anonymous power'} to {to}"
        lines.append(f"  [{p.at:%Y-%m-%d %H:%M} UTC] {head}:")
        lines += [f"    {text_line}" for text_line in p.text.splitlines()]
    if history.power is None and history.volume:
        lines += ["", "Messages sent, by phase and power:"]
        for phase_name, power, n in history.volume:
            lines.append(f"  {phase_name} {power}: {n}")
    if not any(line.strip() for line in lines):
        lines = ["no press yet"] if history.power is not None else ["no press to you, and none sent yet"]
    return [line for i, line in enumerate(lines) if i or line]


def receipt_text(receipt: PressReceipt) -> str:
    """What the sender is told of ``receipt`` (every front end the same): where it went, as what,
    and what was refused and why."""
    variant_of = "everyone" if receipt.broadcast else None
    to = [p for p in receipt.sent_to if p != GM]
    where = variant_of or ", ".join(to)
    if GM in receipt.sent_to:
        where = f"{where} and the game master" if where else "the game master"
    lines = [f"Press sent in '{receipt.game}' ({receipt.phase}) to {where}, "
             + ("anonymously (its recipients see \"an anonymous power\")" if receipt.anonymous
                else "as the game master" if receipt.power == GM else f"as {receipt.power}") + "."]
    lines += [f"Not sent to {word}: {why}." for word, why in receipt.refused]
    return "\n".join(lines)


__all__ = ["PressDesk", "PressHistory", "PressLine", "PressReceipt", "history_lines", "press_text", "receipt_text",
           "split_recipients"]
