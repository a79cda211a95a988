"""One monthly sheet per strategy: engine volumes as values, every money figure a formula.

Layout: a block of strategy figures (the static chain's capacity, totals, PV) above a monthly
table (service/xlsx/strategy_columns.py), and, when the strategy holds cohorts beyond its
static chain (servers owned before the plan, contracts signed, a schedule's purchases and
commitments), the cohort tables under the table and the cohorts' monthly columns at its right
(service/xlsx/cohort_block.py). Every formula cell stores the engine's own number as its cached
value.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from models.capacity import Capacity
from models.plan import Plan
from models.strategies import StrategyResult
from service.i18n import N_, _
from service.xlsx.cells import add_sheet, col, strategy_sheet_name, write_text
from service.xlsx.chain_formulas import FIRST
from service.xlsx.cohort_block import CohortBlock, cohort_sums
from service.xlsx.cohort_sources import DecisionRef, strategy_cohorts
from service.xlsx.strategy_columns import LINE_TITLES, build_columns

TABLE_HEADER_ROW = 12   # 0-based; rows above: title, strategy figures
assert FIRST == TABLE_HEADER_ROW + 1
__all__ = ["FIRST", "LINE_TITLES", "TABLE_HEADER_ROW", "SheetInfo", "write_strategy_sheet"]


@dataclass
class SheetInfo:
    """Where things are on a strategy sheet, for the Summary formulas and the charts."""

    name: str
    columns: dict[str, int]
    first_row: int   # 0-based first data row
    last_row: int    # 0-based last data row
    cells: dict[str, str]   # figure -> absolute cell ("$B$4")


def write_strategy_sheet(workbook, fmt: dict, plan: Plan, name: str, r: StrategyResult,
                         decisions: Optional[list[DecisionRef]] = None) -> SheetInfo:
    """The strategy's sheet. ``decisions``: the rows of its schedule (Schedule sheet or
    proposed.schedule), whose cohorts the sheet reads; the sheet then runs to the end of the
    price book so that an edited decision's payments still have their months."""
    sheet = strategy_sheet_name(name)   # its key in English, its label in other languages
    ws = add_sheet(workbook, sheet)
    s, ctx = plan.scenario, plan.context
    book, H = ctx.book, ctx.horizon
    cur = s.finance.currency
    months = len(r.total_by_month)   # the horizon and the months after it still paid
    if decisions is not None:
        months = max(months, book.months)
    write_text(ws, 0, 0, _("Strategy %(name)s: monthly cash flows [%(currency)s]",
                           name=sheet, currency=cur), fmt["title"])
    # Strategy figures: the static chain's capacity (engine decisions) and totals (formulas).
    static = r.capacity if r.capacity is not None else Capacity(0, {})
    params = {"servers": "$B$3"}
    write_text(ws, 2, 0, _("Servers, static chain (engine decision)"))
    ws.write_number(2, 1, static.servers, fmt["input"])
    for i, offer in enumerate(s.commitments, start=1):
        write_text(ws, 1 + i, 3, _("Committed GPUs, offer %(offer)s", offer=offer.id))
        ws.write_number(1 + i, 4, static.committed.get(offer.id, 0), fmt["input"])
        params[f"commit_{i}"] = f"$E${2 + i}"
    params["uses_cloud"] = "$B$4"
    servers_c, commits_c, notes = strategy_cohorts(book, r, decisions, "{first_start}", months)
    cohorts = servers_c + commits_c
    cols_index: dict[str, int] = {}

    def c(key: str, row: int) -> str:
        return f"{col(cols_index[key])}{row}"

    # Column positions first (a dry run with dummy addresses), then the real formulas.
    dummy = (lambda k, x: "") if cohorts else None
    sums = cohort_sums(cohorts, months) if cohorts else None
    for i, column in enumerate(build_columns(plan, r, lambda k, x: "", params, months, dummy,
                                             sums), start=1):
        cols_index[column.key] = i
    first = FIRST + 1   # 1-based excel row of the first month
    first_start = f"${col(cols_index['start'])}${first}"
    block = CohortBlock(cohorts, first_col=len(cols_index) + 2, table_row=FIRST + months + 3,
                        first_start=first_start)
    columns_holder = build_columns(plan, r, c, params, months,
                                   block.sum if cohorts else None, sums)

    def rng(key: str, rows: int = months) -> str:
        letter = col(cols_index[key])
        return f"${letter}${first}:${letter}${first + rows - 1}"

    commits = "+".join(params[f"commit_{i}"] for i in range(1, len(s.commitments) + 1)) or "0"
    figures = [
        ("uses_cloud", N_("Uses cloud capacity (1/0)"),
         f"=IF(OR({commits}>0,{block.any_commitment()}SUM({rng('spot_h')})>0,"
         f"SUM({rng('od_h')})>1E-9),1,0)", 1.0 if r.uses_cloud else 0.0, "int"),
        ("total_cost", N_("Total cost (nominal)"), f"=SUM({rng('total')})", r.total_cost,
         "money_bold"),
        ("pv_cost", N_("PV cost"), f"=SUM({rng('discounted')})", r.pv_cost, "money_bold"),
        ("pv_npv", N_("PV cost via Excel NPV (same figure)"),
         f"=NPV(calc_monthly_rate,{rng('end_net')})+(1+calc_monthly_rate)*NPV("
         f"calc_monthly_rate,{rng('start_pay')})", r.pv_cost, "money"),
        ("pv_useful", N_("PV of useful GPU-hours"), f"=SUMPRODUCT({rng('demand')},{rng('ef')})",
         ctx.useful_pv, "hours"),
        ("cost_per_hour", N_("Cost per useful GPU-hour"), "=IF($B$8>0,$B$6/$B$8,\"-\")",
         r.cost_per_useful_gpu_hour if ctx.useful_pv > 0 else "-", "rate"),
        ("utilization", N_("Owned utilization (of installed GPUs)"),
         f"=IF(SUMPRODUCT({rng('online')},{rng('hours')})>0,SUM({rng('owned_h')})/(SUMPRODUCT("
         f"{rng('online')},{rng('hours')})*owned_gpus_per_server),\"-\")",
         r.owned_utilization if r.owned_utilization is not None else "-", "percent"),
    ]
    cells = {"servers": "$B$3"}
    for i, (key, label, formula, value, f_) in enumerate(figures):
        row = 3 + i
        write_text(ws, row, 0, _(label))
        ws.write_formula(row, 1, formula, fmt[f_], value)
        cells[key] = f"$B${row + 1}"
    assert cells["uses_cloud"] == params["uses_cloud"] and cells["pv_useful"] == "$B$8"
    nominal = r.cost_per_useful_gpu_hour_nominal
    extra = [
        ("cost_per_hour_nominal", N_("Cost per useful GPU-hour, nominal (total / useful GPU-h)"),
         f"=IF(SUM({rng('demand')})>0,$B$5/SUM({rng('demand')}),\"-\")",
         nominal if np.isfinite(nominal) else "-", "rate"),
        ("normal_pv", N_("Normal-run PV: nothing failed or interrupted (engine value)"), None,
         r.normal_cost_pv, "money"),
        ("failure_pv", N_("What failures and interruptions add to the PV cost"), "=$B$6-$H$5",
         r.failure_cost_pv, "money"),
        ("servers_max", N_("Most servers online in a month"), f"=MAX({rng('online', H)})",
         float(r.servers), "int"),
        ("committed_max", N_("Most GPUs committed in a month"), f"=MAX({rng('committed', H)})",
         float(r.committed_gpus_by_month.max(initial=0)), "int"),
    ]
    for i, (key, label, formula, value, f_) in enumerate(extra):
        row = 3 + i
        write_text(ws, row, 6, _(label))
        if formula is None:
            ws.write_number(row, 7, value, fmt[f_])
        else:
            ws.write_formula(row, 7, formula, fmt[f_], value)
        cells[key] = f"$H${row + 1}"
    assert cells["normal_pv"] == "$H$5"
    note = _("Columns under 'Engine volumes (values)' are the engine's numbers; everything "
             "else is a formula over the Assumptions sheet and those volumes.")
    if cohorts:
        note += " " + (_("Servers online and committed GPUs add the cohorts listed under the "
                         "monthly table (their inputs: the Assumptions sheet and the Schedule "
                         "sheet); editing one moves the cash lines, while the dispatch "
                         "(GPU-hours by source, a sorted-demand computation) stays the engine's "
                         "at export.") if name == "staged" else
                       _("Servers online and committed GPUs add the cohorts listed under the "
                         "monthly table (their inputs: the Assumptions sheet); editing one "
                         "moves the cash lines, while the dispatch (GPU-hours by source, a "
                         "sorted-demand computation) stays the engine's at export."))
    write_text(ws, 10, 0, note, fmt["note"])
    for k, text in enumerate(notes):
        write_text(ws, 1, 6 * k, text, fmt["note"])
    # Monthly table.
    group_titles = {"volume": _("Engine volumes (values)"),
                    "schedule": _("Schedules (formulas)"),
                    "server": _("Per owned server (formulas)"),
                    "money": _("Cost lines (formulas)"), "total": _("Totals (formulas)"),
                    "cohort": _("All cohorts (formulas: sums of the cohort columns at the "
                                "right)")}
    hdr = TABLE_HEADER_ROW
    write_text(ws, hdr, 0, _("Month"), fmt["header"])
    seen = set()
    for column in columns_holder:
        ci = cols_index[column.key]
        if column.group not in seen:
            seen.add(column.group)
            write_text(ws, hdr - 1, ci, group_titles[column.group], fmt["group"])
        write_text(ws, hdr, ci, _(column.header), fmt["header"])
    for m, label in enumerate(book.labels[:months]):
        write_text(ws, FIRST + m, 0, label if m < H
                   else _("%(month)s (after horizon)", month=label))
    for column in columns_holder:
        ci, style = cols_index[column.key], fmt[column.fmt]
        values = column.values
        if column.formula is None:
            for m in range(months):
                ws.write_number(FIRST + m, ci, float(values[m]), style)
        else:
            for m in range(months):
                ws.write_formula(FIRST + m, ci, column.formula(FIRST + m + 1), style,
                                 float(values[m]))
    if cohorts:
        block.write(ws, fmt, c, months)
    # Totals row under the table: sums of volumes and money columns.
    total_row = FIRST + months
    write_text(ws, total_row, 0, _("Total"), fmt["bold"])
    for column in columns_holder:
        if column.group in ("money", "total") and column.key not in ("cumulative", "disc_cum") \
                or column.key in ("hours", "demand", "owned_h", "committed_h", "spot_h", "od_h",
                                  "overhead_h"):
            ci = cols_index[column.key]
            ws.write_formula(total_row, ci, f"=SUM({rng(column.key)})", fmt["money_bold"],
                             float(np.sum(column.values)))
    ws.set_column(0, 0, 30)
    ws.set_column(1, len(columns_holder), 14)
    ws.set_row(hdr, 45)
    ws.freeze_panes(FIRST, 1)
    ws.repeat_rows(hdr)
    ws.set_landscape()
    ws.fit_to_pages(1, 0)
    return SheetInfo(sheet, cols_index, FIRST, FIRST + months - 1, cells)
