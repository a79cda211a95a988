"""Fleet cases for the independent HiGHS cross-check of a fleet's static optimum (issue 26;
tests/engine/test_fleet_highs.py explains the check, bench/optimize.py --types times it).

The model itself is tests/support/highs_model.py's: :func:`independent_model` gives each server
type its own coefficients (:func:`owned_type`: fixed-cost PV per server, busy-energy PV per unit
of work, work per server) and :func:`milp_problem` an integer count and a capacity row per type.
It covers the types a static plan can hold whole: every type sold from month 1 (no
``available_from``) and outliving the horizon (``useful_life_months`` >= the horizon, so no
replacement and no successor's resale drop inside it).
"""
from __future__ import annotations

import numpy as np

from models.capacity import Capacity
from models.scenario import Scenario
from models.profile import UsageProfile
from tests.support.highs_model import random_linear_case


def random_server_types(rng: np.random.Generator, base: dict, count: int, seed: int
                        ) -> list[dict]:
    """``count`` server types: the first is ``owned`` as it is, the others newer generations.

    A newer type does 1.2-2.6x the work per GPU for about as much more money (0.8-1.15x per
    unit of work, so no type dominates on price alone), draws more power with a different
    idle share (so the busy energy per unit of work, the merit order, differs), and has its
    own availability, install cost, maintenance, GPUs per server, resale fractions and, for
    some seeds, lead time.

    Parameters
    ----------
    rng : numpy.random.Generator
        The case's generator.
    base : dict
        The scenario's ``owned`` section (what the types override).
    count : int
        Types, 2 or 3.
    seed : int
        The case's seed (picks the lead times).

    Returns
    -------
    list of dict
        ``server_types`` entries.
    """
    types = [{"id": "t0"}]
    for j in range(1, count):
        throughput = float(rng.uniform(1.2, 2.6))
        kw_max = base["power_kw_max"] * float(rng.uniform(1.0, 1.8))
        types.append({
            "id": f"t{j}",
            "server_price": base["server_price"] * throughput * float(rng.uniform(0.8, 1.15)),
            "install_cost_per_server": float(rng.uniform(0, 4e4)),
            "relative_throughput": throughput,
            "power_kw_max": kw_max,
            "power_kw_idle": kw_max * float(rng.uniform(0.1, 0.4)),
            "availability": float(rng.uniform(0.85, 1.0)),
            "maintenance_fraction_annual": float(rng.uniform(0.03, 0.12)),
            "lead_time_months": int((seed + j) % 3 == 0),
            "gpus_per_server": int(rng.choice([4, 8])),
            # a newer type holds its value better: over 3-6 months servers are then worth
            # buying, and types differ in what a month of owning costs
            "resale_fraction_by_year": sorted(rng.uniform(0.5, 0.95, 3), reverse=True),
        })
    return types


def random_fleet_case(seed: int) -> tuple[Scenario, UsageProfile]:
    """A linear case of random_linear_case with 2 or 3 server types (seed // 2 odd: 3).

    Parameters
    ----------
    seed : int
        Fixed seed: horizon 3-6 months, 2-4 months of hourly usage, 1-2 offers, the demand mix
        by ``seed % 4`` (random_linear_case's).

    Returns
    -------
    (Scenario, UsageProfile)
    """
    scenario, profile = random_linear_case(seed)
    data = scenario.model_dump()
    rng = np.random.default_rng(5000 + seed)
    data["server_types"] = random_server_types(rng, data["owned"], 2 + (seed // 2) % 2, seed)
    return Scenario.model_validate(data), profile


def fleet_capacity(servers_by_type: dict[str, int], committed: dict[str, int], use_spot: bool
                   ) -> Capacity:
    """A static fleet decision [servers per type id, GPUs per offer]."""
    return Capacity(0, dict(committed), use_spot, servers_by_type=dict(servers_by_type))


def engine_fleet_pv(ctx, servers_by_type: dict[str, int], committed: dict[str, int]) -> float:
    """The engine's PV of a fleet's static decision, with or without spot, whichever is
    cheaper [currency]."""
    return min(ctx.pv(fleet_capacity(servers_by_type, committed, use))
               for use in (True, False))
