"""Seasons keep their orders and results as values (``bot.codec.season``), not as text.

Each season's orders lose ``canonical`` (the order in the judge's notation) for ``order`` (its
fields), and its result document becomes the adjudication as values: each result's order as
fields beside its outcome and reason, the judge's own orders likewise, the events and the next
position as they were. Each existing season's text is read once, here, with the reader of the
judge's notation as it was then (``bot.store.migrations.orders_0003``, frozen), and the documents
are rebuilt as they were then: this migration imports nothing that changes.

Revision ID: 0004
Revises: game_key_0001
"""

from __future__ import annotations

from datetime import datetime

import sqlalchemy as sa
from alembic import op

from bot.store.migrations.orders_0003 import order_json, order_text

revision = '0004'
down_revision = 'game_key_0001'
branch_labels = None
depends_on = None

_season = sa.table('season', sa.column('id', sa.Integer), sa.column('game_id', sa.Integer),
                   sa.column('version', sa.Integer), sa.column('phase', sa.String),
                   sa.column('position', sa.JSON), sa.column('orders', sa.JSON), sa.column('result', sa.JSON),
                   sa.column('seed', sa.BigInteger), sa.column('nmr', sa.JSON), sa.column('players', sa.JSON),
                   sa.column('deadline_at', sa.DateTime), sa.column('adjudicated_at', sa.DateTime),
                   sa.column('adjudicated_by', sa.String))
_game = sa.table('game', sa.column('id', sa.Integer), sa.column('name', sa.String))


def _rows(connection):
    return connection.execute(sa.select(_season, _game.c.name).join(_game, _game.c.id == _season.c.game_id)).all()


def _iso(text: str | None) -> str | None:
    return datetime.fromisoformat(text).isoformat() if text else None


def _board(doc: dict) -> dict:
    """A position document without its ``orders``."""
    return {k: v for k, v in doc.items() if k != "orders"}


def _result(entry: dict, phase: str) -> dict:
    return {"order": order_json(entry["canonical"], phase), "outcome": entry["result"], "reason": entry["reason"] or ""}


def upgrade() -> None:
    connection = op.get_bind()
    for row in _rows(connection):
        result = row.result
        orders = [{"power": o["power"], "text": o["text"], "order": order_json(o["canonical"], row.phase),
                   "key": o["key"], "seq": o["seq"], "submitted_at": _iso(o["submitted_at"])} for o in row.orders]
        values = {"results": [_result(e, row.phase) for e in result["results"]],
                  "implicit": [_result(e, row.phase) for e in result.get("implicit", [])],
                  "events": result.get("events", {}),
                  "position": _board(result["position"])}
        connection.execute(_season.update().where(_season.c.id == row.id).values(orders=orders, result=values))


def downgrade() -> None:
    connection = op.get_bind()
    for row in _rows(connection):
        result = row.result
        texts = [order_text(o["order"]) for o in row.orders]
        orders = [{"power": o["power"], "text": o["text"], "canonical": text, "key": o["key"], "seq": o["seq"],
                   "submitted_at": _iso(o["submitted_at"])} for o, text in zip(row.orders, texts)]
        document = {"results": [{"order": text, "canonical": order_text(r["order"]), "result": r["outcome"],
                                 "reason": r["reason"]} for text, r in zip(texts, result["results"])],
                    "position": result["position"]}
        if result["implicit"]:
            document["implicit"] = [{"canonical": order_text(r["order"]), "result": r["outcome"],
                                     "reason": r["reason"]} for r in result["implicit"]]
        if result["events"]:
            document["events"] = result["events"]
        connection.execute(_season.update().where(_season.c.id == row.id).values(orders=orders, result=document))
