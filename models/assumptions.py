"""The key assumptions of a plan, their ranges and distributions (design 5.4, issue 7).

Each assumption names what it moves by a scenario field path; ``scenario.uncertainty.ranges``
gives its range by that path (models/ranges.py holds the names and paths) as a change from the
base (relative: base x (1 + change); absolute: base + change). This module holds the list:
each assumption, its key (per server type in a fleet) and which apply to a scenario. Their
values in a scenario are in models/assumption_values.py; the draws, by the inverse-CDF method
from correlated uniforms (a Gaussian copula), so a correlation between two assumptions is one
line and every marginal keeps its own shape, in models/assumption_sampling.py.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from models.fields import field_meta
from models.ranges import RANGES, RangeSpec
from models.scenario import Scenario


@dataclass(frozen=True)
class Assumption:
    """A key assumption: its range's name and path (models/ranges.RANGES) and how it moves."""

    spec: RangeSpec
    stratified: bool = False     # changes demand tables or waste: drawn from a few strata
    # the two that move no single field: a multiplier of the resale fractions, points added
    # to every offer's discount; their label and unit say so
    label_unit: Optional[tuple[str, str]] = None
    server_type: Optional[str] = None   # a fleet's type whose field it moves (issue 26)

    @property
    def key(self) -> str:
        """The assumption's short name, as the tornado and the draws name it.

        Returns
        -------
        str
            E.g. ``"server_price"`` (models/ranges.py RANGES); ``"server_price@b200"`` for
            one server type of a fleet.
        """
        return self.spec.key if self.server_type is None else \
            f"{self.spec.key}{TYPE_SEP}{self.server_type}"

    @property
    def path(self) -> str:
        """The scenario field path the assumption moves, its key in ``uncertainty.ranges``.

        Returns
        -------
        str
            E.g. ``"owned.server_price"``; ``"owned.resale_fraction_by_year"`` (a multiplier)
            and ``"commitments[*].discount"`` (points added) for the two without one field.
        """
        return self.spec.path

    @property
    def relative(self) -> bool:
        """Whether the range is a fraction of the base value (else it is added to it).

        Returns
        -------
        bool
            True: value = base x (1 + change); False: value = base + change.

        Notes
        -----
        Relative: value = base x (1 + change); else value = base + change.
        """
        return self.spec.relative

    def field(self):
        """The pydantic field of the scenario value the assumption moves.

        Returns
        -------
        pydantic.fields.FieldInfo
            The field with its label, unit and bounds (not for the two assumptions without
            one field: resale_value, commitment_discount).
        """
        section, name = self.path.split(".")
        return Scenario.model_fields[section].annotation.model_fields[name]

    @property
    def label(self) -> str:
        """The assumption's label in English (the catalogs translate it).

        Returns
        -------
        str
            The moved field's label, or the label of the two without one field.
        """
        return self.label_unit[0] if self.label_unit else field_meta(self.field())["label"]

    @property
    def unit(self) -> str:
        """The unit of the assumption's value.

        Returns
        -------
        str
            The moved field's unit, or the unit of the two without one field.
        """
        return self.label_unit[1] if self.label_unit else field_meta(self.field())["unit"]


TYPE_SEP = "@"
# a fleet (issue 26): each server type's price and throughput move on their own, each with
# the range of the owned field; the fleet-wide server price gives way to them
PER_TYPE = ("server_price", "relative_throughput")
STRATIFIED = ("spot_interruptions", "failure_rate")
WITHOUT_FIELD = {"resale_value": ("Resale value", "multiple of the base resale fractions"),
                 "commitment_discount": ("Commitment discounts",
                                         "points added to every offer's discount")}
# in the order of RANGES, which is the order of the Monte Carlo's random streams
ASSUMPTIONS = tuple(Assumption(spec, spec.key in STRATIFIED, WITHOUT_FIELD.get(spec.key))
                    for spec in RANGES)
BY_KEY = {a.key: a for a in ASSUMPTIONS}


def assumption(key: str) -> Assumption:
    """The assumption a key names, a server type's own included.

    Parameters
    ----------
    key : str
        ``"server_price"``, or ``"server_price@b200"`` for one type of a fleet.

    Returns
    -------
    Assumption
        Its range, label and unit; a type's carries the type's id.

    Raises
    ------
    KeyError
        No such assumption.
    """
    if key in BY_KEY:
        return BY_KEY[key]
    name, sep, type_id = key.partition(TYPE_SEP)
    if not sep or name not in PER_TYPE or not type_id:
        raise KeyError(key)
    return Assumption(BY_KEY[name].spec, server_type=type_id)


def per_type(s: Scenario) -> tuple[Assumption, ...]:
    """The assumptions a server type sets for itself, in the scenario's order of types.

    Parameters
    ----------
    s : Scenario
        The scenario.

    Returns
    -------
    tuple of Assumption
        The price and the throughput of each type that gives its own (``server_types[].
        server_price``, ``relative_throughput``): a type that leaves one to the owned servers
        section moves with that section's draw (the price) or is the reference (the
        throughput), so a scenario without server types, a fleet of one type that sets
        nothing, has none.
    """
    return tuple(Assumption(BY_KEY[name].spec, server_type=t.id)
                 for t in s.server_types for name in PER_TYPE
                 if getattr(t, name) is not None)


def assumptions_for(s: Scenario) -> tuple[Assumption, ...]:
    """The assumptions that can move this scenario's plan: the tornado's rows.

    Parameters
    ----------
    s : Scenario
        The scenario.

    Returns
    -------
    tuple of Assumption
        Those of ``ASSUMPTIONS`` that apply, then each server type's (:func:`per_type`).
    """
    return tuple(a for a in ASSUMPTIONS if applies(s, a.key)) + per_type(s)


def applies(s: Scenario, key: str) -> bool:
    """Whether an assumption can move this scenario's plan.

    Parameters
    ----------
    s : Scenario
        Scenario (does it convert a currency?).
    key : str
        Assumption key.

    Returns
    -------
    bool
        False for the exchange rate of a plan that converts no currency; for the owned
        servers section's price when every server type sets its own (each type's moves
        instead); for a throughput not of a type; for a type's own assumption it does not set.
    """
    a = assumption(key)
    if a.server_type is not None:
        return any(t.id == a.server_type and getattr(t, a.key.partition(TYPE_SEP)[0])
                   is not None for t in s.as_fleet().server_types)
    if key == "relative_throughput":
        return False
    if key == "server_price":
        return any(t.server_price is None for t in s.as_fleet().server_types)
    return key != "fx_rate" or s.foreign_currency() is not None
