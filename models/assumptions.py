"""The key assumptions of a plan, their ranges and distributions (design 5.4, issue 7).

Each assumption names one scenario value; ``scenario.uncertainty`` gives its range as a change
from the base (relative: base x (1 + change); absolute: base + change). Draws are made by the
inverse-CDF method from correlated uniforms (a Gaussian copula), so a correlation between two
assumptions is one line and every marginal keeps its own shape.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np
from scipy.special import ndtr, ndtri

from models.checkpoint import HOURS_PER_YEAR, waste_fraction
from models.fields import field_meta
from models.scenario import Scenario, Uncertainty

STRATA = 8  # failure and spot-interruption draws: midpoints of equal-probability strata


@dataclass(frozen=True)
class Assumption:
    key: str              # prefix of its fields in Scenario.uncertainty
    relative: bool        # range is a fraction of the base, else added to it
    path: Optional[str] = None   # the scenario field it moves; None: resale multiplier, offer shift
    stratified: bool = False     # changes demand tables or waste: drawn from a few strata
    label_unit: tuple[str, str] = ("", "")   # only for the two without a field

    def field(self):
        section, name = self.path.split(".")
        return Scenario.model_fields[section].annotation.model_fields[name]

    @property
    def label(self) -> str:
        return field_meta(self.field())["label"] if self.path else self.label_unit[0]

    @property
    def unit(self) -> str:
        return field_meta(self.field())["unit"] if self.path else self.label_unit[1]


ASSUMPTIONS = (
    Assumption("on_demand_price", True, "on_demand.price_per_gpu_hour"),
    Assumption("on_demand_trend", False, "on_demand.price_trend_annual"),
    Assumption("hardware_trend", False, "owned.hardware_price_trend_annual"),
    Assumption("server_price", True, "owned.server_price"),
    Assumption("electricity_price", True, "owned.electricity_price_per_kwh"),
    Assumption("pue", False, "owned.pue"),
    Assumption("demand_growth", False, "profile.growth_annual"),
    Assumption("discount_rate", False, "finance.discount_rate_annual"),
    Assumption("resale_value", True,
               label_unit=("Resale value", "multiple of the base resale fractions")),
    Assumption("availability", False, "owned.availability"),
    Assumption("spot_discount", False, "spot.discount"),
    Assumption("spot_interruptions", True, "spot.interruptions_per_instance_hour",
               stratified=True),
    Assumption("commitment_discount", False,
               label_unit=("Commitment discounts", "points added to every offer's discount")),
    Assumption("failure_rate", True, "owned.failures_per_server_year", stratified=True),
    # last, so that adding it left every earlier assumption's draws as they were
    Assumption("fx_rate", True, "fx.rate"),
)
BY_KEY = {a.key: a for a in ASSUMPTIONS}


def base_value(s: Scenario, key: str) -> float:
    """The scenario's own value of an assumption (resale: multiplier 1; commitments: shift 0).

    Parameters
    ----------
    s : Scenario
        Scenario holding the value.
    key : str
        The assumption, e.g. ``"server_price"`` (``BY_KEY``).

    Returns
    -------
    float
        The value [the unit of the field it moves; resale: multiple of the base fractions;
        commitments: points of discount]; 1.0 for the exchange rate of a plan in one currency.
    """
    a = BY_KEY[key]
    if a.path is None:
        return 1.0 if key == "resale_value" else 0.0
    section, name = a.path.split(".")
    value = getattr(getattr(s, section), name)
    return 1.0 if value is None else value   # fx.rate of a single-currency plan: no rate


def applies(s: Scenario, key: str) -> bool:
    """Whether an assumption can move this scenario's plan.

    Parameters
    ----------
    s : Scenario
        Scenario (does it convert a currency?).
    key : str
        Assumption key.

    Returns
    -------
    bool
        False only for the exchange rate of a plan that converts no currency.
    """
    return key != "fx_rate" or s.foreign_currency() is not None


def field_bounds(a: Assumption) -> tuple[float, float]:
    """The allowed range of the field an assumption moves, from the schema.

    Parameters
    ----------
    a : Assumption
        An assumption that moves a field.

    Returns
    -------
    lo : float
        Lowest allowed value, -inf when unbounded [the field's unit].
    hi : float
        Highest allowed value, inf when unbounded [the field's unit].
    """
    meta = field_meta(a.field())
    lo = meta.get("ge", meta.get("gt", -np.inf))
    hi = meta.get("le", meta.get("lt", np.inf))
    if "gt" in meta:
        lo = float(np.nextafter(lo, np.inf))
    if "lt" in meta:
        hi = float(np.nextafter(hi, -np.inf))
    return float(lo), float(hi)


def value_bounds(s: Scenario, key: str) -> tuple[float, float]:
    """The values an assumption may take in this scenario.

    Parameters
    ----------
    s : Scenario
        Scenario (resale fractions, spot job shape).
    key : str
        Assumption key, e.g. ``"failure_rate"``.

    Returns
    -------
    lo : float
        Lowest value [the assumption's unit].
    hi : float
        Highest value [the assumption's unit]: the field's bounds; resale up to the multiplier
        that takes the highest fraction to 1; commitment shifts within [-1, 1]; the failure rate
        at most :func:`feasible_failure_rate`.
    """
    a = BY_KEY[key]
    if key == "resale_value":
        top = max(s.owned.resale_fraction_by_year)
        return 0.0, (1.0 / top if top > 0 else 1.0)
    if key == "commitment_discount":
        return -1.0, 1.0            # every offer's discount is then kept in [0, 0.999]
    lo, hi = field_bounds(a)
    if key == "failure_rate":
        hi = min(hi, feasible_failure_rate(s))
    return lo, hi


def feasible_failure_rate(s: Scenario) -> float:
    """The largest failure rate at which interruptible gang jobs still finish.

    Parameters
    ----------
    s : Scenario
        The scenario (its ``spot`` job shape).

    Returns
    -------
    float
        Failure rate [failures per server-year].

    Notes
    -----
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

    top = field_bounds(BY_KEY["failure_rate"])[1]
    if waste(top) < 1:
        return top
    lo, hi = 0.0, top
    for _ in range(100):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if waste(mid) < 1 else (lo, mid)
    return lo


def to_value(s: Scenario, key: str, change: np.ndarray | float) -> np.ndarray:
    """The assumption's value for a change from the base, clipped to its bounds.

    Parameters
    ----------
    s : Scenario
        Scenario holding the base value.
    key : str
        Assumption key (relative or absolute range).
    change : numpy.ndarray or float
        Change from the base: a fraction of it for a relative assumption, else added to it
        [fraction of base, or the assumption's unit].

    Returns
    -------
    numpy.ndarray
        The value [the assumption's unit], shape of ``change``.
    """
    a, base = BY_KEY[key], base_value(s, key)
    value = base * (1.0 + np.asarray(change, float)) if a.relative else base + np.asarray(
        change, float)
    return np.clip(value, *value_bounds(s, key))


def low_high(s: Scenario, key: str) -> tuple[float, float]:
    u = s.uncertainty
    return (float(to_value(s, key, getattr(u, f"{key}_low"))),
            float(to_value(s, key, getattr(u, f"{key}_high"))))


def with_values(s: Scenario, values: dict[str, float]) -> Scenario:
    """A what-if copy of the scenario with some assumptions at the given values, revalidated.

    Parameters
    ----------
    s : Scenario
        Scenario to copy.
    values : dict of str to float
        Assumption to its value [the assumption's unit]; assumptions that do not apply are
        ignored.

    Returns
    -------
    Scenario
        The copy.
    """
    changes: dict[str, dict] = {}
    for key, value in values.items():
        if not applies(s, key):
            continue
        value = float(value)
        a = BY_KEY[key]
        if a.path is not None:
            section, name = a.path.split(".")
            changes.setdefault(section, {})[name] = value
        elif key == "resale_value":
            changes.setdefault("owned", {})["resale_fraction_by_year"] = tuple(
                min(1.0, f * value) for f in s.owned.resale_fraction_by_year)
        else:  # commitment_discount: a shift of every offer's discount
            changes["commitments"] = [o.model_dump() | {"discount": float(offer_discount(
                o.discount, value))} for o in s.commitments]  # type: ignore[assignment]
    return s.with_changes(**changes)


def offer_discount(discount: float, shift: float | np.ndarray) -> np.ndarray:
    """An offer's discount after a shift, kept in [0, 0.999].

    Parameters
    ----------
    discount : float
        The offer's discount off on demand [fraction].
    shift : float or numpy.ndarray
        Points added to it [fraction].

    Returns
    -------
    numpy.ndarray
        Discount [fraction], shape of ``shift``.
    """
    return np.clip(discount + np.asarray(shift, float), 0.0, 0.999)


def inverse_cdf(u: np.ndarray, low: float, high: float, shape: str) -> np.ndarray:
    """Change from the base at cumulative probability u.

    Parameters
    ----------
    u : numpy.ndarray
        Cumulative probabilities in [0, 1] [-].
    low : float
        Low end of the range, a change from the base (<= 0).
    high : float
        High end of the range, a change from the base (>= 0).
    shape : {'triangular', 'lognormal'}
        Distribution, with the base as its mode (triangular) or its median (log-normal).

    Returns
    -------
    numpy.ndarray
        Changes from the base [unit of ``low`` and ``high``], shape of ``u``; zeros for an
        empty range.

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
    """Values of every assumption in each draw.

    Parameters
    ----------
    s : Scenario
        The scenario, with its ``uncertainty`` ranges.
    draws : int
        Number of draws.
    seed : int
        Seed of the random generator: the same seed gives the same draws.

    Returns
    -------
    dict of str to numpy.ndarray
        Assumption key to its values [the assumption's unit, (draws,)].

    Notes
    -----
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
