"""What every picture of a variant shares is kept on disk between processes (bot/render/cache.py):
a process that finds it draws the very same picture, and a folder others may write to is never
read."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.render import cache

ROOT = Path(__file__).resolve().parents[2]

_DRAW = """
import sys, time
from bot.render import cache
from pathlib import Path
cache.FOLDER = Path(sys.argv[1]) if sys.argv[1] != "-" else None
from benchmarks.bench_render import season
from bot.render.season import season_picture
variant, position, results = season()
sys.stdout.buffer.write(season_picture(variant, position, results))
"""


def _draw(folder: Path | None) -> bytes:
    result = subprocess.run([sys.executable, "-c", _DRAW, str(folder) if folder else "-"], cwd=ROOT,
                            capture_output=True, timeout=300)
    assert result.returncode == 0, result.stderr.decode()
    return result.stdout


def test_a_process_that_finds_the_cache_draws_the_same_picture(tmp_path):
    folder = tmp_path / "pictures"
    uncached = _draw(None)
    first = _draw(folder)          # works the layers out and keeps them
    entries = sorted(p.name for p in folder.iterdir())
    assert any(name.startswith("standard-base-") for name in entries)
    assert any(name.startswith("standard-layers-1000-") for name in entries)
    assert folder.stat().st_mode & 0o777 == 0o700
    assert all((folder / name).stat().st_mode & 0o077 == 0 for name in entries)
    second = _draw(folder)         # reads them
    assert uncached == first == second
    assert uncached.startswith(b"\x89PNG")


def test_an_entry_is_named_by_what_it_is_made_of(monkeypatch):
    name = cache.entry_name("standard", "layers-1000", "cairo 1", "cairosvg 2")
    assert name.startswith("standard-layers-1000-")
    assert name != cache.entry_name("standard", "layers-1000", "cairo 1", "cairosvg 3")
    assert name != cache.entry_name("crusader", "layers-1000", "cairo 1", "cairosvg 2")
    # a change to the drawing code makes new names
    cache._digest.cache_clear()
    real = Path.read_bytes
    monkeypatch.setattr(Path, "read_bytes", lambda self: real(self) + (b"#" if self.name == "svg.py" else b""))
    try:
        assert cache.entry_name("standard", "layers-1000", "cairo 1", "cairosvg 2") != name
    finally:
        monkeypatch.undo()
        cache._digest.cache_clear()


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="file ownership is a POSIX notion")
def test_a_folder_others_may_write_to_is_not_read(tmp_path, monkeypatch):
    folder = tmp_path / "pictures"
    monkeypatch.setattr(cache, "FOLDER", folder)
    cache.store("entry", b"kept")
    assert cache.load("entry") == b"kept"
    folder.chmod(0o777)
    assert cache.load("entry") is None
    cache.store("other", b"not kept")
    assert not (folder / "other").exists()
    folder.chmod(0o700)
    monkeypatch.setattr(cache, "FOLDER", None)
    assert cache.load("entry") is None


def test_a_damaged_entry_is_worked_out_afresh(tmp_path, monkeypatch):
    from bot.render import png

    monkeypatch.setattr(cache, "FOLDER", tmp_path)
    png._still_layers.cache_clear()
    try:
        good = png._still_layers("crusader", 120)
        [name] = [p.name for p in tmp_path.iterdir() if "-layers-120-" in p.name]
        (tmp_path / name).write_bytes(b"\x03\x00\x00\x00 not the layers")
        png._still_layers.cache_clear()
        again = png._still_layers("crusader", 120)
        assert [bytes(s.get_data()) for s in again] == [bytes(s.get_data()) for s in good]
    finally:
        png._still_layers.cache_clear()
