"""Generate the bundled sample usage files and scenarios (fixed seed: the output never changes).

    python samples/generate.py        # rewrites samples/*.csv and samples/scenario_*.json

usage_hourly.csv: one team's year of 2026, hour by hour: steady inference on a daily and weekly
cycle (team "serving"), plus interruptible training bursts that grow over the year (team
"research"). usage_daily.csv and usage_monthly.csv are the same usage summed by day and month.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
SEED = 20261130


def hourly_usage(seed: int = SEED) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    hours = pd.date_range("2026-01-01", "2026-12-31 23:00", freq="h")
    n = len(hours)
    t = np.arange(n)
    year_frac = t / n
    # Serving: 40 GPUs base growing to 56, +/- a daily cycle peaking mid-afternoon, -30 % on weekends
    base = 40 + 16 * year_frac
    daily = 1 + 0.35 * np.sin(2 * np.pi * (hours.hour.to_numpy() - 9) / 24)
    weekend = np.where(hours.day_of_week.to_numpy() >= 5, 0.7, 1.0)
    serving = np.maximum(base * daily * weekend + rng.normal(0, 2.0, n), 0)
    # Training: bursts of 32-160 GPUs lasting 1-6 days; they start more often as the year goes on
    training = np.zeros(n)
    hour = 0
    while hour < n:
        gap = int(rng.exponential(24 * (14 - 9 * hour / n)))
        start = hour + gap
        length = int(rng.integers(24, 24 * 6))
        gpus = int(rng.choice([32, 64, 96, 128, 160]))
        training[start:start + length] += gpus
        hour = start + length // 3
    training = training[:n]
    rows = pd.DataFrame({
        "timestamp": np.concatenate([hours, hours]),
        "gpu_hours": np.round(np.concatenate([serving, training]), 2),
        "workload": ["steady"] * n + ["interruptible"] * n,
        "team": ["serving"] * n + ["research"] * n,
    })
    rows = rows[rows["gpu_hours"] > 0].sort_values(["timestamp", "workload"], kind="stable")
    return rows.reset_index(drop=True)


def summed(rows: pd.DataFrame, freq: str, fmt: str) -> pd.DataFrame:
    period = rows["timestamp"].dt.to_period(freq).dt.start_time.dt.strftime(fmt)
    out = (rows.assign(timestamp=period)
           .groupby(["timestamp", "workload", "team"], as_index=False)["gpu_hours"].sum())
    out["gpu_hours"] = out["gpu_hours"].round(2)
    return out[["timestamp", "gpu_hours", "workload", "team"]]


SCENARIO_H100 = {
    "name": "8x H100 SXM servers vs AWS p5.48xlarge (us-east-1)",
    "finance": {"horizon_months": 60, "discount_rate_annual": 0.10},
    "on_demand": {"price_per_gpu_hour": 6.88, "price_trend_annual": -0.10},
    "cloud_data": {"storage_tb": 200, "egress_tb_per_month": 20},
    "proposed": {"servers": 8, "committed_gpus": {"1y": 16}},
}

SCENARIO_L40S = {
    "name": "8x L40S servers vs AWS g6e (us-east-1)",
    "finance": {"horizon_months": 36, "discount_rate_annual": 0.08},
    "owned": {"gpus_per_server": 8, "server_price": 85000, "install_cost_per_server": 8000,
              "power_kw_max": 4.2, "power_kw_idle": 1.2, "useful_life_months": 48,
              "resale_fraction_by_year": [0.6, 0.4, 0.25, 0.15]},
    "on_demand": {"price_per_gpu_hour": 1.861, "price_trend_annual": -0.05},
    "commitments": [{"id": "1y", "term_months": 12, "discount": 0.35, "block_gpus": 1},
                    {"id": "3y", "term_months": 36, "discount": 0.55, "block_gpus": 1}],
    "spot": {"discount": 0.51, "interruptions_per_instance_hour": 0.0005},
    "cloud_data": {"storage_tb": 50, "egress_tb_per_month": 5},
    "proposed": {"servers": 4, "committed_gpus": {}},
}


def main() -> None:
    rows = hourly_usage()
    hourly = rows.assign(timestamp=rows["timestamp"].dt.strftime("%Y-%m-%dT%H:%M:%S"))
    hourly.to_csv(HERE / "usage_hourly.csv", index=False)
    summed(rows, "D", "%Y-%m-%d").to_csv(HERE / "usage_daily.csv", index=False)
    summed(rows, "M", "%Y-%m").to_csv(HERE / "usage_monthly.csv", index=False)
    for name, scenario in (("scenario_h100.json", SCENARIO_H100),
                           ("scenario_l40s.json", SCENARIO_L40S)):
        (HERE / name).write_text(json.dumps(scenario, indent=2) + "\n")


if __name__ == "__main__":
    main()
