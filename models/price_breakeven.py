"""Price breakevens (design 5.2; issue 11 item 9): the on-demand price and the server price at
which the best plan that owns servers ties the best cloud-only plan, searched inside the
field's allowed range only.

Separate from the utilization breakevens because it moves a price of the scenario, not the
hours servers are used, and reoptimizes at each trial price.
"""
from __future__ import annotations

from typing import Callable, Optional

import numpy as np
from scipy.optimize import brentq

from models.capacity import Capacity
from models.fields import field_meta
from models.messages import Message
from models.optimize import best_capacity
from models.scenario import Scenario
from models.plan_state import PlanState


def field_range(section: str, key: str) -> tuple[float, float]:
    """The allowed range of a scenario field.

    Parameters
    ----------
    section : str
        Section of the scenario, e.g. ``"owned"``.
    key : str
        Field of the section, e.g. ``"server_price"``.

    Returns
    -------
    lo : float
        Lower bound, 0 when the field has none [the field's unit].
    hi : float
        Upper bound, inf when the field has none [the field's unit].
    """
    info = Scenario.model_fields[section].annotation.model_fields[key]
    meta = field_meta(info)
    lo = meta.get("ge", meta.get("gt", 0.0))
    hi = meta.get("le", meta.get("lt", np.inf))
    return float(lo), float(hi)


def tie_value(f: Callable[[float], float], x0: float, lo: float, hi: float
              ) -> tuple[Optional[float], Optional[Message]]:
    """A root of f inside [lo, hi] near x0.

    Parameters
    ----------
    f : callable
        PV cost gap of two plans [currency] as a function of a field's value.
    x0 : float
        The field's base value [the field's unit].
    lo : float
        Lower bound of the field [the field's unit].
    hi : float
        Upper bound of the field [the field's unit].

    Returns
    -------
    value : float or None
        Exact when f is linear, else brentq on a bracket from a grid [the field's unit].
    reason : Message or None
        Why the two plans do not tie inside the allowed range.

    Notes
    -----
    The secant through x_0 and x_1 (x_1 = 2 x_0 inside the range): x* = x_0 - f(x_0) (x_1 - x_0) /
    (f(x_1) - f(x_0)), kept when |f(x*)| <= 1e-6 x max(1, |f(x_0)|, |f(x_1)|); else brentq on the
    first sign change of f on a grid of lo, hi and x_0 x 10^k, k from -3 to 2.
    """
    x0 = min(max(x0, lo), hi)
    x1 = x0 * 2 if 0 < x0 * 2 <= hi else (x0 + hi) / 2 if x0 < hi else (lo + x0) / 2
    f0, f1 = f(x0), f(x1)
    if x1 == x0 or abs(f1 - f0) < 1e-12 * max(1.0, abs(f0)):
        return None, Message("the two plans cost the same amount more or less at any value")
    root = x0 - f0 * (x1 - x0) / (f1 - f0)
    if lo <= root <= hi and abs(f(root)) <= 1e-6 * max(1.0, abs(f0), abs(f1)):
        return float(root), None
    grid = np.unique(np.clip(np.concatenate(
        [[lo, x0, hi], x0 * np.geomspace(1e-3, 100, 40) if x0 > 0 else []]), lo, hi))
    values = [f(x) for x in grid]
    for a, b, fa, fb in zip(grid, grid[1:], values, values[1:]):
        if fa == 0:
            return float(a), None
        if fa * fb < 0:
            return float(brentq(f, a, b, xtol=1e-10 * max(1.0, x0))), None
    if values[-1] == 0:
        return float(grid[-1]), None
    return None, Message("no tie within the allowed range ({lo} to {hi}): the plan that owns "
                         "servers stays {which} throughout",
                         {"lo": f"{lo:,.6g}", "hi": f"{hi:,.6g}",
                          "which": "cheaper" if values[-1] < 0 else "dearer"})


def price_breakevens(ctx: PlanState, cloud: Capacity,
                     optimal: Optional[Capacity] = None) -> tuple[dict, dict]:
    """On-demand price and server price at which the best plan owning servers ties cloud_only.

    Parameters
    ----------
    ctx : PlanState
        Context of the plan, re-priced at each trial value.
    cloud : Capacity
        The best cloud-only plan.
    optimal : Capacity, optional
        The best plan: when it owns a server it is the best plan owning servers (the least
        over all plans, so over those with a server too), and the search of that is spared.

    Returns
    -------
    values : dict
        ``on_demand_price`` [currency per GPU-hour, as entered] and ``server_price`` [owned
        currency per server], None where there is no tie in the field's allowed range.
    reasons : dict
        The :class:`Message` saying why a value is missing.

    Notes
    -----
    x* solves PV(owning; x) - PV(cloud_only; x) = 0 with x the on-demand price or the server
    price, found by :func:`tie_value` within the field's bounds (:func:`field_range`); owning =
    the optimal capacity when it holds servers, else :func:`models.optimize.best_capacity` with
    at least one server.
    """
    s = ctx.scenario
    try:
        owning = optimal if optimal is not None and sum(optimal.counts(s).values()) >= 1 \
            else best_capacity(ctx, min_servers=1)[0]
    except ValueError:
        why = Message("no plan with owned servers")
        return ({"on_demand_price": None, "server_price": None},
                {"on_demand_price": why, "server_price": why})

    def gap(section: str, key: str) -> Callable[[float], float]:
        def f(x: float) -> float:
            priced = ctx.repriced(s.with_changes(**{section: {key: x}}))
            return priced.pv(owning) - priced.pv(cloud)
        return f

    values, reasons = {}, {}
    for name, section, key, x0 in (
            ("on_demand_price", "on_demand", "price_per_gpu_hour",
             s.on_demand.price_per_gpu_hour),
            ("server_price", "owned", "server_price", s.owned.server_price)):
        root, why = tie_value(gap(section, key), x0, *field_range(section, key))
        values[name] = root
        if why is not None:
            reasons[name] = why
    return values, reasons
