"""Uncertainty ranges: a mapping from a scenario field path to its range (design 5.4, issue 7).

``scenario.uncertainty.ranges`` maps the path of what an assumption moves
(``"owned.server_price"``, ``"fx.rate"``; ``"owned.resale_fraction_by_year"`` for the resale
multiplier, ``"commitments[*].discount"`` for the points added to every offer's discount) to a
range: ``low`` and ``high`` as a change from the scenario's own value and, where the assumption
has one, the Monte Carlo ``distribution``. Each path has its own range model, so the bounds,
unit, label, source and default of every end stay on one pydantic field.

``RANGES`` is the only table of the assumptions' names: ``key`` is the name the plan document
uses (tornado rows, draws), ``path`` the field it moves. Scenarios saved before the mapping
existed have flat keys (``server_price_low``); :func:`upgrade_flat_keys` turns them into the
mapping when they are read.
"""
from __future__ import annotations

import re
import typing
from dataclasses import dataclass
from typing import Any, Iterator, Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, create_model, model_validator

from models.fields import SECTION_CONFIG, field

Distribution = Literal["triangular", "lognormal"]
REL, POINTS = "fraction of base", "added to base"
CATALOG_H100 = ("SkyPilot catalog, 8x H100 on demand per GPU-hour: Nebius $2.95, Lambda $3.99, "
                "AWS $6.88, GCP us-east4 GPU-only $9.80")
ENDS = ("low", "high", "distribution")


@dataclass(frozen=True)
class End:
    """One end of a range: its default change from the base, its source and its outer bound."""

    default: float
    source: str
    bound: float      # the floor of a low end (<= 0), the ceiling of a high end (>= 0)


@dataclass(frozen=True)
class RangeSpec:
    key: str                   # the assumption's name in the plan document ("server_price")
    path: str                  # the scenario field it moves ("owned.server_price")
    what: str                  # label of the range ("Server price"); ends add ": low"...
    relative: bool             # base x (1 + change), else base + change
    low: End
    high: End
    distribution: Optional[Distribution]   # None: always triangular, and no field for it
    unit: str


# One line per assumption, in the order of the Monte Carlo's random streams: a new assumption
# goes last, so that every earlier assumption's draws stay as they were for the same seed.
NAMES = (  # key, the path it moves, label
    ("on_demand_price", "on_demand.price_per_gpu_hour", "On-demand price"),
    ("on_demand_trend", "on_demand.price_trend_annual", "On-demand price trend"),
    ("hardware_trend", "owned.hardware_price_trend_annual", "Hardware price trend"),
    ("server_price", "owned.server_price", "Server price"),
    ("electricity_price", "owned.electricity_price_per_kwh", "Electricity price"),
    ("pue", "owned.pue", "PUE"),
    ("demand_growth", "profile.growth_annual", "Demand growth"),
    ("discount_rate", "finance.discount_rate_annual", "Discount rate"),
    ("resale_value", "owned.resale_fraction_by_year", "Resale value"),   # a multiplier
    ("availability", "owned.availability", "Availability"),
    ("spot_discount", "spot.discount", "Spot discount"),
    ("spot_interruptions", "spot.interruptions_per_instance_hour", "Spot interruption rate"),
    ("commitment_discount", "commitments[*].discount", "Commitment discounts"),   # points
    ("failure_rate", "owned.failures_per_server_year", "Failure rate"),
    ("fx_rate", "fx.rate", "Exchange rate"),
    # issue 26: moves each server type of a fleet on its own (models/assumptions.py)
    ("relative_throughput", "owned.relative_throughput", "Relative throughput"),
)
# low default, its floor, high default, its ceiling; then the Monte Carlo distribution of a
# relative range, or the unit of an absolute one (always triangular)
WIDTHS = {
    "on_demand_price": (-0.42, -0.99, 0.10, 10, "triangular"),
    "on_demand_trend": (-0.20, -0.9, 0.05, 1, f"per year, {POINTS}"),
    "hardware_trend": (-0.20, -0.9, 0.05, 1, f"per year, {POINTS}"),
    "server_price": (-0.10, -0.99, 0.06, 10, "triangular"),
    "electricity_price": (-0.25, -0.99, 0.50, 10, "lognormal"),
    "pue": (-0.20, -2, 0.26, 2, f"ratio, {POINTS}"),
    "demand_growth": (-0.20, -0.9, 0.30, 10, f"per year, {POINTS}"),
    "discount_rate": (-0.04, -1, 0.05, 1, f"per year, {POINTS}"),
    "resale_value": (-0.50, -1, 0.30, 10, "triangular"),
    "availability": (-0.04, -1, 0.005, 1, f"fraction of hours, {POINTS}"),
    "spot_discount": (-0.05, -1, 0.10, 1, f"fraction, {POINTS}"),
    "spot_interruptions": (-0.90, -1, 2.0, 100, "lognormal"),
    "commitment_discount": (-0.10, -1, 0.05, 1, f"fraction, {POINTS} of every offer"),
    "failure_rate": (-0.50, -1, 1.0, 100, "triangular"),
    "fx_rate": (-0.10, -0.99, 0.10, 10, "lognormal"),
    "relative_throughput": (-0.15, -0.99, 0.05, 10, "triangular"),
}
SOURCES = {  # of the low default and of the high default
    "on_demand_price": (CATALOG_H100 + ": Lambda is 42 % below AWS",
                        CATALOG_H100 + " (scarcity premium, estimate)"),
    "on_demand_trend": ("AWS cut P5 prices by up to 45 % (June 2025)", "estimate"),
    "hardware_trend": ("estimate; moves with the on-demand trend", "estimate"),
    "server_price": ("8x H100 quotes span $270k-$317k around $300k",) * 2,
    "electricity_price": ("EIA state industrial averages around the 2023 US average "
                          "$0.0806/kWh (estimate)",
                          "EIA state industrial averages reach $0.12+/kWh"),
    "pue": ("new AI halls < 1.3", "industry average 1.56 (Uptime Institute 2024)"),
    "demand_growth": ("estimate",) * 2,
    "discount_rate": ("corporate hurdle rates 6-15 % (estimate)",) * 2,
    "resale_value": ("market reports (low confidence)",) * 2,
    "availability": ("estimate around Llama 3's 99 %",) * 2,
    "spot_discount": ("catalog AWS p5 spot $1.41-$2.20 vs $6.88 on demand",) * 2,
    "spot_interruptions": ("AWS Spot Advisor '< 5 %' monthly bucket",
                           "estimate: scarcest GPU pools"),
    "commitment_discount": ("estimate: published 1- and 3-year GPU discounts vary by about 10 "
                            "points", "estimate"),
    "failure_rate": ("estimate around Llama 3's 1.4 per server-year",
                     "estimate: older fleets fail more"),
    "fx_rate": ("estimate: KRW per USD moved about 10 % within a year in 2022-2025",) * 2,
    "relative_throughput": ("estimate: a new generation's delivered speed-up on one's own "
                            "models often falls short of the vendor's figure",
                            "estimate: software maturing on the new generation"),
}


def _spec(key: str, path: str, what: str) -> RangeSpec:
    low, floor, high, ceiling, kind = WIDTHS[key]
    low_source, high_source = SOURCES[key]
    relative = kind in typing.get_args(Distribution)
    return RangeSpec(key, path, what, relative, End(low, low_source, floor),
                     End(high, high_source, ceiling), kind if relative else None,
                     REL if relative else kind)


RANGES = tuple(_spec(*names) for names in NAMES)
BY_PATH = {spec.path: spec for spec in RANGES}


def _low(spec: RangeSpec) -> Any:
    """The low end of a range, as a change from the base (<= 0)."""
    return field(spec.low.default, f"{spec.what}: low", spec.unit, "Tornado low value and "
                 "lower bound of the Monte Carlo distribution, as a change from the base.",
                 spec.low.source, ge=spec.low.bound, le=0)


def _high(spec: RangeSpec) -> Any:
    """The high end of a range, as a change from the base (>= 0)."""
    return field(spec.high.default, f"{spec.what}: high", spec.unit, "Tornado high value and "
                 "upper bound of the Monte Carlo distribution, as a change from the base.",
                 spec.high.source, guard=("le",) if spec.high.bound >= 10 else (), ge=0,
                 le=spec.high.bound)


def _shape(spec: RangeSpec) -> Any:
    return field(spec.distribution, f"{spec.what}: distribution", "triangular | lognormal",
                 "triangular(low, base, high), or a log-normal multiplier with median 1 "
                 "truncated to [low, high], sigma = half the wider side in log space.")


class Range(BaseModel):
    """A range as a change from the base; subclasses carry each assumption's bounds."""

    model_config = SECTION_CONFIG

    low: float
    high: float

    @property
    def shape(self) -> Distribution:
        """The Monte Carlo distribution (triangular where the range has no field for it)."""
        return getattr(self, "distribution", "triangular")


def _camel(key: str) -> str:
    return "".join(part.title() for part in key.split("_"))


def _range_model(spec: RangeSpec) -> type[Range]:
    fields: dict[str, Any] = {"low": (float, _low(spec)), "high": (float, _high(spec))}
    if spec.distribution is not None:
        fields["distribution"] = (Distribution, _shape(spec))
    return create_model(f"{_camel(spec.key)}Range", __base__=Range,
                        __doc__=f"Range of {spec.path} ({spec.key}).", **fields)


RANGE_MODELS = {spec.path: _range_model(spec) for spec in RANGES}


class _RangesBase(BaseModel):
    """The mapping's behaviour; the fields (one per path, aliased by it) come from RANGES."""

    # read and written by path only: {"owned.server_price": {...}}
    model_config = ConfigDict(**SECTION_CONFIG, validate_by_alias=True, validate_by_name=False,
                              serialize_by_alias=True)

    @model_validator(mode="before")
    @classmethod
    def _known_paths(cls, data: Any) -> Any:
        if isinstance(data, dict):
            unknown = [k for k in data if k not in BY_PATH]
            if unknown:
                raise ValueError(f"unknown range path {str(unknown[0])[:100]!r}; the paths that "
                                 f"have a range are {', '.join(BY_PATH)}")
        return data

    def __getitem__(self, path: str) -> Range:
        return getattr(self, BY_PATH[path].key)

    def items(self) -> Iterator[tuple[str, Range]]:
        """(path, range) in the order of RANGES."""
        return ((spec.path, getattr(self, spec.key)) for spec in RANGES)


Ranges = create_model(
    "Ranges", __base__=_RangesBase,
    __doc__="Range of each key assumption, by the scenario field path it moves.",
    **{spec.key: (RANGE_MODELS[spec.path], Field(default_factory=RANGE_MODELS[spec.path],
                                                 alias=spec.path))
       for spec in RANGES})

FLAT_KEY = re.compile(r"^(?P<key>[a-z_]+?)_(?P<end>low|high|distribution)$")
BY_KEY = {spec.key: spec for spec in RANGES}


def flat_key(name: str) -> Optional[tuple[RangeSpec, str]]:
    """The range and end a flat key of before the mapping names.

    Parameters
    ----------
    name : str
        A key of the uncertainty section, e.g. ``"server_price_low"``.

    Returns
    -------
    tuple of (RangeSpec, str) or None
        (range, "low" | "high" | "distribution"); None when ``name`` is no flat range key.
    """
    m = FLAT_KEY.match(name)
    spec = BY_KEY.get(m.group("key")) if m else None
    if spec is None or (m.group("end") == "distribution" and spec.distribution is None):
        return None
    return spec, m.group("end")


def upgrade_flat_keys(data: Any) -> Any:
    """An uncertainty section with the flat keys of before the mapping as ``ranges`` by path.

    Parameters
    ----------
    data : Any
        The section as read (``{"server_price_low": -0.1, ...}``); anything not a dict is
        returned as it is, for the model to refuse.

    Returns
    -------
    Any
        The section with each flat key (``server_price_low``, ``electricity_price_distribution``)
        moved into ``ranges`` under its path. A flat key updates the range already given for
        its path (``Scenario.with_changes`` merges one into a dump); keys that are not a flat
        range key are left for the model to refuse.
    """
    if not isinstance(data, dict):
        return data
    ranges = data.get("ranges", {})
    if not isinstance(ranges, dict):
        return data
    out: dict[str, Any] = {}
    moved: dict[str, dict[str, Any]] = {}
    for name, value in data.items():
        found = flat_key(name)
        if found is None:
            out[name] = value
            continue
        moved.setdefault(found[0].path, {})[found[1]] = value
    if not moved:
        return data
    merged = {path: dict(given) if isinstance(given, dict) else given
              for path, given in ranges.items()}
    for path, ends in moved.items():
        given = merged.get(path, {})
        merged[path] = {**given, **ends} if isinstance(given, dict) else ends
    out["ranges"] = merged
    return out


def legacy_path(path: str) -> str:
    """A dotted path of before the mapping as it is now.

    Parameters
    ----------
    path : str
        A dotted scenario path, e.g. ``"uncertainty.server_price_low"`` (stored review
        comments name paths of before the mapping).

    Returns
    -------
    str
        ``"uncertainty.ranges.owned.server_price.low"`` for a flat range key; any other path
        unchanged.
    """
    head, _, name = path.partition(".")
    found = flat_key(name) if head == "uncertainty" else None
    return f"uncertainty.ranges.{found[0].path}.{found[1]}" if found else path


class Uncertainty(BaseModel):
    """Ranges and distributions of the key assumptions (design 5.4, issue 7).

    Each range is a change from the scenario's own value: relative ones (unit "fraction of
    base") give base x (1 + change), absolute ones ("added to base") base + change. The tornado
    uses the two ends; the Monte Carlo draws between them. Values are clipped to the bounds of
    the scenario field they change.
    """

    model_config = SECTION_CONFIG

    draws: int = field(2_000, "Monte Carlo draws", "draws", "0 turns the section off.",
                       "P50 moves < 1 % between 5,000 and 10,000 draws on the sample usage",
                       ge=0, le=20_000)
    seed: int = field(1, "Random seed", "integer", "Same seed, same draws.", guard=("le",), ge=0,
                      le=2**32 - 1)
    histogram_bins: int = field(20, "Histogram bins", "bins", ge=2, le=200)
    trend_correlation: float = field(
        0.6, "Cloud and hardware price trend correlation", "Gaussian copula rho",
        "Cloud GPU prices and server prices fall together when a new GPU generation ships.",
        "estimate", ge=-1, le=1)
    ranges: Ranges = Field(  # type: ignore[valid-type]
        default_factory=Ranges, title="Uncertainty ranges",
        description="Range of each key assumption by the path of the scenario field it moves "
                    "(owned.server_price); paths not given keep their default range.")

    @model_validator(mode="before")
    @classmethod
    def _flat_keys(cls, data: Any) -> Any:
        return upgrade_flat_keys(data)
