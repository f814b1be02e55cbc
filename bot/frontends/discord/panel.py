"""Orders by menus and buttons: a panel, visible only to its player, for their power in the
current phase.

One row per unit the power orders, with its standing order; choosing a unit offers only the
orders the engine says it may take (:meth:`bot.service.GameService.choices`), grouped so that a
move is two choices (the unit, then where) and a support four (the unit, "support", the unit
supported, then where). Every choice that completes an order is an order value written in the
judge's notation, read back (:func:`adjudicator.notation.read_order`) and given to the service
(:meth:`~bot.service.GameService.submit_values`): the same checks and the same answer as a typed
line, the standing set shown afresh. "Ready" is the service's ``ready``, as ``/ready``.

The panel keeps no state in the bot: every component's custom id says what it is for
(``op:<game>:<phase version>:<action>:<arguments>``), so a panel keeps working through a restart
of the bot, and a panel of a phase adjudicated since says so and offers a fresh one. Each click is
acknowledged at once (Discord's 3 seconds, whatever the judge's workers are busy with) and the
panel edited in place as soon as the answer is ready, through that click's own interaction: a
panel is never cut off by the 15 minutes an interaction's token lives. An answer that comes later
than its own click's 15 minutes (the judge busy that long) cannot be shown there: the player is
told so by DM, with a button that opens the menu afresh. (A click whose answer is a form, the
amount of a bid, is answered with the form directly: Discord takes a form only first.)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import discord
import structlog
from discord.ext import commands

from adjudicator.modules import MenuEntry, menu_entry
from adjudicator.notation import NotationError, read_order
from adjudicator.orders import (Build, Convoy, Disband, Hold, Move, Order, Retreat, SupportHold, SupportMove,
                                Waive)
from adjudicator.turn import Verdict
from adjudicator.variant import Variant, get_variant
from adjudicator.vocab import Phase, Power, ProvinceId

from bot.codec.spelled import names, place, spell
from bot.codec.spelled import unit as spelled_unit
from bot.service import Panel, ServiceError, StalePanelError

from .client import BUG_APOLOGY, JudgeBotMixin, JudgeInteraction
from .formatting import CONTENT_LIMIT, phase_name, readiness_text, refusal_text, submission_reply, timestamp
from .identity import player_key
from .menu_button import PREFIX, custom_id, open_button

log = structlog.get_logger("crusader.discord")

PAGE = 24          # options of a menu page: the 25th is "more"
MORE = "~page:"
FORM = "~form:"
"""A kind of the rule module's orders with nothing to choose (SECURE LOYALTY): its option opens
the amount's form at once, for the template after this mark."""
GIVE = "~give:"
"""An order of the rule module that takes no amount (SEIZE FIEF): its option gives it at once."""
INVALID_WEBHOOK_TOKEN = 50027   # Discord's code for an interaction's token past its 15 minutes
TOO_LATE = ("The judge was busy for more than the 15 minutes Discord gives it to answer a choice in the orders "
            "menu, so the menu could not show the answer. Your choice may have been taken: open the menu again "
            "to see your orders as they stand.")


@dataclass(frozen=True)
class Click:
    """A panel component's custom id, read back."""

    game: str
    version: int | None
    action: str
    args: tuple[str, ...]

    @classmethod
    def parse(cls, text: str) -> Click | None:
        parts = text.split(":")
        if len(parts) < 4 or parts[0] != PREFIX or not parts[2].isdigit():
            return None
        version = int(parts[2])
        if parts[3] == "open":  # a game named by name (from an answer by DM): the rest is its name
            return cls(":".join(parts[4:]) or parts[1], None, "open", ())
        return cls(parts[1], version, parts[3], tuple(parts[4:]))


# -- what the panel shows --------------------------------------------------------------------


def _option(label: str, value: str, description: str | None = None) -> discord.SelectOption:
    return discord.SelectOption(label=label[:100], value=value[:100],
                                description=description[:100] if description else None)


def _paged(options: list[discord.SelectOption], page: int) -> list[discord.SelectOption]:
    """At most 25 options: a page of 24, and "more" leading to the next page (the last back to the first)."""
    if len(options) <= 25:
        return options
    pages = (len(options) + PAGE - 1) // PAGE
    page %= pages
    shown = options[page * PAGE:(page + 1) * PAGE]
    nxt = (page + 1) % pages
    return shown + [_option(f"More… (page {nxt + 1} of {pages})", f"{MORE}{nxt}",
                            "the other choices" if nxt else "back to the first page")]


def _header(panel: Panel, variant: Variant) -> str:
    due = f" · due {timestamp(panel.deadline_at)}" if panel.deadline_at else ""
    return f"**{variant.power_name(Power(panel.power))} in {panel.game}, {phase_name(panel.phase)}**{due}"


def _unit_line(u, variant: Variant, kind: str = "M") -> str:
    by = {"vassal": " (vassal)", "bid": " (if your bid wins)", "dislodged": " (dislodged)"}.get(u.by, "")
    order = spell(u.standing.order, variant) if u.standing is not None else _default(u.by, kind)
    return f"{spelled_unit(u.unit, variant)}{by}: {order}"


def _default(by: str, kind: str) -> str:
    """What the judge does with a unit given no order (rules: it holds; a dislodged one is disbanded;
    in winter, civil disorder chooses the removals not made)."""
    if by == "dislodged":
        return "no order yet (it is disbanded)"
    if kind == "B":
        return "stays, unless the judge must remove it for you"
    return "no order yet (it holds)"


def main_text(panel: Panel, variant: Variant, answer: str | None = None) -> str:
    """The panel's text: the answer to the last choice (the same as to a typed message), or the
    units and their orders."""
    if answer:
        return _fit(answer + "\n\nChoose a unit to order it again, or press Ready once your orders are final.")
    out = [_header(panel, variant)]
    if panel.units:
        out.append(f"Your units ({len(panel.units)}): choose one to order it.")
        out += [f"• {_unit_line(u, variant, panel.kind)}" for u in panel.units]
    if panel.duty.builds:
        out.append(f"Builds left: {panel.duty.builds} (choose a site, or waive).")
    if panel.duty.disbands:
        out.append(f"Units still to remove: {panel.duty.disbands}.")
    others = [ln.order for ln in panel.standing if ln.order is not None and not any(
        u.standing is ln for u in panel.units)]
    if others:
        out.append("Other orders:")
        out += [f"• {spell(order, variant)}" for order in others]
    if panel.spendable:
        out.append(f"Prestige you may spend: {panel.spendable}.")
    if not panel.must_decide:
        out.append("You have nothing to decide in this phase.")
    elif panel.ready:
        out.append("✅ You have said these orders are final; a new order takes it back.")
    return _fit("\n".join(out))


def _fit(text: str) -> str:
    return text if len(text) <= CONTENT_LIMIT else text[:CONTENT_LIMIT - 1] + "…"


def _view() -> discord.ui.View:
    return discord.ui.View(timeout=None)


def _done(view: discord.ui.View) -> discord.ui.View:
    view.stop()  # kept by nobody: every click is read from its custom id (PanelCog.on_interaction)
    return view


def _select(cid: str, placeholder: str, options: list[discord.SelectOption], row: int) -> discord.ui.Select:
    return discord.ui.Select(custom_id=cid[:100], placeholder=placeholder[:150], options=options, row=row)


def _buttons(view: discord.ui.View, panel: Panel, *, back: bool) -> None:
    g, v = panel.game_id, panel.version
    if back:
        view.add_item(discord.ui.Button(label="Back", style=discord.ButtonStyle.secondary,
                                        custom_id=custom_id(g, v, "main"), row=4))
    else:
        view.add_item(discord.ui.Button(label="Refresh", style=discord.ButtonStyle.secondary,
                                        custom_id=custom_id(g, v, "main"), row=4))
    if panel.must_decide:
        view.add_item(discord.ui.Button(label="Ready", emoji="✅", style=discord.ButtonStyle.success,
                                        custom_id=custom_id(g, v, "ready"), row=4))


def main_view(panel: Panel, variant: Variant, page: int = 0) -> discord.ui.View:
    """The units (a menu), the build sites and a waive in winter, Refresh and Ready."""
    view = _view()
    g, v = panel.game_id, panel.version
    if panel.units:
        lines = [_unit_line(u, variant, panel.kind).split(": ", 1) for u in panel.units]
        options = [_option(who, u.unit.province, order) for u, (who, order) in zip(panel.units, lines)]
        view.add_item(_select(custom_id(g, v, "unit"), "Choose a unit…", _paged(options, page), 0))
    allowed = panel.allowance.builds if panel.allowance is not None else panel.duty.builds
    sites = panel.allowance.sites if panel.allowance is not None else panel.duty.sites
    if allowed and sites:   # every site, also once the builds are used: a later one replaces the oldest
        built = {ln.order.location.province: ln.order for ln in panel.standing if isinstance(ln.order, Build)}
        options = [_option(place_of(p, variant), p, f"now: {spell(built[p], variant)}" if p in built else "build here")
                   for p in sites]
        view.add_item(_select(custom_id(g, v, "site"), "Build in…", _paged(options, page), 1))
    kinds = prestige_kinds(panel, variant)
    if kinds:
        options = [_option(e.label, FORM + e.template if not e.subject else e.kind, e.about) for e in kinds]
        view.add_item(_select(custom_id(g, v, "pk"), f"Prestige order… (you may spend {panel.spendable})", options, 2))
    if allowed:
        view.add_item(discord.ui.Button(label="Waive a build", style=discord.ButtonStyle.secondary,
                                        custom_id=custom_id(g, v, "waive"), row=3))
    _buttons(view, panel, back=False)
    return _done(view)


def place_of(province: str, variant: Variant) -> str:
    prov = variant.provinces.get(ProvinceId(province))
    return prov.name if prov is not None else province


def _what(order: Order, variant: Variant) -> tuple[str, str | None]:
    """A unit's order as a menu shows it: a short label and a description."""
    match order:
        case Hold():
            return "Hold", "stay where it is"
        case Retreat():
            return f"Retreat to {place(order.destination, variant)}", None
        case Move():
            by_sea = (order.unit_type is not None and order.unit_type.value == "A"
                      and order.destination.province not in variant.army_neighbours(order.location.province))
            return f"Move to {place(order.destination, variant)}", str(order) + (" (by convoy)" if by_sea else "")
        case Disband():
            return "Disband", "the unit leaves the board"
        case Build():
            kind = "an army" if order.unit_type is not None and order.unit_type.value == "A" else "a fleet"
            return f"Build {kind} in {place(order.location, variant)}", str(order)
    return spell(order, variant), str(order)


def unit_view(panel: Panel, variant: Variant, province: str, options: tuple[Order, ...],
              page: int = 0) -> tuple[str, discord.ui.View]:
    """What the unit (or build site) in ``province`` may do: hold and each move in one menu, with
    "support…" and "convoy…" leading to their own menus."""
    g, v = panel.game_id, panel.version
    unit = next((u for u in panel.units if u.unit.province == province), None)
    who = spelled_unit(unit.unit, variant) if unit is not None else place_of(province, variant)
    standing = unit.standing.order if unit is not None and unit.standing is not None else None
    lines = [_header(panel, variant), f"**{who}**" + (f": now {spell(standing, variant)}" if standing is not None
                                                    else "")]
    items = []
    for order in options:
        if isinstance(order, (SupportHold, SupportMove, Convoy)):
            continue
        label, description = _what(order, variant)
        items.append(_option(label, str(order), description))
    supports = sum(isinstance(o, (SupportHold, SupportMove)) for o in options)
    convoys = sum(isinstance(o, Convoy) for o in options)
    if supports:
        items.append(_option("Support…", "~support", f"{supports} possible supports: choose the unit next"))
    if convoys:
        items.append(_option("Convoy…", "~convoy", f"{convoys} possible convoys: choose the army next"))
    view = _view()
    if items:
        lines.append("What should it do?")
        view.add_item(_select(custom_id(g, v, "do", province), "Choose its order…", _paged(items, page), 0))
    else:
        lines.append("It can be given no order now.")
    _buttons(view, panel, back=True)
    return _fit("\n".join(lines)), _done(view)


def targets_view(panel: Panel, variant: Variant, province: str, options: tuple[Order, ...], kind: str,
                 page: int = 0) -> tuple[str, discord.ui.View]:
    """``kind`` "support" or "convoy": the units the unit in ``province`` may support (or the
    armies it may convoy), each once."""
    g, v = panel.game_id, panel.version
    wanted = (SupportHold, SupportMove) if kind == "support" else (Convoy,)
    seen: dict[str, list[SupportHold | SupportMove | Convoy]] = {}
    for order in options:
        if isinstance(order, wanted):
            seen.setdefault(order.target.province, []).append(order)
    items = []
    for target, orders in seen.items():
        first = orders[0]
        unit_words = (f"{first.target_type.value} {place(first.target, variant)}" if first.target_type is not None
                      else place(first.target, variant))
        owner = next((u for u in panel.units if u.unit.province == target), None)
        mine = " (yours)" if owner is not None else ""
        items.append(_option(f"{unit_words}{mine}", target, f"{len(orders)} possible"))
    who = spelled_unit(next(u.unit for u in panel.units if u.unit.province == province), variant)
    lines = [_header(panel, variant), f"**{who}** {kind}s which unit?"]
    view = _view()
    view.add_item(_select(custom_id(g, v, kind[:3], province), f"Which unit does it {kind}?",
                          _paged(items, page), 0))
    _buttons(view, panel, back=True)
    return _fit("\n".join(lines)), _done(view)


def destinations_view(panel: Panel, variant: Variant, province: str, target: str, options: tuple[Order, ...],
                      kind: str, page: int = 0) -> tuple[str, discord.ui.View]:
    """Where the unit in ``province`` supports (or convoys) the unit in ``target``: to hold, or each move."""
    g, v = panel.game_id, panel.version
    items: list[discord.SelectOption] = []
    for order in options:
        aimed = getattr(order, "target", None)
        if aimed is None or aimed.province != target:
            continue
        if kind == "support" and isinstance(order, SupportHold):
            items.insert(0, _option("Hold where it is", str(order), "support it to hold"))
        elif kind == "support" and isinstance(order, SupportMove):
            items.append(_option(f"Move to {place(order.destination, variant)}", str(order), str(order)))
        elif kind == "convoy" and isinstance(order, Convoy):
            items.append(_option(f"To {place(order.destination, variant)}", str(order), str(order)))
    who = spelled_unit(next(u.unit for u in panel.units if u.unit.province == province), variant)
    lines = [_header(panel, variant), f"**{who}** {kind}s the unit in {place_of(target, variant)}: where to?"]
    view = _view()
    if items:
        view.add_item(_select(custom_id(g, v, "to", province, kind[:3], target), "Choose…", _paged(items, page), 0))
    else:
        lines.append("Nothing is possible there any more.")
    _buttons(view, panel, back=True)
    return _fit("\n".join(lines)), _done(view)


def _entries(panel: Panel, variant: Variant) -> list[tuple[MenuEntry, Verdict]]:
    """Each rule order the power may give now, as the rule module offers it in a menu, with its verdict."""
    words = names(variant)
    out: list[tuple[MenuEntry, Verdict]] = []
    for vd in panel.rule_orders:
        entry = menu_entry(vd.understood, words)
        if entry is not None:
            out.append((entry, vd))
    return out


def prestige_kinds(panel: Panel, variant: Variant) -> list[MenuEntry]:
    """The kinds of the rule module's orders the power may give now, in the rules' order (the
    first order of each kind standing for it)."""
    first: dict[str, MenuEntry] = {}
    for entry, _ in _entries(panel, variant):
        first.setdefault(entry.kind, entry)
    return sorted(first.values(), key=lambda e: e.rank)


def prestige_view(panel: Panel, variant: Variant, kind: str, page: int = 0) -> tuple[str, discord.ui.View]:
    """The units, centres or powers a prestige order of ``kind`` may be given for, each with what
    it needs (the least bid that can win)."""
    g, v = panel.game_id, panel.version
    offered = [(e, vd) for e, vd in _entries(panel, variant) if e.kind == kind]
    if not offered:
        raise ServiceError("this menu is out of date: open a new one with /orders edit")
    items = []
    for entry, vd in offered:
        value = entry.template if entry.amount else GIVE + entry.template
        items.append(_option(entry.subject or entry.label, value, vd.note.text if vd.note else str(vd.understood)))
    label = offered[0][0].label
    lines = [_header(panel, variant), f"**{label}**: {offered[0][0].about}. You may spend {panel.spendable}."]
    view = _view()
    view.add_item(_select(custom_id(g, v, "pt", kind), f"{label} for…", _paged(items, page), 0))
    _buttons(view, panel, back=True)
    return _fit("\n".join(lines)), _done(view)


def amount_modal(panel: Panel, variant: Variant, text: str) -> discord.ui.Modal:
    """Asks the amount of the prestige order ``text`` (its notation without the amount)."""
    entry = next((e for e, _ in _entries(panel, variant) if e.amount and e.template == text), None)
    if entry is None:
        raise ServiceError("this menu is out of date: open a new one with /orders edit")
    least = entry.least if entry.least is not None else 1
    modal = discord.ui.Modal(title=entry.title[:45], custom_id=custom_id(panel.game_id, panel.version, "amt", text)[:100])
    modal.add_item(discord.ui.TextInput(
        label=entry.prompt, custom_id="amount", min_length=1, max_length=4,
        placeholder=f"at least {least}; you may spend {panel.spendable}"[:100]))
    modal.stop()  # read from its custom id when submitted (PanelCog.on_interaction)
    return modal


def stale_view(game: str, phase: str) -> discord.ui.View:
    return open_button(game, f"Open the menu for {phase}")


# -- the interactions --------------------------------------------------------------------------


class PanelCog(commands.Cog):
    """Reads every click of a panel from its custom id, whichever panel and whenever it was shown."""

    def __init__(self, bot: JudgeBotMixin) -> None:
        self.bot = bot
        self.service = bot.service

    async def open(self, interaction: JudgeInteraction, game: str) -> None:
        """``/orders edit``, or an "Order by menu" button: a new panel, only the player sees it."""
        panel = await self.bot.call(self.service.panel, game, player_key(interaction.user))
        variant = get_variant(panel.variant)
        await interaction.response.send_message(main_text(panel, variant), view=main_view(panel, variant),
                                                ephemeral=True)

    @commands.Cog.listener()
    async def on_interaction(self, interaction: JudgeInteraction) -> None:
        if interaction.type not in (discord.InteractionType.component, discord.InteractionType.modal_submit):
            return
        data = _payload(interaction)
        click = Click.parse(data.get("custom_id", ""))
        if click is None:
            return
        values = data.get("values") or []
        if not _opens_form(click, values[0] if values else ""):
            # acknowledged at once: the answer may wait for the judge's workers (an adjudication running)
            if click.action == "open" and not _on_panel(interaction):
                await interaction.response.defer(ephemeral=True, thinking=True)
            else:
                await interaction.response.defer()
        try:
            await self._answer(interaction, click)
        except discord.HTTPException as exc:
            if exc.code != INVALID_WEBHOOK_TOKEN:
                raise
            await self._too_late(interaction, click)

    async def _answer(self, interaction: JudgeInteraction, click: Click) -> None:
        try:
            await self.handle(interaction, click)
        except StalePanelError as exc:
            await self._show(interaction, f"{exc} Open a new menu for {phase_name(exc.phase)}:",
                             stale_view(click.game, exc.phase))
        except ServiceError as exc:
            await self._show(interaction, refusal_text(exc), None, fresh=True)
        except Exception as exc:
            if isinstance(exc, discord.HTTPException) and exc.code == INVALID_WEBHOOK_TOKEN:
                raise
            log.exception("a choice of the orders menu not taken", custom_id=_payload(interaction).get("custom_id"))
            await self._show(interaction, BUG_APOLOGY, None, fresh=True)

    async def _too_late(self, interaction: JudgeInteraction, click: Click) -> None:
        """The answer to a tap came after the tap's token expired (Discord's 15 minutes: the judge
        was busy that long), so neither the panel nor a message through the tap can show it: the
        player is told by DM, with the button that opens the menu afresh."""
        log.warning("an answer of the orders menu too late for Discord", user=interaction.user.id,
                    custom_id=_payload(interaction).get("custom_id"))
        try:
            await interaction.user.send(TOO_LATE, view=open_button(click.game, "Open the menu again"))
        except discord.HTTPException:
            log.warning("the player not told to open the menu again", user=interaction.user.id, exc_info=True)

    async def _show(self, interaction: JudgeInteraction, text: str, view: discord.ui.View | None,
                    *, fresh: bool = False) -> None:
        """Answer the click: the panel it came from edited in place, or (``fresh``) a new message only
        the player sees."""
        if interaction.response.is_done():
            if fresh or not _on_panel(interaction) or interaction.response.type is not \
                    discord.InteractionResponseType.deferred_message_update:
                await interaction.followup.send(text, view=view or discord.utils.MISSING, ephemeral=True)
            else:
                await interaction.edit_original_response(content=text, view=view)
        elif fresh or interaction.message is None:
            await interaction.response.send_message(text, view=view or discord.utils.MISSING, ephemeral=True)
        else:
            await interaction.response.edit_message(content=text, view=view)

    async def handle(self, interaction: JudgeInteraction, click: Click) -> None:
        player = player_key(interaction.user)
        values = _payload(interaction).get("values") or []  # (a form is answered before any other)
        value = values[0] if values else ""
        if click.action == "open":
            panel = await self.bot.call(self.service.panel, click.game, player)
            variant = get_variant(panel.variant)
            await self._show(interaction, main_text(panel, variant), main_view(panel, variant),
                             fresh=not _on_panel(interaction))
            return
        game, version = click.game, click.version
        panel = await self.bot.call(self.service.panel, game, player, version)
        variant = get_variant(panel.variant)
        page = int(value[len(MORE):]) if value.startswith(MORE) else 0
        if click.action == "main" or (click.action in ("unit", "site") and value.startswith(MORE)):
            await self._show(interaction, main_text(panel, variant), main_view(panel, variant, page))
        elif click.action == "ready":
            answer = await self.bot.call(self.service.ready, game, player, True)
            if answer.adjudicated:
                self.bot.kick_outbox()
            await self._show(interaction, _fit(readiness_text(answer, variant)), None)
        elif click.action == "waive":
            await self._submit(interaction, panel, variant, Waive(panel.power))
        elif click.action in ("unit", "site"):
            options = await self.bot.call(self.service.choices, game, player, value, version)
            await self._show(interaction, *unit_view(panel, variant, value, options))
        elif click.action == "do":
            province = click.args[0]
            if value in ("~support", "~convoy") or value.startswith(MORE):
                options = await self.bot.call(self.service.choices, game, player, province, version)
                if value.startswith(MORE):
                    await self._show(interaction, *unit_view(panel, variant, province, options, page))
                else:
                    await self._show(interaction, *targets_view(panel, variant, province, options, value[1:]))
            else:
                await self._submit(interaction, panel, variant, self._order(panel, variant, value))
        elif click.action in ("sup", "con"):
            province, kind = click.args[0], "support" if click.action == "sup" else "convoy"
            options = await self.bot.call(self.service.choices, game, player, province, version)
            if value.startswith(MORE):
                await self._show(interaction, *targets_view(panel, variant, province, options, kind, page))
            else:
                await self._show(interaction, *destinations_view(panel, variant, province, value, options, kind))
        elif click.action == "pk":
            if value.startswith(FORM):
                await interaction.response.send_modal(amount_modal(panel, variant, value[len(FORM):]))
            else:
                await self._show(interaction, *prestige_view(panel, variant, value, page))
        elif click.action == "pt":
            if value.startswith(MORE):
                await self._show(interaction, *prestige_view(panel, variant, click.args[0], page))
            elif value.startswith(GIVE):
                await self._submit(interaction, panel, variant, self._order(panel, variant, value[len(GIVE):]))
            else:
                await interaction.response.send_modal(amount_modal(panel, variant, value))
        elif click.action == "amt":
            text = ":".join(click.args)
            amount = _modal_value(_payload(interaction), "amount").strip()
            if not amount.isdigit():
                note = (f"❌ `{amount[:20]}` is not an amount of prestige: write a whole number, such as 2. "
                        f"Nothing was recorded.")
                await self._show(interaction, main_text(panel, variant, note), main_view(panel, variant))
                return
            await self._submit(interaction, panel, variant, self._order(panel, variant, f"{text} {int(amount)}"))
        elif click.action == "to":
            province, kind, target = click.args
            kind = "support" if kind == "sup" else "convoy"
            if value.startswith(MORE):
                options = await self.bot.call(self.service.choices, game, player, province, version)
                await self._show(interaction, *destinations_view(panel, variant, province, target, options, kind, page))
            else:
                await self._submit(interaction, panel, variant, self._order(panel, variant, value))
        else:
            raise ServiceError("this menu is out of date: open a new one with /orders edit")

    @staticmethod
    def _order(panel: Panel, variant: Variant, text: str) -> Order:
        """The order value a menu option stands for (written in the judge's notation)."""
        try:
            return read_order(f"{panel.power}: {text}", variant, phase=Phase.parse(panel.phase))
        except NotationError:
            raise ServiceError(f"{text!r} is not an order this menu offers: open a new one with /orders edit") from None

    async def _submit(self, interaction: JudgeInteraction, panel: Panel, variant: Variant, order: Order) -> None:
        """The chosen order, taken as a typed one; the panel shows the answer and the units afresh."""
        report = await self.bot.call(self.service.submit_values, panel.game_id, player_key(interaction.user),
                                     [order], panel.version)
        fresh = await self.bot.call(self.service.panel, panel.game_id, player_key(interaction.user))
        answer = submission_reply(report, variant).text
        await self._show(interaction, main_text(fresh, variant, answer), main_view(fresh, variant))


def _payload(interaction: JudgeInteraction) -> dict[str, Any]:
    """What a click or a form sent (its custom id, the values chosen, the form's fields), as read."""
    return dict(interaction.data or {})


def _on_panel(interaction: JudgeInteraction) -> bool:
    """Did the click come from a panel (a message only its player sees), to be edited in place?"""
    return interaction.message is not None and interaction.message.flags.ephemeral


def _opens_form(click: Click, value: str) -> bool:
    """Is the answer to this click a form (the amount of a prestige order)? Discord takes a form only
    as the first answer, so such a click is not acknowledged first."""
    if click.action == "pk":
        return value.startswith(FORM)
    return click.action == "pt" and not value.startswith(MORE) and not value.startswith(GIVE)


def _modal_value(data: dict | None, field: str) -> str:
    """The value of the text input ``field`` of a submitted modal."""
    for row in (data or {}).get("components", []):
        for item in row.get("components", [row.get("component")] if row.get("component") else []):
            if item and item.get("custom_id") == field:
                return item.get("value") or ""
    return ""


async def setup(bot: JudgeBotMixin) -> None:
    await bot.add_cog(PanelCog(bot))
