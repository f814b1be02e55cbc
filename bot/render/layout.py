"""The sizes of what a picture draws, in picture units: the map is :data:`WIDTH` units wide and
a picture :data:`bot.render.DEFAULT_SIZE` pixels wide draws one unit as one pixel.

The drawn maps' fixed places (``tools/map_places.py``) are worked out with these sizes, so that
names and dots keep clear of the units drawn here: a change to them asks for the maps to be
derived again.
"""

from __future__ import annotations

WIDTH = 1000.0
"""Width of the map in picture units."""

UNIT_R = 11.0
"""Half the width of a unit's symbol (an army's disc, a fleet's hull)."""
DISLODGED_R = 8.5
"""Half the width of a dislodged unit's symbol, drawn smaller beside the unit that dislodged it."""
DISLODGED_OFFSET = (14.0, -13.0)
"""Where a dislodged unit is drawn from its province's unit point: up and to the right."""
CENTRE_R = 4.5
"""A supply centre's dot."""
LABEL_SIZE = 15.0
"""Province names (font size)."""
HALO = 0.16 * LABEL_SIZE
"""The pale edge drawn round a name so that it reads over land, sea and lines."""

DEFAULT_SIZE = 1000
"""The width of a picture in pixels, unless asked otherwise: one pixel per picture unit.
Discord shows a picture about 550 pixels wide until it is opened."""
