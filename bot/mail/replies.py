"""The judge's mail: the answer to a player's message, and announcements to a game's players.

Pure functions from values to text and to :class:`email.message.EmailMessage`; the password
never reaches them (SIGNON and SET PASSWORD lines arrive already masked).
"""

from __future__ import annotations

import re
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid

from ..service import GameView, PlayerOrders
from ..service.texts import when
from ..storage import utcnow
from .conversation import HELP, Conversation

SIGNATURE = "-- \nCrusader Judge. Write HELP to this address for the list of commands.\n"
_UNSAFE = re.compile(r"[\x00-\x1f\x7f]")


def reply_text(talk: Conversation) -> str:
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
    if talk.help or (not talk.echoes and not talk.refused):
        out += [HELP]
    return "\n".join(out).rstrip("\n") + "\n\n" + SIGNATURE


def _orders(orders: PlayerOrders) -> list[str]:
    head = f"Orders standing for {orders.power} in '{orders.game}', {orders.phase}"
    out = [head + ":" if orders.orders else head + ": none."]
    out += [f"  {line.canonical}" for line in orders.orders]
    if not orders.must_order:
        out.append(f"({orders.power} has nothing to order in {orders.phase}.)")
    if orders.prestige is not None:
        out.append(f"Prestige: {orders.prestige}")
    out += [f"Deadline: {when(orders.deadline_at)}", ""]
    return out


def _status(view: GameView) -> list[str]:
    out = [f"Game '{view.name}' ({view.variant}), {view.status}; phase {view.phase or '-'}; "
           f"deadline {when(view.deadline_at)}; game master {view.gm}."]
    for player in sorted(view.players, key=lambda p: p.power or ""):
        centres = view.centers.get(player.power, 0) if player.power else 0
        mark = "orders in" if player.has_orders else ("must order" if player.power in view.must_order else "")
        state = "" if player.status == "active" else f" [{player.status.replace('_', ' ')}]"
        out.append(f"  {player.power or '?':4} {centres:2} centres  {mark}{state}")
    return out + [""]


def subject_line(text: str) -> str:
    """``text`` on one line, without control characters, at most 150 characters."""
    return " ".join(_UNSAFE.sub(" ", text).split())[:150] or "Crusader Judge"


def reply_message(talk: Conversation, judge_address: str) -> EmailMessage:
    """The answer to ``talk``'s sender; only call with ``talk.to`` set."""
    if talk.to is None:
        raise ValueError("this message has no sender the judge may answer")
    if talk.identity is not None and talk.subject:  # a stranger's subject is not mailed back either
        subject = talk.subject if talk.subject.lower().startswith("re:") else f"Re: {talk.subject}"
    else:
        subject = "Crusader Judge: your message"
    msg = _message(judge_address, talk.to, subject_line(subject),
                   reply_text(talk), auto="auto-replied")
    if talk.in_reply_to:
        msg["In-Reply-To"] = talk.in_reply_to
        msg["References"] = talk.in_reply_to
    return msg


def alert_message(judge_address: str, to: str, text: str) -> EmailMessage:
    return _message(judge_address, to, "Crusader Judge: a sign-on from another address was refused",
                    text + "\n" + SIGNATURE, auto="auto-replied")


def announcement_message(judge_address: str, to: str, subject: str, body: str, *,
                         picture: bytes | None = None, picture_name: str = "map.png") -> EmailMessage:
    msg = _message(judge_address, to, subject_line(subject), body.rstrip("\n") + "\n\n" + SIGNATURE,
                   auto="auto-generated")
    if picture is not None:
        msg.add_attachment(picture, maintype="image", subtype="png", filename=picture_name)
    return msg


def _message(sender: str, to: str, subject: str, body: str, *, auto: str) -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = to
    msg["Subject"] = subject
    msg["Date"] = format_datetime(utcnow())
    msg["Message-ID"] = make_msgid(domain=sender.rpartition("@")[2] or None)
    msg["Auto-Submitted"] = auto
    msg.set_content(body)
    return msg
