"""Builders shared by the engine tests: flat monthly profiles and the worked-example scenarios
of shared/worked-examples.md (plan months 2027-03 .. 2028-02, 12 % discount rate)."""
from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Union

import numpy as np

from models.capacity import Capacity, CapacityPlan
from models.plan import build_state
from tests.support.plans import compute_plan
from models.plan_state import PlanState
from models.profile import UsageProfile, plan_calendar
from models.scenario import Scenario
from tests.support.paths import SAMPLES

WORKED_MONTHS = plan_calendar("2027-03", 12)

COMMON = {"finance": {"start_month": "2027-03", "horizon_months": 12,
                      "discount_rate_annual": 0.12},
          "on_demand": {"price_per_gpu_hour": 3.0, "billing_increment_seconds": 60,
                        "mean_session_hours": 1},
          "cloud_data": {"storage_tb": 0, "egress_tb_per_month": 0}}

W1_OWNED = {"gpus_per_server": 8, "server_price": 200000, "install_cost_per_server": 10000,
            "lead_time_months": 0, "resale_fraction_by_year": [0.7, 0.5, 0.35, 0.2, 0.1],
            "power_kw_max": 6.5, "power_kw_idle": 2.0, "pue": 1.4,
            "electricity_price_per_kwh": 0.12, "space_price_per_kw_month": 120,
            "maintenance_fraction_annual": 0.05, "servers_per_fte": 25,
            "fte_cost_annual": 120000, "availability": 0.97, "financing": {"kind": "cash"}}


def context_of(plan) -> PlanState:
    """The engine context of a computed plan (a plan keeps none: its ledger and document are
    what views read), built again from its scenario and profile."""
    return build_state(plan.scenario, plan.profile)


def merged(base: dict, **sections) -> dict:
    out = {k: (dict(v) if isinstance(v, dict) else v) for k, v in base.items()}
    for name, value in sections.items():
        if isinstance(value, dict) and isinstance(out.get(name), dict):
            out[name] = {**out[name], **value}
        else:
            out[name] = value
    return out


def flat_profile(gpus: float, start: str = "2027-03", months: int = 12,
                 interruptible: bool = False) -> UsageProfile:
    """A monthly profile whose rows are gpus x month hours (flat demand)."""
    cal = plan_calendar(start, months)
    starts = np.array(cal.months, dtype="datetime64[M]").astype("datetime64[h]")
    hours = gpus * cal.hours
    zero = np.zeros(months)
    return UsageProfile("month", starts, zero if interruptible else hours,
                        hours if interruptible else zero, has_workload=interruptible)


def hourly_profile(steady: np.ndarray, interruptible: np.ndarray | None = None,
                   start: str = "2027-01-01T00") -> UsageProfile:
    steady = np.asarray(steady, dtype=float)
    inter = np.zeros_like(steady) if interruptible is None else np.asarray(interruptible, float)
    starts = np.datetime64(start, "h") + np.arange(len(steady))
    return UsageProfile("hour", starts, steady, inter, has_workload=interruptible is not None)


# The optimizer's hand cases (tests/engine/test_optimize.py, test_breakeven.py): one year from
# 2027-01, no commitments, no cloud data, no failures.
OPTIMIZE_BASE = {"finance": {"start_month": "2027-01", "horizon_months": 12},
                 "commitments": [], "cloud_data": {"storage_tb": 0, "egress_tb_per_month": 0},
                 "owned": {"failures_per_server_year": 0}}


def base_plan(profile: UsageProfile, **sections):
    """The plan of OPTIMIZE_BASE with ``sections`` merged in, on ``profile``."""
    return compute_plan(Scenario.model_validate(merged(OPTIMIZE_BASE, **sections)), profile)


def csv_profile(path: Path) -> UsageProfile:
    """An hourly profile from a usage CSV of the samples' shape (timestamp, gpu_hours,
    workload, team; consecutive hours, ISO timestamps), read without service.ingest so that the
    engine tests stay below it. tests/io/test_ingest_api.py checks it equals what ingest reads."""
    hours: dict[str, list[float]] = {}
    teams: dict[str, float] = {}
    with open(path, newline="") as handle:
        for row in csv.DictReader(handle):
            steady_and_interruptible = hours.setdefault(row["timestamp"], [0.0, 0.0])
            value = float(row["gpu_hours"])
            steady_and_interruptible[1 if row["workload"] == "interruptible" else 0] += value
            teams[row["team"]] = teams.get(row["team"], 0.0) + value
    starts = np.array(sorted(hours), dtype="datetime64[h]")
    values = np.array([hours[key] for key in sorted(hours)])
    return UsageProfile("hour", starts, values[:, 0], values[:, 1], has_workload=True,
                        teams=teams)


def w1() -> Scenario:
    return Scenario.model_validate(merged(COMMON, owned=W1_OWNED,
                                          proposed={"servers": 1, "committed_gpus": {}}))


def w2() -> Scenario:
    return Scenario.model_validate(merged(
        COMMON, on_demand={"price_trend_annual": -0.2},
        commitments=[{"id": "1y", "term_months": 12, "discount": 0.35, "payment": "none",
                      "block_gpus": 8}],
        proposed={"servers": 0, "committed_gpus": {"1y": 8}}))


def w3() -> Scenario:
    return Scenario.model_validate(merged(
        COMMON, owned={"failures_per_server_year": 0},
        spot={"discount": 0.7, "availability": 1.0, "interruptions_per_instance_hour": 0.002,
              "notice_seconds": 120, "checkpoint_seconds": 60, "restart_seconds": 300,
              "nodes_per_job": 1},
        proposed={"servers": 0, "committed_gpus": {}}))


def daily_swing_profile(gpus: float = 64.0, hours: int = 24 * 365, interruptible: float = 0.0
                        ) -> UsageProfile:
    """Constant demand with a daily swing, so capacity levels cut through the load curve."""
    t = np.arange(hours)
    total = gpus * (1.0 + 0.5 * np.sin(2 * np.pi * t / 24))
    starts = np.datetime64("2026-01-01T00", "h") + t.astype("timedelta64[h]")
    return UsageProfile("hour", starts, total * (1 - interruptible), total * interruptible,
                        has_workload=interruptible > 0)


def capacities(plan) -> dict[str, Union[Capacity, CapacityPlan]]:
    """Each strategy's decision: static capacity, or the cohorts of a schedule (staged)."""
    return {name: r.capacity if r.capacity is not None else r.plan
            for name, r in plan.strategies.items()}


def growth_sample() -> tuple[Scenario, UsageProfile]:
    """The growth sample (scenario_growth.json on usage_hourly.csv) without its Monte Carlo."""
    s = Scenario.model_validate(json.loads((SAMPLES / "scenario_growth.json").read_text()))
    return s.with_changes(uncertainty={"draws": 0}), csv_profile(SAMPLES / "usage_hourly.csv")


def payback_case(commitment: dict, proposed: dict, server_price: float = 300_000):
    """8 GPUs flat for 60 months from 2027-01 with one commitment offer and a proposed plan
    (issue 23's payback cases), no spot, no data charges, no Monte Carlo."""
    return compute_plan(Scenario.model_validate({
        "finance": {"start_month": "2027-01", "horizon_months": 60},
        "owned": {"server_price": server_price},
        "commitments": [commitment], "spot": {"availability": 0.0},
        "cloud_data": {"storage_tb": 0, "egress_tb_per_month": 0},
        "proposed": proposed, "uncertainty": {"draws": 0}}), flat_profile(8, "2026-01", 12))


def demand(seed: int, level: float, hours: int = 24 * 365, spread: float = 0.3,
           interruptible: float = 0.3) -> tuple[np.ndarray, np.ndarray]:
    """Hourly steady demand on a daily cycle around ``level`` GPUs, and interruptible bursts
    of ``interruptible x level`` in random hours (the staged and fleet proofs' small cases)."""
    rng = np.random.default_rng(seed)
    t = np.arange(hours)
    base = level * (1 + spread * np.sin(2 * np.pi * t / 24)) * rng.uniform(0.8, 1.0, hours)
    bursts = rng.choice([0.0, interruptible * level], size=hours)
    return base, bursts


# the robust plan's cases (issue 27): three paths of growth 10 %, 50 % and 100 %
THREE = [{"name": "low", "growth_annual": 0.1, "probability": 0.25},
         {"name": "mid", "growth_annual": 0.5, "probability": 0.5},
         {"name": "high", "growth_annual": 1.0, "probability": 0.25}]
LINEAR = {"cloud_terms": {"setup_fee": 0, "support_fraction": 0, "support_minimum_per_month": 0},
          "cloud_data": {"storage_tb": 0, "egress_tb_per_month": 0}}


def robust_case(seed: int, paths=THREE, months: int = 36, interval: int = 6, now: int = 12,
         risk: dict | None = None, **extra):
    """A random robust-plan case (issue 27): its scenario and hourly profile."""
    rng = np.random.default_rng(seed)
    s = Scenario.model_validate({
        "finance": {"start_month": "2027-01", "horizon_months": months,
                    "discount_rate_annual": float(rng.uniform(0.03, 0.15))},
        "on_demand": {"price_per_gpu_hour": float(rng.uniform(4, 8))},
        "profile": {"growth_annual": 0.5},
        "staging": {"decision_interval_months": interval, "decide_now_months": now,
                    "demand_scenarios": paths, "risk": risk or {}},
        "uncertainty": {"draws": 0}, **LINEAR, **extra})
    steady, inter = demand(seed, float(rng.uniform(15, 40)))
    return s, hourly_profile(steady, inter)


B200 = {"id": "b200", "server_price": 520_000, "power_kw_max": 14.3, "power_kw_idle": 4.0,
        "relative_throughput": 2.2}


def fleet_case(seed: int, b200_from: str | None = None, months: int = 12, **extra):
    """Two server types (h100, and b200 sold from ``b200_from``), one 1-year offer, random
    prices and growth from ``seed``, on a random hourly demand: the fleet tests' case."""
    rng = np.random.default_rng(seed)
    s = Scenario.model_validate({
        "finance": {"start_month": "2027-01", "horizon_months": months,
                    "discount_rate_annual": float(rng.uniform(0.02, 0.2))},
        "on_demand": {"price_per_gpu_hour": float(rng.uniform(4, 9))},
        "profile": {"growth_annual": float(rng.uniform(0.0, 1.5))},
        "commitments": [{"id": "1y", "term_months": 12, "discount": float(rng.uniform(0.3, 0.5)),
                         "block_gpus": 8}],
        "staging": {"decision_interval_months": 6},
        "server_types": [{"id": "h100", "server_price": float(rng.uniform(2e5, 3.2e5))},
                         {**B200, "available_from": b200_from,
                          "server_price": float(rng.uniform(4e5, 6e5))}],
        "uncertainty": {"draws": 0}, **extra})
    steady, inter = demand(seed, float(rng.uniform(15, 30)))
    return s, hourly_profile(steady, inter)
