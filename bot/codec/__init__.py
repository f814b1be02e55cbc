"""The command-line contract's documents: positions and results as JSON (:mod:`~bot.codec.documents`)
and a result document as readable text (:mod:`~bot.codec.report`)."""
