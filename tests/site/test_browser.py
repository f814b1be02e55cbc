"""The archive site as a reader meets it: a real ``crusader serve`` process, opened in headless Chromium.

Uses Debian's ``chromium`` package (``apt-get install -y chromium``; the CI script installs it) and
skips, saying so, when it is not installed. The judge's database is prepared in the test with
three seasons; a fourth is adjudicated while the server runs and must appear on its own.
"""

from __future__ import annotations

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


PROJECT = Path(__file__).resolve().parents[2]
CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if os.access("/usr/bin/chromium", os.X_OK) else None)

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed: "
                                 "apt-get install -y chromium (.ci/run installs it when missing)")]

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
def server(acre, tmp_path_factory):
    data = tmp_path_factory.mktemp("data")
    db, service = acre.played(data / "crusader.db")
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
                              capture_output=True, text=True, timeout=120, check=False)
        assert done.returncode == 0, f"chromium failed ({done.returncode}):\n{done.stderr[-3000:]}"
        return done.stdout
    return run


def test_the_site_index_in_chromium(acre, parse_html, server, browser):
    url, _, _ = server
    dom = parse_html(browser("--dump-dom", url + "/"))
    [row] = dom.find_all("tr", cls="game")
    assert row.find("a").attrs["href"] == f"{acre.name}/index.html"
    assert "The Crusader Kingdoms of Outremer" in row.text()


def test_the_game_index_in_chromium(acre, parse_html, server, browser):
    url, _, _ = server
    dom = parse_html(browser("--dump-dom", f"{url}/{acre.name}"))  # redirected to /acre/
    assert dom.find("h1").text() == acre.name
    links = [a.attrs["href"] for a in dom.by_id("seasons").find_all("a")]
    assert links[:len(acre.seasons)] == [f"{phase}.html" for phase, _ in acre.seasons]
    chart = dom.by_id("centre-chart").find("svg")
    assert len(chart.find_all("g", cls="series")) == 7
    assert dom.by_id("prestige-history").rows()[0][0] == "start"


def test_a_season_page_in_chromium_with_a_screenshot(acre, parse_html, server, browser, tmp_path):
    url, _, _ = server
    dom = parse_html(browser("--dump-dom", f"{url}/{acre.name}/S1101M.html"))
    assert dom.find("h1").text() == f"{acre.name}: Spring 1101 Movement"
    orders = {tr.find("code").text(): tr.attrs["data-outcome"] for tr in dom.find_all("tr", cls="order")}
    assert orders["JER: VASSAL F tyr BID 2"] == "succeeds" and orders["FAT: A cai - sid"] == "fails"
    assert orders["FAT: BRIBE F tyr BID 1 F tyr S F acr"] == "fails"
    bids = {r[1]: (r[2], r[3]) for r in dom.by_id("bids").rows()}
    assert bids["VASSAL F tyr BID 2"] == ("won, 2 spent", "2")
    assert dom.by_id("map-before").find("img").attrs["src"] == "S1101M.png"  # the picture stored with the season
    assert dom.by_id("map-after").find("img").attrs["src"] == "S1101M-after.png"

    shot = tmp_path / "season.png"
    browser(f"--screenshot={shot}", "--window-size=1200,1600", "--hide-scrollbars", f"{url}/{acre.name}/S1101M.html")
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


def test_a_season_adjudicated_while_serving_gets_its_page(acre, parse_html, server, browser):
    url, service, _ = server
    status, body = _get(f"{url}/{acre.name}/S1102M.html")
    assert status == 404 and "not been adjudicated yet" in body
    acre.play(service, *acre.next_season)
    deadline = time.monotonic() + 30
    while _get(f"{url}/{acre.name}/S1102M.html")[0] != 200:
        assert time.monotonic() < deadline, "the new season's page did not appear within 30 s"
        time.sleep(0.3)
    dom = parse_html(browser("--dump-dom", f"{url}/{acre.name}/index.html"))
    assert "S1102M.html" in [a.attrs["href"] for a in dom.by_id("seasons").find_all("a")]
    season = parse_html(browser("--dump-dom", f"{url}/{acre.name}/S1102M.html"))
    assert "RUM: A att - myr" in [tr.find("code").text() for tr in season.find_all("tr", cls="order")]


def test_the_server_keeps_to_the_site_directory(acre, server):
    url, _, data = server
    (data / "site" / ".secret").write_text("not for readers")
    assert _get(f"{url}/.secret")[0] == 404
    assert _get(f"{url}/%2e%2e/crusader.db")[0] == 404
    assert _get(f"{url}/{acre.name}/game.json")[0] == 200


_MEASURE = """<!doctype html><html><head><meta charset="utf-8"></head><body style="margin:0">
<iframe id="page" src="{src}" style="width:{width}px;height:900px;border:0"></iframe>
<script>
document.getElementById("page").addEventListener("load", function () {{
  var doc = this.contentDocument, out = {{}};
  out.page = doc.documentElement.scrollWidth;
  out.widest = 0;
  doc.querySelectorAll("main > *, .scroll, figure, svg, img").forEach(function (el) {{
    if (el.closest(".scroll") && !el.classList.contains("scroll")) return;  // scrolls inside its box
    out.widest = Math.max(out.widest, Math.ceil(el.getBoundingClientRect().right));
  }});
  var map = doc.querySelector(".maps img");
  out.map = map ? Math.round(map.getBoundingClientRect().width) : 0;
  var chart = doc.querySelector(".chart svg");
  if (chart) {{
    var scale = chart.getBoundingClientRect().width / chart.viewBox.baseVal.width;
    out.chart_text = Math.min.apply(null, Array.prototype.map.call(chart.querySelectorAll("text"), function (t) {{
      return parseFloat(t.getAttribute("font-size")) * scale; }}));
  }}
  out.full = Array.prototype.map.call(doc.querySelectorAll("a.full-size"), function (a) {{ return a.getAttribute("href"); }});
  document.body.setAttribute("data-measure", JSON.stringify(out));
}});
</script></body></html>"""


@pytest.mark.parametrize("width", [390, 1280])
@pytest.mark.parametrize("page", ["index.html", "{game}/index.html", "{game}/S1101M.html", "{game}/F1101M.html"])
def test_the_site_fits_a_phone_and_a_desktop(acre, parse_html, server, browser, width, page):
    """Nothing wider than the window: tables scroll inside their own box or reflow, maps shrink."""
    import json

    page = page.format(game=acre.name)

    url, _, data = server
    harness = data / "site" / f"measure-{width}.html"
    harness.write_text(_MEASURE.format(src="/" + page, width=width))
    dom = parse_html(browser("--virtual-time-budget=10000", "--dump-dom", f"{url}/{harness.name}"))
    measured = json.loads(dom.find("body").attrs["data-measure"])
    assert measured["page"] <= width, f"{page} is {measured['page']} px wide in a {width} px window"
    assert measured["widest"] <= width, f"{page}: something reaches {measured['widest']} px in a {width} px window"
    if page.endswith("M.html"):
        # a phone: each map the width of the screen; a desktop: the two side by side
        assert (width - 40 if width < 600 else 0.4 * width) <= measured["map"] <= width
        slug = page.split("/")[-1][:-5]
        assert measured["full"] == [f"{slug}.png", f"{slug}-after.png"]  # the stored picture, the board after
        for href in measured["full"]:   # each opens full size, where a phone zooms it
            with urllib.request.urlopen(f"{url}/{acre.name}/{href}", timeout=5) as response:
                assert response.status == 200 and response.headers["Content-Type"] == "image/png"
                assert response.read().startswith(b"\x89PNG")
    if page.endswith("/index.html"):
        assert measured["chart_text"] >= 9, f"the chart's text is {measured['chart_text']:.1f} px in a {width} px window"


@pytest.mark.parametrize("width,height", [(390, 2400), (1280, 1600)])
def test_season_page_screenshots_at_phone_and_desktop_width(acre, server, browser, tmp_path, width, height):
    url, _, _ = server
    shot = tmp_path / f"season-{width}.png"
    browser(f"--screenshot={shot}", f"--window-size={width},{height}", "--hide-scrollbars",
            f"{url}/{acre.name}/S1101M.html")
    keep = os.environ.get("CRUSADER_SCREENSHOT_DIR")
    if keep:
        shutil.copy(shot, Path(keep) / f"archive-season-{width}.png")
    image = Image.open(shot).convert("RGB")
    assert image.size == (width, height)
    colours = image.getcolors(maxcolors=1 << 20)
    assert colours is not None and len(colours) > 200, "the screenshot is nearly blank"
    # the map is on screen, across most of the width: unowned land's colour in the left and the right third
    from bot.render import palette

    land = tuple(int(palette.LAND[i:i + 2], 16) for i in (1, 3, 5))
    columns = {x for x in range(0, width, 2) for y in range(0, min(height, 1400), 7)
               if max(abs(a - b) for a, b in zip(image.getpixel((x, y)), land)) < 6}
    assert columns and min(columns) < width / 3 and max(columns) > 2 * width / 3, "no map across the page"
