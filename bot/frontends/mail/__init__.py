"""Play by e-mail: the judge's mailbox, over the same service as every other front end.

- :mod:`~bot.frontends.mail.listener`: the SMTP listener (aiosmtpd) and :class:`MailFrontEnd`, which
  ``crusader serve`` starts unless ``CRUSADER_MAIL_ADDRESS`` is set empty (settings:
  :class:`~bot.frontends.mail.config.MailSettings`).
- :mod:`~bot.frontends.mail.reading`: a message's MIME to the lines a player meant.
- :mod:`~bot.frontends.mail.commands`: the judges' conventions (SIGNON, orders, LIST, SET PASSWORD,
  PHASE, RESIGN, JOIN, LEAVE, SIGNOFF) as commands; :mod:`~bot.frontends.mail.conversation` carries them out.
- :mod:`~bot.frontends.mail.replies`: the answer to every message, and announcements to the players.
- :mod:`~bot.frontends.mail.outbound`: mail out through the SMTP relay (aiosmtplib).
- :mod:`~bot.frontends.mail.notifier`: results, reminders and the game master's news to every
  player and to a game master named by an address; :mod:`~bot.frontends.mail.board`: the board to
  plan from, after the results.
- :mod:`~bot.frontends.mail.accounts`, :mod:`~bot.frontends.mail.passwords` (tables in
  :mod:`bot.store.mail`): who may sign on for a power (registered address, its player, scrypt-hashed
  password, a new password owed by mail) and the wrong passwords counted. ``crusader mail``
  (:mod:`bot.cli.mail`) registers addresses from a shell.
"""

from __future__ import annotations


def create_front_end(app):
    """``crusader serve``'s hook: the e-mail front end, or ``None`` when the judge's address is set empty."""
    from .config import MailSettings
    from .listener import MailFrontEnd

    settings = MailSettings()
    if not settings.address:
        return None
    return MailFrontEnd(app.service, app.dispatcher, settings, archive_url=app.settings.archive_url)
