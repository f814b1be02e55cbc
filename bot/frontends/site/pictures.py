"""The pictures of a season page: the board before with its orders and outcomes, and the board after.

The board before is the season's picture the judge drew once, when it adjudicated the season, and
stored with it (:func:`bot.render.season.season_picture`): the page shows that PNG, the very
picture Discord and the mail sent, and nothing draws it again. Only a season stored without a
picture (the cairo library missing at adjudication) has it drawn here, as an SVG.
:func:`season_maps` gives the maps a season page needs; :func:`season_picture` the season's PNG.
"""

from __future__ import annotations

import re
import struct

from bot.codec.season import Season
from bot.render import DEFAULT_SIZE, render_svg
from .model import SeasonRecord, season_record


def season_picture(season: Season, *, size: int = DEFAULT_SIZE) -> bytes:
    """The season as a PNG: the picture stored with it (at ``size`` as stored), or, for a season
    the judge stored no picture with, drawn now: the board it started from, its orders with their
    outcomes, the bids (with the prestige they cost) and the units bribed."""
    if season.picture is not None and png_size(season.picture)[0] == size:
        return season.picture
    from bot.render.season import season_picture as draw

    record = season_record(season)
    return draw(record.variant, record.before, record.results, controllers=record.controllers,
                notes=record.legend_lines(), size=size)


def png_size(data: bytes) -> tuple[int, int]:
    """Width and height of a PNG, read from its header."""
    if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
        raise ValueError("not a PNG")
    return struct.unpack(">II", data[16:24])


_ID = re.compile(r'\bid="')


def scoped(svg: str, prefix: str) -> str:
    """``svg`` with every ``id`` prefixed, so that two maps can sit in one HTML page.

    The renderer refers to no id from within the picture (no markers, no ``url(#...)``), so
    renaming them changes nothing drawn.
    """
    return _ID.sub(f'id="{prefix}-', svg)


def season_maps(season: SeasonRecord, *, size: int = DEFAULT_SIZE, prefixed: bool = True) -> tuple[str | None, str]:
    """The SVG maps of a season page: before (with the orders and outcomes; ``None`` when the
    season has its stored picture, which the page shows instead) and after; with ``prefixed``
    their ids prefixed (:func:`scoped`) so that both can sit in one page."""
    before = None
    if season.picture is None:
        before = render_svg(season.variant, season.before, results=season.results, controllers=season.controllers,
                            legend=season.legend_lines() or None, size=size)
    after = render_svg(season.variant, season.after, size=size)
    if not prefixed:
        return before, after
    return (scoped(before, "before") if before is not None else None), scoped(after, "after")
