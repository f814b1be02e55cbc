"""What every picture of a variant shares, kept on disk so that a new process draws its first
picture without working it out again: the map's fixed places (:func:`bot.render.geometry.places_for`)
and its layers, sprites and palette as pixels (:func:`bot.render.layers.map_layers`).

An entry's name carries a digest of everything it is made from: the variant's map file and
drawn map, the source of :mod:`bot.render`, the picture size, the Python version, the font and
Pillow's and aggdraw's versions. A change to any of them makes new entries; old ones are never read again. The folder
is the user's cache (``$XDG_CACHE_HOME/crusader-judge/pictures``, by default
``~/.cache/crusader-judge/pictures``), made readable by its owner alone; an entry is read only
from a folder of the user's own that nobody else may write to. When the folder cannot be used,
nothing is kept and every process works the layers out afresh (the pictures are the same).
"""

from __future__ import annotations

import functools
import hashlib
import logging
import os
import stat
import sys
import tempfile
from importlib import resources
from pathlib import Path

log = logging.getLogger("crusader.render")

_SOURCES = ("cache.py", "facts.py", "fonts.py", "geometry.py", "labels.py", "layers.py", "layout.py", "legend.py",
            "palette.py", "raster.py", "scene.py", "sprites.py", "strokes.py")


def _default_folder() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "crusader-judge" / "pictures"


FOLDER: Path | None = _default_folder()
"""Where the entries are kept; ``None``: nowhere (tests set it)."""


@functools.cache
def _digest(variant_name: str) -> str:
    from adjudicator.drawn import drawn_map_text
    from adjudicator.variant import VARIANT_FILES, get_variant

    name = get_variant(variant_name).name
    h = hashlib.sha256()
    h.update(resources.files("adjudicator.variants").joinpath(VARIANT_FILES[name]).read_bytes())
    h.update(drawn_map_text(name).encode("utf-8"))
    here = Path(__file__).resolve().parent
    for source in _SOURCES:
        h.update((here / source).read_bytes())
    h.update(sys.version.encode())
    return h.hexdigest()[:24]


def entry_name(variant_name: str, what: str, *versions: str) -> str:
    """The file name of an entry: the variant, what it holds, and the digest (with ``versions``:
    those of the libraries that made it)."""
    digest = _digest(variant_name)
    if versions:
        digest = hashlib.sha256((digest + "\n".join(versions)).encode()).hexdigest()[:24]
    return f"{variant_name}-{what}-{digest}"


def _usable(folder: Path) -> bool:
    """The folder is the user's own and nobody else may write to it."""
    try:
        info = folder.stat()
    except OSError:
        return False
    owner = os.getuid() if hasattr(os, "getuid") else info.st_uid
    return stat.S_ISDIR(info.st_mode) and info.st_uid == owner and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def load(name: str) -> bytes | None:
    """The entry ``name``, or ``None`` when there is none (or the folder is not safe to read)."""
    folder = FOLDER
    if folder is None or not _usable(folder):
        return None
    try:
        return (folder / name).read_bytes()
    except OSError:
        return None


def store(name: str, data: bytes) -> None:
    """Keep ``data`` as the entry ``name`` (written whole or not at all); a folder that cannot be
    written is left alone."""
    folder = FOLDER
    if folder is None:
        return
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        if not _usable(folder):
            return
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{name}.")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, folder / name)
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError as exc:
        log.debug("picture cache not written: %s", exc)
