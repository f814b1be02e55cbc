"""The pictures the Discord front end posts: a season's results show the same picture the mail
sends (the orders with their outcomes, the bids in the legend, bribed units marked)."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from bot.frontends.discord.maps import season_png
from bot.frontends.site import season_picture


@pytest.fixture(scope="module")
def first_season(acre, tmp_path_factory):
    db, service = acre.played(tmp_path_factory.mktemp("judge") / "judge.db")
    try:
        yield service.season(acre.name, 0)
    finally:
        db.dispose()


def test_the_results_picture_is_the_one_stored_with_the_season_bids_and_bribes_included(first_season):
    posted = season_png(first_season)
    drawn = season_picture(first_season)
    assert posted is not None and posted.startswith(b"\x89PNG\r\n\x1a\n")
    assert posted == first_season.picture
    # the legend under the map lists the season's three bids, so both pictures are as tall
    assert Image.open(io.BytesIO(posted)).size == Image.open(io.BytesIO(drawn)).size
