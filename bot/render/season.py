"""The pictures the judge sends, as PNG bytes: a season as it was adjudicated, a player's own
orders before the deadline, and the board. Pure functions of domain values.

:func:`season_picture` is drawn once, when the season is adjudicated, and stored with it; the
Discord and mail front ends send the stored bytes, the archive site shows them, and
``crusader picture --result`` draws the same from the contract's documents.
"""

from __future__ import annotations

from collections.abc import Sequence

from adjudicator.modules import standing_column
from adjudicator.orders import Order
from adjudicator.position import Position
from adjudicator.results import Adjudication
from adjudicator.variant import Variant, get_variant

from . import legend as legend_band
from .facts import Facts, board_facts, season_facts
from .geometry import places_for
from .layers import map_layers
from .layout import DEFAULT_SIZE
from .raster import Drawn, draw_map, png
from .scene import Scene, scene


def _variant(variant: Variant | str) -> Variant:
    return get_variant(variant) if isinstance(variant, str) else variant


def _size(size: int) -> int:
    if not isinstance(size, int) or isinstance(size, bool) or not 200 <= size <= 4000:
        raise ValueError(f"size must be a whole number of pixels from 200 to 4000, like 1000: {size!r}")
    return size


def picture_scene(variant: Variant | str, facts: Facts) -> Scene:
    """The marks a picture of ``facts`` draws on the map (:func:`bot.render.scene.scene`)."""
    variant = _variant(variant)
    return scene(variant, places_for(variant.name), facts)


def draw(variant: Variant | str, facts: Facts, *, title: str, subtitle: str, size: int = DEFAULT_SIZE) -> Drawn:
    """The picture of ``facts``: the map with its marks, the legend under it (with the land it
    was drawn on and the boxes drawn on since, for :func:`bot.render.raster.png`)."""
    variant = _variant(variant)
    layers = map_layers(variant.name, _size(size))
    marks = picture_scene(variant, facts)
    owned = [(p, o) for p, o in sorted(facts.owners.items()) if o in variant.powers]
    picture = draw_map(variant, layers, marks, owned)
    picture.boxes += legend_band.draw_legend(picture.image, layers.height, variant, facts, marks.used, title, subtitle)
    return picture


def _title(variant: Variant, position: Position, game: str | None) -> str:
    return f"{game} \u00b7 {position.phase.long_name}" if game else f"{variant.title} \u00b7 {position.phase.long_name}"


def _subtitle(variant: Variant, game: str | None, what: str) -> str:
    return f"{variant.title}: {what}" if game else what[:1].upper() + what[1:]


def season_picture(variant: Variant | str, before: Position, adjudication: Adjudication, *, game: str | None = None,
                   size: int = DEFAULT_SIZE) -> bytes:
    """A season as a PNG: the board it started from with every order given drawn with its outcome
    (failed, dislodged, random retreats, builds), and the centres, counts and prestige as they
    stand after it.

    :param before: the position the season started from.
    :param adjudication: the season's adjudication (results, the judge's own orders, the next position).
    :param game: the game's name, for the title.
    :param size: width in pixels.
    """
    variant = _variant(variant)
    facts = season_facts(variant, before, adjudication)
    column = standing_column(before)
    after = f"centres and {column[0]} after them" if column is not None else "the centres after them"
    image = draw(variant, facts, title=_title(variant, before, game),
                 subtitle=_subtitle(variant, game, f"the orders and how they went; {after}"), size=size)
    return png(image, map_layers(variant.name, size))


def orders_picture(variant: Variant | str, position: Position, orders: Sequence[Order], *, game: str | None = None,
                   size: int = DEFAULT_SIZE) -> bytes:
    """The board with one player's standing orders drawn on it, before the deadline (no outcome)."""
    variant = _variant(variant)
    image = draw(variant, board_facts(variant, position, orders), title=_title(variant, position, game),
                 subtitle=_subtitle(variant, game, "orders standing, not adjudicated yet"), size=size)
    return png(image, map_layers(variant.name, size))


def render_png(variant: Variant | str, position: Position, *, orders: Sequence[Order] | None = None,
               game: str | None = None, size: int = DEFAULT_SIZE) -> bytes:
    """The board (with ``orders`` drawn on it, not adjudicated) as a PNG."""
    if orders:
        return orders_picture(variant, position, orders, game=game, size=size)
    variant = _variant(variant)
    image = draw(variant, board_facts(variant, position), title=_title(variant, position, game),
                 subtitle=_subtitle(variant, game, "the board"), size=size)
    return png(image, map_layers(variant.name, size))


__all__ = ["draw", "orders_picture", "picture_scene", "render_png", "season_picture"]
