"""Press on Discord: /press send with its autocomplete, the DM form, what each recipient's DM says
(and that nobody else sees it), grey press, /press history."""

from __future__ import annotations


def _press_dms(world, power: str) -> list[str]:
    return [m["content"] for m in world.fake.bot_messages(world.players[power]) if "Press in 'tannenberg'" in m["content"]]


async def test_press_reaches_exactly_its_recipients_by_dm_and_nowhere_else(world, visible):
    fake = world.fake
    async with world.running():
        await world.start_game()
        _, text = await world.answer(world.players["ENG"], "press send",
                                        {"to": "FRA, ger, XYZ",
                                         "text": f"Let us share the Low Countries. @everyone <@{world.gm.id}>"})
        assert "Press sent in 'tannenberg' (S1901M) to FRA, GER, as ENG." in text
        assert "Not sent to XYZ: not a power of standard" in text
        await world.flush()
        for power in ("FRA", "GER"):
            [dm] = _press_dms(world, power)
            assert "from England (ENG) to France (FRA), Germany (GER)" in visible(dm)
            assert "Let us share the Low Countries." in dm and "ed" not in visible(dm).split()
        for power in ("AUS", "ITA", "RUS", "TUR", "ENG"):
            assert not _press_dms(world, power)
        channel = [m["content"] for m in fake.bot_messages(world.results)]
        assert not any("Low Countries" in c for c in channel)
        sent = [m for m in fake.bot_messages(fake.dm_channel(world.players["FRA"])) if "Low Countries" in m["content"]]
        assert sent and all(m["mentions"] == [] and not m["mention_everyone"] for m in sent)  # nobody pinged
        assert f"<@{world.gm.id}>" in sent[0]["content"]


async def test_the_dm_form_grey_press_and_history(world, visible):
    async with world.running():
        await world.start_game(press="grey")
        answer = await world.dm("FRA", "anonymous press to ENG, GER:\nBeware of the Russian.")
        assert "anonymously" in answer and "to ENG, GER" in answer
        answer = await world.dm("FRA", "press to ITA: signed this time")
        assert "as FRA" in answer
        await world.flush()
        [eng] = _press_dms(world, "ENG")
        assert "an anonymous power" in eng and "France" not in eng and "FRA" not in eng
        assert not _press_dms(world, "RUS")
        _, text = await world.answer(world.players["ENG"], "press history", {})
        assert "from an anonymous power to ENG, GER" in text and "Beware of the Russian." in text
        assert "signed this time" not in text
        answer = await world.dm("FRA", "press history")
        assert "sent to ENG, GER (anonymously)" in answer and "sent to ITA" in answer


async def test_refusals_under_the_press_rules_are_answered_clearly(world):
    async with world.running():
        await world.start_game(press="none")
        _, text = await world.answer(world.players["ENG"], "press send", {"to": "FRA", "text": "hello"})
        assert "no press between players" in text
        _, text = await world.answer(world.players["ENG"], "press send", {"to": "FRA", "text": "hi", "anonymous": True})
        assert "only under grey press" in text
        _, text = await world.answer(world.gm, "game settings", {"game": "tannenberg", "press": "public"})
        assert "press: none (no press between players) → public" in text
        _, text = await world.answer(world.players["ENG"], "press send", {"to": "ALL, GM", "text": "hello all"})
        assert "to everyone and the game master" in text
        _, text = await world.answer(world.gm, "press send", {"game": "tannenberg", "to": "ENG", "text": "noted"})
        assert "as the game master" in text
        _, text = await world.answer(world.gm, "press history", {"game": "tannenberg"})
        assert "The game master's press in 'tannenberg'" in text and "hello all" in text and "sent to ENG" in text
        assert "S1901M ENG: 1" in text


async def test_recipients_autocomplete_continues_the_list(world):
    fake = world.fake
    async with world.running():
        await world.start_game()
        inter = await fake.autocomplete(world.players["ENG"], "press send", {"to": "FRA, g"}, focused="to",
                                        guild=world.guild)
        resp = await fake.wait_for_interaction_response(inter)
    values = [c["value"] for c in resp.choices]
    assert values[:1] == ["FRA, GER"] and "FRA, GM" in values and not any(v.endswith("FRA") for v in values)


async def test_an_anonymous_game_names_no_player_in_its_channel_or_status(world, visible):
    fake = world.fake
    async with world.running():
        await world.start_game(anonymous=True)
        _, text = await world.answer(world.players["ENG"], "status", {"game": "tannenberg"})
        await world.answer(world.gm, "game replace", {"game": "tannenberg", "power": "ITA", "player": world.stranger})
        await world.flush()
        posted = [visible(m["content"]) for m in fake.bot_messages(world.results)]
        public_answers = [m for m in fake.bot_messages(world.results) if not m["flags"] & 64]
    users = [*world.players.values(), world.stranger]
    ids = {str(u.id) for u in users}
    assert "a player (this game is anonymous)" in text and not any(i in text for i in ids)
    assert any("has started" in p for p in posted)
    for message in public_answers:
        assert not any(i in message["content"] for i in ids), message["content"]
        assert not any(u.username in visible(message["content"]).split() for u in users)
