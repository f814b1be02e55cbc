"""Map pictures for Discord, when the renderer (``bot.render``) is installed and works.

Rendering is CPU work: callers run these in a worker thread. A renderer that is missing or
fails gives ``None`` and a warning in the log; the results are posted without a picture.
"""

from __future__ import annotations

import logging

log = logging.getLogger("crusader.discord")


def board_png(variant, position) -> bytes | None:
    try:
        from ..render import render_png

        return render_png(variant, position)
    except Exception:
        log.warning("the map could not be drawn", exc_info=True)
        return None


def season_png(season: dict) -> bytes | None:
    """The season's picture, as the mail sends it (:func:`bot.site.pictures.season_picture`): the board
    the season started from, every order drawn as it turned out, the bids in the legend."""
    try:
        from ..site.pictures import season_picture

        return season_picture(season["variant"], season["position"], season["result"])
    except Exception:
        log.warning("the map of %s could not be drawn", season.get("phase"), exc_info=True)
        return None
