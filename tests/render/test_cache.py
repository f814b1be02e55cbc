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
variant, position, adjudication = season()
sys.stdout.buffer.write(season_picture(variant, position, adjudication))
"""


def _draw(folder: Path | None) -> bytes:
    result = subprocess.run([sys.executable, "-c", _DRAW, str(folder) if folder else "-"], cwd=ROOT,
                            capture_output=True, timeout=300, check=False)
    assert result.returncode == 0, result.stderr.decode()
    return result.stdout


def test_a_process_that_finds_the_cache_draws_the_same_picture(tmp_path):
    folder = tmp_path / "pictures"
    uncached = _draw(None)
    first = _draw(folder)          # works the layers out and keeps them
    entries = sorted(p.name for p in folder.iterdir())
    assert any(name.startswith("standard-layers-1000-") for name in entries)
    assert folder.stat().st_mode & 0o777 == 0o700
    assert all((folder / name).stat().st_mode & 0o077 == 0 for name in entries)
    second = _draw(folder)         # reads them
    assert uncached == first == second
    assert uncached.startswith(b"\x89PNG")


def test_without_dejavu_sans_a_picture_is_set_in_pillows_own_font(tmp_path):
    draw = _DRAW.replace("from bot.render import cache\n",
                         "from bot.render import cache, fonts\nfonts.FILES = {False: 'none.ttf', True: 'none-bold.ttf'}\n")
    result = subprocess.run([sys.executable, "-c", draw, str(tmp_path / "pictures")], cwd=ROOT, capture_output=True,
                            timeout=300, check=False)
    assert result.returncode == 0, result.stderr.decode()
    assert result.stdout.startswith(b"\x89PNG")
    assert b"DejaVu Sans is not installed" in result.stderr
    assert any("-layers-1000-" in p.name for p in (tmp_path / "pictures").iterdir())


def test_an_entry_is_named_by_what_it_is_made_of(monkeypatch):
    name = cache.entry_name("standard", "layers-1000", "DejaVuSans.ttf", "pillow 13")
    assert name.startswith("standard-layers-1000-")
    assert name != cache.entry_name("standard", "layers-1000", "DejaVuSans.ttf", "pillow 14")
    assert name != cache.entry_name("crusader", "layers-1000", "DejaVuSans.ttf", "pillow 13")
    # a change to the drawing code makes new names
    cache._digest.cache_clear()
    real = Path.read_bytes
    monkeypatch.setattr(Path, "read_bytes", lambda self: real(self) + (b"#" if self.name == "layers.py" else b""))
    try:
        assert cache.entry_name("standard", "layers-1000", "DejaVuSans.ttf", "pillow 13") != name
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
    from bot.render import layers

    monkeypatch.setattr(cache, "FOLDER", tmp_path)
    layers.map_layers.cache_clear()
    try:
        good = layers.map_layers("crusader", 240)
        [name] = [p.name for p in tmp_path.iterdir() if "-layers-240-" in p.name]
        (tmp_path / name).write_bytes(b"\x03\x00\x00\x00 not the layers")
        layers.map_layers.cache_clear()
        again = layers.map_layers("crusader", 240)
        assert again.base.tobytes() == good.base.tobytes() and again.palette.getpalette() == good.palette.getpalette()
        assert (tmp_path / name).read_bytes() != b"\x03\x00\x00\x00 not the layers"   # written again
    finally:
        layers.map_layers.cache_clear()
