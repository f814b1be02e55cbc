"""Settings of ``crusader serve`` and ``crusader game``, from the environment (prefix ``CRUSADER_``).

With nothing set the judge runs on embedded defaults: SQLite in the user's own data directory
(:func:`default_data_dir`, the same from whatever directory a command runs in; or
``$CRUSADER_DATA_DIR``), logs as JSON lines on standard error (readable when on a terminal).
"""

from __future__ import annotations

import os
import socket
from pathlib import Path

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


def default_data_dir() -> Path:
    """The user's own data directory for the judge, whatever the current directory:
    ``$XDG_DATA_HOME/crusader-judge``, by default ``~/.local/share/crusader-judge``."""
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "crusader-judge"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="CRUSADER_", extra="ignore", env_ignore_empty=True)

    data_dir: Path = Field(default_factory=default_data_dir,
                           description="where the SQLite file and the archives live (default "
                                       "$XDG_DATA_HOME/crusader-judge, else ~/.local/share/crusader-judge: the "
                                       "same from any directory, one judge per user)")
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
    archive_url: str | None = Field(None, description="the archive site's public address, like "
                                    "https://judge.example.org/ (the judge's mail links each season's page "
                                    "there); unset: the mail has no links")

    @field_validator("data_dir", "archive_dir", "announce_jsonl")
    @classmethod
    def _absolute(cls, path: Path | None) -> Path | None:
        """A path as the directory the command runs in reads it, made absolute once (``~`` expanded)."""
        return None if path is None else Path(os.path.abspath(path.expanduser()))

    @property
    def url(self) -> str:
        if self.database_url:
            url = self.database_url
            return "postgresql+psycopg://" + url.split("://", 1)[1] if url.startswith(("postgres://", "postgresql://")) else url
        return f"sqlite:///{self.sqlite_file}"

    @property
    def sqlite_file(self) -> Path | None:
        """The SQLite file of the judge's database (``None`` with a database URL)."""
        if self.database_url:
            url = self.database_url
            if url.startswith("sqlite:///") and url != "sqlite:///:memory:":
                return Path(url.split(":///", 1)[1])
            return None
        return (self.data_dir / "crusader.db").resolve()

    @property
    def database_shown(self) -> str:
        """The database as a sentence names it: the SQLite file, or the URL without its password."""
        if self.sqlite_file is not None:
            return str(self.sqlite_file)
        try:
            from sqlalchemy.engine import make_url

            return make_url(self.url).render_as_string(hide_password=True)
        except Exception:  # noqa: BLE001 (an unreadable URL is shown without what may be a password)
            return self.url.split("@")[-1]

    @property
    def data_dir_chosen(self) -> bool:
        """Whether the data directory was given (``CRUSADER_DATA_DIR``, ``--data-dir``), not the default."""
        return "data_dir" in self.model_fields_set
