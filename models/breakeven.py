"""The plan's breakeven section and the chart data behind it (design 5.2, 9.3; issue 11 items 5,
8, 9): payback months against on demand, the load-duration chart, and the section that gathers
the breakevens.

Each kind of breakeven lives in its own module: the marginal ones from screening curves
(models.screening), the all-in ones on a flat profile (models.all_in_breakeven) and the price
ties (models.price_breakeven). This module assembles them, with the payback months, into the
document's section.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from models.all_in_breakeven import all_in_breakevens
from models.breakeven_words import Direction
from models.finance import never_dearer, payback_month
from models.messages import Message
from models.price_breakeven import price_breakevens
from models.screening import screening_chart, screening_lines, spot_off, utilization_breakevens
from models.plan_state import PlanState
from models.strategy_result import StrategyResult


@dataclass
class BreakevenSection:
    """The plan document's "breakeven" section."""

    utilization: dict[str, Optional[float]]
    utilization_all_in: dict[str, Optional[float]]
    commitment_vs_on_demand: dict[str, Optional[float]]
    payback_month: dict[str, Optional[int]]
    payback_month_discounted: dict[str, Optional[int]]
    on_demand_price: Optional[float]
    server_price: Optional[float]
    directions: dict[str, Direction] = field(default_factory=dict)
    reasons: dict[str, Message] = field(default_factory=dict)
    # key "spot" in reasons: spot is off and every breakeven against it left out (spot_off)


@dataclass
class Charts:
    screening: dict
    load_duration: dict


def load_duration(ctx: PlanState, r: StrategyResult, points: int = 200) -> dict:
    """Load-duration chart of the gross demand, with the recommended plan's capacity levels.

    Parameters
    ----------
    ctx : PlanState
        Context of the plan (sorted gross demand).
    r : StrategyResult
        The recommended strategy.
    points : int, default 200
        Points of the curve.

    Returns
    -------
    dict
        ``fraction_of_hours`` [fraction], ``gpus`` (demand exceeded for that share of hours)
        [GPUs of the measured type] and ``levels`` at their most [GPUs of the measured
        type]: ``committed`` when the plan commits GPUs; the top of the owned servers, named
        ``committed + owned`` when it sits on committed capacity, else ``owned``, when it
        has servers online. A plan with neither has no level (issue 23: a plan without
        servers showed "owned servers" at its committed level).

    Notes
    -----
    gpus_i = the i-th largest hourly gross demand of the plan, fraction_i = (i + 1) / N at
    ``points`` evenly spaced i, N the plan's hours; committed level = max_m c_m x t_c, owned top =
    committed + max_m n_m x w [GPUs].
    """
    demand = np.sort(ctx.tables.gross.sorted.ravel())[::-1]
    demand = demand[: ctx.calendar.total_hours]
    idx = np.unique(np.linspace(0, len(demand) - 1, points).round().astype(int))
    theta_c = ctx.scenario.on_demand.relative_throughput
    committed = float(r.committed_gpus_by_month.max(initial=0.0)) * theta_c
    owned = float(r.servers_online.max(initial=0.0)) * ctx.owned_per_server()
    levels: dict[str, float] = {}
    if committed > 0:
        levels["committed"] = committed
    if owned > 0:
        levels["committed + owned" if committed > 0 else "owned"] = committed + owned
    return {"fraction_of_hours": ((idx + 1) / len(demand)).tolist(),
            "gpus": demand[idx].tolist(), "levels": levels}


def payback(results: dict[str, StrategyResult], horizon: int) -> tuple[dict, dict, dict]:
    """Payback months of optimal, staged and proposed against on demand.

    Parameters
    ----------
    results : dict of str to StrategyResult
        Strategies priced, by name; ``on_demand`` is the baseline.
    horizon : int
        Months of the horizon [months].

    Returns
    -------
    nominal : dict
        First month, 1-based, from which the cumulative saving against on demand is positive
        and stays at or above zero [months]; None if never within the horizon, when the plan
        is never dearer than on demand in any month (nothing to pay back), or n/a for a plan
        that invests nothing up front.
    discounted : dict
        The same with discounted cumulative costs [months].
    reasons : dict
        ``payback_month.<name>`` and ``payback_month_discounted.<name>`` to the
        :class:`Message` saying why a value is missing (none for "never").

    Notes
    -----
    For optimal, staged and proposed: month = :func:`models.finance.payback_month` (C_plan[:H],
    C_on_demand[:H]), C the cumulative cost, nominal then discounted [currency], H the horizon
    [months]; n/a when capital outlay <= 0.
    """
    base = results["on_demand"]
    nominal, discounted, reasons = {}, {}, {}
    for name in ("optimal", "staged", "proposed"):
        r = results.get(name)
        if r is None and name == "staged":
            continue
        if r is None:
            nominal[name] = discounted[name] = None
            reasons[f"payback_month.{name}"] = Message("no proposed plan was given")
        elif r.capital_outlay() <= 0:
            nominal[name] = discounted[name] = None
            reasons[f"payback_month.{name}"] = Message(
                "n/a: {plan} invests nothing up front", {"plan": name})
        else:
            for out, key, plan_cum, base_cum in (
                    (nominal, "payback_month", r.cumulative, base.cumulative),
                    (discounted, "payback_month_discounted", r.discounted_cumulative,
                     base.discounted_cumulative)):
                out[name] = payback_month(plan_cum[:horizon], base_cum[:horizon])
                if never_dearer(plan_cum[:horizon], base_cum[:horizon]):
                    reasons[f"{key}.{name}"] = Message(
                        "never costs more than on demand in any month: nothing to pay back")
    return nominal, discounted, reasons


def breakeven_section(ctx: PlanState, results: dict[str, StrategyResult],
                      recommendation: str) -> tuple[BreakevenSection, Charts]:
    """The breakeven section of the plan and the charts behind it.

    Parameters
    ----------
    ctx : PlanState
        Context whose strategies are compared.
    results : dict of str to StrategyResult
        Strategies priced, ``on_demand`` and ``cloud_only`` among them.
    recommendation : str
        Name of the recommended strategy.

    Returns
    -------
    section : BreakevenSection
        Utilization breakevens (marginal and all-in), payback and price ties.
    charts : Charts
        The screening and load-duration charts.
    """
    lines = screening_lines(ctx)
    owned_vs, commit_vs, directions, reasons = utilization_breakevens(ctx, lines)
    all_in, all_in_directions, all_in_reasons = all_in_breakevens(ctx, list(owned_vs))
    nominal, discounted, payback_reasons = payback(results, ctx.horizon)
    off = spot_off(ctx)
    if off is not None:
        reasons["spot"] = off
    prices, price_reasons = price_breakevens(ctx, results["cloud_only"].capacity,
                                             results["optimal"].capacity)
    section = BreakevenSection(
        utilization=owned_vs, utilization_all_in=all_in, commitment_vs_on_demand=commit_vs,
        payback_month=nominal, payback_month_discounted=discounted,
        on_demand_price=prices["on_demand_price"], server_price=prices["server_price"],
        directions={**directions, **all_in_directions},
        reasons={**reasons, **all_in_reasons, **payback_reasons, **price_reasons})
    return section, Charts(screening_chart(lines),
                           load_duration(ctx, results[recommendation]))
