"""A fake Discord (REST, CDN and gateway) for end-to-end tests of the real discord.py bot."""

from . import payloads
from .logcheck import ErrorLogCollector, install_error_collector, remove_error_collector
from .payloads import Channel, Guild, Member, Role, User
from .server import (
    DEFAULT_TOKEN,
    CommandNotShown,
    DISCORD_HOSTS,
    DiscordError,
    FakeDiscord,
    FakeResolver,
    Interaction,
    InteractionResponse,
    RecordedRequest,
    UploadedFile,
    json_response,
    most_in_a_second,
)

__all__ = [
    "DEFAULT_TOKEN",
    "DISCORD_HOSTS",
    "Channel",
    "CommandNotShown",
    "DiscordError",
    "ErrorLogCollector",
    "FakeDiscord",
    "FakeResolver",
    "Guild",
    "Interaction",
    "InteractionResponse",
    "Member",
    "RecordedRequest",
    "Role",
    "UploadedFile",
    "User",
    "install_error_collector",
    "json_response",
    "most_in_a_second",
    "payloads",
    "remove_error_collector",
]
