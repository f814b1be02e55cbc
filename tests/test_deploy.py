"""The deployment files, checked without a container engine: the compose file and the systemd
unit parse and say what they must; the Dockerfile's entry point and paths exist in the project."""

from __future__ import annotations

import configparser
import re
import tomllib
from pathlib import Path

import yaml

from bot.settings import Settings

ROOT = Path(__file__).resolve().parents[1]
DEPLOY = ROOT / "deploy"


def _dockerfile() -> list[tuple[str, str]]:
    text = (DEPLOY / "Dockerfile").read_text().replace("\\\n", " ")
    return [(m.group(1).upper(), m.group(2).strip()) for m in re.finditer(r"^\s*([A-Za-z]+)\s+(.*)$", text, re.M)
            if not m.group(0).lstrip().startswith("#")]


def test_dockerfile_is_slim_non_root_and_runs_the_judge():
    instructions = _dockerfile()
    froms = [arg for op, arg in instructions if op == "FROM"]
    assert froms and all("slim" in f for f in froms)
    users = [arg for op, arg in instructions if op == "USER"]
    assert users and users[-1] not in ("root", "0")
    [entry] = [arg for op, arg in instructions if op == "ENTRYPOINT"]
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert entry == '["crusader"]' and "crusader" in scripts
    module, func = scripts["crusader"].split(":")
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


def test_systemd_unit_and_its_environment_file():
    unit = configparser.ConfigParser(strict=False, interpolation=None)
    unit.optionxform = str
    unit.read(DEPLOY / "crusader.service")
    service = unit["Service"]
    assert service["ExecStart"].endswith("crusader serve")
    assert service["KillSignal"] == "SIGTERM" and service["User"] != "root"
    assert service["EnvironmentFile"].endswith("crusader.env")
    assert unit["Install"]["WantedBy"] == "multi-user.target"
    known = {f"CRUSADER_{name.upper()}" for name in Settings.model_fields} | {"DISCORD_TOKEN"}
    lines = [ln.lstrip("# ").split("=", 1)[0] for ln in (DEPLOY / "crusader.env.example").read_text().splitlines()
             if "=" in ln]
    unknown = [k for k in lines if k not in known]
    assert not unknown, f"settings the judge does not know: {unknown}"


def test_the_commands_the_deployment_uses_exist():
    from bot.cli import build_parser

    parser = build_parser()
    for command in (["serve"], ["migrate"], ["health"]):
        assert parser.parse_args(command).func
