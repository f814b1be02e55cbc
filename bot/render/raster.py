"""A picture's pixels: the map's shared layers (:mod:`bot.render.layers`), the owned land, the
marks of a :class:`~bot.render.scene.Scene` and the legend (:mod:`bot.render.legend`),
composed with Pillow and aggdraw and written as a PNG with the map's own palette.

Nothing is interpreted per picture: the base is copied with the owned provinces pasted on it
(each tinted and hatched once per owner, then kept; the last few such lands kept whole, with
their pixels in the map's palette, :meth:`~bot.render.layers.MapLayers.land`), each line drawn
directly (aggdraw, anti-aliased, on the part of the picture it covers), the names an arrow
crosses pasted again over it, and every unit, dot, badge and tag pasted from a sprite drawn
once; the box of each is noted (:class:`Drawn`). The PNG is written with the map's palette
(made once, :func:`bot.render.layers.sample_palette`): the land's pixels in the palette, with
only the boxes drawn on since put in the palette and pasted over them, deflated by ISA-L
(:func:`png`).
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field

from isal import isal_zlib
from PIL import Image

from adjudicator.variant import Variant
from adjudicator.vocab import NEUTRAL, Power, ProvinceId, UnitType

from . import palette, sprites
from .facts import FAILED
from .layers import Box, MapLayers, paste_indexed
from .scene import Badge, Dot, Line, Outcome, Ring, Scene, Tag, Token
from .strokes import Canvas

PNG_LEVEL = 2
"""ISA-L's level for the PNG's pixels (0 to 3): as small as zlib's level 3 within 2%, in a seventh
of its time (a 1,000-pixel picture: 2 ms, where zlib took 13-15)."""
_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@dataclass
class Drawn:
    """A picture as drawn: its pixels (RGB); the land they were drawn on, in the map's palette
    (8-bit indexed, the picture's size; shared by the pictures of that land, never drawn on;
    ``None``: no land, nothing is known in the palette); and the boxes drawn on since (left,
    top, right, bottom pixels, not clipped to the picture): outside them the picture is its
    land. :func:`png` puts only those boxes in the palette."""

    image: Image.Image
    land: Image.Image | None = None
    boxes: list[Box] = field(default_factory=list)

    @classmethod
    def whole(cls, image: Image.Image) -> Drawn:
        """Finished pixels alone (a picture decoded, or drawn elsewhere): no land, the whole
        picture one box drawn on."""
        return cls(image, None, [(0, 0, image.width, image.height)])


def draw_map(variant: Variant, layers: MapLayers, scene: Scene, owned: Sequence[tuple[ProvinceId, Power]]) -> Drawn:
    """A picture's map drawn on a copy of the base (whose legend band is left for
    :func:`bot.render.legend.draw_legend`): the owned land (province, owner) and the marks, with
    that land in the map's palette and the box of every mark drawn on it."""
    s = layers.scale
    leans = palette.hatch_leans(variant)
    colours = {power: palette.power_colour(variant, power) for power in {owner for _, owner in owned}}
    image, land = layers.land([(province, palette.owned_tint(colours[owner]), palette.hatch_colour(colours[owner]),
                                leans.get(owner, 1)) for province, owner in owned])
    canvas = Canvas(image, s)
    touched = canvas.lines([m for m in scene.marks if isinstance(m, Line)])
    for mark in scene.marks:    # the rings of orders lie under the names too
        if isinstance(mark, Ring) and mark.kind != "dislodged":
            touched.append(_ring(image, mark, s))
    boxes = list(touched)
    for sprite, at in layers.names_over(touched):   # the names the lines crossed, over them again
        image.paste(sprite, at, sprite)
        boxes.append((at[0], at[1], at[0] + sprite.width, at[1] + sprite.height))
    patterns = palette.patterns(variant)
    for mark in scene.marks:
        if isinstance(mark, Dot):
            owner_colour = palette.power_colour(variant, mark.owner) if mark.owner else None
            boxes.append(sprites.paste(image, sprites.dot(owner_colour, mark.changed, s), mark.at, s))
        elif isinstance(mark, Token):
            colour = palette.power_colour(variant, mark.power)
            pattern = "plain" if mark.power == NEUTRAL else patterns.get(mark.power, "plain")
            boxes.append(sprites.paste(image, sprites.unit(colour, pattern, mark.type is UnitType.FLEET, s, mark.small),
                                       mark.at, s))
        elif isinstance(mark, Ring) and mark.kind == "dislodged":
            boxes.append(_ring(image, mark, s))
        elif isinstance(mark, Badge):
            boxes.append(sprites.paste(image, sprites.badge(mark.kind, mark.colour, s), mark.at, s))
        elif isinstance(mark, Tag):
            boxes.append(sprites.paste(image, sprites.tag(mark.kind, mark.colour, mark.amount, mark.status == FAILED, s),
                                       mark.at, s))
        elif isinstance(mark, Outcome):
            sprite = sprites.no_sign(mark.r, s) if mark.kind == "no" else sprites.cross(mark.r, s)
            boxes.append(sprites.paste(image, sprite, mark.at, s))
    return Drawn(image, land, boxes)


def _ring(image: Image.Image, mark: Ring, scale: float) -> Box:
    sprite = sprites.ring(mark.colour, mark.r, mark.width, mark.casing, mark.status, scale)
    return sprites.paste(image, sprite, mark.centre, scale)


def png(picture: Drawn | Image.Image, layers: MapLayers) -> bytes:
    """The picture written as a PNG with the map's palette: 8-bit indexed colour, every row
    unfiltered (filters do not help indexed colour), the rows deflated by ISA-L
    (:data:`PNG_LEVEL`), whose deflate is several times zlib's speed: Pillow's writer has only zlib.

    ``picture``: as drawn (:class:`Drawn`), or finished pixels alone (:meth:`Drawn.whole`). Its
    pixels are its land's in the palette, with the boxes drawn on since put in the palette and
    pasted over them (:func:`bot.render.layers.paste_indexed`): the same pixels as the whole
    picture put in the palette (``Image.quantize(palette=..., dither=NONE)``: 1.8 ms at 1,000
    pixels), in less time: a crowded season's picture on the Outremer map, some 45 parts and two
    fifths of its pixels, 1.1 ms; the board after it, 40 parts and a fifth, 0.6 ms.

    The PNG's chunks are the ones Pillow writes for such a picture: IHDR, PLTE, one IDAT, IEND."""
    if isinstance(picture, Image.Image):
        picture = Drawn.whole(picture)
    width, height = picture.image.size
    rows = Image.new("P", (width + 1, height), 0)  # a row is its filter's byte (0: none) and its pixels
    if picture.land is not None:
        rows.paste(picture.land, (1, 0))
    paste_indexed(picture.image, picture.boxes, layers.palette, rows, (1, 0))
    colours = bytes(layers.palette.getpalette() or ())
    return b"".join((_SIGNATURE, _chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0)),
                     _chunk(b"PLTE", colours), _chunk(b"IDAT", isal_zlib.compress(rows.tobytes(), PNG_LEVEL)),
                     _chunk(b"IEND", b"")))


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(data, zlib.crc32(kind)))


__all__ = ["PNG_LEVEL", "Drawn", "draw_map", "png"]
