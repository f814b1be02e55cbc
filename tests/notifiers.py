"""Notifiers for the tests and the benchmarks (the judge's own are in :mod:`bot.store.outbox` and
its front ends)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from bot.store.outbox import DELIVERED, Announcement, Delivery, Outcome


class RecordingNotifier:
    """Keeps every delivery it makes in memory, as made (a repeat is kept twice): for the tests
    and the benchmarks. ``recipients_of`` chooses the recipients (default: one, ``"recording"``)."""

    name = "recording"

    def __init__(self, recipients_of: Callable[[Announcement], Sequence[str]] | None = None, *,
                 name: str = "recording") -> None:
        self.name = name
        self.recipients_of = recipients_of or (lambda a: ("recording",))
        self.delivered: list[Announcement] = []
        self.made: list[tuple[str, str]] = []  # (key, recipient) of every delivery made
        self.attempts = 0

    async def recipients(self, announcement: Announcement) -> Sequence[str]:
        return tuple(self.recipients_of(announcement))

    async def deliver(self, delivery: Delivery) -> Outcome:
        self.attempts += 1
        self.made.append((delivery.announcement.key, delivery.recipient))
        self.delivered.append(delivery.announcement)
        return DELIVERED

    def of_kind(self, kind: str) -> list[Announcement]:
        return [a for a in self.delivered if a.kind == kind]
