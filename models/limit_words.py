"""A limit of the scenario a strategy breaks, as data and in words: no engine state (the
service's sentences read it; the workbook writer's import contract is strict, issue 36).
models/plan_limits.py finds the breaches.
"""
from __future__ import annotations

from dataclasses import dataclass

from models.messages import Message, Money, Number

BUDGET, SERVERS, POWER = "capital_budget_per_year", "max_servers", "max_power_kw"


@dataclass(frozen=True)
class Breach:
    """The worst excess of one limit: what the plan needs where it needs the most."""

    limit: str          # BUDGET, SERVERS or POWER
    needed: float       # [currency per year], [servers] or [kW]
    allowed: float      # the scenario's limit, in the same unit
    when: str           # the calendar year ('YYYY') or the month ('YYYY-MM') of the excess

    def to_json(self) -> dict:
        """The breach as a plan document's ``breaches`` entry.

        Returns
        -------
        dict
            ``limit``, ``needed``, ``allowed`` and ``when``.
        """
        return {"limit": self.limit, "needed": self.needed, "allowed": self.allowed,
                "when": self.when}


def breach_words(b, currency: str) -> Message:
    """One broken limit in words: what the plan needs, when, and what the scenario allows.

    Parameters
    ----------
    b : models.plan_limits.Breach
        The limit and its worst excess.
    currency : str
        ISO 4217 code of the reporting currency.

    Returns
    -------
    Message
        "it spends $8.24M in 2027 against a capital budget of $2M a year", "it needs 80
        servers online in 2027-01; the hall holds 40", "it needs 569 kW in 2027-01; the
        hall has 260 kW".
    """
    if b.limit == BUDGET:
        return Message("it spends {needed} in {when} against a capital budget of {allowed} a "
                       "year.", {"needed": Money(b.needed, currency), "when": b.when,
                                 "allowed": Money(b.allowed, currency)})
    if b.limit == SERVERS:
        return Message("it needs {needed} servers online in {when}; the hall holds {allowed}.",
                       {"needed": Number(b.needed, 0), "when": b.when,
                        "allowed": Number(b.allowed, 0)})
    return Message("it needs {needed} kW in {when}; the hall has {allowed} kW.",
                   {"needed": Number(b.needed, 0), "when": b.when,
                    "allowed": Number(b.allowed, 0)})
