"""Settings of ``crusader serve`` and ``crusader game``, from the environment (prefix ``CRUSADER_``).

With nothing set the judge runs on embedded defaults: SQLite under ``./data`` (or
``$CRUSADER_DATA_DIR``), logs as JSON lines on standard error (readable when on a terminal).
"""

from __future__ import annotations

import os
import socket
from pathlib import Path

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="CRUSADER_", extra="ignore")

    data_dir: Path = Field(Path("data"), description="where the SQLite file and the archives live")
    database_url: str | None = Field(None, description="SQLAlchemy URL; default sqlite:///<data_dir>/crusader.db")
    log_level: str = Field("INFO", description="DEBUG, INFO, WARNING, ERROR")
    log_format: str = Field("auto", description="json, console, or auto (console on a terminal)")
    node_name: str = Field(default_factory=lambda: f"{socket.gethostname()}:{os.getpid()}",
                           description="this server's name in logs and outbox claims")
    poll_interval: float = Field(30.0, gt=0, description="seconds between sweeps for due timers and the outbox")
    outbox_lease: float = Field(30.0, gt=0, description="seconds a server keeps its claim on announcements it is "
                                "delivering; a crashed server's claims lapse after this")
    announce_jsonl: Path | None = Field(None, description="also write every announcement to this JSONL file")
    front_ends: str = Field("auto", description="front ends serve starts: auto (each one configured), none, "
                            "or a comma list of mail, site, discord")
    host: str = Field("127.0.0.1", description="address the archive site listens on, unless CRUSADER_ARCHIVE_HOST "
                      "is set (the e-mail listener has CRUSADER_MAIL_LISTEN_HOST)")
    discord_token: SecretStr | None = Field(None, description="the Discord front end starts when set")
    archive_host: str | None = Field(None, description="address the archive site listens on (default: CRUSADER_HOST)")
    archive_port: int = Field(8080, ge=0, le=65535, description="port of the archive site; 0 turns the site off")
    archive_dir: Path | None = Field(None, description="where the archive site is written (default <data_dir>/site)")

    @property
    def url(self) -> str:
        if self.database_url:
            url = self.database_url
            return "postgresql+psycopg://" + url.split("://", 1)[1] if url.startswith(("postgres://", "postgresql://")) else url
        return f"sqlite:///{(self.data_dir / 'crusader.db').resolve()}"
