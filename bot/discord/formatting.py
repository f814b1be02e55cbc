"""Pure functions from the service's answers to what Discord shows, within Discord's limits.

Limits (Discord's, enforced by the server): 2000 characters of message content; per message at
most 10 embeds and 6000 characters over all of them; an embed title 256, description 4096.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Iterable

import discord

from adjudicator.variant import Variant
from adjudicator.vocab import Phase

from ..service import GameView, PlayerOrders, SubmissionReport
from .identity import mention, mentionify

CONTENT_LIMIT = 2000
EMBEDS_PER_MESSAGE = 10
EMBED_TOTAL = 6000
DESCRIPTION_LIMIT = 4096
TITLE_LIMIT = 256

COASTS = {"nc": "north coast", "sc": "south coast", "ec": "east coast", "wc": "west coast"}
_TOKEN_RE = re.compile(r"\b([a-z][a-z0-9]{1,4})(?:/([a-z]{2}))?\b")
MARK = {"succeeds": "✅", "fails": "❌", "invalid": "⛔"}


# -- small pieces --------------------------------------------------------------------------------


def timestamp(moment: datetime | None, style: str = "R") -> str:
    """A Discord timestamp (``<t:1700000000:R>`` shows "in 2 days" in the reader's own time zone)."""
    return f"<t:{int(moment.timestamp())}:{style}>" if moment else "no deadline"


def deadline_text(moment: datetime | None) -> str:
    return f"{timestamp(moment, 'F')} ({timestamp(moment, 'R')})" if moment else "no deadline"


def phase_name(phase: str | None) -> str:
    return f"{Phase.parse(phase).long_name} ({phase})" if phase else "-"


def long_order(text: str | None, variant: Variant) -> str:
    """An order in the short notation with every province spelled out: ``A Paris - Burgundy``."""
    if not text:
        return ""

    def spell(m: re.Match) -> str:
        province = variant.provinces.get(m.group(1))
        if province is None:
            return m.group(0)
        coast = m.group(2)
        return f"{province.name} ({COASTS.get(coast, coast)})" if coast else province.name

    return _TOKEN_RE.sub(spell, text)


def without_power(canonical: str) -> tuple[str, str]:
    power, sep, order = canonical.partition(": ")
    return (power, order) if sep else ("", canonical)


def quote_block(text: str) -> str:
    """Text shown verbatim in a code block (carets under a column stay aligned)."""
    return "```\n" + text.replace("```", "'''").rstrip("\n") + "\n```"


def chunks(text: str, limit: int = CONTENT_LIMIT) -> list[str]:
    """``text`` cut at line ends into pieces of at most ``limit`` characters (code blocks kept whole
    where they fit, closed and reopened where they do not)."""
    pieces: list[str] = []
    current = ""
    in_code = False
    for line in text.split("\n"):
        while len(line) > limit - 8:
            head, line = line[: limit - 8], line[limit - 8:]
            pieces, current = _push(pieces, current, head, limit, in_code)
        pieces, current = _push(pieces, current, line, limit, in_code)
        if line.strip().startswith("```"):
            in_code = not in_code
    if current.strip():
        pieces.append(current)
    return pieces or [""]


def _push(pieces: list[str], current: str, line: str, limit: int, in_code: bool) -> tuple[list[str], str]:
    candidate = f"{current}\n{line}" if current else line
    if len(candidate) + (4 if in_code else 0) <= limit:
        return pieces, candidate
    if in_code:
        pieces.append(current + "\n```")
        return pieces, "```\n" + line
    pieces.append(current)
    return pieces, line


# -- a player's orders ---------------------------------------------------------------------------


def submission_text(report: SubmissionReport, variant: Variant) -> str:
    """The answer to a message of orders: understood, rejected with why, and all that now stands."""
    out = [f"**{variant.power_name(report.power)} in {report.game}, {phase_name(report.phase)}**"
           + (f" · due {timestamp(report.deadline_at)}" if report.deadline_at else "")]
    if report.accepted:
        out.append(f"Understood ({len(report.accepted)}):")
        out += [f"✅ {long_order(without_power(line.canonical or '')[1], variant)}" for line in report.accepted]
    if report.rejected:
        out.append(f"Not accepted ({len(report.rejected)}):")
        for line in report.rejected:
            out.append(f"❌ `{line.written.replace('`', chr(39))}`")
            out.append(quote_block(line.reason or "not understood"))
    if not report.accepted and not report.rejected:
        out.append("No order lines found in your message.")
    out.append(_standing_header(len(report.standing), report.phase))
    out += [f"• {long_order(without_power(line.canonical or '')[1], variant)}" for line in report.standing]
    return "\n".join(out)


def _standing_header(n: int, phase: str) -> str:
    return f"Your orders for {phase} now ({n}):" if n else f"You have no orders standing for {phase}."


def my_orders_text(mine: PlayerOrders, variant: Variant) -> str:
    out = [f"**{variant.power_name(mine.power)} in {mine.game}, {phase_name(mine.phase)}**"
           + (f" · due {timestamp(mine.deadline_at)}" if mine.deadline_at else "")]
    out.append(_standing_header(len(mine.orders), mine.phase))
    out += [f"• {long_order(without_power(line.canonical or '')[1], variant)}" for line in mine.orders]
    if not mine.must_order:
        out.append("(You have nothing to order this phase.)")
    if mine.prestige is not None:
        out.append(f"Prestige: {mine.prestige}")
    return "\n".join(out)


# -- a game ----------------------------------------------------------------------------------------


def status_text(view: GameView, variant: Variant) -> str:
    """Phase, deadline and who has orders in; never what the orders are."""
    out = [f"**{view.name}** ({view.variant}) · {view.status} · {phase_name(view.phase)}"]
    if view.status == "active":
        out.append(f"Deadline: {deadline_text(view.deadline_at)}")
    elif view.status == "paused":
        out.append("Deadline: suspended while the game is paused")
    out.append(f"Game master: {mention(view.gm)}")
    if view.players:
        out.append("Players:")
    for p in sorted(view.players, key=lambda p: p.power or "~"):
        if p.power is None:
            mark, label = "·", ""
        elif view.status in ("active", "paused") and p.power in view.must_order:
            mark, label = ("✅", " · orders in") if p.has_orders else ("⏳", " · no orders yet")
        else:
            mark, label = "—", ""
        name = variant.power_name(p.power) if p.power else "(power to be drawn)"
        extra = f" · {view.centers.get(p.power, 0)} centres" if view.centers and p.power else ""
        status = f" · {p.status.replace('_', ' ')}" if p.status != "active" else ""
        out.append(f"{mark} {name}: {mention(p.player)}{extra}{status}{label}")
    if view.outcome:
        if view.outcome.get("winner"):
            out.append(f"Won by {view.outcome['winner']}.")
        elif view.outcome.get("draw"):
            out.append("Drawn between " + ", ".join(view.outcome["draw"]) + ".")
    return "\n".join(out)


# -- results ---------------------------------------------------------------------------------------


def results_embeds(season: dict, variant: Variant, *, next_phase: str | None, deadline: datetime | None,
                   colours: bool = True) -> list[discord.Embed]:
    """The season's results: a summary, then one embed per power with every order, outcome and reason."""
    result = season["result"]
    by_power: dict[str, list[str]] = {}
    for entry in result.get("results", []):
        power, order = without_power(entry.get("canonical") or entry["order"])
        line = f"{MARK.get(entry['result'], '•')} {long_order(order, variant)}"
        if entry.get("reason"):
            line += f" — {entry['reason']}"
        by_power.setdefault(power or "?", []).append(line)
    for entry in result.get("implicit", []):
        power, order = without_power(entry["canonical"])
        line = f"▫️ {long_order(order, variant)} (no order given)"
        if entry.get("reason"):
            line += f" — {entry['reason']}"
        by_power.setdefault(power, []).append(line)

    summary = _summary_lines(season, variant, next_phase, deadline)
    title = f"{season['game']}: results of {phase_name(season['phase'])}"
    embeds = _split_embed(title[:TITLE_LIMIT], summary, None)
    for power in sorted(by_power):
        colour = _colour(variant, power) if colours else None
        name = variant.power_name(power) if power in variant.powers else ("Neutral units" if power == "NEU" else power)
        embeds += _split_embed(name, by_power[power], colour)
    return embeds


def _summary_lines(season: dict, variant: Variant, next_phase: str | None, deadline: datetime | None) -> list[str]:
    result = season["result"]
    events = result.get("events") or {}
    out: list[str] = []
    centres = events.get("centers") or []
    if centres:
        out.append("**Supply centres changing hands**")
        out += [f"{long_order(c['province'], variant)}: {c['from']} → {c['to']}" for c in centres]
    for d in events.get("dislodged") or []:
        out.append(f"Dislodged: {long_order(d['unit'], variant)} (from {long_order(d['from'], variant)})")
    for a in events.get("annihilated") or []:
        out.append(f"Destroyed (no retreat): {long_order(a['unit'], variant)}")
    bids = [e for e in result.get("results", []) if _is_bid(e)]
    if bids:
        out.append("**Bids**")
        for e in bids:
            power, order = without_power(e.get("canonical") or e["order"])
            won = "won" if e["result"] == "succeeds" else "lost"
            out.append(f"{power}: {long_order(order, variant)} — {won}"
                       + (f" ({e['reason']})" if e.get("reason") and e["result"] != "succeeds" else ""))
    for label, key in (("Vassals", "vassals"), ("Bribed units", "bribed")):
        if events.get(key):
            out.append(f"{label}: " + ", ".join(f"{long_order(p, variant)} → {w}" for p, w in events[key].items()))
    if events.get("rebellions"):
        out.append("Rebellions: " + ", ".join(long_order(p, variant) for p in events["rebellions"]))
    prestige = (result.get("position") or {}).get("prestige")
    if prestige:
        out.append("**Prestige for next year**: " + ", ".join(f"{p} {n}" for p, n in sorted(prestige.items())))
    if season.get("nmr"):
        out.append("No orders from: " + ", ".join(season["nmr"]))
    if events.get("eliminated"):
        out.append("Eliminated: " + ", ".join(events["eliminated"]))
    if events.get("victory"):
        out.append("Victory: " + ", ".join(events["victory"]))
    counts: dict[str, int] = {}
    for owner in ((result.get("position") or {}).get("supply_centers") or {}).values():
        counts[owner] = counts.get(owner, 0) + 1
    if counts:
        out.append("Centres: " + ", ".join(f"{p} {n}" for p, n in sorted(counts.items()) if p != "NEU"))
    if next_phase:
        out.append(f"Next: {phase_name(next_phase)}, orders due {deadline_text(deadline)}")
    return out or ["(nothing to report)"]


_PRESTIGE_WORDS = ("VASSAL", "BRIBE", "SEIZE", "REBEL", "SECURE", "LEND")  # how each prestige order begins


def _is_bid(entry: dict) -> bool:
    text = (entry.get("canonical") or entry.get("order") or "").upper()
    return " BID " in text or text.split(": ")[-1].startswith(_PRESTIGE_WORDS)


def _colour(variant: Variant, power: str) -> int | None:
    info = variant.powers.get(power)
    try:
        return int(info.colour.lstrip("#"), 16) if info else None
    except ValueError:
        return None


def _split_embed(title: str, lines: list[str], colour: int | None) -> list[discord.Embed]:
    """One embed, or several titled "(cont.)" when the lines do not fit one description."""
    out, current = [], ""
    for line in lines:
        line = line[: DESCRIPTION_LIMIT - 10]
        if current and len(current) + 1 + len(line) > DESCRIPTION_LIMIT - 200:
            out.append(current)
            current = line
        else:
            current = f"{current}\n{line}" if current else line
    out.append(current or "-")
    embeds = []
    for i, desc in enumerate(out):
        t = title if i == 0 else f"{title} (cont.)"
        embeds.append(discord.Embed(title=t[:TITLE_LIMIT], description=desc, colour=colour))
    return embeds


def embed_size(embed: discord.Embed) -> int:
    total = len(embed.title or "") + len(embed.description or "")
    total += sum(len(f.name or "") + len(f.value or "") for f in embed.fields)
    total += len(embed.footer.text or "") if embed.footer else 0
    total += len(embed.author.name or "") if embed.author else 0
    return total


def pack_embeds(embeds: Iterable[discord.Embed], *, footer_room: int = 120) -> list[list[discord.Embed]]:
    """Embeds grouped into messages of at most 10 embeds and 6000 characters (``footer_room``
    characters kept free per embed for a footer added later)."""
    messages: list[list[discord.Embed]] = [[]]
    size = 0
    for embed in embeds:
        n = embed_size(embed) + footer_room
        if messages[-1] and (len(messages[-1]) >= EMBEDS_PER_MESSAGE or size + n > EMBED_TOTAL):
            messages.append([])
            size = 0
        messages[-1].append(embed)
        size += n
    return [m for m in messages if m]


def public_text(body: str) -> str:
    return mentionify(body)
