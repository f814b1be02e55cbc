"""A new game master, from the README and docs/discord.md alone: a fresh virtualenv, `pip install '.[discord]'`,
`crusader serve` against a Discord-compatible server (the test Discord, through the documented
DISCORD_API_BASE and DISCORD_GATEWAY_URL) with the token in DISCORD_TOKEN; the invite URL in the
log; a game created and started from the shell with its players assigned, a deadline set at a time
in the game's time zone; the season adjudicated at that deadline and its results posted in the
game's channel; the next one adjudicated from the shell, which prints the report; a clean stop."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from tests.fakediscord.threaded import FakeDiscordThread

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
POWERS = ("AUS", "ENG", "FRA", "GER", "ITA", "RUS", "TUR")


class Log:
    """A process's standard error, line by line, read in the background."""

    def __init__(self, process: subprocess.Popen) -> None:
        self.lines: list[str] = []
        self.thread = threading.Thread(target=self._read, args=(process,), daemon=True)
        self.thread.start()

    def _read(self, process) -> None:
        for line in process.stderr:
            self.lines.append(line.rstrip("\n"))

    def wait_for(self, pattern: str, timeout: float) -> re.Match:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            for line in list(self.lines):
                match = re.search(pattern, line)
                if match:
                    return match
            time.sleep(0.2)
        raise AssertionError(f"no log line matching {pattern!r} in {timeout}s:\n" + "\n".join(self.lines[-30:]))


def wait_until(check, timeout: float, what: str):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = check()
        if value:
            return value
        time.sleep(0.5)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.timeout(1200)     # its own virtualenv and `pip install .`: minutes on a busy machine, not the suite's 300 s
def test_a_new_game_master_sets_up_connects_and_runs_a_game(tmp_path):
    # "pip install '.[discord]' && crusader serve", in a fresh virtualenv (README, Quick start)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    install = subprocess.run([str(venv / "bin" / "pip"), "install", "-q", f"{ROOT}[discord]"], cwd=tmp_path,
                             capture_output=True, text=True, timeout=1200, check=False)
    assert install.returncode == 0, install.stderr[-3000:]
    crusader = str(venv / "bin" / "crusader")

    discord = FakeDiscordThread()
    server = None
    try:
        fake = discord.fake
        guild = discord.read(lambda: fake.add_guild("Outremer", text_channels=("general", "results")))
        results = discord.read(lambda: fake.text_channel(guild, "results"))
        gm = discord.read(lambda: fake.add_user("gamemaster"))
        players = {power: discord.read(lambda p=power: fake.add_user(f"player-{p.lower()}")) for power in POWERS}
        for user in (gm, *players.values()):
            discord.read(lambda u=user: fake.add_member(guild, u))

        # the settings docs/discord.md names; nothing else but a data directory and free ports
        env = {k: v for k, v in os.environ.items() if not k.startswith(("CRUSADER_", "DISCORD_"))}
        env.update(DISCORD_TOKEN=fake.token, DISCORD_API_BASE=fake.api_base, DISCORD_GATEWAY_URL=fake.gateway_url,
                   CRUSADER_DATA_DIR=str(tmp_path / "data"), CRUSADER_ARCHIVE_PORT=str(free_port()),
                   CRUSADER_MAIL_LISTEN_PORT=str(free_port()), CRUSADER_POLL_INTERVAL="1",
                   CRUSADER_LOG_FORMAT="json",
                   CRUSADER_MAIL_ADDRESS="")  # a game on Discord: no mail relay here, whose absence health would report

        def shell(*args: str, stdin: str | None = None) -> str:
            done = subprocess.run([crusader, *args], cwd=tmp_path, env=env, input=stdin, capture_output=True,
                                  text=True, timeout=120, check=False)
            assert done.returncode == 0, f"crusader {' '.join(args)}: {done.stderr}"
            return done.stdout

        server = subprocess.Popen([crusader, "serve"], cwd=tmp_path, env=env, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, text=True)
        log = Log(server)
        invite = log.wait_for(r"invite the bot to a server with (https://[^\s\"]+)", 120).group(1)
        assert invite == (f"https://discord.com/oauth2/authorize?client_id={fake.application_id}"
                          "&scope=bot+applications.commands&permissions=309237763072")
        log.wait_for(r'"event": "serving"', 60)
        assert "game" in discord.read(fake.commands)  # the slash commands, registered at the first start

        # the game, from the shell, its players assigned
        shell("game", "create", "outremer", "--variant", "standard", "--gm", f"discord:{gm.id}",
              "--timezone", "Asia/Tokyo", "--reminder", "none", "--discord-channel", str(results.id),
              "--discord-server", str(guild.id))
        for power, user in players.items():
            shell("game", "assign", "outremer", f"discord:{user.id}", power)
        started = shell("game", "start", "outremer")
        assert "status active, phase S1901M" in started
        # a deadline at a time in the game's zone (Tokyo), to the second
        deadline = (datetime.now(UTC) + timedelta(hours=3)).replace(microsecond=0)
        local = deadline.astimezone(ZoneInfo("Asia/Tokyo")).strftime("%Y-%m-%d %H:%M:%S")
        status = shell("game", "deadline", "outremer", "--at", local)
        assert f"{deadline:%a %d %b %Y %H:%M} UTC" in status and " JST " in status
        view = json.loads(shell("game", "status", "outremer", "--format", "json"))
        assert datetime.fromisoformat(view["deadline_at"]) == deadline

        # orders: one from the shell, one by DM to the bot
        assert "accepted: A par - bur" in shell("game", "orders", "outremer", "--player",
                                                f"discord:{players['FRA'].id}", stdin="A par - bur\n")
        discord.run(fake.user_sends_dm(players["ENG"], "F lon - nth"))
        reply = discord.run(fake.wait_for_message(players["ENG"]), timeout=90)
        assert "London" in reply["content"] and "North Sea" in reply["content"]

        # the orders in, the game master brings the deadline forward: it passes, the judge
        # adjudicates and posts the results in the game's channel
        shell("game", "deadline", "outremer", "--in", "2s")
        wait_until(lambda: json.loads(shell("game", "status", "outremer", "--format", "json"))["phase"] == "F1901M",
                   120, "the spring adjudicated at its deadline")
        posted = wait_until(lambda: [m for m in discord.read(lambda: fake.bot_messages(results)) if m.get("embeds")],
                            60, "the results posted in the game's channel")
        text = json.dumps(posted)
        assert "Spring 1901" in text and "Burgundy" in text

        # the next season from the shell, whose report is printed
        report = shell("game", "adjudicate", "outremer")
        assert report.startswith("Diplomacy results for Fall 1901 Movement (F1901M) in game 'outremer'\n")
        assert "No orders from:" in report
        wait_until(lambda: "Fall 1901" in json.dumps(discord.read(lambda: fake.bot_messages(results))), 60,
                   "the fall's results posted, adjudicated from the shell while the server runs")

        health = subprocess.run([crusader, "health"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60, check=False)
        assert health.returncode == 0 and "serving (" in health.stdout and "discord" in health.stdout
    finally:
        if server is not None:
            server.send_signal(signal.SIGTERM)
            code = server.wait(timeout=60)
        discord.stop()
    assert code == 0
    events = [json.loads(line) for line in log.lines if line.startswith("{")]
    assert events[-1]["event"] == "stopped"
    assert not [e for e in events if e.get("level") in ("error", "critical")], "ERROR in the log"
    noise = [e["event"] for e in events if re.match(r"(PyNaCl|davey) is not installed|Context impl|Will assume|"
                                                      r"Execution of job", str(e.get("event")))]
    assert not noise
    assert discord.fake.problems() == []
