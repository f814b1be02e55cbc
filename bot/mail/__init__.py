"""Play by e-mail: the judge's mailbox, over the same service as every other front end.

- :mod:`~bot.mail.listener`: the SMTP listener (aiosmtpd) and :class:`MailFrontEnd`, which
  ``crusader serve`` starts unless ``CRUSADER_MAIL_ADDRESS`` is set empty (settings:
  :class:`~bot.mail.config.MailSettings`).
- :mod:`~bot.mail.reading`: a message's MIME to the lines a player meant.
- :mod:`~bot.mail.commands`: the judges' conventions (SIGNON, orders, LIST, SET PASSWORD,
  PHASE, RESIGN, SIGNOFF) as commands; :mod:`~bot.mail.conversation` carries them out.
- :mod:`~bot.mail.replies`: the answer to every message, and announcements to the players.
- :mod:`~bot.mail.outbound`: mail out through the SMTP relay (aiosmtplib).
- :mod:`~bot.mail.notifier`: results, reminders and the game master's news to every player.
- :mod:`~bot.mail.accounts`, :mod:`~bot.mail.passwords`, :mod:`~bot.mail.store`: who may sign
  on for a power (registered address, scrypt-hashed password) and what has been mailed.
"""

from __future__ import annotations


def create_front_end(app):
    """``crusader serve``'s hook: the e-mail front end, or ``None`` when the judge's address is set empty."""
    from .config import MailSettings
    from .listener import MailFrontEnd

    settings = MailSettings()
    if not settings.address:
        return None
    return MailFrontEnd(app.service, app.dispatcher, settings)
