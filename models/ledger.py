"""The plan's ledger: every month-by-month figure the workbook writes, as plain stored data.

The plan document (models/document.py) is what people read; the ledger is what a spreadsheet
needs to show the same numbers as live formulas: the price book's monthly vectors, each
strategy's volumes, cost lines, tax deductions and data shares, and its cohorts (servers bought
in a month, GPUs committed from a month) with their parameters and monthly columns. It is
built once by the engine (models/ledger_build.py) and stored with the document, so the
workbook is written from stored values without the engine's live state.

Every array is a 1-D float array. :meth:`Ledger.to_dict` gives JSON-ready lists; Python's float
repr round-trips exactly, so a ledger read back from storage is bitwise the one built.
"""
from __future__ import annotations

from dataclasses import MISSING, dataclass, field, fields
from typing import Any, Optional

import numpy as np

# 2: every server cohort has its type, a fleet of one's `owned` too (issue 36)
LEDGER_VERSION = 2
SERVER_ITEMS = ("online", "capex", "loan", "interest", "maint", "dep", "resale", "gain", "loss")
COMMIT_ITEMS = ("gpus", "upfront", "monthly", "prepaid")
SERVER_PARAMS = ("count", "bought", "online", "sold", "price", "install", "basis", "span",
                 "service", "frac", "taken", "principal", "pmt")
COMMIT_PARAMS = ("gpus", "start", "term", "rate", "share", "hours", "upfront", "inside")
# The fields of ``owned`` a server type's cohorts and cost lines are priced with, and the type's
# resale drop at its successor (issue 26): the workbook's Assumptions sheet has each type's
# value of them (the type's override, else ``owned``'s) as ``calc_type_<i>_<field>``.
TYPE_PARAMS = ("gpus_per_server", "server_price", "install_cost_per_server",
               "lead_time_months", "useful_life_months", "power_kw_max", "power_kw_idle", "pue",
               "electricity_price_per_kwh", "space_price_per_kw_month",
               "maintenance_fraction_annual", "servers_per_fte", "fte_cost_annual",
               "hardware_price_trend_annual", "relative_throughput",
               "resale_drop_at_successor")
# where a cohort row's inputs live in the workbook
ORIGINS = ("position", "decision", "chain", "engine")


@dataclass(frozen=True)
class CohortRow:
    """One cohort of a strategy: its parameters and its monthly columns.

    ``kind`` is ``"server"`` (parameters ``SERVER_PARAMS``, columns ``SERVER_ITEMS``, for the
    cohort's whole count) or ``"commitment"`` (``COMMIT_PARAMS``, ``COMMIT_ITEMS``, ``offer``
    set). ``origin`` says where its inputs are: a row of ``position`` (``ref`` its 1-based
    index), a decision row of a schedule (``ref`` its month, 'YYYY-MM'), a generation or
    renewal of a static strategy's chain (``ref`` its 1-based order, a server's among the
    generations of its type), or the engine's own values (``engine``: ``ref`` the 1-based
    position row a held cohort comes from, None for a purchase of a schedule). ``type`` is a
    server cohort's type id (``owned`` for a scenario without server types, a fleet of one:
    issue 36). A ledger stored before issue 36 may hold server cohorts without a type, of
    origin ``position``, ``decision`` or ``chain``: the one type's (service.xlsx reads them
    so).
    """

    kind: str
    origin: str
    ref: Any
    params: dict[str, float]
    monthly: dict[str, np.ndarray]
    offer: Optional[str] = None
    offer_index: Optional[int] = None     # 1-based position of the offer in the scenario
    type: Optional[str] = None            # a server cohort's type id in a fleet (issue 26)


@dataclass(frozen=True)
class ScheduleRow:
    """A decision point of a schedule: its month, what was bought, sold and committed; in a
    fleet of server types also by type id (``buy_by_type``, ``sell_by_type`` [servers])."""

    month: str
    index: int
    buy: int
    sell: int
    commit: dict[str, int]
    buy_by_type: dict[str, int] = field(default_factory=dict)
    sell_by_type: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class StrategyLedger:
    """What a strategy's sheet shows month by month.

    Arrays over the horizon: ``owned_h``, ``committed_h``, ``spot_h``, ``od_h``, ``overhead_h``
    [GPU-hours], ``servers_online`` [servers], ``committed_gpus`` [GPUs], ``data_share``
    [fraction]. Arrays over the months the strategy pays (horizon and tail): every cost line in
    ``lines``, ``total``, ``discounted``, ``deductible``, ``prepaid``, ``taxable_gain``
    [currency]. Cohort columns, and their sums over the cohorts in ``cohort_totals`` (by the
    keys of ``SERVER_ITEMS`` and ``COMMIT_ITEMS``), run over ``rows`` months, the sheet's
    length. ``owned_h_by_type``: owned GPU-hours by type id [GPU-hours of each type,
    (horizon,)]. ``static_servers``: a static decision's servers of every type, by type in
    ``static_servers_by_type`` [servers].
    """

    name: str
    rows: int
    static_servers: int
    static_committed: dict[str, int]
    static_servers_by_type: dict[str, int]
    is_static: bool
    owned_h: np.ndarray
    committed_h: np.ndarray
    spot_h: np.ndarray
    od_h: np.ndarray
    overhead_h: np.ndarray
    servers_online: np.ndarray
    committed_gpus: np.ndarray
    data_share: np.ndarray
    lines: dict[str, np.ndarray]
    total: np.ndarray
    discounted: np.ndarray
    deductible: np.ndarray
    prepaid: np.ndarray
    taxable_gain: np.ndarray
    figures: dict[str, Optional[float]]
    cohort_totals: dict[str, np.ndarray]
    cohorts: tuple[CohortRow, ...] = ()
    schedule_rows: tuple[ScheduleRow, ...] = ()
    sales: bool = False
    owned_h_by_type: dict[str, np.ndarray] = field(default_factory=dict)

    @property
    def cumulative(self) -> np.ndarray:
        """Cumulative net cost by month, nominal [currency].

        Notes
        -----
        C_m = sum_{j<=m} net_j, net the month's costs minus credits [currency].
        """
        return np.cumsum(self.total)

    @property
    def discounted_cumulative(self) -> np.ndarray:
        """Cumulative net cost by month, discounted [currency].

        Notes
        -----
        C_m = sum_{j<=m} discounted_j, the month's net cost times its discount factor [currency].
        """
        return np.cumsum(self.discounted)


@dataclass(frozen=True)
class ProfileRows:
    """The usage as ingested: one row per period (``starts`` as ISO hours 'YYYY-MM-DDTHH')."""

    period: str
    starts: tuple[str, ...]
    steady: np.ndarray
    interruptible: np.ndarray
    gpu_hours: float
    teams: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class PathLedger:
    """One demand path of the robust plan (issue 27): its schedule costed on its own demand.

    ``useful``/``gross`` are the path's demand by month over the horizon [GPU-hours],
    ``useful_pv`` its discounted useful GPU-hours; ``strategy`` is the path's schedule as a
    strategy ledger named ``robust`` (cohorts, cost lines, decision rows). The workbook's
    Scenarios sheet holds the decisions as inputs and one sheet per path prices them.
    """

    name: str
    probability: float        # [fraction]
    growth_annual: float      # [fraction per year]
    useful: np.ndarray
    gross: np.ndarray
    useful_pv: float
    strategy: StrategyLedger


@dataclass(frozen=True)
class Ledger:
    """Plan-wide monthly vectors and every strategy's ledger.

    ``labels``, ``hours``, ``end``/``start`` (discount factors at month end and start),
    ``cloud_trend``, ``power`` [per kWh], ``staff_factor``, ``fx_owned``/``fx_cloud`` (reporting
    units per market unit; ones where the market is not converted) run over the horizon and
    its tail (the price book's months). ``useful``/``gross`` demand, the plan's ``steady`` and
    ``interruptible`` GPU-hours and ``peak`` GPUs, and the timeline's ``p90``/``mean`` demand
    run over the horizon. ``calc`` holds the Assumptions sheet's derived values by defined
    name; ``timelines`` the capacity timeline chart of each scheduled strategy; ``robust`` each
    demand path of the robust plan (empty without one, and in ledgers stored before it).
    """

    horizon: int
    labels: tuple[str, ...]
    hours: np.ndarray
    end: np.ndarray
    start: np.ndarray
    cloud_trend: np.ndarray
    power: np.ndarray
    staff_factor: np.ndarray
    fx_owned: np.ndarray
    fx_cloud: np.ndarray
    useful: np.ndarray
    gross: np.ndarray
    steady: np.ndarray
    interruptible: np.ndarray
    peak: np.ndarray
    useful_pv: float
    calc: dict[str, float]
    profile: ProfileRows
    strategies: dict[str, StrategyLedger]
    timelines: dict[str, dict] = field(default_factory=dict)
    robust: tuple[PathLedger, ...] = ()
    version: int = LEDGER_VERSION

    def to_dict(self) -> dict[str, Any]:
        """The ledger as JSON-ready data (arrays as lists of floats).

        Returns
        -------
        dict
            Every field; :meth:`from_dict` reads it back exactly.
        """
        return _plain(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Ledger":
        """A ledger from :meth:`to_dict`'s data.

        Parameters
        ----------
        data : dict
            Stored ledger data.

        Returns
        -------
        Ledger
            The ledger, arrays as numpy float arrays.

        Raises
        ------
        ValueError
            Data of another ledger version.
        """
        if data.get("version") != LEDGER_VERSION:
            raise ValueError(f"ledger version {data.get('version')!r}, expected "
                             f"{LEDGER_VERSION}")
        return _typed(cls, data)


ARRAY_FIELDS = {
    Ledger: {"hours", "end", "start", "cloud_trend", "power", "staff_factor", "fx_owned",
             "fx_cloud", "useful", "gross", "steady", "interruptible", "peak"},
    StrategyLedger: {"owned_h", "committed_h", "spot_h", "od_h", "overhead_h", "servers_online",
                     "committed_gpus", "data_share", "total", "discounted", "deductible",
                     "prepaid", "taxable_gain"},
    ProfileRows: {"steady", "interruptible"},
    PathLedger: {"useful", "gross"},
}


def _plain(value: Any) -> Any:
    """Dataclasses, arrays and containers as JSON-ready data."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, (np.floating, np.integer)):
        return value.item()
    if hasattr(value, "__dataclass_fields__"):
        return {f.name: _plain(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _arrays(mapping: dict) -> dict[str, np.ndarray]:
    return {k: np.asarray(v, float) for k, v in mapping.items()}


def _typed(cls, data: dict) -> Any:
    """The dataclass ``cls`` from its plain data (nested types by field)."""
    arrays = ARRAY_FIELDS.get(cls, set())
    out = {}
    for f in fields(cls):
        if f.name not in data and (f.default is not MISSING
                                   or f.default_factory is not MISSING):
            continue      # a ledger stored before the field existed: the field's default
        v = data[f.name]
        if f.name in arrays:
            v = np.asarray(v, float)
        elif cls is Ledger and f.name == "profile":
            v = _typed(ProfileRows, v)
        elif cls is Ledger and f.name == "strategies":
            v = {k: _typed(StrategyLedger, s) for k, s in v.items()}
        elif cls is Ledger and f.name == "robust":
            v = tuple(_typed(PathLedger, q) for q in v)
        elif cls is PathLedger and f.name == "strategy":
            v = _typed(StrategyLedger, v)
        elif cls is Ledger and f.name == "labels" or cls is ProfileRows and f.name == "starts":
            v = tuple(v)
        elif cls is StrategyLedger and f.name in ("lines", "cohort_totals", "owned_h_by_type"):
            v = _arrays(v)
        elif cls is StrategyLedger and f.name == "cohorts":
            v = tuple(CohortRow(**{**c, "monthly": _arrays(c["monthly"])}) for c in v)
        elif cls is StrategyLedger and f.name == "schedule_rows":
            v = tuple(ScheduleRow(**r) for r in v)
        out[f.name] = v
    return cls(**out)
