"""What the judge does with one player's message: sign on, submit orders, answer commands.

:class:`MailJudge` turns an :class:`~bot.frontends.mail.reading.InboundMail` into a :class:`Conversation`:
every line with what the judge made of it, the power's orders as they now stand, and where the
answer may go. Nothing here touches the network; the listener sends what it returns.

Where answers go (the rule that keeps outbound mail from going where a player's text says):

- Only ever to the message's sender (its ``From`` address, or the envelope sender when there is
  no usable ``From``), never to ``Reply-To``, ``Cc`` or an address written in the text.
- A sender whose address is not the one registered for the power signed on gets a refusal that
  echoes nothing but the masked SIGNON line; nothing is changed, and the registered address is
  told that a correct password came from elsewhere.
- Until someone has signed on, nothing of the message's own text (or subject) is mailed back:
  lines are counted, not quoted, so a forged sender cannot make the judge mail its words.
- Automatic mail (bounces with an empty envelope sender, ``Auto-Submitted``, list or bulk mail)
  and daemon addresses get no answer at all, so two robots cannot mail each other forever.
- A command that changes a game without a password (``JOIN``, ``LEAVE``) is not carried out when
  the message's envelope sender is not its From address (a forged From: the rival writes from
  their own mail system): the answer, to the From address, carries a token, and ``CONFIRM
  <token>`` from that address carries the command out.
- Refusals and alarms to one address are coalesced (:meth:`MailJudge._limit`): a forged flood
  costs the address one mail an hour, and its next answer says how many were held back.
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass, field
from collections.abc import Callable

import structlog

from adjudicator.errors import CrusaderError
from adjudicator.variant import get_variant
from adjudicator.vocab import Phase
from grammar import joined_order

from bot.service import GameService, GameView, NotPlayingError, PlayerOrders, ServiceError, parse_duration
from bot.service.policy import read_setting
from bot.service.texts import when
from bot.store.names import game_key
from . import commands
from .accounts import GM, ForeignSender, Identity, MailAccounts, SignonRefused
from .addresses import may_reply_to
from .commands import SIGNON_USAGE, Command
from .reading import InboundMail
from bot.store.rows import GameStatus, PlayerStatus

log = structlog.get_logger("crusader.mail")

BUG_APOLOGY = ("Sorry: the judge failed on its own side while carrying out your message (a fault of the judge, "
               "not of anything you wrote); the failure has been logged for its operators. The lines answered "
               "above were carried out; the rest of the message was not. Please send the rest again later.")

Handler = Callable[["_Session", Command], bool]
HANDLERS: dict[str, Handler] = {}
"""Handlers of judge commands by kind (a keyword in lower case), besides the session's own ``_<kind>``
methods: a front end's part registers one with its keyword (:func:`bot.frontends.mail.commands.register`).
A handler answers the line (``session.talk.echoes``) and returns ``False`` to stop reading the message."""


def help_text() -> str:
    """The list of commands (HELP), from the table of commands."""
    return commands.help_text()


@dataclass
class Echo:
    """One line of the message and the judge's answer to it (``ok`` false: refused)."""

    written: str
    answer: str
    ok: bool = True


@dataclass
class Conversation:
    """The judge's side of one message: the reply, and where it may go (``to`` None: nowhere)."""

    to: str | None
    subject: str
    in_reply_to: str | None = None
    notes: list[str] = field(default_factory=list)
    echoes: list[Echo] = field(default_factory=list)
    identity: Identity | None = None
    orders: PlayerOrders | None = None
    status: GameView | None = None
    help: bool = False
    refused: str | None = None
    alert: tuple[str, str] | None = None  # (registered address, what to tell it)
    changed: bool = False
    orders_picture: dict | None = None
    """For LIST by a signed-on player of a running game: ``{"game": id, "name": ..., "power": ...,
    "phase": ...}``,
    whose standing orders the reply carries drawn on the board (when the phase has not moved on)."""
    board_picture: dict | None = None
    """For GET MAP: ``{"game": id, "version": n}``, the game's board at that version, drawn for the reply."""
    texts: list[list[str]] = field(default_factory=list)
    """Blocks of text the reply carries after the echoes (a game list, a history)."""
    suspect: bool = False
    """The message came from another mail system than its From address says (a forgery, or a
    forwarder): what it asked that needs the address's own word was refused."""
    key: str = field(default_factory=lambda: f"mail-reply:{uuid.uuid4().hex}")
    """The outbox key of the answer (a new password it carries is owed under it)."""


class MailJudge:
    def __init__(self, service: GameService, accounts: MailAccounts, *, judge_address: str | None = None,
                 pictures: bool = True) -> None:
        self.service = service
        self.accounts = accounts
        self.judge_address = judge_address
        self.pictures = pictures
        """Whether the judge's mail carries map pictures (GET MAP answers so)."""

    def answer(self, mail: InboundMail) -> Conversation:
        to = mail.sender if not mail.automatic and may_reply_to(mail.sender, self.judge_address) else None
        talk = Conversation(to=to, subject=mail.subject, in_reply_to=mail.message_id, notes=list(mail.notes))
        if mail.problem:
            talk.refused = mail.problem
            return talk
        script = commands.read_script(mail.text)
        try:
            _Session(self, mail, talk).run(script)
        except Exception:   # a bug, never the writer's fault: logged, and the writer told so
            log.exception("a message not carried out to its end", sender=mail.sender)
            talk.notes.append(BUG_APOLOGY)
        self._limit(mail, talk)  # before the log line: whether it is answered
        log.info("mail handled", sender=mail.sender, game=talk.identity.game if talk.identity else None,
                 power=talk.identity.power if talk.identity else None, lines=len(talk.echoes),
                 refused=talk.refused is not None, refusal=talk.refused, changed=talk.changed,
                 replied=talk.to is not None)
        return talk


    def _limit(self, mail: InboundMail, talk: Conversation) -> None:
        """Refusals and alarms to one address are coalesced: past a few in an hour (one, for messages in
        its name from another mail system) they are held back, and the next mail to that address, a
        refusal or any other answer, says how many were. A message that signed on, or changed
        something, is always answered."""
        forged = _forged(mail)
        talk.suspect = talk.suspect or (forged and talk.identity is None and not talk.changed)
        refused = talk.refused is not None or any(not e.ok for e in talk.echoes)
        held = 0
        if talk.to is not None and talk.identity is None and not talk.changed and (talk.suspect or refused):
            kind = "suspect" if talk.suspect else "refusal"
            go, held = self.accounts.notice(talk.to, kind)
            if not go:
                log.info("answer held back", kind=kind, sender=talk.to)
                talk.to = None
        elif talk.to is not None:
            held = self.accounts.held_back(talk.to)
        if held:
            talk.notes.append(f"{held} other message(s) in this address's name were refused without an answer "
                              f"since this address was last told, so as not to fill its mailbox; nothing they asked "
                              f"was done. If you did not send them, someone is using your address (their mail "
                              f"came from other mail systems than yours, or with wrong passwords)")
        if talk.alert is not None:
            go, before = self.accounts.notice(talk.alert[0], "alarm")
            if not go:
                talk.alert = None
            elif before:
                talk.alert = (talk.alert[0], talk.alert[1] + f"({before} more refused message(s) in your name came "
                                                             f"since you were last told.)\n")


def _forged(mail: InboundMail) -> bool:
    """Whether the message came from another mail system than its From address: its envelope sender
    (SMTP's ``MAIL FROM``) is another address. A forged From looks so; so does some forwarding."""
    return bool(mail.envelope and mail.sender and mail.envelope.lower() != mail.sender.lower())


class _Session:
    """The state of one message being read: who signed on, orders waiting to be submitted."""

    def __init__(self, judge: MailJudge, mail: InboundMail, talk: Conversation) -> None:
        self.judge, self.service, self.accounts = judge, judge.service, judge.accounts
        self.mail, self.talk = mail, talk
        self.me: Identity | None = None
        self.batch: list[Echo] = []
        self.skipping: str | None = None  # a later phase named by PHASE: its lines are not read
        self.unsigned = 0  # lines that were neither a command nor after a SIGNON
        self._directory = None  # the judge's games, read once per message
        self.resigned = False

    def run(self, script: commands.Script) -> None:
        for index, command in enumerate(script.commands):
            if command.error or command.kind != "order":  # the orders before it are submitted first
                self._flush()
            if command.error and command.kind == "order" and self.me is None:
                self.unsigned += 1  # counted, not echoed: a stranger's text is never mailed back
                continue
            if self.skipping is not None and command.kind not in ("phase", "signoff", "order"):
                self.talk.echoes.append(Echo(command.echo, f"not read: after PHASE {self.skipping}", ok=False))
                continue
            if command.error:
                self.talk.echoes.append(Echo(command.echo, command.error, ok=False))
                if command.kind == "signon":
                    return self._stop(script, index)
                continue
            keyword = commands.KEYWORDS.get(command.kind.upper())
            if keyword is not None and keyword.changes_game and _forged(self.mail):
                self._refuse_forged(command)
                continue
            if keyword is not None and keyword.section == commands.MASTER and not self._master(command):
                continue
            handler = HANDLERS.get(command.kind)
            done = handler(self, command) if handler is not None else getattr(self, f"_{command.kind}")(command)
            if done is False:
                return self._stop(script, index)
        self._flush()
        if self.unsigned:
            self.talk.notes.append(f"{self.unsigned} line(s) came before any SIGNON line and were not read; "
                                   f"orders follow a line {SIGNON_USAGE}")
        if script.ignored_after_signoff:
            self.talk.echoes[-1].answer += (f"; the {script.ignored_after_signoff} line(s) after it were ignored")
        if self.me is not None and self.me.player is not None:
            try:
                self.talk.orders = self.service.my_orders(self.me.game, self.me.player)
            except ServiceError:
                pass

    def _stop(self, script: commands.Script, index: int) -> None:
        """A refused sign-on: the rest of the message is not read (nor echoed)."""
        rest = len(script.commands) - index - 1 + script.ignored_after_signoff + self.unsigned
        self.talk.refused = self.talk.echoes[-1].answer
        if rest:
            self.talk.notes.append(f"the {rest} other line(s) of the message were not read")

    # -- commands ----------------------------------------------------------------------------

    def _signon(self, command: Command) -> bool:
        if self.me is not None:
            self.talk.echoes.append(Echo(command.echo, "already signed on; one SIGNON per message", ok=False))
            return True
        names, password = self._signon_words(command.args)
        echo = commands.signon_echo(names)
        try:
            power, game = self._master_token("".join(names)) or self._split("".join(names))
            if len(password) > 1:  # never right: a password has no spaces (and no word of it is echoed)
                raise SignonRefused(f"the password was written in {len(password)} words, and a password has no "
                                    f"spaces (write {SIGNON_USAGE})")
            me = self.accounts.authenticate(game, power, password[0], self.mail.sender, self.mail.envelope)
        except ForeignSender as exc:
            self.talk.echoes.append(Echo(echo, f"not signed on: {exc}; nothing was changed", ok=False))
            if exc.password_right:
                self.talk.alert = (exc.registered, (
                    f"A message signed on as {power} in game '{game}' with the right password came from "
                    f"{self.mail.sender or 'an unknown sender'}, not from this address, and was refused. Nothing "
                    f"was changed. If you did not send it, ask the game master for a new password.\n"))
            return False
        except SignonRefused as exc:
            self.talk.echoes.append(Echo(echo, f"not signed on: {exc}", ok=False))
            return False
        self.me = me
        view = self.service.status(me.game)
        self.talk.identity = me
        if me.power == GM:
            self.talk.echoes.append(Echo(echo, f"signed on as the game master of '{me.game}' ({view.status}"
                                               f"{', ' + _phase_words(view.phase) if view.phase else ''})"))
            return True
        when = _phase_words(view.phase)
        self.talk.echoes.append(Echo(echo, f"signed on as {me.power} in game '{me.game}' "
                                           f"({view.status}{', ' + when if when else ''})"))
        return True

    def _master_token(self, token: str) -> tuple[str, str] | None:
        """``GMcrusade1``: the game master's sign-on for the game (``None``: not one)."""
        if token[:len(GM)].upper() != GM or self._find(token) is not None:
            return None
        rest = game_key(token[len(GM):])
        game = next((g for g in self._games() if game_key(g.name) == rest), None)
        return (GM, game.name) if game is not None else None

    def _signon_words(self, words: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """The words of a SIGNON line that name the power and game (``ANTcrusade1``, or ``ANT crusade1``),
        and the words after them (the password)."""
        def names(token: str) -> bool:
            return self._find(token) is not None or self._master_token(token) is not None

        if len(words) >= 3 and not names(words[0]) and names(words[0] + words[1]):
            return tuple(words[:2]), tuple(words[2:])
        return tuple(words[:1]), tuple(words[1:])

    def _find(self, token: str) -> tuple[str, str] | None:
        games = self._games()
        return commands.split_signon(token, [g.name for g in games],
                                     {g.name: list(get_variant(g.variant).powers) for g in games})

    def _games(self):
        if self._directory is None:
            self._directory = self.service.directory()
        return self._directory

    def _split(self, token: str) -> tuple[str, str]:
        found = self._find(token)
        if found is not None:
            return found
        for game in self._games():
            if len(game.name) < len(token) and token.lower().endswith(game.name.lower()):
                prefix = token[: len(token) - len(game.name)][:40]
                powers = list(get_variant(game.variant).powers)
                raise SignonRefused(f"{prefix!r} is not a power of game '{game.name}'; its powers are "
                                    f"{', '.join(powers)} (write {SIGNON_USAGE})")
        raise SignonRefused(f"{token[:40]!r} is not a power code followed by the name of a game on this judge "
                            f"(write {SIGNON_USAGE})")

    def _signoff(self, command: Command) -> bool:
        answer = "signed off" if self.me else "end of message"
        if command.args:
            answer += " (what follows SIGNOFF is not read; write to the game master for anything else)"
        self.talk.echoes.append(Echo(command.echo, answer))
        return True

    def _clear(self, command: Command) -> bool:
        played = self._played(command)
        if played is None:
            return True
        (me, player), province = played, command.args[0].lower() if command.args else None
        try:
            left = self.service.clear_orders(me.game, player, province)
        except ServiceError as exc:
            self.talk.echoes.append(Echo(command.echo, f"nothing withdrawn: {exc}", ok=False))
            return True
        self.talk.changed = True
        what = f"the order for {province}" if province else f"all of {me.power}'s orders"
        self.talk.echoes.append(Echo(command.echo, f"{what} in {left.phase} withdrawn"))
        return True

    def _ready(self, command: Command) -> bool:
        played = self._played(command)
        if played is None:
            return True
        (me, player), ready = played, not command.args
        try:
            answer = self.service.ready(me.game, player, ready)
        except ServiceError as exc:
            self.talk.echoes.append(Echo(command.echo, f"not done: {_said(exc)}", ok=False))
            return True
        self.talk.changed = True
        self.talk.echoes.append(Echo(command.echo, _readiness(answer)))
        return True

    def _help(self, command: Command) -> bool:
        self.talk.help = True
        self.talk.echoes.append(Echo(command.echo, "the list of commands is at the end of this reply"))
        return True

    def _list(self, command: Command) -> bool:
        name = " ".join(command.args) if command.args else (self.me.game if self.me else None)
        if name is None:
            return self._directory_list(command)
        try:
            self.talk.status = self.service.status(name)
        except ServiceError:
            self.talk.echoes.append(Echo(command.echo, "there is no game of that name on this judge; "
                                                       "LIST alone lists its games", ok=False))
            return True
        me = self.me
        mine = (me is not None and me.power != GM and self.talk.status.id == me.game_id)
        if (me is not None and mine and self.talk.status.status in (GameStatus.ACTIVE, GameStatus.PAUSED)
                and self.talk.status.phase):
            self.talk.orders_picture = {"game": me.game_id, "name": me.game, "power": me.power,
                                        "phase": self.talk.status.phase}
        self.talk.echoes.append(Echo(command.echo, "the game's status" + (" and your orders" if mine else "")
                                     + (" are" if mine else " is") + " below"))
        return True

    def _directory_list(self, command: Command) -> bool:
        """LIST before signing on: the judge's games, those forming first, with how to join them."""
        views = [self.service.status(g.id) for g in self._games() if g.status != GameStatus.ENDED]
        order = {GameStatus.FORMING: 0, GameStatus.ACTIVE: 1, GameStatus.PAUSED: 2}
        views.sort(key=lambda v: (order.get(v.status, 3), v.name.lower()))
        lines = ["The games of this judge:" if views else "This judge has no game under way or forming now."]
        for v in views:
            powers = list(get_variant(v.variant).powers)
            if v.status == GameStatus.FORMING:
                seated = [p for p in v.players if p.status != PlayerStatus.WAITING]
                taken = {p.power for p in seated if p.power}
                free = [c for c in powers if c not in taken]
                lines.append(f"  {v.name} ({v.variant}): forming, {len(seated)} of {len(powers)} powers have a "
                             f"player; game master {v.gm}")
                lines.append(f"      to join: JOIN {v.name}" + (f" (or JOIN {v.name} <power>: free are "
                                                                 f"{', '.join(free)})" if len(seated) < len(powers)
                                                                 else " (the waiting list: every power has a player)"))
            else:
                played = {p.power for p in v.players if p.power and p.status == PlayerStatus.ACTIVE}
                nobody = [c for c in powers if c not in {p.power for p in v.players if p.power and
                                                          p.status != PlayerStatus.REMOVED}]
                lines.append(f"  {v.name} ({v.variant}): {v.status}, {v.phase}, {len(played)} of {len(powers)} "
                             f"powers played; deadline {when(v.deadline_at, v.timezone)}")
                if nobody:
                    lines.append(f"      nobody plays {', '.join(nobody)}: JOIN {v.name} {nobody[0]} takes it over")
        lines.append("LIST <game> shows one of them; HISTORY <game> its seasons.")
        self.talk.texts.append(lines)
        self.talk.echoes.append(Echo(command.echo, f"the judge's {len(views)} game(s) are below"))
        return True

    def _set_password(self, command: Command) -> bool:
        me = self._signed_on(command)
        if me is None:
            return True
        try:
            self.accounts.set_own_password(me, command.args[0])      # as the sender, never the operator
        except CrusaderError as exc:
            self.talk.echoes.append(Echo(command.echo, f"password not changed: {exc}", ok=False))
            return True
        self.talk.changed = True
        self.talk.echoes.append(Echo(command.echo, f"the password of {me.power} in '{me.game}' is changed"))
        return True

    def _resign(self, command: Command) -> bool:
        played = self._played(command)
        if played is None:
            return True
        me, player = played
        try:
            status = self.service.status(me.game).status
            if status in (GameStatus.ACTIVE, GameStatus.PAUSED):
                self.service.clear_orders(me.game, player)  # civil disorder: its units hold
            self.service.remove_player(me.game, player, me.power)  # as the player: only their own power
        except ServiceError as exc:
            self.talk.echoes.append(Echo(command.echo, f"not resigned: {exc}", ok=False))
            return True
        self.accounts.forget(me.game_id, me.power)
        self.talk.changed = True
        self.talk.echoes.append(Echo(command.echo, (
            f"you have resigned {me.power} in '{me.game}': its orders are withdrawn, it is in civil disorder (its "
            f"units hold) until the game master finds a new player, and this address no longer plays it")))
        self.resigned, self.me = True, None  # nothing after this is done for the power
        return True

    def _join(self, command: Command) -> bool:
        sender = self.mail.sender
        if sender is None or self.talk.to is None:  # automatic mail, or no address: nobody to send a password to
            self.talk.echoes.append(Echo(command.echo, "a player joins from the address they play from; this "
                                                       "message has none the judge can answer", ok=False))
            return True
        found = self._game_and_power(command.args)
        if found is None:
            self.talk.echoes.append(Echo(command.echo, "there is no game of that name on this judge; write JOIN "
                                                       "<game name>, or JOIN <game name> <power code>", ok=False))
            return True
        game, power = found
        echo = f"JOIN {game.name}" + (f" {power}" if power else "")
        try:
            if power is not None and game.status in (GameStatus.ACTIVE, GameStatus.PAUSED):
                self.service.take_over(game.name, sender, power)
                answer = (f"you now play {power} in '{game.name}'; the judge's announcement of it brings you the "
                          f"password, and then you sign on with SIGNON {power}{game.name} <password>")
            else:
                view = self.service.join(game.name, sender, power)
                answer = self._joined(view, sender, power)
        except ServiceError as exc:
            self.talk.echoes.append(Echo(echo, f"not joined: {exc}", ok=False))
            return True
        self.talk.changed = True
        self.talk.echoes.append(Echo(echo, answer))
        return True

    def _joined(self, view: GameView, sender: str, power: str | None) -> str:
        me = next(p for p in view.players if p.player == sender)
        if me.status == PlayerStatus.WAITING and view.status != GameStatus.FORMING:
            played = {p.power for p in view.players if p.power and p.status != PlayerStatus.REMOVED}
            free = [c for c in get_variant(view.variant).powers if c not in played]
            return (f"'{view.name}' is under way: you are on its waiting list, and the game master may give you a "
                    f"power. " + (f"Nobody plays {', '.join(free)}: JOIN {view.name} {free[0]} takes it over."
                                  if free else "Every power has a player now."))
        if me.status == PlayerStatus.WAITING:
            return (f"every power of '{view.name}' has a player: you are on its waiting list, and take the first "
                    f"seat that falls free before the start")
        seated = sum(1 for p in view.players if p.status != PlayerStatus.WAITING)
        powers = len(get_variant(view.variant).powers)
        what = f"as {power}" if power else "(your power is drawn when the game starts)"
        return (f"you have joined '{view.name}' {what}; {seated} of its {powers} powers {_has(seated)} a player. "
                f"When the game starts the judge mails you your power and password; LEAVE {view.name} leaves it "
                f"before then")

    def _leave(self, command: Command) -> bool:
        found = self._game_and_power(command.args, power=False)
        if found is None:
            self.talk.echoes.append(Echo(command.echo, "there is no game of that name on this judge; write LEAVE "
                                                       "<game name>", ok=False))
            return True
        game, _ = found
        if self.talk.to is None:
            return True  # automatic mail changes nothing
        try:
            self.service.leave(game.name, self.mail.sender)
        except ServiceError as exc:
            self.talk.echoes.append(Echo(f"LEAVE {game.name}", f"not left: {exc}", ok=False))
            return True
        self.talk.changed = True
        self.talk.echoes.append(Echo(f"LEAVE {game.name}", f"you have left '{game.name}'"))
        return True

    def _game_and_power(self, words: tuple[str, ...], *, power: bool = True):
        """The game a JOIN or LEAVE names (its name may have spaces), and the power after it, if any."""
        games = {game_key(g.name): g for g in self._games()}
        whole = games.get(game_key(" ".join(words)))
        if whole is not None or not power or len(words) < 2:
            return (whole, None) if whole is not None else None
        game = games.get(game_key(" ".join(words[:-1])))
        if game is None:
            return None
        return game, words[-1].upper()

    def _phase(self, command: Command) -> bool:
        me = self._signed_on(command)
        if me is None:
            self.skipping = command.args[0][:12]  # whatever it was for, its lines are not read as orders
            return True
        current = self.service.status(me.game).phase
        written = command.args[0].upper()
        try:
            wanted = str(Phase.parse(_njudge_phase(written)))
        except ValueError:
            year = Phase.parse(current).year if current else 1101
            self.skipping = written[:12]
            self.talk.echoes.append(Echo(command.echo, (
                f"{command.args[0][:20]!r} is not a phase; phases are written like S{year}M, F{year}R or W{year}B "
                f"(W{year}A too; the current one is {current}); the order lines below are not read until "
                f"SIGNOFF or PHASE {current}"), ok=False))
            return True
        if wanted == current:
            self.skipping = None
            self.talk.echoes.append(Echo(command.echo, f"{wanted} is the current phase: the orders below are for it"))
            return True
        self.skipping = wanted
        later = current is not None and Phase.parse(wanted) > Phase.parse(current)
        self.talk.echoes.append(Echo(command.echo, (
            (f"this judge does not yet accept orders for a later phase ({wanted})" if later else
             f"{wanted} is over (the current phase is {current})")
            + f"; the order lines below are not read until SIGNOFF or PHASE {current}, the current phase"),
            ok=False))
        return True

    # -- who may: a forged From, the game master --------------------------------------------------

    def _refuse_forged(self, command: Command) -> None:
        """A JOIN or LEAVE in a message whose envelope sender is another address than its From: the
        address's owner may not have written it, so it waits for the owner's CONFIRM, with a token
        that only the mail to the address carries."""
        self.talk.suspect = True
        keyword = command.kind.upper()
        said = f"this message says it is from {self.mail.sender}, but it was sent by another mail system " \
               f"(as {_short_address(self.mail.envelope)})"
        if self.talk.to is None:
            self.talk.echoes.append(Echo(command.echo, f"not done: {said}", ok=False))
            return
        token = self.accounts.pending(self.talk.to, " ".join((keyword, *command.args)))
        self.talk.echoes.append(Echo(command.echo, (
            f"not done yet: {said}. If you wrote it, write back from this address with the line "
            f"CONFIRM {token} (within a day) and it is carried out. If you did not, someone used your "
            f"address: ignore this mail, nothing was changed"), ok=False))

    def _confirm(self, command: Command) -> bool:
        sender = self.talk.to
        line = self.accounts.confirmed(sender, command.args[0]) if sender is not None else None
        if line is None:
            self.talk.echoes.append(Echo(command.echo, "no command waits for that token from this address (a "
                                                       "token lasts a day and is used once); send the command "
                                                       "again", ok=False))
            return True
        confirmed = commands.read_line(line)
        self.talk.echoes.append(Echo(command.echo, f"confirmed: {confirmed.echo}"))
        if confirmed.kind in ("join", "leave") and not confirmed.error:
            getattr(self, f"_{confirmed.kind}")(confirmed)
        return True

    def _master(self, command: Command) -> Identity | None:
        """The game master's identity, when they have signed on; if not, ``command`` is answered how to."""
        if self.me is not None and self.me.power == GM:
            return self.me
        how = "sign on as the game master first: SIGNON GM<game name> <password>"
        if self.me is not None:
            how = f"only the game master of '{self.me.game}' may do that (signed on as GM{self.me.game})"
        self.talk.echoes.append(Echo(command.echo, how, ok=False))
        return None

    def _gm_action(self, command: Command, act: Callable[[str, str], GameView],
                   done: Callable[[GameView], str]) -> bool:
        me = self._master(command)  # (signed on: a game master's command is read only then)
        if me is None:
            return True
        try:
            view = act(me.game, self._gm_of(me.game))
        except ServiceError as exc:
            self.talk.echoes.append(Echo(command.echo, f"not done: {exc}", ok=False))
            return True
        self.talk.changed = True
        self.talk.echoes.append(Echo(command.echo, done(view)))
        return True

    def _gm_of(self, game: str) -> str:
        """The game master as the service knows them (the game's ``gm``: the address that signed on)."""
        return self.service.entry(game).gm

    def _start(self, command: Command) -> bool:
        anyway = bool(command.args) and command.args[0].upper() in ("ANYWAY", "NOW", "CD")
        if command.args and not anyway:
            self.talk.echoes.append(Echo(command.echo, "write START, or START ANYWAY to start with the powers "
                                                       "nobody plays in civil disorder", ok=False))
            return True
        return self._gm_action(command, lambda g, gm: self.service.start(g, gm, fill_civil_disorder=anyway),
                               lambda v: f"'{v.name}' has started: {v.phase}, orders due by "
                                         f"{when(v.deadline_at, v.timezone)}; every player is mailed the start")

    def _pause(self, command: Command) -> bool:
        return self._gm_action(command, self.service.pause,
                               lambda v: f"'{v.name}' is paused in {v.phase}; its deadline is suspended until RESUME")

    def _resume(self, command: Command) -> bool:
        return self._gm_action(command, self.service.resume,
                               lambda v: f"'{v.name}' has resumed; orders for {v.phase} are due by "
                                         f"{when(v.deadline_at, v.timezone)}")

    def _extend(self, command: Command) -> bool:
        try:
            by = parse_duration(command.args[0], what="an extension")
        except ValueError as exc:
            self.talk.echoes.append(Echo(command.echo, f"not done: {exc}", ok=False))
            return True
        return self._gm_action(command, lambda g, gm: self.service.extend(g, gm, by),
                               lambda v: f"the deadline of {v.phase} is now {when(v.deadline_at, v.timezone)}")

    def _adjudicate(self, command: Command) -> bool:
        me = self._master(command)  # (signed on: a game master's command is read only then)
        if me is None:
            return True
        try:
            phase = self.service.status(me.game).phase
            outcome = self.service.force_adjudicate(me.game, self._gm_of(me.game))
        except ServiceError as exc:
            self.talk.echoes.append(Echo(command.echo, f"not done: {exc}", ok=False))
            return True
        if outcome != "adjudicated":
            self.talk.echoes.append(Echo(command.echo, f"{phase} was not adjudicated now ({outcome}: the game "
                                                       f"moved on meanwhile, or is being adjudicated); LIST "
                                                       f"shows where it stands", ok=False))
            return True
        self.talk.changed = True
        self.talk.echoes.append(Echo(command.echo, f"{phase} has been adjudicated: the results follow by mail"))
        return True

    def _set(self, command: Command) -> bool:
        """The game master's SET <setting> <value> (a player's SET PASSWORD is read as its own kind)."""
        me = self._master(command)
        if me is None:
            return True
        try:
            key, value = read_setting(command.args[0], " ".join(command.args[1:]))
            change = self.service.set_policy(me.game, self._gm_of(me.game), {key: value})
        except ServiceError as exc:
            self.talk.echoes.append(Echo(command.echo, f"not changed: {exc}", ok=False))
            return True
        if not change.changed:
            self.talk.echoes.append(Echo(command.echo, f"{key} is already so; nothing changed"))
            return True
        self.talk.changed = True
        later = "; from the next deadline" if change.game.status != GameStatus.FORMING else ""
        self.talk.echoes.append(Echo(command.echo, f"{key} changed{later}; every player is told the settings"))
        return True

    # -- a player's votes ------------------------------------------------------------------------

    def _draw(self, command: Command) -> bool:
        played = self._played(command)
        if played is None:
            return True
        me, player = played
        off = bool(command.args) and command.args[0].upper() in ("OFF", "NO", "NOT")
        if command.args and not off:
            self.talk.echoes.append(Echo(command.echo, "write DRAW to vote for a draw, DRAW OFF to take it back",
                                         ok=False))
            return True
        try:
            view = self.service.vote_draw(me.game, player, not off)
        except ServiceError as exc:
            self.talk.echoes.append(Echo(command.echo, f"not done: {_said(exc)}", ok=False))
            return True
        self.talk.changed = True
        self.talk.echoes.append(Echo(command.echo, "every surviving power voted for a draw: the game has ended"
                                     if view.status == GameStatus.ENDED else
                                     "your vote for a draw is taken back" if off else
                                     "your vote for a draw is recorded; the game ends in a draw when every "
                                     "surviving power has voted for one"))
        return True

    def _concede(self, command: Command) -> bool:
        played = self._played(command)
        if played is None:
            return True
        me, player = played
        if len(command.args) != 1:
            self.talk.echoes.append(Echo(command.echo, "write CONCEDE and the power you concede to, or CONCEDE OFF",
                                         ok=False))
            return True
        off = command.args[0].upper() in ("OFF", "NO", "NOT")
        try:
            to = None if off else self.service.power_code(self.service.status(me.game).variant, command.args[0])
            view = self.service.concede(me.game, player, to)
        except ServiceError as exc:
            self.talk.echoes.append(Echo(command.echo, f"not done: {_said(exc)}", ok=False))
            return True
        self.talk.changed = True
        self.talk.echoes.append(Echo(command.echo, "your concession is taken back" if off else
                                     f"the game has ended: {to} wins" if view.status == GameStatus.ENDED else
                                     f"your concession to {to} is recorded; the game ends with {to} the winner "
                                     f"when every other surviving power concedes to it"))
        return True

    def _press(self, command: Command) -> bool:
        self.talk.echoes.append(Echo(command.echo, f"{command.kind.upper()}: press is not available on this "
                                                   f"judge yet; nothing was sent"
                                     + (f" (the {len(command.body)} line(s) up to ENDPRESS were not read)"
                                        if command.body else ""), ok=False))
        return True

    _broadcast = _press

    # -- a game's record -------------------------------------------------------------------------

    def _named_game(self, command: Command, words: tuple[str, ...]) -> GameView | None:
        """The game ``words`` name, or the one signed on for; ``None`` (and the line answered) if none."""
        name = " ".join(words) if words else (self.me.game if self.me else None)
        if name is None:
            self.talk.echoes.append(Echo(command.echo, f"name a game: {command.kind.upper()} <game name> (LIST "
                                                       f"lists the judge's games)", ok=False))
            return None
        try:
            return self.service.status(name)
        except ServiceError:
            self.talk.echoes.append(Echo(command.echo, "there is no game of that name on this judge; LIST lists "
                                                       "its games", ok=False))
            return None

    def _history(self, command: Command) -> bool:
        view = self._named_game(command, command.args)
        if view is None:
            return True
        _, seasons = self.service.history(view.id)
        powers = list(get_variant(view.variant).powers)
        lines = [f"The seasons of '{view.name}' ({view.variant}), with each power's supply centres after them:",
                 "  " + " " * 8 + "".join(f"{p:>5}" for p in powers) + "  adjudicated"]
        for season in seasons:
            lines.append(f"  {season.phase:8}" + "".join(f"{season.centers.get(p, 0):>5}" for p in powers)
                         + f"  {when(season.adjudicated_at, view.timezone)}")
        if not seasons:
            lines.append("  (no season adjudicated yet)")
        if view.phase and view.status in (GameStatus.ACTIVE, GameStatus.PAUSED):
            lines.append(f"  now: {view.phase}, {view.status}; deadline {when(view.deadline_at, view.timezone)}")
        self.talk.texts.append(lines)
        self.talk.echoes.append(Echo(command.echo, f"the {len(seasons)} season(s) of '{view.name}' are below"))
        return True

    def _summary(self, command: Command) -> bool:
        words, power = command.args, None
        if len(words) > 1:
            found = self._game_and_power(words)
            if found is not None and found[1] is not None:
                words, power = tuple(words[:-1]), found[1]
        view = self._named_game(command, words)
        if view is None:
            return True
        variant = get_variant(view.variant)
        if power is not None:
            try:
                power = self.service.power_code(view.variant, power)
            except ServiceError as exc:
                self.talk.echoes.append(Echo(command.echo, str(exc), ok=False))
                return True
        _, seasons = self.service.history(view.id)
        lines = [f"Game '{view.name}' ({view.variant}), {view.status}; game master {view.gm}."]
        for code in ([power] if power else list(variant.powers)):
            holder = view.player_of(code)
            state = ("no player" if holder is None else holder.status.replace("_", " ") if holder.status != PlayerStatus.ACTIVE
                     else "played")
            lines.append(f"  {code} {variant.power_name(code)}: {state}, {view.centers.get(code, 0)} centre(s)")
            if power:
                for season in seasons:
                    lines.append(f"    {season.phase:8} {season.centers.get(code, 0):>3} centre(s), "
                                 f"{season.units.get(code, 0):>3} unit(s)")
        if not power:
            years = [s for s in seasons if s.phase.startswith("W") or s is seasons[-1]]
            if years:
                lines.append("  Supply centres, year by year:")
                lines.append("  " + " " * 8 + "".join(f"{p:>5}" for p in variant.powers))
                for season in years:
                    lines.append(f"  {season.phase:8}" + "".join(f"{season.centers.get(p, 0):>5}"
                                                                for p in variant.powers))
        self.talk.texts.append(lines)
        self.talk.echoes.append(Echo(command.echo, "the summary is below"))
        return True

    def _get(self, command: Command) -> bool:
        if command.args[0] == "RULES":
            self.talk.texts.append(RULES.splitlines())
            self.talk.echoes.append(Echo(command.echo, "the rules in brief are below"))
            return True
        view = self._named_game(command, command.args[1:])
        if view is None:
            return True
        if not self.judge.pictures:
            self.talk.echoes.append(Echo(command.echo, "this judge does not mail map pictures; LIST shows the "
                                                       "game's status", ok=False))
            return True
        self.talk.board_picture = {"game": view.id, "name": view.name, "version": view.version,
                                   "phase": view.phase}
        self.talk.echoes.append(Echo(command.echo, f"the map of '{view.name}' as it stands ({view.phase}) is "
                                                   f"attached"))
        return True

    def _played(self, command: Command) -> tuple[Identity, str] | None:
        """Who signed on and their player, when someone has signed on for a power that has a player;
        if not, ``command`` is answered why it cannot be carried out."""
        me = self._signed_on(command)
        if me is None:
            return None
        if me.power == GM:
            self.talk.echoes.append(Echo(command.echo, "the game master plays no power; sign on as a power for "
                                                       "that", ok=False))
            return None
        if me.player is None:
            self.talk.echoes.append(Echo(command.echo, f"nobody plays {me.power} in '{me.game}' yet",
                                         ok=False))
            return None
        return me, me.player

    def _signed_on(self, command: Command) -> Identity | None:
        """Who signed on; if nobody has, ``command`` is answered that it needs it."""
        if self.me is None:
            self.talk.echoes.append(Echo(command.echo, f"sign on first ({SIGNON_USAGE})", ok=False))
        return self.me

    def _order(self, command: Command) -> bool:
        if self.resigned:
            self.talk.echoes.append(Echo(command.echo, "not read: you have resigned the power", ok=False))
        elif self.me is None and commands.suggestion(command.echo.split()[0]) is not None:
            typo = command.echo.split()[0][:20]
            self.talk.echoes.append(Echo(typo + (" ..." if len(command.echo.split()) > 1 else ""), (
                f"{typo.upper()} is not a command of this judge; did you mean "
                f"{commands.suggestion(typo)}? (HELP lists the commands)"), ok=False))
        elif self.me is None:  # counted, not echoed: a stranger's text is never mailed back
            self.unsigned += 1
        elif self.me.power == GM:
            self.talk.echoes.append(Echo(command.echo, "not read: the game master gives no orders; sign on as a "
                                                       "power for that", ok=False))
        elif self.skipping is not None:
            self.talk.echoes.append(Echo(command.echo, f"not read: an order for {self.skipping}", ok=False))
        else:
            echo = Echo(command.echo, "")
            self.batch.append(echo)
            self.talk.echoes.append(echo)
        return True

    def _flush(self) -> None:
        """Submit the order lines gathered so far, as one message, and fill in each line's answer."""
        batch, self.batch = self.batch, []
        if not batch:
            return
        me = self.me
        assert me is not None  # (orders are gathered only while someone is signed on)
        if me.player is None:
            for echo in batch:
                echo.answer, echo.ok = f"nobody plays {me.power} in '{me.game}' yet; the game master assigns it", False
            return
        try:
            report = self.service.submit_orders(me.game, me.player, "\n".join(e.written for e in batch))
        except ServiceError as exc:
            for echo in batch:
                echo.answer, echo.ok = f"not accepted: {_said(exc)}", False
            return
        self.talk.changed = self.talk.changed or bool(report.accepted)
        # the batch went as one message, a line each: each echo is answered by what its line became
        accepted = {line.line_no: line for line in report.accepted}
        rejected = {line.line_no: line for line in report.rejected}
        standing = {line.canonical for line in report.standing}
        above = None  # what the line above became (a BRIBE takes the next line as its unit's order)
        given = [line.order for line in report.accepted]
        for line_no, echo in enumerate(batch, 1):
            line = accepted.pop(line_no, None)
            if line is not None:
                echo.answer = f"accepted: {line.canonical}"
                if line.canonical not in standing:
                    echo.answer += " (then replaced by a later order for the same unit)"
                else:
                    if line.replaces is not None and line.replaces not in given:  # one from an earlier message
                        echo.answer += f" (in place of {line.replaces})"
                    if line.note is not None:
                        echo.answer += f" (conditional: {line.note})"
                above = line
                continue
            line = rejected.pop(line_no, None)
            if line is None and above is not None and _bribe_with_order(above):
                echo.ok = above.order is not None
                echo.answer = ("read with the BRIBE above: " + (f"the bribed unit's order, {joined_order(above.order)}"
                                                                 if echo.ok else "refused with it"))
                above = None
                continue
            echo.ok = False
            echo.answer = _refused(line) if line else "not an order; ignored"
            above = line
        for line in accepted.values():  # read by the service together with another line (a BRIBE and its order)
            self.talk.echoes.append(Echo(line.written, f"accepted: {line.canonical}"))
        for line in rejected.values():
            self.talk.echoes.append(Echo(line.written, _refused(line), ok=False))
        if report.ready_cleared:
            batch[-1].answer += ("\n(your orders changed, so they are no longer marked final: write READY again "
                                 "once they are)")


def _short_address(address: str | None) -> str:
    return (address or "an unknown sender")[:80]


RULES = """\
Crusader Diplomacy ("The Crusader Kingdoms of Outremer"), in brief:
  Standard Diplomacy rules (moves, supports, convoys, retreats, builds) on a map of Anatolia, the
  Levant, Mesopotamia and Egypt around 1100, seven powers (ANT Antioch, BYZ Byzantium, EDE Edessa,
  FAT the Fatimids, JER Jerusalem, SEL the Seldjuks of the East, RUM the Seldjuks of Rum) and neutral
  armies. Each power has prestige, spent in sealed bids written with the orders:
    VASSAL   rent a neutral army for a year
    BRIBE    a neutral or an enemy unit obeys you for one season
    SEIZE FIEF      make a conquered centre a home centre
    REBEL    turn an enemy's conquered centre neutral
    SECURE LOYALTY  raise the price of rebellion and bribes against you
    LEND     give prestige to another power
  Orders are written one per line (A ant - ata, F lat H, A tar S A ant - ata, BRIBE A ale BID 2 then
  the bribed unit's order). GET MAP <game> mails the board; HELP the judge's commands."""


def _said(refusal: ServiceError) -> str:
    """A refusal of the service as the writer reads it (to someone who plays no power: what happened to them)."""
    return refusal.to_player() if isinstance(refusal, NotPlayingError) else str(refusal)


def _readiness(answer) -> str:
    """The answer to READY (or READY OFF): where the power stands, and whether the phase waits."""
    if not answer.ready:
        return f"your orders for {answer.phase} are no longer marked final"
    said = f"your orders for {answer.phase} are marked final"
    if answer.left.must_decide:
        said += (" (what they leave open goes to the judge's default: units hold, dislodged units disband, "
                 "builds are waived, removals follow civil disorder)")
    if answer.adjudicated:
        return said + f"; every power was ready, and {answer.phase} has been adjudicated: the results follow"
    if not answer.early:
        return said + "; early adjudication is off in this game, so the phase ends at its deadline"
    waiting = len(answer.waiting_for)
    return said + (f"; the phase ends once the {waiting} other power{'s' if waiting != 1 else ''} that must decide "
                   f"{'are' if waiting != 1 else 'is'} ready too, or at its deadline")


def _has(n: int) -> str:
    return "has" if n == 1 else "have"


def _bribe_with_order(line) -> bool:
    """Whether ``line`` (an answered line) is a BRIBE given with its unit's order on the next line:
    accepted with that order, or refused (the grammar joined the two before the judge refused them)."""
    if line.order is not None:
        return joined_order(line.order) is not None
    return line.written.split(None, 1)[0].upper() == "BRIBE" if line.written.strip() else False


def _refused(line) -> str:
    """A refused line's answer: the reason, and what would be accepted instead when the judge can say."""
    text = _reason(line.reason)
    refusal = line.refusal
    if refusal is not None and refusal.accepted and refusal.accepted not in text:
        text += f" (would be accepted: {refusal.accepted})"
    return f"REJECTED: {text}"


def _reason(reason: str | None) -> str:
    """The service's reason without its "line N:" (N counts the order lines, not the message's)."""
    return re.sub(r"^line \d+: ", "", reason or "not an order this judge understands")


def _njudge_phase(written: str) -> str:
    """The e-mail judges write a winter adjustment phase ``W1103A``; this judge ``W1103B``."""
    return written[:-1] + "B" if re.fullmatch(r"W\d+A", written) else written


def _phase_words(phase: str | None) -> str:
    if not phase:
        return ""
    try:
        return f"{Phase.parse(phase).long_name} ({phase})"
    except ValueError:
        return phase
