"""Settling the prestige orders of one movement phase (rules 2.3.7-2.9): a pure function.

:func:`settle` takes the position and every order given, in the order each power wrote them,
and returns a :class:`Settlement`: the result of each prestige order, the position with
rebellions, new vassals and seized fiefs applied and prestige spent, who commands each unit
this season, and which order each unit whose order prestige decides will carry out.

The steps (decisions 12-14, 18, 20, 21):

1. Every LEND, top down per power, against the lender's own balance; then the loans arrive
   (a loan can be spent at once but not lent on the same turn).
2. Every other prestige order, top down per power: an order the power can afford reserves
   its cost; one it cannot afford costs nothing and does not happen (2.3.7).
3. SECURE LOYALTY, then REBEL (settled before movement, so a rebel centre and its unit are
   neutral at once), then VASSAL, then BRIBE (against the controller after this turn's
   vassaldoms), then SEIZE FIEF.
4. A bid (or pool) that reaches its minimum is spent, win, lose or tie; one that does not is
   given back (2.1: prestige is not wasted on a task it was too small for).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field, replace
from typing import Any, Generic, TypeVar, cast
from collections.abc import Iterable, Iterator, Mapping, Sequence

from ..orders import Convoy, Hold, Move, MovementOrder, Order, SupportHold, SupportMove, UnitOrder

from .orders import PRESTIGE_ORDER_TYPES, Bribe, Lend, PrestigeOrder, Rebel, SecureLoyalty, SeizeFief, Vassal
from ..position import Position, units_by_province
from ..variant import Variant
from ..results import OrderResult, Outcome
from ..vocab import NEUTRAL, Location, PhaseKind, Power, ProvinceId, Season, Unit
from .checks import BRIBE_MINIMUM, REBEL_BASE, Checks, order_cost
from .neutrals import default_order, leash_reason, within_leash
from .state import lord_of, neutral_home, put_state, state_of
from .events import Account, Spending

UNIT_ORDER_TYPES = (Hold, Move, SupportHold, SupportMove, Convoy)


@dataclass(frozen=True)
class Settlement:
    """What the prestige orders of a movement phase decide, before the units move.

    ``results``: by index into the orders given, the result of every prestige order and of
    every unit order that prestige made void. ``unit_orders``: for each unit whose order
    prestige decides (neutrals, vassals, bribed and rebel units), the index of the line that
    carries it out (``None`` when the judge supplies it) and the order.
    ``commanders``: who commands each unit this season. ``bribed``: province -> briber.
    """

    position: Position
    results: Mapping[int, OrderResult]
    unit_orders: Mapping[ProvinceId, tuple[int | None, UnitOrder]]
    commanders: Mapping[ProvinceId, Power]
    bribed: Mapping[ProvinceId, Power] = field(default_factory=dict)
    rebellions: tuple[ProvinceId, ...] = ()
    ledger: Mapping[Power, Account] = field(default_factory=dict)


_O = TypeVar("_O", bound=PrestigeOrder)
_Bid = TypeVar("_Bid", Vassal, Bribe)


@dataclass
class _Claim(Generic[_O]):
    index: int
    order: _O
    cost: int
    reason: str = ""          # why it is invalid or unaffordable, when it is
    reserved: bool = False
    spent: bool = False
    outcome: Outcome = Outcome.FAILS


def is_spending_phase(position: Position) -> bool:
    """Prestige is spent only in spring and autumn movement phases (2.1; decision 22)."""
    phase = position.phase
    return phase.kind is PhaseKind.MOVEMENT and phase.season in (Season.SPRING, Season.FALL)


def _target(order: PrestigeOrder) -> tuple[str, Power, ProvinceId] | None:
    """What a bid is for, per power: a power bids once per unit or centre and kind."""
    if isinstance(order, (Vassal, Bribe)):
        return (type(order).__name__, order.power, order.location.province)
    if isinstance(order, (Rebel, SeizeFief)):
        return (type(order).__name__, order.power, order.province)
    return None


def pool_key(order: UnitOrder) -> UnitOrder:
    """An order with its giver and unit types left out: pooled bribes compare by this."""
    changes: dict[str, Any] = {"power": NEUTRAL, "unit_type": None}
    if hasattr(order, "target_type"):
        changes["target_type"] = None
    return replace(order, **changes)


class _Settler(Checks):
    def __init__(self, variant: Variant, position: Position, orders: Sequence[Order]) -> None:
        super().__init__(variant, position)
        self.orders = list(orders)
        self.results: dict[int, OrderResult] = {}
        self.claims: list[_Claim[PrestigeOrder]] = []
        self.rebel_targets = {o.province for o in orders if isinstance(o, Rebel)}
        self.seen: set[tuple[str, Power, ProvinceId]] = set()
        self.stopped: set[tuple[Power, bool]] = set()

    # -- the run ------------------------------------------------------------------------

    def run(self) -> Settlement:
        pos, state = self.position, self.state
        indexed = [(i, o) for i, o in enumerate(self.orders) if isinstance(o, PRESTIGE_ORDER_TYPES)]
        if not is_spending_phase(pos):
            for i, o in indexed:
                self.results[i] = OrderResult(o, Outcome.INVALID, "prestige is spent only in spring and autumn "
                                                                  "movement phases (rule 2.1); nothing spent")
            return self.finish({}, pos, {}, (), {})

        self.balance = {p: state.prestige.get(p, 0) for p in self.variant.powers}
        start = {p: self.balance[p] for p in self.variant.powers if self.in_game(p)}
        # 1. loans, against each lender's own balance
        received: dict[Power, int] = defaultdict(int)
        for i, o in indexed:
            if isinstance(o, Lend):
                claim = self.reserve(i, o)
                if claim.reserved:
                    claim.spent, claim.outcome = True, Outcome.SUCCEEDS
                    received[o.to] += o.amount
                    claim.reason = f"{o.amount} prestige lent to {self.pw(o.to)}"
        for p, n in received.items():
            self.balance[p] += n
        # 2. everything else, top down
        for i, o in indexed:
            if not isinstance(o, Lend):
                self.reserve(i, o)
        live = [c for c in self.claims if c.reserved and not isinstance(c.order, Lend)]
        # 3. secure loyalty, rebellion, vassaldom, bribes, fiefs
        self.loyalty: dict[Power, int] = defaultdict(int)
        for c in live:
            if isinstance(c.order, SecureLoyalty):
                self.loyalty[c.order.power] += c.cost
        for c in live:
            if isinstance(c.order, SecureLoyalty):
                total = self.loyalty[c.order.power]
                self.settle_claim(c, True, Outcome.SUCCEEDS,
                                  f"loyalty secured: bribes and rebellions against {self.pw(c.order.power)} "
                                  f"cost {total} more this turn")
        pos, rebellions = self.settle_rebels(_of_kind(live, Rebel), pos)
        vassals = dict(state.vassals)
        self.settle_vassals(_of_kind(live, Vassal), pos, rebellions, vassals)
        bribed, bribe_orders = self.settle_bribes(_of_kind(live, Bribe), pos, rebellions, vassals)
        homes = self.settle_fiefs(_of_kind(live, SeizeFief), rebellions)
        # 4. the prestige that was only reserved goes back
        for c in self.claims:
            if c.reserved and not c.spent:
                self.balance[c.order.power] += c.cost
        spent: dict[Power, list[Spending]] = defaultdict(list)
        for c in self.claims:
            if c.reserved and c.spent:
                spent[c.order.power].append(Spending(c.order, c.cost))
        ledger = {p: Account(start=n, received=received.get(p, 0), spent=tuple(spent.get(p, ())), left=self.balance[p])
                  for p, n in start.items()}
        new_state = replace(state_of(pos), prestige={p: self.balance[p] for p in ledger},
                            vassals=vassals, home_centers=homes, bribed=bribed)
        pos = put_state(pos, new_state)
        for c in self.claims:
            self.results[c.index] = OrderResult(c.order, c.outcome, c.reason)
        return self.finish(bribed, pos, bribe_orders, tuple(rebellions), ledger)

    def reserve(self, index: int, order: PrestigeOrder) -> _Claim[PrestigeOrder]:
        claim: _Claim[PrestigeOrder] = _Claim(index, order, order_cost(order))
        self.claims.append(claim)
        refusal = self.reason(order, self.rebel_targets)
        why = None if refusal is None else refusal.text
        key = _target(order)
        if why is None and key is not None:
            if key in self.seen:
                why = "the same power already bid for this above; only its first bid counts"
            self.seen.add(key)
        if why is not None:
            claim.outcome, claim.reason = Outcome.INVALID, f"{why}; nothing spent"
            return claim
        have = self.balance[order.power]
        what = "lent" if isinstance(order, Lend) else "spent"
        sequence = (order.power, isinstance(order, Lend))   # a power's loans, or its other orders
        if sequence in self.stopped:
            claim.reason = (f"not carried out: {self.pw(order.power)}'s prestige ran out at an earlier order "
                            f"(rule 2.3.7); nothing {what}")
            return claim
        if claim.cost > have:
            self.stopped.add(sequence)      # "until there is insufficient prestige" (2.3.7; decision 12)
            claim.reason = f"not enough prestige: {claim.cost} needed, {have} left; nothing {what}"
            return claim
        self.balance[order.power] -= claim.cost
        claim.reserved = True
        return claim

    @staticmethod
    def settle_claim(claim: _Claim[Any], spent: bool, outcome: Outcome, reason: str) -> None:
        claim.spent, claim.outcome = spent, outcome
        tail = f"{claim.cost} prestige spent" if spent else "nothing spent"
        claim.reason = f"{reason}; {tail}"

    def minimum_words(self, base: int, owner: Power) -> tuple[int, str]:
        return self.minimum(base, owner, self.loyalty.get(owner, 0))

    def pool_words(self, claims: Sequence[_Claim[Any]]) -> str:
        if len(claims) == 1:
            return f"{claims[0].cost} bid"
        parts = " and ".join(f"{self.pw(c.order.power)} {c.cost}" for c in claims)
        return f"{parts} pooled {sum(c.cost for c in claims)}"

    # -- rebellion (2.7) ------------------------------------------------------------------

    def settle_rebels(self, claims: list[_Claim[Rebel]], pos: Position) -> tuple[Position, list[ProvinceId]]:
        by_centre: dict[ProvinceId, list[_Claim[Rebel]]] = defaultdict(list)
        for c in claims:
            by_centre[c.order.province].append(c)       # decision 14: REBEL bids always pool
        rebellions: list[ProvinceId] = []
        owners = dict(pos.supply_centers)
        units = list(pos.units)
        for prov, group in by_centre.items():
            owner = pos.supply_centers[prov]
            minimum, words = self.minimum_words(REBEL_BASE, owner)
            total = sum(c.cost for c in group)
            if total >= minimum:
                rebellions.append(prov)
                owners[prov] = NEUTRAL
                unit = pos.unit_at(prov)
                if unit is not None and unit.power == owner:
                    units[units.index(unit)] = Unit(NEUTRAL, unit.type, unit.location)
                for c in group:
                    self.settle_claim(c, True, Outcome.SUCCEEDS,
                                      f"{self.pv(prov)} rebels against {self.pw(owner)}: {self.pool_words(group)} "
                                      f"against a minimum of {minimum} ({words})")
            else:
                for c in group:     # spent all the same (2.7.5)
                    self.settle_claim(c, True, Outcome.FAILS,
                                      f"{self.pv(prov)} does not rebel: {self.pool_words(group)} against a minimum "
                                      f"of {minimum} ({words})")
        return pos.with_changes(supply_centers=owners, units=tuple(units)), rebellions

    # -- vassaldom (2.4) ------------------------------------------------------------------

    def wasted_on_rebel(self, c: _Claim[Any], prov: ProvinceId) -> None:
        self.settle_claim(c, True, Outcome.FAILS,
                          f"{self.pv(prov)} rebelled this turn: it cannot be taken as vassal or bribed in the same "
                          f"turn (rule 2.7.4)")

    def claims_by_unit(self, claims: list[_Claim[_Bid]], rebellions: list[ProvinceId]
                       ) -> Iterator[tuple[ProvinceId, list[_Claim[_Bid]]]]:
        """The VASSAL or BRIBE claims on each unit, in order; those on a unit whose centre
        rebels this turn are wasted (2.7.4) and not given."""
        by_unit: dict[ProvinceId, list[_Claim[_Bid]]] = defaultdict(list)
        for c in claims:
            by_unit[c.order.location.province].append(c)
        for prov, group in by_unit.items():
            if prov in rebellions:
                for c in group:
                    self.wasted_on_rebel(c, prov)
                continue
            yield prov, group

    def settle_vassals(self, claims: list[_Claim[Vassal]], pos: Position, rebellions: list[ProvinceId],
                       vassals: dict[Location, Power]) -> None:
        for prov, group in self.claims_by_unit(claims, rebellions):
            unit = pos.unit_at(prov)
            if unit is None or unit.power != NEUTRAL:
                for c in group:
                    self.settle_claim(c, False, Outcome.FAILS,
                                      f"{self.pv(prov)} did not rebel, so its unit is no armed neutral")
                continue
            self.contest(group, f"takes {self.unit_words(unit)} as vassal until the end of the year",
                         self.unit_words(unit))
            winners = [c for c in group if c.outcome is Outcome.SUCCEEDS]
            if winners:
                vassals[unit.location] = winners[0].order.power

    def contest(self, group: list[_Claim[Vassal]], prize: str, thing: str) -> None:
        """Sealed single bids: the highest wins; equal highest: nobody; all spent (2.4.2)."""
        top = max(c.cost for c in group)
        best = [c for c in group if c.cost == top]
        for c in group:
            others = [o for o in group if o.order.power != c.order.power]
            if len(best) > 1 and c in best:
                rivals = " and ".join(self.pw(o.order.power) for o in best if o is not c)
                self.settle_claim(c, True, Outcome.FAILS, f"tied at {top} with {rivals}: nobody takes {thing}")
            elif len(best) > 1:
                self.settle_claim(c, True, Outcome.FAILS, f"outbid ({c.cost} against {top}, a tie): nobody takes "
                                                          f"{thing}")
            elif c is best[0]:
                against = ", ".join(f"{self.pw(o.order.power)}'s {o.cost}" for o in others)
                self.settle_claim(c, True, Outcome.SUCCEEDS,
                                  f"{self.pw(c.order.power)} {prize}" + (f", {c.cost} against {against}"
                                                                         if against else ""))
            else:
                winner = best[0]
                self.settle_claim(c, True, Outcome.FAILS,
                                  f"outbid by {self.pw(winner.order.power)} ({winner.cost} against {c.cost})")

    # -- bribes (2.5, 2.8) ----------------------------------------------------------------

    def bribe_order(self, claim: _Claim[Bribe]) -> UnitOrder:
        """The order a briber gives the unit: on the BRIBE line, else its own line for it, else hold."""
        o = claim.order
        if o.order is not None:
            return o.order
        for other in self.orders:
            if isinstance(other, UNIT_ORDER_TYPES) and other.power == o.power and other.province == o.location.province:
                return other
        unit = units_by_province(self.position)[o.location.province]     # a valid bid's unit
        return Hold(o.power, unit.type, unit.location)

    def settle_bribes(self, claims: list[_Claim[Bribe]], pos: Position, rebellions: list[ProvinceId],
                      vassals: Mapping[Location, Power]) -> tuple[dict[ProvinceId, Power], dict[ProvinceId, UnitOrder]]:
        bribed: dict[ProvinceId, Power] = {}
        chosen: dict[ProvinceId, UnitOrder] = {}
        for prov, group in self.claims_by_unit(claims, rebellions):
            unit = units_by_province(pos)[prov]     # a valid bid's unit (a rebellion leaves it there)
            if unit.power == NEUTRAL:
                controller = vassals.get(unit.location)
            else:
                controller = unit.power
            if controller is None:
                minimum, words = BRIBE_MINIMUM, "a neutral"
            else:
                minimum, words = self.minimum_words(BRIBE_MINIMUM, controller)
            mine = [c for c in group if c.order.power == controller]
            for c in mine:      # took it as vassal this very turn
                self.settle_claim(c, False, Outcome.FAILS, f"{self.unit_words(unit)} is already yours this season")
            group = [c for c in group if c.order.power != controller]
            if not group:
                continue
            pools: dict[UnitOrder, list[_Claim[Bribe]]] = defaultdict(list)
            for c in group:
                pools[pool_key(self.bribe_order(c))].append(c)   # decision 14: same order, same pool
            totals = {k: sum(c.cost for c in v) for k, v in pools.items()}
            counting = {k: t for k, t in totals.items() if t >= minimum}
            for key, pool in pools.items():
                if key not in counting:
                    for c in pool:
                        self.settle_claim(c, False, Outcome.FAILS,
                                          f"{self.unit_words(unit)} not bribed: {self.pool_words(pool)} against "
                                          f"a minimum of {minimum} ({words})")
            if not counting:
                continue
            top = max(counting.values())
            best = [k for k, t in counting.items() if t == top]
            for key, total in counting.items():
                pool = pools[key]
                if len(best) > 1:
                    reason = f"tied at {top} with a rival bribe: nobody commands {self.unit_words(unit)}"
                    ok = Outcome.FAILS
                elif key == best[0]:
                    rivals = [t for k, t in counting.items() if k != key]
                    reason = (f"{self.unit_words(unit)} bribed for this season: {self.pool_words(pool)} against "
                              f"a minimum of {minimum} ({words})")
                    if rivals:
                        reason += f", beating {max(rivals)}"
                    if isinstance(key, Move):
                        reason += ("; a bribed unit may only hold, support or convoy (rules 2.5.3, 2.8.2), "
                                   "so it holds")
                    ok = Outcome.SUCCEEDS
                else:
                    winner = " and ".join(self.pw(c.order.power) for c in pools[best[0]])
                    reason = f"outbid by {winner} ({top} against {total})"
                    ok = Outcome.FAILS
                for c in pool:
                    self.settle_claim(c, True, ok, reason)
            if len(best) == 1:
                pool = pools[best[0]]
                lead = max(pool, key=lambda c: (c.cost, -c.index))     # biggest share, then first written
                bribed[prov] = lead.order.power
                chosen[prov] = replace(self.bribe_order(lead), power=lead.order.power)
        return bribed, chosen

    # -- fiefs (2.6) ----------------------------------------------------------------------

    def settle_fiefs(self, claims: list[_Claim[SeizeFief]], rebellions: list[ProvinceId]) -> dict[Power, tuple[ProvinceId, ...]]:
        homes = {p: tuple(h) for p, h in self.state.home_centers.items()}
        for c in claims:
            prov, power = c.order.province, c.order.power
            if prov in rebellions:
                self.settle_claim(c, False, Outcome.FAILS, f"{self.pv(prov)} rebelled this turn")
            elif prov in homes.get(power, ()):
                self.settle_claim(c, False, Outcome.FAILS, f"{self.pv(prov)} is already a home centre")
            else:
                homes[power] = homes.get(power, ()) + (prov,)
                self.settle_claim(c, True, Outcome.SUCCEEDS,
                                  f"{self.pv(prov)} is now a home centre of {self.pw(power)}")
        return homes

    # -- who commands what ----------------------------------------------------------------

    def finish(self, bribed: Mapping[ProvinceId, Power], pos: Position, bribe_orders: Mapping[ProvinceId, UnitOrder],
               rebellions: tuple[ProvinceId, ...], ledger: Mapping[Power, Account]) -> Settlement:
        state = state_of(pos)
        commanders: dict[ProvinceId, Power] = {}
        for u in pos.units:
            if u.province in bribed:
                commanders[u.province] = bribed[u.province]
            elif u.power == NEUTRAL:
                commanders[u.province] = lord_of(state, u) or NEUTRAL
            else:
                commanders[u.province] = u.power
        lost_bids: dict[tuple[Power, ProvinceId], str] = {}
        for c in self.claims:
            if isinstance(c.order, (Vassal, Bribe)) and c.outcome is not Outcome.SUCCEEDS:
                lost_bids.setdefault((c.order.power, c.order.location.province), c.reason)
        unit_orders: dict[ProvinceId, tuple[int | None, UnitOrder]] = {}
        decided = set(bribed) | set(rebellions) | {u.province for u in pos.units if u.power == NEUTRAL}
        old_units = {u.province: u for u in self.position.units}
        ordered: set[ProvinceId] = set()   # units with a line of their commander's left for the engine

        for i, o in enumerate(self.orders):
            if not isinstance(o, UNIT_ORDER_TYPES):
                continue
            prov = o.province
            unit = pos.unit_at(prov)
            if unit is None or (prov not in decided and (o.power, prov) not in lost_bids):
                continue    # an ordinary order: the movement rules judge it
            commander = commanders[prov]
            if o.power != commander:
                owner = old_units[prov].power
                if owner == NEUTRAL:
                    owner = lord_of(state, unit) or NEUTRAL
                self.results[i] = self.void(o, unit, owner, commander, bribed, rebellions, lost_bids,
                                            bribe_orders)
            elif prov in bribed and pool_key(o) != pool_key(bribe_orders[prov]):
                self.results[i] = OrderResult(o, Outcome.FAILS, "the order given with the winning BRIBE is the "
                                                                "one carried out; this one is void")
            elif prov in bribed and isinstance(o, Move):
                self.results[i] = OrderResult(o, Outcome.INVALID, "a bribed unit may only hold, support or convoy "
                                                                  "(rules 2.5.3, 2.8.2); it holds")
            elif unit.power == NEUTRAL and isinstance(o, Move) and \
                    not within_leash(self.variant, neutral_home(state, unit), o.destination.province):
                self.results[i] = OrderResult(o, Outcome.INVALID,
                                              f"{leash_reason(self.variant, neutral_home(state, unit))}; it holds")
            else:
                ordered.add(prov)   # the engine judges it (of several, the last legal one counts)
        for prov in decided:
            unit = pos.unit_at(prov)
            if unit is None or prov in ordered:
                continue
            commander = commanders[prov]
            if prov in bribed:
                order = bribe_orders[prov]
                if isinstance(order, Move):
                    order = Hold(commander, unit.type, unit.location)
                unit_orders[prov] = (None, order)
            elif commander == NEUTRAL:
                unit_orders[prov] = (None, default_order(self.variant, state, unit))
            else:
                unit_orders[prov] = (None, Hold(commander, unit.type, unit.location))
        return Settlement(position=pos, results=self.results, unit_orders=unit_orders, commanders=commanders,
                          bribed=dict(bribed), rebellions=rebellions, ledger=ledger)

    def void(self, o: MovementOrder, unit: Unit, owner: Power, commander: Power, bribed: Mapping[ProvinceId, Power],
             rebellions: Sequence[ProvinceId], lost_bids: Mapping[tuple[Power, ProvinceId], str],
             bribe_orders: Mapping[ProvinceId, UnitOrder]) -> OrderResult:
        """The result of an order for a unit its giver does not command this season."""
        words = self.unit_words(unit)
        if unit.province in bribed and pool_key(o) == pool_key(bribe_orders[unit.province]):
            return OrderResult(o, Outcome.FAILS, f"pooled bribe: {words} carries out this order once, as "
                                                 f"{self.pw(commander)}'s identical order")
        if unit.province in rebellions and o.power == owner:
            return OrderResult(o, Outcome.FAILS, f"{words} rebelled and is neutral now; this order is void")
        if unit.province in bribed and o.power == owner:
            return OrderResult(o, Outcome.FAILS, f"{words} is bribed by {self.pw(commander)} this season; "
                                                 f"this order is void")
        if (o.power, unit.province) in lost_bids:
            why = lost_bids[(o.power, unit.province)].rsplit(";", 1)[0]
            return OrderResult(o, Outcome.INVALID, f"{self.pw(o.power)} does not command {words} ({why}); "
                                                   f"this order is void")
        who = "nobody" if commander == NEUTRAL else self.pw(commander)
        return OrderResult(o, Outcome.INVALID, f"{self.pw(o.power)} does not command {words} this season "
                                               f"({who} does); this order is void")


def _of_kind(claims: Iterable[_Claim[PrestigeOrder]], kind: type[_O]) -> list[_Claim[_O]]:
    """The claims whose order is a ``kind``."""
    return [cast("_Claim[_O]", c) for c in claims if isinstance(c.order, kind)]


def settle(variant: Variant, position: Position, orders: Sequence[Order]) -> Settlement:
    """Settle the prestige orders of ``position``'s phase among ``orders`` (all orders given)."""
    return _Settler(variant, position, orders).run()
