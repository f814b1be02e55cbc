"""The season archive site: static HTML per game, written by the archiver, served by ``crusader serve``.

- :func:`season_picture`: a season as a PNG (the board before, orders and outcomes, the bids),
  for the front ends to send with the results.
- :class:`SiteWriter` (:mod:`bot.frontends.site.writer`): the pages, from the archive's documents, with the
  Jinja2 templates in ``bot/frontends/site/templates``; no script, no external resource.
- :class:`ArchiveSite` (:mod:`bot.frontends.site.server`): the front end of ``crusader serve``; its
  :class:`SiteNotifier` writes a season's page when its results are announced.
- ``crusader archive build GAME DIR`` (:mod:`bot.cli.archive`): one game's pages into a directory.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .pictures import season_picture

if TYPE_CHECKING:
    from bot.app.serve import App
    from .server import ArchiveSite


def create_front_end(app: App) -> ArchiveSite | None:
    """The archive site of ``crusader serve``; ``None`` when ``CRUSADER_ARCHIVE_PORT`` is 0."""
    from .server import ArchiveSite

    settings = app.settings
    port = settings.archive_port
    if not port:
        return None
    root = settings.archive_dir or settings.data_dir / "site"
    site = ArchiveSite(app.service, root, settings.archive_host or settings.host, port)
    app.dispatcher.register(site.notifier)
    return site


__all__ = ["create_front_end", "season_picture"]
