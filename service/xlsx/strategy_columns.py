"""The columns of a strategy sheet's monthly table, each with its formula and the engine's value.

Left to right: engine volumes (values), capacity by month (servers online and committed GPUs:
sums of the cohorts), schedule columns (discount factors, price trends, exchange rates), tax
items of the cohorts, the cohorts' sums, the cost lines of models.costs in their order, then
total, cumulative and discounted figures. Cached values are the engine's own, read from the
plan's ledger (models/ledger.py), never recomputed here.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np

from models.ledger import Ledger, StrategyLedger
from models.lines import COST_LINES, CREDIT_LINES, START_OF_MONTH_LINES
from service.i18n import gettext as tr
from service.i18n.labels import LINE_TITLES
from service.xlsx.sheet_formulas import FIRST, fx_at, lagged
from service.xlsx.cohort_block import COHORT_TOTALS
from service.xlsx.fleet_columns import (capacity_columns, cohort_online, fleet_formulas,
                                        volume_columns)


@dataclass
class Column:
    key: str
    header: str
    group: str                     # "volume", "schedule", "server", "cohort", "money", "total"
    fmt: str
    values: np.ndarray             # engine values (cached results for formulas)
    formula: Optional[Callable[[int], str]] = None   # excel row number (1-based) -> formula


def padded(values, rows: int) -> np.ndarray:
    """A horizon-long engine array over the sheet's rows (zero after the horizon)."""
    out = np.zeros(rows)
    values = np.asarray(values, float)[:rows]
    out[:len(values)] = values
    return out


def held(values, rows: int) -> np.ndarray:
    """A cumulative engine array over the sheet's rows (its last value held after it)."""
    values = np.asarray(values, float)[:rows]
    last = values[-1] if len(values) else 0.0
    return np.concatenate([values, np.full(rows - len(values), last)])


def build_columns(ledger: Ledger, sl: StrategyLedger, c: Callable[[str, int], str],
                  rows: int, cohorts: Optional[Callable[[str, int], str]],
                  uses_cloud: str, types: tuple = ()) -> list[Column]:
    """The monthly table's columns. ``c(key, row)`` is the address of another column's cell;
    ``cohorts(key, row)`` sums the cohorts' monthly column ``key`` in a row (None: the
    strategy has no cohort); ``uses_cloud`` is the cell of the strategy's "uses cloud
    capacity" flag; ``types``: a fleet's (1-based index, type id) pairs (issue 26), whose
    per-type columns and formulas service/xlsx/fleet_columns.py writes."""
    if cohorts is None:
        types = ()      # no server at all: nothing is priced by type
    L = sl.lines
    inside = "finance_horizon_months"

    def add(key: str, x: int) -> str:
        """The cohorts' sum of ``key`` in row x, or 0 without cohorts."""
        return c("c_" + key, x) if cohorts is not None else "0"
    totals = []
    if cohorts is not None:
        totals = [Column(f"c_{key}", tr("All cohorts: %(what)s", what=tr(title)), "cohort",
                         style, padded(sl.cohort_totals[key], rows),
                         cohort_online(types, cohorts) if types and key == "online"
                         else lambda x, key=key: "=" + cohorts(key, x))
                  for key, title, style in COHORT_TOTALS]
    month_start = np.array([(np.datetime64(mo, "D") - np.datetime64("1899-12-30", "D"))
                            .astype(int) for mo in ledger.labels[:rows]], dtype=float)
    start_lines = padded(sum(L[k] for k in START_OF_MONTH_LINES), rows)
    fleet = fleet_formulas(types, c) if types else {}

    def owned_work(x: int) -> str:
        """Owned GPU-hours in work of the reference GPU (each type's throughput)."""
        if types:
            return fleet["owned_work"](x)
        return f"{c('owned_h', x)}*owned_relative_throughput"
    m = np.arange(1, rows + 1, dtype=float)
    cols = [
        Column("m", "Month no.", "volume", "int", m),
        Column("start", "Month start", "volume", "date", month_start),
        Column("hours", "Hours in month", "volume", "hours", ledger.hours[:rows]),
        Column("demand", "Demand [useful GPU-h]", "volume", "hours", padded(ledger.useful, rows)),
        Column("gross", "Gross demand [GPU-h, failure overhead included]", "volume", "hours",
               padded(ledger.gross, rows)),
        Column("owned_h", "Owned [GPU-h]", "volume", "hours", padded(sl.owned_h, rows)),
        Column("committed_h", "Committed [GPU-h]", "volume", "hours",
               padded(sl.committed_h, rows)),
        Column("spot_h", "Spot [GPU-h billed]", "volume", "hours", padded(sl.spot_h, rows)),
        Column("od_h", "On demand [GPU-h]", "volume", "hours", padded(sl.od_h, rows)),
        Column("overhead_h", "Overhead [GPU-h]", "volume", "hours", padded(sl.overhead_h, rows)),
        # capacity by month: the cohorts (formulas)
        Column("online", "Servers online", "schedule", "number", padded(sl.servers_online, rows),
               lambda x: f"={add('online', x)}"),
        Column("committed", "Committed GPUs", "schedule", "number",
               padded(sl.committed_gpus, rows), lambda x: f"={add('gpus', x)}"),
        # schedule columns: formulas over Assumptions names
        Column("ef", "Discount factor, end of month", "schedule", "fraction",
               ledger.end[:rows], lambda x: f"=(1+calc_monthly_rate)^-{c('m', x)}"),
        Column("sf", "Discount factor, start of month", "schedule", "fraction",
               ledger.start[:rows], lambda x: f"=(1+calc_monthly_rate)^-({c('m', x)}-1)"),
        Column("trend", "Cloud price trend factor", "schedule", "fraction",
               ledger.cloud_trend[:rows],
               lambda x: f"=(1+on_demand_price_trend_annual)^(({c('m', x)}-1)/12)"),
        Column("fx_o", "Exchange rate, owned costs [reporting per owned-currency unit]",
               "schedule", "fx", ledger.fx_owned[:rows],
               lambda x: "=" + fx_at("owned", f"{c('m', x)}-1")),
        Column("fx_c", "Exchange rate, cloud prices [reporting per cloud-currency unit]",
               "schedule", "fx", ledger.fx_cloud[:rows],
               lambda x: "=" + fx_at("cloud", f"{c('m', x)}-1")),
        Column("power", "Power price [per kWh]", "schedule", "unit_price", ledger.power[:rows],
               lambda x: f"=owned_electricity_price_per_kwh*(1+finance_power_price_inflation_"
                         f"annual)^(({c('m', x)}-1)/12)*{c('fx_o', x)}"),
        Column("staff_f", "Staff cost factor", "schedule", "fraction",
               ledger.staff_factor[:rows],
               lambda x: f"=(1+finance_staff_cost_inflation_annual)^(({c('m', x)}-1)/12)"),
        Column("share", "Data at owned prices (share)", "schedule", "fraction",
               padded(sl.data_share, rows),
               lambda x: f"=IF({c('m', x)}>{inside},0,IF({c('gross', x)}>0,{owned_work(x)}"
                         f"/{c('gross', x)},IF({c('online', x)}>0,1,0)))"),
        Column("prepaid", "Prepaid commitments deducted this month", "server", "money",
               padded(sl.prepaid, rows), lambda x: f"={add('prepaid', x)}"),
        Column("taxable_gain", "Taxable gain on sales this month", "server", "money",
               padded(sl.taxable_gain, rows), lambda x: f"={add('gain', x)}"),
    ] + totals
    f = {
        "capex": lambda x: f"={add('capex', x)}",
        "loan_payment": lambda x: f"={add('loan', x)}",
        "energy": lambda x: f"={c('online', x)}*owned_power_kw_idle*owned_pue*{c('hours', x)}*"
                            f"{c('power', x)}+calc_busy_kw_per_gpu*{c('power', x)}*"
                            f"{c('owned_h', x)}",
        "space": lambda x: f"={c('online', x)}*owned_power_kw_max*owned_space_price_per_kw_month"
                           f"*{c('fx_o', x)}",
        "maintenance": lambda x: f"={add('maint', x)}",
        "staff": lambda x: f"={c('online', x)}*owned_fte_cost_annual/12/owned_servers_per_fte*"
                           f"{c('staff_f', x)}*{c('fx_o', x)}",
        "owned_storage": lambda x: f"=IF({c('m', x)}>{inside},0,cloud_data_storage_tb*owned_"
                                   f"storage_price_per_tb_month*{c('share', x)}*{c('fx_o', x)})",
        "owned_network": lambda x: f"=IF({c('m', x)}>{inside},0,cloud_data_egress_tb_per_month"
                                   f"*owned_network_price_per_tb*{c('share', x)}*{c('fx_o', x)})",
        "commitment_upfront": lambda x: f"={add('upfront', x)}",
        "commitment": lambda x: f"={add('monthly', x)}",
        "spot": lambda x: f"={c('spot_h', x)}*calc_spot_base/calc_vat*{c('trend', x)}*"
                          f"calc_spot_rounding*{c('fx_c', x)}",
        "on_demand": lambda x: f"={c('od_h', x)}*on_demand_price_per_gpu_hour/calc_vat*"
                               f"{c('trend', x)}*calc_rounding*{c('fx_c', x)}",
        "storage": lambda x: f"=IF({c('m', x)}>{inside},0,cloud_data_storage_tb*1000*cloud_data"
                             f"_storage_price_per_gb_month/calc_vat*(1-{c('share', x)})*"
                             f"{c('fx_c', x)})",
        "egress": lambda x: f"=IF({c('m', x)}>{inside},0,cloud_data_egress_tb_per_month*1000*"
                            f"cloud_data_egress_price_per_gb/calc_vat*(1-{c('share', x)})*"
                            f"{c('fx_c', x)})",
        "cloud_setup": lambda x: f"=IF({c('m', x)}=1,{uses_cloud}*cloud_terms_setup_fee/"
                                 f"calc_vat*{c('fx_c', x)},0)",
        "cloud_support": lambda x: (
            f"=IF(SUM({c('commitment_upfront', x)}:{c('egress', x)})>0,MAX("
            f"cloud_terms_support_fraction*SUM({c('commitment_upfront', x)}:{c('egress', x)}),"
            f"cloud_terms_support_minimum_per_month/calc_vat*{c('fx_c', x)}),0)"),
        "tax_on_resale": lambda x: lagged(c, x, "{}", "taxable_gain"),
        "resale_credit": lambda x: f"={add('resale', x)}",
        "tax_shield": lambda x: lagged(c, x, "{}", "deductible"),
    }
    if types:   # a fleet: each type's capacity and volume, its own energy, space and staff
        at = [k.key for k in cols].index("overhead_h") + 1
        cols[at:at] = volume_columns(Column, sl, types, rows)
        at = [k.key for k in cols].index("committed") + 1
        cols[at:at] = capacity_columns(Column, sl, types, rows, cohorts)
        f.update({k: fleet[k] for k in ("energy", "space", "staff")})
    for name in COST_LINES + CREDIT_LINES:
        cols.append(Column(name, LINE_TITLES[name], "money", "money", padded(L[name], rows),
                           f[name]))
    first_cost, last_cost = COST_LINES[0], COST_LINES[-1]
    cols += [
        Column("deductible", "Tax-deductible this month (before the lag)", "total", "money",
               padded(sl.deductible, rows),
               lambda x: (f"=SUM({c('energy', x)}:{c('owned_network', x)})+SUM("
                          f"{c('commitment', x)}:{c('cloud_support', x)})+{c('prepaid', x)}"
                          f"+{add('interest', x)}+{add('dep', x)}+{add('loss', x)}")),
        Column("total", "Total cost", "total", "money_bold", padded(sl.total, rows),
               lambda x: f"=SUM({c(first_cost, x)}:{c(last_cost, x)})-{c('resale_credit', x)}"
                         f"-{c('tax_shield', x)}"),
        Column("cumulative", "Cumulative cost", "total", "money", held(sl.cumulative, rows),
               lambda x: (f"={c('total', x)}" if x == FIRST + 1
                          else f"={c('cumulative', x - 1)}+{c('total', x)}")),
        Column("start_pay", "Paid at month start", "total", "money", start_lines,
               lambda x: "=" + "+".join(c(k, x) for k in START_OF_MONTH_LINES)),
        Column("end_net", "Paid at month end (net of credits)", "total", "money",
               padded(sl.total, rows) - start_lines,
               lambda x: f"={c('total', x)}-{c('start_pay', x)}"),
        Column("discounted", "Discounted cost", "total", "money", padded(sl.discounted, rows),
               lambda x: f"={c('end_net', x)}*{c('ef', x)}+{c('start_pay', x)}*{c('sf', x)}"),
        Column("disc_cum", "Discounted cumulative cost", "total", "money",
               held(sl.discounted_cumulative, rows),
               lambda x: (f"={c('discounted', x)}" if x == FIRST + 1
                          else f"={c('disc_cum', x - 1)}+{c('discounted', x)}")),
    ]
    assert all(len(col_.values) == rows for col_ in cols)
    return cols
