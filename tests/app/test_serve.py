"""``crusader serve`` as an operator runs it: no configuration but a data directory, a game
created from the shell, the deadline passes, the judge adjudicates; SIGTERM stops it cleanly."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bot.app.settings import Settings
from bot.service import GameService
from bot.store.database import Database

ROOT = Path(__file__).resolve().parents[2]


def test_settings_default_to_sqlite_under_the_data_directory(tmp_path, monkeypatch):
    for key in list(os.environ):
        if key.startswith("CRUSADER_"):
            monkeypatch.delenv(key)
    # the user's own data directory, the same from any directory
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    mine = tmp_path / "home" / ".local" / "share" / "crusader-judge"
    for where in (tmp_path, ROOT):
        monkeypatch.chdir(where)
        assert Settings().url == f"sqlite:///{mine / 'crusader.db'}" and Settings().data_dir == mine
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert Settings().data_dir == tmp_path / "xdg" / "crusader-judge"
    # CRUSADER_DATA_DIR, relative to where the command runs and kept absolute
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CRUSADER_DATA_DIR", "judge")
    assert Settings().data_dir == tmp_path / "judge"
    monkeypatch.setenv("CRUSADER_DATA_DIR", str(tmp_path))
    assert Settings().url == f"sqlite:///{tmp_path / 'crusader.db'}"
    monkeypatch.setenv("CRUSADER_DATABASE_URL", "postgresql://judge@db/crusader")
    assert Settings().url == "postgresql+psycopg://judge@db/crusader"


@pytest.mark.slow
def test_serve_adjudicates_at_the_deadline_and_stops_on_sigterm(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CRUSADER_", "DISCORD_"))}
    env.update(CRUSADER_DATA_DIR=str(tmp_path / "data"), CRUSADER_LOG_FORMAT="json", CRUSADER_POLL_INTERVAL="1",
               CRUSADER_FRONT_ENDS="none")
    shell = [sys.executable, "-m", "bot.cli", "game"]
    def run(*args):
        return subprocess.run([*shell, *args], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    run("create", "quick", "--variant", "standard", "--gm", "gm", "--reminder", "none")
    run("join", "quick", "ed", "--power", "ENG")
    run("start", "quick", "--fill-civil-disorder")
    run("deadline", "quick", "--in", "3s")
    subprocess.run([*shell, "orders", "quick", "--player", "ed"], input="F lon - nth\n", cwd=ROOT, env=env,
                   capture_output=True, text=True, check=True)
    log = (tmp_path / "serve.log").open("wb")
    server = subprocess.Popen([sys.executable, "-m", "bot.cli", "serve"], cwd=ROOT, env=env, stdout=log,
                              stderr=subprocess.STDOUT)
    try:
        db = Database(f"sqlite:///{tmp_path / 'data' / 'crusader.db'}")
        service = GameService(db)
        deadline = time.monotonic() + 60
        while service.status("quick").version == 0 and time.monotonic() < deadline:
            time.sleep(0.3)
        assert service.status("quick").phase == "F1901M"
        while b'"kind": "results"' not in (tmp_path / "serve.log").read_bytes() and time.monotonic() < deadline + 60:
            time.sleep(0.3)     # the results announced (the log notifier's line)
    finally:
        server.send_signal(signal.SIGTERM)
        code = server.wait(timeout=30)
    lines = (tmp_path / "serve.log").read_text().splitlines()
    events = [json.loads(line) for line in lines]  # every line is a JSON object, libraries' lines too
    assert code == 0
    # the schema was migrated by the shell: no line from Alembic at all, not even its routine ones
    assert not any(e.get("logger", "").startswith("alembic") for e in events)
    assert not [e for e in events if e["level"] in ("error", "critical")]
    names = [e["event"] for e in events]
    assert "serving" in names and names[-1] == "stopped"
    serving = next(e for e in events if e["event"] == "serving")
    assert serving["frozen_objects"] > 10_000  # start-up's objects are kept out of the collector's way
    assert any(e["event"] == "announcement" and e["kind"] == "results" for e in events)
    assert (tmp_path / "data" / "archive" / "quick" / "0000-S1901M.txt").exists()
    db.dispose()


def test_the_record_of_a_season_waits_for_the_players_deliveries(tmp_path):
    """What ``crusader serve`` registers: the log's line, the archive's files and the archive
    site are background deliveries (made once every result due is posted and mailed); the
    players' mail and the Discord posts are not."""
    from bot.app.serve import build_app
    from bot.frontends import site
    from bot.frontends.discord.notifier import DiscordNotifier
    from bot.frontends.mail.notifier import MailNotifier

    app = build_app(Settings(data_dir=tmp_path / "data", archive_port=8999))
    assert site.create_front_end(app) is not None
    assert {n.name for n in app.dispatcher.notifiers} == {"log", "archive", "site"}
    assert app.dispatcher.background == {"log", "archive", "site"}
    assert not hasattr(MailNotifier, "background") and not hasattr(DiscordNotifier, "background")
    app.db.dispose()


def test_once_started_the_youngest_objects_are_collected_after_ten_thousand():
    """A started server freezes what start-up made and collects its youngest objects less often
    than Python does by default (:func:`bot.app.serve.settle_heap`): at 700 a phase closing cost
    two collections, some of them walking the whole heap."""
    import gc

    from bot.app.serve import YOUNG_COLLECTED_AFTER, settle_heap

    before = gc.get_threshold()
    try:
        gc.set_threshold(700, 10, 10)
        assert settle_heap() > 0
        assert gc.get_threshold() == (YOUNG_COLLECTED_AFTER, 10, 10) and YOUNG_COLLECTED_AFTER > 700
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)
