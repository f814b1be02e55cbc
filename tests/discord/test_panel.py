"""Orders by menus and buttons, driven on the test Discord the way a player does it: each tap an
interaction, the panel edited in place, the taps counted."""

from __future__ import annotations

import threading
from datetime import timedelta

from tests.fakediscord import payloads as P


async def settled(fake, inter):
    """The bot's answer to an interaction, once it is whole: ``(response, message)``, the message
    being the one it edited (a deferred update, then the panel edited through the interaction's
    webhook), sent (a new message, or a follow-up after "thinking") or None (a form)."""
    resp = await fake.wait_for_interaction_response(inter)
    if resp.type == 6:
        await fake.wait_until(lambda: inter.edits or inter.followup_ids, what="the deferred answer")
        if inter.followup_ids:
            return resp, fake._find_message(inter.followup_ids[0])[1]
        return resp, fake._find_message(inter.original_message_id)[1]
    if resp.type == 5:
        return resp, await fake.wait_for_followup(inter, timeout=30)
    if resp.type == 7:
        return resp, fake._find_message(inter.original_message_id)[1]
    return resp, resp.message


class Player:
    """A player tapping a panel: every tap goes through the fake Discord, and is counted."""

    def __init__(self, world, user) -> None:
        self.world, self.fake, self.user = world, world.fake, user
        self.taps = 0
        self.panel: dict | None = None

    async def open(self, game: str | None = None, *, guild: bool = False) -> str:
        """``/orders edit`` (in the DM channel, or in the server)."""
        self.taps += 1
        options = {"game": game} if game else {}
        if guild:
            inter = await self.world.slash(self.user, "orders edit", options)
        else:
            inter = await self.fake.slash(self.user, "orders edit", options)
        resp = await self.fake.wait_for_interaction_response(inter)
        assert resp.type == 4 and resp.data["flags"] & P.FLAG_EPHEMERAL, resp
        self.panel = resp.message
        return self.text

    async def open_from(self, message: dict) -> str:
        """The "Order by menu" button under a message of the bot's (an answer, a "to decide" DM)."""
        [button] = [c for row in message["components"] for c in row["components"] if c.get("label") == "Order by menu"]
        self.taps += 1
        inter = await self.fake.component(self.user, message, button["custom_id"])
        resp, self.panel = await settled(self.fake, inter)
        assert self.panel["flags"] & P.FLAG_EPHEMERAL, resp
        return self.text

    @property
    def text(self) -> str:
        return self.fake._find_message(int(self.panel["id"]))[1]["content"]

    def screen(self) -> str:
        """The panel as the player sees it: its text, then each menu (its options) and button."""
        _, message = self.fake._find_message(int(self.panel["id"]))
        out = [message["content"]]
        for row in message["components"]:
            for c in row["components"]:
                if c["type"] == 3:
                    options = ", ".join(o["label"] + (f" ({o['description']})" if o.get("description") else "")
                                        for o in c["options"])
                    out.append(f"[▾ {c['placeholder']}] {options}")
                else:
                    out.append(f"[{c['label']}]")
        return "\n".join(out)

    def menu(self, action: str) -> dict:
        """The component of the panel whose custom id's action is ``action`` (``unit``, ``do``...)."""
        _, message = self.fake._find_message(int(self.panel["id"]))
        for row in message["components"]:
            for c in row["components"]:
                if c.get("custom_id", "").split(":")[3] == action:
                    return c
        raise AssertionError(f"no {action!r} component on the panel: {message['components']}")

    def offered(self, action: str) -> dict[str, str]:
        """Label -> value of the options the menu ``action`` offers."""
        return {o["label"]: o["value"] for o in self.menu(action)["options"]}

    async def tap(self, action: str, label: str | None = None):
        """Choose ``label`` in the menu ``action`` (or press the button ``action``); the response."""
        component = self.menu(action)
        values = None
        if label is not None:
            offered = self.offered(action)
            assert label in offered, f"{label!r} not offered in {action}: {sorted(offered)}"
            values = [offered[label]]
        self.taps += 1
        inter = await self.fake.component(self.user, self.panel, component["custom_id"], values)
        return await self._settle(inter)

    async def fill_in(self, form: dict[str, str]):
        """Submit the form the last tap opened."""
        self.taps += 1
        opened = self.fake.interactions[max(self.fake.interactions)]
        inter = await self.fake.submit_modal(self.user, opened, form)
        return await self._settle(inter)

    async def _settle(self, inter):
        resp, message = await settled(self.fake, inter)
        if message is not None and message["id"] != self.panel["id"]:
            self.panel = message   # a panel opened afresh
        return resp


async def test_a_season_ordered_by_menu_on_the_standard_map(world):
    async with world.running():
        await world.start_game("menus")
        eng = Player(world, world.user("ENG"))
        text = await eng.open()
        assert "Your units (3)" in text and "F London: no order yet (it holds)" in text, text
        assert eng.taps == 1

        # a move: the unit, then where (3 taps with /orders edit)
        await eng.tap("unit", "F London")
        offered = eng.offered("do")
        assert "Move to English Channel" in offered and "Hold" in offered and "Support…" in offered
        assert "Move to Wales" in offered and "Move to Picardy" not in offered   # never an illegal order
        resp = await eng.tap("do", "Move to North Sea")
        assert resp.type == 6                       # acknowledged at once, the panel edited in place
        assert "✅ F London - North Sea" in eng.text, eng.text
        assert eng.taps == 3

        # Back leads to the units again, nothing given
        await eng.tap("unit", "A Liverpool")
        await eng.tap("main")
        assert "Your units (3)" in eng.text and "A Liverpool: no order yet (it holds)" in eng.text, eng.text

        # a support of another unit's move: unit, support, the unit supported, where (4 more taps)
        before = eng.taps
        await eng.tap("unit", "F Edinburgh")
        await eng.tap("do", "Support…")
        assert set(eng.offered("sup")) >= {"F London (yours)", "A Liverpool (yours)"}
        await eng.tap("sup", "A Liverpool (yours)")
        await eng.tap("to", "Move to Yorkshire")
        assert eng.taps - before == 4
        assert "✅ F Edinburgh S A Liverpool - Yorkshire" in eng.text, eng.text

        # a typed order mixes with chosen ones: the same standing set
        answer = await world.dm("ENG", "A lvp - yor")
        assert "Your orders for S1901M now (3)" in answer, answer
        shown = world.service.my_orders("menus", f"discord:{world.user('ENG').id}")
        assert {str(ln.order) for ln in shown.orders} == {"F lon - nth", "F edi S A lvp - yor", "A lvp - yor"}

        # the answer by DM carries the button that opens the menu
        dm = world.fake.bot_messages(world.user("ENG"))[-1]
        button = dm["components"][0]["components"][0]
        assert button["label"] == "Order by menu"
        inter = await world.fake.component(world.user("ENG"), dm, button["custom_id"])
        resp, fresh = await settled(world.fake, inter)
        assert resp.type == 5 and fresh["flags"] & P.FLAG_EPHEMERAL     # a new panel, only the player sees it
        assert "A Liverpool: A Liverpool - Yorkshire" in fresh["content"], fresh["content"]

        # /orders show (its "To decide" list) carries the button too
        inter = await world.fake.slash(world.user("ENG"), "orders show", {})
        resp = await world.fake.wait_for_interaction_response(inter)
        shown_msg = (await world.fake.wait_for_followup(inter, timeout=30)) if resp.type == 5 else resp.message
        assert "Your orders for S1901M" in shown_msg["content"], shown_msg["content"]
        assert shown_msg["components"][0]["components"][0]["label"] == "Order by menu"

        # Ready ends it, as /ready does
        await eng.tap("ready")
        assert world.fake._find_message(int(eng.panel["id"]))[1]["components"] == []
        assert "final" in eng.text, eng.text
        assert world.service.my_orders("menus", f"discord:{world.user('ENG').id}").ready


async def test_a_stale_choice_is_refused_with_the_engines_reason(world):
    async with world.running():
        await world.start_game("stale")
        tur = Player(world, world.user("TUR"))
        await tur.open()
        await tur.tap("unit", "F Ankara")
        # meanwhile the phase is adjudicated: the panel says so and offers a fresh one
        world.clock.advance(timedelta(days=3))
        world.service.fire_due()
        await tur.tap("do", "Move to Black Sea")
        assert "earlier phase" in tur.text and "F1901M" in tur.text, tur.text
        reopen = tur.menu("open")
        assert reopen["label"].startswith("Open the menu for")
        await tur.tap("open")
        assert "Fall 1901" in tur.text, tur.text


async def test_a_panel_in_the_server_is_the_players_alone(world):
    async with world.running():
        await world.start_game("server")
        fra = Player(world, world.user("FRA"))
        text = await fra.open(guild=True)
        assert "A Paris" in text
        await fra.tap("unit", "A Paris")
        await fra.tap("do", "Move to Burgundy")
        assert "✅ A Paris - Burgundy" in fra.text
        # somebody else's tap on it is refused: it is not their power
        stranger = world.stranger
        inter = await world.fake.component(stranger, fra.panel, fra.menu("unit")["custom_id"], ["par"])
        _resp, told = await settled(world.fake, inter)
        assert told["id"] != fra.panel["id"] and told["flags"] & P.FLAG_EPHEMERAL  # a message of its own
        assert "not playing" in told["content"], told
        assert "✅ A Paris - Burgundy" in fra.text


CRUSADERS = ("ANT", "BYZ", "EDE", "FAT", "JER", "SEL", "RUM")


def _autumn_for_edessa(doc: dict) -> dict:
    """Autumn 1101 on the crusader map: Edessa with 8 units (7 of its own and a vassal, the Aleppo
    neutral), 5 prestige; the Seldjuks of the East in reach of Mardin; the Shaizar neutral at home."""
    units = ["EDE: A ede", "EDE: A rab", "EDE: A tur", "EDE: A har", "EDE: A mar", "EDE: A ata", "EDE: F nlc",
             "NEU: A ale", "NEU: A sha", "SEL: A meu", "SEL: A jez", "SEL: A bag"]
    centres = {"ede": "EDE", "rab": "EDE", "tur": "EDE", "har": "EDE", "mar": "EDE", "mel": "EDE", "cyp": "EDE",
               "tri": "EDE", "hom": "EDE",
               "bag": "SEL", "bas": "SEL", "mos": "SEL"}
    return {**doc, "phase": "F1101M", "units": units, "supply_centers": centres,
            "prestige": {**doc["prestige"], "EDE": 5}, "vassals": {"ale": "EDE"}}


async def test_a_whole_season_for_eight_units_by_menu_only(world, capsys):
    from sqlmodel import select

    from bot.store.rows import GameRow

    users = dict(zip(CRUSADERS, world.players.values()))
    async with world.running():
        _resp, text = await world.answer(world.gm, "game new", {"name": "Outremer", "variant": "crusader"})
        for power, user in users.items():
            await world.answer(user, "join", {"game": "Outremer", "power": power})
        _resp, text = await world.answer(world.gm, "game start", {"game": "Outremer"})
        assert "is active" in text, text
        screens: list[str] = []
        with world.db.session() as session:
            row = session.exec(select(GameRow).where(GameRow.name == "Outremer")).one()
            row.position = _autumn_for_edessa(row.position)
            row.phase = "F1101M"
            session.add(row)

        ede = Player(world, users["EDE"])
        taps: dict[str, int] = {}

        async def order(name: str, *steps: tuple[str, str | None]) -> None:
            """One order from the open panel, its taps counted."""
            before = ede.taps
            for action, label in steps:
                await ede.tap(action, label)
                screens.append(f"--- after choosing {label or action} ---\n{ede.screen()}")
            taps[name] = ede.taps - before

        text = await ede.open()
        screens.append(f"--- /orders edit ---\n{ede.screen()}")
        assert "Your units (8)" in text and "A Aleppo (vassal): no order yet (it holds)" in text, text
        opened = ede.taps
        assert list(ede.offered("pk")) == ["VASSAL", "BRIBE", "SEIZE FIEF", "SECURE LOYALTY", "LEND"], ede.offered("pk")

        # a BRIBE: the kind, the unit (with the least bid that can win), the bid in a form
        before = ede.taps
        await ede.tap("pk", "BRIBE")
        bribe = {o["label"]: o for o in ede.menu("pt")["options"]}
        assert "A Shaizar" in bribe and "needs at least 1" in bribe["A Shaizar"]["description"]
        assert "A Bagdad" not in bribe and "A Baghdad" not in bribe      # in its owner's home centre: never offered
        opened_form = await ede.tap("pt", "A Shaizar")
        assert opened_form.type == 9 and opened_form.data["title"] == "BRIBE A sha"
        await ede.fill_in({"amount": "2"})
        assert "✅ BRIBE A Shaizar BID 2" in ede.text, ede.text
        taps["BRIBE"] = ede.taps - before
        assert ede.offered("unit")["A Shaizar (if your bid wins)"] == "sha"

        # a kind with nothing to choose opens its form at once (SECURE LOYALTY)
        form = await ede.tap("pk", "SECURE LOYALTY")
        assert form.type == 9 and form.data["title"] == "SECURE LOYALTY", form.data      # (left unfilled)

        # every unit ordered by the menu
        await order("the bribed unit's order", ("unit", "A Shaizar (if your bid wins)"), ("do", "Hold"))
        await order("move", ("unit", "A Raban"), ("do", "Move to Melitene"))
        await order("vassal's move", ("unit", "A Aleppo (vassal)"), ("do", "Move to Ravendel"))
        await order("support of the vassal's move", ("unit", "A Turbessel"), ("do", "Support…"),
                    ("sup", "A Aleppo (yours)"), ("to", "Move to Ravendel"))
        await ede.tap("unit", "A Alexandretta")
        described = {o["label"]: o.get("description") for o in ede.menu("do")["options"]}
        assert described["Move to Tortosa"] == "A ata - tor (by convoy)" and described["Move to Alal"] == "A ata - ala"
        await ede.tap("main")
        await order("move by convoy", ("unit", "A Alexandretta"), ("do", "Move to Tortosa"))
        await order("convoy", ("unit", "F North Levantine Coast"), ("do", "Convoy…"),
                    ("con", "A Alexandretta (yours)"), ("to", "To Tortosa"))
        await order("hold", ("unit", "A Edessa"), ("do", "Hold"))
        await order("hold", ("unit", "A Harran"), ("do", "Hold"))
        await order("hold", ("unit", "A Mardin"), ("do", "Hold"))
        shown = world.service.my_orders("Outremer", f"discord:{ede.user.id}")
        assert sorted(str(ln.order) for ln in shown.orders) == sorted([
            "BRIBE A sha BID 2", "A sha H", "A rab - mel", "A ale - rav", "A tur S A ale - rav", "A ata - tor",
            "F nlc C A ata - tor", "A ede H", "A har H", "A mar H"])
        await ede.tap("ready")

        # the Seldjuks type theirs: Mardin is taken, Edessa's army there dislodged
        answer = await world.dm(users["SEL"], "A meu - mar\nA jez S A meu - mar\nA bag H")
        assert "Understood (3)" in answer, answer
        _resp, text = await world.answer(world.gm, "game adjudicate", {"game": "Outremer"})
        await world.flush()
        assert world.service.status("Outremer").phase == "F1101R"

        # the retreat, from the button under the DM that says what Edessa has to decide
        [told] = [m for m in world.fake.bot_messages(ede.user) if "has to decide" in m["content"]]
        assert "A Mardin: retreat to Diarbekir, or disband" in told["content"], told["content"]
        text = await ede.open_from(told)
        assert "A Mardin (dislodged)" in text, text
        before = ede.taps
        await ede.tap("unit", "A Mardin (dislodged)")
        assert set(ede.offered("do")) == {"Disband", "Retreat to Diarbekir"}, ede.offered("do")
        await ede.tap("do", "Retreat to Diarbekir")
        taps["retreat"] = ede.taps - before + 1
        assert "✅ A Mardin retreats to Diarbekir" in ede.text, ede.text
        await ede.tap("ready")
        await world.answer(world.gm, "game adjudicate", {"game": "Outremer"})
        await world.flush()
        assert world.service.status("Outremer").phase == "W1101B", world.service.status("Outremer").phase

        # the winter: a build at the home centre left free, its unit type chosen
        text = await ede.open()
        assert "Builds left: 1" in text, text
        before = ede.taps
        assert set(ede.offered("site")) == {"Raban"}, ede.offered("site")
        await ede.tap("site", "Raban")
        assert set(ede.offered("do")) == {"Build an army in Raban"}      # inland: no fleet offered
        await ede.tap("do", "Build an army in Raban")
        taps["build"] = ede.taps - before + 1
        assert "✅ Build A Raban" in ede.text, ede.text
        await ede.tap("ready")
        await world.answer(world.gm, "game adjudicate", {"game": "Outremer"})
        await world.flush()
        assert world.service.status("Outremer").phase == "S1102M"

    assert taps["move"] + opened <= 4 and taps["support of the vassal's move"] + opened <= 6, taps
    with capsys.disabled():
        print("\ntaps per order (after /orders edit, which is 1 more):", taps)
        if "-s" in __import__("sys").argv:
            print("\n\n".join(screens))


async def _crusader_game(world) -> dict:
    users = dict(zip(CRUSADERS, world.players.values()))
    await world.answer(world.gm, "game new", {"name": "Outremer", "variant": "crusader"})
    for power, user in users.items():
        await world.answer(user, "join", {"game": "Outremer", "power": power})
    _resp, text = await world.answer(world.gm, "game start", {"game": "Outremer"})
    assert "is active" in text, text
    return users


async def test_a_choice_made_stale_by_a_typed_order_gets_the_typed_lines_reason(world):
    async with world.running():
        users = await _crusader_game(world)
        ede = Player(world, users["EDE"])
        await world.dm(users["EDE"], "BRIBE A har BID 1")
        await ede.open()
        await ede.tap("unit", "A Harran (if your bid wins)")
        assert "Hold" in ede.offered("do")
        # meanwhile the player withdraws the bid: the unit is not theirs to order any more
        _resp, text = await world.answer(users["EDE"], "orders clear", {"game": "Outremer", "province": "har"})
        assert "Withdrawn" in text, text
        await ede.tap("do", "Hold")
        typed = await world.dm(users["EDE"], "A har H")
        [reason] = [ln for ln in typed.splitlines() if "not your unit" in ln]
        assert reason in ede.text and "❌" in ede.text, (reason, ede.text)
        assert world.service.my_orders("Outremer", f"discord:{users['EDE'].id}").orders == ()


async def test_a_bid_is_checked_as_a_typed_one(world):
    async with world.running():
        users = await _crusader_game(world)
        ede = Player(world, users["EDE"])
        await ede.open()
        for amount, expected in (("two", "is not an amount of prestige"), ("1", "the minimum bid for VASSAL is 2"),
                                 ("3", "✅ VASSAL A Harran BID 3")):
            await ede.tap("pk", "VASSAL")
            form = await ede.tap("pt", "A Harran")
            assert form.type == 9 and "you may spend 2" in form.data["components"][0]["components"][0]["placeholder"]
            await ede.fill_in({"amount": amount})
            assert expected in ede.text, (amount, ede.text)
        # beyond what the power holds: accepted with the typed line's condition
        assert "⚠️ conditional" in ede.text, ede.text


def test_a_long_menu_is_paged_and_every_option_reachable():
    import discord

    from bot.frontends.discord.panel import MORE, _paged

    options = [discord.SelectOption(label=f"option {i}", value=str(i)) for i in range(60)]
    seen, page, pages = set(), 0, 0
    while True:
        shown = _paged(options, page)
        assert len(shown) <= 25
        seen |= {o.value for o in shown if not o.value.startswith(MORE)}
        pages += 1
        page = int(shown[-1].value[len(MORE):])
        if page == 0:
            break
    assert seen == {str(i) for i in range(60)} and pages == 3
    assert _paged(options[:25], 0) == options[:25]


async def _set_position(world, name: str, **changes) -> None:
    from sqlmodel import select

    from bot.store.rows import GameRow

    with world.db.session() as session:
        row = session.exec(select(GameRow).where(GameRow.name == name)).one()
        row.position = {**row.position, **changes}
        row.phase = changes.get("phase", row.phase)
        session.add(row)


async def test_a_winter_by_menu_builds_of_each_kind_a_waive_and_removals(world):
    async with world.running():
        await world.start_game("winter")
        await _set_position(world, "winter", phase="W1901B",
                            units=["ENG: F nth", "ENG: A yor", "ENG: F nwy", "RUS: A mos", "RUS: A war", "RUS: F sev",
                                   "RUS: F bot", "RUS: A ukr"],
                            supply_centers={"lon": "ENG", "edi": "ENG", "lvp": "ENG", "nwy": "ENG", "bel": "ENG",
                                            "mos": "RUS", "war": "RUS", "sev": "RUS"})
        eng = Player(world, world.user("ENG"))
        text = await eng.open()
        assert "Builds left: 2" in text and "Your units" not in text, text
        assert set(eng.offered("site")) == {"London", "Edinburgh", "Liverpool"}
        await eng.tap("site", "Edinburgh")
        assert set(eng.offered("do")) == {"Build an army in Edinburgh", "Build a fleet in Edinburgh"}
        await eng.tap("do", "Build a fleet in Edinburgh")
        assert "✅ Build F Edinburgh" in eng.text, eng.text
        await eng.tap("waive")
        assert "✅ Waive a build" in eng.text, eng.text
        sites = {o["label"]: o["description"] for o in eng.menu("site")["options"]}
        assert sites == {"London": "build here", "Edinburgh": "now: Build F Edinburgh", "Liverpool": "build here"}
        # a third choice takes the place of the oldest, as a typed one does (rules decision 29)
        await eng.tap("site", "London")
        await eng.tap("do", "Build an army in London")
        assert "✅ Build A London (replaces Build F Edinburgh)" in eng.text, eng.text

        rus = Player(world, world.user("RUS"))
        text = await rus.open()
        assert "Units still to remove: 1" in text and "Your units (5)" in text, text   # St Petersburg is Russia's still
        await rus.tap("unit", "A Ukraine")
        assert list(rus.offered("do")) == ["Disband"]
        await rus.tap("do", "Disband")
        assert "✅ Disband A Ukraine" in rus.text, rus.text
        await rus.tap("main")
        assert "A Ukraine: Disband A Ukraine" in rus.text and "still to remove" not in rus.text, rus.text


def held_panel(world, monkeypatch) -> threading.Event:
    """The judge's answers to the panel held back until the event returned is set (its workers busy)."""
    busy = threading.Event()
    panel = world.service.panel

    def slow_panel(*args, **kwargs):
        busy.wait(timeout=30)
        return panel(*args, **kwargs)

    monkeypatch.setattr(world.service, "panel", slow_panel)
    return busy


async def test_a_tap_is_acknowledged_before_the_judge_answers(world, monkeypatch):
    """A tap while the judge's workers are busy (an adjudication running) is acknowledged at once,
    within Discord's 3 seconds, and the panel edited once the answer is ready."""
    async with world.running():
        await world.start_game("busy")
        ita = Player(world, world.user("ITA"))
        await ita.open()
        busy = held_panel(world, monkeypatch)
        inter = await world.fake.component(ita.user, ita.panel, ita.menu("unit")["custom_id"], ["ven"])
        resp = await world.fake.wait_for_interaction_response(inter)
        assert resp.type == 6 and inter.edits == 0      # acknowledged while the judge has not answered
        busy.set()
        await world.fake.wait_until(lambda: inter.edits, what="the panel edited")
        assert "**A Venice**" in ita.text, ita.text


async def test_a_panel_opened_more_than_15_minutes_ago_still_answers_each_tap(world):
    """The token of the interaction that opened the panel has expired (Discord's 15 minutes, by the
    fake's clock): each tap is an interaction of its own, acknowledged and answered through its own
    token, so the panel still works."""
    async with world.running():
        await world.start_game("patient")
        fra = Player(world, world.user("FRA"))
        await fra.open()
        opened = world.fake.interactions[max(world.fake.interactions)]
        world.fake.advance_clock(20 * 60)
        resp = await fra.tap("unit", "A Paris")
        assert resp.type == 6 and "**A Paris**" in fra.text, fra.text
        await fra.tap("do", "Move to Burgundy")
        assert "✅" in fra.text and "A Paris - Burgundy" in fra.text, fra.text
        world.fake.advance_clock(20 * 60)
        await fra.tap("main")
        assert "A Paris: A Paris - Burgundy" in fra.text, fra.text
        assert world.fake.now() - opened.created > 40 * 60
        assert not [r for r in world.fake.requests if r.status == 401]


async def test_an_answer_later_than_the_taps_15_minutes_asks_the_player_to_open_the_menu_again(world, monkeypatch):
    """The judge's workers were busy past the 15 minutes of a tap's token: the panel cannot be
    edited any more (Discord answers 401 Invalid Webhook Token). The bot logs it, and tells the
    player by DM to open the menu again, with the button that opens it; nothing crashes."""
    from structlog.testing import capture_logs

    async with world.running():
        await world.start_game("slow")
        ita = Player(world, world.user("ITA"))
        await ita.open()
        before = ita.text
        panel = world.service.panel
        busy = held_panel(world, monkeypatch)
        with capture_logs() as events:
            inter = await world.fake.component(ita.user, ita.panel, ita.menu("unit")["custom_id"], ["ven"])
            resp = await world.fake.wait_for_interaction_response(inter)
            assert resp.type == 6
            world.fake.advance_clock(15 * 60 + 1)       # the judge answers after the tap's token expired
            busy.set()
            dm = await world.fake.wait_for_message(ita.user, lambda m: not m["flags"] & P.FLAG_EPHEMERAL)
            monkeypatch.setattr(world.service, "panel", panel)
        refused = [r for r in world.fake.requests if r.status == 401]
        assert refused and all(r.route.startswith("PATCH /webhooks/") for r in refused)
        assert ita.text == before and inter.edits == 0  # the panel as it was
        assert "15 minutes" in dm["content"] and "open the menu again" in dm["content"], dm["content"]
        [[button]] = [row["components"] for row in dm["components"]]
        [expired] = [e for e in events if e["event"] == "an answer of the orders menu too late for Discord"]
        assert expired["log_level"] == "warning"
        # the button in the DM opens a fresh panel, which works
        ita.taps += 1
        again = await world.fake.component(ita.user, dm, button["custom_id"])
        _resp, ita.panel = await settled(world.fake, again)
        assert "Your units (3)" in ita.text, ita.text
        await ita.tap("unit", "A Venice")
        assert "**A Venice**" in ita.text, ita.text


async def test_a_kind_of_order_with_nothing_to_choose_opens_its_form_at_once(world):
    """What the rule module says of its orders in a menu: SECURE LOYALTY has nothing to choose."""
    async with world.running():
        users = await _crusader_game(world)
        ede = Player(world, users["EDE"])
        await ede.open()
        form = await ede.tap("pk", "SECURE LOYALTY")
        assert form.type == 9 and form.data["title"] == "SECURE LOYALTY", form.data
        await ede.fill_in({"amount": "1"})
        assert "✅ SECURE LOYALTY BID 1" in ede.text, ede.text
