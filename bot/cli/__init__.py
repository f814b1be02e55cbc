"""The ``crusader`` command: :mod:`~bot.cli.main` builds it from one module per command
(``adjudicate``, ``variant``, ``position``, ``parse``, ``serve``/``migrate``/``health``,
``game ...``, ``verify`` and ``archive build``); :mod:`~bot.cli.common` holds the exit codes and
the input and output every command shares, :mod:`~bot.cli.shell` the database options."""
