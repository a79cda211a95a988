"""What the reader should know about a plan's figures: repeated usage, spot and failure waste,
commitments that run past the horizon, loans paid off early, an approximate optimum, caps.

Split from models/plan.py (issue 36, item 3): the plan's assembly calls :func:`plan_warnings`
once, after every strategy is priced.
"""
from __future__ import annotations

import math

from models.cohort_costs import commitment_schedule, server_schedule
from models.messages import Message, Money, Months, Number, Percent
from models.plan_state import PlanState
from models.scenario_types import MAX_SERVERS
from models.strategy_result import StrategyResult


def plan_warnings(ctx: PlanState, results: dict[str, StrategyResult]) -> list[Message]:
    """What the reader should know about the figures: repeated usage, spot and failure waste,
    commitments past the horizon, early loan payoffs, an approximate optimum, caps.

    Parameters
    ----------
    ctx : PlanState
        Context of the plan (demand, wastes, optimizer state).
    results : dict of str to StrategyResult
        Strategies priced, by name.

    Returns
    -------
    list of Message
        The warnings, amounts in the reporting currency.
    """
    s, d = ctx.scenario, ctx.demand
    cur = s.finance.currency
    out: list[Message] = []
    if d.repeated_hours:
        out.append(Message("The usage profile covers {used} of the plan's {total} hours; its "
                           "last {loop} hours repeat for the rest.",
                           {"used": Number(d.profile_hours_used),
                            "total": Number(ctx.calendar.total_hours),
                            "loop": Number(min(8760, d.profile_hours_used))}))
    if d.interruptible.sum() > 0:
        sw, fw = ctx.spot_waste, ctx.failure_waste
        if not sw.feasible:
            out.append(Message("Spot is infeasible for the interruptible work: gangs of "
                               "{nodes} nodes are interrupted every {minutes} minutes on "
                               "average and would spend all of their billed time on "
                               "checkpoints, lost work and restarts; it runs on demand "
                               "instead.", {"nodes": s.spot.nodes_per_job,
                                            "minutes": Number(sw.mtbi_hours * 60, 1)}))
        elif sw.fraction > 0.1:
            out.append(Message("Spot wastes {waste} of billed time on checkpoints, lost work "
                               "and restarts (gang of {nodes} nodes, one interruption every "
                               "{hours} h).", {"waste": Percent(sw.fraction, 1),
                                               "nodes": s.spot.nodes_per_job,
                                               "hours": Number(sw.mtbi_hours, 2)}))
        if fw.fraction > 0:
            out.append(Message("Hardware failures cost interruptible work {waste} extra "
                               "GPU-hours on every source (overhead line).",
                               {"waste": Percent(fw.fraction, 2)}))
    liquidate = s.finance.horizon_end == "liquidate"
    for name, r in results.items():
        for offer_id, (gpus, monthly, upfront, months) in commitments_past_horizon(
                ctx, r).items():
            params = {"plan": name, "offer": offer_id, "gpus": gpus, "months": Months(months),
                      "monthly": Money(monthly, cur), "upfront": Money(upfront, cur)}
            if liquidate and monthly > 0.005:
                out.append(Message(
                    "{plan}: commitment {offer} ({gpus} GPUs) runs {months} past the horizon; "
                    "its {monthly} of monthly payments after the horizon are counted in their "
                    "months (liquidate rule: a commitment cannot be exited).", params))
            if not liquidate and monthly > 0.005:
                out.append(Message(
                    "{plan}: commitment {offer} ({gpus} GPUs) runs {months} past the horizon; "
                    "{monthly} of its monthly payments fall after the horizon and are not "
                    "counted (prorate rule).", params))
            if not liquidate and upfront > 0.005:
                out.append(Message(
                    "{plan}: commitment {offer} ({gpus} GPUs) runs {months} past the horizon; "
                    "{upfront} of its upfront payment covers those months and is not counted "
                    "(prorate rule).", params))
        payoff = loan_payoff(ctx, r)
        if payoff > 0.005:
            out.append(Message("{plan}: loan balances of {amount} are paid off early (at a "
                               "sale or at the end of the horizon).",
                               {"plan": name, "amount": Money(payoff, cur)}))
    if ctx.cache.optimizer.get("approximate"):
        out.append(Message("The grid of server counts and committed totals is too large to "
                           "cost point by point: the optimum was searched coarse to fine and "
                           "is not proven exact."))
    needed = ctx.tables.peak_gross_gpus / max(ctx.owned_per_server(), 1e-300)
    if needed > MAX_SERVERS:
        out.append(Message("Peak demand would need {needed} servers; plans own at most {limit} "
                           "(the largest fleet a scenario can name) and rent the rest.",
                           {"needed": Number(math.ceil(needed)), "limit": Number(MAX_SERVERS)}))
    if s.owned.lead_time_months and s.owned.lead_time_months >= ctx.horizon:
        out.append(Message("The lead time is as long as the horizon: owned servers never come "
                           "online."))
    return out


def commitments_past_horizon(ctx: PlanState, r: StrategyResult
                             ) -> dict[str, tuple[int, float, float, int]]:
    """Commitments of a strategy that run past the horizon, by offer.

    Parameters
    ----------
    ctx : PlanState
        Context of the plan (horizon, price book).
    r : StrategyResult
        Strategy whose commitments are read.

    Returns
    -------
    dict of str to tuple
        Offer id to (most GPUs of one cohort [GPUs], nominal monthly payments after the horizon
        [currency], the part of upfront payments that covers months after it [currency], how
        many months past it [months]).

    Notes
    -----
    For each cohort c with A_c = start_c + T_c - H > 0 months past the horizon H: per offer,
    GPUs = max_c gpus_c, monthly = sum_c gpus_c x monthly_after_horizon_c, upfront = sum_c gpus_c x
    upfront_for_after_horizon_c (:func:`models.cohort_costs.commitment_schedule`) [currency], months =
    max_c A_c [months].
    """
    out: dict[str, tuple[int, float, float, int]] = {}
    for c in r.plan.commitments:
        months = c.start + c.term - ctx.horizon
        if c.gpus and months > 0:
            sch = commitment_schedule(ctx.book, c)
            gpus, monthly, upfront, longest = out.get(c.offer, (0, 0.0, 0.0, 0))
            out[c.offer] = (max(gpus, c.gpus),
                            monthly + float(c.gpus * sch["monthly_after_horizon"][0]),
                            upfront + float(c.gpus * sch["upfront_for_after_horizon"][0]),
                            max(longest, months))
    return out


def loan_payoff(ctx: PlanState, r: StrategyResult) -> float:
    """Loan balances settled early, at a sale or at the end of the horizon.

    Parameters
    ----------
    ctx : PlanState
        Context of the plan (its price book).
    r : StrategyResult
        Strategy whose servers are read.

    Returns
    -------
    float
        Nominal total [currency].

    Notes
    -----
    P = sum_c count_c x sum_m payoff_c(m), payoff of :func:`models.cohort_costs.server_schedule`, nominal
    [currency].
    """
    return float(sum(c.count * server_schedule(ctx.book, c)["payoff"][:, 0].sum()
                     for c in r.plan.servers if c.count))
