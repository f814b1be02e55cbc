"""The fonts the pictures are set in: DejaVu Sans and DejaVu Sans Bold (Debian's
fonts-dejavu-core; the judge's image installs it), found where the system keeps its fonts.

Without them the pictures are set in Pillow's own font, a little wider than the widths the
names were placed with (:mod:`bot.render.labels`), and a warning says so once.
"""

from __future__ import annotations

import functools
import logging

from PIL import ImageFont

log = logging.getLogger("crusader.render")

FILES = {False: "DejaVuSans.ttf", True: "DejaVuSans-Bold.ttf"}


@functools.cache
def font(size: float, *, bold: bool = False) -> ImageFont.FreeTypeFont:
    """DejaVu Sans (bold) at ``size`` pixels."""
    try:
        return ImageFont.truetype(FILES[bold], round(size * 4) / 4)
    except OSError:
        _missing()
        default = ImageFont.load_default(size)
        assert isinstance(default, ImageFont.FreeTypeFont)  # (at a size, Pillow's own font is FreeType's)
        return default


@functools.cache
def _missing() -> None:
    log.warning("DejaVu Sans is not installed (Debian: fonts-dejavu-core): pictures use Pillow's own font")


def identity() -> str:
    """Which font files the pictures are set in (for the names of cached layers)."""
    paths = (font(10.0, bold=b).path for b in (False, True))
    return "|".join(path if isinstance(path, str) else "default" for path in paths)  # (Pillow's own: in memory)
