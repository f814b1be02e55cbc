"""What an operator meets setting the judge up: a mistake in a setting is exit 1 with a sentence that
names the setting (never "internal error"), every setting has one reference generated from the
models, `serve --help` names the ports and addresses, the logs carry no routine noise."""

from __future__ import annotations

import logging
import os
import socket
from pathlib import Path

import pytest

from bot.app.logging import configure
from bot.cli.common import Exit
from bot.cli.main import main
from bot.cli.reference import reference

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def env(monkeypatch, tmp_path):
    """A clean environment: no setting of the judge's but a data directory in ``tmp_path``."""
    for key in list(os.environ):
        if key.startswith(("CRUSADER_", "DISCORD_")):
            monkeypatch.delenv(key)
    monkeypatch.setenv("CRUSADER_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("CRUSADER_LOG_FORMAT", "json")
    return monkeypatch


def run(capsys, *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().err


@pytest.mark.parametrize("variable, value, words", [
    ("CRUSADER_DATABASE_URL", "postgresql+psycopg://nobody@127.0.0.1:1/none",
     "does not answer: connection failed"),
    ("CRUSADER_DATABASE_URL", "oracle+nothing://x/y", "is not one the judge can use"),
    ("CRUSADER_ARCHIVE_PORT", "eighty", "CRUSADER_ARCHIVE_PORT: Input should be a valid integer"),
    ("CRUSADER_LOG_LEVEL", "LOUD", "CRUSADER_LOG_LEVEL must be DEBUG, INFO, WARNING or ERROR"),
])
def test_a_bad_setting_is_exit_1_naming_it(env, capsys, variable, value, words):
    env.setenv(variable, value)
    for argv in (["game", "list"], ["serve"]):
        code, err = run(capsys, *argv)
        assert code == Exit.FAILED, err
        assert words in err and variable in err and "internal error" not in err
        assert err.count("\n") == 1  # one sentence, no traceback


def test_a_data_directory_that_cannot_be_made(env, capsys, tmp_path):
    (tmp_path / "afile").write_text("")
    env.setenv("CRUSADER_DATA_DIR", str(tmp_path / "afile"))
    code, err = run(capsys, "game", "create", "g", "--gm", "gm")
    assert code == Exit.FAILED and "is a file, not a directory; set CRUSADER_DATA_DIR" in err
    env.setenv("CRUSADER_DATA_DIR", str(tmp_path / "data"))
    env.setenv("CRUSADER_ANNOUNCE_JSONL", str(tmp_path / "afile" / "announcements.jsonl"))
    code, err = run(capsys, "serve")
    assert code == Exit.FAILED and "set CRUSADER_ANNOUNCE_JSONL" in err


def test_a_port_in_use_is_exit_1_naming_the_port_setting(env, capsys):
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    port = taken.getsockname()[1]
    try:
        env.setenv("CRUSADER_FRONT_ENDS", "site")
        env.setenv("CRUSADER_ARCHIVE_PORT", str(port))
        code, err = run(capsys, "serve")
        assert code == Exit.FAILED
        assert f"the archive site cannot listen on 127.0.0.1:{port}: the port is in use" in err
        assert "set CRUSADER_ARCHIVE_PORT to a free port" in err
        env.setenv("CRUSADER_FRONT_ENDS", "mail")
        env.setenv("CRUSADER_MAIL_LISTEN_PORT", str(port))
        code, err = run(capsys, "serve")
        assert code == Exit.FAILED and "set CRUSADER_MAIL_LISTEN_PORT to a free port" in err
    finally:
        taken.close()


def test_health_names_the_database_setting(env, capsys):
    env.setenv("CRUSADER_DATABASE_URL", "postgresql+psycopg://nobody@127.0.0.1:1/none")
    code, err = run(capsys, "health")
    assert code == Exit.FAILED and err.startswith("crusader: unhealthy: the database at") and "CRUSADER_DATABASE_URL" in err
    env.delenv("CRUSADER_DATABASE_URL")
    assert main(["migrate"]) == Exit.OK
    capsys.readouterr()
    assert main(["health"]) == Exit.OK
    assert "no crusader serve runs on this data directory" in capsys.readouterr().out


def test_the_settings_reference_is_the_models_own():
    committed = (ROOT / "docs" / "settings.md").read_text(encoding="utf-8")
    assert committed == reference(), "docs/settings.md is out of date: crusader settings --reference > docs/settings.md"
    from bot.app.settings import Settings
    from bot.frontends.discord.config import DiscordSettings
    from bot.frontends.mail.config import MailSettings

    for model in (Settings, MailSettings, DiscordSettings):
        for field in model.model_fields:
            assert f"`{model.model_config['env_prefix']}{field}`".upper() in committed.upper()


def test_settings_in_effect_hide_secrets(env, capsys):
    env.setenv("DISCORD_TOKEN", "very-secret")
    env.setenv("CRUSADER_ARCHIVE_PORT", "8181")
    assert main(["settings"]) == Exit.OK
    out = capsys.readouterr().out
    assert "* CRUSADER_ARCHIVE_PORT=8181" in out and "* DISCORD_TOKEN=(set, hidden)" in out
    assert "very-secret" not in out


def test_serve_help_names_the_variables_of_its_ports_and_addresses(capsys):
    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    out = capsys.readouterr().out
    for variable in ("CRUSADER_HOST", "CRUSADER_ARCHIVE_HOST", "CRUSADER_ARCHIVE_PORT", "CRUSADER_MAIL_LISTEN_HOST",
                     "CRUSADER_MAIL_LISTEN_PORT", "CRUSADER_DATABASE_URL", "DISCORD_API_BASE"):
        assert variable in out


def test_version(capsys):
    from importlib.metadata import version

    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0 and capsys.readouterr().out == f"crusader {version('crusader-judge')}\n"


def test_routine_library_lines_stay_out_of_the_log(capfd):
    configure("INFO", "json")
    logging.getLogger("discord.client").warning("PyNaCl is not installed, voice will NOT be supported")
    logging.getLogger("discord.client").warning("davey is not installed, voice will NOT be supported")
    logging.getLogger("alembic.runtime.migration").info("Context impl SQLiteImpl.")
    logging.getLogger("alembic.runtime.migration").info("Running upgrade 0001 -> 0002, pictures")
    logging.getLogger("apscheduler.scheduler").warning(
        'Execution of job "poll" skipped: maximum number of running instances reached (1)')
    logging.getLogger("discord.client").warning("something else")
    err = capfd.readouterr().err
    assert "voice" not in err and "Context impl" not in err and "skipped" not in err
    assert "Running upgrade" in err and "something else" in err
    configure("DEBUG", "json")
    logging.getLogger("discord.client").warning("PyNaCl is not installed, voice will NOT be supported")
    assert "PyNaCl" in capfd.readouterr().err


def test_a_machine_that_cannot_draw_the_map_says_so_once_at_start(env, monkeypatch, tmp_path):
    """Without the picture libraries the judge runs, warns once at start naming what to do, and
    stores its seasons without pictures (no warning and traceback per season)."""
    import sys

    from structlog.testing import capture_logs

    from bot.app.serve import build_app
    from bot.app.settings import Settings

    monkeypatch.setitem(sys.modules, "aggdraw", None)  # as if aggdraw could not be installed
    with capture_logs() as logs:
        app = build_app(Settings())
    [warning] = [e for e in logs if e["log_level"] == "warning"]
    assert warning["event"].startswith("map pictures cannot be drawn: the picture libraries do not load")
    assert "pip install --require-hashes -r requirements.lock" in warning["event"]
    assert app.service.context.pictures is False
    app.db.dispose()


def test_one_judge_per_user_found_from_any_directory_and_reading_never_makes_one(env, capsys, tmp_path, monkeypatch):
    """With no data directory set, every command uses the user's own (the same from any directory);
    a command that reads finds no database where there is none, says where it looked and makes
    nothing; only making a game makes one, and says so; a game not found names the database."""
    env.delenv("CRUSADER_DATA_DIR")
    env.setenv("XDG_DATA_HOME", str(tmp_path / "share"))
    mine = tmp_path / "share" / "crusader-judge"
    for argv in (["game", "list"], ["game", "status", "g"], ["game", "export", "g"], ["mail", "list", "g"],
                 ["archive", "build", "g", str(tmp_path / "site")], ["health"], ["game", "start", "g"]):
        code, err = run(capsys, *argv)
        assert code == Exit.FAILED, (argv, err)
        assert (f"there is no judge database at {mine / 'crusader.db'} (nothing was made there); set "
                "CRUSADER_DATA_DIR (or --data-dir") in err, (argv, err)
        assert not mine.exists() and not (tmp_path / "site").exists()
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    monkeypatch.chdir(tmp_path / "a")
    code, err = run(capsys, "game", "create", "found", "--gm", "gm")
    assert code == Exit.OK and err.startswith(f"crusader: made a new judge database at {mine / 'crusader.db'}")
    monkeypatch.chdir(tmp_path / "b")
    assert main(["game", "list"]) == Exit.OK
    assert capsys.readouterr().out.startswith("found ")
    code, err = run(capsys, "game", "status", "lost")
    assert code == Exit.BAD_INPUT
    assert err == f"crusader: no game 'lost' in the judge's database {mine / 'crusader.db'}; games there: found\n"
    # a ./data an older judge left here is pointed out, not used
    (tmp_path / "b" / "data").mkdir()
    (tmp_path / "b" / "data" / "crusader.db").write_bytes(b"")
    code, err = run(capsys, "game", "list")
    assert code == Exit.OK and (f"crusader: note: {tmp_path / 'b' / 'data'} holds a judge's database, but this "
                                f"command uses {mine} (the default); set CRUSADER_DATA_DIR=") in err


def test_the_game_masters_settings_draws_and_concessions_from_the_shell(env, capsys):
    assert main(["game", "create", "g", "--variant", "classic", "--gm", "gm", "--reminder", "none"]) == Exit.OK
    for power, player in (("ENG", "ed"), ("FRA", "flo")):
        assert main(["game", "join", "g", player, "--power", power]) == Exit.OK
    assert main(["game", "start", "g", "--fill-civil-disorder"]) == Exit.OK
    capsys.readouterr()
    assert main(["game", "set", "g", "--movement", "36h", "--reminder", "12h", "--reminder", "1h", "--no-early",
                 "--timezone", "Europe/Paris"]) == Exit.OK
    out = capsys.readouterr().out
    assert out.startswith("g: changed movement phases, reminders before the deadline, time zone (announced to the "
                          "players; from the next deadline)\n")
    assert "  movement phases: 1d12h\n" in out and "  reminders before the deadline: 12h, 1h (" in out
    assert main(["game", "status", "g"]) == Exit.OK
    out = capsys.readouterr().out
    assert "(standard)" in out and "  settings:\n" in out and "    time zone: Europe/Paris\n" in out
    assert " CET (" in out or " CEST (" in out  # the deadline in the game's zone, UTC after
    code, err = run(capsys, "game", "set", "g")
    assert code == Exit.BAD_INPUT and "say what to change" in err
    code, err = run(capsys, "game", "set", "g", "--movement", "10")
    assert code == Exit.BAD_INPUT and "--movement needs a unit" in err
    assert main(["game", "set", "g", "--early"]) == Exit.OK
    capsys.readouterr()
    assert main(["game", "ready", "g", "--player", "ed"]) == Exit.OK
    assert capsys.readouterr().out == "ENG's orders for S1901M in 'g' are final\n  not ready yet: FRA\n"
    assert main(["game", "ready", "g", "--player", "flo"]) == Exit.OK
    assert "every power was ready: S1901M has been adjudicated; the game is at F1901M" in capsys.readouterr().out
    assert main(["game", "draw", "g", "--player", "ed"]) == Exit.OK
    assert "ed (ENG) votes for a draw in 'g'\n  for a draw: ENG (of ENG, FRA)\n" == capsys.readouterr().out
    assert main(["game", "concede", "g", "--player", "flo", "--to", "eng"]) == Exit.OK
    out = capsys.readouterr().out
    assert out == "flo (FRA) concedes the game to ENG in 'g'\nThe game is over: FRA conceded it to ENG, who has won.\n"
    code, err = run(capsys, "game", "draw", "g", "--player", "ed")
    assert code == Exit.FAILED and "game 'g' is ended" in err
