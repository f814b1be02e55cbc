"""Writing the archive site: static HTML pages from the archive, with the templates in the package.

Layout under the site's root::

    index.html                 the games
    <game>/index.html          seasons, supply-centre chart, prestige history
    <game>/<phase>.html        one season: maps before and after, orders, bids (e.g. S1101M.html)
    <game>/<phase>.png         its map before: the orders and their outcomes (the stored picture)
    <game>/<phase>-after.png   the board it left
    <game>/board.png           the board as it stands now
    <game>/press.html          the press between its players, when the game published it at its end
    <game>/game.json           the game's line in the site index, and a line per season

Every file is written atomically (a temporary file renamed over the old one), so a reader never
sees half a page. A season page is written once, when its season is archived (again only if it
is rolled back and adjudicated anew, or relinked when the seasons around it change: its links are
then written anew into the page as it stands, the season not read again). The game's page is made
from the line its summary keeps of each season (:func:`~.model.season_line`), so that
bringing it up to date reads and decodes only the seasons whose own pages are due. A game's page
and its board are written when what they show changes: the game's summary keeps the digest of
what its pages were written from (:func:`site_state`: the game's status, phase, outcome and board,
its players and the versions of its seasons, and the site's own templates and code), so that a
game whose digest is unchanged is not written again, at start-up or when its announcement is delivered twice. The board of a game
is the picture of the board its last season left whenever it is that board (drawn once, and
where the file system makes hard links, the same file under a second name: written once). A whole
game can also be built afresh in a temporary directory that is then renamed into place.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import shutil
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NamedTuple
from collections.abc import Callable, Iterable, Mapping, Sequence

import jinja2
from markupsafe import Markup

from adjudicator.modules import standing_column
from adjudicator.vocab import Phase, Power

from bot.archive.games import GameArchive, link_atomically, temporary_prefix, write_atomically
from bot.codec.documents import position_from_dict, position_to_dict
from bot.codec.jsontext import json_text
from bot.codec.season import Season
from bot.store.names import game_key
from bot.render import DEFAULT_SIZE
from .chart import centre_chart
from .model import GameRecord, SeasonRecord, season_line, season_record, start_line
from .pictures import after_png, before_png, board_png, png_size

SUMMARY = "game.json"
"""The file in each game's directory that the site index is made from."""

_SEASON_FILE = re.compile(r"^[A-Z]\d+[A-Z](\.html|\.png|-after\.png|-before\.svg|-after\.svg)$")
BOARD = "board.png"
PRESS = "press.html"
_OUTCOME_WORDS = {"succeeds": "succeeded", "fails": "failed", "invalid": "invalid"}
_FILE_MODE, _DIR_MODE = 0o644, 0o755
_NAV_START, _NAV_END = b'<header><nav aria-label="site">', b"</nav></header>"
"""Around the links of a page (``base.html.j2``): the first of them in any page, whose title
before it is escaped."""


@functools.cache
def site_format() -> str:
    """A digest of what writes the pages (the templates and this module): pages written by another
    version of them are not current."""
    digest = hashlib.sha256()
    here = Path(__file__).parent
    for path in sorted([*(here / "templates").glob("*"), *here.glob("*.py")]):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def site_state(game: Mapping[str, Any], players: Iterable[Mapping[str, Any]], versions: Iterable[int]) -> str:
    """The digest of what a game's pages show: ``game`` (its ``status``, ``phase``, ``outcome`` and
    ``position``, as :class:`~bot.archive.games.GameArchive` gives them), its ``players`` (their
    ``power``, ``status`` and ``nmr_count``) and the ``versions`` of its seasons. The same for the
    same game, whether read whole or only these columns (:func:`bot.frontends.site.server.game_states`)."""
    text = json.dumps([site_format(), game.get("name"), game.get("status"), game.get("phase"), game.get("outcome"),
                       game.get("position"), [(p.get("power"), p.get("status"), p.get("nmr_count"))
                                              for p in players if p.get("power")], sorted(versions)],
                      sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def archive_state(archive: GameArchive) -> str:
    """:func:`site_state` of a game read whole."""
    return site_state(archive.game, archive.players, (s.version for s in archive.seasons))


def game_slug(name: str) -> str:
    """The directory of a game under the site's root: its key (:func:`bot.store.names.game_key`),
    which no other game has."""
    return game_key(name) or "_"


def _phase_name(text: str | None) -> str:
    if not text:
        return ""
    try:
        return Phase.parse(text).long_name
    except ValueError:
        return text


def outcome_text(outcome: Mapping[str, Any] | None) -> str:
    """How a finished game ended, in words."""
    if not outcome:
        return ""
    if outcome.get("winner"):
        return f"Won by {outcome['winner']}."
    if outcome.get("draw"):
        return "Drawn between " + ", ".join(outcome["draw"]) + "."
    if outcome.get("reason"):
        return f"Ended: {outcome['reason']}"
    return "Ended."


def _when(iso: str | None) -> str:
    try:
        return datetime.fromisoformat(iso).astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC") if iso else ""
    except ValueError:
        return iso or ""


@functools.cache
def environment() -> jinja2.Environment:
    """The Jinja2 environment of the site's templates (``bot/frontends/site/templates/*.html.j2``)."""
    env = jinja2.Environment(loader=jinja2.PackageLoader("bot.frontends.site", "templates"),
                             autoescape=jinja2.select_autoescape(enabled_extensions=("html.j2",)),
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                             auto_reload=False)  # (compiled once: the package's templates do not change under it)
    env.globals.update(phase_name=_phase_name, outcome_word=lambda o: _OUTCOME_WORDS.get(o, o))
    return env


def write_file(path: Path, text: str | bytes) -> None:
    """Write ``text`` (or bytes) to ``path`` atomically, readable by all."""
    write_atomically(path, text, mode=_FILE_MODE)


class _Power(NamedTuple):
    code: Power
    name: str
    colour: str


def _powers(record: GameRecord) -> list[_Power]:
    return [_Power(code, info.name, info.colour) for code, info in record.variant.powers.items()]


def _png_file_size(path: Path) -> tuple[int, int]:
    """Width and height of the PNG file at ``path``, read from its header alone."""
    with path.open("rb") as f:
        return png_size(f.read(24))


def _picture_names(season: SeasonRecord | str) -> tuple[str, str]:
    """The files of a season's two pictures (of a season, or its page's name): the board before
    with the orders, the board after."""
    slug = season if isinstance(season, str) else season.slug
    return f"{slug}.png", f"{slug}-after.png"


SeasonReader = Callable[[Sequence[int]], Iterable[Season]]
"""Reads the seasons of a game stored at the versions given (the versions whose pages are due)."""


def _reader(archive: GameArchive) -> SeasonReader:
    """The seasons of an archive read whole, by version."""
    def read(versions: Sequence[int]) -> list[Season]:
        wanted = set(versions)
        return [s for s in archive.seasons if s.version in wanted]

    return read


def _lines(summary: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The seasons' lines (:func:`~.model.season_line`) a game's summary keeps, oldest first."""
    lines = summary.get("lines")
    return [line for line in lines if isinstance(line, dict)] if isinstance(lines, list) else []


def _neighbours(versions: Sequence[int]) -> dict[int, tuple[int | None, int | None]]:
    """The versions before and after each of ``versions`` (in order), ``None`` at either end."""
    return {v: (versions[i - 1] if i else None, versions[i + 1] if i + 1 < len(versions) else None)
            for i, v in enumerate(versions)}


class SiteWriter:
    """Writes the archive site under ``root``.

    :param root: the site's directory (created when missing).
    :param map_size: width in pixels of the maps on season pages.
    :param clock: gives the time printed at the foot of the index pages.
    """

    def __init__(self, root: Path, *, map_size: int = DEFAULT_SIZE,
                 clock: Callable[[], datetime] = lambda: datetime.now(UTC)) -> None:
        self.root = Path(root)
        self.map_size = map_size
        self.clock = clock
        self.env = environment()
        self._read: dict[str, tuple[tuple[int, int, int], dict[str, Any], str]] = {}  # summaries read, by slug

    # -- pages ------------------------------------------------------------------------------

    def season_page(self, record: GameRecord, season: SeasonRecord, previous: str | None, following: str | None,
                    sizes: tuple[tuple[int, int], tuple[int, int]]) -> str:
        """A season's page; ``previous`` and ``following``, the pages of the seasons before and
        after it (only a page that exists: the season after the last has none until it is
        adjudicated); ``sizes``, the width and height of its two pictures (before, after)."""
        before, after = ({"src": name, "width": w, "height": h}
                         for name, (w, h) in zip(_picture_names(season), sizes))
        return self.env.get_template("season.html.j2").render(
            game_name=record.name, season=season, previous=previous, next=following, before=before, after=after,
            has_prestige=standing_column(season.before) is not None, powers=_powers(record),
            results=[s for s in season.report.sections if s.key != "standings"],
            power_name=season.variant.power_name, written_at=_when(season.adjudicated_at))

    def game_page(self, record: GameRecord, board: tuple[int, int] | None = None) -> str:
        """A game's page; ``board``, the width and height of its picture of the board now, if any."""
        history = record.centre_history()
        powers = _powers(record)

        def row(counts: Mapping[str, int]) -> list[int]:  # (a table's numbers, in the powers' order)
            return [counts.get(p.code, 0) for p in powers]

        players = {p["power"]: p for p in record.players}
        picture = {"src": BOARD, "width": board[0], "height": board[1]} if board else None
        current = record.current
        return self.env.get_template("game_index.html.j2").render(
            game=record, outcome=outcome_text(record.outcome),
            chart=centre_chart(record.variant, history), centre_rows=[(label, row(c)) for label, c in history],
            prestige_rows=[(line["slug"], row(p)) for line, p in record.prestige_history()],
            start_prestige=row(record.start["prestige"] or {}), powers=powers, written_at=self._now(), board=picture,
            current=current, players=players, centres_now=current.center_counts() if current is not None else {},
            units_now={p.code: len(current.units_of(p.code)) if current is not None else 0 for p in powers})

    def press_page(self, record: GameRecord) -> str:
        """The press a game published at its end, by phase (anonymous press stays anonymous)."""
        phases: list[tuple[str, list]] = []
        for line in record.press:
            if not phases or phases[-1][0] != line["phase"]:
                phases.append((line["phase"], []))
            phases[-1][1].append(line)
        return self.env.get_template("press.html.j2").render(
            game=record, phases=phases, phase_name=_phase_name, written_at=self._now(), when=_when)

    def index_page(self, rows: list[str]) -> str:
        """The site's index: the games' rows (each made from its summary by ``game_row.html.j2``)."""
        return self.env.get_template("site_index.html.j2").render(rows=Markup("").join(Markup(r) for r in rows),
                                                                  written_at=self._now())

    def _now(self) -> str:
        return self.clock().astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")

    # -- writing ----------------------------------------------------------------------------

    def write_game(self, archive: GameArchive, *, rewrite: bool = False, index: bool = True,
                   versions: Sequence[int] | None = None, read: SeasonReader | None = None) -> GameRecord:
        """Bring a game's pages up to date from its archive (:func:`bot.archive.games.game_archive`).

        Season pages not yet written are written (all of them with ``rewrite``), and the page of a
        season whose neighbours changed is linked to them again; pages of seasons rolled back since
        are removed; the game's index and (unless ``index`` is false: the caller writes it once
        after several games) the site index are rewritten. Of an archive read without its seasons,
        ``versions`` gives the versions of the seasons stored and ``read`` reads those whose pages
        are due: the game's page is made from the summary's line of every other season.
        """
        if versions is None:
            versions = [s.version for s in archive.seasons]
        state = site_state(archive.game, archive.players, versions)
        folder = self.root / game_slug(archive.game["name"])
        record = self._write_game_into(folder, self._summary(folder), archive, versions, read or _reader(archive),
                                       rewrite=rewrite, state=state)
        if index:
            self.write_index()
        return record

    def update_game(self, archive: GameArchive, state: str, *, versions: Sequence[int], read: SeasonReader,
                    index: bool = True) -> bool:
        """:meth:`write_game` of a game unless its pages are current (:meth:`is_current`), its
        summary read once for both; whether they were written. ``state``: :func:`site_state` of
        ``archive`` with its seasons' ``versions``."""
        folder = self.root / game_slug(archive.game["name"])
        summary = self._summary(folder)
        if self._current(folder, summary, state):
            return False
        self._write_game_into(folder, summary, archive, versions, read, rewrite=False, state=state)
        if index:
            self.write_index()
        return True

    def is_current(self, name: str, state: str) -> bool:
        """Whether the pages of the game ``name`` were written from what has the digest ``state``
        (:func:`site_state`), and are all there."""
        folder = self.root / game_slug(name)
        return self._current(folder, self._summary(folder), state)

    @staticmethod
    def _current(folder: Path, summary: Mapping[str, Any], state: str) -> bool:
        """:meth:`is_current` of the game in ``folder``, whose summary is ``summary``."""
        if summary.get("state") != state or summary.get("format") != site_format():
            return False
        names = [*(f"{line['slug']}.html" for line in _lines(summary)), "index.html",
                 *((BOARD,) if summary.get("board") else ())]
        return all((folder / name).is_file() for name in names)

    def build_game(self, archive: GameArchive) -> GameRecord:
        """Write a game's pages afresh in a temporary directory and rename it into place."""
        slug = game_slug(archive.game["name"])
        self.root.mkdir(parents=True, exist_ok=True)
        target = self.root / slug
        fresh = Path(tempfile.mkdtemp(dir=self.root, prefix=temporary_prefix(slug) + "new-"))
        try:
            os.chmod(fresh, _DIR_MODE)
            record = self._write_game_into(fresh, {}, archive, [s.version for s in archive.seasons], _reader(archive),
                                           rewrite=True, state=archive_state(archive))
            if target.exists():
                old = Path(tempfile.mkdtemp(dir=self.root, prefix=temporary_prefix(slug) + "old-"))
                os.replace(target, old / slug)
                os.replace(fresh, target)
                shutil.rmtree(old, ignore_errors=True)
            else:
                os.replace(fresh, target)
        except BaseException:
            shutil.rmtree(fresh, ignore_errors=True)
            raise
        self.write_index()
        return record

    def _write_game_into(self, folder: Path, summary: Mapping[str, Any], archive: GameArchive, versions: Sequence[int],
                         read: SeasonReader, *, rewrite: bool, state: str) -> GameRecord:
        """Write a game's pages into ``folder``, whose summary is ``summary`` (empty if it has none)."""
        folder.mkdir(parents=True, exist_ok=True)
        present = {entry.name for entry in os.scandir(folder) if entry.is_file()}  # (before this writing)
        if summary.get("format") != site_format() or not isinstance(archive.game.get("position"), Mapping):
            rewrite = True  # written by another version of the pages (or a game without a board: read whole)
        record, known, relinked = self._record(folder, present, summary, archive, sorted(versions), read,
                                               rewrite=rewrite)
        lines, decoded = record.lines, {s.version: s for s in record.seasons}
        last_after: tuple[Path, bytes] | None = None  # the board the last season left, when drawn now, and its file
        for i, line in enumerate(lines):
            previous, following = (lines[i - 1]["slug"] if i > 0 else None,
                                   lines[i + 1]["slug"] if i + 1 < len(lines) else None)
            if line["version"] in relinked:
                head, tail = relinked[line["version"]]
                write_file(folder / f"{line['slug']}.html", head + self._nav(record.name, previous, following) + tail)
                continue
            season = decoded.get(line["version"])
            if season is None:
                continue
            path = folder / f"{season.slug}.html"
            files = [folder / name for name in _picture_names(season)]
            if season.version in known and all(f.name in present for f in files):
                # only its links to the seasons around it are new: its pictures stand as they were
                sizes = tuple(_png_file_size(f) for f in files)
            else:
                # the map before: the picture stored with the season, as Discord and the mail sent it
                pictures = (before_png(record.name, season, size=self.map_size),
                            after_png(record.name, season, size=self.map_size))
                for file, data in zip(files, pictures):
                    write_file(file, data)
                sizes = (png_size(pictures[0]), png_size(pictures[1]))
                if i == len(lines) - 1:
                    last_after = files[1], pictures[1]
            write_file(path, self.season_page(record, season, previous, following, (sizes[0], sizes[1])))
        keep = {name for line in lines for name in (f"{line['slug']}.html", *_picture_names(line["slug"]))}
        for name in present:  # (every season file written now is kept)
            if _SEASON_FILE.match(name) and name not in keep:
                (folder / name).unlink(missing_ok=True)
        if record.press:
            write_file(folder / PRESS, self.press_page(record))
        elif PRESS in present:
            (folder / PRESS).unlink(missing_ok=True)
        board_key = self._board_key(record)
        board_size: tuple[int, int] | None = None
        if board_key is None:
            (folder / BOARD).unlink(missing_ok=True)
        elif not rewrite and summary.get("board") == board_key and BOARD in present:
            board_size = tuple(summary.get("board_size") or ()) or None  # as written: not drawn again
        if board_key is not None and board_size is None:
            # the board a game stands at is, between two seasons, the one its last season left
            board: bytes | None
            if last_after is not None and record.current == record.seasons[-1].after:
                # that file again, under the board's name (its bytes written once)
                file, board = last_after
                if not link_atomically(file, folder / BOARD):
                    write_file(folder / BOARD, board)
            else:
                board = board_png(record, size=self.map_size)
                if board is not None:
                    write_file(folder / BOARD, board)
            if board is not None:
                board_size = png_size(board)
        write_file(folder / "index.html", self.game_page(record, board_size))
        out = {"name": record.name, "slug": game_slug(record.name),
               "variant": record.variant.name, "variant_title": record.variant.title, "status": record.status,
               "phase": record.phase, "phase_name": _phase_name(record.phase), "seasons": len(lines),
               "outcome": outcome_text(record.outcome), "start": record.start, "lines": lines,
               "format": site_format(), "state": state, "board": board_key,
               "board_size": list(board_size) if board_size else None}
        write_file(folder / SUMMARY, json_text(out, pretty=True, sort_keys=True) + "\n")
        return record

    def _record(self, folder: Path, present: set[str], summary: Mapping[str, Any], archive: GameArchive,
                versions: list[int], read: SeasonReader, *,
                rewrite: bool) -> tuple[GameRecord, dict[int, Mapping[str, Any]], dict[int, tuple[bytes, bytes]]]:
        """The game's record, with the seasons whose pages are due read and decoded and the others'
        lines as its ``summary`` keeps them (``present``: the names of the files in ``folder``); the
        lines of the seasons whose pages stand, by version; and the pages of those of them that are
        only to be linked to other seasons around them, by version, cut where their links are
        (:meth:`_links_cut`)."""
        before = [] if rewrite or not isinstance(summary.get("start"), dict) else _lines(summary)
        known = {line["version"]: line for line in before if f"{line['slug']}.html" in present}
        # a season is read for its page when it has none yet (new, or rolled back and adjudicated
        # anew: another version); a season whose neighbours are others now (the last season before
        # a new one links to it) has the links of its page written anew, and is read only if its
        # page is not as this version of the site wrote it (the pages of a summary of another
        # version are all written anew, read: ``before`` is empty then)
        was, now = _neighbours([line["version"] for line in before]), _neighbours(versions)
        slugs = {line["version"]: line["slug"] for line in before}
        relinked: dict[int, tuple[bytes, bytes]] = {}
        for v in versions:
            if v in known and was[v] != now[v]:
                links = [slugs[n] if n is not None else None for n in was[v]]
                cut = self._links_cut(folder, present, known[v]["slug"], archive.game["name"], links[0], links[1])
                if cut is not None:
                    relinked[v] = cut
        due = [v for v in versions if v not in known or (was[v] != now[v] and v not in relinked)]
        seasons = sorted((season_record(s) for s in read(due)), key=lambda s: s.version) if due else []
        decoded = {s.version: s for s in seasons}
        if set(decoded) != set(due):
            raise ValueError(f"seasons {sorted(set(due) - set(decoded))} are no longer stored")  # rolled back since
        game = archive.game
        variant, current = (position_from_dict({k: v for k, v in game["position"].items() if k != "orders"})
                            if isinstance(game.get("position"), Mapping) else (seasons[0].variant, None))
        if versions and versions[0] in decoded:
            start: Mapping[str, Any] = start_line(decoded[versions[0]].before)
        elif versions:
            start = summary["start"]  # (the first season's, unchanged)
        else:
            assert current is not None  # (a game without seasons read has its board)
            start = start_line(current)
        record = GameRecord(
            name=game["name"], variant=variant, status=game.get("status", ""), phase=game.get("phase"),
            outcome=game.get("outcome"), start=start, seasons=tuple(seasons), current=current,
            lines=tuple(season_line(decoded[v]) if v in decoded else known[v] for v in versions),
            players=tuple({"power": p.get("power"), "status": p.get("status", ""), "nmr_count": p.get("nmr_count", 0)}
                          for p in archive.players if p.get("power")),
            press=tuple(archive.press))
        return record, known, relinked

    def _nav(self, name: str, previous: str | None, following: str | None) -> bytes:
        """The links of a season's page (``season_nav.html.j2``), as its page has them."""
        nav = self.env.get_template("season_nav.html.j2").module.season_nav  # type: ignore[attr-defined]
        return str(nav(name, previous, following)).encode("utf-8")

    def _links_cut(self, folder: Path, present: set[str], slug: str, name: str, previous: str | None,
                   following: str | None) -> tuple[bytes, bytes] | None:
        """The page of the season ``slug`` of the game ``name`` as written linked to the seasons
        ``previous`` and ``following``, without those links: what comes before them and after; the
        same page linked to others is the two with their links between. ``None`` when the page or
        one of its pictures is missing, or the page does not have those links where this version
        of the site writes them (the season is then read and its page written whole)."""
        if not all(picture in present for picture in _picture_names(slug)):
            return None
        try:
            page = (folder / f"{slug}.html").read_bytes()
        except OSError:
            return None
        start = page.find(_NAV_START)
        if start < 0:
            return None
        start += len(_NAV_START)
        nav = self._nav(name, previous, following)
        if not page.startswith(nav + _NAV_END, start):
            return None
        return page[:start], page[start + len(nav):]

    def _board_key(self, record: GameRecord) -> str | None:
        """What the board picture is drawn from (``None``: the game has no board to show)."""
        if record.current is None:
            return None
        text = json.dumps([record.name, self.map_size, position_to_dict(record.current, record.variant)],
                          sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:32]

    @staticmethod
    def _summary(folder: Path) -> dict[str, Any]:
        try:
            summary = json.loads((folder / SUMMARY).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return summary if isinstance(summary, dict) else {}

    def games(self) -> list[dict[str, Any]]:
        """The games written under the root, from their summaries, by name."""
        return [summary for summary, _ in self._listing()]

    def _listing(self) -> list[tuple[dict[str, Any], str]]:
        """The games written under the root, by name: each one's summary and its row in the site
        index, both read and made again only when its summary's file has changed since."""
        out, seen = [], {}
        try:
            entries = list(os.scandir(self.root))
        except OSError:
            entries = []
        row = self.env.get_template("game_row.html.j2").module.game_row  # type: ignore[attr-defined]
        for entry in entries:
            if entry.name.startswith("."):
                continue
            path = os.path.join(entry.path, SUMMARY)
            try:
                stat = os.stat(path)
                stamp = (stat.st_ino, stat.st_mtime_ns, stat.st_size)
                kept = self._read.get(entry.name)
                if kept is not None and kept[0] == stamp:
                    summary, html = kept[1], kept[2]
                else:
                    with open(path, encoding="utf-8") as f:
                        summary = json.load(f)
                    summary["slug"] = entry.name
                    html = str(row(summary))
            except (OSError, ValueError, TypeError, jinja2.UndefinedError):
                continue  # not a game's folder, or a summary being written (read on the next call)
            seen[entry.name] = (stamp, summary, html)
            out.append((summary, html))
        self._read = seen
        return sorted(out, key=lambda g: (g[0].get("name", "").lower(), g[0]["slug"]))

    def write_index(self) -> None:
        """Rewrite the site's index from the games under the root."""
        write_file(self.root / "index.html", self.index_page([html for _, html in self._listing()]))
