"""Draws of the key assumptions (design 5.4, issue 7): by the inverse-CDF method from correlated
uniforms (a Gaussian copula), so a correlation between two assumptions is one line and every
marginal keeps its own shape (triangular or log-normal); failure and spot-interruption draws
from equal-probability strata.

Separate from the assumptions' values (models.assumption_values) because only the Monte Carlo
samples; the tornado reads the low and high values alone.
"""
from __future__ import annotations

import numpy as np
from scipy.special import ndtr, ndtri

from models.assumption_values import to_value
from models.assumptions import ASSUMPTIONS, per_type
from models.ranges import Uncertainty
from models.scenario import Scenario


STRATA = 8  # failure and spot-interruption draws: midpoints of equal-probability strata


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
    For draw i of assumption a: z ~ N(0, 1) per assumption (seeded), with the trend pair
    correlated: z_hw = rho z_od + sqrt(1 - rho^2) z_hw, rho = ``uncertainty.trend_correlation``;
    p = Phi(z), stratified as p = (min(floor(p K), K - 1) + 0.5) / K for a stratified assumption
    (K strata); change = F^-1(p) of the range's distribution (the inverse CDF of models/ranges.py)
    and value = :func:`to_value` (change).
    A Gaussian copula ties the hardware price trend to the on-demand trend; the others are
    independent.
    """
    u: Uncertainty = s.uncertainty
    rng = np.random.default_rng(seed)
    extra = per_type(s)
    # the server types' streams after every other's: the same seed draws the others as before
    z = rng.standard_normal((len(ASSUMPTIONS) + len(extra), draws))
    index = {a.key: i for i, a in enumerate(ASSUMPTIONS)}
    rho = u.trend_correlation
    z[index["hardware_trend"]] = (rho * z[index["on_demand_trend"]]
                                  + np.sqrt(1.0 - rho * rho) * z[index["hardware_trend"]])
    out = {}
    for a, row in zip(ASSUMPTIONS + extra, z):
        p = ndtr(row)
        if a.stratified:
            p = (np.minimum(np.floor(p * STRATA), STRATA - 1) + 0.5) / STRATA
        r = u.ranges[a.path]
        change = inverse_cdf(p, r.low, r.high, r.shape)
        out[a.key] = to_value(s, a.key, change)
    return out
