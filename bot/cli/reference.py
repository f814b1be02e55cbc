"""Every setting the judge reads, from its settings models: checked at start-up, shown by ``crusader
settings``, and written as the reference in ``docs/settings.md`` (``crusader settings --reference``;
a test checks that the committed file is what the models say)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, TypeVar

from pydantic import SecretStr, ValidationError
from pydantic_settings import BaseSettings

from bot.app.errors import SetupError

_Settings = TypeVar("_Settings", bound=BaseSettings)

TITLE = "# Settings"
INTRO = """Every setting of the judge is an environment variable; none is required. `crusader serve`,
`crusader game` and the other commands read them at start (`crusader settings` shows the values in
effect; `--data-dir` and `--database` override the two first on a command line). Generated from
the settings models by `crusader settings --reference`: do not edit by hand."""
TEST_ONLY = {"CRUSADER_CRASH_AT": "tests only: kill the server at a named point of a deadline run "
                                  "(`bot/store/faults.py`); never set it in production",
             "CRUSADER_CRASH_AFTER_WRITES": "tests only: kill the server just after its n-th committed "
                                            "transaction that wrote (`bot/store/faults.py`); never set it in "
                                            "production"}


def models() -> list[tuple[str, type[BaseSettings]]]:
    """The settings models, each with the part of the judge it configures."""
    from bot.frontends.discord.config import DiscordSettings
    from bot.frontends.mail.config import MailSettings

    from bot.app.settings import Settings

    return [("The judge (`crusader serve` and the shell)", Settings), ("E-mail", MailSettings),
            ("Discord", DiscordSettings)]


def env_name(model: type[BaseSettings], field: str) -> str:
    return f"{model.model_config.get('env_prefix', '')}{field}".upper()


def check() -> list[BaseSettings]:
    """Every settings model read from the environment; a :class:`SetupError` names each bad variable."""
    out, problems = [], []
    for _, model in models():
        try:
            out.append(model())
        except ValidationError as exc:
            problems += describe(model, exc)
    if problems:
        raise SetupError("; ".join(problems))
    return out


def read(model: type[_Settings], **overrides: Any) -> _Settings:
    """``model`` from the environment (and ``overrides``); a :class:`SetupError` names each bad variable."""
    try:
        return model(**overrides)
    except ValidationError as exc:
        raise SetupError("; ".join(describe(model, exc))) from None


def describe(model: type[BaseSettings], exc: ValidationError) -> list[str]:
    """Each error of ``exc`` as ``VARIABLE: what is wrong (it is '...')``."""
    out = []
    for error in exc.errors():
        field = str(error["loc"][0]) if error.get("loc") else ""
        name = env_name(model, field) if field else model.__name__
        got = os.environ.get(name)
        out.append(f"{name}: {error['msg'].removeprefix('Value error, ')}"
                   + (f" (it is {got!r})" if got is not None and field else ""))
    return out


def _default(value: Any) -> str:
    if value is None or value == "":
        return "unset"
    if isinstance(value, Path):
        return f"`{value}`"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    return f"`{value}`"


def reference() -> str:
    """The Markdown reference of every setting."""
    lines = [TITLE, "", INTRO, ""]
    for part, model in models():
        lines += [f"## {part}", "", "| variable | default | meaning |", "|---|---|---|"]
        for field, info in model.model_fields.items():
            default = "computed" if info.default_factory is not None else _default(info.default)
            meaning = (info.description or "").replace("|", "\\|")
            lines.append(f"| `{env_name(model, field)}` | {default} | {meaning} |")
        lines.append("")
    lines += ["## Tests only", "", "| variable | meaning |", "|---|---|"]
    lines += [f"| `{name}` | {meaning} |" for name, meaning in TEST_ONLY.items()]
    return "\n".join(lines) + "\n"


def in_effect() -> str:
    """The settings as this process reads them, secrets hidden; ``*`` marks those set in the environment."""
    lines = []
    for (part, model), values in zip(models(), check()):
        lines.append(f"# {part}")
        for field in model.model_fields:
            name = env_name(model, field)
            value = getattr(values, field)
            shown = "(set, hidden)" if isinstance(value, SecretStr) else ("" if value is None else str(value))
            mark = "*" if name in os.environ else " "
            lines.append(f"{mark} {name}={shown}")
    return "\n".join(lines) + "\n"


def listening() -> list[str]:
    """The variables of the judge's ports and addresses (for ``crusader serve --help``)."""
    out = []
    for _, model in models():
        for field, info in model.model_fields.items():
            if any(word in field for word in ("host", "port", "url", "api_base", "address")):
                out.append(f"{env_name(model, field)}: {info.description}")
    return out
