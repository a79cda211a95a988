"""The key assumptions of a plan, their ranges and distributions (design 5.4, issue 7).

Each assumption names one scenario value; ``scenario.uncertainty`` gives its range as a change
from the base (relative: base x (1 + change); absolute: base + change). Draws are made by the
inverse-CDF method from correlated uniforms (a Gaussian copula), so a correlation between two
assumptions is one line and every marginal keeps its own shape.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import ndtr, ndtri

from models.checkpoint import HOURS_PER_YEAR, waste_fraction
from models.scenario import Scenario, Uncertainty

STRATA = 8  # failure and spot-interruption draws: midpoints of equal-probability strata


@dataclass(frozen=True)
class Assumption:
    key: str              # prefix of its fields in Scenario.uncertainty
    label: str
    unit: str             # unit of the value itself (tornado low/high)
    relative: bool        # range is a fraction of the base, else added to it
    bounds: tuple[float, float]
    stratified: bool = False  # changes demand tables or waste: drawn from a few strata


ASSUMPTIONS = (
    Assumption("on_demand_price", "On-demand price", "currency per GPU-hour", True, (0, 1000)),
    Assumption("on_demand_trend", "On-demand price trend", "fraction per year", False,
               (-0.9, 1)),
    Assumption("hardware_trend", "Hardware price trend", "fraction per year", False, (-0.9, 1)),
    Assumption("server_price", "Server price", "currency per server", True, (0, 1e8)),
    Assumption("electricity_price", "Electricity price", "currency per kWh", True, (0, 5)),
    Assumption("pue", "PUE", "ratio", False, (1, 3)),
    Assumption("demand_growth", "Demand growth", "fraction per year", False, (-0.9, 10)),
    Assumption("discount_rate", "Discount rate", "fraction per year", False, (0, 1)),
    Assumption("resale_value", "Resale value", "multiple of the base resale fractions", True,
               (0, 1e9)),
    Assumption("availability", "Availability", "fraction of hours", False, (1e-6, 1)),
    Assumption("spot_discount", "Spot discount", "fraction of on-demand price", False,
               (0, 0.999)),
    Assumption("spot_interruptions", "Spot interruption rate", "per instance-hour", True,
               (0, 10), stratified=True),
    Assumption("commitment_discount", "Commitment discounts",
               "points added to every offer's discount", False, (-1, 1)),
    Assumption("failure_rate", "Failure rate", "per server-year", True, (0, 1000),
               stratified=True),
)
BY_KEY = {a.key: a for a in ASSUMPTIONS}


def base_value(s: Scenario, key: str) -> float:
    """The scenario's own value of an assumption (resale: multiplier 1; commitments: shift 0)."""
    return {
        "on_demand_price": s.on_demand.price_per_gpu_hour,
        "on_demand_trend": s.on_demand.price_trend_annual,
        "hardware_trend": s.owned.hardware_price_trend_annual,
        "server_price": s.owned.server_price,
        "electricity_price": s.owned.electricity_price_per_kwh,
        "pue": s.owned.pue,
        "demand_growth": s.profile.growth_annual,
        "discount_rate": s.finance.discount_rate_annual,
        "resale_value": 1.0,
        "availability": s.owned.availability,
        "spot_discount": s.spot.discount,
        "spot_interruptions": s.spot.interruptions_per_instance_hour,
        "commitment_discount": 0.0,
        "failure_rate": s.owned.failures_per_server_year,
    }[key]


def value_bounds(s: Scenario, key: str) -> tuple[float, float]:
    lo, hi = BY_KEY[key].bounds
    if key == "resale_value":
        top = max(s.owned.resale_fraction_by_year)
        hi = 1.0 / top if top > 0 else 1.0
    if key == "failure_rate":
        hi = min(hi, feasible_failure_rate(s))
    return lo, hi


def feasible_failure_rate(s: Scenario) -> float:
    """The largest failure rate at which interruptible gang jobs still finish [per server-year].

    Above it the engine refuses to plan (failures waste all the time, design 4.4), so a range
    that reaches past it is cut there rather than making the whole plan fail.
    """
    sp = s.spot

    def waste(rate: float) -> float:
        return waste_fraction(nodes=sp.nodes_per_job, noticed_rate_per_node_hour=0.0,
                              unnoticed_rate_per_node_hour=rate / HOURS_PER_YEAR,
                              notice_seconds=sp.notice_seconds,
                              checkpoint_seconds=sp.checkpoint_seconds,
                              restart_seconds=sp.restart_seconds).fraction

    top = BY_KEY["failure_rate"].bounds[1]
    if waste(top) < 1:
        return top
    lo, hi = 0.0, top
    for _ in range(100):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if waste(mid) < 1 else (lo, mid)
    return lo


def to_value(s: Scenario, key: str, change: np.ndarray | float) -> np.ndarray:
    """The assumption's value for a change from the base, clipped to the field's bounds."""
    a, base = BY_KEY[key], base_value(s, key)
    value = base * (1.0 + np.asarray(change, float)) if a.relative else base + np.asarray(
        change, float)
    return np.clip(value, *value_bounds(s, key))


def low_high(s: Scenario, key: str) -> tuple[float, float]:
    u = s.uncertainty
    return (float(to_value(s, key, getattr(u, f"{key}_low"))),
            float(to_value(s, key, getattr(u, f"{key}_high"))))


def with_values(s: Scenario, values: dict[str, float]) -> Scenario:
    """A what-if copy of the scenario with some assumptions at the given values, revalidated."""
    changes: dict[str, dict] = {}

    def put(section: str, name: str, value) -> None:
        changes.setdefault(section, {})[name] = value

    paths = {"on_demand_price": ("on_demand", "price_per_gpu_hour"),
             "on_demand_trend": ("on_demand", "price_trend_annual"),
             "hardware_trend": ("owned", "hardware_price_trend_annual"),
             "server_price": ("owned", "server_price"),
             "electricity_price": ("owned", "electricity_price_per_kwh"),
             "pue": ("owned", "pue"), "demand_growth": ("profile", "growth_annual"),
             "discount_rate": ("finance", "discount_rate_annual"),
             "availability": ("owned", "availability"), "spot_discount": ("spot", "discount"),
             "spot_interruptions": ("spot", "interruptions_per_instance_hour"),
             "failure_rate": ("owned", "failures_per_server_year")}
    for key, value in values.items():
        value = float(value)
        if key in paths:
            put(*paths[key], value)
        elif key == "resale_value":
            put("owned", "resale_fraction_by_year",
                tuple(min(1.0, f * value) for f in s.owned.resale_fraction_by_year))
        elif key == "commitment_discount":
            offers = [o.model_dump() | {"discount": offer_discount(o.discount, value)}
                      for o in s.commitments]
            changes["commitments"] = offers  # type: ignore[assignment]
        else:
            raise KeyError(key)
    return s.with_changes(**changes)


def offer_discount(discount: float, shift: float | np.ndarray) -> np.ndarray:
    """An offer's discount after a shift, kept in [0, 0.999]."""
    return np.clip(discount + np.asarray(shift, float), 0.0, 0.999)


def inverse_cdf(u: np.ndarray, low: float, high: float, shape: str) -> np.ndarray:
    """Change from the base at cumulative probability u [-].

    Notes
    -----
    triangular(a=low, c=0, b=high): x = a + sqrt(u (b-a)(c-a)) for u < (c-a)/(b-a), else
    b - sqrt((1-u)(b-a)(b-c)). lognormal: ln(1+x) ~ N(0, sigma) truncated to
    [ln(1+low), ln(1+high)], sigma = max(-ln(1+low), ln(1+high)) / 2.
    """
    if high - low <= 0:
        return np.zeros_like(u)
    if shape == "lognormal":
        lo, hi = np.log(max(1.0 + low, 1e-12)), np.log(1.0 + high)
        sigma = max(-lo, hi) / 2.0
        p_lo, p_hi = ndtr(lo / sigma), ndtr(hi / sigma)
        return np.expm1(sigma * ndtri(p_lo + u * (p_hi - p_lo)))
    split = -low / (high - low)
    left = low + np.sqrt(u * (high - low) * -low)
    right = high - np.sqrt((1.0 - u) * (high - low) * high)
    return np.where(u < split, left, right)


def sample(s: Scenario, draws: int, seed: int) -> dict[str, np.ndarray]:
    """Values of every assumption in each draw, shape (draws,) each.

    A Gaussian copula ties the hardware price trend to the on-demand trend with
    ``uncertainty.trend_correlation``; the others are independent.
    """
    u: Uncertainty = s.uncertainty
    rng = np.random.default_rng(seed)
    z = rng.standard_normal((len(ASSUMPTIONS), draws))
    index = {a.key: i for i, a in enumerate(ASSUMPTIONS)}
    rho = u.trend_correlation
    z[index["hardware_trend"]] = (rho * z[index["on_demand_trend"]]
                                  + np.sqrt(1.0 - rho * rho) * z[index["hardware_trend"]])
    out = {}
    for a, row in zip(ASSUMPTIONS, z):
        p = ndtr(row)
        if a.stratified:
            p = (np.minimum(np.floor(p * STRATA), STRATA - 1) + 0.5) / STRATA
        shape = getattr(u, f"{a.key}_distribution", "triangular")
        change = inverse_cdf(p, getattr(u, f"{a.key}_low"), getattr(u, f"{a.key}_high"), shape)
        out[a.key] = to_value(s, a.key, change)
    return out
