"""Persistence: the tables (:mod:`~bot.store.rows`, and the e-mail front end's in
:mod:`~bot.store.mail`), the database handle and its queries (:mod:`~bot.store.database`), the
Alembic migrations (:mod:`~bot.store.migrations`), the outbox of announcements
(:mod:`~bot.store.outbox`), deadlines as timer rows (:mod:`~bot.store.timers`) and the crash
points the crash tests use (:mod:`~bot.store.faults`)."""
