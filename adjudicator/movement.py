"""Resolving a movement phase: the DATC "Math of Adjudication" (Lucas Kruijswijk).

Every move, support and convoy is one decision: does the move succeed, is the support given,
does the convoying fleet stay (is it not dislodged)? Decisions are resolved on demand by
:meth:`_Resolver.resolve`, which guesses when it meets a decision already being resolved
(state GUESSING) and records the dependency. A decision that depends on its own guess is tried
both ways: one consistent answer is taken; two or none send the cycle to the backup rule:

- a cycle through a convoy is a convoy paradox: the Szykman rule makes every convoyed move
  of the cycle fail as if it had no route (it holds), and the rest is resolved again;
- any other cycle is circular movement: every move of it succeeds.

Strengths follow the DATC's definitions: attack, hold, defend and prevent strength, with
head-to-head battles (two units moving into each other's province, neither by convoy), the
beleaguered garrison, and the rules against self-dislodgement, which look at who *commands*
each unit this season (``commander``; by default its owner): a unit may not dislodge a unit
its own commander commands, and a support does not help dislodge a unit of the supporter's
commander.

An army moving to an adjacent province goes by convoy when ordered "via convoy" or when a
fleet its commander commands is legally ordered to convoy it there (the 2023 rulebook's
intent); once it goes by convoy it never falls back to the land route (DATC 4.A.3).

The orders given to :func:`resolve_movement` must be legal (see :mod:`.validate`); a unit
without an order holds.
"""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Iterable, Mapping
from typing import cast

from .orders import Convoy, Hold, Move, MovementOrder, SupportHold, SupportMove
from .position import Dislodgement
from .results import OrderResult, Outcome, Phrase, listed
from .maptables import map_tables
from .vocab import Location, Power, ProvinceId, Unit, UnitType
from .variant import Variant

ARMY = UnitType.ARMY
SUCCEEDS, FAILS = Outcome.SUCCEEDS, Outcome.FAILS

UNRESOLVED, GUESSING, RESOLVED = 0, 1, 2
HOLD, MOVE, SUPPORT, CONVOY = 0, 1, 2, 3
_NONE = 1 << 30     # no guess consulted


@dataclass(frozen=True)
class MovementOutcome:
    """What a movement phase did.

    ``results``: province of each unit -> the result of its order. ``units``: the units
    after the moves, dislodged units left out. ``dislodged``: each dislodged unit with where its
    attacker came from; ``dislodged_by`` names the commander of that attacker.
    ``standoffs``: provinces left empty by a standoff (no retreat may go there).
    """

    results: Mapping[ProvinceId, OrderResult]
    units: tuple[Unit, ...]
    dislodged: tuple[Dislodgement, ...]
    dislodged_by: Mapping[ProvinceId, Power]
    standoffs: frozenset[ProvinceId]
    moved: Mapping[ProvinceId, Location]


def resolve_movement(variant: Variant, units: Mapping[ProvinceId, Unit] | tuple[Unit, ...],
                     orders: Mapping[ProvinceId, MovementOrder],
                     commander: Mapping[ProvinceId, Power] | None = None) -> MovementOutcome:
    """Resolve legal ``orders`` (by the province of the unit ordered) for ``units``."""
    if type(units) is not dict and not isinstance(units, Mapping):     # (the engine passes a dict)
        units = {u.province: u for u in units}
    return _Resolver(variant, units, orders, commander or {}).run()


_KIND_OF = {Hold: HOLD, Move: MOVE, SupportHold: SUPPORT, SupportMove: SUPPORT, Convoy: CONVOY}
_NO_FLEETS: frozenset[ProvinceId] = frozenset()


def _kind_of(order: MovementOrder) -> int:
    kind = _KIND_OF.get(type(order))
    if kind is not None:
        return kind
    if isinstance(order, Move):     # subclasses of the order types
        return MOVE
    if isinstance(order, (SupportHold, SupportMove)):
        return SUPPORT
    return CONVOY if isinstance(order, Convoy) else HOLD


class _Resolver:
    def __init__(self, variant: Variant, units: Mapping[ProvinceId, Unit], orders: Mapping[ProvinceId, MovementOrder],
                 commander: Mapping[ProvinceId, Power]):
        self.variant = variant
        self.tables = map_tables(variant)
        self.units = units
        self.nb = self.tables.neighbours
        self.orders: Mapping[ProvinceId, MovementOrder]
        self.kind: dict[ProvinceId, int]
        self.cmd: dict[ProvinceId, Power]
        self.dest: dict[ProvinceId, ProvinceId]       # move: destination province
        # each order by its kind, typed (the kind, not the order's type, is what the resolver reads)
        self.move_of: dict[ProvinceId, Move] = {}
        self.support_of: dict[ProvinceId, SupportHold | SupportMove] = {}
        self.convoy_of: dict[ProvinceId, Convoy] = {}
        self.moves_to: dict[ProvinceId, list[ProvinceId]] = {}
        supports, convoys = self._sort_orders(orders, commander)
        self._match_orders(supports, convoys)
        self.deps: list[ProvinceId] = []
        self.seq: dict[ProvinceId, int] = {}
        self.counter = 0
        self.low = _NONE
        self.paradox: set[ProvinceId] = set()

    def _sort_orders(self, orders: Mapping[ProvinceId, MovementOrder],
                     commander: Mapping[ProvinceId, Power]) -> tuple[list[ProvinceId], list[ProvinceId]]:
        """Each unit's order (hold when it has none), kind and commander; where each move goes.
        Returns the supporting and the convoying units. (Everything keyed by province is
        listed in the order of the units.)"""
        units = self.units
        if orders.keys() == units.keys():
            self.orders = all_orders = orders
        else:
            self.orders = all_orders = {p: orders.get(p) or Hold(u.power, u.type, u.location) for p, u in units.items()}
        self.cmd = cmd = {p: u.power for p, u in units.items()}
        if commander:
            for p, power in commander.items():
                if p in cmd:
                    cmd[p] = power
        self.kind = kinds = {}
        self.dest = dest = {}
        moves_to, move_of, support_of, convoy_of = self.moves_to, self.move_of, self.support_of, self.convoy_of
        supports: list[ProvinceId] = []
        convoys: list[ProvinceId] = []
        kind_of = _KIND_OF.get
        for p in units:
            order = all_orders[p]
            kind = kind_of(type(order))
            if kind is None:
                kind = _kind_of(order)
            kinds[p] = kind
            if kind == MOVE:
                move = move_of[p] = cast(Move, order)
                d = dest[p] = move.destination.province
                movers = moves_to.get(d)
                if movers is None:
                    moves_to[d] = [p]
                else:
                    movers.append(p)
            elif kind == SUPPORT:
                support_of[p] = cast(SupportHold | SupportMove, order)
                supports.append(p)
            elif kind == CONVOY:
                convoy_of[p] = cast(Convoy, order)
                convoys.append(p)
        return supports, convoys

    # -- what matches what (fixed before anything is resolved) -----------------------------

    def _match_orders(self, supports: list[ProvinceId], convoys: list[ProvinceId]) -> None:
        """Which moves go by convoy, and by which fleets; the head-to-head battles; which
        supports and convoys match the order of the unit they name. Then the supports that
        depend on no other decision are settled at once: one that matches no order is not
        given, one that no unit moves against is given (resolving either later would consult
        no guess, so settling them first changes nothing)."""
        kind, dest, cmd, units = self.kind, self.dest, self.cmd, self.units
        convoy_orders: dict[tuple[ProvinceId, ProvinceId], list[ProvinceId]] = {}
        for p in convoys:
            o = self.convoy_of[p]
            convoy_orders.setdefault((o.target.province, o.destination.province), []).append(p)
        army_adjacent = self.tables.army_adjacent
        self.convoyed: set[ProvinceId] = set()      # the moves that go by convoy
        convoyed = self.convoyed
        self.convoyers: dict[ProvinceId, frozenset[ProvinceId]] = {}   # ... and the fleets ordered to convoy each
        convoyers = self.convoyers
        for p, d in dest.items():
            if units[p].type is not ARMY:
                continue
            fleets = frozenset(convoy_orders[(p, d)]) if convoy_orders and (p, d) in convoy_orders else _NO_FLEETS
            if self.move_of[p].via_convoy or d not in army_adjacent.get(p, ()) \
                    or fleets and any(cmd[f] == cmd[p] for f in fleets):
                convoyed.add(p)
                convoyers[p] = fleets
        # the head-to-head battles (both ways), and each move's supporters, where there are any
        self.h2h: dict[ProvinceId, ProvinceId] = {
            p: d for p, d in dest.items() if dest.get(d) == p and p not in convoyed and d not in convoyed}
        self.move_supports: dict[ProvinceId, list[ProvinceId]] = {}
        self.hold_supports: dict[ProvinceId, list[ProvinceId]] = {}
        self.matched: dict[ProvinceId, bool] = {}
        self.state: dict[ProvinceId, int] = dict.fromkeys(kind, UNRESOLVED)
        self.res: dict[ProvinceId, bool] = dict.fromkeys(kind, False)
        move_supports, hold_supports, matched = self.move_supports, self.hold_supports, self.matched
        moves_to, state, res = self.moves_to, self.state, self.res
        for p in supports:
            s = self.support_of[p]
            t = s.target.province
            if isinstance(s, SupportHold):
                ok = t in kind and kind[t] != MOVE
                if ok:
                    hold_supports.setdefault(t, []).append(p)
            else:
                to = s.destination
                ok = (t in dest and dest[t] == to.province
                      and (to.coast is None or to.coast == self.move_of[t].destination.coast))
                if ok:
                    move_supports.setdefault(t, []).append(p)
            matched[p] = ok
            if not ok:
                state[p] = RESOLVED
            elif p not in moves_to:
                state[p] = RESOLVED
                res[p] = True
        for p in convoys:
            matched[p] = p in convoyers.get(self.convoy_of[p].target.province, ())

    # -- the guess-and-check engine ---------------------------------------------------------

    def resolve(self, p: ProvinceId) -> bool:
        """The decision ``p``, guessing where it depends on itself.

        Each decision entering its guess gets a sequence number; ``self.low`` is the lowest
        sequence number of a guess consulted so far, so a decision knows whether its answer
        rests on no guess, on its own guess (it heads a cycle), or on an earlier one (it stays
        a guess, listed in ``self.deps``, until the head of its cycle settles it).
        """
        state = self.state[p]
        if state == RESOLVED:
            return self.res[p]
        if state == GUESSING:
            self.low = min(self.low, self.seq[p])
            return self.res[p]
        saved, deps, old = self.low, self.deps, len(self.deps)
        self.counter += 1
        me = self.seq[p] = self.counter
        self.low = _NONE
        self.res[p] = False
        self.state[p] = GUESSING
        k = self.kind[p]    # self.adjudicate(p), dispatched here: every decision comes this way once
        first = self.move_succeeds(p) if k == MOVE else self.support_given(p) if k == SUPPORT else self.fleet_stays(p)
        low = self.low
        if low == _NONE or self.state[p] == RESOLVED:
            self.low = saved
            if self.state[p] != RESOLVED:
                self.res[p] = first
                self.state[p] = RESOLVED
            return self.res[p]
        if low < me:
            self.low = min(saved, low)
            deps.append(p)
            self.res[p] = first
            return first
        for q in deps[old:]:
            self.state[q] = UNRESOLVED
        del deps[old:]
        self.res[p] = True
        self.low = _NONE
        second = self.adjudicate(p)
        self.low = saved
        if first == second:
            for q in deps[old:]:
                self.state[q] = UNRESOLVED
            del deps[old:]
            self.res[p] = first
            self.state[p] = RESOLVED
            return first
        self.backup_rule([p] + deps[old:])
        del deps[old:]
        return self.resolve(p)

    def backup_rule(self, cycle: list[ProvinceId]) -> None:
        convoys = [q for q in cycle if self.kind[q] == CONVOY]
        if convoys:     # a convoy paradox: the Szykman rule
            for q in convoys:
                self.paradox.add(self.convoy_of[q].target.province)
            for q in cycle:
                self.state[q] = UNRESOLVED
            return
        for q in cycle:     # circular movement
            if self.kind[q] == MOVE:
                self.res[q] = True
                self.state[q] = RESOLVED
            else:
                self.state[q] = UNRESOLVED

    def adjudicate(self, p: ProvinceId) -> bool:
        k = self.kind[p]
        if k == MOVE:
            return self.move_succeeds(p)
        if k == SUPPORT:
            return self.support_given(p)
        return self.fleet_stays(p)

    # -- the decisions --------------------------------------------------------------------------

    def has_path(self, p: ProvinceId) -> bool:
        if p not in self.convoyed:
            return True
        if p in self.paradox:
            return False
        fleets = self.convoyers[p]
        if not fleets:
            return False
        nb, dst = self.nb, self.dest[p]
        frontier = [f for f in fleets if f in nb[p]]
        seen = set(frontier)
        while frontier:
            f = frontier.pop()
            if not self.resolve(f):
                continue
            if dst in nb[f]:
                return True
            for g in nb[f]:
                if g in fleets and g not in seen:
                    seen.add(g)
                    frontier.append(g)
        return False

    def fleet_stays(self, p: ProvinceId) -> bool:
        for a in self.moves_to.get(p, ()):
            if self.resolve(a):
                return False
        return True

    def support_given(self, p: ProvinceId) -> bool:
        if not self.matched[p]:
            return False
        order = self.orders[p]
        shielded = order.destination.province if isinstance(order, SupportMove) else None
        me = self.cmd[p]
        for a in self.moves_to.get(p, ()):
            if self.cmd[a] == me or a == shielded:
                continue
            if a not in self.convoyed or self.has_path(a):
                return False    # cut
        if shielded is not None and self.dest.get(shielded) == p and self.cmd[shielded] != me:
            if self.resolve(shielded):
                return False    # dislodged by the unit it supported an attack on
        return True

    def given(self, supporters: Iterable[ProvinceId], against: Power | None = None) -> int:
        n = 0
        state, res = self.state, self.res
        for s in supporters:
            if (res[s] if state[s] == RESOLVED else self.resolve(s)) and (against is None or self.cmd[s] != against):
                n += 1
        return n

    def attack_strength(self, p: ProvinceId) -> int:
        if p in self.convoyed and not self.has_path(p):
            return 0
        d = self.dest[p]
        if d not in self.units or (self.kind[d] == MOVE and self.h2h.get(p) is None and self.resolve(d)):
            supporters = self.move_supports.get(p)
            return 1 + self.given(supporters) if supporters else 1
        if self.cmd[d] == self.cmd[p]:
            return 0
        supporters = self.move_supports.get(p)
        return 1 + self.given(supporters, against=self.cmd[d]) if supporters else 1

    def hold_strength(self, d: ProvinceId) -> int:
        if d not in self.units:
            return 0
        if self.kind[d] == MOVE:
            return 0 if self.resolve(d) else 1
        supporters = self.hold_supports.get(d)
        return 1 + self.given(supporters) if supporters else 1

    def prevent_strength(self, q: ProvinceId) -> int:
        if q in self.convoyed and not self.has_path(q):
            return 0
        opp = self.h2h.get(q)
        if opp is not None and self.resolve(opp):
            return 0
        supporters = self.move_supports.get(q)
        return 1 + self.given(supporters) if supporters else 1

    def move_succeeds(self, p: ProvinceId) -> bool:
        if p in self.convoyed and not self.has_path(p):
            return False
        attack = self.attack_strength(p)
        d = self.dest[p]
        opp = self.h2h.get(p)
        if opp is not None:
            if attack <= 1 + self.given(self.move_supports.get(opp, ())):
                return False
        elif attack <= self.hold_strength(d):
            return False
        for q in self.moves_to[d]:
            if q != p and attack <= self.prevent_strength(q):
                return False
        return True

    # -- the outcome ----------------------------------------------------------------------------

    def run(self) -> MovementOutcome:
        state, resolve = self.state, self.resolve
        for p, k in self.kind.items():
            if k != HOLD and state[p] != RESOLVED:
                resolve(p)
        units, res, dest = self.units, self.res, self.dest
        moved = {p: self.move_of[p].destination for p in dest if res[p]}
        winner = {dest[p]: p for p in moved}
        dislodged, dislodged_by = [], {}
        for d, p in winner.items():
            if d in units and d not in moved:
                dislodged.append(Dislodgement(units[d], p, p in self.convoyed))
                dislodged_by[d] = self.cmd[p]
        after = [u for p, u in units.items() if p not in moved and p not in dislodged_by]
        after += [units[p].at(loc) for p, loc in moved.items()]
        standoffs = frozenset(d for d, movers in self.moves_to.items()
                              if len(movers) >= 2 and d not in winner and (d not in units or d in moved)
                              and sum(1 for q in movers if self.has_path(q)) >= 2)
        results = _Words(self, winner).results()
        return MovementOutcome(results=results, units=tuple(after), dislodged=tuple(dislodged),
                               dislodged_by=dislodged_by, standoffs=standoffs, moved=moved)

class _Words:
    """The outcome of each order, with one sentence a player can act on: a :class:`Phrase` when
    it names a unit or a place (the units as values, for a front end to name)."""

    def __init__(self, r: _Resolver, winner: dict[ProvinceId, ProvinceId]):
        self.r = r
        self.winner = winner
        self.unit = r.units.__getitem__
        self.name = r.tables.name

    def dislodged(self, p: ProvinceId) -> Phrase | None:
        w = self.winner.get(p)
        if w is None or (p in self.r.dest and self.r.res[p]):
            return None
        r = self.r
        return Phrase("dislodged by ", self.unit(w), f" ({r.attack_strength(w)} against {self._resistance(w)})")

    def _resistance(self, w: ProvinceId) -> int:
        r = self.r
        opp = r.h2h.get(w)
        if opp is not None:
            return 1 + r.given(r.move_supports.get(opp, ()))
        return r.hold_strength(r.dest[w])

    def results(self) -> dict[ProvinceId, OrderResult]:
        """The result of the order of the unit in each province. (The commonest outcomes, a
        move into a place left empty, a support given, a hold, are written here at once.)"""
        r, winner = self.r, self.winner
        orders, res, kinds, dest, units = r.orders, r.res, r.kind, r.dest, r.units
        place = r.tables.location_name
        out = {}
        for p, k in kinds.items():
            if k == MOVE:
                d = dest[p]
                if res[p] and (d not in units or kinds[d] == MOVE and res[d]):
                    outcome, reason = SUCCEEDS, f"moves to {place(r.move_of[p].destination)}"
                else:
                    outcome, reason = self.move(p)
            elif p in winner:       # dislodged
                hit = self.dislodged(p)
                if k == HOLD:
                    outcome, reason = FAILS, hit or "dislodged"
                elif k == SUPPORT:
                    outcome, reason = self.support(p, hit)
                else:
                    outcome, reason = self.convoy(p, hit)
            elif k == SUPPORT:
                outcome, reason = (SUCCEEDS, "support given") if res[p] else self.support(p, None)
            elif k == HOLD:
                outcome, reason = SUCCEEDS, "holds"
            else:
                outcome, reason = self.convoy(p, None)
            out[p] = OrderResult(orders[p], outcome, reason)
        return out

    def move(self, p: ProvinceId) -> tuple[Outcome, str]:
        r, d = self.r, self.r.dest[p]
        if r.res[p]:
            where = r.tables.location_name(r.move_of[p].destination)
            if d in r.units and not (r.kind[d] == MOVE and r.res[d]):
                return SUCCEEDS, Phrase(f"moves to {where}, dislodging ", self.unit(d))
            return SUCCEEDS, f"moves to {where}"
        if not r.has_path(p):
            if p in r.paradox:
                return FAILS, "a convoy paradox: the convoy is disregarded and the army holds (Szykman rule)"
            where = r.tables.location_name(r.move_of[p].destination)
            if not r.convoyers.get(p):
                return FAILS, Phrase("no convoy path: no fleet is ordered to convoy ", self.unit(p), f" to {where}")
            return FAILS, self.no_path(p, where)
        attack = r.attack_strength(p)
        opp = r.h2h.get(p)
        stays = d in r.units and (opp is not None or r.kind[d] != MOVE or not r.res[d])
        if stays and r.cmd[d] == r.cmd[p]:
            return FAILS, Phrase("cannot dislodge ", self.unit(d), ", a unit of the same power")
        if opp is not None:
            defend = 1 + r.given(r.move_supports.get(opp, ()))
            if attack < defend:
                return FAILS, Phrase("beaten by ", self.unit(opp), f" moving the other way, {attack} against {defend}")
            if attack == defend:
                return FAILS, Phrase("bounced with ", self.unit(opp), f" moving the other way, {attack} against {defend}")
        for q in r.moves_to[d]:
            if q != p:
                prevent = r.prevent_strength(q)
                if attack <= prevent:
                    return FAILS, Phrase("bounced with ", self.unit(q), f", {attack} against {prevent}")
        if stays and opp is None:
            if r.kind[d] == MOVE:
                return FAILS, Phrase("bounced: ", self.unit(d), f" could not leave, {attack} against 1")
            return FAILS, Phrase("bounced: ", self.unit(d), f" holds, {attack} against {r.hold_strength(d)}")
        return FAILS, "bounced"

    def no_path(self, p: ProvinceId, where: str) -> str:
        """Why the fleets ordered to convoy ``p`` carry it nowhere: some were dislodged on the way,
        or they do not reach from its province to ``where`` even all together."""
        r = self.r
        fleets, nb, dst = r.convoyers[p], r.nb, r.dest[p]
        frontier = [f for f in fleets if f in nb[p]]
        seen = set(frontier)
        while frontier:
            f = frontier.pop()
            if dst in nb[f]:
                lost = sorted(f for f in fleets if f in self.winner)
                if not lost:
                    return "no convoy path"
                named = listed(self.unit(f) for f in lost)
                return Phrase(f"no convoy path: the convoying {'fleet' if len(lost) == 1 else 'fleets'} ", *named,
                              f" {'was' if len(lost) == 1 else 'were'} dislodged")
            for g in nb[f]:
                if g in fleets and g not in seen:
                    seen.add(g)
                    frontier.append(g)
        named = listed(self.unit(f) for f in sorted(fleets))
        return Phrase("no convoy path: the fleets ordered to convoy ", self.unit(p), " (", *named,
                      f") do not reach {where} from {r.tables.location_name(r.orders[p].location)}")

    def support(self, p: ProvinceId, hit: Phrase | None) -> tuple[Outcome, str]:
        r, o = self.r, self.r.support_of[p]
        t = o.target.province
        if not r.matched[p]:
            if isinstance(o, SupportHold):
                return FAILS, Phrase(self.unit(t), " moves, so it cannot be supported to hold")
            return FAILS, Phrase(self.unit(t), " does not move to ", o.destination)
        if hit:
            return FAILS, Phrase("support cut: ", *hit.parts)
        if not r.res[p]:
            shielded = o.destination.province if isinstance(o, SupportMove) else None
            for a in r.moves_to.get(p, ()):
                if r.cmd[a] != r.cmd[p] and a != shielded and r.has_path(a):
                    return FAILS, Phrase("support cut by ", self.unit(a))
            return FAILS, "support cut"
        return SUCCEEDS, "support given"

    def convoy(self, p: ProvinceId, hit: Phrase | None) -> tuple[Outcome, str]:
        r, c = self.r, self.r.convoy_of[p]
        t = c.target.province
        if hit:
            return FAILS, hit
        if not r.matched[p]:
            if r.kind.get(t) == MOVE and r.dest[t] == c.destination.province:
                return FAILS, Phrase(self.unit(t), " moves over land, not by convoy")
            return FAILS, Phrase(self.unit(t), " does not move to ", c.destination)
        if t in r.paradox:
            return FAILS, "a convoy paradox: the convoy is disregarded (Szykman rule)"
        if not r.has_path(t):
            return FAILS, "the convoy route is broken elsewhere"
        return SUCCEEDS, "convoys"
