"""Can a prestige order be given at all, and what will it need to succeed?

:class:`Checks` answers both for one position: :meth:`Checks.reason` is why an order is invalid
outright (nothing is reserved for it: a bid below its fixed minimum, a unit or centre it cannot
be given for), as a :class:`~adjudicator.results.Reason`; :meth:`Checks.needs` what a valid bid
needs to win, which only the adjudication can tell (the other powers' bids, a SECURE LOYALTY).
Settling a phase (:mod:`.bids`) and checking a power's orders at submission
(:mod:`adjudicator.turn`) ask the same questions here; :func:`affordability_notes` says which of
a power's orders it cannot pay for from what it holds.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from ..orders import Order

from .orders import PRESTIGE_ORDER_TYPES, Bribe, Lend, PrestigeOrder, Rebel, SecureLoyalty, SeizeFief, Vassal
from ..position import Position, units_by_province
from ..variant import Variant
from ..results import Reason
from ..vocab import NEUTRAL, Power, ProvinceId, Unit
from .state import has_state, is_home_center, lord_of, neutral_home, state_of

VASSAL_MINIMUM = 2      # 2.4.1
BRIBE_MINIMUM = 1       # 2.5.1; for another power's unit 1 + its start-of-year prestige (2.8.1)
REBEL_BASE = 2          # 2.7.2: 2 + the owner's start-of-year prestige
SEIZE_FIEF_COST = 2     # 2.6.1


class Checks:
    """The static checks of prestige orders in one position, and the words they use."""

    def __init__(self, variant: Variant, position: Position) -> None:
        self.variant = variant
        self.position = position
        self.state = state_of(position)

    # -- words --------------------------------------------------------------------------

    def pw(self, power: Power) -> str:
        return self.variant.power_name(power)

    def pv(self, province: ProvinceId) -> str:
        return self.variant.provinces[province].name

    def unit_words(self, unit: Unit) -> str:
        return f"{unit.type.value} {self.pv(unit.province)}"

    def in_game(self, power: Power) -> bool:
        return power in self.variant.powers and power not in self.position.eliminated

    # -- invalid outright ----------------------------------------------------------------

    def reason(self, order: PrestigeOrder, rebel_targets: Collection[ProvinceId] = ()) -> Reason | None:
        """Why this prestige order cannot be given here at all, or None.

        ``rebel_targets``: the centres some power bids to make rebel this turn (a VASSAL on the
        unit of such a centre is settled, and wasted, rather than refused: 2.7.4).
        """
        if not self.in_game(order.power):
            return Reason("not-in-game", f"{order.power} is not a power in the game, so it has no prestige")
        if isinstance(order, Lend):
            if not self.in_game(order.to):
                return Reason("lend-outside-game", f"prestige can be lent only to a power in the game, not {order.to}")
            if order.to == order.power:
                return Reason("lend-to-self", "a power cannot lend prestige to itself")
            if order.amount < 1:
                return Reason("lend-nothing", "lend at least 1 prestige", f"LEND {order.to} 1")
            return None
        if isinstance(order, SecureLoyalty):
            return None if order.bid >= 1 else Reason("bid-below-minimum", "SECURE LOYALTY needs a bid of at least 1",
                                                      "SECURE LOYALTY BID 1")
        if isinstance(order, SeizeFief):
            return self.fief_reason(order)
        if isinstance(order, Rebel):
            return self.rebel_reason(order)
        unit = self.position.unit_at(order.location.province)
        if unit is None:
            return Reason("no-unit", f"there is no unit in {self.pv(order.location.province)}")
        if order.unit_type is not None and order.unit_type != unit.type:
            return Reason("wrong-unit-type", f"there is no {order.unit_type.noun} in {self.pv(unit.province)} "
                                             f"({unit.type.a_noun} is there)", unit.short)
        if isinstance(order, Vassal):
            return self.vassal_reason(order, unit, rebel_targets)
        return self.bribe_reason(order, unit)

    def vassal_reason(self, order: Vassal, unit: Unit, rebel_targets: Collection[ProvinceId]) -> Reason | None:
        if order.bid < VASSAL_MINIMUM:
            return Reason("bid-below-minimum", f"the minimum bid for VASSAL is {VASSAL_MINIMUM} (rule 2.4.1)",
                          f"VASSAL {unit.short} BID {VASSAL_MINIMUM}")
        if unit.power != NEUTRAL:
            if unit.province in rebel_targets and self.position.supply_centers.get(unit.province) == unit.power:
                return None  # it may rebel first; settled (2.7.4)
            return Reason("vassal-not-neutral", f"{self.unit_words(unit)} belongs to {self.pw(unit.power)}: "
                                                f"only an armed neutral can be taken as vassal (rule 2.4.1)")
        lord = lord_of(self.state, unit)
        if lord is not None:
            return Reason("already-vassal", f"{self.unit_words(unit)} is already the vassal of {self.pw(lord)} "
                                            f"until the end of the year")
        return None

    def fief_reason(self, order: SeizeFief) -> Reason | None:
        prov, power = order.province, order.power
        if prov not in self.variant.provinces or not self.variant.provinces[prov].supply_center:
            return Reason("not-a-centre", f"{prov} is not a supply centre")
        if self.position.supply_centers.get(prov) != power:
            return Reason("fief-not-owned", f"{self.pw(power)} does not own {self.pv(prov)}: only a centre it owns "
                                            f"can become a fief", self.fief_candidates(power))
        if is_home_center(self.state, power, prov):
            return Reason("already-home-centre", f"{self.pv(prov)} is already a home centre of {self.pw(power)}",
                          self.fief_candidates(power))
        for other in self.variant.powers:
            if other != power and prov in self.variant.home_centers(other) and other not in self.position.eliminated:
                return Reason("fief-of-a-living-power", f"{self.pv(prov)} is a starting home centre of "
                                                        f"{self.pw(other)}, which is still in the game (rule 2.6.2)",
                              self.fief_candidates(power))
        return None

    def fief_candidates(self, power: Power) -> str:
        """The centres ``power`` could seize as fiefs now, for "what would be accepted"."""
        out = []
        for prov in self.position.centers_of(power):
            if is_home_center(self.state, power, prov):
                continue
            if any(o != power and prov in self.variant.home_centers(o) and o not in self.position.eliminated
                   for o in self.variant.powers):
                continue
            out.append(f"SEIZE FIEF {prov}")
        return ", ".join(out)

    def rebel_reason(self, order: Rebel) -> Reason | None:
        prov = order.province
        if prov not in self.variant.provinces or not self.variant.provinces[prov].supply_center:
            return Reason("not-a-centre", f"{prov} is not a supply centre")
        owner = self.position.supply_centers.get(prov, NEUTRAL)
        if owner == NEUTRAL:
            return Reason("rebel-neutral-centre", f"{self.pv(prov)} is neutral: only another power's centre can rebel")
        if owner == order.power:
            return Reason("rebel-own-centre", f"{self.pv(prov)} is your own centre")
        if is_home_center(self.state, owner, prov):
            return Reason("rebel-home-centre", f"{self.pv(prov)} is a home centre of {self.pw(owner)}: only a "
                                               f"conquered centre can rebel (rule 2.7.1)")
        if order.bid < 1:
            return Reason("bid-below-minimum", "REBEL needs a bid of at least 1", f"REBEL {prov} BID 1")
        return None

    def bribe_reason(self, order: Bribe, unit: Unit) -> Reason | None:
        state = self.state
        if order.bid < BRIBE_MINIMUM:
            return Reason("bid-below-minimum", f"the minimum bid for BRIBE is {BRIBE_MINIMUM} (rule 2.5.1)",
                          f"BRIBE {unit.short} BID {BRIBE_MINIMUM}")
        if order.order is not None and order.order.location.province != unit.province:
            return Reason("bribe-order-for-another-unit",
                          f"the order given with the BRIBE is for {order.order.unit_text}, not for the bribed unit "
                          f"{unit.short}", f"BRIBE {unit.short} BID {order.bid} {unit.short} H")
        if unit.power == order.power:
            return Reason("bribe-own-unit", "a power cannot bribe its own unit")
        if unit.power == NEUTRAL:
            lord = lord_of(state, unit)
            if lord == order.power:
                return Reason("bribe-own-vassal", f"{self.unit_words(unit)} is already your vassal")
            if lord is None:
                if unit.province != neutral_home(state, unit):
                    return Reason("bribe-away-from-home",
                                  "a neutral unit can be bribed only in its home centre (rule 2.5.4)")
            elif is_home_center(state, lord, unit.province):
                return Reason("bribe-in-home-centre", f"{self.unit_words(unit)} stands in a home centre of its lord "
                                                      f"{self.pw(lord)} and cannot be bribed (rule 2.8.4)")
            if order.owner is not None and order.owner not in (NEUTRAL, lord):
                return Reason("bribe-wrong-owner", f"{self.unit_words(unit)} is not {self.pw(order.owner)}'s")
            return None
        if order.owner is not None and order.owner != unit.power:
            return Reason("bribe-wrong-owner", f"{self.unit_words(unit)} belongs to {self.pw(unit.power)}, "
                                               f"not {self.pw(order.owner)}")
        if is_home_center(state, unit.power, unit.province):
            return Reason("bribe-in-home-centre", f"{self.unit_words(unit)} stands in a home centre of "
                                                  f"{self.pw(unit.power)} and cannot be bribed (rule 2.8.4)")
        return None

    # -- what a valid order needs -----------------------------------------------------------

    def controller(self, unit: Unit) -> Power | None:
        """Who controls ``unit`` for a bribe: its owner, or a neutral's lord (None: nobody)."""
        return lord_of(self.state, unit) if unit.power == NEUTRAL else unit.power

    def minimum(self, base: int, owner: Power, loyalty: int = 0) -> tuple[int, str]:
        """A bid's minimum against ``owner`` (its start-of-year prestige and ``loyalty`` this
        turn added to ``base``) and the words that explain it."""
        start = self.state.prestige_start.get(owner, 0)
        words = f"{base} + {self.pw(owner)}'s {start} at the start of the year"
        if loyalty:
            words += f" + {loyalty} secure loyalty"
        return base + start + loyalty, words

    def needs(self, order: PrestigeOrder) -> Reason | None:
        """What a valid bid needs to succeed, which only the adjudication can tell, or None."""
        if isinstance(order, Vassal):
            return Reason("bid-contest", f"needs at least {VASSAL_MINIMUM}; the highest bid takes "
                                         f"{self.unit_words(units_by_province(self.position)[order.location.province])}, a tie "
                                         f"takes nobody, and every bid is spent (rule 2.4.2)")
        if isinstance(order, Rebel):
            owner = self.position.supply_centers[order.province]
            least, words = self.minimum(REBEL_BASE, owner)
            return Reason("bid-needs", f"needs at least {least}: {words}, more if {self.pw(owner)} secures "
                                       f"loyalty; other powers' REBEL bids on {self.pv(order.province)} add up, and "
                                       f"the bid is spent whether it succeeds or fails (rule 2.7.5)")
        if isinstance(order, Bribe):
            unit = units_by_province(self.position)[order.location.province]     # a valid bid's unit
            controller = self.controller(unit)
            if controller is None:
                text = (f"needs at least {BRIBE_MINIMUM}; the largest pool of bids giving "
                        f"{self.unit_words(unit)} the same order wins (rules 2.5.2, 2.9.2)")
            else:
                least, words = self.minimum(BRIBE_MINIMUM, controller)
                text = (f"needs at least {least}: {words}, more if {self.pw(controller)} secures loyalty; bids "
                        f"giving {self.unit_words(unit)} the same order add up (rules 2.8.1, 2.9.2)")
            return Reason("bid-needs", text)
        return None


def order_cost(order: PrestigeOrder) -> int:
    """What a prestige order costs: its loan, its bid, or a fief's price."""
    if isinstance(order, Lend):
        return order.amount
    if isinstance(order, SeizeFief):
        return SEIZE_FIEF_COST
    return order.bid


def affordability_notes(variant: Variant, position: Position, power: Power, standing: Sequence[Order]) -> dict[Order, Reason]:
    """For each of ``power``'s standing prestige orders it cannot pay for from what it holds, in
    the order they are settled (loans first, then the rest, top down: rule 2.3.7, decision 12),
    a note saying so."""
    if not has_state(position):
        return {}
    state = state_of(position)
    held = state.prestige.get(power, 0)
    left = held
    notes: dict[Order, Reason] = {}
    name = variant.power_name(power)
    loans = [o for o in standing if isinstance(o, Lend)]
    rest = [o for o in standing if isinstance(o, PRESTIGE_ORDER_TYPES) and not isinstance(o, Lend)]
    lent = 0
    for sequence in (loans, rest):
        short, spent = False, 0
        for order in sequence:
            cost = order_cost(order)
            if isinstance(order, Lend) and (short or cost > left):
                text = (f"needs {cost} of {name}'s own prestige, and {name} holds {left} after the loans above it: "
                        f"it lends nothing, and no loan after it is made (rule 2.3.7)")
            elif short:
                text = (f"comes after an order {name} cannot pay for from what it holds: it happens only if loans "
                        f"reach {name} this turn (rule 2.3.7)")
            elif cost > left:
                text = (f"needs {cost} prestige, and {name} holds {_holds_after(left, lent, spent)}: it happens "
                        f"only if loans reach {name} this turn; if not, neither do the orders after it (rule 2.3.7)")
            else:
                left -= cost
                lent += cost if isinstance(order, Lend) else 0
                spent += cost
                continue
            notes[order] = Reason("beyond-prestige", text)
            short = True
    return notes


def _holds_after(left: int, lent: int, spent: int) -> str:
    """What a power holds for an order and what took the rest: ``1 after lending 1 (loans are
    settled first, wherever they are written) and the orders above it`` (decision 12)."""
    took = ([f"lending {lent} (loans are settled first, wherever they are written)"] if lent else []) + \
           (["the orders above it"] if spent else [])
    return f"{left} after " + " and ".join(took) if took else str(left)
