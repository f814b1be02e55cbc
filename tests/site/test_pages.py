"""The archive site written from a game played through the service: every page read back with the
standard library's HTML parser and checked against what the judge stored."""

from __future__ import annotations

import asyncio
import io
import json
import os
import re
import shutil
import tomllib
from dataclasses import replace
from datetime import UTC, datetime
from fnmatch import fnmatch
from pathlib import Path

import pytest
from PIL import Image

from adjudicator.variant import get_variant
from bot.render import DEFAULT_SIZE
from bot.archive.games import export_game, game_archive
from bot.cli.main import main
from bot.codec.documents import position_from_dict
from bot.frontends.site import season_picture
from bot.codec.season import season_from_document
from bot.codec.spelled import named
from bot.frontends.site.server import SiteNotifier
from bot.frontends.site.writer import SiteWriter
from bot.store.outbox import OutboxDispatcher

PROJECT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def played(acre, tmp_path_factory):
    db, service = acre.played(tmp_path_factory.mktemp("judge") / "judge.db")
    yield db, service
    db.dispose()


@pytest.fixture(scope="module")
def site(acre, played, tmp_path_factory):
    db, _ = played
    root = tmp_path_factory.mktemp("site")
    SiteWriter(root).write_game(game_archive(db, acre.name))
    return root


@pytest.fixture(scope="module")
def export(acre, played):
    return export_game(played[0], acre.name)


@pytest.fixture(scope="session")
def page(parse_html):
    """``page(root, *parts)``: the page at ``root/parts...``, parsed."""
    return lambda root, *parts: parse_html(root.joinpath(*parts).read_text(encoding="utf-8"))


def test_the_site_index_links_to_the_game(page, acre, site):
    index = page(site, "index.html")
    [row] = index.find_all("tr", cls="game")
    assert row.find("a").attrs["href"] == f"{acre.name}/index.html"
    assert "The Crusader Kingdoms of Outremer" in row.text() and "Spring 1102 Movement" in row.text()
    assert row.find_all("td")[4].text() == str(len(acre.seasons))


def test_the_game_index_lists_every_season(page, acre, site, export):
    index = page(site, acre.name, "index.html")
    links = [a.attrs["href"] for a in index.by_id("seasons").find_all("a")]
    assert links == [f"{s['phase']}.html" for s in export["seasons"]]
    assert all((site / acre.name / link).is_file() for link in links)
    assert "now in Spring 1102 Movement" in index.by_id("summary").text()


def test_the_supply_centre_chart_has_a_line_per_power_with_the_counts_after_each_season(page, acre, site, export):
    chart = page(site, acre.name, "index.html").by_id("centre-chart").find("svg")
    variant = get_variant("crusader")
    series = {g.attrs["id"]: g for g in chart.find_all("g", cls="series")}
    assert set(series) == {f"series-{p}" for p in variant.powers}
    for power in variant.powers:
        expected = [position_from_dict(export["seasons"][0]["position"])[1].center_counts().get(power, 0)]
        expected += [position_from_dict({k: v for k, v in s["result"]["position"].items() if k != "orders"})[1]
                     .center_counts().get(power, 0) for s in export["seasons"]]
        assert series[f"series-{power}"].attrs["data-values"] == " ".join(map(str, expected))
        assert len(series[f"series-{power}"].find_all("circle")) == len(acre.seasons) + 1
    # Rum took Attalia and Trebizond in 1101: its line climbs by two
    assert series["series-RUM"].attrs["data-values"].split()[-1] == str(int(series["series-RUM"].attrs["data-values"].split()[0]) + 2)


def test_the_prestige_history_follows_the_ledger(page, acre, site, export):
    table = page(site, acre.name, "index.html").by_id("prestige-history")
    heads = [th.text() for th in table.find_all("th")][1:]
    rows = {r[0]: dict(zip(heads, map(int, r[1:]))) for r in table.rows()}
    assert rows["start"] == export["seasons"][0]["position"]["prestige"]
    for season in export["seasons"]:
        after = season["result"]["position"]["prestige"]
        before = season["position"]["prestige"]
        assert (season["phase"] in rows) == (after != before)
        if season["phase"] in rows:
            assert rows[season["phase"]] == after
    assert rows["S1101M"]["JER"] == 0 and rows["S1101M"]["BYZ"] == 1  # the vassal bid and the bribe were paid


def test_a_season_page_shows_every_order_with_its_outcome_and_reason(page, acre, site, export, played):
    """Each reason as the results report words it: the export's text, its units and places named."""
    labels, renamed = set(), 0
    kept = game_archive(played[0], acre.name).seasons
    for season, stored_season in zip(export["seasons"], kept, strict=True):
        variant = stored_season.variant
        renamed += sum(1 for r in stored_season.results if named(r.reason, variant) != r.reason)
        doc = page(site, acre.name, f"{season['phase']}.html")
        shown = {}
        for table in doc.find_all("table", cls="orders"):
            for tr in table.find_all("tr", cls="order"):
                understood, written, outcome, reason = (td.text() for td in tr.find_all("td"))
                shown[understood] = (written, outcome, reason, "implicit" in tr.classes)
        stored = season["result"]["results"]
        words = {"succeeds": "succeeded", "fails": "failed", "invalid": "invalid"}
        for order, entry, result in zip(season["orders"], stored, stored_season.results, strict=True):
            assert result.reason == entry["reason"]     # the contract's text, kept
            assert shown[entry["canonical"]] == (order["text"].replace("\n", " "), words[entry["result"]],
                                                 named(result.reason, variant), False)
        for entry, result in zip(season["result"].get("implicit", []), stored_season.adjudication.implicit,
                                 strict=True):
            written, *rest = shown[entry["canonical"]]
            assert rest == [words[entry["result"]], named(result.reason, variant), True]
            neutral = entry["canonical"].startswith("NEU: ")
            labels.add(written)
            assert written in (("(neutral, nobody commands it)", "(neutral, nobody commands it: drawn at random, rule 3.4)")
                               if neutral else ("(no order given)", "(the order written with the BRIBE)"))
        assert len(shown) == len(stored) + len(season["result"].get("implicit", []))
    assert {"(no order given)", "(neutral, nobody commands it)", "(the order written with the BRIBE)"} <= labels
    spring = page(site, acre.name, "S1101M.html")
    row = next(tr for tr in spring.find_all("tr", cls="order") if "FAT: BRIBE F tyr BID 1" in tr.text())
    assert row.attrs["data-outcome"] == "fails" and "against a minimum of 3" in row.text()
    assert renamed, "some reason of the game names a unit, by its name on the page"


def test_the_bids_say_who_won_what_and_what_each_spent(page, acre, site):
    spring = page(site, acre.name, "S1101M.html")
    bids = {(r[0], r[1]): (r[2], int(r[3])) for r in spring.by_id("bids").rows()}
    assert bids == {("BYZ", "BRIBE A phr BID 1"): ("won, 1 spent", 1),
                    ("FAT", "BRIBE F tyr BID 1 F tyr S F acr"): ("lost, nothing spent", 0),
                    ("JER", "VASSAL F tyr BID 2"): ("won, 2 spent", 2)}
    won = spring.by_id("results-prestige").text()     # the results report's own words, as mail and Discord
    assert "Vassal: the neutral army of Tyre obeys The Kingdom of Jerusalem until the year's end" in won
    assert "Bribed: the unit in Phrygia obeys The Byzantine Empire this season" in won
    ledger = {r[0]: r for r in spring.by_id("ledger").rows()}
    assert ledger["JER"][1:4] == ["2", "0", "2"] and ledger["JER"][-1] == "0"
    assert ledger["FAT"][3] == "0" and ledger["FAT"][-1] == "2"
    fall = page(site, acre.name, "F1101M.html")
    assert fall.by_id("no-bids").text() == "No prestige orders this season."


def test_the_map_before_is_the_stored_picture_and_the_map_after_a_picture_beside_it(page, acre, site, played, export):
    """The map before is the picture the judge stored with the season when it adjudicated it (the
    PNG Discord and the mail sent), not drawn again; the board after is a PNG beside the page. No
    page inlines a picture: a season's page is a few kilobytes."""
    _db, service = played
    doc = page(site, acre.name, "S1101M.html")
    stored = service.season(acre.name, export["seasons"][0]["version"]).picture
    assert stored is not None and stored.startswith(b"\x89PNG")
    img = doc.by_id("map-before").find("img")
    assert img.attrs["src"] == "S1101M.png" and (site / acre.name / "S1101M.png").read_bytes() == stored
    assert (int(img.attrs["width"]), int(img.attrs["height"])) == Image.open(io.BytesIO(stored)).size
    after = doc.by_id("map-after").find("img")
    assert after.attrs["src"] == "S1101M-after.png"
    drawn = Image.open(site / acre.name / "S1101M-after.png")
    assert (int(after.attrs["width"]), int(after.attrs["height"])) == drawn.size and drawn.width == DEFAULT_SIZE
    for path in (site / acre.name).glob("*.html"):
        assert "<svg" not in path.read_text().replace('<svg xmlns="http://www.w3.org/2000/svg" class="centre-chart"', ""), path
        assert path.stat().st_size < 40_000, path
    assert not list((site / acre.name).glob("*.svg"))
    board = page(site, acre.name, "index.html").by_id("board").find("img")
    assert board.attrs["src"] == "board.png" and (site / acre.name / "board.png").read_bytes().startswith(b"\x89PNG")


def test_a_season_stored_without_a_picture_has_it_drawn_by_the_same_code(page, acre, played, export, tmp_path):
    db, service = played
    archive = game_archive(db, acre.name)
    archive = replace(archive, seasons=tuple(replace(s, picture=None) for s in archive.seasons))
    SiteWriter(tmp_path).write_game(archive)
    doc = page(tmp_path, acre.name, "S1101M.html")
    assert doc.by_id("map-before").find("img").attrs["src"] == "S1101M.png"
    stored = service.season(acre.name, export["seasons"][0]["version"]).picture
    assert (tmp_path / acre.name / "S1101M.png").read_bytes() == stored
    ids = [e.attrs["id"] for e in doc.iter() if "id" in e.attrs]
    assert len(ids) == len(set(ids)), "two elements of the page share an id"


def test_the_pages_need_no_script_and_nothing_from_elsewhere(page, site):
    for path in site.rglob("*.html"):
        doc = page(site, path.relative_to(site).as_posix())
        assert not doc.find_all("script"), path
        for e in doc.iter():
            for key in ("src", "href", "xlink:href"):
                value = e.attrs.get(key) or ""
                assert not re.match(r"^(https?:)?//", value), f"{path}: {e} loads {value}"


def test_a_season_page_is_written_once_and_the_indexes_each_time(acre, tmp_path):
    db, service = acre.played(tmp_path / "judge.db")
    root = tmp_path / "site"
    clock = iter(datetime(2031, 5, d, tzinfo=UTC) for d in range(1, 20))
    writer = SiteWriter(root, clock=lambda: next(clock))
    writer.write_game(game_archive(db, acre.name))
    spring = root / acre.name / "S1101M.html"
    first = (spring.stat().st_ino, spring.stat().st_mtime_ns, spring.read_text())
    index_before = (root / acre.name / "index.html").read_text()
    pictures = {p.name: (p.stat().st_ino, p.stat().st_mtime_ns) for p in (root / acre.name).glob("*.png")
                if p.name != "board.png"}
    pages = {p.name: p.read_text() for p in (root / acre.name).glob("*.html") if p.name != "index.html"}

    acre.play(service, *acre.next_season)
    writer.write_game(game_archive(db, acre.name))
    assert (spring.stat().st_ino, spring.stat().st_mtime_ns, spring.read_text()) == first
    # the season before the new one links to it now; its pictures are not drawn or written again
    relinked = [name for name, text in pages.items() if (root / acre.name / name).read_text() != text]
    assert len(relinked) == 1 and 'href="S1102M.html"' in (root / acre.name / relinked[0]).read_text()
    assert {name: ((root / acre.name / name).stat().st_ino, (root / acre.name / name).stat().st_mtime_ns)
            for name in pictures} == pictures
    assert (root / acre.name / "S1102M.html").is_file()
    index_after = (root / acre.name / "index.html").read_text()
    assert index_after != index_before and 'href="S1102M.html"' in index_after
    assert not [p for p in root.rglob(".*")], "a temporary file was left behind"
    db.dispose()


def test_the_site_index_shows_each_game_as_its_pages_now_stand(acre, page, tmp_path):
    """The index's row of a game is made again when the game's pages are, and only the rows of the
    games whose pages are there: one writer's rows made once, a game's row after its new season."""
    db, service = acre.played(tmp_path / "judge.db")
    root = tmp_path / "site"
    writer = SiteWriter(root)
    writer.write_game(game_archive(db, acre.name))
    other = root / "another"
    other.mkdir()
    (other / "game.json").write_text(json.dumps({"name": "Another", "variant_title": "Standard", "status": "ended",
                                                 "phase_name": "", "seasons": 3, "outcome": "Won by FRA."}))
    (root / "stray").mkdir()  # a folder without a summary: not a game
    writer.write_index()
    title = get_variant("crusader").title
    assert page(root, "index.html").by_id("games").rows() == [
        [acre.name, title, "active", "Spring 1102 Movement", str(len(acre.seasons)), ""],
        ["Another", "Standard", "ended", "-", "3", "Won by FRA."]]

    acre.play(service, *acre.next_season)
    writer.write_game(game_archive(db, acre.name))
    rows = page(root, "index.html").by_id("games").rows()
    assert rows[0] == [acre.name, title, "active", "Fall 1102 Movement", str(len(acre.seasons) + 1), ""]
    assert rows[1][0] == "Another"
    shutil.rmtree(other)
    writer.write_index()
    assert [row[0] for row in page(root, "index.html").by_id("games").rows()] == [acre.name]
    db.dispose()


def test_a_rolled_back_season_loses_its_page_and_gets_a_new_one_when_adjudicated_again(acre, tmp_path):
    db, service = acre.played(tmp_path / "judge.db")
    root = tmp_path / "site"
    writer = SiteWriter(root)
    acre.play(service, *acre.next_season)
    writer.write_game(game_archive(db, acre.name))
    assert "RUM: A att - myr" in (root / acre.name / "S1102M.html").read_text()

    service.rollback(acre.name, "gm")
    writer.write_game(game_archive(db, acre.name))
    assert not (root / acre.name / "S1102M.html").exists()
    assert 'href="S1102M.html"' not in (root / acre.name / "index.html").read_text()

    service.clear_orders(acre.name, acre.players["RUM"])
    acre.play(service, "S1102M", {"RUM": "A att - phr"})
    writer.write_game(game_archive(db, acre.name))
    text = (root / acre.name / "S1102M.html").read_text()
    assert "RUM: A att - phr" in text and "RUM: A att - myr" not in text
    db.dispose()


def test_the_notifier_writes_a_season_page_when_its_results_are_announced(acre, tmp_path):
    db, service = acre.played(tmp_path / "judge.db")
    root = tmp_path / "site"
    dispatcher = OutboxDispatcher(db, [SiteNotifier(service, SiteWriter(root))])
    asyncio.run(dispatcher.flush())
    assert sorted(p.name for p in (root / acre.name).glob("*.html")) == ["F1101M.html", "S1101M.html", "W1101B.html",
                                                                      "index.html"]
    acre.play(service, *acre.next_season)
    assert not (root / acre.name / "S1102M.html").exists()
    asyncio.run(dispatcher.flush())
    assert (root / acre.name / "S1102M.html").is_file()
    assert json.loads((root / acre.name / "game.json").read_text())["seasons"] == len(acre.seasons) + 1
    db.dispose()


def test_season_picture_is_a_png_of_the_board_with_the_orders(export):
    season = season_from_document(export["seasons"][0], export["game"]["name"])
    from_documents = season_picture(season)
    from_values = season_picture(season, size=400)
    for data, width in ((from_documents, DEFAULT_SIZE), (from_values, 400)):
        assert data.startswith(b"\x89PNG\r\n\x1a\n")
        image = Image.open(io.BytesIO(data)).convert("RGB")
        assert image.width == width and image.height > width // 2
        colours = image.getcolors(maxcolors=1 << 20)
        assert colours is not None and len(colours) > 50
    # the powers' colours are there: Jerusalem's yellow, the Fatimids' green
    pixels = {rgb for _, rgb in Image.open(io.BytesIO(from_documents)).convert("RGB").getcolors(maxcolors=1 << 20)}
    for colour in ("#F0E442", "#009E73"):  # within what the picture's palette of 256 colours keeps
        rgb = tuple(int(colour[i:i + 2], 16) for i in (1, 3, 5))
        assert any(max(abs(a - b) for a, b in zip(rgb, p)) <= 8 for p in pixels), colour


def test_crusader_archive_build_writes_the_game_into_a_directory(acre, played, tmp_path, capsys, monkeypatch):
    db, _ = played
    data_dir = Path(db.engine.url.database).parent
    out = tmp_path / "out"
    assert main(["archive", "build", acre.name, str(out), "--database", f"sqlite:///{db.engine.url.database}",
                 "--data-dir", str(data_dir)]) == 0
    assert f"{len(acre.seasons)} season page(s)" in capsys.readouterr().out
    assert sorted(p.name for p in (out / acre.name).iterdir()) == [
        "F1101M-after.png", "F1101M.html", "F1101M.png", "S1101M-after.png", "S1101M.html", "S1101M.png",
        "W1101B-after.png", "W1101B.html", "W1101B.png", "board.png", "game.json", "index.html"]
    assert f'href="{acre.name}/index.html"' in (out / "index.html").read_text()
    assert not [p for p in out.iterdir() if p.name.startswith(".")]
    # built again over itself: the same pages, nothing left over
    assert main(["archive", "build", acre.name, str(out), "--database", f"sqlite:///{db.engine.url.database}"]) == 0
    assert not [p for p in out.iterdir() if p.name.startswith(".")]

    assert main(["archive", "build", "no-such-game", str(out), "--database", f"sqlite:///{db.engine.url.database}"]) == 2
    assert "no game 'no-such-game'" in capsys.readouterr().err


def test_the_templates_ship_with_the_package():
    """``pip install .`` must carry bot/frontends/site/templates/*.html.j2 (setuptools package-data)."""
    config = tomllib.loads((PROJECT / "pyproject.toml").read_text())["tool"]["setuptools"].get("package-data", {})
    templates = sorted((PROJECT / "bot" / "frontends" / "site" / "templates").glob("*.html.j2"))
    assert templates
    for path in templates:
        rel = path.relative_to(PROJECT / "bot")
        covered = any(fnmatch(rel.as_posix(), pattern) for pattern in config.get("bot", [])) or \
            any(fnmatch(path.relative_to(PROJECT / "bot" / "frontends" / "site").as_posix(), pattern)
                for pattern in config.get("bot.frontends.site", []))
        assert covered, (f"pyproject.toml's [tool.setuptools.package-data] does not ship {rel}: "
                         f'add "bot.frontends.site" = ["templates/*.html.j2"]')


def test_crusader_serve_starts_the_site_unless_its_port_is_zero(tmp_path):
    from bot.app.serve import build_app
    from bot.app.settings import Settings
    from bot.frontends.site import create_front_end
    from bot.frontends.site.writer import game_slug

    app = build_app(Settings(data_dir=tmp_path, archive_port=0))
    assert create_front_end(app) is None
    app.db.dispose()
    app = build_app(Settings(data_dir=tmp_path))
    site = create_front_end(app)
    assert (site.host, site.port, site.root) == ("127.0.0.1", 8080, tmp_path / "site")
    assert site.notifier in app.dispatcher.notifiers
    app.db.dispose()
    assert [game_slug(n) for n in ("acre", "Siege of Acre!", "../x", "index.html")] == \
        ["acre", "siege-of-acre", "x", "index-html"]  # the game's key: never a path, never the index


def test_the_notifier_writes_the_site_index_once_for_results_that_come_together(acre, tmp_path, monkeypatch):
    """Deadlines at the same hour: each game's pages are written at once, the index of every game
    with the first and once more after the last, not once per game."""
    from bot.store.outbox import Announcement, Delivery

    db, service = acre.played(tmp_path / "judge.db")
    root = tmp_path / "site"
    writer = SiteWriter(root)
    notifier = SiteNotifier(service, writer, index_every=60)
    indexes = []
    real = writer.write_index
    monkeypatch.setattr(writer, "write_index", lambda: (indexes.append(1), real())[1])
    with db.engine.connect() as c:
        game_id = c.exec_driver_sql("SELECT id FROM game").scalar_one()
    deliveries = [Delivery(Announcement(key=f"{game_id}:{v}:results", kind="results", audience="public", subject="",
                                        body="", game_id=game_id, game=acre.name), "site") for v in range(5)]

    async def storm():
        for d in deliveries:  # one after the other, as the outbox makes them
            await notifier.deliver(d)
        assert len(indexes) == 1 and (root / acre.name / "S1101M.html").is_file()
        await notifier.settle()  # what the index waits for (a stop, or the time between two writes)
        assert len(indexes) == 2
        await notifier.settle()
        assert len(indexes) == 2  # nothing written since

    asyncio.run(storm())
    assert f'href="{acre.name}/' in (root / "index.html").read_text()
    db.dispose()


def test_the_site_index_follows_the_last_game_by_itself(acre, tmp_path):
    from bot.store.outbox import Announcement, Delivery

    db, service = acre.played(tmp_path / "judge.db")
    root = tmp_path / "site"
    notifier = SiteNotifier(service, SiteWriter(root), index_every=2.0)
    with db.engine.connect() as c:
        game_id = c.exec_driver_sql("SELECT id FROM game").scalar_one()
    first = Delivery(Announcement(key="a", kind="results", audience="public", subject="", body="", game_id=game_id,
                                  game=acre.name), "site")

    async def two():
        await notifier.deliver(first)
        (root / "index.html").unlink()
        await notifier.deliver(first)   # at once: within the 2 s between two writes of the index
        assert not (root / "index.html").exists()
        for _ in range(600):            # (a guard of 60 s: it is written 2 s after the first, by itself)
            if (root / "index.html").is_file():
                break
            await asyncio.sleep(0.1)
        assert (root / "index.html").is_file()

    asyncio.run(two())
    db.dispose()


def _files(root: Path) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(root)): (p.stat().st_ino, p.stat().st_mtime_ns) for p in root.rglob("*") if p.is_file()}


def test_a_server_starting_again_writes_no_page_of_a_game_already_current(acre, tmp_path):
    db, service = acre.played(tmp_path / "judge.db")
    root = tmp_path / "site"
    assert SiteNotifier(service, SiteWriter(root)).update_all() == 1
    before = _files(root)
    assert {"index.html", f"{acre.name}/index.html", f"{acre.name}/board.png"} <= set(before)

    assert SiteNotifier(service, SiteWriter(root)).update_all() == 1  # the next start: nothing changed
    assert _files(root) == before

    # a player missing a deadline shows on the game's page: that page is written again, the
    # pages of the seasons are not, and the board (unchanged) is not drawn again
    with db.engine.begin() as c:
        c.exec_driver_sql("UPDATE player SET nmr_count = nmr_count + 1 WHERE power = 'RUM'")
    assert SiteNotifier(service, SiteWriter(root)).update_all() == 1
    after = _files(root)
    changed = {name for name in after if after[name] != before.get(name)}
    assert changed == {f"{acre.name}/index.html", f"{acre.name}/game.json", "index.html"}
    db.dispose()


def test_the_board_of_a_game_between_two_seasons_is_the_picture_its_last_season_left(acre, tmp_path):
    db, service = acre.played(tmp_path / "judge.db")
    root = tmp_path / "site"
    acre.play(service, *acre.next_season)
    SiteWriter(root).write_game(game_archive(db, acre.name))
    folder = root / acre.name
    assert (folder / "board.png").read_bytes() == (folder / "S1102M-after.png").read_bytes()
    # the same file under a second name: its bytes written once
    assert (folder / "board.png").stat().st_ino == (folder / "S1102M-after.png").stat().st_ino
    assert 'src="board.png"' in (folder / "index.html").read_text()
    # the next season's board replaces the name, not the file: the season's board after stands
    kept = (folder / "S1102M-after.png").read_bytes()
    acre.play(service, "F1102M", {"RUM": "A myr - lyd"})
    SiteNotifier(service, SiteWriter(root)).update_all()
    last = max(folder.glob("*-after.png"), key=lambda f: f.stat().st_mtime_ns)
    assert last.name != "S1102M-after.png" and (folder / "S1102M-after.png").read_bytes() == kept
    assert (folder / "board.png").read_bytes() == last.read_bytes() != kept
    assert (folder / "board.png").stat().st_ino == last.stat().st_ino
    db.dispose()


def test_where_the_file_system_makes_no_hard_links_the_board_is_written(acre, tmp_path, monkeypatch):
    db, service = acre.played(tmp_path / "judge.db")
    root = tmp_path / "site"

    def refused(*args, **kwargs):
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(os, "link", refused)
    SiteNotifier(service, SiteWriter(root)).update_all()
    folder = root / acre.name
    after = max(folder.glob("*-after.png"), key=lambda f: f.stat().st_mtime_ns)
    assert (folder / "board.png").read_bytes() == after.read_bytes()
    assert (folder / "board.png").stat().st_ino != after.stat().st_ino
    assert not [f for f in folder.iterdir() if f.name.startswith(".")]   # no temporary name left
    db.dispose()


def test_pages_written_by_another_version_of_the_site_are_written_again(acre, tmp_path):
    db, service = acre.played(tmp_path / "judge.db")
    root = tmp_path / "site"
    SiteNotifier(service, SiteWriter(root)).update_all()
    summary = root / acre.name / "game.json"
    data = json.loads(summary.read_text())
    summary.write_text(json.dumps({**data, "format": "another"}))
    spring = root / acre.name / "S1101M.html"
    first = spring.stat().st_mtime_ns, spring.stat().st_ino
    SiteNotifier(service, SiteWriter(root)).update_all()
    assert (spring.stat().st_mtime_ns, spring.stat().st_ino) != first
    assert json.loads(summary.read_text())["format"] == data["format"]
    db.dispose()


def test_an_announcement_delivered_again_writes_nothing(acre, tmp_path):
    """The notifier reads the game once for an announcement of its results, and writes nothing
    when its pages show what it read already (a delivery made again after a kill)."""
    db, service = acre.played(tmp_path / "judge.db")
    root = tmp_path / "site"
    notifier = SiteNotifier(service, SiteWriter(root))
    with db.engine.connect() as c:
        game_id = c.exec_driver_sql("SELECT id FROM game").scalar_one()
    assert notifier.update(game_id) is True
    before = _files(root)
    assert notifier.update(game_id) is False
    assert _files(root) == before
    acre.play(service, *acre.next_season)
    assert notifier.update(game_id) is True
    assert (root / acre.name / "S1102M.html").is_file()
    db.dispose()
