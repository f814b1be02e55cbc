"""What happened in a phase besides each order's outcome, as values: :class:`Events`.

The core's part is typed fields (dislodgements, standoffs, annihilations, retreats' disbands,
centres changing hands, builds, removals, eliminations, victory); a rule module's part is a value
of the module's own (``rule`` for the phase, ``rule_year`` for the end of the year), which only
the module knows the shape of. No text here: the JSON of a result document is written and read
in ``bot.codec`` (and a rule module's part by the module's codec).
"""

from __future__ import annotations

from dataclasses import dataclass

from .position import Dislodgement
from .vocab import PhaseKind, Power, ProvinceId, Unit


@dataclass(frozen=True, slots=True)
class Annihilation:
    """A unit dislodged with nowhere to retreat, gone at once; ``by``: the power that ordered the
    dislodging move (None when nobody did)."""

    unit: Unit
    by: Power | None


@dataclass(frozen=True, slots=True)
class CentreChange:
    """A supply centre that changed owner after the fall (``NEU`` for neutral)."""

    province: ProvinceId
    before: Power
    after: Power


@dataclass(frozen=True, slots=True)
class Events:
    """The events of one phase of kind ``kind``.

    Movement: ``dislodged`` (each waiting to retreat or annihilated), ``standoffs``,
    ``annihilated``; retreats: ``disbanded``; after the fall: ``centres``; adjustments: ``built``,
    ``removed``; any phase: ``eliminated`` (powers out this phase) and ``victory``. ``rule``: the
    rule module's own value for the phase (prestige: the ledger, bribes, vassals, rebellions),
    ``rule_year``: its value for the end of the year (prestige: the year's awards), else None.
    """

    kind: PhaseKind
    dislodged: tuple[Dislodgement, ...] = ()
    standoffs: tuple[ProvinceId, ...] = ()
    annihilated: tuple[Annihilation, ...] = ()
    disbanded: tuple[Unit, ...] = ()
    centres: tuple[CentreChange, ...] = ()
    built: tuple[Unit, ...] = ()
    removed: tuple[Unit, ...] = ()
    eliminated: tuple[Power, ...] = ()
    victory: tuple[Power, ...] = ()
    rule: object | None = None
    rule_year: object | None = None
