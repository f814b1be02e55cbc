"""The documents write orders exactly as ``canonical(order)`` does, and read back the units they write."""

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


def test_units_as_written_read_back_as_the_checks_read_them():
    from bot.documents import _parse_unit_checked, _units_as_written

    for name in ("standard", "crusader"):
        variant = get_variant(name)
        table = _units_as_written(variant)
        assert len(table) > 100
        for text, unit in table.items():
            assert str(unit) == text
            assert _parse_unit_checked(variant, text, "units") == unit
