"""Map pictures for Discord, when the renderer (``bot.render``) is installed and works.

A season's results carry the picture stored with the season. The board on request, and a
player's own orders on request (``/orders show``, for that player's eyes only), are drawn
here: rendering is CPU work, so callers run it in a worker thread. A renderer that is missing or
fails gives ``None`` and a warning in the log; the answer goes without a picture.
"""

from __future__ import annotations

import logging
from adjudicator.variant import Variant

log = logging.getLogger("crusader.discord")


def board_png(variant: Variant, position) -> bytes | None:
    try:
        from bot.render import render_png

        return render_png(variant, position)
    except Exception:
        log.warning("the map could not be drawn", exc_info=True)
        return None


def orders_png(variant: Variant, position, orders) -> bytes | None:
    """A player's own standing orders drawn on the board (:func:`bot.render.season.orders_picture`),
    for that player alone; ``None`` when it could not be drawn."""
    try:
        from bot.render.season import orders_picture

        return orders_picture(variant, position, orders)
    except Exception:
        log.warning("the orders could not be drawn", exc_info=True)
        return None


def season_png(season) -> bytes | None:
    """The season's picture, as the judge drew it when the season was adjudicated and as the mail
    sends it (:func:`bot.render.season.season_picture`); ``None`` when none could be drawn."""
    return season.picture
