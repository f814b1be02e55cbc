"""The Crusader prestige rules (rules text sections 2 and 3) as a rule module.

On for the ``crusader`` variant and for any map with ``rules: ["prestige"]``. The parts:

- :mod:`.state`: the opening :class:`~adjudicator.position.PrestigeState` and questions asked of it;
- :mod:`.bids`: settling a movement phase's prestige orders (a pure function, :func:`settle`);
- :mod:`.winter`: the yearly recalculation and the end of the neutrals' year;
- :mod:`.neutrals`: the vassal's leash, the neutrals' march home, random neutral retreats;
- :mod:`.rules`: the hooks the engine calls (:class:`PrestigeRules`).

Every decision taken where the rules text is silent is in ``docs/rules.md``.
"""

from .bids import Settlement, settle
from .state import STARTING_PRESTIGE, initial_state
from .winter import new_year, ranking_award

__all__ = ["STARTING_PRESTIGE", "Settlement", "initial_state", "new_year", "ranking_award", "settle"]
