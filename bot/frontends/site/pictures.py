"""The pictures of the archive site, every one a PNG file beside the page that shows it.

The board before a season, with its orders and their outcomes, is the season's picture the
judge drew once, when it adjudicated the season, and stored with it
(:func:`bot.render.season.season_picture`): the page shows that very PNG, the one Discord and
the mail sent, and nothing draws it again (a season stored without one has it drawn here, by the
same code). The board after a season and the board of a game as it stands now are drawn here
(:func:`bot.render.season.render_png`). :func:`season_picture` gives a season's PNG to the front
ends.
"""

from __future__ import annotations

import struct

from bot.codec.season import Season
from bot.render import DEFAULT_SIZE
from .model import GameRecord, SeasonRecord


def season_picture(season: Season, *, size: int = DEFAULT_SIZE) -> bytes:
    """The season as a PNG: the picture stored with it (at ``size`` as stored), or, for a season
    the judge stored no picture with, drawn now (the board it started from, its orders with their
    outcomes, the centres and prestige after it)."""
    if season.picture is not None and png_size(season.picture)[0] == size:
        return season.picture
    from bot.render.season import season_picture as draw

    return draw(season.variant, season.position, season.adjudication, game=season.game, size=size)


def before_png(game: str, season: SeasonRecord, *, size: int = DEFAULT_SIZE) -> bytes:
    """The board before a season with its orders and their outcomes: the stored picture, if any."""
    if season.picture is not None:
        return season.picture
    from bot.render.season import season_picture as draw

    return draw(season.variant, season.before, season.adjudication, game=game, size=size)


def after_png(game: str, season: SeasonRecord, *, size: int = DEFAULT_SIZE) -> bytes:
    """The board a season left."""
    from bot.render.season import render_png

    return render_png(season.variant, season.after, game=game, size=size)


def board_png(record: GameRecord, *, size: int = DEFAULT_SIZE) -> bytes | None:
    """The board of a game as it stands now (``None`` when the archive has no current position)."""
    if record.current is None:
        return None
    from bot.render.season import render_png

    return render_png(record.variant, record.current, game=record.name, size=size)


def png_size(data: bytes) -> tuple[int, int]:
    """Width and height of a PNG, read from its header."""
    if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
        raise ValueError("not a PNG")
    return struct.unpack(">II", data[16:24])
