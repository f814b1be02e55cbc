"""What the judge does with one player's message: sign on, submit orders, answer commands.

:class:`MailJudge` turns an :class:`~bot.mail.reading.InboundMail` into a :class:`Conversation`:
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
from dataclasses import dataclass, field

import structlog
from adjudicator.variant import get_variant
from adjudicator.vocab import Phase

from ..service import GameService, GameView, PlayerOrders, ServiceError
from . import commands
from .accounts import ForeignSender, Identity, MailAccounts, SignonRefused
from .addresses import may_reply_to
from .commands import SIGNON_USAGE, Command
from .reading import InboundMail

log = structlog.get_logger("crusader.mail")

HELP = f"""\
How to play by mail: write to this address, one command or order per line.

  {SIGNON_USAGE}
      the first line; the game master gives you the password
  A ant - ale               an order; later orders for the same unit replace earlier ones
  LIST                      the game's status and your orders as they stand
  SET PASSWORD <new>        change your password
  PHASE <phase>             orders for a later phase (not accepted by this judge yet)
  RESIGN                    leave the game; your power goes into civil disorder
  SIGNOFF                   the end; anything after it is ignored

Without signing on: HELP, and LIST <game name> for a game's public status.
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
        _Session(self, mail, talk).run(script)
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
        token, password = command.args
        try:
            power, game = self._split(token)
            me = self.accounts.authenticate(game, power, password, self.mail.sender)
        except ForeignSender as exc:
            self.talk.echoes.append(Echo(command.echo, f"not signed on: {exc}; nothing was changed", ok=False))
            if exc.password_right:
                self.talk.alert = (exc.registered, (
                    f"A message signed on as {power} in game '{game}' with the right password came from "
                    f"{self.mail.sender or 'an unknown sender'}, not from this address, and was refused. Nothing "
                    f"was changed. If you did not send it, ask the game master for a new password.\n"))
            return False
        except SignonRefused as exc:
            self.talk.echoes.append(Echo(command.echo, f"not signed on: {exc}", ok=False))
            return False
        self.me = me
        view = self.service.status(me.game)
        self.talk.identity = me
        when = _phase_words(view.phase)
        self.talk.echoes.append(Echo(command.echo, f"signed on as {me.power} in game '{me.game}' "
                                                   f"({view.status}{', ' + when if when else ''})"))
        return True

    def _split(self, token: str) -> tuple[str, str]:
        games = self.service.directory()
        powers = {g.name: list(get_variant(g.variant).powers) for g in games}
        found = commands.split_signon(token, [g.name for g in games], powers)
        if found is not None:
            return found
        for game in games:
            if len(game.name) < len(token) and token.lower().endswith(game.name.lower()):
                prefix = token[: len(token) - len(game.name)][:40]
                raise SignonRefused(f"{prefix!r} is not a power of game '{game.name}'; its powers are "
                                    f"{', '.join(powers[game.name])} (write {SIGNON_USAGE})")
        raise SignonRefused(f"{token[:40]!r} is not a power code followed by the name of a game on this judge "
                            f"(write {SIGNON_USAGE})")

    def _signoff(self, command: Command) -> bool:
        self.talk.echoes.append(Echo(command.echo, "signed off" if self.me else "end of message"))
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
        self.talk.echoes.append(Echo(command.echo, "the game's status" + (" and your orders" if mine else "")
                                     + " are below"))
        return True

    def _set_password(self, command: Command) -> bool:
        if not self._signed_on(command):
            return True
        try:
            self.accounts.set_power_password(self.me.game, None, self.me.power, command.args[0])
        except ValueError as exc:
            self.talk.echoes.append(Echo(command.echo, f"password not changed: {exc}", ok=False))
            return True
        self.talk.changed = True
        self.talk.echoes.append(Echo(command.echo, f"the password of {self.me.power} in '{self.me.game}' is changed"))
        return True

    def _resign(self, command: Command) -> bool:
        if not self._signed_on(command):
            return True
        try:
            self.service.remove_player(self.me.game, None, self.me.power)
        except ServiceError as exc:
            self.talk.echoes.append(Echo(command.echo, f"not resigned: {exc}", ok=False))
            return True
        self.accounts.forget_password(self.me.game_id, self.me.power)
        self.talk.changed = True
        self.talk.echoes.append(Echo(command.echo, (
            f"you have resigned {self.me.power} in '{self.me.game}': the power is in civil disorder until the game "
            f"master finds a new player, and its password no longer works")))
        return True

    def _phase(self, command: Command) -> bool:
        if not self._signed_on(command):
            return True
        current = self.service.status(self.me.game).phase
        try:
            wanted = str(Phase.parse(command.args[0].upper()))
        except ValueError:
            self.talk.echoes.append(Echo(command.echo, (
                f"{command.args[0]!r} is not a phase; phases are written like S1901M, F1901R or W1901A "
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

    def _signed_on(self, command: Command) -> bool:
        """Whether someone has signed on; if not, ``command`` is answered that it needs it."""
        if self.me is None:
            self.talk.echoes.append(Echo(command.echo, f"sign on first ({SIGNON_USAGE})", ok=False))
        return self.me is not None

    def _order(self, command: Command) -> bool:
        if self.me is None:  # counted, not echoed: a stranger's text is never mailed back
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
                echo.answer, echo.ok = f"not accepted: {exc}", False
            return
        self.talk.changed = self.talk.changed or bool(report.accepted)
        accepted, rejected = list(report.accepted), list(report.rejected)
        standing = {line.canonical for line in report.standing}
        for echo in batch:
            line = _take(accepted, echo.written)
            if line is not None:
                echo.answer = f"accepted: {line.canonical}"
                if line.canonical not in standing:
                    echo.answer += " (then replaced by a later order for the same unit)"
                continue
            line = _take(rejected, echo.written)
            echo.ok = False
            echo.answer = f"REJECTED: {_reason(line.reason)}" if line else "not an order; ignored"
        for line in accepted:  # read by the service together with another line (a BRIBE and its order)
            self.talk.echoes.append(Echo(line.written, f"accepted: {line.canonical}"))
        for line in rejected:
            self.talk.echoes.append(Echo(line.written, f"REJECTED: {_reason(line.reason)}", ok=False))


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
