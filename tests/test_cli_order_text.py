"""The result documents write each order exactly as ``canonical(order)`` does."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from adjudicator.orders import (
    Build, Convoy, Disband, Hold, Move, Retreat, SecureLoyalty, SupportHold, SupportMove, Vassal, Waive, canonical,
)
from adjudicator.variant import get_variant
from adjudicator.vocab import Location, UnitType
from bot.documents import order_text

STANDARD = get_variant("standard")
LOCATIONS = sorted({Location(p) for p in STANDARD.provinces}
                   | {loc for p in STANDARD.provinces for loc in STANDARD.fleet_locations(p)},
                   key=str)
powers = st.sampled_from(["ENG", "FRA", "NEU", ""])
types = st.sampled_from([UnitType.ARMY, UnitType.FLEET, None])
places = st.sampled_from(LOCATIONS)

orders = st.one_of(
    st.builds(Hold, powers, types, places),
    st.builds(Move, powers, types, places, places, st.booleans()),
    st.builds(SupportHold, powers, types, places, types, places),
    st.builds(SupportMove, powers, types, places, types, places, places),
    st.builds(Convoy, powers, types, places, types, places, places),
    st.builds(Retreat, powers, types, places, places),
    st.builds(Disband, powers, types, places),
    st.builds(Build, powers, types, places),
    st.builds(Waive, powers),
    st.builds(Vassal, powers, types, places, st.integers(0, 9)),
    st.builds(SecureLoyalty, powers, st.integers(0, 9)),
)


@settings(max_examples=500, deadline=None)
@given(orders)
def test_order_text_is_canonical(order):
    assert order_text(order) == canonical(order)
