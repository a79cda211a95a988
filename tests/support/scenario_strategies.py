"""Hypothesis strategies that draw scenarios from the whole pydantic schema, extremes included,
and usage profiles of awkward shapes (issue 11 item A.2).

Every numeric field is drawn from its own bounds (``ge``/``gt``/``le``/``lt`` of
models.fields.field_meta): often an end of the range, otherwise anywhere inside it. The few
cross-field rules of the schema are respected by construction (idle power <= maximum power,
resale fractions that do not increase, proposed commitments in whole blocks of existing offers).
Caps that keep one example fast are named in CAPS.
"""
from __future__ import annotations

import math
import typing

import numpy as np
from hypothesis import strategies as st
from pydantic import BaseModel

from models.fields import field_meta
from models.profile import UsageProfile
from models.scenario import Scenario
from models.scenario_cloud import CommitmentOffer
from models.scenario_owned import LoanFinancing
from models.scenario_settings import FX

# fields whose full range would make one example take minutes, not their validity
CAPS = {"uncertainty.draws": 60, "finance.horizon_months": 60}
SKIP = {"finance.start_month", "name", "uncertainty"}


def number(info, path: str, integer: bool) -> st.SearchStrategy:
    meta = field_meta(info)
    lo = meta.get("ge", meta.get("gt"))
    hi = meta.get("le", meta.get("lt"))
    lo = 0.0 if lo is None else float(lo)
    hi = float(CAPS.get(path, 1e9 if hi is None else hi))
    if "gt" in meta:
        lo = lo + (1 if integer else max(1e-9, abs(lo) * 1e-9))
    if "lt" in meta:
        hi = hi - (1 if integer else max(1e-9, abs(hi) * 1e-9))
    if integer:
        lo, hi = math.ceil(lo), math.floor(hi)
        return st.one_of(st.sampled_from([lo, hi]), st.integers(lo, hi))
    return st.one_of(st.sampled_from([lo, hi]),
                     st.floats(lo, hi, allow_nan=False, allow_infinity=False))


def field_strategy(info, path: str) -> st.SearchStrategy | None:
    annotation = info.annotation
    origin = typing.get_origin(annotation)
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    optional = origin is typing.Union and type(None) in typing.get_args(annotation)
    if optional and len(args) == 1:
        inner = field_strategy_for(args[0], info, path)
        return None if inner is None else st.one_of(st.none(), inner)
    return field_strategy_for(annotation, info, path)


def field_strategy_for(annotation, info, path: str) -> st.SearchStrategy | None:
    if annotation is bool:
        return st.booleans()
    if annotation is int:
        return number(info, path, integer=True)
    if annotation is float:
        return number(info, path, integer=False)
    if typing.get_origin(annotation) is typing.Literal:
        return st.sampled_from(typing.get_args(annotation))
    return None


@st.composite
def section(draw, model: type[BaseModel], prefix: str) -> dict:
    out = {}
    for name, info in model.model_fields.items():
        path = f"{prefix}{name}"
        if path in SKIP:
            continue
        strategy = field_strategy(info, path)
        if strategy is not None and draw(st.booleans()):   # leave some fields at default
            out[name] = draw(strategy)
    return out


@st.composite
def scenarios(draw) -> Scenario:
    data: dict = {"finance": draw(section(Scenario.model_fields["finance"].annotation,
                                          "finance."))}
    data["finance"]["start_month"] = "2027-01"
    owned = draw(section(Scenario.model_fields["owned"].annotation, "owned."))
    high = owned.get("power_kw_max", 10.2)
    owned["power_kw_idle"] = min(owned.get("power_kw_idle", 3.0), high)
    by_year = sorted(draw(st.lists(st.sampled_from([0.0, 0.1, 0.5, 0.9, 1.0]), min_size=1,
                                   max_size=6)), reverse=True)
    owned["resale_fraction_by_year"] = by_year
    if draw(st.booleans()):
        owned["financing"] = {"kind": "loan", **draw(section(LoanFinancing, "loan."))}
    data["owned"] = owned
    for name in ("on_demand", "spot", "cloud_data", "cloud_terms", "profile"):
        data[name] = draw(section(Scenario.model_fields[name].annotation, f"{name}."))
    offers = []
    for i in range(draw(st.integers(0, 3))):
        offer = draw(section(CommitmentOffer, "commitments."))
        offer["id"] = f"c{i}"
        offers.append(offer)
    data["commitments"] = offers
    proposed: dict = {"servers": draw(st.none() | st.integers(0, 40)), "committed_gpus": {}}
    for offer in offers:
        if draw(st.booleans()):
            block = offer.get("block_gpus", CommitmentOffer().block_gpus)
            proposed["committed_gpus"][offer["id"]] = block * draw(st.integers(0, 4))
    data["proposed"] = proposed
    data["uncertainty"] = {"draws": draw(st.sampled_from([0, 0, 20, CAPS["uncertainty.draws"]]))}
    market = draw(st.sampled_from([None, None, "owned", "cloud_terms"]))
    if market is not None:   # one market priced in a foreign currency, at a drawn rate
        data[market]["currency"] = "EUR"
        fx = draw(section(FX, "fx."))
        fx["rate"] = fx.get("rate") or draw(number(FX.model_fields["rate"], "fx.rate", False))
        data["fx"] = fx
    return Scenario.model_validate(data)


SHAPES = ("one hour", "all zero", "single spike", "empty months", "five years", "noisy")


@st.composite
def profiles(draw) -> UsageProfile:
    shape = draw(st.sampled_from(SHAPES))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    level = draw(st.sampled_from([0.001, 1.0, 37.5, 5000.0]))
    if shape == "one hour":
        steady, inter = np.array([level]), np.array([0.0])
    elif shape == "all zero":
        steady = inter = np.zeros(24 * 31)
    elif shape == "single spike":
        steady = np.zeros(24 * 90)
        steady[rng.integers(0, len(steady))] = level
        inter = np.zeros_like(steady)
    elif shape == "empty months":       # whole months without a single GPU-hour
        steady = np.tile(np.r_[np.full(24 * 30, level), np.zeros(24 * 61)], 2)
        inter = steady * rng.uniform(0, 1)
    elif shape == "five years":
        t = np.arange(43_800)
        steady = level * (1 + 0.5 * np.sin(2 * np.pi * t / 24)) * rng.uniform(0.5, 1, len(t))
        inter = level * rng.choice([0.0, 1.0], size=len(t))
    else:
        steady = level * rng.uniform(0, 1, 24 * 60)
        inter = level * rng.uniform(0, 1, 24 * 60) * rng.choice([0, 1], size=24 * 60)
    starts = np.datetime64("2026-01-01T00", "h") + np.arange(len(steady))
    return UsageProfile("hour", starts, steady, inter, has_workload=True)
