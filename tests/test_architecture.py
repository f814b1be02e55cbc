"""Imports point one way: bot -> grammar -> adjudicator. The rules engine does no I/O."""

import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
FORBIDDEN = {
    "adjudicator": {"grammar", "bot", "lark", "rapidfuzz", "discord", "sqlmodel", "sqlalchemy", "apscheduler",
                    "aiohttp", "aiosmtpd", "aiosmtplib", "socket", "urllib", "http", "requests", "asyncio",
                    "subprocess", "time", "datetime"},
    "grammar": {"bot", "discord", "sqlmodel", "sqlalchemy", "apscheduler", "aiohttp", "aiosmtpd", "aiosmtplib",
                "socket", "urllib", "http", "requests"},
}


def imported_modules(path: pathlib.Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_package_imports_point_one_way(package):
    files = sorted((ROOT / package).rglob("*.py"))
    assert files, f"no Python files in {package}/"
    offenders = {
        str(f.relative_to(ROOT)): sorted(imported_modules(f) & FORBIDDEN[package])
        for f in files
        if imported_modules(f) & FORBIDDEN[package]
    }
    assert offenders == {}, f"{package}/ must not import these: {offenders}"


def test_the_check_sees_a_forbidden_import(tmp_path):
    sample = tmp_path / "x.py"
    sample.write_text("import discord\nfrom sqlmodel import Field\nfrom . import sibling\n")
    assert imported_modules(sample) & FORBIDDEN["adjudicator"] == {"discord", "sqlmodel"}
