"""A message of orders read once: each answer says which line of the message it is for, so a front
end that showed the player their lines answers each by its number, never by comparing texts."""

from __future__ import annotations

from bot.codec.limits import MAX_LINE

POWERS = {"AUS": "anna", "ENG": "ed", "FRA": "flo", "GER": "gus", "ITA": "ivo", "RUS": "rita", "TUR": "tom"}


def test_every_answer_names_the_line_it_answers(make_service, sqlite_db, clock):
    service, _, _ = make_service(sqlite_db)
    service.create_game("g", "standard", "gm", seed=3)
    for power, player in POWERS.items():
        service.join("g", player, power)
    service.start("g", "gm")
    long_line = "A mar - spa " + "x" * MAX_LINE
    lines = ["A par - bur",      # 1
             "",                 # 2: nothing
             "F bre - mao",      # 3
             "A zzz - bur",      # 4: no such place
             long_line,          # 5: too long to read
             "A par - bur"]      # 6: the same text as line 1, answered for itself
    report = service.submit_orders("g", "flo", "\n".join(lines))
    accepted = {line.line_no: line.written for line in report.accepted}
    rejected = {line.line_no: line.reason for line in report.rejected}
    assert accepted == {1: "A par - bur", 3: "F bre - mao", 6: "A par - bur"}
    assert set(rejected) == {4, 5}
    assert "characters long" in (rejected[5] or "")
    # orders kept as standing ones were written in a message; their line is that message's
    assert all(line.line_no is None for line in service.my_orders("g", "flo").orders)
