"""Archives of games: season reports, a whole game as one JSON file (export, import) and ``verify``
(:mod:`~bot.archive.games`)."""
