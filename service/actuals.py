"""Cloud bills -> the variance engine's monthly actuals (issue 43; models/variance.py).

A bill is any billing export the usage readers take (FOCUS 1.0-1.4, AWS CUR, Azure cost
details, Google Cloud billing) and is read by them, so a bad file is refused by row and column
exactly as on the usage path. Their GPU usage rows (service.ingest.gpu_usage.capture) give per
month, by the month of the charge period's start: GPU-hours and cost by pricing category
(on demand, spot, committed) and, in FOCUS, the cost of unused commitments, which is part of
the commitment line and its idle cost. Rows that are not GPU usage give the storage, egress
and cloud support lines where service.ingest.bill_lines names them, in the month of their charge
period's start; a line no row of a month gives stays as planned for that month, and a month
with only such rows leaves the GPU lines as planned. Without the plan's money (``money``) every
row's cost must be in the given currency; with it, a row in the plan's foreign currency counts
at the plan's rate of its month and the difference from the rate paid is the month's
``fx_cost`` (models/variance_fx.py), and a row no rate can be had for is refused by row and
column.

The owned fleet's actuals (service/owned_actuals.py) come in the same uploads and arguments: a
file whose header is theirs is read by their reader, and its months are merged with the bills'
(models.owned_actuals.combine).
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import asdict
from pathlib import Path
from typing import Any, Callable, Iterable

import numpy as np

from models.owned_actuals import Fleet, combine, month_actuals
from models.variance import MonthActuals
from models.variance_fx import PlanMoney, at_plan_rate
from service.ingest import load_usage, read_usage
from service.ingest.core import fail, fail_one, problem
from service.ingest.gpu_usage import NoGpuUsage, capture
from service.owned_actuals import add_busy_time, is_busy_time, is_owned_actuals, read_owned

LINE_OF = {"on_demand": "on_demand", "spot": "spot", "committed": "commitment"}
# a bill's non-GPU row (service/ingest/bill_lines.py) without a date: its refusal
# (translated by service/i18n/ingest_refusals.py)
_UNDATED = {"storage": "a storage row without a date-time",
            "egress": "an egress row without a date-time",
            "cloud_support": "a cloud support row without a date-time"}


def _months(start: np.ndarray) -> np.ndarray:
    return np.datetime_as_string(start.astype("datetime64[M]"), unit="M")


def read_bills(paths: Iterable[str | Path], currency: str, fleet: Fleet | None = None,
               money: PlanMoney | None = None) -> list[MonthActuals]:
    """Monthly cloud actuals of one or more bills, summed.

    Parameters
    ----------
    paths : iterable of path
        Billing exports.
    currency : str
        The currency of the actuals (ISO code): the plan's reporting one when ``money`` is
        given; without it a row in another currency is refused.
    fleet : Fleet, optional
        The plan's owned fleet, to read owned actuals files against (without it such a file
        is refused).
    money : PlanMoney, optional
        The plan's currencies and rate, and the rate stated as paid: a row in the plan's
        foreign currency is converted (models.variance_fx.at_plan_rate).

    Returns
    -------
    list of MonthActuals
        One per month with GPU usage or idle commitments, in calendar order: ``costs`` of
        on_demand, spot and commitment, ``gpu_hours`` of on_demand, spot and committed,
        ``idle_commitment_cost``, ``fx_cost``.

    Raises
    ------
    IngestError
        A file the readers refuse, or whose GPU rows have no cost, a cost that is not a
        number, or another currency with no rate to be had (by row and column).
    """
    paths = [Path(p) for p in paths]
    kinds = {p: _kind(p) for p in paths}
    owned = [(p.name, p.read_bytes()) for p in paths if kinds[p] == "owned"]
    gauges = [(p.name, p.read_bytes()) for p in paths if kinds[p] == "busy"]
    bills = [(p.name, lambda p=p: load_usage(p)) for p in paths if kinds[p] == "bill"]
    return _with_owned(bills, owned, currency, fleet, gauges, money)


def read_bill_data(files: Iterable[tuple[str, bytes]], currency: str,
                   fleet: Fleet | None = None, money: PlanMoney | None = None
                   ) -> list[MonthActuals]:
    """:func:`read_bills` of uploaded files, each ``(file name, bytes)``, read by the same
    readers as an uploaded usage file (service.ingest.read_usage), and owned actuals files by
    theirs."""
    files = list(files)
    owned = [(name, data) for name, data in files if _kind_of(data) == "owned"]
    gauges = [(name, data) for name, data in files if _kind_of(data) == "busy"]
    bills = [(name, lambda d=data, n=name: read_usage(d, n)) for name, data in files
             if _kind_of(data) == "bill"]
    return _with_owned(bills, owned, currency, fleet, gauges, money)


def _kind_of(head: bytes) -> str:
    """'owned' (owned actuals), 'busy' (DCGM or nvidia-smi busy time) or 'bill'."""
    if is_owned_actuals(head):
        return "owned"
    return "busy" if is_busy_time(head) else "bill"


def _kind(path: Path) -> str:
    with path.open("rb") as f:
        return _kind_of(f.read(4096))


def _with_owned(bills: list, owned: list[tuple[str, bytes]], currency: str,
                fleet: Fleet | None, gauges: list[tuple[str, bytes]] = (),
                money: PlanMoney | None = None) -> list[MonthActuals]:
    if gauges and not owned:
        raise fail_one(gauges[0][0], "GPU busy time is read with the owned fleet's actuals: "
                       "upload the owned actuals CSV with it")
    cloud = _read(bills, currency, money) if bills else []
    months = []
    for name, data in owned:
        if fleet is None:
            raise fail_one(name, "owned actuals are read against a plan's owned fleet")
        months.append(month_actuals(read_owned(name, data, fleet), fleet))
    if len(months) > 1:       # two owned files: one month and type must not be in both
        rows = [(name, m.month) for (name, _d), ms in zip(owned, months) for m in ms]
        seen: dict[str, str] = {}
        for name, month in rows:
            if month in seen:
                raise fail_one(name, f"{month} is also in {seen[month]}: give each month of "
                               "owned actuals in one file")
            seen[month] = name
    return combine(cloud, add_busy_time([m for ms in months for m in ms], list(gauges)))


def _read(sources: list[tuple[str, Callable[[], Any]]], currency: str,
          money: PlanMoney | None = None) -> list[MonthActuals]:
    cost: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    hours: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    idle: dict[str, float] = defaultdict(float)
    fx: dict[str, float] = defaultdict(float)
    other: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for name, load in sources:
        with capture() as box:
            try:
                load()
            except NoGpuUsage:      # storage or idle commitments alone: still a bill
                if not box or not _bills_other_rows(box[-1]):
                    raise
        if not box:
            raise fail_one(name, "this is not a billing export (FOCUS, AWS CUR, Azure or "
                           "Google Cloud): it has no cost by pricing category")
        for usage in box:
            _add(usage, name, currency, cost, hours, idle, money, fx, other)
    out = []
    gpu_months = set(cost) | set(hours) | set(idle)
    for month in sorted(gpu_months | set(other)):
        costs, gpu_hours = {}, {}
        if month in gpu_months:       # the bill gives its GPU lines: 0 where none was used
            costs = {LINE_OF[k]: float(cost[month].get(k, 0.0)) for k in LINE_OF}
            costs["commitment"] += idle.get(month, 0.0)
            gpu_hours = {k: float(hours[month].get(k, 0.0)) for k in LINE_OF}
        costs.update({line: float(v) for line, v in other.get(month, {}).items()})
        out.append(MonthActuals(str(month), costs=costs, gpu_hours=gpu_hours,
                                idle_commitment_cost=float(idle.get(month, 0.0)),
                                fx_cost=float(fx.get(month, 0.0))))
    return out


def _bills_other_rows(usage) -> bool:
    """The export has rows of a plan line other than GPU usage (storage, egress, support) or
    unused commitments."""
    return bool((usage.line is not None and (usage.line != "").any())
                or (usage.idle is not None and usage.idle.any()))


def to_json(actuals: Iterable[MonthActuals]) -> list[dict]:
    """Monthly actuals as JSON-ready dicts (stored with an upload: service/plans/actuals.py)."""
    return [asdict(a) for a in actuals]


def from_json(rows: Iterable[dict]) -> list[MonthActuals]:
    """The inverse of :func:`to_json`."""
    return [MonthActuals(**row) for row in rows]


def _add(usage, name: str, currency: str, cost, hours, idle, money=None, fx=None,
         other=None) -> None:
    if usage.cost is None or usage.currency is None:
        raise fail_one(name, "the bill has no cost column (EffectiveCost or BilledCost, with "
                       "BillingCurrency) to set against the plan")
    lines = (usage.line != "") if usage.line is not None else np.zeros(len(usage.rows), bool)
    counted = usage.counted | lines
    if usage.idle is not None:
        counted |= usage.idle
    index = np.flatnonzero(counted)
    problems = []
    amounts = usage.cost.astype(float).copy()      # in ``currency``: at the plan's rate
    extra = np.zeros(len(amounts))                 # the rate paid's difference (fx)
    for i in index:
        if not np.isfinite(usage.cost[i]):
            problems.append(problem(usage.rows[i], "EffectiveCost", "the cost is not a number"))
        elif usage.idle is not None and usage.idle[i] and np.isnat(usage.idle_start[i]):
            problems.append(problem(usage.rows[i], "ChargePeriodStart",
                                    "an unused commitment row without a date-time"))
        elif lines[i] and np.isnat(usage.start[i]):
            problems.append(problem(usage.rows[i], "ChargePeriodStart", _UNDATED[usage.line[i]]))
        elif money is not None and str(usage.currency[i]) != currency:
            converted = _converted(usage, i, money)
            if isinstance(converted, str):
                problems.append(problem(usage.rows[i], "BillingCurrency", converted))
            else:
                amounts[i], extra[i] = converted
        elif str(usage.currency[i]) != currency:
            problems.append(problem(usage.rows[i], "BillingCurrency",
                                    f"the cost is in {usage.currency[i] or '-'}, not the "
                                    f"plan's {currency}"))
    if problems:
        raise fail(name, problems)
    use = usage.counted
    months = _months(usage.start[use])
    for month, kind, h, c, d in zip(months, usage.pricing[use], usage.gpu_hours[use],
                                    amounts[use], extra[use]):
        if kind not in LINE_OF:       # a GPU row of no pricing category read: at on-demand
            kind = "on_demand"
        hours[month][kind] += float(h)
        cost[month][kind] += float(c)
        if fx is not None and d:
            fx[str(month)] += float(d)
    if usage.idle is not None and usage.idle.any():
        for month, c, d in zip(_months(usage.idle_start[usage.idle]), amounts[usage.idle],
                               extra[usage.idle]):
            idle[str(month)] += float(c)
            if fx is not None and d:
                fx[str(month)] += float(d)
    if other is not None and lines.any():
        for month, line, c, d in zip(_months(usage.start[lines]), usage.line[lines],
                                     amounts[lines], extra[lines]):
            other[str(month)][str(line)] += float(c)
            if fx is not None and d:
                fx[str(month)] += float(d)


def _month_of(usage, i: int) -> str:
    start = usage.idle_start if usage.idle is not None and usage.idle[i] else usage.start
    return str(np.datetime_as_string(start[i].astype("datetime64[M]"), unit="M"))


def _converted(usage, i: int, money: PlanMoney):
    """Row i at the plan's rate and its fx difference, or why no rate can be had."""
    billed = None if usage.billed is None else float(usage.billed[i])
    billed_currency = None if usage.billed_currency is None else str(usage.billed_currency[i])
    return at_plan_rate(float(usage.cost[i]), str(usage.currency[i]), _month_of(usage, i),
                        billed, billed_currency, money)
