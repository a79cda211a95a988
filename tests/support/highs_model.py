"""The independent HiGHS model of the optimizer cross-check (tests/engine/test_optimize_highs.py
explains it; bench/optimize.py times it): generated scenarios and profiles, and a MILP written
from the design, not from the project's dispatch or cost code.

A fleet (``server_types``, issue 26) is the same MILP with an integer count, a capacity row and
its own coefficients per type (:func:`owned_type`); tests/engine/test_fleet_highs.py checks
it, tests/support/highs_fleet_model.py generates its cases, ``bench/optimize.py --types 3``
times it. Covered: types sold from month 1 that outlive the horizon.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.optimize import Bounds, LinearConstraint, milp

from models.capacity import Capacity
from models.profile import UsageProfile
from models.scenario import Scenario
from models.scenario_owned import Owned
from models.capacity import Capacity

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


def spot_billed_per_used(increment: float, minimum: float, session_hours: float,
                         rate_per_hour: float) -> float:
    """E[billed] / E[used] of a session of L hours cut by an Exp(rate) interruption (issue 37
    item 6), in hours with plain exponentials: U = min(T, L), E[U] = (1 - e^(-r L))/r,
    E[max(U, m)] = m + (e^(-r m) - e^(-r L))/r and P(U > m) = e^(-r m) for m < L."""
    if rate_per_hour <= 0:
        return billed_per_used(increment, minimum, session_hours)
    r, L, m = rate_per_hour, session_hours, minimum / 3600
    used = (1 - math.exp(-r * L)) / r
    if L * 3600 <= minimum:
        return m / used
    billed = m + (math.exp(-r * m) - math.exp(-r * L)) / r + math.exp(-r * m) * increment / 7200
    return billed / used


@dataclass
class OwnedType:
    """One server type of the independent model (all of it bought at the start of month 1)."""

    id: str | None           # the type's id; None: the ``owned`` section of a one-type scenario
    server_pv: float         # PV of one server's fixed costs minus its resale credit [currency]
    server_work: float       # work one online server does an hour [GPUs of the reference type]
    online: np.ndarray       # 1 in months a server is online, by month
    owned_busy: np.ndarray   # PV per unit of owned work, by month [currency per GPU-hour of work]


@dataclass
class Independent:
    hours: np.ndarray        # calendar hours per month
    steady: np.ndarray       # hourly demand over the plan [GPUs]
    interruptible: np.ndarray
    month: np.ndarray        # month index of each plan hour
    end: np.ndarray          # end-of-month discount factors
    start: np.ndarray        # start-of-month discount factors
    types: list[OwnedType]   # the server types, in the scenario's order
    od: np.ndarray           # PV per on-demand GPU-hour, by month
    spot: np.ndarray         # PV per useful spot GPU-hour, by month (inf: infeasible)
    spot_share: float
    offer_pv: dict[str, float]  # PV per committed GPU over the horizon
    blocks: dict[str, int]


def type_section(s: Scenario, server_type) -> Owned:
    """The ``owned`` fields of a server type: ``owned`` with what the type names (design,
    "Server types"); every field the type leaves empty is ``owned``'s."""
    names = set(Owned.model_fields) & set(type(server_type).model_fields)
    return s.owned.model_copy(update={name: getattr(server_type, name) for name in names
                                      if getattr(server_type, name) is not None})


def owned_type(o: Owned, type_id: str | None, months: int, hours: np.ndarray, start: np.ndarray,
               end: np.ndarray, power_index: np.ndarray, staff_index: np.ndarray) -> OwnedType:
    """A server type's PV coefficients: capex at the start of month 1, fixed costs while
    online, resale at the end of the horizon; busy energy per unit of work.

    Parameters
    ----------
    o : Owned
        The type's ``owned`` fields.
    type_id : str or None
        Its id (None without server types).
    months : int
        Months of the horizon [months]; at most the useful life (no replacement).
    hours : numpy.ndarray
        Calendar hours per month [h].
    start, end : numpy.ndarray
        Discount factors at the start and the end of each month.
    power_index, staff_index : numpy.ndarray
        Electricity and staff prices by month relative to month 1 (the inflation).

    Returns
    -------
    OwnedType
    """
    assert o.useful_life_months >= months, "no replacement inside the horizon in this model"
    m1 = np.arange(1, months + 1)
    power = o.electricity_price_per_kwh * power_index
    online = (m1 > o.lead_time_months).astype(float)
    idle_energy = o.power_kw_idle * o.pue * hours * power
    space = o.power_kw_max * o.space_price_per_kw_month
    maintenance = o.maintenance_fraction_annual * o.server_price / 12
    staff_cost = o.fte_cost_annual * staff_index / 12 / o.servers_per_fte
    per_month = online * (idle_energy + space + maintenance + staff_cost)
    ages = np.arange(0, 12 * (len(o.resale_fraction_by_year) + 1), 12)
    fractions = [1.0, *o.resale_fraction_by_year]
    resale = o.server_price * float(np.interp(months, ages, fractions))
    server_pv = ((o.server_price + o.install_cost_per_server) * start[0]
                 + float(per_month @ end) - resale * end[-1])
    # a GPU-hour of work keeps 1/relative_throughput GPU-hours of the type busy
    busy_kw_per_gpu = (o.power_kw_max - o.power_kw_idle) / o.gpus_per_server
    owned_busy = busy_kw_per_gpu * o.pue * power * end / o.relative_throughput
    return OwnedType(type_id, server_pv,
                     o.gpus_per_server * o.availability * o.relative_throughput, online,
                     owned_busy)


def independent_model(s: Scenario, profile: UsageProfile) -> Independent:
    """The PV coefficients of a scenario's static problem, from its fields.

    Covers a one-type scenario and a fleet (``server_types``) whose types can all be bought in
    month 1 (no ``available_from``, no ``available_until`` before it: no successor's resale
    drop either) and outlive the horizon (``useful_life_months`` >= the horizon: no
    replacement); the cost must be linear (no tax, financing, failures, cloud data, setup fee
    or support: see :func:`random_linear_case`). Asserts the coverage.
    """
    f, od, spt = s.finance, s.on_demand, s.spot
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
    power_index = (1 + f.power_price_inflation_annual) ** ((m1 - 1) / 12)
    staff_index = (1 + f.staff_cost_inflation_annual) ** ((m1 - 1) / 12)
    rounding = billed_per_used(od.billing_increment_seconds, od.billing_minimum_seconds,
                               od.mean_session_hours)
    # spot sessions cut short by exponential interruptions, billed as an expectation
    spot_rounding = spot_billed_per_used(od.billing_increment_seconds,
                                         od.billing_minimum_seconds, od.mean_session_hours,
                                         spt.interruptions_per_instance_hour)

    # owned: one set of coefficients per server type
    if s.server_types:
        for kind in s.server_types:
            assert kind.available_from is None, "only types sold from month 1"
            assert kind.available_until is None or kind.available_until >= f.start_month
        types = [owned_type(type_section(s, kind), kind.id, months, hours, start, end,
                            power_index, staff_index) for kind in s.server_types]
    else:
        types = [owned_type(s.owned, None, months, hours, start, end, power_index,
                            staff_index)]

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
    return Independent(hours, steady, interruptible, month, end, start, types, od_pv, spot_pv,
                       spt.availability, offer_pv, blocks)


@dataclass
class MilpResult:
    pv: float
    servers_by_type: dict[str | None, int]   # servers per type id (None: one type)
    committed: dict[str, int]   # GPUs per offer
    spot_hours: float

    @property
    def servers(self) -> int:
        """Servers of every type [servers] (the count of a one-type scenario)."""
        return sum(self.servers_by_type.values())


@dataclass
class Problem:
    """The MILP in matrix form: min c x, lo <= A x <= hi (first 2T rows equalities).

    Columns: N per type, n per offer, then blocks of T: cs, ci, os per type, oi per type, sp,
    ds, di (see :func:`milp_problem`).
    """

    c: np.ndarray
    A: sp.csr_matrix
    lo: np.ndarray
    hi: np.ndarray
    lb: np.ndarray
    ub: np.ndarray
    integrality: np.ndarray
    n_eq: int
    count: np.ndarray
    ids: list[str]              # offers, in the order of their columns after the servers
    type_ids: list[str | None]  # server types, in the order of the first columns
    spot_columns: slice


Fixed = tuple[int | dict[str | None, int], dict[str, int]]


def milp_problem(m: Independent, *, max_servers: int | None = None,
                 fixed: Fixed | None = None) -> Problem:
    """Integer N_p per server type and n_k per offer, and the hourly dispatch.

    For each hour t, with P server types (a type's work is its GPUs x availability x relative
    throughput, in GPUs of the reference type)::

        cs_t + sum_p os_tp + ds_t              = s_t
        ci_t + sum_p oi_tp + sp_t + di_t       = i_t
        cs_t + ci_t                           <= sum_k n_k block_k
        os_tp + oi_tp                         <= N_p work_p online_tp        (each type p)
        sp_t                                  <= share (i_t - ci_t - sum_p oi_tp)

    priced by each type's fixed-cost PV per server and busy-energy PV per unit of work.

    Hours of one month with the same (steady, interruptible) demand are exchangeable, so each
    distinct (month, s, i) is one group of ``count`` hours: the dispatch variables are per hour
    of the group and their cost is multiplied by the count. This is exact.

    Parameters
    ----------
    m : Independent
        The coefficients.
    max_servers : int, optional
        Upper bound of every N_p [servers]; 0: cloud only. None: the peak's servers plus one.
    fixed : (servers, committed), optional
        Fix N and the blocks: servers as a count (one type) or per type id [servers],
        committed GPUs per offer [GPUs] (a multiple of the block).

    Returns
    -------
    Problem
    """
    keys, count = np.unique(np.c_[m.month, m.steady, m.interruptible], axis=0,
                            return_counts=True)
    mo, steady, interruptible = keys[:, 0].astype(int), keys[:, 1], keys[:, 2]
    T = len(count)
    ids = list(m.offer_pv)
    K = len(ids)
    P = len(m.types)
    lead = P + K                      # integer columns
    peak = float((steady + interruptible).max())
    n_hi = [math.ceil(peak / kind.server_work) + 1 if max_servers is None else max_servers
            for kind in m.types]
    b_hi = [math.ceil(peak / m.blocks[k]) + 1 for k in ids]
    # columns: N_1..N_P, n_1..n_K, then hourly blocks cs, ci, os_1..os_P, oi_1..oi_P, sp, ds, di
    starts = [lead + j * T for j in range(5 + 2 * P)]
    CS, CI = starts[0], starts[1]
    OS, OI = starts[2:2 + P], starts[2 + P:2 + 2 * P]
    SP, DS, DI = starts[2 + 2 * P:]
    nv = lead + (5 + 2 * P) * T
    c = np.zeros(nv)
    for p, kind in enumerate(m.types):
        c[p] = kind.server_pv
        c[OS[p]:OS[p] + T] = kind.owned_busy[mo] * count
        c[OI[p]:OI[p] + T] = kind.owned_busy[mo] * count
    for j, k in enumerate(ids):
        c[P + j] = m.offer_pv[k] * m.blocks[k]
    spot_cost = m.spot[mo]
    spot_ok = bool(np.all(np.isfinite(spot_cost)))
    c[SP:SP + T] = np.where(np.isfinite(spot_cost), spot_cost, 0.0) * count
    c[DS:DS + T] = m.od[mo] * count
    c[DI:DI + T] = m.od[mo] * count

    lb, ub = np.zeros(nv), np.full(nv, np.inf)
    ub[:P] = n_hi
    ub[P:lead] = b_hi
    if fixed is not None:
        servers, committed = fixed
        by_type = servers if isinstance(servers, dict) else {m.types[0].id: servers}
        assert isinstance(servers, dict) or P == 1, "a count of servers needs one type"
        for p, kind in enumerate(m.types):
            lb[p] = ub[p] = by_type.get(kind.id, 0)
        for j, k in enumerate(ids):
            lb[P + j] = ub[P + j] = committed.get(k, 0) // m.blocks[k]
    if not spot_ok:
        ub[SP:SP + T] = 0.0
    integrality = np.zeros(nv)
    integrality[:lead] = 1

    eye = sp.identity(T, format="csr")
    col = sp.csr_matrix

    def block(parts: dict[int, sp.spmatrix], lead_: sp.spmatrix | None = None) -> sp.spmatrix:
        mats = [lead_ if lead_ is not None else col((T, lead))]
        for start in starts:
            mats.append(parts.get(start, col((T, T))))
        return sp.hstack(mats)

    ones = np.ones((T, 1))
    lead_c = col(np.hstack([np.zeros((T, P))] + [-m.blocks[k] * ones for k in ids]))
    rows = [
        block({CS: eye, DS: eye, **{o: eye for o in OS}}),                # steady balance
        block({CI: eye, SP: eye, DI: eye, **{o: eye for o in OI}}),       # interruptible balance
        block({CS: eye, CI: eye}, lead_c),                                # committed capacity
    ]
    for p, kind in enumerate(m.types):                                    # owned capacity
        per_hour = np.zeros((T, lead))
        per_hour[:, p] = -kind.server_work * kind.online[mo]
        rows.append(block({OS[p]: eye, OI[p]: eye}, col(per_hour)))
    rows.append(block({SP: eye, CI: m.spot_share * eye,                   # spot share
                       **{o: m.spot_share * eye for o in OI}}))
    A = sp.vstack(rows).tocsr()
    lo = np.concatenate([steady, interruptible, np.full((2 + P) * T, -np.inf)])
    hi = np.concatenate([steady, interruptible, np.zeros((1 + P) * T),
                         m.spot_share * interruptible])
    return Problem(c, A, lo, hi, lb, ub, integrality, 2 * T, count, ids,
                   [kind.id for kind in m.types], slice(SP, SP + T))


def solve_milp(m: Independent, *, max_servers: int | None = None, fixed: Fixed | None = None,
               node_limit: int = 200_000) -> MilpResult:
    """Minimise PV cost over integer N_p, n_k and the hourly dispatch with HiGHS, proven
    optimal within a node limit (never a clock: the check must not depend on the machine's
    load; a search past the limit fails the test loudly)."""
    p = milp_problem(m, max_servers=max_servers, fixed=fixed)
    res = milp(p.c, constraints=LinearConstraint(p.A, p.lo, p.hi), integrality=p.integrality,
               bounds=Bounds(p.lb, p.ub),
               options={"mip_rel_gap": 1e-12, "node_limit": node_limit})
    assert res.success, res.message
    x = res.x
    P = len(p.type_ids)
    servers = {kind: int(round(x[j])) for j, kind in enumerate(p.type_ids)}
    committed = {k: int(round(x[P + j])) * m.blocks[k] for j, k in enumerate(p.ids)}
    return MilpResult(float(res.fun), servers, committed, float(x[p.spot_columns] @ p.count))


def rel_close(a: float, b: float, rel: float = REL) -> bool:
    return abs(a - b) <= rel * max(1.0, abs(a), abs(b))


def engine_pv(ctx, servers: int, committed: dict[str, int]) -> float:
    """The engine's PV of a capacity, with or without spot, whichever is cheaper."""
    return min(ctx.evaluate("check", Capacity(servers, dict(committed), use)).pv_cost
               for use in (True, False))
