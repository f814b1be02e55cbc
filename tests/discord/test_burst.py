"""Seven players and a stranger DM their orders in the same instant: the messages are taken
together, and each sender gets the answer to their own message, with their own orders only."""

from __future__ import annotations

import asyncio

from adjudicator.variant import get_variant


async def test_a_burst_of_dms_answers_each_sender_with_their_own_orders(powers, world):
    variant = get_variant("standard")
    units = {power: [variant.provinces[u.location.province].name for u in variant.powers[power].units]
             for power in powers}
    fake = world.fake
    async with world.running():
        await world.start_game()
        senders = [world.players[p] for p in powers] + [world.stranger]
        before = {u.id: len(fake.bot_messages(u)) for u in senders}
        texts = [f"{units[p][0]} holds\n{units[p][1]} holds\nzzz - yyy" for p in powers] + ["A par - bur"]
        await asyncio.gather(*(fake.user_sends_dm(u, t) for u, t in zip(senders, texts)))
        await fake.wait_until(lambda: all(len(fake.bot_messages(u)) > before[u.id] for u in senders),
                              what="an answer to every sender")
        await world.bot.drain()     # (answers of several pieces: all sent)
        for power in powers:
            answer = "\n".join(m["content"] for m in fake.bot_messages(world.players[power])[before[world.players[power].id]:])
            assert "Your orders for S1901M now (2)" in answer and "Not accepted (1)" in answer, (power, answer)
            others = {name for p, names in units.items() if p != power for name in names}
            assert f"{units[power][0]} H" in answer and f"{units[power][1]} H" in answer
            assert not [name for name in others if name in answer], (power, answer)
        stranger = fake.bot_messages(world.stranger)[before[world.stranger.id]:]
        assert "not playing in any running game" in stranger[0]["content"]
        for power in powers:
            mine = world.service.my_orders("tannenberg", f"discord:{world.players[power].id}")
            assert len(mine.orders) == 2


def test_discord_py_reads_the_gateway_with_orjson():
    """orjson is a dependency for this: the stdlib decoder took 9% of the bot's profile samples in a burst."""
    import discord.utils
    import orjson

    assert discord.utils.HAS_ORJSON and discord.utils._from_json is orjson.loads
