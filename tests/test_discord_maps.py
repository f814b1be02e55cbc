"""The pictures the Discord front end posts: a season's results show the same picture the mail
sends (the orders with their outcomes, the bids in the legend, bribed units marked)."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from bot.discord.maps import season_png
from bot.site import season_picture
from tests.site_support import GAME, played_game


@pytest.fixture(scope="module")
def first_season(tmp_path_factory):
    db, service = played_game(tmp_path_factory.mktemp("judge") / "judge.db")
    try:
        yield service.season(GAME, 0)
    finally:
        db.dispose()


def test_the_results_picture_is_the_one_the_mail_sends_bids_and_bribes_included(first_season):
    posted = season_png(first_season)
    mailed = season_picture(first_season["variant"], first_season["position"], first_season["result"])
    assert posted is not None and posted.startswith(b"\x89PNG\r\n\x1a\n")
    # the legend under the map lists the season's three bids, so both pictures are as tall
    assert Image.open(io.BytesIO(posted)).size == Image.open(io.BytesIO(mailed)).size
    assert posted == mailed
