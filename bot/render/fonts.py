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
def font(size: float, *, bold: bool = False) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """DejaVu Sans (bold) at ``size`` pixels."""
    try:
        return ImageFont.truetype(FILES[bold], round(size * 4) / 4)
    except OSError:
        _missing()
        return ImageFont.load_default(size)


@functools.cache
def _missing() -> None:
    log.warning("DejaVu Sans is not installed (Debian: fonts-dejavu-core): pictures use Pillow's own font")


def identity() -> str:
    """Which font files the pictures are set in (for the names of cached layers)."""
    return "|".join(getattr(font(10.0, bold=b), "path", "default") for b in (False, True))
