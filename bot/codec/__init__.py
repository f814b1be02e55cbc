"""The command-line contract's documents: positions and results as JSON (:mod:`~bot.codec.documents`,
a phase's events: :mod:`~bot.codec.events`), seasons as the tables and exports keep them."""
