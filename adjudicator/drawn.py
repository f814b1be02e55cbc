"""The drawn map of a variant: the committed GeoJSON file beside its TOML (``NAME.geojson``).

One Feature per province (``id`` the province id; ``properties`` its ``name``, ``kind``, the
``anchor`` where a unit stands and, for split coasts, ``coasts``; the geometry in longitude and
latitude degrees), and foreign members: ``crossings`` (adjacent provinces joined by a line, not a
shared border), ``projection`` (how the picture is laid out), ``water`` (water no province owns:
lakes, the straits, seas off the board), ``off_map`` (land no province owns) and ``rivers``.
The file is derived once from real geography by ``tools/derive_map_shapes.py``; its ``source``
and ``licence`` members name the data set. The format is described in ``docs/map-format.md``.
"""

from __future__ import annotations

import functools
import json
from importlib import resources
from typing import Any

from .variant import VARIANT_FILES, get_variant


class NoDrawnMapError(LookupError):
    """The variant has no drawn map."""


def drawn_map_text(variant_name: str) -> str:
    """The drawn map's GeoJSON text, as committed."""
    name = get_variant(variant_name).name
    filename = VARIANT_FILES[name].removesuffix(".toml") + ".geojson"
    path = resources.files("adjudicator.variants").joinpath(filename)
    if not path.is_file():
        raise NoDrawnMapError(f"the {name} map has no drawn shapes ({filename})")
    return path.read_text(encoding="utf-8")


@functools.cache
def drawn_map(variant_name: str) -> dict[str, Any]:
    """The drawn map as parsed GeoJSON (cached; do not change it)."""
    doc: dict[str, Any] = json.loads(drawn_map_text(variant_name))
    return doc
