"""The judge's mail: the answer to a player's message, and announcements to a game's players.

Pure functions from values to text and to :class:`email.message.EmailMessage`; the password
never reaches them (SIGNON and SET PASSWORD lines arrive already masked).
"""

from __future__ import annotations

import re
import secrets
import uuid
from typing import Any
from email.message import EmailMessage, MIMEPart
from email.utils import format_datetime, make_msgid

import pybase64

from adjudicator.variant import get_variant

from bot.codec.spelled import duty as spelled_duty
from bot.service import GameView, PlayerOrders
from bot.service.texts import when
from bot.store.outbox import Announcement
from bot.store.rows import GameStatus, PlayerStatus, utcnow
from .conversation import Conversation, help_text
from .policies import COMPOSING, one_line

SIGNATURE = "-- \nCrusader Judge. Write HELP to this address for the list of commands.\n"
_UNSAFE = re.compile(r"[\x00-\x1f\x7f]")


def reply_text(talk: Conversation) -> str:
    """The answer to ``talk``'s sender (the signature is added when it is mailed)."""
    out: list[str] = []
    if talk.refused and not talk.echoes:
        out += ["Your message was not read:", f"  {talk.refused}", ""]
    elif talk.refused:
        out += ["Your message was refused; nothing in it was carried out.", ""]
    for note in talk.notes:
        out.append(f"Note: {note}.")
    if talk.notes:
        out.append("")
    for echo in talk.echoes:
        out.append(f"> {echo.written}")
        out.extend(f"    {line}" for line in echo.answer.splitlines() or [""])
    if talk.echoes:
        out.append("")
    if talk.identity is not None and talk.orders is not None:
        out += _orders(talk.orders)
    if talk.status is not None:
        out += _status(talk.status)
    for block in talk.texts:
        out += [*block, ""]
    if talk.help or (not talk.echoes and not talk.refused):
        out += [help_text()]
    return "\n".join(out).rstrip("\n") + "\n"


def _orders(orders: PlayerOrders) -> list[str]:
    head = f"Orders standing for {orders.power} in '{orders.game}', {orders.phase}"
    out = [head + ":" if orders.orders else head + ": none."]
    out += [f"  {line.canonical}" for line in orders.orders]
    if orders.must_order and orders.duty is not None and orders.duty.must_decide and orders.variant:
        out += ["To decide:"] + [f"  {line}" for line in spelled_duty(orders.duty, get_variant(orders.variant))]
    if not orders.must_order:
        out.append(f"({orders.power} has nothing to order in {orders.phase}.)")
    if orders.column is not None:
        out.append(f"{orders.column[0].capitalize()}: {orders.column[1]}")
    out += [f"Deadline: {when(orders.deadline_at, orders.timezone)}", ""]
    return out


def _status(view: GameView) -> list[str]:
    if view.status == GameStatus.FORMING:
        return _forming(view)
    deadline = ("the deadline is suspended until the game master resumes it" if view.status == GameStatus.PAUSED
                else f"deadline {when(view.deadline_at, view.timezone)}")
    out = [f"Game '{view.name}' ({view.variant}), {view.status}; phase {view.phase or '-'}; "
           f"{deadline}; game master {view.gm}."]
    for player in sorted(view.players, key=lambda p: p.power or ""):
        if player.status == PlayerStatus.WAITING:
            continue
        centres = view.centers.get(player.power, 0) if player.power else 0
        mark = "orders in" if player.has_orders else ("must order" if player.power in view.must_order else "")
        state = "" if player.status == PlayerStatus.ACTIVE else f" [{player.status.replace('_', ' ')}]"
        out.append(f"  {player.power or '?':4} {centres:2} centres  {mark}{state}")
    played = {p.power for p in view.players if p.power}
    unplayed = [c for c in get_variant(view.variant).powers if c not in played]
    for power in unplayed:
        out.append(f"  {power:4} {view.centers.get(power, 0):2} centres  [no player]")
    waiting = sum(1 for p in view.players if p.status == PlayerStatus.WAITING)
    if waiting:
        out.append(f"  {waiting} player(s) on the waiting list")
    return out + [""]


def _forming(view: GameView) -> list[str]:
    """A game that has not started: who has joined (by power, not by address) and how to join."""
    powers = list(get_variant(view.variant).powers)
    seated = [p for p in view.players if p.status != PlayerStatus.WAITING]
    taken = sorted(p.power for p in seated if p.power)
    drawn = sum(1 for p in seated if not p.power)
    waiting = len(view.players) - len(seated)
    out = [f"Game '{view.name}' ({view.variant}) is forming: {len(seated)} of its {len(powers)} powers "
           f"{'has' if len(seated) == 1 else 'have'} a player; game master {view.gm}."]
    if taken:
        out.append(f"  Powers taken: {', '.join(taken)}")
    if drawn:
        out.append(f"  Players whose power is drawn at the start: {drawn}")
    if waiting:
        out.append(f"  On the waiting list: {waiting}")
    free = [p for p in powers if p not in taken]
    if len(seated) < len(powers):
        out.append(f"  Powers still free: {', '.join(free)}")
        out.append(f"  To join: JOIN {view.name} (a power drawn at the start), or JOIN {view.name} {free[0]}")
    else:
        out.append(f"  Every power has a player; JOIN {view.name} puts you on the waiting list")
    out.append(f"  The first phase will be {view.phase}.")
    return out + [""]


def subject_line(text: str) -> str:
    """``text`` on one line, without control characters, at most 150 characters."""
    return " ".join(_UNSAFE.sub(" ", text).split())[:150] or "Crusader Judge"


def reply_subject(talk: Conversation) -> str:
    """The subject of the answer to ``talk``: ``Re:`` the player's own, a stranger's is not mailed back."""
    if talk.identity is not None and talk.subject:
        subject = talk.subject if talk.subject.lower().startswith("re:") else f"Re: {talk.subject}"
    else:
        subject = "Crusader Judge: your message"
    return subject_line(subject)


def answers(talk: Conversation) -> list[Announcement]:
    """What the judge mails back for ``talk``, as announcements for the outbox (through the
    ``mail`` notifier, to one address each): the reply to its sender, an alert to a registered
    address."""
    out = []
    if talk.to is not None:
        data: dict[str, Any] = {"via": "mail", "auto": "auto-replied"}
        if talk.in_reply_to:
            data["in_reply_to"] = talk.in_reply_to
        if talk.orders_picture is not None:
            data["orders_picture"] = talk.orders_picture
        if talk.board_picture is not None:
            data["board_picture"] = talk.board_picture
        out.append(Announcement(key=talk.key, kind="reply", audience="direct",
                                subject=reply_subject(talk), body=reply_text(talk), recipients=(talk.to,),
                                data=data))
    if talk.alert is not None:
        to, text = talk.alert
        out.append(Announcement(key=f"mail-alert:{uuid.uuid4().hex}", kind="alert", audience="direct",
                                subject="Crusader Judge: a sign-on from another address was refused",
                                body=text, recipients=(to,), data={"via": "mail", "auto": "auto-replied"}))
    return out


def picture_part(picture: bytes, name: str = "map.png") -> MIMEPart:
    """A map picture as an attachment, encoded once: every address of an announcement is sent the
    same part (a season's picture is 100-200 kB; encoding it again for each of seven players was
    most of the cost of a results mail)."""
    part = MIMEPart(policy=COMPOSING)
    # its headers as the email package sets them for a PNG; its payload base64 as the package
    # encodes it (lines of 76), the bytes of the standard library's encodebytes, written by
    # pybase64 in one call (the standard library's encodes a line at a time, in Python)
    part.set_content(b"", maintype="image", subtype="png", disposition="attachment", filename=name)
    part.set_payload(pybase64.encodebytes(picture).decode("ascii"))
    return part


def announcement_message(judge_address: str, to: str, subject: str, body: str, *,
                         picture: bytes | MIMEPart | None = None, picture_name: str = "map.png",
                         auto: str = "auto-generated", message_id: str | None = None) -> EmailMessage:
    """``picture``: the PNG, or its :func:`picture_part` (``picture_name`` is then the part's)."""
    msg = _message(judge_address, to, subject_line(subject), body.rstrip("\n") + "\n\n" + SIGNATURE, auto=auto,
                   message_id=message_id)
    if picture is not None:
        msg.make_mixed()
        part = picture if isinstance(picture, MIMEPart) else picture_part(picture, picture_name)
        msg.attach(part)  # type: ignore[arg-type]  # typeshed has a message attach only its own class; any part will do
        # a boundary of 128 random bits, chosen after the text: no part can hold it, so the mail is
        # written without searching every part for it
        msg.set_boundary(f"=_{secrets.token_hex(16)}")
    return msg


def _message(sender: str, to: str, subject: str, body: str, *, auto: str, message_id: str | None = None) -> EmailMessage:
    msg = EmailMessage(policy=COMPOSING)
    msg["From"] = sender
    # one plain local@domain (every address the judge writes to is normalised so:
    # :mod:`bot.frontends.mail.addresses`), whose field the email package writes the same whether
    # set as it is or parsed (one too long it folds parsed either way): set as it is, so that a
    # copy of the letter for another address is written without parsing that address (:class:`Letter`)
    msg.set_raw("To", one_line(to))
    msg["Subject"] = subject
    msg["Date"] = format_datetime(utcnow())
    # the judge's own identifier, set as it is made: written as it is (the email package folds a
    # header set so only when it is too long, and then as it folds it parsed), not parsed first
    msg.set_raw("Message-ID", one_line(message_id or make_msgid(domain=sender.rpartition("@")[2] or None)))
    msg["Auto-Submitted"] = auto
    msg.set_content(body)
    return msg
