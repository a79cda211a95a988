"""The key assumptions of a plan, their ranges and distributions (design 5.4, issue 7).

Each assumption names what it moves by a scenario field path; ``scenario.uncertainty.ranges``
gives its range by that path (models/ranges.py holds the names and paths) as a change from the
base (relative: base x (1 + change); absolute: base + change). Draws are made by the
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
from models.ranges import RANGES, RangeSpec
from models.scenario import Scenario, Uncertainty
from models.scenario_owned import type_owned

STRATA = 8  # failure and spot-interruption draws: midpoints of equal-probability strata


@dataclass(frozen=True)
class Assumption:
    """A key assumption: its range's name and path (models/ranges.RANGES) and how it moves."""

    spec: RangeSpec
    stratified: bool = False     # changes demand tables or waste: drawn from a few strata
    # the two that move no single field: a multiplier of the resale fractions, points added
    # to every offer's discount; their label and unit say so
    label_unit: Optional[tuple[str, str]] = None
    server_type: Optional[str] = None   # a fleet's type whose field it moves (issue 26)

    @property
    def key(self) -> str:
        """The assumption's short name, as the tornado and the draws name it.

        Returns
        -------
        str
            E.g. ``"server_price"`` (models/ranges.py RANGES); ``"server_price@b200"`` for
            one server type of a fleet.
        """
        return self.spec.key if self.server_type is None else \
            f"{self.spec.key}{TYPE_SEP}{self.server_type}"

    @property
    def path(self) -> str:
        """The scenario field path the assumption moves, its key in ``uncertainty.ranges``.

        Returns
        -------
        str
            E.g. ``"owned.server_price"``; ``"owned.resale_fraction_by_year"`` (a multiplier)
            and ``"commitments[*].discount"`` (points added) for the two without one field.
        """
        return self.spec.path

    @property
    def relative(self) -> bool:
        """Whether the range is a fraction of the base value (else it is added to it).

        Returns
        -------
        bool
            True: value = base x (1 + change); False: value = base + change.

        Notes
        -----
        Relative: value = base x (1 + change); else value = base + change.
        """
        return self.spec.relative

    def field(self):
        """The pydantic field of the scenario value the assumption moves.

        Returns
        -------
        pydantic.fields.FieldInfo
            The field with its label, unit and bounds (not for the two assumptions without
            one field: resale_value, commitment_discount).
        """
        section, name = self.path.split(".")
        return Scenario.model_fields[section].annotation.model_fields[name]

    @property
    def label(self) -> str:
        """The assumption's label in English (the catalogs translate it).

        Returns
        -------
        str
            The moved field's label, or the label of the two without one field.
        """
        return self.label_unit[0] if self.label_unit else field_meta(self.field())["label"]

    @property
    def unit(self) -> str:
        """The unit of the assumption's value.

        Returns
        -------
        str
            The moved field's unit, or the unit of the two without one field.
        """
        return self.label_unit[1] if self.label_unit else field_meta(self.field())["unit"]


TYPE_SEP = "@"
# a fleet (issue 26): each server type's price and throughput move on their own, each with
# the range of the owned field; the fleet-wide server price gives way to them
PER_TYPE = ("server_price", "relative_throughput")
STRATIFIED = ("spot_interruptions", "failure_rate")
WITHOUT_FIELD = {"resale_value": ("Resale value", "multiple of the base resale fractions"),
                 "commitment_discount": ("Commitment discounts",
                                         "points added to every offer's discount")}
# in the order of RANGES, which is the order of the Monte Carlo's random streams
ASSUMPTIONS = tuple(Assumption(spec, spec.key in STRATIFIED, WITHOUT_FIELD.get(spec.key))
                    for spec in RANGES)
BY_KEY = {a.key: a for a in ASSUMPTIONS}


def assumption(key: str) -> Assumption:
    """The assumption a key names, a server type's own included.

    Parameters
    ----------
    key : str
        ``"server_price"``, or ``"server_price@b200"`` for one type of a fleet.

    Returns
    -------
    Assumption
        Its range, label and unit; a type's carries the type's id.

    Raises
    ------
    KeyError
        No such assumption.
    """
    if key in BY_KEY:
        return BY_KEY[key]
    name, sep, type_id = key.partition(TYPE_SEP)
    if not sep or name not in PER_TYPE or not type_id:
        raise KeyError(key)
    return Assumption(BY_KEY[name].spec, server_type=type_id)


def per_type(s: Scenario) -> tuple[Assumption, ...]:
    """A fleet's assumptions of each server type, in the scenario's order of types.

    Parameters
    ----------
    s : Scenario
        The scenario.

    Returns
    -------
    tuple of Assumption
        Price and throughput of each type; none without ``server_types``.
    """
    return tuple(Assumption(BY_KEY[name].spec, server_type=t.id)
                 for t in s.server_types for name in PER_TYPE)


def assumptions_for(s: Scenario) -> tuple[Assumption, ...]:
    """The assumptions that can move this scenario's plan: the tornado's rows.

    Parameters
    ----------
    s : Scenario
        The scenario.

    Returns
    -------
    tuple of Assumption
        Those of ``ASSUMPTIONS`` that apply, then each server type's (:func:`per_type`).
    """
    return tuple(a for a in ASSUMPTIONS if applies(s, a.key)) + per_type(s)


def _type_owned(s: Scenario, type_id: str):
    t = next(t for t in s.server_types if t.id == type_id)
    return type_owned(s.owned, t)


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

    Notes
    -----
    b = the scenario's field value (a server type's own for a type's assumption); b = 1 for the
    resale multiplier and for the exchange rate of a plan in one currency; b = 0 for the
    commitment discount shift.
    """
    a = assumption(key)
    if a.label_unit is not None:
        return 1.0 if key == "resale_value" else 0.0
    section, name = a.path.split(".")
    holder = getattr(s, section) if a.server_type is None else _type_owned(s, a.server_type)
    value = getattr(holder, name)
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
        False for the exchange rate of a plan that converts no currency; for a fleet's
        server price as a whole (each type's moves instead) and a throughput not of a type.
    """
    a = assumption(key)
    if a.server_type is not None:
        return any(t.id == a.server_type for t in s.server_types)
    if key == "relative_throughput":
        return False
    if key == "server_price":
        return not s.server_types
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

    Notes
    -----
    lo = ``ge`` (or the next float above ``gt``), else -inf; hi = ``le`` (or the next float below
    ``lt``), else inf [the field's unit].
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

    Notes
    -----
    resale multiplier: [0, 1 / max_k f_k] (f_k the year-end fractions; 1 when all are 0);
    commitment shift: [-1, 1]; failure rate: hi = min(field's hi, :func:`feasible_failure_rate`);
    otherwise (lo, hi) = :func:`field_bounds`.
    """
    a = assumption(key)
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
    f* = the top of the field's bounds when the waste w(f) < 1 there, else the bisection root
    (100 halvings of [0, top]) of w(f) = 1, w the failure waste of
    :func:`models.checkpoint.waste_fraction` at unnoticed rate f / 8760 [failures per
    server-year]. Above it the engine refuses to plan (failures waste all the time, design 4.4),
    so a range that reaches past it is cut there rather than making the whole plan fail.
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

    Notes
    -----
    v = clip(b (1 + change), lo, hi) for a relative range, else clip(b + change, lo, hi), with b =
    :func:`base_value` and (lo, hi) = :func:`value_bounds`.
    """
    a, base = assumption(key), base_value(s, key)
    value = base * (1.0 + np.asarray(change, float)) if a.relative else base + np.asarray(
        change, float)
    return np.clip(value, *value_bounds(s, key))


def low_high(s: Scenario, key: str) -> tuple[float, float]:
    """The assumption's values at the two ends of its range, clipped to the field's bounds.

    Parameters
    ----------
    s : Scenario
        The scenario whose own value is the base and whose ``uncertainty.ranges`` give the
        changes.
    key : str
        The assumption (models/ranges.py RANGES), e.g. ``"server_price"``.

    Returns
    -------
    tuple of float
        (value at the low end, value at the high end) [the unit of the assumption].

    Notes
    -----
    (low, high) = (:func:`to_value` (r_low), :func:`to_value` (r_high)), r the assumption's range
    in ``uncertainty.ranges``.
    """
    r = s.uncertainty.ranges[assumption(key).path]
    return float(to_value(s, key, r.low)), float(to_value(s, key, r.high))


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

    Notes
    -----
    A field's value v is set as is; resale: f_k' = min(1, f_k v) for each year-end fraction;
    commitment shift: d_o' = :func:`offer_discount` (d_o, v) for each offer o.
    """
    changes: dict[str, dict] = {}
    types = {t.id: t.model_dump() for t in s.server_types}
    for key, value in values.items():
        if not applies(s, key):
            continue
        value = float(value)
        a = assumption(key)
        if a.server_type is not None:
            types[a.server_type][a.path.split(".")[1]] = value
            changes["server_types"] = list(types.values())   # type: ignore[assignment]
        elif a.label_unit is None:
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

    Notes
    -----
    d' = clip(d + shift, 0, 0.999), d the offer's discount [fraction], shift the drawn change
    [fraction].
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
