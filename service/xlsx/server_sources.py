"""Where a strategy sheet's server cohorts take their inputs: one formula set for every
server, whatever the fleet (issue 36; a scenario without server types is a fleet of one,
``owned``).

Every server cohort is one of the engine's (models/ledger_cohorts.py), with its type, count and
months as known values; its formulas are rebuilt from them wherever they follow a rule the
sheet can restate, with its type's names (service/xlsx/type_names.py, ``calc_type_<i>_*``):

- price and install: the position row it is held from (``position_servers_<j>_price``), or its
  type's price in the month bought (``calc_type_<i>_server_price`` and the type's trend);
- purchase month: the position row's month, the decision row of its month, or for a static
  strategy's generation j of its type, j useful lives from the plan's start;
- count: the position row's count, the decision's cell for its type (the Schedule sheet, or
  ``proposed.schedule[k].buy[type]``), or the static decision's cell for its type, when no
  sale split the cohort;
- online and sold: its type's lead time and useful life, unless a sale took it out early.

A value stays a value otherwise (a split cohort's count, a sale's month).
"""
from __future__ import annotations

from collections import Counter
from typing import Optional

import numpy as np

from models.ledger import CohortRow
from models.scenario import Scenario
from models.scenario_owned import type_owned
from service.i18n import N_, gettext as tr
from service.i18n.labels import server_type_name
from service.xlsx.cohorts import month_index
from service.xlsx.type_names import (OwnedNames, online_formula, price_formula, sold_formula,
                                     type_index, type_names)

SERVERS_NOTE = N_("Each server cohort is priced with its server type's rows of the Assumptions "
                  "sheet. A cohort that a sale split keeps the engine's count and months as "
                  "values.")


def cohort_key(row: CohortRow) -> tuple:
    """What makes a server cohort one purchase: its type, month bought and position row."""
    return (row.type, int(row.params["bought"]), row.origin == "chain", row.ref)


def unsplit_counts(rows) -> Counter:
    """How many server cohorts share each :func:`cohort_key` (more than one: split by a
    sale)."""
    return Counter(cohort_key(r) for r in rows if r.kind == "server")


def server_formulas(s: Scenario, row: CohortRow, first_start: str, decisions: dict,
                    capacity: dict[str, str], labels, horizon: int, unsplit: bool
                    ) -> tuple[dict[str, Optional[str]], str, OwnedNames]:
    """(parameter formulas, what it is, its type's names) of a server cohort.

    Parameters
    ----------
    s : Scenario
        The scenario as a fleet (models.scenario.Scenario.as_fleet).
    row : CohortRow
        The cohort, as the engine priced it.
    first_start : str
        The cell of the plan's first month (a date).
    decisions : dict of str to service.xlsx.cohort_sources.DecisionRef
        The decision rows of the sheet's schedule, by month.
    capacity : dict of str to str
        The static decision's cell of each type's servers, by type id (a static strategy).
    labels : sequence of str
        The plan's month labels, 'YYYY-MM'.
    horizon : int
        Months of the horizon [months].
    unsplit : bool
        No other cohort has the same type, purchase month and origin.
    """
    i = type_index(s, row.type)
    names = type_names(s, i)
    kind = type_owned(s.owned, s.server_types[i - 1])
    bought, online, sold = (int(row.params[k]) for k in ("bought", "online", "sold"))
    full = sold == min(bought + kind.useful_life_months, horizon)   # not sold early
    formulas: dict[str, Optional[str]] = dict.fromkeys(("count", "bought", "online", "sold",
                                                        "price", "install"))
    month = str(np.datetime64(labels[0], "M") + bought)
    if row.origin == "engine" and row.ref is not None:      # held before the plan
        held = s.position.servers[row.ref - 1]
        p = f"position_servers_{row.ref}_"
        formulas.update(bought="=" + month_index(f"{p}purchased", first_start),
                        price=f"={p}price", install=f"={p}install_cost")
        if unsplit and full and held.count == int(row.params["count"]):
            formulas["count"] = f"={p}count"
        what = tr("%(type)s held since %(month)s", type=server_type_name(row.type),
                  month=held.purchased)
    elif row.origin == "chain":                             # a static strategy's generation
        generation = bought // kind.useful_life_months
        formulas.update(bought=f"={generation}*{names.life}", price=price_formula(names),
                        install=f"={names.install}")
        if unsplit and full and row.type in capacity:
            formulas["count"] = f"={capacity[row.type]}"
        what = tr("%(type)s, static plan, generation %(number)s", type=server_type_name(row.type),
                  number=row.ref)
    else:                                                   # a purchase of a schedule
        d = decisions.get(month)
        cell = d.buy_by_type.get(row.type) if d is not None else None
        if d is not None:
            formulas["bought"] = f"={d.index}"
        if cell is not None and unsplit and full:
            formulas["count"] = f"={cell}"
        formulas.update(price=price_formula(names), install=f"={names.install}")
        what = tr("%(type)s bought in %(month)s", type=server_type_name(row.type), month=month)
    if online == bought + kind.lead_time_months:
        formulas["online"] = online_formula(names)
    if full:
        formulas["sold"] = sold_formula(names)
    return formulas, what, names
