"""One monthly sheet per strategy: engine volumes as values, every money figure a formula.

Layout: a block of strategy figures (the static decision's capacity, totals, PV) and the
yearly roll-up (one column per calendar year: sums of the year's rows of the monthly table,
formulas) above the monthly table (service/xlsx/strategy_columns.py), the cohort tables under
the table and the cohorts' monthly columns at its right (service/xlsx/cohort_block.py):
servers owned before the plan, contracts signed, a schedule's purchases and commitments, or the
generations and renewals of a static strategy. The figures and the roll-up are the print area
(one A4 page); the monthly columns stay on screen. Every formula cell stores the engine's own
number (from the plan's ledger) as its cached value.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from models.ledger import Ledger, StrategyLedger
from models.lines import COST_LINES, CREDIT_LINES
from models.scenario import Scenario
from service.i18n import N_, _
from service.i18n.labels import LINE_TITLES, strategy_label
from service.i18n.labels import server_type_name
from service.xlsx.cells import add_sheet, col, strategy_sheet_name, write_text
from service.xlsx.print_setup import (ROW_HEIGHT, PrintLabel, area_points, fit, print_nothing,
                                      print_setup, text_lines)
from service.xlsx.sheet_formulas import FIRST
from service.xlsx.cohort_block import CohortBlock
from service.xlsx.fleet_columns import installed_gpu_hours
from service.xlsx.cohort_sources import DecisionRef, SheetInputs, sheet_cohorts
from service.xlsx.strategy_columns import Column, build_columns

# The yearly roll-up: (monthly column, how a year adds up its months, label; None: the
# column's header). Volumes, capacity, every cost line and credit, total and PV.
ROLLUP = ([(k, "SUM", None) for k in ("demand", "owned_h", "committed_h", "spot_h", "od_h")]
          + [("online", "MAX", N_("Most servers online in a month")),
             ("committed", "MAX", N_("Most GPUs committed in a month"))]
          + [(k, "SUM", None) for k in COST_LINES + CREDIT_LINES]
          + [("total", "SUM", None), ("discounted", "SUM", None)])
NOTE_ROW = 10            # 0-based: the sheet's note, under the figures
ROLLUP_TITLE_ROW = 11    # the roll-up's title and its header (the years)
ROLLUP_FIRST = ROLLUP_TITLE_ROW + 1
ROLLUP_LAST = ROLLUP_FIRST + len(ROLLUP) - 1
TABLE_HEADER_ROW = ROLLUP_LAST + 3   # 0-based; its group titles above it, the key row above
assert FIRST == TABLE_HEADER_ROW + 1
SERVERS_CELL, USES_CLOUD_CELL = "$B$3", "$B$4"
LABEL_WIDTH, COLUMN_WIDTH = 34, 12   # characters: column A (labels), the other columns
# The right-hand figures: label over columns D..G (merged), value in H; the static
# commitments under them, the offers past the eighth row in a third pair (J..M, N).
# (first label column, last label column, value column): five figures, up to eight offers and
# eight server types
PAIRS = ((3, 6, 7), (9, 12, 13), (15, 18, 19))
FIGURE_ROWS = range(2, NOTE_ROW)
__all__ = ["FIRST", "LINE_TITLES", "ROLLUP", "TABLE_HEADER_ROW", "SheetInfo",
           "write_strategy_sheet"]


@dataclass
class SheetInfo:
    """Where things are on a strategy sheet, for the Summary formulas and the charts."""

    name: str
    columns: dict[str, int]
    first_row: int   # 0-based first data row
    last_row: int    # 0-based last data row
    cells: dict[str, str]   # figure -> absolute cell ("$B$4")
    rollup_years: list[str] = field(default_factory=list)   # the roll-up's columns
    # year (and "Total") -> (cell of the roll-up's total cost, the engine's figure)
    rollup_total: dict[str, tuple[str, float]] = field(default_factory=dict)


def _value(x: Optional[float]):
    """A figure the engine could not compute (no work, no servers) is shown as '-'."""
    return "-" if x is None else x


def right_slots(count: int) -> list[tuple[int, int, int, int]]:
    """(row, first label column, last label column, value column) of the ``count``
    right-hand figures, filling the figure rows of the first pair, then the second."""
    slots = [(r, a, b, v) for a, b, v in PAIRS for r in FIGURE_ROWS]
    return slots[:count]


def write_strategy_sheet(workbook, fmt: dict, s: Scenario, ledger: Ledger, sl: StrategyLedger,
                         decisions: Optional[dict[str, DecisionRef]] = None,
                         print_label: Optional[PrintLabel] = None,
                         sheet_name: Optional[str] = None,
                         title: Optional[str] = None, printed: bool = True) -> SheetInfo:
    """The strategy's sheet. ``decisions``: the rows of its schedule (Schedule or Scenarios
    sheet, proposed.schedule) by month, whose cells its decision cohorts read; ``print_label``
    names the revision in the printed footer; ``sheet_name`` and ``title`` name a sheet that is
    not the strategy's own (a robust plan's demand scenario); a sheet not ``printed`` stays on
    screen only (print_setup.print_nothing)."""
    # its key in English, its label in other languages
    sheet = sheet_name or strategy_sheet_name(sl.name)
    ws = add_sheet(workbook, sheet)
    H = ledger.horizon
    cur = s.finance.currency
    months = sl.rows
    fig = sl.figures
    write_text(ws, 0, 0, _("Strategy %(name)s: monthly cash flows [%(currency)s]",
                           name=title or strategy_label(sl.name), currency=cur), fmt["title"])
    # The static decision's capacity (engine decisions; inputs of its chain's cohorts): each
    # type's servers and each offer's GPUs, and the servers of every type beside the figures
    params: dict[str, str] = {}
    slots = right_slots(5 + len(s.commitments) + len(s.server_types))
    servers: dict[str, str] = {}
    for j, kind in enumerate(s.server_types, start=1):
        chained = any(c.origin == "chain" and c.type == kind.id for c in sl.cohorts)
        row, first_label, last_label, value_col = slots[4 + len(s.commitments) + j]
        ws.merge_range(row, first_label, row, last_label, "")
        write_text(ws, row, first_label,
                   _("Servers of type %(type)s, static decision",
                     type=server_type_name(kind.id)))
        ws.write_number(row, value_col, sl.static_servers_by_type.get(kind.id, 0),
                        fmt["input"] if chained else fmt["int"])
        servers[kind.id] = f"${col(value_col)}${row + 1}"
    write_text(ws, 2, 0, _("Servers, static decision (engine)"))
    ws.write_formula(2, 1, "=" + "+".join(servers.values()), fmt["int"], sl.static_servers)
    for i, offer in enumerate(s.commitments, start=1):
        chained = any(c.origin == "chain" and c.offer == offer.id for c in sl.cohorts)
        row, first_label, last_label, value_col = slots[4 + i]
        ws.merge_range(row, first_label, row, last_label, "")
        write_text(ws, row, first_label, _("Committed GPUs, offer %(offer)s", offer=offer.id))
        ws.write_number(row, value_col, sl.static_committed.get(offer.id, 0),
                        fmt["input"] if chained else fmt["int"])
        params[f"commit_{i}"] = f"${col(value_col)}${row + 1}"
    cols_index: dict[str, int] = {}

    def c(key: str, row: int) -> str:
        return f"{col(cols_index[key])}{row}"

    # Column positions first (a dry run with dummy addresses), then the real formulas.
    dummy = (lambda k, x: "") if sl.cohorts else None
    types = tuple((i, kind.id) for i, kind in enumerate(s.server_types, start=1))   # a fleet
    for i, column in enumerate(build_columns(ledger, sl, lambda k, x: "", months, dummy,
                                             USES_CLOUD_CELL, types), start=1):
        cols_index[column.key] = i
    first = FIRST + 1   # 1-based excel row of the first month
    first_start = f"${col(cols_index['start'])}${first}"
    cohorts, notes = sheet_cohorts(s, sl, ledger.labels,
                                   SheetInputs(first_start, params, decisions or {},
                                               servers=servers))
    block = CohortBlock(cohorts, first_col=len(cols_index) + 2, table_row=FIRST + months + 3,
                        first_start=first_start, header_row=TABLE_HEADER_ROW)
    columns = build_columns(ledger, sl, c, months, block.sum if cohorts else None,
                            USES_CLOUD_CELL, types)
    if not cohorts:
        types = ()

    def rng(key: str, rows: int = months) -> str:
        letter = col(cols_index[key])
        return f"${letter}${first}:${letter}${first + rows - 1}"

    # GPU-hours the servers could run: each type's GPUs per server in a fleet
    installed = (installed_gpu_hours(types, rng) if types else
                 f"(SUMPRODUCT({rng('online')},{rng('hours')})*owned_gpus_per_server)")
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
         f"=IF(SUMPRODUCT({rng('online')},{rng('hours')})>0,SUM({rng('owned_h')})/{installed},"
         "\"-\")",
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
        ("failure_pv", N_("What failures and interruptions add to the PV cost"),
         "=$B$6-{normal_pv}",
         fig["failure_cost_pv"], "money"),
        ("servers_max", N_("Most servers online in a month"), f"=MAX({rng('online', H)})",
         fig["servers_max"], "int"),
        ("committed_max", N_("Most GPUs committed in a month"), f"=MAX({rng('committed', H)})",
         fig["committed_max"], "int"),
    ]
    for (key, text, formula, value, f_), (row, first_label, last_label, value_col) in zip(
            extra, slots):
        ws.merge_range(row, first_label, row, last_label, "")
        write_text(ws, row, first_label, _(text))
        if formula is None:
            ws.write_number(row, value_col, value, fmt[f_])
        else:
            ws.write_formula(row, value_col, formula.format(**cells), fmt[f_], value)
        cells[key] = f"${col(value_col)}${row + 1}"
    note = _("Columns under 'Engine volumes (values)' are the engine's numbers; everything "
             "else is a formula over the Assumptions sheet and those volumes.")
    if cohorts:
        note += " " + (_("Servers online and committed GPUs add the cohorts listed under the "
                         "monthly table (their inputs: the Assumptions sheet and the Schedule "
                         "sheet); editing one moves the cash lines, while the dispatch "
                         "(GPU-hours by source, a sorted-demand computation) stays the engine's "
                         "at export.") if sl.name == "staged" else
                       _("Servers online and committed GPUs add the cohorts listed under the "
                         "monthly table (their inputs: the Assumptions sheet and this demand "
                         "scenario's block on the Scenarios sheet); editing one moves the cash "
                         "lines, while the dispatch (GPU-hours by source, on this scenario's "
                         "demand) stays the engine's at export.") if sl.name == "robust" else
                       _("Servers online and committed GPUs add the cohorts listed under the "
                         "monthly table (their inputs: the Assumptions sheet and the yellow "
                         "capacity cells above); editing one moves the cash lines, while the "
                         "dispatch (GPU-hours by source, a sorted-demand computation) stays the "
                         "engine's at export."))
    last_print = max(PAIRS[0][2], len(_years(ledger.labels[:months], H)) + 1)
    if len(s.commitments) > len(FIGURE_ROWS) - 5:
        last_print = max(last_print, PAIRS[1][2])
    ws.merge_range(NOTE_ROW, 0, NOTE_ROW, last_print, "", fmt["note"])
    write_text(ws, NOTE_ROW, 0, note, fmt["note"])
    note_height = ROW_HEIGHT * text_lines(note, LABEL_WIDTH + COLUMN_WIDTH * last_print)
    ws.set_row(NOTE_ROW, note_height)
    ws.set_row(ROLLUP_TITLE_ROW, 2 * ROW_HEIGHT)    # the roll-up's title and years wrap
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
            ws.write_formula_rows(FIRST, ci, [[column.formula(FIRST + m + 1)]
                                              for m in range(months)],
                                  [style], [[float(values[m])] for m in range(months)])
    if cohorts:
        block.write(ws, fmt, c, months)
    years, totals = _write_rollup(ws, fmt, columns, cols_index, ledger.labels[:months], H)
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
    ws.set_column(0, 0, LABEL_WIDTH)
    ws.set_column(1, len(columns), COLUMN_WIDTH)
    ws.set_row(hdr, 45)
    ws.freeze_panes(0, 1)   # the labels; the roll-up and the monthly table scroll
    # Print the figures and the roll-up: the monthly columns stay on screen.
    ws.print_area(0, 0, ROLLUP_LAST, last_print)
    width, height = area_points([LABEL_WIDTH] + [COLUMN_WIDTH] * last_print,
                                [ROW_HEIGHT + 4] + [ROW_HEIGHT] * (ROLLUP_LAST + 1)
                                + [note_height - ROW_HEIGHT])
    print_setup(ws, print_label or PrintLabel(s.name), pages_tall=1, scale=fit(width, height))
    if not printed:
        print_nothing(ws)
    return SheetInfo(sheet, cols_index, FIRST, FIRST + months - 1, cells, years, totals)


def _years(labels: list[str], horizon: int) -> list[tuple[str, int, int]]:
    """(year, first row, last row) of each calendar year of the horizon's months, 0-based rows
    of the monthly table; the months after the horizon (payments of contracts that run past
    it) in one more column."""
    out: list[tuple[str, int, int]] = []
    for m, label in enumerate(labels):
        year = label[:4] if m < horizon else _("after the horizon")
        if out and out[-1][0] == year:
            out[-1] = (year, out[-1][1], FIRST + m)
        else:
            out.append((year, FIRST + m, FIRST + m))
    return out


def _write_rollup(ws, fmt: dict, columns: list[Column], cols_index: dict[str, int],
                  labels: list[str], horizon: int
                  ) -> tuple[list[str], dict[str, tuple[str, float]]]:
    """The yearly roll-up: one row per ROLLUP item, one column per calendar year (SUM or MAX
    over the year's rows of the monthly column) and the total (SUM or MAX of the years), each
    caching the engine's figure. Returns its column titles and, by title, the cell of its
    total cost with the engine's figure."""
    years = _years(labels, horizon)
    by_key = {column.key: column for column in columns}
    head = ROLLUP_TITLE_ROW
    write_text(ws, head, 0, _("Yearly roll-up (formulas over the monthly table below)"),
               fmt["header"])
    for j, (year, _first, _last) in enumerate(years, start=1):
        write_text(ws, head, j, year, fmt["header_right"])
    total_col = len(years) + 1
    write_text(ws, head, total_col, _("Total"), fmt["header_right"])
    totals: dict[str, tuple[str, float]] = {}
    titles = [year for year, _first, _last in years] + [_("Total")]
    for i, (key, how, text) in enumerate(ROLLUP):
        row, column = ROLLUP_FIRST + i, by_key[key]
        letter = col(cols_index[key])
        money = column.group in ("money", "total") or key in ("prepaid", "taxable_gain")
        bold = key in ("total", "discounted")
        style = fmt["money_bold" if bold else "money"] if money else fmt["count"]
        write_text(ws, row, 0, _(text) if text else _(column.header),
                   fmt["bold"] if bold else None)
        values = np.asarray(column.values, float)
        cached = []
        for j, (_year, first, last) in enumerate(years, start=1):
            part = values[first - FIRST:last - FIRST + 1]
            value = float(part.max() if how == "MAX" else part.sum())
            cached.append(value)
            ws.write_formula(row, j, f"={how}({letter}{first + 1}:{letter}{last + 1})", style,
                             value)
        cached.append(float(max(cached) if how == "MAX" else sum(cached)))
        ws.write_formula(row, total_col, f"={how}({col(1)}{row + 1}:{col(len(years))}"
                         f"{row + 1})", style, cached[-1])
        if key == "total":
            totals = {title: (f"${col(j)}${row + 1}", value)
                      for j, (title, value) in enumerate(zip(titles, cached), start=1)}
    return titles, totals
