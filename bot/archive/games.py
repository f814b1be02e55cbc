"""Archives: a season report in the e-mail judges' style, a whole game as one JSON file, and
``verify``, which re-adjudicates every season of an export and says whether it comes out the same.

The archive of a season is: the position it started from, every order as written and as
understood, every result with its reason, the prestige ledger (in the result's events), the seed.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import socket
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any
from collections.abc import Mapping

from adjudicator.results import Adjudication
from adjudicator.orders import canonical
from adjudicator.variant import get_variant
from adjudicator.vocab import Phase

from bot.codec.documents import read_orders
from bot.codec.jsontext import json_text
from bot.service.report import report_of, report_text
from bot.codec.season import (Season, season_columns, season_document, season_from_document, season_from_row,
                              with_phrases)
from bot.store import database
from bot.store.database import Database
from bot.store.names import check_game_name, game_key, name_taken
from bot.store.outbox import DELIVERED, Announcement, Delivery, Outcome
from bot.store.rows import ActionRow, GameRow, GameStatus, OrderRow, PlayerRow, SeasonRow, SubmissionRow, TimerRow
from bot.codec.values import order_from_json, order_to_json
from bot.service.errors import InputError, NoSuchGameError, ServiceError
from bot.service.press import published
from adjudicator.variant import Variant

if TYPE_CHECKING:
    from sqlmodel import Session

    from bot.service import GameService

EXPORT_FORMAT = "crusader-game"
EXPORT_VERSION = 1


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment else None


def _time(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text) if text else None


def _at(text: str) -> datetime:
    """A time every export gives (when a game was created, a player joined, an order was given)."""
    return datetime.fromisoformat(text)


# -- the text of a season ---------------------------------------------------------------------


def season_report(game: str, season: Season) -> str:
    """One season as the e-mail judges print it: orders with results, then the board after."""
    report = report_of(season, title=f"Game '{game}', {season.phase.long_name} ({season.phase}): results")
    out = [report_text(report).rstrip("\n")]
    after = season.after
    units: dict[str, list[str]] = {}
    for unit in after.units:
        units.setdefault(unit.power, []).append(unit.short)
    out += ["", "Units after the phase:"]
    out += [f"  {power}: {', '.join(sorted(us))}" for power, us in sorted(units.items())]
    start = season.variant.starting_owners
    changed = sorted((p, o) for p, o in after.supply_centers.items() if start.get(p) != o)
    if changed:
        out += ["", "Supply centres changed from the start:"]
        out += [f"  {prov}: {owner}" for prov, owner in changed]
    out += ["", f"Seed: {season.seed}", ""]
    return "\n".join(out)


def temporary_prefix(name: str) -> str:
    """The start of the name of a temporary file or directory made for ``name``: a dot (never
    a page or an archive file), and who made it (this host and process), so that
    :func:`sweep_temporary` knows a leftover of a process that died from one in use."""
    return f".{name}.{TEMPORARY}{_HOST}{TEMPORARY}{os.getpid()}{TEMPORARY}"


TEMPORARY = "~tmp~"
_HOST = "".join(c for c in socket.gethostname() if c.isalnum())[:40] or "host"
ABANDONED = 3600  # seconds after which a temporary file of another host is taken as left behind


def write_atomically(path: Path, text: str | bytes, *, mode: int = 0o644) -> None:
    """Write ``text`` (UTF-8; or bytes as they are) to ``path`` atomically (a temporary file
    beside it, then a rename): a reader sees the old file or the new one, never half of one. Its
    folder is made when missing (looked for only then: most files are written where others are)."""
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=temporary_prefix(path.name))
    except FileNotFoundError:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=temporary_prefix(path.name))
    try:
        with os.fdopen(fd, "wb") as f:
            os.fchmod(f.fileno(), mode)
            f.write(text if isinstance(text, bytes) else text.encode("utf-8"))
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def link_atomically(source: Path, path: Path) -> bool:
    """Make ``path`` a second name of the file ``source`` (a hard link made under a temporary
    name, then renamed over ``path``): a reader sees the old file or the new one, and the bytes,
    written once, are not written again. False, with nothing changed, where the file system
    makes no hard links (the caller writes the bytes instead)."""
    for _ in range(10):
        tmp = path.parent / (temporary_prefix(path.name) + os.urandom(6).hex())
        try:
            os.link(source, tmp)
        except FileExistsError:
            continue
        except OSError:
            return False
        try:
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
        return True
    return False


def sweep_temporary(root: Path) -> int:
    """Remove the temporary files and directories that processes killed while writing left in
    ``root`` and the folders under it (a process of this host that no longer runs, or any after
    an hour); put back a folder that was set aside to be replaced (``.<name>.old-...``) when a
    kill left its place empty. How many were removed."""
    removed = 0
    if not root.is_dir():
        return 0
    for folder in [root, *(d for d in root.iterdir() if d.is_dir() and not d.name.startswith("."))]:
        for entry in list(folder.iterdir()):
            if not entry.name.startswith(".") or TEMPORARY not in entry.name or not _abandoned(entry):
                continue
            tail = entry.name.split(TEMPORARY, 3)[-1]
            name = entry.name[1:].split("." + TEMPORARY, 1)[0] if tail.startswith("old-") else None
            if name and (entry / name).is_dir() and not (folder / name).exists():
                os.replace(entry / name, folder / name)  # the rename that would have replaced it never came
            if entry.is_dir():
                shutil.rmtree(entry, ignore_errors=True)
            else:
                entry.unlink(missing_ok=True)
            removed += 1
    return removed


def _abandoned(entry: Path) -> bool:
    try:
        _, host, pid, _ = entry.name.split(TEMPORARY, 3)
        if host == _HOST:
            if int(pid) == os.getpid():
                return False
            os.kill(int(pid), 0)
            return False  # its process still runs
        return time.time() - entry.lstat().st_mtime > ABANDONED
    except ProcessLookupError:
        return True
    except (ValueError, PermissionError, OSError):
        return time.time() - entry.lstat().st_mtime > ABANDONED


# -- export and import --------------------------------------------------------------------------


@dataclass(frozen=True)
class GameArchive:
    """A whole game read from the tables once: the game's fields and its players as an export
    writes them, its seasons as values (:class:`~bot.codec.season.Season`), its standing orders
    and the audit log, and what its game masters did (``actions``: a new deadline, a pause, a
    rollback, a new player, a changed setting...). :func:`export_game` writes it as JSON; the
    archive site reads it as it is."""

    game: Mapping[str, Any]
    players: tuple[Mapping[str, Any], ...]
    seasons: tuple[Season, ...]
    orders: tuple[Mapping[str, Any], ...]
    submissions: tuple[Mapping[str, Any], ...]
    actions: tuple[Mapping[str, Any], ...] = ()
    press: tuple[Mapping[str, Any], ...] = ()
    """The press the game publishes (an ended game whose settings say so: :func:`bot.service.press.published`);
    shown on the archive site, not part of an export."""


def game_archive(db: Database, ref: str | int, *, record: bool = True) -> GameArchive:
    """The game ``ref`` (its name, or number) as :class:`GameArchive`; :class:`NoSuchGameError` when there is none.

    ``record=False``: without its standing orders, its audit log and its game masters' actions
    (what the archive site, which shows the seasons, does not read)."""
    with db.session() as session:
        # a number is the game's id (as the archive site asks); a text its name, or its id in digits
        game = (session.get(GameRow, ref) if isinstance(ref, int) else
                database.game_by_name(session, ref) or (session.get(GameRow, int(ref)) if ref.isdigit() else None))
        if game is None:
            raise NoSuchGameError(ref, [g.name for g in database.all_games(session)][:10])
        return GameArchive(
            game={"name": game.name, "variant": game.variant, "rules": game.rules, "gm": game.gm,
                  "status": game.status, "policy": game.policy, "position": game.position, "phase": game.phase,
                  "version": game.version, "deadline_at": _iso(game.deadline_at),
                  "paused_remaining": game.paused_remaining, "seed": game.seed, "outcome": game.outcome,
                  "created_at": _iso(game.created_at), "ended_at": _iso(game.ended_at)},
            players=tuple({"player": p.player, "power": p.power, "status": p.status, "nmr_count": p.nmr_count,
                           "draw_vote": p.draw_vote, "joined_at": _iso(p.joined_at)}
                          for p in database.players_of(session, game.id)),
            seasons=tuple(season_from_row(s, game.name) for s in database.seasons_of(session, game.id, pictures=True)),
            orders=tuple({"version": o.version, "phase": o.phase, "power": o.power, "key": o.key, "seq": o.seq,
                          "text": o.text, "canonical": canonical(order_from_json(o.order)),
                          "submitted_at": _iso(o.submitted_at)}
                         for o in (database.orders_of(session, game.id, game.version) if record else ())),
            submissions=tuple({"version": s.version, "phase": s.phase, "power": s.power, "player": s.player,
                               "text": s.text, "accepted": s.accepted, "rejected": s.rejected, "at": _iso(s.at)}
                              for s in (database.submissions_of(session, game.id) if record else ())),
            actions=tuple({"at": _iso(a.at), "version": a.version, "phase": a.phase, "actor": a.actor,
                           "action": a.action, "details": a.details}
                          for a in (database.actions_of(session, game.id) if record else ())),
            press=published_lines(session, game))


def published_lines(session: Session, game: GameRow) -> tuple[Mapping[str, Any], ...]:
    """The press ``game`` publishes (:func:`bot.service.press.published`) as the archive site
    shows it, oldest first; none while it is under way or when it keeps its press private."""
    return tuple({"phase": p.phase, "at": _iso(p.at), "from": p.sender, "to": list(p.to),
                  "broadcast": p.broadcast, "text": p.text} for p in published(session, game) or ())


def export_game(db: Database, ref: str | int) -> dict[str, Any]:
    """A whole game as one JSON-ready document (:data:`EXPORT_FORMAT`)."""
    archive = game_archive(db, ref)
    return {"format": EXPORT_FORMAT, "format_version": EXPORT_VERSION, "game": dict(archive.game),
            "players": [dict(p) for p in archive.players],
            "seasons": [season_document(s) for s in archive.seasons],
            "orders": [dict(o) for o in archive.orders], "submissions": [dict(s) for s in archive.submissions],
            "actions": [dict(a) for a in archive.actions]}


class ExportRejected(ServiceError):
    """An export whose seasons do not re-adjudicate to what it stores (:func:`verify_export`):
    ``checks`` says season by season."""

    def __init__(self, message: str, checks: list[SeasonCheck]) -> None:
        super().__init__(message)
        self.checks = checks


def import_game(db: Database, doc: dict[str, Any], *, name: str | None = None, verify: bool = True) -> str:
    """Load an export as a new game (optionally under another name); its pending deadline is re-armed.

    An export that :func:`verify_export` finds different is refused (:class:`ExportRejected`)
    unless ``verify`` is false; what cannot be read at all is an :class:`InputError`, a name taken
    a :class:`ServiceError`. The seasons of a verified export keep their reasons as the engine's
    values (:func:`~bot.codec.season.with_phrases`), so that the reports name their units."""
    if not isinstance(doc, dict) or doc.get("format") != EXPORT_FORMAT:
        raise InputError(f"not a game export: expected \"format\": \"{EXPORT_FORMAT}\"")
    if doc.get("format_version") != EXPORT_VERSION:
        raise InputError(f"export format_version {doc.get('format_version')!r} not supported; this judge reads "
                         f"{EXPORT_VERSION}")
    g = doc["game"]
    try:
        name = check_game_name(name or g["name"])
    except ValueError as exc:
        raise InputError(str(exc)) from None
    made: list[Adjudication] = []  # the engine's adjudication of each season, made once to verify it
    if verify:
        verified = _verified(doc)
        checks = [check for check, _ in verified]
        bad = [c for c in checks if not c.identical]
        if bad:
            raise ExportRejected(f"the export does not re-adjudicate to what it stores ({len(bad)} of {len(checks)} "
                                 f"seasons differ; first {bad[0].phase}: {bad[0].detail}); 'crusader verify' shows "
                                 "each season; import it as it is with --unverified", checks)
        made = [adjudication for _, adjudication in verified]
    with db.session() as session:
        taken = database.game_by_name(session, name)
        if taken is not None:
            raise ServiceError(name_taken(name, taken.name).replace("choose another name",
                                                                    "import it with another name"))
        game = GameRow(name=name, key=game_key(name), variant=g["variant"], rules=g["rules"], gm=g["gm"],
                       status=g["status"], policy=g["policy"], position=g["position"], phase=g["phase"],
                       version=g["version"], deadline_at=_time(g["deadline_at"]),
                       paused_remaining=g.get("paused_remaining"), seed=g["seed"], outcome=g["outcome"], created_at=_at(g["created_at"]), ended_at=_time(g["ended_at"]))
        session.add(game)
        session.flush()
        for p in doc["players"]:
            session.add(PlayerRow(game_id=game.id, player=p["player"], power=p["power"], status=p["status"],
                                  nmr_count=p["nmr_count"], draw_vote=p["draw_vote"], joined_at=_at(p["joined_at"])))
        for i, s in enumerate(doc["seasons"]):
            # the export's reasons are the contract's text: a verified season's are made values again (the
            # report names their units), from the adjudication that verified it; an unverified one's stay
            # text, shown as they are
            season = season_from_document(s, name)
            session.add(SeasonRow(game_id=game.id, **season_columns(with_phrases(season, made[i]) if verify else season)))
        for s in doc["submissions"]:
            session.add(SubmissionRow(game_id=game.id, version=s["version"], phase=s["phase"], power=s["power"],
                                      player=s["player"], text=s["text"], accepted=s["accepted"],
                                      rejected=s["rejected"], at=_at(s["at"])))
        variant = get_variant(game.variant)
        for o in doc["orders"]:
            session.add(OrderRow(game_id=game.id, version=o["version"], phase=o["phase"], power=o["power"],
                                 key=o["key"], seq=o["seq"], text=o["text"],
                                 order=order_to_json(_read_order(o["canonical"], variant, o["phase"])),
                                 submitted_at=_at(o["submitted_at"])))
        for a in doc.get("actions") or ():  # (exports written before actions were kept have none)
            session.add(ActionRow(game_id=game.id, version=a["version"], phase=a["phase"], at=_at(a["at"]),
                                  actor=a["actor"], action=a["action"], details=a["details"]))
        if game.status == GameStatus.ACTIVE and game.deadline_at is not None:
            session.add(TimerRow(game_id=game.id, version=game.version, kind="deadline", due_at=game.deadline_at))
    return name


def _read_order(text: str, variant: Variant, phase: str):
    """An order of an export, in the judge's notation, as a value."""
    orders, errors = read_orders([text], variant, Phase.parse(phase))
    if errors:
        raise InputError(f"an order of the export cannot be read: {text!r}: {errors[0]}")
    return orders[0]


# -- verify -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SeasonCheck:
    phase: str
    identical: bool
    detail: str = ""


def _first_difference(a: Any, b: Any, where: str = "") -> str:
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            if a.get(key) != b.get(key):
                return _first_difference(a.get(key), b.get(key), f"{where}.{key}" if where else key)
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                return _first_difference(x, y, f"{where}[{i}]")
    return f"{where or 'result'}: stored {a!r}, recomputed {b!r}"


def verify_export(doc: dict[str, Any]) -> list[SeasonCheck]:
    """Re-adjudicate every season; each must give the stored result and lead to the next season."""
    return [check for check, _ in _verified(doc)]


def _verified(doc: dict[str, Any]) -> list[tuple[SeasonCheck, Adjudication]]:
    """:func:`verify_export`'s checks, each with the engine's adjudication of its season."""
    try:
        return _verify(doc)
    except (KeyError, TypeError, AttributeError, IndexError) as exc:
        raise InputError(f"not a game export as crusader game export writes it ({type(exc).__name__}: {exc})") from None


def _verify(doc: dict[str, Any]) -> list[tuple[SeasonCheck, Adjudication]]:
    from bot.codec.documents import adjudicate_position

    checks = []
    seasons = doc.get("seasons", [])
    for i, season in enumerate(seasons):
        document = {**season["position"], "orders": [o["canonical"] for o in season["orders"]]}
        _, _, adjudication, result = adjudicate_position(document)
        recomputed = json.loads(json.dumps(result))
        if recomputed != season["result"]:
            checks.append((SeasonCheck(season["phase"], False, _first_difference(season["result"], recomputed)),
                           adjudication))
            continue
        following = seasons[i + 1]["position"] if i + 1 < len(seasons) else doc["game"]["position"]
        if following != season["result"]["position"]:
            checks.append((SeasonCheck(season["phase"], False, "the next season does not start from this result"),
                           adjudication))
            continue
        checks.append((SeasonCheck(season["phase"], True), adjudication))
    return checks


# -- the archive on disk ------------------------------------------------------------------------


class ArchiveWriter:
    """A notifier: after each results announcement, write that season's JSON and text report.

    Files live under ``<root>/<game's folder>/<version>-<phase>.json|.txt``, written atomically;
    writing the same season twice gives the same files, so a repeated delivery is harmless.
    """

    name = "archive"
    background = True  # (the outbox: its files follow the results posted and mailed)

    def __init__(self, service: GameService, root: Path) -> None:
        self.service = service
        self.root = Path(root)

    def tidy(self) -> int:
        """Remove what writes interrupted by a kill left behind (:func:`sweep_temporary`)."""
        return sweep_temporary(self.root)

    async def recipients(self, announcement: Announcement) -> tuple[str, ...]:
        return (self.name,) if announcement.kind == "results" and announcement.game_id is not None else ()

    async def deliver(self, delivery: Delivery) -> Outcome:
        await asyncio.to_thread(self.write, delivery.announcement)
        return DELIVERED

    def write(self, announcement: Announcement) -> None:
        game_id, version = announcement.game_id, announcement.data.get("version")
        if game_id is None or version is None:
            return  # (not a season's results)
        try:
            season = self.service.season(game_id, version)  # (read once for every front end)
        except NoSuchGameError:
            return  # deleted since: nothing to archive
        if season is None:
            return  # rolled back since: nothing to archive
        name = season.game
        folder = self.root / game_key(name)
        stem = f"{season.version:04d}-{season.phase}"
        text = json_text(season_document(season), pretty=True, sort_keys=True) + "\n"
        write_atomically(folder / f"{stem}.json", text)
        write_atomically(folder / f"{stem}.txt", season_report(name, season))
