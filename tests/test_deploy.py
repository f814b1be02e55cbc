"""The deployment files, checked without a container engine: the compose file and the systemd
unit parse and say what they must; the Dockerfile's entry point and paths exist in the project."""

from __future__ import annotations

import configparser
import re
import tomllib
from pathlib import Path

import yaml


ROOT = Path(__file__).resolve().parents[1]
DEPLOY = ROOT / "deploy"


def _dockerfile() -> list[tuple[str, str]]:
    text = (DEPLOY / "Dockerfile").read_text().replace("\\\n", " ")
    return [(m.group(1).upper(), m.group(2).strip()) for m in re.finditer(r"^\s*([A-Za-z]+)\s+(.*)$", text, re.MULTILINE)
            if not m.group(0).lstrip().startswith("#")]


PINNED = re.compile(r"^[a-z0-9./-]+:\d+(\.\d+)+[a-z0-9.-]*@sha256:[0-9a-f]{64}$")
"""An image named by an exact version and the digest of that version's image."""


def test_dockerfile_is_slim_pinned_non_root_and_runs_the_judge():
    instructions = _dockerfile()
    args = dict(arg.split("=", 1) for op, arg in instructions if op == "ARG" and "=" in arg)
    froms = [re.sub(r"\$\{(\w+)\}", lambda m: args[m.group(1)], arg.split()[0]) for op, arg in instructions
             if op == "FROM"]
    assert froms and all("slim" in f and PINNED.match(f) for f in froms), froms
    users = [arg for op, arg in instructions if op == "USER"]
    assert users and users[-1] not in ("root", "0")
    [entry] = [arg for op, arg in instructions if op == "ENTRYPOINT"]
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert entry == '["crusader"]' and "crusader" in scripts
    module, _func = scripts["crusader"].split(":")
    assert (ROOT / (module.replace(".", "/") + ".py")).exists()
    for op, arg in instructions:
        if op == "COPY" and "--from" not in arg:
            for source in arg.split()[:-1]:
                assert (ROOT / source).exists(), f"COPY {source}: not in the project"


def test_compose_runs_the_judge_on_postgres_with_healthchecks_and_volumes():
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    services = compose["services"]
    assert {"postgres", "judge", "migrate"} <= set(services)
    for name in ("postgres", "judge"):
        assert services[name]["healthcheck"]["test"]
    judge = services["judge"]
    assert judge["depends_on"]["postgres"]["condition"] == "service_healthy"
    assert judge["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    assert services["migrate"]["command"] == ["migrate"]
    assert judge["environment"]["CRUSADER_DATABASE_URL"].startswith("postgresql+psycopg://")
    assert "@postgres:5432/" in judge["environment"]["CRUSADER_DATABASE_URL"]
    volumes = set(compose["volumes"])
    assert any(v.split(":")[0] in volumes for v in judge["volumes"])
    assert any(v.split(":")[0] in volumes for v in services["postgres"]["volumes"])
    build = services["migrate"]["build"]
    assert (DEPLOY / build["context"] / build["dockerfile"]).resolve() == (DEPLOY / "Dockerfile").resolve()
    assert judge["healthcheck"]["test"][:2] == ["CMD", "crusader"]
    assert PINNED.match(services["postgres"]["image"]), services["postgres"]["image"]


def test_compose_sets_mail_up_to_reach_the_host_or_leaves_it_off():
    """The listener is published on the host's loopback (where the host's mail server hands the
    judge's mail, as under systemd), the host's mail server is reachable as the relay, and mail is
    off in the image until crusader.env names the judge's address."""
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    judge = compose["services"]["judge"]
    assert judge["environment"]["CRUSADER_MAIL_LISTEN_HOST"] == "0.0.0.0"
    assert "127.0.0.1:2525:2525" in judge["ports"]
    assert "host.docker.internal:host-gateway" in judge["extra_hosts"]
    image_env = dict(m for op, arg in _dockerfile() if op == "ENV" for m in re.findall(r"(\w+)=(\S+)", arg))
    assert image_env["CRUSADER_MAIL_ADDRESS"] == '""'
    assert "CRUSADER_MAIL_ADDRESS" not in judge["environment"]  # so that crusader.env turns it on
    assert "CRUSADER_MAIL_RELAY_HOST=host.docker.internal" in (DEPLOY / "compose.yaml").read_text()
    from bot.frontends.mail.config import MailSettings

    assert MailSettings().listen_port == 2525


def test_systemd_unit_and_its_environment_file():
    unit = configparser.ConfigParser(strict=False, interpolation=None)
    unit.optionxform = str
    unit.read(DEPLOY / "crusader.service")
    service = unit["Service"]
    assert service["ExecStart"].endswith("crusader serve")
    assert service["KillSignal"] == "SIGTERM" and service["User"] != "root"
    assert service["EnvironmentFile"].endswith("crusader.env")
    # the data directory is the one place the unit lets the judge write; mail is off until
    # crusader.env (which overrides Environment=) names the judge's address
    assert service["Environment"].split() == [f"CRUSADER_DATA_DIR={service['ReadWritePaths']}", "CRUSADER_MAIL_ADDRESS="]
    assert service["ReadWritePaths"] == "/var/lib/crusader"
    # the shell command for the judge the unit runs: its user, its settings, its data, its program
    helper = (DEPLOY / "crusader-as-judge").read_text()
    assert f"sudo -u {service['User']} " in helper and f". {service['EnvironmentFile']};" in helper
    assert f"CRUSADER_DATA_DIR={service['ReadWritePaths']} CRUSADER_MAIL_ADDRESS= " in helper
    assert f"exec {service['ExecStart'].removesuffix(' serve')} " in helper
    assert (DEPLOY / "crusader-as-judge").stat().st_mode & 0o111
    assert unit["Install"]["WantedBy"] == "multi-user.target"
    from bot.cli.reference import env_name, models

    known = {env_name(model, field) for _, model in models() for field in model.model_fields}
    lines = [m.group(1) for m in re.finditer(r"^#? ?([A-Z][A-Z0-9_]*)=", (DEPLOY / "crusader.env.example").read_text(),
                                             re.MULTILINE)]
    assert len(lines) >= 8
    unknown = [k for k in lines if k not in known]
    assert not unknown, f"settings the judge does not know: {unknown}"


def test_the_commands_the_deployment_uses_exist():
    from bot.cli.main import build_parser

    parser = build_parser()
    for command in (["serve"], ["migrate"], ["health"]):
        assert parser.parse_args(command).func


def _env_example() -> dict[str, str]:
    """The settings ``crusader.env.example`` sets (lines not commented out)."""
    out = {}
    for line in (DEPLOY / "crusader.env.example").read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            key, _, value = line.partition("=")
            out[key.strip()] = value.strip()
    return out


def test_the_env_example_does_not_undo_what_compose_and_the_image_set():
    """Copied to deploy/crusader.env, the example must leave the container's database URL, address
    and data directory alone (an env_file overrides the image's ENV, so it must not name them)."""
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    judge = compose["services"]["judge"]
    image_env = {}
    for op, arg in _dockerfile():
        if op == "ENV":
            image_env.update(dict(re.findall(r"(\w+)=(\S+)", arg)))
    assert judge["environment"]["CRUSADER_HOST"] == "0.0.0.0" == image_env["CRUSADER_HOST"]
    assert "crusader.env" in str(judge["env_file"])
    example = _env_example()
    for key in set(judge["environment"]) | set(image_env):
        assert key not in example, f"crusader.env.example sets {key}, which the compose file or the image sets"
    # and the systemd recipe turns PostgreSQL on through the socket, as the role deploy/README.md creates
    commented = (DEPLOY / "crusader.env.example").read_text()
    assert "# CRUSADER_DATABASE_URL=postgresql+psycopg://crusader@/crusader?host=/var/run/postgresql" in commented
    recipe = (DEPLOY / "README.md").read_text()
    assert "createuser crusader" in recipe and "createdb --owner crusader crusader" in recipe
    assert "sed -i 's|^# CRUSADER_DATABASE_URL=|CRUSADER_DATABASE_URL=|'" in recipe


def _pins(text: str) -> dict[str, str]:
    """``name -> version`` of the ``name==version`` lines of a requirements file or a list of them."""
    canon = lambda name: re.sub(r"[-_.]+", "-", name).lower()  # noqa: E731
    return {canon(m.group(1)): m.group(2) for m in re.finditer(r"^\s*\"?([A-Za-z0-9][A-Za-z0-9._-]*)"
                                                               r"(?:\[[^\]]*\])?==([^\s\"\\;,]+)", text, re.MULTILINE)}


def test_the_lock_files_hold_the_pinned_direct_dependencies_with_hashes():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    # the image and the systemd recipe install requirements.lock: the judge with PostgreSQL and Discord
    runtime = _pins("\n".join(project["dependencies"] + extras["postgres"] + extras["discord"]))
    test = _pins("\n".join(extras["test"]))
    assert "crusader-judge[postgres,discord]" in extras["test"]
    for lock, wanted in (("requirements.lock", runtime), ("requirements-test.lock", {**runtime, **test})):
        text = (ROOT / lock).read_text()
        locked = _pins(text)
        stale = {name: (version, locked.get(name)) for name, version in wanted.items() if locked.get(name) != version}
        assert not stale, f"{lock} is out of date with pyproject.toml ({stale}); regenerate it as the README says"
        assert all("--hash=sha256:" in block for block in re.split(r"\n(?=[A-Za-z0-9])", text)[1:])


def test_the_image_and_ci_install_the_lock_files():
    steps = [arg for op, arg in _dockerfile() if op == "RUN"]
    assert any("--require-hashes -r requirements.lock" in step for step in steps)
    assert any("--no-deps ." in step for step in steps)
    ci = (ROOT / ".ci" / "run").read_text()
    assert "pip install -q --require-hashes -r requirements-test.lock" in ci
    readme = (ROOT / "README.md").read_text()
    [command] = re.findall(r"```sh\n(pip install -e '\.\[test\]' && python -m pytest[^\n]*)\n```", readme)
    assert command in ci  # CI runs the README's test command
    # ... after the type and lint checks, pinned in the test extra like the rest
    assert ci.index("\nmypy\n") < ci.index(command) and ci.index("\nruff check .\n") < ci.index(command)
    test_extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["test"]
    assert {p.split("==")[0] for p in test_extra} >= {"mypy", "ruff"}


def test_the_licence_is_shipped_with_the_map_data_notice():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["license"] == "MIT" and (ROOT / "LICENSE").read_text().startswith("MIT License")
    assert "adjudicator/variants/LICENSE-*" in project["license-files"]


def test_a_judge_without_postgresql_and_discord_installs_neither():
    """psycopg and discord.py are extras: the judge's own dependencies name neither, and nothing
    the judge imports without them being wanted needs them (a subprocess that cannot import them)."""
    import subprocess
    import sys

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    names = set(_pins("\n".join(project["dependencies"])))
    assert not names & {"psycopg", "psycopg-binary", "discord-py"}
    script = """
import sys
class Missing:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("discord", "psycopg"):
            raise ImportError(f"No module named {name!r}")
sys.meta_path.insert(0, Missing())
from bot.cli.main import main
from bot.app.serve import _front_end_factories
from bot.cli.reference import check
check()
factories = _front_end_factories("auto")
assert len(factories) == 3, factories
class App:
    class settings:
        discord_token = None
assert factories[2](App) is None  # no token: no Discord, and nothing of it imported
assert "discord" not in sys.modules and "psycopg" not in sys.modules
import os
os.environ["DISCORD_TOKEN"] = "x"
try:
    factories[2](App)
except Exception as exc:
    print(exc)
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert "install it with pip install 'crusader-judge[discord]'" in done.stdout
    # and a PostgreSQL URL says what to install, as a setting the judge cannot use
    script = script.split("from bot.cli.main")[0] + """
import os
os.environ["CRUSADER_DATABASE_URL"] = "postgresql://judge@127.0.0.1:1/crusader"
from bot.cli.main import main
raise SystemExit(main(["game", "list"]))
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=120, check=False)
    assert done.returncode == 1 and "install it with pip install 'crusader-judge[postgres]'" in done.stderr, done.stderr
