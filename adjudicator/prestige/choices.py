"""The prestige orders worth offering a power in a menu (rules 2.4-2.9): each at its least
amount, to be checked by the engine (:func:`adjudicator.turn.rule_choices`), which keeps only
the ones it accepts, with what each needs to succeed.

A candidate is a template: its bid or loan is the rules' least (2 for VASSAL, 1 for the
others), and the player sets the amount. Only the engine's check decides what is offered.
"""

from __future__ import annotations

from ..orders import Order
from ..position import Position
from ..variant import Variant
from ..vocab import Power
from .bids import is_spending_phase
from .checks import BRIBE_MINIMUM, VASSAL_MINIMUM
from .orders import Bribe, Lend, Rebel, SecureLoyalty, SeizeFief, Vassal


def candidates(variant: Variant, position: Position, power: Power) -> tuple[Order, ...]:
    """VASSAL and BRIBE on every unit, SEIZE FIEF and REBEL on every centre, SECURE LOYALTY, and a
    loan to every other power: none in a phase where prestige is not spent (2.1)."""
    if not is_spending_phase(position):
        return ()
    out: list[Order] = []
    for unit in sorted(position.units, key=lambda u: u.province):
        out.append(Vassal(power, unit.type, unit.location, VASSAL_MINIMUM))
    for unit in sorted(position.units, key=lambda u: u.province):
        out.append(Bribe(power, unit.type, unit.location, BRIBE_MINIMUM))
    centres = sorted(p for p, info in variant.provinces.items() if info.supply_center)
    out += [SeizeFief(power, p) for p in centres]
    out += [Rebel(power, p, 1) for p in centres]
    out.append(SecureLoyalty(power, 1))
    out += [Lend(power, other, 1) for other in sorted(variant.powers) if other != power]
    return tuple(out)
