"""Archives: a season report in the e-mail judges' style, a whole game as one JSON file, and
``verify``, which re-adjudicates every season of an export and says whether it comes out the same.

The archive of a season is: the position it started from, every order as written and as
understood, every result with its reason, the prestige ledger (in the result's events), the seed.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from . import storage
from .outbox import Announcement
from .report import result_text
from .storage import Database, GameRow, OrderRow, PlayerRow, SeasonRow, SubmissionRow, TimerRow

EXPORT_FORMAT = "crusader-game"
EXPORT_VERSION = 1


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment else None


def _time(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text) if text else None


# -- the text of a season ---------------------------------------------------------------------


def season_report(game: str, season: dict[str, Any]) -> str:
    """One season as the e-mail judges print it: orders with results, then the board after."""
    result = season["result"]
    out = [f"Game '{game}', {season['phase']}: results", "=" * 60, ""]
    out.append(result_text(result).rstrip("\n"))
    if season.get("nmr"):
        out += ["", "No orders received from: " + ", ".join(season["nmr"]) + "."]
    position = result.get("position", {})
    units: dict[str, list[str]] = {}
    for unit in position.get("units", []):
        power, _, rest = unit.partition(": ")
        units.setdefault(power, []).append(rest)
    out += ["", "Units after the phase:"]
    out += [f"  {power}: {', '.join(sorted(us))}" for power, us in sorted(units.items())]
    if position.get("supply_centers"):
        out += ["", "Supply centres changed from the start:"]
        out += [f"  {prov}: {owner}" for prov, owner in sorted(position["supply_centers"].items())]
    if "prestige" in position:
        out += ["", "Prestige:"] + [f"  {p}: {n}" for p, n in sorted(position["prestige"].items())]
    ledger = (result.get("events") or {}).get("prestige")
    if isinstance(ledger, dict) and ledger:
        out += ["", "Prestige ledger:"]
        for power, entry in sorted(ledger.items()):
            if not isinstance(entry, dict):
                out.append(f"  {power}: {json.dumps(entry, ensure_ascii=False)}")
                continue
            spent = entry.get("spent") or []
            detail = "; ".join(f"{s.get('order')} {s.get('amount')}" for s in spent if isinstance(s, dict))
            out.append(f"  {power}: start {entry.get('start')}, received {entry.get('received')}, "
                       f"spent {sum(s.get('amount', 0) for s in spent if isinstance(s, dict))}"
                       f"{' (' + detail + ')' if detail else ''}, left {entry.get('left')}")
    out += ["", f"Seed: {season.get('seed', 0)}", ""]
    return "\n".join(out)


def write_atomically(path: Path, text: str, *, mode: int = 0o644) -> None:
    """Write ``text`` to ``path`` atomically (a temporary file beside it, then a rename): a
    reader sees the old file or the new one, never half of one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


# -- export and import --------------------------------------------------------------------------


def _season_dict(s: SeasonRow) -> dict[str, Any]:
    return {"phase": s.phase, "version": s.version, "position": s.position, "orders": s.orders,
            "result": s.result, "seed": s.seed, "nmr": s.nmr, "players": s.players,
            "deadline_at": _iso(s.deadline_at), "adjudicated_at": _iso(s.adjudicated_at),
            "adjudicated_by": s.adjudicated_by}


def export_game(db: Database, ref: str | int) -> dict[str, Any]:
    """A whole game as one JSON-ready document."""
    with db.session() as session:
        game = storage.game_by_name(session, str(ref)) or (session.get(GameRow, int(ref)) if str(ref).isdigit() else None)
        if game is None:
            raise ValueError(f"no game {ref!r}")
        return {
            "format": EXPORT_FORMAT, "format_version": EXPORT_VERSION,
            "game": {"name": game.name, "variant": game.variant, "rules": game.rules, "gm": game.gm,
                     "status": game.status, "policy": game.policy, "position": game.position, "phase": game.phase,
                     "version": game.version, "deadline_at": _iso(game.deadline_at),
                     "paused_remaining": game.paused_remaining, "seed": game.seed, "outcome": game.outcome,
                     "created_at": _iso(game.created_at), "ended_at": _iso(game.ended_at)},
            "players": [{"player": p.player, "power": p.power, "status": p.status, "nmr_count": p.nmr_count,
                         "draw_vote": p.draw_vote, "joined_at": _iso(p.joined_at)}
                        for p in storage.players_of(session, game.id)],
            "seasons": [_season_dict(s) for s in storage.seasons_of(session, game.id)],
            "orders": [{"version": o.version, "phase": o.phase, "power": o.power, "key": o.key, "seq": o.seq,
                        "text": o.text, "canonical": o.canonical, "submitted_at": _iso(o.submitted_at)}
                       for o in storage.orders_of(session, game.id, game.version)],
            "submissions": [{"version": s.version, "phase": s.phase, "power": s.power, "player": s.player,
                             "text": s.text, "accepted": s.accepted, "rejected": s.rejected, "at": _iso(s.at)}
                            for s in storage.submissions_of(session, game.id)],
        }


def import_game(db: Database, doc: dict[str, Any], *, name: str | None = None) -> str:
    """Load an export as a new game (optionally under another name); its pending deadline is re-armed."""
    if not isinstance(doc, dict) or doc.get("format") != EXPORT_FORMAT:
        raise ValueError(f"not a game export: expected \"format\": \"{EXPORT_FORMAT}\"")
    if doc.get("format_version") != EXPORT_VERSION:
        raise ValueError(f"export format_version {doc.get('format_version')!r} not supported; this judge reads {EXPORT_VERSION}")
    g = doc["game"]
    name = name or g["name"]
    with db.session() as session:
        if storage.game_by_name(session, name) is not None:
            raise ValueError(f"there is already a game called {name!r}; import it with another name")
        game = GameRow(name=name, variant=g["variant"], rules=g["rules"], gm=g["gm"], status=g["status"],
                       policy=g["policy"], position=g["position"], phase=g["phase"], version=g["version"],
                       deadline_at=_time(g["deadline_at"]), paused_remaining=g.get("paused_remaining"), seed=g["seed"],
                       outcome=g["outcome"], created_at=_time(g["created_at"]), ended_at=_time(g["ended_at"]))
        session.add(game)
        session.flush()
        for p in doc["players"]:
            session.add(PlayerRow(game_id=game.id, player=p["player"], power=p["power"], status=p["status"],
                                  nmr_count=p["nmr_count"], draw_vote=p["draw_vote"], joined_at=_time(p["joined_at"])))
        for s in doc["seasons"]:
            session.add(SeasonRow(game_id=game.id, version=s["version"], phase=s["phase"], position=s["position"],
                                  orders=s["orders"], result=s["result"], seed=s["seed"], nmr=s["nmr"],
                                  players=s["players"], deadline_at=_time(s["deadline_at"]),
                                  adjudicated_at=_time(s["adjudicated_at"]), adjudicated_by=s["adjudicated_by"]))
        for s in doc["submissions"]:
            session.add(SubmissionRow(game_id=game.id, version=s["version"], phase=s["phase"], power=s["power"],
                                      player=s["player"], text=s["text"], accepted=s["accepted"],
                                      rejected=s["rejected"], at=_time(s["at"])))
        for o in doc["orders"]:
            session.add(OrderRow(game_id=game.id, version=o["version"], phase=o["phase"], power=o["power"],
                                 key=o["key"], seq=o["seq"], text=o["text"], canonical=o["canonical"],
                                 submitted_at=_time(o["submitted_at"])))
        if game.status == "active" and game.deadline_at is not None:
            session.add(TimerRow(game_id=game.id, version=game.version, kind="deadline", due_at=game.deadline_at))
    return name


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
    from .service.engine import adjudicate

    checks = []
    seasons = doc.get("seasons", [])
    for i, season in enumerate(seasons):
        recomputed = json.loads(json.dumps(adjudicate(season["position"], [o["canonical"] for o in season["orders"]])))
        if recomputed != season["result"]:
            checks.append(SeasonCheck(season["phase"], False, _first_difference(season["result"], recomputed)))
            continue
        following = seasons[i + 1]["position"] if i + 1 < len(seasons) else doc["game"]["position"]
        if following != season["result"]["position"]:
            checks.append(SeasonCheck(season["phase"], False, "the next season does not start from this result"))
            continue
        checks.append(SeasonCheck(season["phase"], True))
    return checks


# -- the archive on disk ------------------------------------------------------------------------


class ArchiveWriter:
    """A notifier: after each results announcement, write that season's JSON and text report.

    Files live under ``<root>/<game>/<version>-<phase>.json|.txt``, written atomically; writing
    the same season twice gives the same files, so a repeated delivery is harmless.
    """

    def __init__(self, db: Database, root: Path) -> None:
        self.db = db
        self.root = Path(root)

    async def deliver(self, announcement: Announcement) -> None:
        if announcement.kind != "results" or announcement.game_id is None:
            return
        version = announcement.data.get("version")
        with self.db.session() as session:
            game = session.get(GameRow, announcement.game_id)
            season = storage.season_at(session, announcement.game_id, version)
            if game is None or season is None:
                return  # rolled back since: nothing to archive
            data = _season_dict(season)
            name = game.name
        folder = self.root / "".join(c if c.isalnum() or c in "-_." else "_" for c in name)
        stem = f"{season.version:04d}-{season.phase}"
        write_atomically(folder / f"{stem}.json", json.dumps(data, ensure_ascii=False, indent=1, sort_keys=True) + "\n")
        write_atomically(folder / f"{stem}.txt", season_report(name, data))
