"""The small pictures a season's picture pastes: units, supply centres' dots, badges, bids'
tags, the marks of failed orders; and the texts of the legend. Each is drawn once (four times
larger, then reduced) and kept for the life of the process.

A unit says what it is by its outline, at a glance: an army is a disc, a fleet a ship (a hull
under a sail). Its power is its colour and the pattern inside it (:func:`palette.patterns`);
a neutral unit is grey and plain. No letter is drawn on a unit.
"""

from __future__ import annotations

import functools
import math

from PIL import Image, ImageColor, ImageDraw

from . import fonts, palette
from .layout import CENTRE_R, DISLODGED_R, UNIT_R
from adjudicator.variant import Variant

SUPER = 4
GLYPHS = {"vassal": "\u265b", "bribe": "\u00a4", "fief": "\u2691", "rebel": "\u26a1", "loyalty": "\u265c"}
"""The symbol of each kind of bid (DejaVu Sans has them all): a crown for VASSAL, the currency sign
for BRIBE, a planted flag for SEIZE FIEF, a lightning bolt for REBEL, a castle for SECURE LOYALTY."""

Sprite = tuple[Image.Image, float, float]
"""An RGBA image and the point in it that goes where the thing stands."""

_KEPT: dict[tuple, Sprite] = {}
"""Every sprite drawn in this process, by what it was drawn from; a map's layers keep on disk
those its palette was made with (:func:`kept`, :func:`keep`), so that a new process draws none
of them again."""


def _kept(draw):
    name = draw.__name__

    @functools.wraps(draw)
    def wrapper(*args):
        key = (name, *args)
        found = _KEPT.get(key)
        if found is None:
            found = _KEPT[key] = draw(*args)
        return found

    return wrapper


def kept(scale: float) -> list[tuple[tuple, str, tuple[int, int], bytes, float, float]]:
    """The sprites of ``scale`` drawn so far, as plain data (what drew it, mode, size, pixels and
    the point that goes where the thing stands)."""
    return [(key, image.mode, image.size, image.tobytes(), x, y) for key, (image, x, y) in _KEPT.items()
            if scale in key[1:]]


def keep(sprites) -> None:
    """Take sprites drawn by another process (:func:`kept`)."""
    for key, mode, size, pixels, x, y in sprites:
        _KEPT.setdefault(tuple(key), (Image.frombytes(mode, size, pixels), x, y))


def _canvas(half_w: float, half_h: float, scale: float) -> tuple[Image.Image, ImageDraw.ImageDraw, float, float, float]:
    k = scale * SUPER
    w, h = math.ceil(2 * half_w * scale) + 2, math.ceil(2 * half_h * scale) + 2
    image = Image.new("RGBA", (w * SUPER, h * SUPER), (0, 0, 0, 0))
    return image, ImageDraw.Draw(image), k, w * SUPER / 2, h * SUPER / 2


def _done(image: Image.Image) -> Sprite:
    small = image.reduce(SUPER)
    return small, small.width / 2, small.height / 2


def _pattern(draw: ImageDraw.ImageDraw, kind: str, cx: float, cy: float, r: float, ink: str) -> None:
    """A power's pattern inside a unit's shape, centred on (cx, cy), ``r`` across half the shape."""
    t = max(2.0, 0.3 * r)
    if kind in ("bar", "cross"):
        draw.rectangle((cx - r, cy - t / 2, cx + r, cy + t / 2), fill=ink)
    if kind in ("pillar", "cross"):
        draw.rectangle((cx - t / 2, cy - r, cx + t / 2, cy + r), fill=ink)
    if kind in ("slash", "backslash"):
        s = 1 if kind == "slash" else -1
        d = r * 0.75
        draw.line((cx - d, cy + s * d, cx + d, cy - s * d), fill=ink, width=round(t))
    if kind == "dot":
        q = 0.42 * r
        draw.ellipse((cx - q, cy - q, cx + q, cy + q), fill=ink)
    if kind == "ring":
        q = 0.55 * r
        draw.ellipse((cx - q, cy - q, cx + q, cy + q), outline=ink, width=round(0.22 * r))


def _clipped(shape_mask: Image.Image, pattern: Image.Image) -> Image.Image:
    """``pattern`` (RGBA) kept only inside ``shape_mask`` (L)."""
    from PIL import ImageChops

    alpha = ImageChops.multiply(pattern.getchannel("A"), shape_mask)
    pattern.putalpha(alpha)
    return pattern


@_kept
def unit(colour: str, pattern: str, fleet: bool, scale: float, small: bool = False) -> Sprite:
    """A unit of the power of ``colour`` and ``pattern``: a disc (army) or a ship (fleet)."""
    r = (DISLODGED_R if small else UNIT_R)
    image, draw, k, cx, cy = _canvas(1.45 * r, 1.45 * r, scale)
    ink = palette.ink_on(colour)
    line = max(1.0, 1.4 * (0.8 if small else 1.0)) * k
    shape = Image.new("L", image.size, 0)
    mask_draw = ImageDraw.Draw(shape)
    if not fleet:
        box = (cx - r * k, cy - r * k, cx + r * k, cy + r * k)
        mask_draw.ellipse(box, fill=255)
        draw.ellipse(box, fill=colour)
        pattern_layer = Image.new("RGBA", image.size, (0, 0, 0, 0))
        _pattern(ImageDraw.Draw(pattern_layer), pattern, cx, cy, r * k, ink)
        image.alpha_composite(_clipped(shape, pattern_layer))
        draw.ellipse(box, outline=palette.INK, width=round(line))
    else:
        deck, bottom, half_deck, half_keel = -0.12 * r, 0.82 * r, 1.38 * r, 0.86 * r
        hull = [(cx - half_deck * k, cy + deck * k), (cx + half_deck * k, cy + deck * k),
                (cx + half_keel * k, cy + bottom * k), (cx - half_keel * k, cy + bottom * k)]
        top = -1.3 * r
        sail = [(cx + 0.08 * r * k, cy + top * k), (cx + 1.0 * r * k, cy - 0.3 * r * k),
                (cx + 0.08 * r * k, cy - 0.3 * r * k)]
        jib = [(cx - 0.08 * r * k, cy + (top + 0.25 * r) * k), (cx - 0.08 * r * k, cy - 0.3 * r * k),
               (cx - 0.8 * r * k, cy - 0.3 * r * k)]
        mask_draw.polygon(hull, fill=255)
        draw.line((cx, cy + deck * k, cx, cy + top * k), fill=palette.INK, width=round(line))
        for piece in (sail, jib):
            draw.polygon(piece, fill=colour, outline=palette.INK, width=round(line))
        draw.polygon(hull, fill=colour)
        pattern_layer = Image.new("RGBA", image.size, (0, 0, 0, 0))
        _pattern(ImageDraw.Draw(pattern_layer), pattern, cx, cy + (deck + bottom) / 2 * k, 0.47 * r * k, ink)
        image.alpha_composite(_clipped(shape, pattern_layer))
        draw.polygon(hull, outline=palette.INK, width=round(line))
    return _done(image)


@_kept
def ring(colour: str, r: float, width: float, casing: str | None, status: str, scale: float) -> Sprite:
    """A ring round a unit (a hold, a build, a convoy, a support to hold, a dislodged unit): dashed
    for an order that failed, dotted for one that could not be given."""
    from .facts import FAILED, INVALID
    from .scene import CASING

    outer = r + width / 2 + CASING + 1
    image, draw, k, cx, cy = _canvas(outer, outer, scale)
    box = (cx - r * k, cy - r * k, cx + r * k, cy + r * k)
    pieces = {FAILED: 16, INVALID: 24}.get(status)
    strokes = []
    if casing is not None and status != INVALID:
        strokes.append((casing, width + 2 * CASING))
    strokes.append((colour, width))
    for ink, w in strokes:
        wide = (box[0] - w / 2 * k, box[1] - w / 2 * k, box[2] + w / 2 * k, box[3] + w / 2 * k)
        if pieces is None:
            draw.ellipse(wide, outline=ink, width=round(w * k))
        else:
            for i in range(pieces):
                start = 360 / pieces * i
                draw.arc(wide, start, start + 360 / pieces * (0.55 if status == FAILED else 0.3), fill=ink,
                         width=round(w * k))
    return _done(image)


@_kept
def dot(colour: str | None, changed: bool, scale: float) -> Sprite:
    """A supply centre's dot: its owner's colour, white for nobody's; ringed when it changed hands."""
    r = CENTRE_R
    image, draw, k, cx, cy = _canvas(r + 4, r + 4, scale)
    if changed:
        q = (r + 3.2) * k
        draw.ellipse((cx - q, cy - q, cx + q, cy + q), fill=palette.HALO, outline=palette.INK, width=round(1.4 * k))
    q = r * k
    draw.ellipse((cx - q, cy - q, cx + q, cy + q), fill=colour or "#FFFFFF", outline=palette.INK, width=round(1.3 * k))
    return _done(image)


def _glyph(draw: ImageDraw.ImageDraw, cx: float, cy: float, glyph: str, size: float, ink: str) -> None:
    draw.text((cx, cy), glyph, font=fonts.font(size), fill=ink, anchor="mm")


@_kept
def badge(kind: str, colour: str, scale: float) -> Sprite:
    """A round badge with the symbol of a vassal's lord or a briber, in their colour."""
    r = 6.5
    image, draw, k, cx, cy = _canvas(r + 1, r + 1, scale)
    draw.ellipse((cx - r * k, cy - r * k, cx + r * k, cy + r * k), fill=colour, outline=palette.INK,
                 width=round(1.2 * k))
    _glyph(draw, cx, cy + 0.5 * k, GLYPHS[kind], 9.5 * k, palette.ink_on(colour))
    return _done(image)


@_kept
def tag(kind: str, colour: str, amount: int | None, faded: bool, scale: float) -> Sprite:
    """A bid: its kind's symbol and the amount, on a rounded label in the bidder's colour (paler
    when the bid failed)."""
    from .scene import tag_width

    text = "" if amount is None else str(amount)
    size = 12.0
    width = tag_width(amount)
    image, draw, k, cx, cy = _canvas(width / 2 + 1, 9.5, scale)
    fill = palette.mix(colour, "#FFFFFF", 0.55) if faded else colour
    ink = palette.ink_on(fill)
    draw.rounded_rectangle((cx - width / 2 * k, cy - 8.5 * k, cx + width / 2 * k, cy + 8.5 * k), radius=4 * k,
                           fill=fill, outline=palette.INK, width=round(1.3 * k))
    left = cx - width / 2 * k
    _glyph(draw, left + 9 * k, cy + 0.5 * k, GLYPHS[kind], 12.5 * k, ink)
    if text:
        draw.text((left + 17 * k, cy + 0.5 * k), text, font=fonts.font(size * k, bold=True), fill=ink, anchor="lm")
    return _done(image)


@_kept
def cross(r: float, scale: float) -> Sprite:
    """An X with a pale edge: a failed order's end, or a unit disbanded."""
    image, draw, k, cx, cy = _canvas(r + 3, r + 3, scale)
    for colour, width in ((palette.HALO, 5.0), (palette.INK, 2.4)):
        for s in (1, -1):
            draw.line((cx - r * k, cy - s * r * k, cx + r * k, cy + s * r * k), fill=colour, width=round(width * k))
    return _done(image)


@_kept
def no_sign(r: float, scale: float) -> Sprite:
    """A circle with a bar across: an order that could not be given."""
    image, draw, k, cx, cy = _canvas(r + 2, r + 2, scale)
    draw.ellipse((cx - r * k, cy - r * k, cx + r * k, cy + r * k), fill=palette.HALO, outline=palette.INK,
                 width=round(2.0 * k))
    q = r * 0.7071 * k
    draw.line((cx - q, cy + q, cx + q, cy - q), fill=palette.INK, width=round(2.0 * k))
    return _done(image)


@functools.lru_cache(maxsize=2048)
def text(words: str, size: float, colour: str = palette.INK, bold: bool = False) -> tuple[Image.Image, int]:
    """A line of text (pixels) as an RGBA sprite, and where its baseline is in it."""
    face = fonts.font(size, bold=bold)
    # laid out once: the glyphs, and how far above the baseline their box starts
    mask, (_, top) = face.getmask2(words, "L", anchor="ls")
    image = Image.new("RGBA", (mask.size[0] + 2, mask.size[1] + 2), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image).draw  # (as ImageDraw.text draws the glyphs it laid out)
    draw.draw_bitmap((1, 1), mask, draw.draw_ink(ImageColor.getcolor(colour, "RGBA")))
    return image, 1 - top


def prepare(variant: Variant, scale: float) -> list[Sprite]:
    """Draw the sprites a picture of ``variant`` pastes (bids' tags, which vary by amount, are
    drawn as a picture needs them); the list of them, always the same for a variant."""
    from .facts import FAILED, INVALID, PENDING, SUCCEEDED
    from .layout import DISLODGED_R
    from .scene import RING_R, THIN_WIDTH

    made: list[Sprite] = []
    patterns = palette.patterns(variant)
    colours = [(palette.power_colour(variant, p), patterns[p]) for p in variant.powers]
    for colour, pattern in colours + [(palette.NEUTRAL, "plain")]:
        for fleet in (False, True):
            for small in (False, True):
                made.append(unit(colour, pattern, fleet, scale, small))
    owners: list[str | None] = [*(colour for colour, _ in colours), None]  # (None: a centre nobody owns)
    for owner in owners:
        for changed in (False, True):
            made.append(dot(owner, changed, scale))
    for colour, _ in colours:
        for status in (PENDING, SUCCEEDED, FAILED, INVALID):
            made.append(ring(colour, RING_R, 2.6, palette.INK, status, scale))
            made.append(ring(colour, RING_R, THIN_WIDTH, palette.INK, status, scale))
        for kind in ("vassal", "bribe"):
            made.append(badge(kind, colour, scale))
        for kind, amount in (("vassal", 2), ("bribe", 1), ("rebel", 3), ("fief", None)):
            made.append(tag(kind, colour, amount, False, scale))
    for r, width in ((UNIT_R + 3.0, 2.4), (DISLODGED_R + 2.0, 2.0)):
        made.append(ring(palette.DISLODGED, r, width, None, PENDING, scale))
    for r in (5.5, 4.5, UNIT_R - 1, DISLODGED_R - 1):
        made.append(cross(r, scale))
    for r in (6.5, 5.5):
        made.append(no_sign(r, scale))
    return made


def sheet(drawn: list[Sprite], width: int) -> Image.Image:
    """Sprites side by side on white, ``width`` pixels wide (for the palette)."""
    images = [image for image, _, _ in drawn]
    rows, x, y, row = [], 0, 0, 0
    for image in images:
        if x + image.width > width:
            x, y, row = 0, y + row, 0
        rows.append((image, (x, y)))
        x, row = x + image.width, max(row, image.height)
    out = Image.new("RGB", (width, max(1, y + row)), "#FFFFFF")
    for image, at in rows:
        out.paste(image, at, image)
    return out


def paste(target: Image.Image, sprite: Sprite, at: tuple[float, float], scale: float) -> tuple[int, int, int, int]:
    """Paste ``sprite`` with its point at ``at`` (picture units); the box it was pasted in
    (left, top, right, bottom pixels, not clipped to ``target``)."""
    image, px, py = sprite
    x, y = round(at[0] * scale - px), round(at[1] * scale - py)
    target.paste(image, (x, y), image)
    return x, y, x + image.width, y + image.height


__all__ = ["GLYPHS", "badge", "cross", "dot", "keep", "kept", "no_sign", "paste", "prepare", "ring", "sheet", "tag", "text",
           "unit"]
