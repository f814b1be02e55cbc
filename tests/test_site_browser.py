"""The archive site as a reader meets it: a real ``crusader serve`` process, opened in headless Chromium.

Uses Debian's ``chromium`` package (``apt-get install -y chromium``; the CI script installs it) and
skips, saying so, when it is not installed. The judge's database is prepared in the test with
three seasons; a fourth is adjudicated while the server runs and must appear on its own.
"""

from __future__ import annotations

import io
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from PIL import Image

from tests.site_support import GAME, NEXT_SEASON, SEASONS, parse_html, play, played_game

PROJECT = Path(__file__).resolve().parent.parent
CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if os.access("/usr/bin/chromium", os.X_OK) else None)

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed: "
                                "apt-get install -y chromium (.ci/run installs it when missing)")

CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status, response.read().decode("utf-8")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode("utf-8", "replace")


def _crusader() -> list[str]:
    script = Path(sys.executable).with_name("crusader")
    return [str(script)] if script.exists() else [sys.executable, "-m", "bot.cli"]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    data = tmp_path_factory.mktemp("data")
    db, service = played_game(data / "crusader.db")
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("CRUSADER_")}
    env.update(CRUSADER_DATA_DIR=str(data), CRUSADER_ARCHIVE_PORT=str(port), CRUSADER_MAIL_LISTEN_PORT="0", CRUSADER_POLL_INTERVAL="0.3",
               CRUSADER_LOG_FORMAT="json", CRUSADER_NODE_NAME="site-test")
    log = (data / "serve.log").open("w")
    proc = subprocess.Popen([*_crusader(), "serve"], cwd=data, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    while True:
        if proc.poll() is not None:
            pytest.fail(f"crusader serve exited with {proc.returncode}:\n{(data / 'serve.log').read_text()}")
        try:
            if _get(url + "/")[0] == 200:
                break
        except OSError:
            pass
        if time.monotonic() > deadline:
            proc.kill()
            pytest.fail(f"crusader serve did not answer on {url} in 90 s:\n{(data / 'serve.log').read_text()}")
        time.sleep(0.2)
    yield url, service, data
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    log.close()
    db.dispose()


@pytest.fixture
def browser(tmp_path):
    def run(*args: str) -> str:
        profile = tmp_path / "profile"
        done = subprocess.run([CHROMIUM, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *args],
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, f"chromium failed ({done.returncode}):\n{done.stderr[-3000:]}"
        return done.stdout
    return run


def test_the_site_index_in_chromium(server, browser):
    url, _, _ = server
    dom = parse_html(browser("--dump-dom", url + "/"))
    [row] = dom.find_all("tr", cls="game")
    assert row.find("a").attrs["href"] == f"{GAME}/index.html"
    assert "The Crusader Kingdoms of Outremer" in row.text()


def test_the_game_index_in_chromium(server, browser):
    url, _, _ = server
    dom = parse_html(browser("--dump-dom", f"{url}/{GAME}"))  # redirected to /acre/
    assert dom.find("h1").text() == GAME
    links = [a.attrs["href"] for a in dom.by_id("seasons").find_all("a")]
    assert links[:len(SEASONS)] == [f"{phase}.html" for phase, _ in SEASONS]
    chart = dom.by_id("centre-chart").find("svg")
    assert len(chart.find_all("g", cls="series")) == 7
    assert dom.by_id("prestige-history").rows()[0][0] == "start"


def test_a_season_page_in_chromium_with_a_screenshot(server, browser, tmp_path):
    url, _, _ = server
    dom = parse_html(browser("--dump-dom", f"{url}/{GAME}/S1101M.html"))
    assert dom.find("h1").text() == f"{GAME}: Spring 1101 Movement"
    orders = {tr.find("code").text(): tr.attrs["data-outcome"] for tr in dom.find_all("tr", cls="order")}
    assert orders["JER: VASSAL F tyr BID 2"] == "succeeds" and orders["FAT: A cai - sid"] == "fails"
    assert orders["FAT: VASSAL F tyr BID 1"] == "invalid"
    bids = {r[1]: (r[2], r[3]) for r in dom.by_id("bids").rows()}
    assert bids["VASSAL F tyr BID 2"] == ("won", "2")
    assert dom.by_id("map-before").find("svg").attrs["data-phase"] == "S1101M"
    assert dom.by_id("map-after").find("svg").attrs["data-phase"] == "F1101M"

    shot = tmp_path / "season.png"
    browser(f"--screenshot={shot}", "--window-size=1200,1600", "--hide-scrollbars", f"{url}/{GAME}/S1101M.html")
    image = Image.open(shot).convert("RGB")
    assert image.size == (1200, 1600)
    colours = image.getcolors(maxcolors=1 << 20)
    assert colours is not None and len(colours) > 200, "the screenshot is nearly blank"
    assert max(n for n, _ in colours) < 0.8 * 1200 * 1600, "one colour fills the screenshot"
    # the maps are on screen: Jerusalem's yellow and the sea's blue
    present = {rgb for _, rgb in colours}
    assert (0xF0, 0xE4, 0x42) in present or any(abs(r - 0xF0) + abs(g - 0xE4) + abs(b - 0x42) < 12 for r, g, b in present)
    keep = os.environ.get("CRUSADER_SCREENSHOT_DIR")
    if keep:
        shutil.copy(shot, Path(keep) / "archive-season.png")


def test_a_season_adjudicated_while_serving_gets_its_page(server, browser):
    url, service, _ = server
    status, body = _get(f"{url}/{GAME}/S1102M.html")
    assert status == 404 and "not been adjudicated yet" in body
    play(service, *NEXT_SEASON)
    deadline = time.monotonic() + 30
    while _get(f"{url}/{GAME}/S1102M.html")[0] != 200:
        assert time.monotonic() < deadline, "the new season's page did not appear within 30 s"
        time.sleep(0.3)
    dom = parse_html(browser("--dump-dom", f"{url}/{GAME}/index.html"))
    assert "S1102M.html" in [a.attrs["href"] for a in dom.by_id("seasons").find_all("a")]
    season = parse_html(browser("--dump-dom", f"{url}/{GAME}/S1102M.html"))
    assert "RUM: A att - myr" in [tr.find("code").text() for tr in season.find_all("tr", cls="order")]


def test_the_server_keeps_to_the_site_directory(server):
    url, _, data = server
    (data / "site" / ".secret").write_text("not for readers")
    assert _get(f"{url}/.secret")[0] == 404
    assert _get(f"{url}/%2e%2e/crusader.db")[0] == 404
    assert _get(f"{url}/{GAME}/game.json")[0] == 200
