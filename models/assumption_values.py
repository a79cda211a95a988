"""The values of the key assumptions in a scenario (design 5.4, issue 7): each one's base value,
its field's bounds and the bounds a value may take, the failure rate a spot plan stays
feasible under, the value at a change from the base (relative: base x (1 + change); absolute:
base + change), its low and high, and the scenario with a set of values put in.

Separate from the list of assumptions (models.assumptions) and from the draws
(models.assumption_sampling): the tornado moves these values one at a time, the Monte Carlo
many at once, and the price book reads a drawn offer discount here.
"""
from __future__ import annotations

import numpy as np

from models.assumptions import BY_KEY, Assumption, applies, assumption
from models.checkpoint import HOURS_PER_YEAR, waste_fraction
from models.fields import field_meta
from models.scenario import Scenario
from models.scenario_owned import type_owned


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
