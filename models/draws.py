"""Vectorised costing of fixed capacities over many draws of the assumptions (issue 7).

The engine (models/costs.py, dispatch.py, strategies.py) costs one scenario; here every price
and discount factor carries a draws axis, arrays of shape (months, draws), and one pass of numpy
costs every draw. Capacities stay fixed (the decision is made today); the dispatch of each draw
comes from models/draw_dispatch.py. Every cost is linear in the monthly volumes unless a cloud
support minimum applies, so a strategy's PV is a few weighted sums per draw. Tests prove
equality with the engine draw by draw.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from models.assumptions import offer_discount
from models.draw_dispatch import DrawDemand, dispatch_levels, level_table, sum_min_by_stratum
from models.finance import (depreciation_schedule, loan_schedule, resale_fraction,
                            trend_factors)
from models.strategies import Capacity, PlanContext


SERVER_LINES = ("capex", "loan_payment", "interest", "maintenance", "resale", "depreciation",
                "resale_gain")


@dataclass
class DrawPrices:
    """Per-draw unit costs and discount factors, arrays of shape (months, n); PVs of one
    server and one committed GPU, shape (n,)."""

    on_demand: np.ndarray
    spot: np.ndarray
    energy_busy: np.ndarray        # per own GPU-hour busy, above idle
    end: np.ndarray
    start: np.ndarray
    server_pv: np.ndarray = None   # one server's lines but busy energy, after tax
    offer_pv: dict[str, np.ndarray] = None      # one committed GPU, support and tax included
    offer_upfront: dict[str, np.ndarray] = None
    offer_monthly: dict[str, np.ndarray] = None
    cloud_data_pv: np.ndarray = None            # storage and egress, pre-tax
    server_lines: dict[str, np.ndarray] | None = None  # monthly path only (SERVER_LINES)


def draw_prices(ctx: PlanContext, v: dict[str, np.ndarray]) -> DrawPrices:
    """UnitCosts and ServerSchedule of models/costs.py, with a draws axis.

    Unit prices and discount factors are (months, n) arrays; a server's own lines are summed to
    their PV per draw as they are made (they are one row or one span each), and kept as monthly
    arrays only when a cloud support minimum needs the monthly path.
    """
    s, cal, u = ctx.scenario, ctx.calendar, ctx.units
    months, n = len(cal.hours), len(v["on_demand_price"])
    o, t = s.owned, s.finance.tax_rate
    monthly = u.support_minimum > 0
    steps = np.arange(months, dtype=float)[:, None] / 12.0
    trend = np.exp(steps * np.log1p(v["on_demand_trend"])[None, :])  # (1+trend)^((m-1)/12)
    odp = v["on_demand_price"]
    spot_base = (np.full(n, s.spot.price_per_gpu_hour) if s.spot.price_per_gpu_hour is not None
                 else odp * (1.0 - v["spot_discount"]))
    rm = (1.0 + v["discount_rate"]) ** (1.0 / 12.0) - 1.0
    end_f = np.exp(-np.outer(np.arange(1, months + 1, dtype=float), np.log1p(rm)))
    start_f = np.concatenate([np.ones((1, n)), end_f[:-1]])
    inflation = trend_factors(months, s.finance.power_price_inflation_annual)
    online = u.server.online
    pue_price = v["pue"] * v["electricity_price"]
    idle_month = o.power_kw_idle * cal.hours * inflation * online  # per unit of pue x price
    p = DrawPrices(
        on_demand=(odp / u.vat * u.rounding)[None, :] * trend,
        spot=(spot_base / u.vat * u.rounding)[None, :] * trend,
        energy_busy=np.outer(inflation, (o.power_kw_max - o.power_kw_idle) / o.gpus_per_server
                             * pue_price),
        end=end_f, start=start_f)
    online_end = online[:, None] * end_f
    # one server: PV of its own lines, pre-tax parts and deductible parts apart
    capex_pv, resale_pv, loan_pv, interest_pv, dep_pv, gain_pv, maint_pv = (
        np.zeros(n) for _ in range(7))
    lines = {k: np.zeros((months, n)) for k in SERVER_LINES} if monthly else None
    for start in range(0, months, o.useful_life_months):
        price = v["server_price"] * (1.0 + v["hardware_trend"]) ** (start / 12.0)
        basis = price + o.install_cost_per_server
        end = min(start + o.useful_life_months, months)
        span = end - start
        upfront, principal = basis, 0.0 * basis
        if o.financing.kind == "loan":
            upfront = basis * o.financing.down_payment_fraction
            principal = basis * (1 - o.financing.down_payment_fraction)
            pay, intr, _ = loan_schedule(1.0, o.financing.apr, o.financing.term_months, span)
            loan_pv += principal * (pay @ end_f[start:end])
            interest_pv += principal * (intr @ end_f[start:end])
        capex_pv += upfront * start_f[start]
        maint = o.maintenance_fraction_annual * price / 12.0
        maint_pv += maint * online_end[start:end].sum(axis=0)
        # resale fraction is affine in the resale multiplier m: a + b m
        a = resale_fraction(span, tuple(0.0 for _ in o.resale_fraction_by_year))
        b = resale_fraction(span, o.resale_fraction_by_year) - a
        value = price * (a + b * v["resale_value"])
        resale_pv += value * end_f[end - 1]
        d = depreciation_schedule(1.0, s.finance.tax_depreciation, o.useful_life_months, span)
        gain = value - (basis - d.sum() * basis)
        if t > 0:
            dep_pv += basis * (d @ end_f[start:end])
            gain_pv += gain * end_f[end - 1]  # taxed when positive, a deduction when negative
        if monthly:
            lines["capex"][start] += upfront
            if o.financing.kind == "loan":
                lines["loan_payment"][start:end] += np.outer(pay, principal)
                lines["interest"][start:end] += np.outer(intr, principal)
            lines["maintenance"][start:end] = maint * online[start:end, None]
            lines["resale"][end - 1] += value
            lines["depreciation"][start:end] += np.outer(d, basis)
            lines["resale_gain"][end - 1] += gain
    sv = u.server
    idle_pv = pue_price * (idle_month @ end_f)
    p.server_pv = (capex_pv + loan_pv - resale_pv
                   + (1.0 - t) * (maint_pv + idle_pv + (sv.space + sv.staff) @ end_f)
                   - t * (interest_pv + dep_pv) + t * gain_pv)
    if monthly:
        lines["energy_idle"] = np.outer(idle_month, pue_price)
        p.server_lines = lines
    p.offer_upfront, p.offer_monthly, p.offer_pv = {}, {}, {}
    frac = s.cloud_terms.support_fraction
    for offer in s.commitments:
        base = (np.full(n, offer.price_per_gpu_hour) if offer.price_per_gpu_hour is not None
                else odp * (1.0 - offer_discount(offer.discount, v["commitment_discount"])))
        base = base / u.vat
        share = {"none": 0.0, "partial": 0.5, "all": 1.0}[offer.payment]
        up, mo = np.zeros((months, n)), np.zeros((months, n))
        long_hours = np.concatenate([cal.hours, _extra_hours(ctx, offer.term_months)])
        for start in range(0, months, offer.term_months):
            rate = base * (1.0 + v["on_demand_trend"]) ** (start / 12.0)
            term_hours = long_hours[start:start + offer.term_months]
            inside = min(offer.term_months, months - start)
            up[start] += share * rate * term_hours.sum() * inside / offer.term_months
            mo[start:start + inside] = np.outer(term_hours[:inside], (1.0 - share) * rate)
        # support and the tax shield of an upfront payment are end-of-month lines (costs.py)
        up_end, mo_end = _dot(up, end_f), _dot(mo, end_f)
        p.offer_pv[offer.id] = (_dot(up, start_f) + mo_end
                                + (frac - t * (1.0 + frac)) * (up_end + mo_end))
        p.offer_upfront[offer.id], p.offer_monthly[offer.id] = up, mo
    p.cloud_data_pv = (u.storage + u.egress) @ end_f
    return p


def _extra_hours(ctx: PlanContext, months: int) -> np.ndarray:
    from models.profile import plan_calendar
    cal = ctx.calendar
    return plan_calendar(cal.months[0], len(cal.hours) + months).hours[len(cal.hours):]


def draw_pvs(ctx: PlanContext, p: DrawPrices, dd: DrawDemand,
             capacities: dict[str, Capacity], availability: np.ndarray
             ) -> dict[str, np.ndarray]:
    """PV cost of each fixed capacity in each draw, sharing one dispatch pass [currency]."""
    dd.cache = level_table(ctx, dd, list(capacities.values()), availability)
    try:
        return {name: draw_pv(ctx, p, dd, cap, availability)
                for name, cap in capacities.items()}
    finally:
        dd.cache = None


def draw_pv(ctx: PlanContext, p: DrawPrices, dd: DrawDemand, capacity: Capacity,
            availability: np.ndarray) -> np.ndarray:
    """PV cost of a fixed capacity in each draw [currency], shape (n,).

    Every cost is linear in the monthly volumes unless a cloud support minimum applies; then
    the monthly lines are built in full (:func:`draw_pv_monthly`).
    """
    if ctx.units.support_minimum > 0:
        return draw_pv_monthly(ctx, p, dd, capacity, availability)
    s = ctx.scenario
    theta_o, theta_c = s.owned.relative_throughput, s.on_demand.relative_throughput
    keep, support = 1.0 - s.finance.tax_rate, 1.0 + s.cloud_terms.support_fraction
    committed_gpus = sum(capacity.committed.values())
    a_c, a_all, b_all, d_total, s_total = dispatch_levels(ctx, dd, capacity, availability)
    left_steady = s_total - b_all
    left_int = np.maximum((d_total - a_all) - left_steady, 0.0)
    fw, sw = dd.failure_waste, dd.spot_waste
    share = np.where(sw < 1, s.spot.availability if capacity.use_spot else 0.0, 0.0)
    spot_per_left = np.where(sw < 1, share * (1.0 - fw) / np.where(sw < 1, 1.0 - sw, 1.0), 0.0)
    cloud = keep * support / theta_c
    od_unit, spot_unit = cloud * p.on_demand * p.end, cloud * p.spot * p.end
    pv = (_dot(od_unit, left_steady) + (1.0 - share) * _dot(od_unit, left_int)
          + spot_per_left * _dot(spot_unit, left_int))
    if capacity.servers:
        pv += capacity.servers * p.server_pv + keep / theta_o * _dot(p.energy_busy * p.end,
                                                                      a_all - a_c)
    for offer_id, gpus in capacity.committed.items():
        if gpus:
            pv += gpus * p.offer_pv[offer_id]
    spot_hours = spot_per_left * left_int.sum(axis=0)
    od_hours = left_steady.sum(axis=0) + (1.0 - share) * left_int.sum(axis=0)
    uses = (committed_gpus > 0) | (spot_hours > 0) | (od_hours > 1e-9)
    setup = ctx.units.setup_fee * (1.0 - s.finance.tax_rate * p.end[0])  # shield at month end
    return pv + np.where(uses, keep * support * p.cloud_data_pv + setup, 0.0)


def _dot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Sum over months of a x b, per draw."""
    return np.einsum("md,md->d", a, b)


def draw_pv_monthly(ctx: PlanContext, p: DrawPrices, dd: DrawDemand, capacity: Capacity,
                    availability: np.ndarray) -> np.ndarray:
    """PV cost per draw from full monthly cost lines (models/costs.strategy_lines).

    Notes
    -----
    Dispatch as models/dispatch.py, then the cost lines with per-draw prices, cloud use and
    the support minimum decided draw by draw, and PV with per-draw discount factors.
    """
    s, cal = ctx.scenario, ctx.calendar
    o, terms = s.owned, s.cloud_terms
    theta_o, theta_c = o.relative_throughput, s.on_demand.relative_throughput
    n, months = len(availability), len(cal.hours)
    g = dd.growth
    committed_gpus = sum(capacity.committed.values())
    c_cap = np.full((months, n), committed_gpus * theta_c)
    k_cap = np.outer(ctx.units.server.online, capacity.servers * (
        o.gpus_per_server * availability * theta_o))
    cap = c_cap + k_cap
    gross_c = sum_min_by_stratum(dd.gross, dd.stratum, c_cap, g) if committed_gpus else 0.0 * cap
    gross_all = sum_min_by_stratum(dd.gross, dd.stratum, cap, g) if capacity.servers else gross_c
    steady_c = g * dd.steady.sum_min(c_cap / g) if committed_gpus else 0.0 * cap
    steady_all = g * dd.steady.sum_min(cap / g) if capacity.servers else steady_c
    d_total = g * np.stack([t.totals for t in dd.gross], axis=1)[:, dd.stratum]
    s_total = g * dd.steady.totals[:, None]
    fw, sw = dd.failure_waste, dd.spot_waste
    owned = gross_all - gross_c
    left_steady = s_total - steady_all
    left_int = np.maximum((d_total - gross_all) - left_steady, 0.0)
    share = np.where(sw < 1, s.spot.availability if capacity.use_spot else 0.0, 0.0)
    spot_useful = share * left_int * (1.0 - fw)
    spot = np.where(sw < 1, spot_useful / np.where(sw < 1, 1.0 - sw, 1.0), 0.0)
    on_demand = left_steady + (1.0 - share) * left_int

    u, sv, N = ctx.units, ctx.units.server, capacity.servers
    lines = p.server_lines
    end, start = p.end, p.start
    start_lines = N * lines["capex"]
    end_lines = (N * (lines["loan_payment"] + lines["maintenance"] + lines["energy_idle"])
                 + N * (sv.space + sv.staff)[:, None] + p.energy_busy * (owned / theta_o))
    commit_up, commit = 0.0 * cap, 0.0 * cap
    for offer_id, gpus in capacity.committed.items():
        if gpus:
            commit_up = commit_up + gpus * p.offer_upfront[offer_id]
            commit = commit + gpus * p.offer_monthly[offer_id]
    spot_cost = spot / theta_c * p.spot
    od_cost = on_demand / theta_c * p.on_demand
    uses = (committed_gpus > 0) | (spot.sum(axis=0) > 0) | (on_demand.sum(axis=0) > 1e-9)
    storage = np.outer(u.storage, uses)
    egress = np.outer(u.egress, uses)
    setup = np.zeros((months, n))
    setup[0] = np.where(uses, u.setup_fee, 0.0)
    spend = commit_up + commit + spot_cost + od_cost + storage + egress
    support = np.where(uses & (spend > 0),
                       np.maximum(terms.support_fraction * spend, u.support_minimum), 0.0)
    cloud_end = commit + spot_cost + od_cost + storage + egress + support
    credits = N * lines["resale"]
    pv_start = start_lines + commit_up + setup
    pv_end = end_lines + cloud_end
    t = s.finance.tax_rate
    if t > 0:
        deductible = (end_lines - N * lines["loan_payment"] + commit_up + cloud_end + setup)
        gain = lines["resale_gain"]
        owned_tax = N * (lines["interest"] + lines["depreciation"] + np.maximum(-gain, 0))
        credits = credits + t * (deductible + owned_tax)
        pv_end = pv_end + t * N * np.maximum(gain, 0)
    return ((pv_start * start).sum(axis=0) + ((pv_end - credits) * end).sum(axis=0))
