"""The archive site brought up to date season by season: only the seasons whose pages are due are
read (a season whose page only links to other seasons now has its links written anew), and the
pages come out as a game's site written afresh does."""

from __future__ import annotations

import json
import re
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.archive.games import game_archive
from bot.frontends.site import writer as site_writer
from bot.frontends.site.server import SiteNotifier
from bot.frontends.site.writer import SiteWriter
from bot.store import database


def _clock() -> datetime:
    return datetime(2031, 5, 1, tzinfo=UTC)


def _files(root: Path) -> dict[str, bytes]:
    """Every file of the site but the summaries, by path."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and p.name != site_writer.SUMMARY}


def _versions(db) -> list[int]:
    with db.session() as session:
        _, _, versions = database.site_columns(session)
    return next(iter(versions.values()), [])


class Reads:
    """What the notifier reads: seasons through the service's shared read and in rows of its own
    (by version), and the seasons it decodes for their pages."""

    def __init__(self, service, monkeypatch) -> None:
        self.shared: list[int] = []
        self.rows: list[int] = []
        self.decoded: list[int] = []
        real_season, real_rows, real_record = service.season, database.seasons_of, site_writer.season_record

        def season(game, version):
            self.shared.append(version)
            return real_season(game, version)

        def seasons_of(*args, **kwargs):
            rows = real_rows(*args, **kwargs)
            self.rows += [row.version for row in rows]
            return rows

        def season_record(season):
            self.decoded.append(season.version)
            return real_record(season)

        monkeypatch.setattr(service, "season", season)
        monkeypatch.setattr(database, "seasons_of", seasons_of)
        monkeypatch.setattr(site_writer, "season_record", season_record)

    def clear(self) -> None:
        self.shared.clear()
        self.rows.clear()
        self.decoded.clear()


class Game:
    """The acre game with a notifier writing its site, and what the notifier reads."""

    def __init__(self, acre, tmp_path: Path, monkeypatch) -> None:
        self.acre, self.tmp_path = acre, tmp_path
        self.db, self.service = acre.played(tmp_path / "judge.db")
        self.root = tmp_path / "site"
        self.notifier = SiteNotifier(self.service, SiteWriter(self.root, clock=_clock))
        self.reads = Reads(self.service, monkeypatch)
        with self.db.engine.connect() as c:
            self.id = c.exec_driver_sql("SELECT id FROM game").scalar_one()

    def play(self, seasons: int) -> None:
        """Play on to ``seasons`` seasons: acre's next season, then every unit holding."""
        self.acre.play(self.service, *self.acre.next_season)
        while len(_versions(self.db)) < seasons:
            self.adjudicate()

    def adjudicate(self) -> None:
        assert self.service.force_adjudicate(self.acre.name, "gm") == "adjudicated"

    def update(self, announced: int | None = None) -> bool:
        return self.notifier.update(self.id, announced=announced)

    def fresh(self) -> dict[str, bytes]:
        """The game's site as ``crusader archive build`` writes it afresh."""
        fresh = self.tmp_path / "fresh"
        shutil.rmtree(fresh, ignore_errors=True)
        SiteWriter(fresh, clock=_clock).build_game(game_archive(self.db, self.acre.name))
        return _files(fresh)


@pytest.fixture
def game(acre, tmp_path, monkeypatch):
    played = Game(acre, tmp_path, monkeypatch)
    yield played
    played.db.dispose()


@pytest.mark.parametrize("seasons", [4, 9])
def test_an_update_reads_the_new_seasons_alone_whatever_the_length_of_the_game(game, seasons):
    game.play(seasons)
    assert game.update()
    assert game.reads.decoded == _versions(game.db)  # written for the first time: every season
    game.reads.clear()

    before = _versions(game.db)
    game.adjudicate()
    new = [v for v in _versions(game.db) if v not in before]
    assert new
    assert game.update()
    # the new seasons; the last one before them, whose page now links to the first of them, is
    # not read: its page has its links written anew
    assert game.reads.rows == game.reads.decoded == new
    assert _files(game.root) == game.fresh()


def test_a_page_that_is_not_as_the_site_writes_it_is_written_whole(game):
    """The season before a new one is read and its page written whole when its page's links are
    not where and what this version of the site writes."""
    game.play(4)
    game.update()
    before = _versions(game.db)
    last = json.loads((game.root / "acre" / site_writer.SUMMARY).read_text())["lines"][-1]["slug"]
    page = game.root / "acre" / f"{last}.html"
    page.write_bytes(page.read_bytes().replace(b'<a href="index.html">acre</a>', b'<a href="index.html">Acre</a>'))
    game.adjudicate()
    new = [v for v in _versions(game.db) if v not in before]
    game.reads.clear()
    assert game.update()
    assert game.reads.rows == game.reads.decoded == [before[-1], *new]
    assert _files(game.root) == game.fresh()


def test_the_announced_season_is_read_through_the_service_s_shared_read(game):
    """The season whose results are announced, which the other front ends read too, is read
    through the service (decoded once between them), and no other: the page of the one before
    it has its links written anew."""
    game.play(4)
    game.update()
    before = _versions(game.db)
    game.adjudicate()
    [*_, announced] = _versions(game.db)
    game.reads.clear()
    game.update(announced)
    assert game.reads.shared == game.reads.decoded == [announced]
    assert game.reads.rows == [] and before[-1] not in game.reads.decoded
    assert _files(game.root) == game.fresh()


def test_seasons_that_come_together_link_each_to_the_next(game):
    """A phase nobody has anything to decide in is adjudicated with the one before it: both come in
    one update, and the page of the season before the first links to it, as when written afresh."""
    game.play(4)
    game.update()
    before = _versions(game.db)
    while len(_versions(game.db)) < len(before) + 2:
        game.adjudicate()
    game.update()
    assert _files(game.root) == game.fresh()


def test_a_rolled_back_season_loses_its_line_and_its_files_and_the_season_before_it_its_link(game):
    game.play(6)
    game.update()
    before = _versions(game.db)
    folder = game.root / "acre"
    lines = json.loads((folder / site_writer.SUMMARY).read_text())["lines"]
    assert [line["version"] for line in lines] == before
    game.reads.clear()

    game.service.rollback("acre", "gm")
    after = _versions(game.db)
    gone = [line for line in lines if line["version"] not in after]
    assert gone and after == before[:len(after)]
    assert game.update()
    summary = json.loads((folder / site_writer.SUMMARY).read_text())
    assert [line["version"] for line in summary["lines"]] == after
    for line in gone:
        assert not list(folder.glob(f"{line['slug']}*")), f"{line['slug']}'s files are left"
        assert f'href="{line["slug"]}.html"' not in (folder / "index.html").read_text()
    # no season is read again: the page of the season that is last now no longer links to the next
    assert game.reads.rows == game.reads.decoded == []
    assert 'rel="next"' not in (folder / f"{summary['lines'][-1]['slug']}.html").read_text()
    assert _files(game.root) == game.fresh()

    game.adjudicate()
    game.update()
    assert _files(game.root) == game.fresh()


def test_a_game_whose_folder_was_removed_is_written_afresh(game):
    game.play(5)
    game.update()
    shutil.rmtree(game.root / "acre")
    game.reads.clear()
    assert game.update()
    assert game.reads.decoded == _versions(game.db)
    assert _files(game.root) == game.fresh()


def test_the_pages_of_a_season_relinked_keep_its_pictures(game):
    """A season whose page is relinked is not read again, and its pictures are not drawn again."""
    game.play(4)
    game.update()
    last = json.loads((game.root / "acre" / site_writer.SUMMARY).read_text())["lines"][-1]["slug"]
    pictures = {p.name: p.stat().st_mtime_ns for p in (game.root / "acre").glob(f"{last}*.png")}
    assert len(pictures) == 2
    game.adjudicate()
    game.update()
    assert {p.name: p.stat().st_mtime_ns for p in (game.root / "acre").glob(f"{last}*.png")} == pictures
    assert re.search(r'rel="next" href="[A-Z]\d+[A-Z]\.html"', (game.root / "acre" / f"{last}.html").read_text())
