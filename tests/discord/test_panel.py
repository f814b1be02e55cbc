"""Orders by menus and buttons, driven on the test Discord the way a player does it: each tap an
interaction, the panel edited in place, the taps counted."""

from __future__ import annotations

from datetime import timedelta

from tests.fakediscord import payloads as P


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

    @property
    def text(self) -> str:
        return self.fake._find_message(int(self.panel["id"]))[1]["content"]

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
        resp = await self.fake.wait_for_interaction_response(inter)
        if resp.type == 4:   # a new message (a panel opened afresh)
            self.panel = resp.message
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
        assert resp.type == 7
        assert "✅ F London - North Sea" in eng.text, eng.text
        assert eng.taps == 3

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
        resp = await world.fake.wait_for_interaction_response(inter)
        assert resp.type == 4 and resp.data["flags"] & P.FLAG_EPHEMERAL
        assert "A Liverpool: A Liverpool - Yorkshire" in resp.message["content"], resp.message["content"]

        # Ready ends it, as /ready does
        resp = await eng.tap("ready")
        assert resp.type == 7 and resp.data["components"] == []
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
        resp = await tur.tap("do", "Move to Black Sea")
        assert resp.type == 7
        assert "earlier phase" in tur.text and "F1901M" in tur.text, tur.text
        reopen = tur.menu("open")
        assert reopen["label"].startswith("Open the menu for")
        resp = await tur.tap("open")
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
        resp = await world.fake.wait_for_interaction_response(inter)
        assert resp.type == 4 and resp.data["flags"] & P.FLAG_EPHEMERAL   # a message of its own; the panel untouched
        assert "not playing" in resp.data["content"], resp.data
        assert "✅ A Paris - Burgundy" in fra.text
