"""Map pictures for Discord, when the renderer (``bot.render``) is installed and works.

Rendering is CPU work: callers run these in a worker thread. A renderer that is missing or
fails gives ``None`` and a warning in the log; the results are posted without a picture.
"""

from __future__ import annotations

import logging

from ..documents import position_from_dict

log = logging.getLogger("crusader.discord")


def _renderer():
    try:
        from ..render import render_png
    except ImportError:
        return None
    return render_png


def board_png(variant, position) -> bytes | None:
    render = _renderer()
    if render is None:
        return None
    try:
        return render(variant, position)
    except Exception:
        log.warning("the map could not be drawn", exc_info=True)
        return None


def season_png(season: dict) -> bytes | None:
    """The board the season started from, with every order drawn as it turned out."""
    render = _renderer()
    if render is None:
        return None
    try:
        from adjudicator.results import OrderResult, Outcome
        from grammar import parse_order

        variant, position = position_from_dict({k: v for k, v in season["position"].items() if k != "orders"})
        results = []
        for entry in season["result"].get("results", []) + season["result"].get("implicit", []):
            if entry.get("canonical"):
                results.append(OrderResult(parse_order(entry["canonical"], variant), Outcome(entry["result"]),
                                           entry.get("reason") or ""))
        return render(variant, position, results=results)
    except Exception:
        log.warning("the map of %s could not be drawn", season.get("phase"), exc_info=True)
        return None
