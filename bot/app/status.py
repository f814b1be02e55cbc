"""What a running ``crusader serve`` says of itself, for ``crusader health``: one small JSON file per
server in ``<data dir>/run/``, rewritten when a front end's state changes and removed at a clean stop.

A front end that failed (a Discord token refused once running, a gateway that closed for good)
keeps the judge running (deadlines, the other front ends) but makes ``crusader health`` unhealthy,
with the front end's sentence.
"""

from __future__ import annotations

import json
import os
import socket
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class ServerStatus:
    node: str
    host: str
    pid: int
    front_ends: dict[str, str | None]  # name -> None when working, else what is wrong

    @property
    def problems(self) -> dict[str, str]:
        return {name: problem for name, problem in self.front_ends.items() if problem}


class StatusFile:
    """This server's status file."""

    def __init__(self, data_dir: Path, node: str) -> None:
        self.node = node
        self.path = data_dir / "run" / f"serve-{socket.gethostname()}-{os.getpid()}.json"
        self._last: dict | None = None

    def write(self, front_ends: dict[str, str | None]) -> None:
        doc = {"node": self.node, "host": socket.gethostname(), "pid": os.getpid(), "front_ends": front_ends}
        if doc == self._last:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        temporary = self.path.with_suffix(".tmp")
        temporary.write_text(json.dumps(doc), encoding="utf-8")
        temporary.replace(self.path)
        self._last = doc

    def remove(self) -> None:
        self.path.unlink(missing_ok=True)


def running_servers(data_dir: Path) -> list[ServerStatus]:
    """The servers of this machine that run on ``data_dir`` (files of stopped processes are left out)."""
    out = []
    for path in sorted((data_dir / "run").glob("serve-*.json")):
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
            status = ServerStatus(str(doc["node"]), str(doc["host"]), int(doc["pid"]), dict(doc["front_ends"]))
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if status.host == socket.gethostname() and _alive(status.pid):
            out.append(status)
    return out


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: alive
        return True
    return True
