"""A fleet of several server generations (issue 26): the types a plan may hold.

A scenario without ``server_types`` is a fleet of one type, ``owned`` (issue 36,
models.scenario.Scenario.as_fleet), so one set of rules plans every scenario. Each type is
``owned`` with the type's overrides
(models.scenario_owned.type_owned), bought in its own window and priced by its own price book
(models.prices.PriceBook.for_type). Demand stays in work of the reference GPU: a server of a
type gives ``gpus_per_server x availability x relative_throughput`` of it an hour.

Owned types take work in *merit order*: the type whose busy GPU-hour of work costs least
first (its energy above idle per unit of work, :func:`merit_order`), so each type's volume is a
difference of two sums of min(demand, level) over the cumulative owned levels, and the cost
of owned work stays convex in those levels (models/staged.py).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from models.scenario import Scenario
from models.scenario_owned import Owned, type_owned


@dataclass(frozen=True)
class FleetType:
    """One server type of a plan: its ``owned`` section and when it can be bought."""

    id: str                        # ``owned``: a scenario without server types
    owned: Owned
    first: int                     # first month index it can be bought [months]
    last: Optional[int]            # last month index it can be bought; None: no end [months]
    successor_month: Optional[int]  # month index its successor becomes available [months]
    drop: float                    # resale value lost from then [fraction]

    @property
    def per_server(self) -> float:
        """Work one online server does an hour [GPUs of the reference type].

        Notes
        -----
        w = G x a x t, G the GPUs per server [GPUs], a the availability [fraction], t the relative
        throughput [-].
        """
        o = self.owned
        return o.gpus_per_server * o.availability * o.relative_throughput

    def can_buy(self, month: int) -> bool:
        """Whether the type can be bought at the start of a month.

        Parameters
        ----------
        month : int
            Month index, 0-based [months].

        Returns
        -------
        bool
            True inside ``available_from`` .. ``available_until``.

        Notes
        -----
        can_buy(m) = (first <= m) and (last is None or m <= last), with first and last the months of
        ``available_from`` and ``available_until`` [months].
        """
        return month >= self.first and (self.last is None or month <= self.last)


def _index(month: Optional[str], first_month: str) -> Optional[int]:
    if month is None:
        return None
    return int((np.datetime64(month, "M") - np.datetime64(first_month, "M")).astype(int))


def fleet_types(s: Scenario, first_month: str) -> tuple[FleetType, ...]:
    """The types of a plan, in the scenario's order.

    Parameters
    ----------
    s : Scenario
        The scenario.
    first_month : str
        The plan's first month, ``'YYYY-MM'``.

    Returns
    -------
    tuple of FleetType
        One type, ``owned``, when the scenario names no ``server_types``.

    Notes
    -----
    For each type: first = (12 y_f + m_f) - (12 y_0 + m_0), the month index of ``available_from``
    (-10^6, always, when unset), last = the index of ``available_until`` (None when unset), and
    the successor's first index, from the plan's first month (y_0, m_0) [months].
    """
    s = s.as_fleet()
    starts = {t.id: _index(t.available_from, first_month) for t in s.server_types}
    out = []
    for t in s.server_types:
        first = starts[t.id]
        out.append(FleetType(t.id, type_owned(s.owned, t), -10**6 if first is None else first,
                             _index(t.available_until, first_month),
                             starts.get(t.successor) if t.successor else None,
                             t.resale_drop_at_successor))
    return tuple(out)


def type_scenario(s: Scenario, type_id: Optional[str]) -> Scenario:
    """The scenario as one type of its fleet sees it: ``owned`` replaced by the type's.

    Parameters
    ----------
    s : Scenario
        The scenario.
    type_id : str or None
        A server type id; None: the scenario itself.

    Returns
    -------
    Scenario
        A copy whose ``owned`` is the type's (not revalidated: the scenario was).
    """
    if type_id is None:
        return s
    t = next(t for t in s.as_fleet().server_types if t.id == type_id)
    owned = type_owned(s.owned, t)
    return s if owned is s.owned else s.model_copy(update={"owned": owned})


def merit_order(book, types: tuple[FleetType, ...], horizon: int) -> tuple[int, ...]:
    """Which owned type takes work first: least PV of busy energy per unit of work.

    Parameters
    ----------
    book : models.prices.PriceBook
        The plan's price book (its type books are read).
    types : tuple of FleetType
        The fleet.
    horizon : int
        Months of the horizon [months].

    Returns
    -------
    tuple of int
        Indices into ``types``, first to take work first; ties keep the scenario's order.

    Notes
    -----
    Types sorted by e_i = (sum_{m<H} E_i(m) f(m)) / t_i, ties by scenario index, with E_i(m) the
    type's energy cost of a busy GPU-hour in month m [currency per GPU-hour], f(m) the end-of-month
    discount factor [-], t_i the relative throughput [-].
    """
    def busy(i: int) -> float:
        t = types[i]
        b = book.for_type(t.id)
        return float(b.energy_busy[:horizon, 0] @ book.end[:horizon, 0]) / \
            t.owned.relative_throughput
    return tuple(sorted(range(len(types)), key=lambda i: (busy(i), i)))


def default_type(s: Scenario) -> Optional[str]:
    """The type of servers a position row or a shorthand decision names without a type.

    Parameters
    ----------
    s : Scenario
        The scenario.

    Returns
    -------
    str or None
        The first server type's id; None without server types.
    """
    return s.as_fleet().server_types[0].id
