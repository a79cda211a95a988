"""The owned fleet's actuals file (issue 43): a CSV uploaded beside the bills, recognised by its
header, checked like a usage file (each problem by row and column, nothing kept on a refusal)
and read into models.owned_actuals rows.

One row per month and server type (the template, :func:`template_csv`, documents each column):

=================  ========  ==================================================================
column             required  what
=================  ========  ==================================================================
month              yes       YYYY-MM
server_type        no        a server type id of the plan; empty = its first type
servers_online     yes       servers online in the month (a number >= 0; an average is fine)
busy_gpu_hours     no        GPU-hours of work done on them (DCGM, nvidia-smi); empty = not
                             measured
energy_kwh         no        energy used, priced at the plan's energy price of the month
energy_cost        no        energy paid (instead of energy_kwh)
space, staff,      no        paid in the month
maintenance
purchased          no        servers bought (paid in this month), a whole number
purchase_price     no        per server, all-in (price and installation)
delivered          no        YYYY-MM the bought servers were delivered (they count from then)
sold               no        servers sold in the month, a whole number
sale_price         no        per server
=================  ========  ==================================================================

A cost column the file lacks leaves its line as planned; an empty cell of a column the file has
is 0. Amounts are in the plan's reporting currency.

GPU busy time may come instead as the files the usage readers read (DCGM exporter Prometheus
text, DCGM CSV, nvidia-smi CSV: service/ingest/busy.py) in the same upload: their busy GPU-hours,
summed by month, are the busy GPU-hours of a month whose owned actuals leave ``busy_gpu_hours``
empty (:func:`add_busy_time`).
"""
from __future__ import annotations

import csv as stdcsv
import io
import math
import re
from typing import Optional

from dataclasses import replace

import numpy as np

from models.owned_actuals import Fleet, OwnedRow
from models.variance import MonthActuals
from service.ingest import busy
from service.ingest.core import fail, fail_one, problem, to_float
from service.ingest.csv import header, text_of

COLUMNS = ("month", "server_type", "servers_online", "busy_gpu_hours", "energy_kwh",
           "energy_cost", "space", "staff", "maintenance", "purchased", "purchase_price",
           "delivered", "sold", "sale_price")
REQUIRED = ("month", "servers_online")
AMOUNTS = ("busy_gpu_hours", "energy_kwh", "energy_cost", "space", "staff", "maintenance",
           "purchase_price", "sale_price")
COUNTS = ("purchased", "sold")
MONTH = re.compile(r"^(\d{4})-(0[1-9]|1[0-2])$")
MAX_BYTES = 2_000_000
MAX_ROWS = 10_000
MAX_VALUE = 1e13          # larger than any fleet's month, smaller than a typo of 20 digits

EXAMPLE = (
    ("2027-01", "", "7", "30100", "52000", "", "13500", "2300", "14000", "7", "330000",
     "2027-01", "", ""),
    ("2027-02", "", "7", "", "", "4900", "13500", "2300", "14000", "", "", "", "", ""),
)


def _key(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", name.strip().lower()).strip("_")


def is_owned_actuals(data: bytes) -> bool:
    """Whether a file is the owned fleet's actuals: CSV text whose header has ``month`` and
    ``servers_online`` (the usage and billing readers take every other file)."""
    head = data[:4096].split(b"\n", 1)[0]
    try:
        line = head.decode("utf-8-sig")
    except UnicodeDecodeError:
        return False
    keys = {_key(c) for c in re.split(r"[,;\t|]", line)}
    return {"month", "servers_online"} <= keys


def template_csv() -> bytes:
    """The owned actuals template: the header and two example months (a plan of one type)."""
    out = io.StringIO()
    writer = stdcsv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    writer.writerows(EXAMPLE)
    return out.getvalue().encode("utf-8")


def _month_hours(month: str) -> int:
    y, m = int(month[:4]), int(month[5:7])
    days = (31, 29 if (y % 4 == 0 and y % 100 != 0) or y % 400 == 0 else 28, 31, 30, 31, 30,
            31, 31, 30, 31, 30, 31)[m - 1]
    return 24 * days


def read_owned(name: str, data: bytes, fleet: Fleet) -> list[OwnedRow]:
    """The rows of an owned actuals file, checked against the plan's fleet.

    Parameters
    ----------
    name : str
        The file's name (in refusals).
    data : bytes
        The file: UTF-8 CSV (comma, semicolon or tab separated).
    fleet : Fleet
        The plan's fleet: its server types, GPUs per server and the servers held when the plan
        starts.

    Returns
    -------
    list of OwnedRow
        One per row, in the file's order.

    Raises
    ------
    IngestError
        Every problem by row (1 = the header) and column: an unknown or missing column, a month
        not written YYYY-MM, a type the plan lacks, a number that is not finite and >= 0, a
        count that is not whole, energy given both in kWh and as a cost, a purchase without its
        price or month delivered, a month and type twice, more servers online or sold than
        held, more busy GPU-hours than the servers online have.
    """
    if len(data) > MAX_BYTES:
        raise fail_one(name, f"the file is {len(data)} bytes; the limit is {MAX_BYTES} bytes")
    text = text_of(data, name)
    fields, sep = header(text, name)
    keys = [_key(f) for f in fields]
    problems = []
    for raw, key in zip(fields, keys):
        if key not in COLUMNS:
            problems.append(problem(1, raw, "unknown column; the owned actuals' columns are "
                                    + ", ".join(COLUMNS)))
    for col in REQUIRED:
        if col not in keys:
            problems.append(problem(1, None, f"missing column {col}"))
    if problems:
        raise fail(name, problems)
    reader = stdcsv.reader(io.StringIO(text), delimiter=sep)
    next(reader)
    rows: list[OwnedRow] = []
    where: dict[tuple[str, str], int] = {}
    at: list[int] = []
    for number, cells in enumerate(reader, start=2):
        if not any(c.strip() for c in cells):
            continue
        if len(rows) >= MAX_ROWS:
            raise fail_one(name, f"the file has more than {MAX_ROWS} rows", number)
        cell = {k: (cells[i].strip() if i < len(cells) else "") for i, k in enumerate(keys)}
        row = _row(number, cell, fields, keys, fleet, problems)
        if row is None:
            continue
        key = (row.month, row.server_type)
        if key in where:
            problems.append(problem(number, fields[keys.index("month")],
                                    f"{row.month} of type {row.server_type} is given twice "
                                    f"(rows {where[key]} and {number})"))
            continue
        where[key] = number
        rows.append(row)
        at.append(number)
    if not rows and not problems:
        raise fail_one(name, "the file has no rows of owned actuals")
    if not problems:
        _check_fleet(rows, at, fields, keys, fleet, problems)
    if problems:
        raise fail(name, problems)
    return rows


def _column(fields: list[str], keys: list[str], col: str) -> str:
    return fields[keys.index(col)] if col in keys else col


def _row(number: int, cell: dict, fields: list[str], keys: list[str], fleet: Fleet,
         problems: list) -> Optional[OwnedRow]:
    before = len(problems)

    def bad(col: str, message: str) -> None:
        problems.append(problem(number, _column(fields, keys, col), message))

    month = cell.get("month", "")
    if not MONTH.match(month):
        bad("month", f"{month or 'an empty cell'} is not a month written YYYY-MM")
    kind = cell.get("server_type", "") or fleet.types[0]
    if kind not in fleet.gpus_per_server:
        bad("server_type", f"{kind} is not a server type of the plan; its types are "
            + ", ".join(fleet.types))
    values: dict[str, Optional[float]] = {}
    for col in ("servers_online",) + AMOUNTS + COUNTS:
        text = cell.get(col)
        if text is None or (text == "" and col in ("busy_gpu_hours", "energy_kwh",
                                                   "energy_cost")):
            values[col] = None           # the column is absent, or nothing was measured
            continue
        if text == "":
            if col == "servers_online":
                bad(col, "an empty cell; write the servers online, 0 for none")
            values[col] = 0.0
            continue
        x = to_float(text)
        if not (math.isfinite(x) and 0 <= x <= MAX_VALUE):
            bad(col, f"{text} is not a number from 0 to {MAX_VALUE:.0e}")
        elif col in COUNTS and x != int(x):
            bad(col, f"{text} is not a whole number of servers")
        values[col] = x
    if values["energy_kwh"] is not None and values["energy_cost"] is not None:
        bad("energy_cost", "energy is given both in kWh and as a cost; give one of them")
    elif values["energy_kwh"] is not None and fleet.kwh_currency:
        bad("energy_kwh", f"the plan's energy price is in {fleet.kwh_currency}, not its "
            "reporting currency: give energy_cost in the reporting currency")
    delivered = cell.get("delivered", "")
    if values.get("purchased"):
        if not MONTH.match(delivered):
            bad("delivered", f"{delivered or 'an empty cell'} is not a month written YYYY-MM: "
                "servers bought need the month they were delivered")
        if "purchase_price" not in keys or cell.get("purchase_price") == "":
            bad("purchase_price", "servers bought need their price per server")
    if len(problems) > before:
        return None
    return OwnedRow(month=month, server_type=kind, servers_online=values["servers_online"],
                    busy_gpu_hours=values.get("busy_gpu_hours"),
                    energy_kwh=values.get("energy_kwh"), energy_cost=values.get("energy_cost"),
                    space=values.get("space"), staff=values.get("staff"),
                    maintenance=values.get("maintenance"),
                    purchased=int(values.get("purchased") or 0),
                    purchase_price=float(values.get("purchase_price") or 0.0),
                    delivered=delivered if values.get("purchased") else None,
                    sold=int(values.get("sold") or 0),
                    sale_price=float(values.get("sale_price") or 0.0))


def _check_fleet(rows: list[OwnedRow], at: list[int], fields: list[str], keys: list[str],
                 fleet: Fleet, problems: list) -> None:
    """Servers online and sold within those held (the plan's position, deliveries up to the
    month, sales before it); busy time within what the servers online can do."""
    held: dict[str, int] = {}
    for lot in fleet.held:
        held[lot["type"]] = held.get(lot["type"], 0) + int(lot["count"])
    deliveries = sorted((r.delivered, r.server_type, r.purchased) for r in rows if r.purchased)
    order = sorted(range(len(rows)), key=lambda k: rows[k].month)
    d = 0
    for k in order:
        row, number = rows[k], at[k]
        while d < len(deliveries) and deliveries[d][0] <= row.month:
            held[deliveries[d][1]] = held.get(deliveries[d][1], 0) + deliveries[d][2]
            d += 1
        count = held.get(row.server_type, 0)
        if row.sold > count:
            problems.append(problem(number, _column(fields, keys, "sold"),
                                    f"{row.sold} servers sold but {count} held in {row.month}"))
        if row.servers_online > count:
            problems.append(problem(number, _column(fields, keys, "servers_online"),
                                    f"{row.servers_online:g} servers online but {count} held "
                                    f"in {row.month}"))
        if row.busy_gpu_hours is not None:
            capacity = (row.servers_online * fleet.gpus_per_server[row.server_type]
                        * _month_hours(row.month))
            if row.busy_gpu_hours > capacity:
                problems.append(problem(number, _column(fields, keys, "busy_gpu_hours"),
                                        f"{row.busy_gpu_hours:g} busy GPU-hours but the servers "
                                        f"online have {capacity:g}"))
        held[row.server_type] = count - min(row.sold, count)


def is_busy_time(data: bytes) -> bool:
    """Whether a file is GPU busy time (DCGM, nvidia-smi), by its first line as the usage
    readers recognise it."""
    line = data[:4096].split(b"\n", 1)[0].decode("utf-8-sig", errors="replace")
    return busy.recognise(line.rstrip("\r")) is not None


def busy_by_month(name: str, data: bytes) -> dict[str, float]:
    """Busy GPU-hours of a busy-time file by month (UTC), read by the usage path's reader
    (service.ingest.busy.read_busy, which refuses a bad file by row and column)."""
    found = busy.read_busy(data, name)
    months = np.datetime_as_string(found.hours.astype("datetime64[M]"), unit="M")
    out: dict[str, float] = {}
    for month, value in zip(months, found.busy):
        out[str(month)] = out.get(str(month), 0.0) + float(value)
    return out


def add_busy_time(months: list[MonthActuals], files: list[tuple[str, bytes]]
                  ) -> list[MonthActuals]:
    """The owned months with the busy GPU-hours of busy-time files.

    Parameters
    ----------
    months : list of MonthActuals
        The owned actuals' months (models.owned_actuals.month_actuals).
    files : list of (name, bytes)
        DCGM or nvidia-smi files.

    Returns
    -------
    list of MonthActuals
        ``months`` with ``owned["busy_gpu_hours"]`` the files' busy GPU-hours summed over the
        files, for each month they cover.

    Raises
    ------
    IngestError
        A file the busy reader refuses; busy time of a month without owned actuals, of a month
        whose owned actuals already give busy GPU-hours, or more than its servers online can
        do (GPUs online x hours).
    """
    if not files:
        return months
    by_month = {m.month: m for m in months}
    total: dict[str, float] = {}
    named: dict[str, str] = {}
    for name, data in files:
        for month, value in busy_by_month(name, data).items():
            total[month] = total.get(month, 0.0) + value
            named.setdefault(month, name)
    for month, value in sorted(total.items()):
        name = named[month]
        held = by_month.get(month)
        if held is None:
            raise fail_one(name, f"busy time of {month} has no owned actuals of that month")
        if held.owned.get("busy_gpu_hours") is not None:
            raise fail_one(name, f"busy time of {month} is also in the owned actuals' "
                           "busy_gpu_hours: give it in one place")
        capacity = held.owned["gpus_online"] * _month_hours(month)
        if value > capacity + 1e-6:
            raise fail_one(name, f"{value:.1f} busy GPU-hours in {month} but the servers "
                           f"online have {capacity:g}")
        by_month[month] = replace(held, owned={**held.owned, "busy_gpu_hours": value})
    return [by_month[m.month] for m in months]
