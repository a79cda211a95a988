"""The independent HiGHS model of the optimizer cross-check (tests/engine/test_optimize_highs.py
explains it; bench/optimize.py times it): generated scenarios and profiles, and a MILP written
from the design, not from the project's dispatch or cost code."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.optimize import Bounds, LinearConstraint, milp

from models.profile import UsageProfile
from models.scenario import Scenario
from models.strategies import Capacity

START = "2025-01"
REL = 1e-6


# --------------------------------------------------------------------------------------------
# scenario and profile generation (fixed seeds)
# --------------------------------------------------------------------------------------------

def random_profile(rng: np.random.Generator, hours: int, peak: float, mix: str
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Hourly steady and interruptible GPUs: daily/weekly cycle plus training bursts."""
    t = np.arange(hours)
    daily = 0.5 + 0.5 * np.sin(2 * np.pi * (t % 24 - 8) / 24)
    weekly = np.where((t // 24) % 7 >= 5, 0.6, 1.0)
    steady = (0.3 + 0.7 * daily * weekly) * rng.uniform(0.8, 1.0, hours)
    bursts = np.zeros(hours)
    start = 0
    while start < hours:
        start += int(rng.integers(24, 200))
        length = int(rng.integers(6, 120))
        bursts[start:start + length] += rng.uniform(0.3, 1.0)
    interruptible = bursts * rng.uniform(0.7, 1.0, hours)
    if mix == "steady":
        interruptible[:] = 0.0
    elif mix == "interruptible":
        steady[:] = 0.0
        interruptible = interruptible + 0.2 * daily
    total = steady + interruptible
    scale = peak / total.max()
    # whole GPUs busy: realistic, makes ties between capacity levels plausible, and lets the
    # MILP merge identical hours of a month (they are exchangeable: capacity and prices are
    # constant within a month)
    return np.round(steady * scale), np.round(interruptible * scale)


def make_profile(steady: np.ndarray, interruptible: np.ndarray) -> UsageProfile:
    starts = np.datetime64("2024-01-01T00", "h") + np.arange(len(steady))
    return UsageProfile(period="hour", starts=starts, steady=steady,
                        interruptible=interruptible, has_workload=True)


def random_linear_case(seed: int) -> tuple[Scenario, UsageProfile]:
    rng = np.random.default_rng(seed)
    horizon = int(rng.integers(3, 7))
    hours = int(rng.integers(1400, 2930))          # 2-4 months of hourly usage
    peak = float(rng.uniform(8, 64))
    mix = ("mixed", "mixed", "steady", "interruptible")[seed % 4]
    steady, interruptible = random_profile(rng, hours, peak, mix)
    n_offers = 1 + seed % 2
    offers = []
    for k in range(n_offers):
        offers.append({"id": f"c{k}", "term_months": int(rng.choice([1, 2, 3, 4, 12])),
                       "discount": float(rng.uniform(0.2, 0.65)),
                       "payment": str(rng.choice(["none", "partial", "all"])),
                       "block_gpus": int((1, 4, 8)[(seed + k) % 3])})
    years = sorted(rng.uniform(0.1, 0.9, 3), reverse=True)
    gpus = int(rng.choice([4, 8]))
    data = {
        "finance": {"start_month": START, "horizon_months": horizon,
                    "discount_rate_annual": float(rng.uniform(0.0, 0.2)),
                    "power_price_inflation_annual": float(rng.uniform(-0.05, 0.2)),
                    "staff_cost_inflation_annual": float(rng.uniform(0.0, 0.1))},
        "owned": {"gpus_per_server": gpus,
                  "server_price": float(rng.uniform(2e4, 8e4) * gpus),
                  "install_cost_per_server": float(rng.uniform(0, 3e4)),
                  "lead_time_months": int(seed % 3 == 1),
                  "useful_life_months": 60, "resale_fraction_by_year": years,
                  "power_kw_max": float(rng.uniform(3, 11)),
                  "power_kw_idle": float(rng.uniform(0.5, 3)),
                  "pue": float(rng.uniform(1.1, 1.6)),
                  "electricity_price_per_kwh": float(rng.uniform(0.05, 0.25)),
                  "space_price_per_kw_month": float(rng.uniform(80, 250)),
                  "maintenance_fraction_annual": float(rng.uniform(0.03, 0.12)),
                  "servers_per_fte": float(rng.uniform(10, 60)),
                  "fte_cost_annual": float(rng.uniform(1.2e5, 2.5e5)),
                  "availability": float(rng.uniform(0.9, 1.0)),
                  "failures_per_server_year": 0.0},
        "on_demand": {"price_per_gpu_hour": float(rng.uniform(2, 8)),
                      "price_trend_annual": float(rng.uniform(-0.3, 0.1)),
                      "billing_increment_seconds": float(rng.choice([1, 60, 3600])),
                      "mean_session_hours": float(rng.choice([1, 4, 24]))},
        "commitments": offers,
        "spot": {"discount": float(rng.uniform(0.4, 0.8)),
                 "availability": float(rng.uniform(0.3, 1.0)),
                 "interruptions_per_instance_hour": float(rng.uniform(0.0005, 0.05)),
                 "notice_seconds": float(rng.choice([0, 30, 120])),
                 "checkpoint_seconds": float(rng.uniform(20, 300)),
                 "restart_seconds": float(rng.uniform(60, 900)),
                 "nodes_per_job": int(rng.choice([1, 2, 8, 64, 512]))},
        "cloud_data": {"storage_tb": 0, "egress_tb_per_month": 0},
        "cloud_terms": {"setup_fee": 0, "support_fraction": 0, "support_minimum_per_month": 0},
        # growth makes every hour distinct and the MILP slow; the layout is not under test
        "profile": {"growth_annual": 0.0},
    }
    return Scenario.model_validate(data), make_profile(steady, interruptible)


# --------------------------------------------------------------------------------------------
# the independent model: PV coefficients from the scenario fields (design 3, 4, 9.2)
# --------------------------------------------------------------------------------------------

def month_hours(start: str, months: int) -> np.ndarray:
    """Calendar hours (days x 24) of ``months`` months from ``start``."""
    edges = np.datetime64(start, "M") + np.arange(months + 1)
    return np.diff(edges.astype("datetime64[D]")).astype(float) * 24.0


def daly_waste(rate_per_node_hour: float, nodes: int, notice: float, delta: float,
               restart: float) -> float:
    """Spot reclaims only (failures are 0 here), issue 11 item 16: with notice >= delta each
    costs a final checkpoint and the restart, w = (delta + R)/M, no periodic checkpoints;
    otherwise w = delta/tau + (tau/2 + R)/M with Daly's tau (design 4.4)."""
    if rate_per_node_hour <= 0:
        return 0.0
    M = 3600.0 / (nodes * rate_per_node_hour)
    if notice >= delta:
        return (delta + restart) / M
    if delta < 2 * M:
        tau = math.sqrt(2 * delta * M) * (1 + math.sqrt(delta / (2 * M)) / 3
                                          + delta / (2 * M) / 9) - delta
    else:
        tau = M
    return delta / tau + (tau / 2 + restart) / M


def billed_per_used(increment: float, minimum: float, session_hours: float) -> float:
    """A session of S seconds is billed max(S, minimum), plus half an increment when it
    outlasts the minimum (issue 11 item 17)."""
    S = session_hours * 3600
    return (max(S, minimum) + (increment / 2 if S > minimum else 0.0)) / S


@dataclass
class Independent:
    hours: np.ndarray        # calendar hours per month
    steady: np.ndarray       # hourly demand over the plan [GPUs]
    interruptible: np.ndarray
    month: np.ndarray        # month index of each plan hour
    end: np.ndarray          # end-of-month discount factors
    start: np.ndarray        # start-of-month discount factors
    server_pv: float         # PV of one server's fixed costs minus its resale credit
    server_gpus: float       # available GPUs per server
    online: np.ndarray       # 1 in months a server is online
    owned_busy: np.ndarray   # PV per owned busy GPU-hour, by month
    od: np.ndarray           # PV per on-demand GPU-hour, by month
    spot: np.ndarray         # PV per useful spot GPU-hour, by month (inf: infeasible)
    spot_share: float
    offer_pv: dict[str, float]  # PV per committed GPU over the horizon
    blocks: dict[str, int]


def independent_model(s: Scenario, profile: UsageProfile) -> Independent:
    f, o, od, spt = s.finance, s.owned, s.on_demand, s.spot
    months = f.horizon_months
    hours = month_hours(f.start_month, months)
    total_hours = int(hours.sum())
    # demand: the profile laid from the first plan hour; when it runs out, its last 8,760 hours
    # (or all of it, if shorter) repeat; growth (1+g)^(t/8760) (design 4.1)
    n = len(profile.steady)
    t = np.arange(total_hours)
    loop = min(8760, n)
    idx = np.where(t < n, t, n - loop + (t - n) % loop)
    growth = (1 + s.profile.growth_annual) ** (np.arange(total_hours) / 8760.0)
    steady = profile.steady[idx] * growth
    interruptible = profile.interruptible[idx] * growth
    month = np.repeat(np.arange(months), hours.astype(int))

    r_m = (1 + f.discount_rate_annual) ** (1 / 12) - 1
    m1 = np.arange(1, months + 1)
    end = (1 + r_m) ** -m1.astype(float)
    start = (1 + r_m) ** -(m1 - 1).astype(float)
    trend = (1 + od.price_trend_annual) ** ((m1 - 1) / 12)
    power = o.electricity_price_per_kwh * (1 + f.power_price_inflation_annual) ** ((m1 - 1) / 12)
    staff = o.fte_cost_annual * (1 + f.staff_cost_inflation_annual) ** ((m1 - 1) / 12)
    rounding = billed_per_used(od.billing_increment_seconds, od.billing_minimum_seconds,
                               od.mean_session_hours)
    # spot sessions end at an interruption when that comes sooner than the mean session
    spot_session = min(od.mean_session_hours, 1 / spt.interruptions_per_instance_hour)
    spot_rounding = billed_per_used(od.billing_increment_seconds, od.billing_minimum_seconds,
                                    spot_session)

    # owned: capex at the start of month 1; fixed costs while online; resale at the end
    online = (m1 > o.lead_time_months).astype(float)
    idle_energy = o.power_kw_idle * o.pue * hours * power
    space = o.power_kw_max * o.space_price_per_kw_month
    maintenance = o.maintenance_fraction_annual * o.server_price / 12
    staff_cost = staff / 12 / o.servers_per_fte
    per_month = online * (idle_energy + space + maintenance + staff_cost)
    ages = np.arange(0, 12 * (len(o.resale_fraction_by_year) + 1), 12)
    fractions = [1.0, *o.resale_fraction_by_year]
    resale = o.server_price * float(np.interp(months, ages, fractions))
    server_pv = ((o.server_price + o.install_cost_per_server) * start[0]
                 + float(per_month @ end) - resale * end[-1])
    busy_kw_per_gpu = (o.power_kw_max - o.power_kw_idle) / o.gpus_per_server
    owned_busy = busy_kw_per_gpu * o.pue * power * end

    # cloud: on demand with trend and billing rounding; spot with its waste factor
    od_price = od.price_per_gpu_hour * trend
    od_pv = od_price * rounding * end
    w = daly_waste(spt.interruptions_per_instance_hour, spt.nodes_per_job,
                   spt.notice_seconds, spt.checkpoint_seconds, spt.restart_seconds)
    spot_price = od.price_per_gpu_hour * (1 - spt.discount) * trend
    spot_pv = (spot_price * spot_rounding / (1 - w) * end if w < 1
               else np.full(months, np.inf))

    # commitments: rate fixed at each signing, paid on calendar hours, renewed at term end;
    # liquidate (the default horizon rule): a term is paid to its end, after the horizon too
    offer_pv, blocks = {}, {}
    long_hours = month_hours(f.start_month, months + 120)
    long_end = (1 + r_m) ** -np.arange(1, months + 121, dtype=float)
    for c in s.commitments:
        upfront_share = {"none": 0.0, "partial": 0.5, "all": 1.0}[c.payment]
        pv = 0.0
        for sign in range(0, months, c.term_months):      # 0-based month index of signing
            rate = od.price_per_gpu_hour * (1 - c.discount) * trend[sign]
            term_hours = long_hours[sign:sign + c.term_months]
            pv += upfront_share * rate * term_hours.sum() * start[sign]
            for j in range(sign, sign + c.term_months):
                pv += (1 - upfront_share) * rate * long_hours[j] * long_end[j]
        offer_pv[c.id], blocks[c.id] = pv, c.block_gpus
    return Independent(hours, steady, interruptible, month, end, start, server_pv,
                       o.gpus_per_server * o.availability, online, owned_busy, od_pv, spot_pv,
                       spt.availability, offer_pv, blocks)


@dataclass
class MilpResult:
    pv: float
    servers: int
    committed: dict[str, int]   # GPUs per offer
    spot_hours: float


@dataclass
class Problem:
    """The MILP in matrix form: min c x, lo <= A x <= hi (first 2T rows equalities)."""

    c: np.ndarray
    A: sp.csr_matrix
    lo: np.ndarray
    hi: np.ndarray
    lb: np.ndarray
    ub: np.ndarray
    integrality: np.ndarray
    n_eq: int
    count: np.ndarray
    ids: list[str]
    spot_columns: slice


def milp_problem(m: Independent, *, max_servers: int | None = None,
                 fixed: tuple[int, dict[str, int]] | None = None) -> Problem:
    """Integer N, n_k and the hourly dispatch (see the module docstring).

    Hours of one month with the same (steady, interruptible) demand are exchangeable, so each
    distinct (month, s, i) is one group of ``count`` hours: the dispatch variables are per hour
    of the group and their cost is multiplied by the count. This is exact.
    """
    keys, count = np.unique(np.c_[m.month, m.steady, m.interruptible], axis=0,
                            return_counts=True)
    mo, steady, interruptible = keys[:, 0].astype(int), keys[:, 1], keys[:, 2]
    T = len(count)
    ids = list(m.offer_pv)
    K = len(ids)
    peak = float((steady + interruptible).max())
    n_hi = math.ceil(peak / m.server_gpus) + 1 if max_servers is None else max_servers
    b_hi = [math.ceil(peak / m.blocks[k]) + 1 for k in ids]
    nv = 1 + K + 7 * T
    # columns: N, n_1..n_K, then hourly blocks cs, ci, os, oi, sp, ds, di
    CS, CI, OS, OI, SP, DS, DI = (1 + K + j * T for j in range(7))
    c = np.zeros(nv)
    c[0] = m.server_pv
    for j, k in enumerate(ids):
        c[1 + j] = m.offer_pv[k] * m.blocks[k]
    c[OS:OS + T] = m.owned_busy[mo] * count
    c[OI:OI + T] = m.owned_busy[mo] * count
    spot_cost = m.spot[mo]
    spot_ok = bool(np.all(np.isfinite(spot_cost)))
    c[SP:SP + T] = np.where(np.isfinite(spot_cost), spot_cost, 0.0) * count
    c[DS:DS + T] = m.od[mo] * count
    c[DI:DI + T] = m.od[mo] * count

    lb, ub = np.zeros(nv), np.full(nv, np.inf)
    ub[0] = n_hi
    ub[1:1 + K] = b_hi
    if fixed is not None:
        lb[0] = ub[0] = fixed[0]
        for j, k in enumerate(ids):
            lb[1 + j] = ub[1 + j] = fixed[1].get(k, 0) // m.blocks[k]
    if not spot_ok:
        ub[SP:SP + T] = 0.0
    integrality = np.zeros(nv)
    integrality[:1 + K] = 1

    eye = sp.identity(T, format="csr")
    col = sp.csr_matrix

    def block(parts: dict[int, sp.spmatrix], lead: sp.spmatrix | None = None) -> sp.spmatrix:
        mats = [lead if lead is not None else col((T, 1 + K))]
        for start in (CS, CI, OS, OI, SP, DS, DI):
            mats.append(parts.get(start, col((T, T))))
        return sp.hstack(mats)

    ones = np.ones((T, 1))
    lead_c = col(np.hstack([np.zeros((T, 1))] + [-m.blocks[k] * ones for k in ids]))
    owned_per_hour = (m.server_gpus * m.online[mo]).reshape(-1, 1)
    lead_o = col(np.hstack([-owned_per_hour, np.zeros((T, K))]))
    A = sp.vstack([
        block({CS: eye, OS: eye, DS: eye}),                              # steady balance
        block({CI: eye, OI: eye, SP: eye, DI: eye}),                     # interruptible balance
        block({CS: eye, CI: eye}, lead_c),                               # committed capacity
        block({OS: eye, OI: eye}, lead_o),                               # owned capacity
        block({SP: eye, CI: m.spot_share * eye, OI: m.spot_share * eye}),  # spot share
    ]).tocsr()
    lo = np.concatenate([steady, interruptible, np.full(3 * T, -np.inf)])
    hi = np.concatenate([steady, interruptible, np.zeros(2 * T), m.spot_share * interruptible])
    return Problem(c, A, lo, hi, lb, ub, integrality, 2 * T, count, ids, slice(SP, SP + T))


def solve_milp(m: Independent, *, max_servers: int | None = None,
               fixed: tuple[int, dict[str, int]] | None = None,
               time_limit: float = 60) -> MilpResult:
    """Minimise PV cost over integer N, n_k and the hourly dispatch with HiGHS."""
    p = milp_problem(m, max_servers=max_servers, fixed=fixed)
    res = milp(p.c, constraints=LinearConstraint(p.A, p.lo, p.hi), integrality=p.integrality,
               bounds=Bounds(p.lb, p.ub),
               options={"mip_rel_gap": 1e-12, "time_limit": time_limit})
    assert res.success, res.message
    x = res.x
    servers = int(round(x[0]))
    committed = {k: int(round(x[1 + j])) * m.blocks[k] for j, k in enumerate(p.ids)}
    return MilpResult(float(res.fun), servers, committed, float(x[p.spot_columns] @ p.count))


def rel_close(a: float, b: float, rel: float = REL) -> bool:
    return abs(a - b) <= rel * max(1.0, abs(a), abs(b))


def engine_pv(ctx, servers: int, committed: dict[str, int]) -> float:
    """The engine's PV of a capacity, with or without spot, whichever is cheaper."""
    return min(ctx.evaluate("check", Capacity(servers, dict(committed), use)).pv_cost
               for use in (True, False))
