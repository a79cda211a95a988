"""One monthly sheet per strategy: engine volumes as values, every money figure a formula.

Layout: a block of strategy figures (the static decision's capacity, totals, PV) above a
monthly table (service/xlsx/strategy_columns.py), the cohort tables under the table and the
cohorts' monthly columns at its right (service/xlsx/cohort_block.py): servers owned before the
plan, contracts signed, a schedule's purchases and commitments, or the generations and renewals
of a static strategy. Every formula cell stores the engine's own number (from the plan's
ledger) as its cached value.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from models.ledger import Ledger, StrategyLedger
from models.scenario import Scenario
from service.i18n import N_, _
from service.i18n.labels import LINE_TITLES
from service.xlsx.cells import add_sheet, col, strategy_sheet_name, write_text
from service.xlsx.sheet_formulas import FIRST
from service.xlsx.cohort_block import CohortBlock
from service.xlsx.cohort_sources import DecisionRef, SheetInputs, sheet_cohorts
from service.xlsx.strategy_columns import build_columns

TABLE_HEADER_ROW = 12   # 0-based; rows above: title, strategy figures
assert FIRST == TABLE_HEADER_ROW + 1
SERVERS_CELL, USES_CLOUD_CELL = "$B$3", "$B$4"
__all__ = ["FIRST", "LINE_TITLES", "TABLE_HEADER_ROW", "SheetInfo", "write_strategy_sheet"]


@dataclass
class SheetInfo:
    """Where things are on a strategy sheet, for the Summary formulas and the charts."""

    name: str
    columns: dict[str, int]
    first_row: int   # 0-based first data row
    last_row: int    # 0-based last data row
    cells: dict[str, str]   # figure -> absolute cell ("$B$4")


def _value(x: Optional[float]):
    """A figure the engine could not compute (no work, no servers) is shown as '-'."""
    return "-" if x is None else x


def write_strategy_sheet(workbook, fmt: dict, s: Scenario, ledger: Ledger, sl: StrategyLedger,
                         decisions: Optional[dict[str, DecisionRef]] = None) -> SheetInfo:
    """The strategy's sheet. ``decisions``: the rows of its schedule (Schedule sheet or
    proposed.schedule) by month, whose cells its decision cohorts read."""
    sheet = strategy_sheet_name(sl.name)   # its key in English, its label in other languages
    ws = add_sheet(workbook, sheet)
    H = ledger.horizon
    cur = s.finance.currency
    months = sl.rows
    fig = sl.figures
    write_text(ws, 0, 0, _("Strategy %(name)s: monthly cash flows [%(currency)s]",
                           name=sheet, currency=cur), fmt["title"])
    # The static decision's capacity (engine decisions; inputs of its chain's cohorts).
    chain_servers = any(c.origin == "chain" and c.kind == "server" for c in sl.cohorts)
    params = {"servers": SERVERS_CELL}
    write_text(ws, 2, 0, _("Servers, static decision (engine)"))
    ws.write_number(2, 1, sl.static_servers, fmt["input"] if chain_servers else fmt["int"])
    for i, offer in enumerate(s.commitments, start=1):
        chained = any(c.origin == "chain" and c.offer == offer.id for c in sl.cohorts)
        write_text(ws, 1 + i, 3, _("Committed GPUs, offer %(offer)s", offer=offer.id))
        ws.write_number(1 + i, 4, sl.static_committed.get(offer.id, 0),
                        fmt["input"] if chained else fmt["int"])
        params[f"commit_{i}"] = f"$E${2 + i}"
    cols_index: dict[str, int] = {}

    def c(key: str, row: int) -> str:
        return f"{col(cols_index[key])}{row}"

    # Column positions first (a dry run with dummy addresses), then the real formulas.
    dummy = (lambda k, x: "") if sl.cohorts else None
    for i, column in enumerate(build_columns(ledger, sl, lambda k, x: "", months, dummy,
                                             USES_CLOUD_CELL), start=1):
        cols_index[column.key] = i
    first = FIRST + 1   # 1-based excel row of the first month
    first_start = f"${col(cols_index['start'])}${first}"
    cohorts, notes = sheet_cohorts(s, sl, ledger.labels,
                                   SheetInputs(first_start, params, decisions or {}))
    block = CohortBlock(cohorts, first_col=len(cols_index) + 2, table_row=FIRST + months + 3,
                        first_start=first_start)
    columns = build_columns(ledger, sl, c, months, block.sum if cohorts else None,
                            USES_CLOUD_CELL)

    def rng(key: str, rows: int = months) -> str:
        letter = col(cols_index[key])
        return f"${letter}${first}:${letter}${first + rows - 1}"

    figures = [
        ("uses_cloud", N_("Uses cloud capacity (1/0)"),
         f"=IF(OR({block.any_commitment()}SUM({rng('spot_h')})>0,SUM({rng('od_h')})>1E-9),"
         "1,0)", fig["uses_cloud"], "int"),
        ("total_cost", N_("Total cost (nominal)"), f"=SUM({rng('total')})", fig["total_cost"],
         "money_bold"),
        ("pv_cost", N_("PV cost"), f"=SUM({rng('discounted')})", fig["pv_cost"], "money_bold"),
        ("pv_npv", N_("PV cost via Excel NPV (same figure)"),
         f"=NPV(calc_monthly_rate,{rng('end_net')})+(1+calc_monthly_rate)*NPV("
         f"calc_monthly_rate,{rng('start_pay')})", fig["pv_cost"], "money"),
        ("pv_useful", N_("PV of useful GPU-hours"), f"=SUMPRODUCT({rng('demand')},{rng('ef')})",
         ledger.useful_pv, "hours"),
        ("cost_per_hour", N_("Cost per useful GPU-hour"), "=IF($B$8>0,$B$6/$B$8,\"-\")",
         _value(fig["cost_per_useful_gpu_hour"]), "rate"),
        ("utilization", N_("Owned utilization (of installed GPUs)"),
         f"=IF(SUMPRODUCT({rng('online')},{rng('hours')})>0,SUM({rng('owned_h')})/(SUMPRODUCT("
         f"{rng('online')},{rng('hours')})*owned_gpus_per_server),\"-\")",
         _value(fig["owned_utilization"]), "percent"),
    ]
    cells = {"servers": SERVERS_CELL}
    for i, (key, label, formula, value, f_) in enumerate(figures):
        row = 3 + i
        write_text(ws, row, 0, _(label))
        ws.write_formula(row, 1, formula, fmt[f_], value)
        cells[key] = f"$B${row + 1}"
    assert cells["uses_cloud"] == USES_CLOUD_CELL and cells["pv_useful"] == "$B$8"
    extra = [
        ("cost_per_hour_nominal", N_("Cost per useful GPU-hour, nominal (total / useful GPU-h)"),
         f"=IF(SUM({rng('demand')})>0,$B$5/SUM({rng('demand')}),\"-\")",
         _value(fig["cost_per_useful_gpu_hour_nominal"]), "rate"),
        ("normal_pv", N_("Normal-run PV: nothing failed or interrupted (engine value)"), None,
         fig["normal_cost_pv"], "money"),
        ("failure_pv", N_("What failures and interruptions add to the PV cost"), "=$B$6-$H$5",
         fig["failure_cost_pv"], "money"),
        ("servers_max", N_("Most servers online in a month"), f"=MAX({rng('online', H)})",
         fig["servers_max"], "int"),
        ("committed_max", N_("Most GPUs committed in a month"), f"=MAX({rng('committed', H)})",
         fig["committed_max"], "int"),
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
                         "at export.") if sl.name == "staged" else
                       _("Servers online and committed GPUs add the cohorts listed under the "
                         "monthly table (their inputs: the Assumptions sheet and the yellow "
                         "capacity cells above); editing one moves the cash lines, while the "
                         "dispatch (GPU-hours by source, a sorted-demand computation) stays the "
                         "engine's at export."))
    write_text(ws, 10, 0, note, fmt["note"])
    for k, text in enumerate(notes):
        write_text(ws, 1, 6 * k, text, fmt["note"])
    # Monthly table.
    group_titles = {"volume": _("Engine volumes (values)"),
                    "schedule": _("Schedules (formulas)"),
                    "server": _("Tax items of the cohorts (formulas)"),
                    "money": _("Cost lines (formulas)"), "total": _("Totals (formulas)"),
                    "cohort": _("All cohorts (formulas: sums of the cohort columns at the "
                                "right)")}
    hdr = TABLE_HEADER_ROW
    write_text(ws, hdr, 0, _("Month"), fmt["header"])
    seen = set()
    for column in columns:
        ci = cols_index[column.key]
        if column.group not in seen:
            seen.add(column.group)
            write_text(ws, hdr - 1, ci, group_titles[column.group], fmt["group"])
        write_text(ws, hdr, ci, _(column.header), fmt["header"])
    for m, label in enumerate(ledger.labels[:months]):
        write_text(ws, FIRST + m, 0, label if m < H
                   else _("%(month)s (after horizon)", month=label))
    for column in columns:
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
    for column in columns:
        if column.group in ("money", "total") and column.key not in ("cumulative", "disc_cum") \
                or column.key in ("hours", "demand", "owned_h", "committed_h", "spot_h", "od_h",
                                  "overhead_h"):
            ci = cols_index[column.key]
            ws.write_formula(total_row, ci, f"=SUM({rng(column.key)})", fmt["money_bold"],
                             float(np.sum(column.values)))
    ws.set_column(0, 0, 30)
    ws.set_column(1, len(columns), 14)
    ws.set_row(hdr, 45)
    ws.freeze_panes(FIRST, 1)
    ws.repeat_rows(hdr)
    ws.set_landscape()
    ws.fit_to_pages(1, 0)
    return SheetInfo(sheet, cols_index, FIRST, FIRST + months - 1, cells)
