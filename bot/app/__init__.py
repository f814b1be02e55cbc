"""The judge's process: ``crusader serve``'s set-up (:mod:`~bot.app.serve`), its settings from the
environment (:mod:`~bot.app.settings`) and its logs (:mod:`~bot.app.logging`)."""
