"""Pure functions from the service's answers to what Discord shows, within Discord's limits.

Limits (Discord's, enforced by the server): 2000 characters of message content; per message at
most 10 embeds and 6000 characters over all of them; an embed title 256, description 4096.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from collections.abc import Iterable

import discord

from adjudicator.results import Outcome
from adjudicator.variant import Variant
from adjudicator.vocab import Phase, PhaseKind, Power

from bot.codec.season import Season
from bot.codec.spelled import duty as spelled_duty
from bot.codec.spelled import spell
from bot.codec.spelled import unit as spelled_unit

from bot.service import GameView, NotPlayingError, OrderLine, PlayerOrders, Readiness, SubmissionReport
from bot.service.report import Report, report_lines, report_of
from bot.service.texts import AGAIN, SETTING_NAMES, setting, shown_player, when
from .identity import mention, mentionify

CONTENT_LIMIT = 2000
EMBEDS_PER_MESSAGE = 10
EMBED_TOTAL = 6000
DESCRIPTION_LIMIT = 4096
TITLE_LIMIT = 256

COASTS = {"nc": "north coast", "sc": "south coast", "ec": "east coast", "wc": "west coast"}
_TOKEN_RE = re.compile(r"\b([a-z][a-z0-9]{1,4})(?:/([a-z]{2}))?\b")
MARK = {Outcome.SUCCEEDS: "✅", Outcome.FAILS: "❌", Outcome.INVALID: "⛔"}


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


@dataclass(frozen=True)
class Reply:
    """An answer in one message (several only where Discord's 2,000 characters force it), with a
    file when the answer was cut short (the whole of it)."""

    text: str
    attachment: tuple[str, bytes] | None = None


MAX_ERRORS_SHOWN = 5
REPLY_BUDGET = CONTENT_LIMIT - 100


def submission_reply(report: SubmissionReport, variant: Variant) -> Reply:
    """The answer to a message of orders: what was understood, what was not and why (the first few
    in full, then how many more), and every order that now stands. A line written twice is listed
    once; an order a later line of the same message replaced says so."""
    head = [f"**{variant.power_name(report.power)} in {report.game}, {phase_name(report.phase)}**"
            + (f" · due {timestamp(report.deadline_at)}" if report.deadline_at else "")]
    standing = {line.canonical for line in report.standing}
    understood = []
    for line, times in _once(report.accepted, lambda ln: ln.canonical):
        note = _replacing(line, variant) if line.canonical in standing else " (replaced by a later line)"
        understood.append(f"✅ {_words(line, variant)}{_times(times)}{note}"
                          + (f"\n  ⚠️ conditional: {line.note}" if line.note is not None else ""))
    if understood:
        head.insert(1, f"Understood ({len(understood)}):")
        head[2:2] = understood
    tail = _to_decide(report.duty, report.phase, variant)
    tail.append(_standing_header(len(report.standing), report.phase))
    tail += [f"• {_words(line, variant)}" for line in report.standing]
    if report.duty is not None and not report.duty.must_decide and report.standing:
        tail.append("Nothing is left to decide: `/ready` once these orders are final.")
    if report.ready_cleared:
        tail.append("⚠️ You had said these orders were final; now that they changed, you are no longer ready: "
                    "`/ready` once they are.")
    if not report.accepted and not report.rejected:
        head.append("No order lines found in your message.")

    errors = [(f"❌ `{line.written.replace('`', chr(39))}`{_times(times)}", quote_block(line.reason or "not understood"))
              for line, times in _once(report.rejected, lambda ln: ln.written.strip())]
    if not errors:
        return Reply("\n".join(head + tail))
    shown: list[str] = [f"Not accepted ({len(errors)}):"]
    size = len("\n".join(head + tail)) + len(shown[0]) + 80
    for i, (written, why) in enumerate(errors):
        if i and (i >= MAX_ERRORS_SHOWN or size + len(written) + len(why) + 2 > REPLY_BUDGET):
            break
        shown += [written, why]
        size += len(written) + len(why) + 2
    else:
        return Reply("\n".join(head + shown + tail))
    left = len(errors) - i
    shown.append(f"… and {left} more line{'s' if left > 1 else ''} not accepted: every line and why is in the "
                 "attached file. Correct them and send them again.")
    whole = "\n".join(head + [f"Not accepted ({len(errors)}):"] + [f"{w}\n{why}" for w, why in errors] + tail)
    name = file_name(f"{report.game}-{report.phase}-not-accepted", "txt")
    return Reply("\n".join(head + shown + tail), (name, whole.replace("**", "").encode("utf-8")))


def submission_text(report: SubmissionReport, variant: Variant) -> str:
    """:func:`submission_reply`'s text."""
    return submission_reply(report, variant).text


def _once(lines, key) -> list[tuple[OrderLine, int]]:
    """Each line once (the first), with how many times it was written."""
    seen: dict = {}
    for line in lines:
        k = key(line)
        if k in seen:
            seen[k][1] += 1
        else:
            seen[k] = [line, 1]
    return [(line, n) for line, n in seen.values()]


def _replacing(line: OrderLine, variant: Variant) -> str:
    """`` (replaces A Paris - Burgundy)`` when the order took the place of another one."""
    if line.replaces is None or line.replaces == line.order:
        return ""
    return f" (replaces {spell(line.replaces, variant)})"


def _to_decide(todo, phase: str, variant: Variant) -> list[str]:
    """In a retreat or adjustment phase, what the power must decide: each dislodged unit and where it
    may retreat, the builds and their sites, or the units to remove (a movement phase's units are
    the player's own list)."""
    if todo is None or Phase.parse(phase).kind is PhaseKind.MOVEMENT or not todo.must_decide:
        return []
    return ["To decide:"] + [f"· {line}" for line in spelled_duty(todo, variant)]


def _times(n: int) -> str:
    return f" (written {n} times)" if n > 1 else ""


def _words(line: OrderLine, variant: Variant) -> str:
    return spell(line.order, variant) if line.order is not None else line.written


def _standing_header(n: int, phase: str) -> str:
    return f"Your orders for {phase} now ({n}):" if n else f"You have no orders standing for {phase}."


def my_orders_text(mine: PlayerOrders, variant: Variant) -> str:
    out = [f"**{variant.power_name(mine.power)} in {mine.game}, {phase_name(mine.phase)}**"
           + (f" · due {timestamp(mine.deadline_at)}" if mine.deadline_at else "")]
    if mine.must_order and mine.duty is not None and mine.duty.must_decide:
        out += ["To decide:"] + [f"· {line}" for line in spelled_duty(mine.duty, variant)]
    out.append(_standing_header(len(mine.orders), mine.phase))
    out += [f"• {_words(line, variant)}" for line in mine.orders]
    if not mine.must_order:
        out.append("(You have nothing to order this phase.)")
    elif mine.ready:
        out.append("✅ You have said these orders are final (`/ready ready:False` to take it back).")
    else:
        out.append("Once they are final: `/ready`.")
    if mine.column is not None:
        out.append(f"{mine.column[0].capitalize()}: {mine.column[1]}")
    return "\n".join(out)


def readiness_text(answer: Readiness, variant: Variant) -> str:
    """The answer to ``/ready``: where the player stands, what their orders leave to the judge's
    defaults, and whether the phase waits for anyone else."""
    where = f"{phase_name(answer.phase)} in '{answer.game.name}'"
    if not answer.ready:
        return f"Your orders for {where} are no longer marked final."
    out = [f"✅ Your orders for {where} are final."]
    left = answer.left
    if left.units:
        bid = {"bid": " (if your bid wins)", "vassal": " (vassal)"}
        out.append("Not ordered, so they hold: " + ", ".join(spelled_unit(c.unit, variant) + bid.get(c.by, "")
                                                              for c in left.units))
    elif left.retreats:
        out.append("Not ordered, so disbanded: " + ", ".join(spelled_unit(u, variant) for u, _ in left.retreats))
    elif left.must_decide:
        out += ["Not decided, so builds are waived and removals made as civil disorder makes them:"]
        out += [f"· {line}" for line in spelled_duty(left, variant)]
    if answer.adjudicated:
        out.append(f"Every power was ready: {answer.phase} has been adjudicated, and the results are being posted.")
    elif not answer.early:
        out.append(f"Early adjudication is off in '{answer.game.name}': the phase ends at its deadline, "
                   f"{deadline_text(answer.game.deadline_at)}. New orders before then make you not ready.")
    elif answer.waiting_for:
        n = len(answer.waiting_for)
        others = "the other power that must decide is" if n == 1 else f"the other {n} powers that must decide are"
        out.append(f"The phase ends as soon as {others} ready too, or at its deadline, "
                   f"{deadline_text(answer.game.deadline_at)}. New orders make you not ready.")
    return "\n".join(out)



def refusal_text(refusal: Exception) -> str:
    """A refusal of the service, as the person who asked reads it: to someone who plays no power, in
    the second person (what happened to them); otherwise its players named as mentions."""
    if isinstance(refusal, NotPlayingError):
        return refusal.to_player()
    return mentionify(str(refusal))


def settings_lines(policy) -> list[str]:
    """Every setting of a game's policy, a line each (``• movement phases: 48h``)."""
    return [f"• {SETTING_NAMES[key]}: {setting(policy, key)}" for key in SETTING_NAMES]


# -- a game ----------------------------------------------------------------------------------------


def status_text(view: GameView, variant: Variant) -> str:
    """Phase, deadline, who has orders in and who has said they are final (ready); never what the
    orders are."""
    running = view.status in ("active", "paused")
    out = [f"**{view.name}** ({view.variant}) · {view.status} · {phase_name(view.phase)}"]
    if view.status == "active":
        out.append(f"Deadline: {deadline_text(view.deadline_at)}")
    elif view.status == "paused":
        out.append("Deadline: suspended while the game is paused")
    if running:
        out.append("Early adjudication: on, the phase ends once every power marked ⏳ or 📝 is ready (`/ready`)"
                   if view.early else "Early adjudication: off, the phase ends at its deadline")
    out.append(f"Game master: {mention(view.gm)}")
    seated = [p for p in view.players if p.status != "waiting"]
    if seated:
        out.append("Players:")
    for p in sorted(seated, key=lambda p: p.power or "~"):
        if p.power is None:
            mark, label = "·", ""
        elif running and p.power in view.must_order and p.status not in ("civil_disorder", "removed"):
            mark, label = (("✅", " · ready") if p.ready else ("📝", " · orders in, not final") if p.has_orders
                           else ("⏳", " · no orders yet"))
        elif running and p.power in view.must_order:  # in civil disorder: not waited for
            mark, label = "—", " · orders in" if p.has_orders else ""
        else:
            mark, label = "—", ""
        name = variant.power_name(p.power) if p.power else "(power to be drawn)"
        extra = f" · {view.centers.get(p.power, 0)} centres" if view.centers and p.power else ""
        status = f" · {p.status.replace('_', ' ')}" if p.status != "active" else ""
        who = "no player" if p.status == "removed" else mention(shown_player(p.player, view.anonymous))
        out.append(f"{mark} {name}: {who}{extra}{status}{label}")
    waiting = [p for p in view.players if p.status == "waiting"]
    if waiting:
        out.append("Waiting list: " + (f"{len(waiting)} player(s)" if view.anonymous
                                       else ", ".join(mention(p.player) for p in waiting)))
    if view.outcome:
        if view.outcome.get("winner"):
            out.append(f"Won by {view.outcome['winner']}.")
        elif view.outcome.get("draw"):
            out.append("Drawn between " + ", ".join(view.outcome["draw"]) + ".")
    return "\n".join(out)


# -- results ---------------------------------------------------------------------------------------


def results_summary(season: Season, variant: Variant, *, next_phase: str | None, deadline: datetime | None,
                    at_once: bool = False, again: bool = False) -> list[discord.Embed]:
    """The season in one screen, from its results report (:mod:`bot.service.report`): what changed,
    every prestige order with its outcome, the year's prestige, the standings, who is out, what
    comes next. Usually one embed; more only when Discord's limits force it. Every order with its
    outcome is in :func:`results_detail`. ``again``: adjudicated before, and rolled back since."""
    title = f"{season.game}: {phase_name(str(season.phase))}" + (" (adjudicated again)" if again else "")
    lines = summary_lines(season, variant, next_phase=next_phase, deadline=deadline, at_once=at_once, again=again)
    return _split_embed(title[:TITLE_LIMIT], lines, None)


def summary_lines(season: Season, variant: Variant, *, next_phase: str | None, deadline: datetime | None,
                  at_once: bool = False, again: bool = False) -> list[str]:
    report = _report(season, next_phase, deadline, at_once=at_once, again=again)
    return [line for line in report_lines(report, "**{}**", every_order=False) if line]


def _report(season: Season, next_phase: str | None, deadline: datetime | None, *, at_once: bool = False,
            again: bool = False) -> Report:
    notices = [f"*{AGAIN}*"] if again else []
    if at_once:
        notices.append("No power had anything to decide in this phase: it was adjudicated at once.")
    following = f"Next: {phase_name(next_phase)}, orders due {deadline_text(deadline)}" if next_phase else ""
    return report_of(season, notices=notices, next_phase=following)


def results_detail(season: Season, variant: Variant, colours: bool = True) -> list[discord.Embed]:
    """Every order of the season with its outcome and reason, an embed per power (for the archive),
    from its results report; the units that simply held are named on one line."""
    embeds = []
    for group in _report(season, None, None).orders:
        colour = _colour(variant, group.power) if colours else None
        embeds += _split_embed(group.name, [f"{MARK[line.outcome]} {line.text}" for line in group.lines], colour)
    return embeds


def _colour(variant: Variant, power: Power) -> int | None:
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


def announcement_text(body: str, data: dict) -> str:
    """An announcement's text for Discord: its players as mentions, and the deadline it gives (written
    by :func:`bot.service.texts.when` in the game's zone) as a Discord timestamp, which every reader
    sees in their own time zone and as "in 2 days"."""
    text = mentionify(body)
    if data.get("deadline"):
        moment = datetime.fromisoformat(data["deadline"])
        text = text.replace(when(moment, data.get("timezone") or "UTC"), deadline_text(moment))
    return text


_UNSAFE_FILE_CHARS = re.compile(r"[^A-Za-z0-9_.-]+")


def file_name(stem: str, extension: str) -> str:
    """A file name Discord keeps as it is, whatever the game is called: letters, digits, ``_``, ``-``
    and ``.`` only (``attachment://`` links need the exact name), at most 100 characters."""
    safe = _UNSAFE_FILE_CHARS.sub("_", stem).strip("._") or "game"
    return f"{safe[:90]}.{extension}"
