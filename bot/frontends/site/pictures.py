"""The pictures of a season page: the board before with its orders and outcomes, and the board after.

:func:`season_maps` gives the two SVG maps of a season's archive page. :func:`season_picture`
draws the season's PNG (:func:`bot.render.season.season_picture`) for a season the judge stored
no picture with.
"""

from __future__ import annotations

import re
from bot.codec.season import Season
from bot.render import DEFAULT_SIZE, render_svg
from bot.render.season import season_picture as _draw_season
from .model import SeasonRecord, season_record


def season_picture(season: Season, *, size: int = DEFAULT_SIZE) -> bytes:
    """The season as a PNG: the board it started from, its orders with their outcomes, the bids
    (with the prestige they cost) and the units bribed, for a season the judge stored no picture with."""
    record = season_record(season)
    return _draw_season(record.variant, record.before, record.results, controllers=record.controllers,
                        notes=record.legend_lines(), size=size)


_ID = re.compile(r'\bid="')


def scoped(svg: str, prefix: str) -> str:
    """``svg`` with every ``id`` prefixed, so that two maps can sit in one HTML page.

    The renderer refers to no id from within the picture (no markers, no ``url(#...)``), so
    renaming them changes nothing drawn.
    """
    return _ID.sub(f'id="{prefix}-', svg)


def season_maps(season: SeasonRecord, *, size: int = DEFAULT_SIZE, prefixed: bool = True) -> tuple[str, str]:
    """The SVG maps of a season page: before (with the orders and outcomes) and after; with
    ``prefixed`` their ids prefixed (:func:`scoped`) so that both can sit in one page."""
    before = render_svg(season.variant, season.before, results=season.results, controllers=season.controllers,
                        legend=season.legend_lines() or None, size=size)
    after = render_svg(season.variant, season.after, size=size)
    if not prefixed:
        return before, after
    return scoped(before, "before"), scoped(after, "after")
