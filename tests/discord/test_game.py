"""A game on Discord end to end: created and started by slash commands, orders by DM, a deadline
passing under a controlled clock, results and the archive in the right channels, reminders only
to the players missing orders. The real discord.py bot against the fake Discord."""

from __future__ import annotations

from datetime import timedelta

from bot.store.outbox import DELIVERED, Delivery

async def test_a_game_is_created_joined_and_started_by_slash_commands(ref_of, visible, powers, world):
    fake = world.fake
    async with world.running():
        await world.start_game()
        [thread] = fake.threads(world.results)
        assert thread.name == "tannenberg archive"
        view = world.service.status("tannenberg")
        assert view.status == "active" and view.phase == "S1901M"
        assert {p.power: p.player for p in view.players} == {
            power: f"discord:{world.players[power].id}" for power in powers}
        assert view.gm == f"discord:{world.gm.id}"
        # the start is announced in the results channel, players mentioned
        [started] = [m for m in fake.bot_messages(world.results) if "has started" in m["content"]]
        assert f"<@{world.players['FRA'].id}>" in started["content"]
        assert {int(u["id"]) for u in started["mentions"]} == {u.id for u in world.players.values()}  # each pinged
        assert ref_of(started) == "1:0:started#1/1" and "ref" not in visible(started["content"])


async def test_orders_by_dm_good_bad_mixed_and_replaced(world):
    async with world.running():
        await world.start_game()
        good = await world.dm("FRA", "A par - bur\nF Brest to Mid-Atlantic Ocean\narmy marseilles holds")
        assert "✅ A Paris - Burgundy" in good
        assert "✅ F Brest - Mid-Atlantic Ocean" in good
        assert "✅ A Marseilles H" in good
        assert "Your orders for S1901M now (3)" in good
        assert "Not accepted" not in good

        bad = await world.dm("ENG", "F lon - xyz")
        assert "Not accepted (1)" in bad and "xyz" in bad and "F lon - xyz" in bad
        assert "Understood" not in bad and "You have no orders standing for S1901M." in bad

        mixed = await world.dm("GER", "A ber - kie\nA mun - xyz\nF kie - hol\nA mun - bur")
        assert "Understood (3)" in mixed and "Not accepted (1)" in mixed
        assert "✅ A Berlin - Kiel" in mixed and "✅ F Kiel - Holland" in mixed and "✅ A Munich - Burgundy" in mixed
        assert "Your orders for S1901M now (3)" in mixed

        replaced = await world.dm("FRA", "A par - pic")
        assert "✅ A Paris - Picardy" in replaced
        assert "Your orders for S1901M now (3)" in replaced
        standing = replaced.split("now (3):")[1]
        assert "Picardy" in standing and "Burgundy" not in standing and "Mid-Atlantic Ocean" in standing
        mine = world.service.my_orders("tannenberg", f"discord:{world.players['FRA'].id}")
        assert sorted(o.canonical for o in mine.orders) == ["FRA: A mar H", "FRA: A par - pic", "FRA: F bre - mao"]


async def test_one_players_orders_never_appear_in_anothers_replies(world):
    fake = world.fake
    async with world.running():
        await world.start_game()
        await world.dm("FRA", "A par - bur\nF bre - eng\nA mar - spa")
        await world.dm("GER", "A mun - bur\nF kie - den")
        resp, shown = await world.answer(world.players["GER"], "orders show", {"game": "tannenberg"})
        assert resp.ephemeral
        resp, status = await world.answer(world.players["ENG"], "status", {"game": "tannenberg"})
        for user in (world.players["GER"], world.players["ENG"], world.gm):
            for text in world.texts_to(user):
                assert "English Channel" not in text and "Spain" not in text
        assert "Burgundy" in shown and "Denmark" in shown and "English Channel" not in shown
        assert "Burgundy" not in status and "Denmark" not in status
        # no channel of the guild shows anybody's orders before adjudication (only the asker sees an
        # ephemeral answer)
        for channel in (world.results, fake.text_channel(world.guild, "general")):
            for message in fake.bot_messages(channel):
                if message["flags"] & 64:
                    assert message["interaction_metadata"]["user"]["id"] == str(world.players["GER"].id)
                    continue
                assert "Burgundy" not in message["content"] and "Denmark" not in message["content"]


async def test_status_shows_the_deadline_as_a_discord_timestamp_who_has_ordered_and_who_is_ready(start, world):
    async with world.running():
        await world.start_game()
        await world.dm("FRA", "A par - bur")
        await world.dm("GER", "A mun - bur")
        resp, text = await world.answer(world.players["GER"], "ready", {"game": "tannenberg"})
        assert resp.ephemeral and text.startswith("✅ Your orders for Spring 1901 Movement (S1901M) in 'tannenberg' "
                                                  "are final.\nNot ordered, so they hold: F Kiel, A Berlin")
        assert "Early adjudication is off in 'tannenberg': the phase ends at its deadline" in text
        resp, text = await world.answer(world.players["ENG"], "status", {"game": "tannenberg"})
        deadline = int((start + timedelta(hours=48)).timestamp())
        assert f"<t:{deadline}:R>" in text and f"<t:{deadline}:F>" in text
        lines = {line.split(":")[0]: line for line in text.splitlines() if line.startswith(("✅", "📝", "⏳"))}
        assert [k for k in lines if k.startswith("✅")] == ["✅ Germany"] and "· ready" in lines["✅ Germany"]
        assert [k for k in lines if k.startswith("📝")] == ["📝 France"]
        assert "orders in, not final" in lines["📝 France"]
        assert len([k for k in lines if k.startswith("⏳")]) == 5
        assert "Early adjudication: off" in text
        assert not resp.ephemeral


async def test_reminders_go_only_to_players_missing_orders_then_the_deadline_adjudicates(start, world):
    fake = world.fake
    async with world.running():
        await world.start_game()
        await world.dm("FRA", "A par - bur\nF bre - mao\nA mar - spa")
        await world.dm("GER", "A mun - bur\nF kie - den")
        await world.dm("ENG", "F lon - eng")
        before = {power: len(fake.bot_messages(user)) for power, user in world.players.items()}

        world.clock.advance(timedelta(hours=24))  # the 24-hour reminder
        assert world.service.fire_due() == 1
        await world.flush()
        reminded = {power for power, user in world.players.items() if len(fake.bot_messages(user)) > before[power]}
        assert reminded == {"AUS", "ITA", "RUS", "TUR"}
        note = fake.bot_messages(world.players["AUS"])[-1]["content"]
        assert "Reminder" in note and "tannenberg" in note and "AUS" in note

        world.clock.advance(timedelta(hours=24))  # the 1-hour reminder and the deadline
        world.service.fire_due()
        await world.flush()
        view = world.service.status("tannenberg")
        assert view.phase == "F1901M" and view.version == 1

        [post] = [m for m in fake.bot_messages(world.results) if m["embeds"]]  # the season: one message
        [summary] = post["embeds"]
        assert summary["title"] == "tannenberg: Spring 1901 Movement (S1901M)"
        assert "France (FRA): 5 (+2) · 3" not in summary["description"]  # centres change hands in the fall only
        assert "France (FRA): 3 · 3" in summary["description"] and "Austria (AUS): 3 · 3" in summary["description"]
        assert "No orders from: Austria (AUS), Italy (ITA), Russia (RUS), Turkey (TUR)" in summary["description"]
        assert "Next: Fall 1901 Movement (F1901M)" in summary["description"]
        next_deadline = int((start + timedelta(hours=96)).timestamp())
        assert f"<t:{next_deadline}:R>" in summary["description"]
        [picture] = post["attachments"]  # the map picture, shown in the summary
        assert fake.file_bytes(picture).startswith(b"\x89PNG")
        assert summary["image"]["url"] == f"attachment://{picture['filename']}" == "attachment://tannenberg-S1901M.png"
        # every order with its outcome, and the season's report, in the game's archive thread
        [thread] = fake.threads(world.results)
        [archived] = [m for m in fake.bot_messages(thread) if m["attachments"]]
        by_title = {e["title"]: e["description"] for e in archived["embeds"]}
        assert "✅ A Paris - Burgundy" not in by_title["France (FRA)"]  # Paris and Munich both went for Burgundy
        assert "❌ A Paris - Burgundy" in by_title["France (FRA)"] and "❌ A Munich - Burgundy" in by_title["Germany (GER)"]
        assert "✅ A Marseilles - Spain" in by_title["France (FRA)"]
        assert "✅ F Kiel - Denmark" in by_title["Germany (GER)"]
        assert "held, no order given: A Vienna, A Budapest, F Trieste" in by_title["Austria (AUS)"]
        report = fake.file_bytes(archived["attachments"][0]).decode()
        assert "S1901M" in report and "France (FRA):\n" in report and "  A Marseilles - Spain — succeeds" in report
        assert archived["attachments"][0]["filename"] == "0000-S1901M.txt"
        posts = [post, archived]
        # each message within Discord's limits (the fake refuses anything larger)
        assert all(len(m["embeds"]) <= 10 for m in posts)


async def test_a_result_is_posted_once_even_when_delivered_again(world):
    fake = world.fake
    async with world.running():
        await world.start_game()
        world.clock.advance(timedelta(hours=48))
        world.service.fire_due()
        await world.flush()
        count = len(fake.bot_messages(world.results))
        [thread] = fake.threads(world.results)
        archived = len(fake.bot_messages(thread))
        [results] = world.recorder.of_kind("results")
        notifier = world.bot.get_cog("Announce").notifier
        for place in await notifier.recipients(results):  # as after a crash: only the channel's history knows
            assert await notifier.deliver(Delivery(results, place, attempt=2, in_doubt=True)) == DELIVERED
        assert len(fake.bot_messages(world.results)) == count
        assert len(fake.bot_messages(thread)) == archived


async def test_a_crusader_game_with_prestige_bids_by_dm_and_results_that_say_who_won(world):
    fake = world.fake
    crusaders = dict(zip(["ANT", "BYZ", "EDE", "FAT", "JER", "SEL", "RUM"], world.players.values()))
    async with world.running():
        resp, text = await world.answer(world.gm, "game new", {"name": "outremer", "variant": "crusader"})
        assert "prestige rules" in text
        for power, user in crusaders.items():
            await world.answer(user, "join", {"game": "outremer", "power": power})
        await world.answer(world.gm, "game start", {"game": "outremer"})
        answer = await world.dm(crusaders["ANT"], "VASSAL A ale BID 2\nA ant H")
        assert "✅ VASSAL A Aleppo BID 2" in answer and "✅ A Antioch H" in answer
        answer = await world.dm(crusaders["JER"], "vassal A ale bid 1")
        assert "the minimum bid for VASSAL is 2 (rule 2.4.1)" in answer  # refused at submission
        answer = await world.dm(crusaders["JER"], "bribe A ale bid 1")
        assert "BRIBE A Aleppo BID 1" in answer
        resp, text = await world.answer(crusaders["ANT"], "prestige", {"game": "outremer"})
        assert resp.ephemeral and "The Principality of Antioch (you): 2" in text
        assert "VASSAL" not in text  # bids stay private
        resp, text = await world.answer(world.gm, "game adjudicate", {"game": "outremer"})
        await world.flush()
        [post] = [m for m in fake.bot_messages(world.results) if m["embeds"]]
        summary = post["embeds"][0]["description"]
        assert "**Prestige orders**" in summary and "ANT: VASSAL A Aleppo BID 2 — won, 2 spent" in summary
        assert "JER: BRIBE A Aleppo BID 1 — lost" in summary
        assert "Vassal: the neutral army of Aleppo obeys The Principality of Antioch" in summary
        assert "**Centres · units · prestige left for 1101**" in summary
        assert "The Principality of Antioch (ANT): 3 · 3 · 0" in summary
        assert "The Byzantine Empire (BYZ): 4 · 4 · 2" in summary
        [thread] = fake.threads(world.results)
        by_title = {e["title"]: e["description"] for m in fake.bot_messages(thread) for e in m["embeds"]}
        assert "takes A Aleppo as vassal" in by_title["The Principality of Antioch (ANT)"]


async def test_orders_show_attaches_a_picture_of_the_askers_own_orders_for_their_eyes_only(world):
    """``/orders show`` answers ephemerally with the player's standing orders drawn on the board:
    theirs and nobody else's; a player with no orders gets the text alone."""
    from adjudicator.variant import get_variant
    from bot.render.season import orders_picture

    fake = world.fake
    async with world.running():
        await world.start_game()
        await world.dm("FRA", "A par - bur\nF bre - mao")
        await world.dm("GER", "A mun - bur")
        inter = await world.slash(world.players["FRA"], "orders show", {"game": "tannenberg"})
        resp = await fake.wait_for_interaction_response(inter, timeout=30)
        assert resp.type == 5 and resp.ephemeral
        followup = await fake.wait_for_followup(inter, timeout=30)
        assert followup["flags"] & 64  # ephemeral: only the asker sees it
        assert "A Paris - Burgundy" in followup["content"]
        [picture] = followup["attachments"]
        assert picture["filename"] == "tannenberg-S1901M-FRA-orders.png"
        png = fake.file_bytes(picture)
        _variant, position = world.service.board("tannenberg")
        mine = [line.order for line in world.service.my_orders("tannenberg", f"discord:{world.players['FRA'].id}").orders]
        theirs = [line.order for line in world.service.my_orders("tannenberg", f"discord:{world.players['GER'].id}").orders]
        assert png == orders_picture(get_variant("standard"), position, mine)
        assert png != orders_picture(get_variant("standard"), position, mine + theirs)
        # no orders, no picture: the text says so
        inter = await world.slash(world.players["ENG"], "orders show", {"game": "tannenberg"})
        resp = await fake.wait_for_interaction_response(inter, timeout=30)
        assert resp.ephemeral and resp.type == 4
        assert not (resp.message or {}).get("attachments")
