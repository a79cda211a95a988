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
    distribution: Optional[Distribution] = None   # None: always triangular, no field
    scale: str = ""            # unit of an absolute change before ", added to base"
    suffix: str = ""           # words after "added to base" (" of every offer")

    @property
    def unit(self) -> str:
        return REL if self.relative else f"{self.scale}, {POINTS}{self.suffix}"


def _same(default: float, source: str, bound: float, default_high: float, bound_high: float
          ) -> tuple[End, End]:
    """Both ends from one source."""
    return End(default, source, bound), End(default_high, source, bound_high)


def _spec(key: str, path: str, what: str, ends: tuple[End, End], *, relative: bool,
          distribution: Optional[Distribution] = None, scale: str = "", suffix: str = ""
          ) -> RangeSpec:
    return RangeSpec(key, path, what, relative, ends[0], ends[1], distribution, scale, suffix)


# In the order of the Monte Carlo's random streams: a new assumption goes last, so that every
# earlier assumption's draws stay as they were for the same seed.
RANGES = (
    _spec("on_demand_price", "on_demand.price_per_gpu_hour", "On-demand price",
          (End(-0.42, CATALOG_H100 + ": Lambda is 42 % below AWS", -0.99),
           End(0.10, CATALOG_H100 + " (scarcity premium, estimate)", 10)),
          relative=True, distribution="triangular"),
    _spec("on_demand_trend", "on_demand.price_trend_annual", "On-demand price trend",
          (End(-0.20, "AWS cut P5 prices by up to 45 % (June 2025)", -0.9),
           End(0.05, "estimate", 1)), relative=False, scale="per year"),
    _spec("hardware_trend", "owned.hardware_price_trend_annual", "Hardware price trend",
          (End(-0.20, "estimate; moves with the on-demand trend", -0.9),
           End(0.05, "estimate", 1)), relative=False, scale="per year"),
    _spec("server_price", "owned.server_price", "Server price",
          _same(-0.10, "8x H100 quotes span $270k-$317k around $300k", -0.99, 0.06, 10),
          relative=True, distribution="triangular"),
    _spec("electricity_price", "owned.electricity_price_per_kwh", "Electricity price",
          (End(-0.25, "EIA state industrial averages around the 2023 US average "
                      "$0.0806/kWh (estimate)", -0.99),
           End(0.50, "EIA state industrial averages reach $0.12+/kWh", 10)),
          relative=True, distribution="lognormal"),
    _spec("pue", "owned.pue", "PUE",
          (End(-0.20, "new AI halls < 1.3", -2),
           End(0.26, "industry average 1.56 (Uptime Institute 2024)", 2)),
          relative=False, scale="ratio"),
    _spec("demand_growth", "profile.growth_annual", "Demand growth",
          _same(-0.20, "estimate", -0.9, 0.30, 10), relative=False, scale="per year"),
    _spec("discount_rate", "finance.discount_rate_annual", "Discount rate",
          _same(-0.04, "corporate hurdle rates 6-15 % (estimate)", -1, 0.05, 1),
          relative=False, scale="per year"),
    _spec("resale_value", "owned.resale_fraction_by_year", "Resale value",
          _same(-0.50, "market reports (low confidence)", -1, 0.30, 10),
          relative=True, distribution="triangular"),
    _spec("availability", "owned.availability", "Availability",
          _same(-0.04, "estimate around Llama 3's 99 %", -1, 0.005, 1),
          relative=False, scale="fraction of hours"),
    _spec("spot_discount", "spot.discount", "Spot discount",
          _same(-0.05, "catalog AWS p5 spot $1.41-$2.20 vs $6.88 on demand", -1, 0.10, 1),
          relative=False, scale="fraction"),
    _spec("spot_interruptions", "spot.interruptions_per_instance_hour", "Spot interruption rate",
          (End(-0.90, "AWS Spot Advisor '< 5 %' monthly bucket", -1),
           End(2.0, "estimate: scarcest GPU pools", 100)),
          relative=True, distribution="lognormal"),
    _spec("commitment_discount", "commitments[*].discount", "Commitment discounts",
          (End(-0.10, "estimate: published 1- and 3-year GPU discounts vary by about 10 "
                      "points", -1),
           End(0.05, "estimate", 1)),
          relative=False, scale="fraction", suffix=" of every offer"),
    _spec("failure_rate", "owned.failures_per_server_year", "Failure rate",
          (End(-0.50, "estimate around Llama 3's 1.4 per server-year", -1),
           End(1.0, "estimate: older fleets fail more", 100)),
          relative=True, distribution="triangular"),
    _spec("fx_rate", "fx.rate", "Exchange rate",
          _same(-0.10, "estimate: KRW per USD moved about 10 % within a year in 2022-2025",
                -0.99, 0.10, 10),
          relative=True, distribution="lognormal"),
)
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
                 spec.high.source, ge=0, le=spec.high.bound)


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
                raise ValueError(f"unknown range path {unknown[0][:100]!r}; the paths that have a "
                                 f"range are {', '.join(BY_PATH)}")
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
    """(range, end) of a flat key of before the mapping ("server_price_low"), else None."""
    m = FLAT_KEY.match(name)
    spec = BY_KEY.get(m.group("key")) if m else None
    if spec is None or (m.group("end") == "distribution" and spec.distribution is None):
        return None
    return spec, m.group("end")


def upgrade_flat_keys(data: Any) -> Any:
    """An uncertainty section with the flat keys of before the mapping (``server_price_low``,
    ``electricity_price_distribution``) as ``ranges`` by path; a flat key updates the range
    already given for its path (``Scenario.with_changes`` merges one into a dump). Keys that
    are not a flat range key are left for the model to refuse."""
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
    """A dotted path of before the mapping (``uncertainty.server_price_low``) as it is now
    (``uncertainty.ranges.owned.server_price.low``); any other path unchanged."""
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
                       "P50 moves < 1 % between 5,000 and 10,000 draws on the sample (tests)",
                       ge=0, le=20_000)
    seed: int = field(1, "Random seed", "integer", "Same seed, same draws.", ge=0,
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
