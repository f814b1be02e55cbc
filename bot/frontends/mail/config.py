"""Settings of the e-mail front end, from the environment (prefix ``CRUSADER_MAIL_``).

The front end starts in ``crusader serve`` unless ``CRUSADER_MAIL_ADDRESS`` (the judge's own
address, ``judge@localhost`` by default) is set empty. Players' mail arrives at the listener (``listen_host:listen_port``, by default
127.0.0.1:2525, meant to sit behind the site's real mail server); replies and announcements
leave through the relay (``relay_host:relay_port``), with STARTTLS or TLS and a login when set.
"""

from __future__ import annotations

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict


class MailSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="CRUSADER_MAIL_", extra="ignore")

    address: str | None = Field("judge@localhost", description="the judge's own address, the From of every mail "
                                                               "it sends; empty turns the e-mail front end off")
    listen_host: str = Field("127.0.0.1", description="address the SMTP listener binds")
    listen_port: int = Field(2525, ge=0, le=65535, description="port of the SMTP listener (0: any free port)")
    max_bytes: int = Field(256_000, gt=1000, description="largest message read; larger ones get a refusal")
    relay_host: str = Field("127.0.0.1", description="SMTP relay for outbound mail")
    relay_port: int = Field(25, ge=1, le=65535, description="port of the SMTP relay")
    relay_starttls: bool = Field(False, description="upgrade the relay connection with STARTTLS")
    relay_tls: bool = Field(False, description="connect to the relay over TLS from the start (port 465)")
    relay_username: str | None = Field(None, description="login at the relay, when it wants one")
    relay_password: SecretStr | None = Field(None, description="password for relay_username")
    relay_ca_file: str | None = Field(None, description="CA certificates (PEM) to trust for the relay's TLS, "
                                                        "instead of the system's")
    relay_timeout: float = Field(30.0, gt=0, description="seconds before a relay connection is given up")
    attach_maps: bool = Field(True, description="attach the map picture to results when bot.render offers one")
    signon_failures: int = Field(10, ge=1, description="wrong passwords per power, envelope sender and hour "
                                                       "before that sender's sign-ons for the power are refused "
                                                       "without checking (ten times as many: a sending domain's)")
