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
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass, field

import structlog

from adjudicator.errors import CrusaderError
from adjudicator.prestige.orders import Bribe
from adjudicator.variant import get_variant
from adjudicator.vocab import Phase

from bot.service import GameService, GameView, NotPlayingError, PlayerOrders, ServiceError
from bot.store.names import game_key
from . import commands, press
from .accounts import ForeignSender, Identity, MailAccounts, SignonRefused
from .addresses import may_reply_to
from .commands import SIGNON_USAGE, Command
from .reading import InboundMail

log = structlog.get_logger("crusader.mail")

BUG_APOLOGY = ("Sorry: the judge failed on its own side while carrying out your message (a fault of the judge, "
               "not of anything you wrote); the failure has been logged for its operators. The lines answered "
               "above were carried out; the rest of the message was not. Please send the rest again later.")

HELP = f"""\
How to play by mail: write to this address, one command or order per line.

  {SIGNON_USAGE}
      the first line; the judge mails you the password when you get a power
  A ant - ale               an order; later orders for the same unit replace earlier ones
  LIST                      the game's status and your orders as they stand
  CLEAR <province>          withdraw your order for the unit (or build) there;
                            CLEAR alone withdraws all your orders for the phase
  READY                     your orders for the phase are final (a later order takes it back;
                            READY OFF too); with early adjudication the phase ends once every
                            power that must decide is ready
  SET PASSWORD <new>        change your password
  PHASE <phase>             orders for a later phase (not accepted by this judge yet)
  RESIGN                    leave the game: your orders are withdrawn, your power goes into civil
                            disorder (its units hold) and your password stops working
{press.HELP}  SIGNOFF                   the end; anything after it is ignored

Without signing on:
  JOIN <game>               join a game that is forming (your power is drawn at the start)
  JOIN <game> <power>       ... asking for a power; in a game under way, take over a power
                            nobody plays
  LEAVE <game>              leave a game before it starts, or its waiting list
  LIST <game>               a game's public status
  HELP                      this list
"""


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
    key: str = field(default_factory=lambda: f"mail-reply:{uuid.uuid4().hex}")
    """The outbox key of the answer (a new password it carries is owed under it)."""


class MailJudge:
    def __init__(self, service: GameService, accounts: MailAccounts, *, judge_address: str | None = None) -> None:
        self.service = service
        self.accounts = accounts
        self.judge_address = judge_address

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
        log.info("mail handled", sender=mail.sender, game=talk.identity.game if talk.identity else None,
                 power=talk.identity.power if talk.identity else None, lines=len(talk.echoes),
                 refused=talk.refused is not None, changed=talk.changed, replied=talk.to is not None)
        return talk


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
            if command.error:
                self.talk.echoes.append(Echo(command.echo, command.error, ok=False))
                if command.kind == "signon":
                    return self._stop(script, index)
                continue
            handler = getattr(self, f"_{command.kind}")
            if handler(command) is False:
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
            power, game = self._split("".join(names))
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
        when = _phase_words(view.phase)
        self.talk.echoes.append(Echo(echo, f"signed on as {me.power} in game '{me.game}' "
                                           f"({view.status}{', ' + when if when else ''})"))
        return True

    def _signon_words(self, words: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """The words of a SIGNON line that name the power and game (``ANTcrusade1``, or ``ANT crusade1``),
        and the words after them (the password)."""
        if len(words) >= 3 and self._find(words[0]) is None and self._find(words[0] + words[1]) is not None:
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

    def _press(self, command: Command) -> bool:
        if self.me is None:  # a stranger's text is never mailed back, nor sent on
            self.unsigned += 1
        elif self._played(command):
            answer, ok = press.send(self.service, self.me.game, self.me.player, command.args)
            self.talk.echoes.append(Echo(command.echo, answer, ok=ok))
        return True

    def _press_history(self, command: Command) -> bool:
        if self._played(command):
            answer, ok = press.history(self.service, self.me.game, self.me.player)
            self.talk.echoes.append(Echo(command.echo, answer, ok=ok))
        return True

    def _signoff(self, command: Command) -> bool:
        answer = "signed off" if self.me else "end of message"
        if command.args:
            answer += " (what follows SIGNOFF is not read; write to the game master for anything else)"
        self.talk.echoes.append(Echo(command.echo, answer))
        return True

    def _clear(self, command: Command) -> bool:
        if not self._played(command):
            return True
        me, province = self.me, command.args[0].lower() if command.args else None
        try:
            left = self.service.clear_orders(me.game, me.player, province)
        except ServiceError as exc:
            self.talk.echoes.append(Echo(command.echo, f"nothing withdrawn: {exc}", ok=False))
            return True
        self.talk.changed = True
        what = f"the order for {province}" if province else f"all of {me.power}'s orders"
        self.talk.echoes.append(Echo(command.echo, f"{what} in {left.phase} withdrawn"))
        return True

    def _ready(self, command: Command) -> bool:
        if not self._played(command):
            return True
        me, ready = self.me, not command.args
        try:
            answer = self.service.ready(me.game, me.player, ready)
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
        name = command.args[0] if command.args else (self.me.game if self.me else None)
        if name is None:
            self.talk.echoes.append(Echo(command.echo, "sign on first, or name a game: LIST <game name>", ok=False))
            return True
        try:
            self.talk.status = self.service.status(name)
        except ServiceError:
            self.talk.echoes.append(Echo(command.echo, "there is no game of that name on this judge; "
                                                       "LIST <game name> names one of its games", ok=False))
            return True
        mine = self.me is not None and self.talk.status.id == self.me.game_id
        if mine and self.talk.status.status in ("active", "paused") and self.talk.status.phase:
            self.talk.orders_picture = {"game": self.me.game_id, "name": self.me.game, "power": self.me.power,
                                        "phase": self.talk.status.phase}
        self.talk.echoes.append(Echo(command.echo, "the game's status" + (" and your orders" if mine else "")
                                     + (" are" if mine else " is") + " below"))
        return True

    def _set_password(self, command: Command) -> bool:
        if not self._signed_on(command):
            return True
        try:
            self.accounts.set_power_password(self.me.game, None, self.me.power, command.args[0])
        except CrusaderError as exc:
            self.talk.echoes.append(Echo(command.echo, f"password not changed: {exc}", ok=False))
            return True
        self.talk.changed = True
        self.talk.echoes.append(Echo(command.echo, f"the password of {self.me.power} in '{self.me.game}' is changed"))
        return True

    def _resign(self, command: Command) -> bool:
        if not self._signed_on(command):
            return True
        me = self.me
        try:
            status = self.service.status(me.game).status
            if me.player is not None and status in ("active", "paused"):
                self.service.clear_orders(me.game, me.player)  # civil disorder: its units hold
            self.service.remove_player(me.game, None, me.power)
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
            if power is not None and game.status in ("active", "paused"):
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
        if me.status == "waiting" and view.status != "forming":
            played = {p.power for p in view.players if p.power and p.status != "removed"}
            free = [c for c in get_variant(view.variant).powers if c not in played]
            return (f"'{view.name}' is under way: you are on its waiting list, and the game master may give you a "
                    f"power. " + (f"Nobody plays {', '.join(free)}: JOIN {view.name} {free[0]} takes it over."
                                  if free else "Every power has a player now."))
        if me.status == "waiting":
            return (f"every power of '{view.name}' has a player: you are on its waiting list, and take the first "
                    f"seat that falls free before the start")
        seated = sum(1 for p in view.players if p.status != "waiting")
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
        if not self._signed_on(command):
            return True
        current = self.service.status(self.me.game).phase
        try:
            wanted = str(Phase.parse(command.args[0].upper()))
        except ValueError:
            year = Phase.parse(current).year if current else 1901
            self.talk.echoes.append(Echo(command.echo, (
                f"{command.args[0]!r} is not a phase; phases are written like S{year}M, F{year}R or W{year}B "
                f"(the current one is {current})"), ok=False))
            return True
        if wanted == current:
            self.skipping = None
            self.talk.echoes.append(Echo(command.echo, f"{wanted} is the current phase: the orders below are for it"))
            return True
        self.skipping = wanted
        self.talk.echoes.append(Echo(command.echo, (
            f"this judge does not yet accept orders for a later phase ({wanted}); the order lines below are not "
            f"read until SIGNOFF or PHASE {current}, the current phase"), ok=False))
        return True

    def _played(self, command: Command) -> bool:
        """Whether someone has signed on for a power that has a player; if not, ``command`` is
        answered why it cannot be carried out."""
        if not self._signed_on(command):
            return False
        if self.me.player is None:
            self.talk.echoes.append(Echo(command.echo, f"nobody plays {self.me.power} in '{self.me.game}' yet",
                                         ok=False))
            return False
        return True

    def _signed_on(self, command: Command) -> bool:
        """Whether someone has signed on; if not, ``command`` is answered that it needs it."""
        if self.me is None:
            self.talk.echoes.append(Echo(command.echo, f"sign on first ({SIGNON_USAGE})", ok=False))
        return self.me is not None

    def _order(self, command: Command) -> bool:
        if self.resigned:
            self.talk.echoes.append(Echo(command.echo, "not read: you have resigned the power", ok=False))
        elif self.me is None:  # counted, not echoed: a stranger's text is never mailed back
            self.unsigned += 1
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
        accepted, rejected = list(report.accepted), list(report.rejected)
        standing = {line.canonical for line in report.standing}
        above = None  # what the line above became (a BRIBE takes the next line as its unit's order)
        given = [line.order for line in report.accepted]
        for echo in batch:
            line = _take(accepted, echo.written)
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
            line = _take(rejected, echo.written)
            if line is None and above is not None and _bribe_with_order(above):
                echo.ok = above.order is not None
                echo.answer = ("read with the BRIBE above: " + (f"the bribed unit's order, {above.order.order}"
                                                                 if echo.ok else "refused with it"))
                above = None
                continue
            echo.ok = False
            echo.answer = _refused(line) if line else "not an order; ignored"
            above = line
        for line in accepted:  # read by the service together with another line (a BRIBE and its order)
            self.talk.echoes.append(Echo(line.written, f"accepted: {line.canonical}"))
        for line in rejected:
            self.talk.echoes.append(Echo(line.written, _refused(line), ok=False))
        if report.ready_cleared:
            batch[-1].answer += ("\n(your orders changed, so they are no longer marked final: write READY again "
                                 "once they are)")


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
        return isinstance(line.order, Bribe) and line.order.order is not None
    return line.written.split(None, 1)[0].upper() == "BRIBE" if line.written.strip() else False


def _refused(line) -> str:
    """A refused line's answer: the reason, and what would be accepted instead when the judge can say."""
    text = _reason(line.reason)
    refusal = line.refusal
    if refusal is not None and refusal.accepted and refusal.accepted not in text:
        text += f" (accepted instead: {refusal.accepted})"
    return f"REJECTED: {text}"


def _reason(reason: str | None) -> str:
    """The service's reason without its "line N:" (N counts the order lines, not the message's)."""
    return re.sub(r"^line \d+: ", "", reason or "not an order this judge understands")


def _take(lines: list, written: str):
    for i, line in enumerate(lines):
        if line.written.strip() == written.strip():
            return lines.pop(i)
    return None


def _phase_words(phase: str | None) -> str:
    if not phase:
        return ""
    try:
        return f"{Phase.parse(phase).long_name} ({phase})"
    except ValueError:
        return phase
