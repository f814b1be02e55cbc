"""Whole games of random play on the engine, every phase checked against the invariants a live
game relies on. The soak tests (``test_soak.py``) and the service's own soak build on it.

Each phase, every power that plays sends its orders the way a player does (one or two messages,
through :func:`adjudicator.turn.submit`, which keeps its standing orders); what stands is
adjudicated. Then:

- the position the judge wrote reads back as the same position (the reader never refuses it);
- no unit is lost or made up: those on the board and dislodged are those before, less the ones
  annihilated, disbanded and removed, plus the ones built;
- the game moves on (the next phase comes later), and has no surplus after winter;
- no power's prestige is negative;
- a bribed unit neither moves nor captures; a vassal moves and retreats only on its leash (one
  bought where it stood, further from home, may stay there);
- a retreat or adjustment phase is one where some power has something to decide exactly when
  the engine says so (:func:`adjudicator.turn.to_decide`);
- an order the engine accepted at submission is never found invalid at adjudication, unless its
  unit hung on a bid that lost.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field, replace

from adjudicator.adjudicate import adjudicate
from adjudicator.events import Events
from adjudicator.prestige.events import PrestigeEvents, PrestigeYear
from adjudicator.opening import starting_position
from adjudicator.position import Position
from adjudicator.prestige.neutrals import within_leash
from adjudicator.prestige.state import has_state, lord_of, neutral_home, put_state, state_of
from adjudicator.orders import Retreat
from adjudicator.results import Outcome
from adjudicator.turn import commands, game_over, submit, to_decide
from adjudicator.variant import get_variant
from adjudicator.vocab import NEUTRAL, PhaseKind, Season
from bot.codec.documents import position_from_dict, position_to_dict
from bot.codec.events import events_from_json, events_to_json
from tests.random_play import Style, random_orders

MOVEMENT, RETREAT, ADJUSTMENT = PhaseKind.MOVEMENT, PhaseKind.RETREAT, PhaseKind.ADJUSTMENT


@dataclass
class Record:
    """What one soak game did."""

    seed: int
    phases: int = 0
    kinds: dict[str, int] = field(default_factory=dict)
    outcomes: dict[str, int] = field(default_factory=dict)
    skipped: int = 0          # phases where nobody had anything to decide
    winner: tuple = ()
    last_phase: str = ""


def play_soak_game(seed: int, *, variant_name: str = "crusader", years: int = 30, style: Style = Style(),  # noqa: B008 (a frozen value)
                   check=None) -> Record:
    """Play one seeded random game to victory or ``years`` years, checking every phase."""
    variant = get_variant(variant_name)
    rng = random.Random(seed)
    position = starting_position(variant, () if variant.rules else ("prestige",))
    if has_state(position):
        position = put_state(position, replace(state_of(position), seed=seed))
    record = Record(seed)
    pending: dict = {}        # bribed units of a movement phase whose retreats come next
    while position.phase.year < variant.start_phase.year + years and not game_over(variant, position):
        orders, accepted, hung = _submit(rng, variant, position, style)
        adjudication = adjudicate(variant, position, orders)
        pending = check_phase(variant, position, orders, accepted, hung, adjudication, pending)
        if check is not None:
            check(variant, position, adjudication)
        record.phases += 1
        kind = position.phase.kind.value
        record.kinds[kind] = record.kinds.get(kind, 0) + 1
        for r in adjudication.results:
            record.outcomes[r.outcome.value] = record.outcomes.get(r.outcome.value, 0) + 1
        if position.phase.kind is not MOVEMENT and not to_decide(variant, position):
            record.skipped += 1
        position = adjudication.position
    record.winner = adjudication.events.victory if record.phases else ()
    record.last_phase = str(position.phase)
    return record


def _submit(rng: random.Random, variant, position: Position, style: Style):
    """Every power's standing orders, sent as one or two messages; which were accepted; the
    provinces whose units a power orders only through a bid."""
    given = random_orders(rng, variant, position, style)
    orders, accepted, hung = [], [], set()
    for power in variant.powers:
        mine = [o for o in given if o.power == power]
        if not mine:
            continue
        cut = rng.randrange(len(mine) + 1) if rng.random() < 0.3 else len(mine)
        standing: tuple = ()
        for message in (mine[:cut], mine[cut:]):
            if message:
                standing = submit(variant, position, power, message, standing).standing
        hung |= {(power, c.unit.province) for c in commands(variant, position, power, standing) if c.by == "bid"}
        orders += standing
        accepted += [True] * len(standing)
    return orders, accepted, hung


def check_phase(variant, before: Position, orders, accepted, hung, adjudication, pending: dict) -> dict:
    """Check one adjudicated phase (see the module's docstring); returns the bribed units whose
    captures the next phase (their retreats) must still show."""
    after = adjudication.position
    events = adjudication.events
    where = f"{before.phase}"
    assert after.phase.sort_key > before.phase.sort_key, f"{where}: the game did not move on"

    doc = json.loads(json.dumps(position_to_dict(after, variant)))
    _, back = position_from_dict(doc)
    assert back == after, f"{where}: the next position does not read back"
    written = json.loads(json.dumps(events_to_json(events, after.rules)))
    assert events_from_json(written, before.phase.kind, variant, after.rules) == events, \
        f"{where}: the events do not read back"

    year = events.rule_year if isinstance(events.rule_year, PrestigeYear) else None
    gone = (len(events.annihilated) + len(events.disbanded) + len(events.removed)
            + len(year.disbanded if year is not None else ()))
    made = len(events.built)
    assert len(after.units) + len(after.dislodged) == len(before.units) + len(before.dislodged) + made - gone, \
        f"{where}: units lost or made up"

    if before.phase.kind is ADJUSTMENT or (after.phase.kind is MOVEMENT and before.phase.season is Season.FALL):
        counts = after.center_counts()
        for power in variant.powers:
            assert len(after.units_of(power)) <= counts.get(power, 0), f"{where}: {power} has a surplus after winter"

    state = state_of(after)
    if state is not None:
        assert all(n >= 0 for n in state.prestige.values()), f"{where}: negative prestige {dict(state.prestige)}"
        assert all(n >= 0 for n in state.prestige_start.values()), f"{where}: negative prestige at the start"
        for loc, lord in state.vassals.items():     # (one bought where it stood may stay there)
            home = state.neutral_homes.get(loc, loc.province)
            came = before.unit_at(loc.province) is None or before.unit_at(loc.province).location != loc \
                or before.unit_at(loc.province).power != NEUTRAL
            assert not came or within_leash(variant, home, loc.province), \
                f"{where}: {lord}'s vassal went to {loc}, off its leash"

    for (i, order), ok in zip(enumerate(orders), accepted):
        result = adjudication.results[i]
        if ok and result.outcome is Outcome.INVALID:
            province = getattr(order, "location", None)
            assert province is not None and (order.power, province.province) in hung, \
                f"{where}: accepted at submission, invalid at adjudication: {order} ({result.reason})"

    pending = _bribes_hold(variant, before, after, events, pending, where)
    if state is not None:
        _neutrals_keep_their_homes(before, adjudication, where)

    if after.phase.kind is ADJUSTMENT:
        assert to_decide(variant, after), f"{after.phase}: an adjustment phase where nobody has anything to decide"
    if after.phase.kind is RETREAT:
        free = all(d.unit.power == NEUTRAL and lord_of(state_of(after), d.unit, dislodged=True) is None
                   for d in after.dislodged) \
            if has_state(after) else False
        assert (not to_decide(variant, after)) == free, f"{after.phase}: who decides the retreats is wrong"
    return pending


def _neutrals_keep_their_homes(before: Position, adjudication, where: str) -> None:
    """A neutral unit keeps its home wherever it goes, dislodged or not, and through the retreats
    its lord too: a dislodged neutral and the neutral that dislodged it stand in one province
    and are never taken for each other."""
    after, state_b, state_a = adjudication.position, state_of(before), state_of(adjudication.position)
    if before.phase.kind is MOVEMENT and after.phase.kind is RETREAT:
        for d in after.dislodged:
            if d.unit.power == NEUTRAL and before.unit_at(d.unit.province) == d.unit:
                assert neutral_home(state_a, d.unit, dislodged=True) == neutral_home(state_b, d.unit), \
                    f"{where}: the dislodged {d.unit} lost its home"
    if before.phase.kind is not RETREAT:
        return
    moved = {r.order.location: r.order.destination for r in (*adjudication.results, *adjudication.implicit)
             if isinstance(r.order, Retreat) and r.outcome is Outcome.SUCCEEDS}
    same_year = before.phase.season is not Season.FALL      # (vassals are released at the winter)
    for d in before.dislodged:
        unit = after.unit_at(moved[d.unit.location].province) if d.unit.location in moved else None
        if d.unit.power != NEUTRAL or unit is None:
            continue    # disbanded (at the retreat, or as homeless at the winter)
        assert neutral_home(state_a, unit) == neutral_home(state_b, d.unit, dislodged=True), \
            f"{where}: the neutral retreating from {d.unit.location} took another's home"
        assert not same_year or lord_of(state_a, unit) == lord_of(state_b, d.unit, dislodged=True), \
            f"{where}: the neutral retreating from {d.unit.location} took another's lord"
    for unit in before.units:
        if unit.power == NEUTRAL and after.unit_at(unit.province) == unit:
            kept = neutral_home(state_a, unit) == neutral_home(state_b, unit)
            assert kept, f"{where}: {unit} did not move and its home changed"


def _bribes_hold(variant, before: Position, after: Position, events: Events, pending: dict, where: str) -> dict:
    """A bribed unit does not move, and one standing in a centre at the end of autumn captures
    nothing (2.5.6, 2.8.5): the centre keeps its owner (or turns neutral, if it rebelled). When
    some unit was dislodged, the season ends with the retreats: the units go on being watched."""
    watch = dict(pending)       # province -> (the bribed unit, the centre's owner before the season)
    if before.phase.kind is MOVEMENT:
        dislodged = {d.unit for d in events.dislodged}
        for province in (events.rule.bribed if isinstance(events.rule, PrestigeEvents) else {}):
            unit = before.unit_at(province)
            if unit not in dislodged:
                watch[province] = (unit, before.supply_centers.get(province))
    disbanded = set(events.rule_year.disbanded if isinstance(events.rule_year, PrestigeYear) else ())
    for province, (unit, _) in watch.items():
        assert after.unit_at(province) == unit or unit in disbanded, f"{where}: the bribed {unit} moved"
    if after.phase.kind is RETREAT:
        return watch
    if before.phase.season is Season.FALL:
        for province, (unit, owner) in watch.items():
            if province in variant.supply_centers:
                assert after.supply_centers.get(province) in (owner, NEUTRAL), \
                    f"{where}: the bribed {unit} captured {province}"
    return {}
