"""DMs sent while the bot is away are read when it comes back (orders carried out and answered,
or, when the phase they were written for has been adjudicated since, the player told to send
them again); a shutdown in the middle of a burst of DMs loses none and logs no error."""

from __future__ import annotations

import asyncio
import logging
from datetime import timedelta


async def test_orders_sent_while_the_bot_was_down_are_read_and_answered_when_it_starts(world):
    fake = world.fake
    async with world.running():
        await world.start_game()
        assert "✅ A Paris - Burgundy" in await world.dm("FRA", "A par - bur")
    # the bot is down: two players write
    await fake.user_sends_dm(world.players["GER"], "A mun - ruh\nA ber - kie")
    await fake.user_sends_dm(world.players["FRA"], "F bre - mao")
    before = {p: len(fake.bot_messages(world.players[p])) for p in ("GER", "FRA")}
    async with world.running():
        await fake.wait_until(lambda: all(len(fake.bot_messages(world.players[p])) > before[p] for p in before),
                              what="answers to the DMs sent while away")
        await world.bot.drain()
        answer = "\n".join(m["content"] for m in fake.bot_messages(world.players["GER"])[before["GER"]:])
        assert "A Munich - Ruhr" in answer and "A Berlin - Kiel" in answer
        orders = world.service.my_orders("tannenberg", f"discord:{world.players['FRA'].id}")
        assert {o.canonical for o in orders.orders} == {"FRA: A par - bur", "FRA: F bre - mao"}
    answered = len(fake.bot_messages(world.players["GER"]))
    async with world.running() as bot:  # read once: a further start reads nothing again
        taken: list = []

        async def take(message) -> None:
            taken.append(message)

        assert await bot.inbox.catch_up(take) == 0 and taken == []
        await bot.drain()  # (the start's own catch-up too)
        assert len(fake.bot_messages(world.players["GER"])) == answered


async def test_orders_written_for_a_phase_adjudicated_since_are_not_carried_out_and_the_player_is_told(world):
    fake = world.fake
    async with world.running():
        await world.start_game()
    await fake.user_sends_dm(world.players["ITA"], "A ven - tyr")
    world.clock.advance(timedelta(hours=49))  # the deadline passes while the bot is down
    world.service.fire_due()
    assert world.service.status("tannenberg").phase == "F1901M"
    async with world.running():
        await fake.wait_until(lambda: any("send them again" in m["content"]
                                          for m in fake.bot_messages(world.players["ITA"])),
                              what="the player told to send the orders again")
        [told] = [m["content"] for m in fake.bot_messages(world.players["ITA"]) if "send them again" in m["content"]]
        assert "S1901M in 'tannenberg', which it was written for, has been adjudicated since" in told
        assert "Orders for F1901M are due by" in told
        assert world.service.my_orders("tannenberg", f"discord:{world.players['ITA'].id}").orders == ()


async def test_a_shutdown_during_a_burst_loses_no_dm_and_logs_no_error(world, powers, caplog):
    fake = world.fake
    caplog.set_level(logging.WARNING)
    async with world.running():
        await world.start_game()
        senders = [world.players[p] for p in powers]
        sent = [asyncio.ensure_future(fake.user_sends_dm(u, f"A par H\nline {i}")) for i in range(8) for u in senders]
        await asyncio.sleep(0.02)
    await asyncio.gather(*sent)
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info], \
        [(r.name, r.getMessage()) for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    async with world.running():  # what was not answered before the shutdown is read now
        await fake.wait_until(lambda: all(len([m for m in fake.bot_messages(u) if "Your orders" in m["content"]
                                                or "Not accepted" in m["content"]]) >= 8 for u in senders),
                              what="an answer to every DM", timeout=30)
    # (leaving the block waits for every DM being handled: a second answer would be posted by then)
    for user in senders:  # each DM answered once
        answers = [m for m in fake.bot_messages(user) if "line " in m["content"]]
        assert sorted(int(m["content"].split("line ")[1].split()[0].strip("`'\"")) for m in answers) == \
            list(range(8)), [m["content"][:80] for m in answers]
