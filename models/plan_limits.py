"""Whether a strategy keeps the scenario's own limits (issue 37): the capital budget of each
calendar year, the hall's servers and the hall's power.

The staged and robust MILPs hold these limits as rows (models/staged.py ``limit_rows``); a
static strategy (``cloud_only``, ``buy_for_peak``, ``optimal``, a proposal) decides everything
in its first month, so it is checked after it is priced. A strategy that breaks a limit is
shown with what it needs against what the scenario allows, and never recommended nor used as a
headline's basis (models/plan.py :func:`recommend`).
"""
from __future__ import annotations

from collections import Counter

import numpy as np

from models.capacity import CapacityPlan
from models.costs import commitment_schedule, server_schedule
from models.limit_words import BUDGET, POWER, SERVERS, Breach

# a plan keeps a limit it meets to this share (the MILP's rows hold to HiGHS's 1e-7
# feasibility tolerance on amounts of millions)
SLACK = 1e-9


def new_cohorts(plan: CapacityPlan, position: CapacityPlan) -> CapacityPlan:
    """The cohorts of ``plan`` that the position does not already hold.

    Parameters
    ----------
    plan : CapacityPlan
        A strategy's cohorts (the position's included).
    position : CapacityPlan
        What the team holds before any decision.

    Returns
    -------
    CapacityPlan
        ``plan`` less the position, cohort by cohort (a multiset difference).
    """
    servers, commitments = Counter(position.servers), Counter(position.commitments)
    kept_s, kept_c = [], []
    for c in plan.servers:
        if servers[c]:
            servers[c] -= 1
        else:
            kept_s.append(c)
    for c in plan.commitments:
        if commitments[c]:
            commitments[c] -= 1
        else:
            kept_c.append(c)
    return CapacityPlan(tuple(kept_s), tuple(kept_c), plan.use_spot)


def capital_by_year(ctx, plan: CapacityPlan) -> dict[str, float]:
    """Cash for purchases and upfront commitment payments by calendar year.

    Parameters
    ----------
    ctx : PlanContext
        The plan's context (price book, calendar, position).
    plan : CapacityPlan
        A strategy's cohorts.

    Returns
    -------
    dict of str to float
        Calendar year ('YYYY') to capital [currency], of the cohorts the position does not
        hold, within the horizon.

    Notes
    -----
    .. math:: K_y = \\sum_{c \\in new} \\sum_{m \\in y} n_c \\, capex_c(m) + g_c \\, upfront_c(m)

    the same amounts the staged MILP's budget rows hold (``server_schedule``'s ``capex``,
    ``commitment_schedule``'s ``upfront``, the price book's first draw).
    """
    months = ctx.calendar.months
    H = len(months)
    spent = np.zeros(H)
    added = new_cohorts(plan, ctx.position)
    for c in added.servers:
        capex = c.count * np.asarray(server_schedule(ctx.book, c)["capex"])[:, 0]   # per server
        spent += capex[:H] if len(capex) >= H else np.pad(capex, (0, H - len(capex)))
    for c in added.commitments:
        upfront = c.gpus * np.asarray(commitment_schedule(ctx.book, c)["upfront"])[:, 0]
        spent += upfront[:H] if len(upfront) >= H else np.pad(upfront, (0, H - len(upfront)))
    out: dict[str, float] = {}
    for m, amount in enumerate(spent):
        year = str(months[m])[:4]
        out[year] = out.get(year, 0.0) + float(amount)
    return out


def hall_load(ctx, plan: CapacityPlan) -> tuple[np.ndarray, np.ndarray]:
    """Servers online and their power by month.

    Parameters
    ----------
    ctx : PlanContext
        The plan's context (fleet types, horizon).
    plan : CapacityPlan
        A strategy's cohorts (the position's included).

    Returns
    -------
    tuple of numpy.ndarray
        (servers online [servers], power [kW]), each ``(months,)``.

    Notes
    -----
    .. math:: P_m = \\sum_t n_{t,m} \\; kW^{max}_t \\; PUE_t

    every type's servers online at its maximum draw times its PUE, as the hall's power row of
    the staged MILP.
    """
    H = ctx.horizon
    kinds = {k.id: k for k in ctx.fleet}
    by_type = plan.servers_online_by_type(H)
    servers = sum(by_type.values(), np.zeros(H))
    power = sum((n * kinds[t].owned.power_kw_max * kinds[t].owned.pue
                 for t, n in by_type.items()), np.zeros(H))
    return servers, power


def breaches(ctx, plan: CapacityPlan) -> tuple[Breach, ...]:
    """The scenario's limits a strategy breaks, each at its worst.

    Parameters
    ----------
    ctx : PlanContext
        The plan's context (``staging`` limits).
    plan : CapacityPlan
        A strategy's cohorts (the position's included).

    Returns
    -------
    tuple of Breach
        One per limit broken, in the order budget, servers, power; empty when the plan keeps
        every limit. A month where the position alone is over the hall counts only what the
        plan adds beyond it (a strategy cannot undo what the team holds).

    Notes
    -----
    A limit L is broken when :math:`x > L + 10^{-9} \\max(1, L)` for the year's capital
    :math:`K_y` (:func:`capital_by_year`), the servers online :math:`n_m` or the power
    :math:`P_m` (:func:`hall_load`).
    """
    staging = ctx.scenario.staging
    months = ctx.calendar.months
    out = []

    def over(x: float, limit: float) -> bool:
        return x > limit + SLACK * max(1.0, abs(limit))

    if staging.capital_budget_per_year is not None:
        budget = float(staging.capital_budget_per_year)
        years = capital_by_year(ctx, plan)
        worst = max(years, key=lambda y: years[y], default=None)
        if worst is not None and over(years[worst], budget):
            out.append(Breach(BUDGET, years[worst], budget, worst))
    if staging.max_servers is not None or staging.max_power_kw is not None:
        servers, power = hall_load(ctx, plan)
        held_servers, held_power = hall_load(ctx, ctx.position)
        for name, limit, load, held in ((SERVERS, staging.max_servers, servers, held_servers),
                                        (POWER, staging.max_power_kw, power, held_power)):
            if limit is None:
                continue
            allowed = np.maximum(float(limit), held)
            excess = load - allowed
            m = int(np.argmax(excess)) if len(excess) else 0
            if len(excess) and over(float(load[m]), float(allowed[m])):
                out.append(Breach(name, float(load[m]), float(limit), str(months[m])))
    return tuple(out)
