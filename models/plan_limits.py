"""Whether a strategy keeps the scenario's own limits (issue 37): the capital budget of each
calendar year, the hall's servers and the hall's power.

The staged and robust MILPs hold these limits as rows (models/staged.py ``limit_rows``); a
static strategy (``cloud_only``, ``buy_for_peak``, ``optimal``, a proposal) decides everything
in its first month, so it is checked after it is priced. A strategy that breaks a limit is
shown with what it needs against what the scenario allows, and never recommended nor used as a
headline's basis (models/plan.py :func:`recommend`).
"""
from __future__ import annotations

import numpy as np

from models.limit_words import BUDGET, POWER, SERVERS, Breach
from models.schedules import cash_by_period
from models.strategy_result import StrategyResult

# a plan keeps a limit it meets to this share (the MILP's rows hold to HiGHS's 1e-7
# feasibility tolerance on amounts of millions)
SLACK = 1e-9


def hall_power(ctx, by_type: dict) -> np.ndarray:
    """The power of servers online by month, every type together.

    Parameters
    ----------
    ctx : PlanState
        The plan's context (its fleet's types).
    by_type : dict
        Type id (None without server types) to servers online [servers, (months,)].

    Returns
    -------
    numpy.ndarray
        Power [kW, (months,)].

    Notes
    -----
    .. math:: P_m = \\sum_t n_{t,m} \\; kW^{max}_t \\; PUE_t

    every type's servers online at its maximum draw times its PUE, as the hall's power row of
    the staged MILP.
    """
    kinds = {k.id: k for k in ctx.fleet}
    return sum((np.asarray(n, float) * kinds[t].owned.power_kw_max * kinds[t].owned.pue
                for t, n in by_type.items()), np.zeros(ctx.horizon))


def breaches(ctx, r: StrategyResult) -> tuple[Breach, ...]:
    """The scenario's limits a priced strategy breaks, each at its worst.

    Parameters
    ----------
    ctx : PlanState
        The plan's context (``staging`` limits, the position, the calendar).
    r : StrategyResult
        The strategy as priced: its capex and upfront lines, servers online (by type).

    Returns
    -------
    tuple of Breach
        One per limit broken, in the order budget, servers, power; empty when the plan keeps
        every limit. A month where the position alone is over the hall counts only what the
        plan adds beyond it (a strategy cannot undo what the team holds).

    Notes
    -----
    A limit L is broken when x > L + 1e-9 x max(1, |L|), for x a calendar year's purchases and
    upfront payments within the horizon (``cash_by_period``'s ``by_year``, the figure a capital
    budget is set against; what the position holds was paid before the plan) [currency], the
    servers online n_m [servers] or their power P_m (:func:`hall_power`) [kW]; for servers and
    power the allowed level in month m is max(L, the position's own load that month), and the
    worst month is m* = argmax_m (load_m - allowed_m).
    """
    staging = ctx.scenario.staging
    months = ctx.calendar.months
    out = []

    def over(x: float, limit: float) -> bool:
        return x > limit + SLACK * max(1.0, abs(limit))

    if staging.capital_budget_per_year is not None:
        budget = float(staging.capital_budget_per_year)
        years = cash_by_period(months, r)["by_year"]
        worst = max(years, key=lambda y: years[y], default=None)
        if worst is not None and over(years[worst], budget):
            out.append(Breach(BUDGET, years[worst], budget, worst))
    if staging.max_servers is not None or staging.max_power_kw is not None:
        H = ctx.horizon
        by_type = r.servers_online_by_type or {ctx.fleet[0].id: r.servers_online}
        held_by_type = ctx.position.servers_online_by_type(H)
        servers = np.asarray(r.servers_online[:H], float)
        held = sum(held_by_type.values(), np.zeros(H))
        for name, limit, load, held_load in (
                (SERVERS, staging.max_servers, servers, held),
                (POWER, staging.max_power_kw, hall_power(ctx, by_type),
                 hall_power(ctx, held_by_type))):
            if limit is None:
                continue
            allowed = np.maximum(float(limit), held_load)
            m = int(np.argmax(load - allowed))
            if over(float(load[m]), float(allowed[m])):
                out.append(Breach(name, float(load[m]), float(limit), str(months[m])))
    return tuple(out)
