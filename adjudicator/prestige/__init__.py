"""The Crusader prestige rules (rules text sections 2 and 3) as a rule module.

On for the ``crusader`` variant and for any map with ``rules: ["prestige"]``. The parts:

- :mod:`.state`: the opening :class:`~.state.PrestigeState` and questions asked of it;
- :mod:`.bids`: settling a movement phase's prestige orders (a pure function, :func:`settle`);
- :mod:`.winter`: the yearly recalculation and the end of the neutrals' year;
- :mod:`.neutrals`: the vassal's leash, the neutrals' march home, random neutral retreats;
- :mod:`.checks`: whether a prestige order can be given at all, and what a bid needs;
- :mod:`.orders`: its own orders, and :mod:`.notation`, their reader in the judge's notation;
- :mod:`.codec`: the prestige keys of a position document;
- :mod:`.rules`: the hooks the engine calls (:class:`PrestigeRules`);
- :mod:`.words`: what the front ends show of it (its orders in words and on the picture, the
  vassals' lords, the bribes, its parts of the results report, its seed).

Importing the package registers the module as ``prestige`` (:mod:`adjudicator.modules`).
Every decision taken where the rules text is silent is in ``docs/rules.md``.
"""

from ..modules import RuleModule, register
from . import codec, notation, words
from .bids import Settlement, settle
from .orders import PRESTIGE_ORDER_TYPES, order_kind
from .rules import PrestigeRules
from .state import STARTING_PRESTIGE, initial_state, state_of
from .winter import new_year, ranking_award

MODULE = register(RuleModule(name="prestige", hooks=PrestigeRules(), initial_state=initial_state, keys=codec.KEYS,
                             read_state=codec.read_state, write_state=codec.write_state,
                             order_types=PRESTIGE_ORDER_TYPES, notation=notation.HEADS,
                             write_events=codec.write_events, write_year=codec.write_year,
                             read_events=codec.read_events, order_kind=order_kind,
                             standing=lambda position: state_of(position).prestige, standing_name="prestige",
                             spell=words.spell, mark=words.mark, lords=words.lords, commanded=words.commanded,
                             spent=words.spent, ledger=words.ledger, report=words.report, menu=words.menu, annihilation=words.annihilation,
                             seed=words.seed, with_seed=words.with_seed))

__all__ = ["STARTING_PRESTIGE", "Settlement", "initial_state", "new_year", "ranking_award", "settle"]
