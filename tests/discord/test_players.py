"""What players meet on Discord: deadlines in their own time zone, no visible machinery, answers
that fit one message whatever they send."""

from __future__ import annotations

from datetime import timedelta


def _stamps(moment) -> str:
    n = int(moment.timestamp())
    return f"<t:{n}:F> (<t:{n}:R>)"


async def test_announcements_and_reminders_give_the_deadline_as_a_discord_timestamp_and_no_visible_reference(
        start, ref_of, visible, world):
    fake = world.fake
    async with world.running():
        await world.start_game(timezone="Europe/Paris")
        deadline = start + timedelta(hours=48)
        [started] = [m for m in fake.bot_messages(world.results) if "has started" in m["content"]]
        assert _stamps(deadline) in started["content"]
        assert "UTC" not in started["content"] and "CET" not in started["content"]
        await world.answer(world.gm, "game extend", {"game": "tannenberg", "by": "1d"})
        await world.flush()
        [extended] = [m for m in fake.bot_messages(world.results) if "deadline extended" in m["content"]]
        assert _stamps(deadline + timedelta(days=1)) in extended["content"] and "UTC" not in extended["content"]

        world.clock.advance(timedelta(hours=48))  # the 24-hour reminder before the extended deadline
        world.service.fire_due()
        await world.flush()
        [reminder] = [m for m in fake.bot_messages(world.players["FRA"]) if "Reminder" in m["content"]]
        assert _stamps(deadline + timedelta(days=1)) in reminder["content"] and "UTC" not in reminder["content"]

        for message in fake.bot_messages(world.results) + fake.bot_messages(world.players["FRA"]):
            if message["author"]["id"] == str(fake.bot.id) and not message["flags"] & 64:
                assert "ref" not in visible(message["content"]).lower().split()
                assert "-# " not in message["content"]
        assert ref_of(reminder).startswith("1:0:reminder")


async def test_a_5000_character_message_of_bad_lines_gets_one_reply_with_the_rest_in_a_file(world):
    fake = world.fake
    async with world.running():
        await world.start_game()
        lines = [f"A xyz{i % 50:02d} moves to somewhere far away {i}" for i in range(130)]
        text = "\n".join(lines)[:5000]
        assert len(text) == 5000
        before = len(fake.bot_messages(world.players["FRA"]))
        await fake.user_sends_dm(world.players["FRA"], text)
        await fake.wait_until(lambda: len(fake.bot_messages(world.players["FRA"])) > before, what="the answer")
        await world.bot.drain()
        answers = fake.bot_messages(world.players["FRA"])[before:]
        assert len(answers) == 1
        [answer] = answers
        assert len(answer["content"]) <= 2000 and answer["content"].count("❌") == 5
        assert "more lines not accepted: every line and why is in the attached file" in answer["content"]
        assert "You have no orders standing for S1901M." in answer["content"]
        [attached] = answer["attachments"]
        assert attached["filename"] == "tannenberg-S1901M-not-accepted.txt"
        whole = fake.file_bytes(attached).decode()
        assert whole.count("❌") == len(text.splitlines())


async def test_errors_point_at_the_word_at_fault_and_guess_nothing_misleading(world):
    fake = world.fake
    crusaders = dict(zip(("ANT", "BYZ", "EDE", "FAT", "JER", "SEL", "RUM"), world.players.values()))
    async with world.running():
        await world.answer(world.gm, "game new", {"name": "outremer", "variant": "crusader"})
        for power, user in crusaders.items():
            await world.answer(user, "join", {"game": "outremer", "power": power})
        await world.answer(world.gm, "game start", {"game": "outremer"})
        answer = await world.dm(crusaders["FAT"], "Damietta will\nPlease hold the fleet in Lattakieh\n"
                                                  "A cai suports A min\nF alx H")
        assert "✅ F Alexandria H" in answer and "Not accepted (3):" in answer
        assert "Did you mean Damietta" not in answer and "two orders on one line" not in answer
        assert "'will' is not an order word after Damietta" in answer
        assert "'Please' is not a unit" in answer
        lines = answer.splitlines()
        written = lines.index("A cai suports A min")
        assert lines[written + 1].index("^") == "A cai suports A min".index("suports")  # the caret under it
        assert "Did you mean 'supports' for 'suports'?" in answer
    assert fake.problems() == []
