"""The Schedule sheet: the staged plan's decisions as input cells (issue 14).

One row per decision point of the staged plan (every ``staging.decision_interval_months`` from
the first month, and the ends of useful lives and terms) and per month the engine decided
something in: the month, its index, servers to buy, servers sold, GPUs to commit per offer.
The staged strategy sheet has one cohort per row (and per row and offer) whose count reads
these cells, so moving a purchase by a quarter moves the cash lines. The dispatch stays the
engine's: the workbook re-prices a schedule, it does not re-dispatch or re-optimize it.
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from models.ledger import StrategyLedger
from models.scenario import Scenario
from service.i18n import N_, gettext as tr
from service.i18n.labels import server_type_name
from service.xlsx.cells import add_sheet, col, sheet_ref, write_text
from service.xlsx.cohort_sources import DecisionRef
from service.xlsx.cohorts import month_index
from service.xlsx.server_sources import SERVERS_NOTE
from service.xlsx.print_setup import (ROW_HEIGHT, PrintLabel, print_nothing, print_setup,
                                      text_lines)

SHEET = N_("Schedule")   # sheet name: English here, written through gettext
HEADER_ROW = 5     # 0-based
START_CELL = "$B$4"


def summary_schedule(doc: dict) -> Optional[str]:
    """The strategy whose schedule the Summary prints in sentences: the recommended one when
    it has a schedule, else the staged plan when it has one, else none."""
    rec = doc["recommendation"]
    if doc["strategies"].get(rec, {}).get("schedule"):
        return rec
    return "staged" if doc["strategies"].get("staged", {}).get("schedule") else None


def write_schedule(workbook, fmt: dict, s: Scenario, first_month: str, sl: StrategyLedger,
                   label: Optional[PrintLabel] = None, printed: bool = True
                   ) -> dict[str, DecisionRef]:
    """Write the sheet; return its rows by month, as the cells the staged sheet's cohorts
    read. Not ``printed`` when the Summary prints the same decisions in sentences
    (:func:`summary_schedule`): the grid, mostly zeros, stays on screen."""
    sheet = tr(SHEET)
    ws = add_sheet(workbook, sheet)
    write_text(ws, 0, 0, tr("Schedule of the staged plan: decisions by month"), fmt["title"])
    note = tr("Yellow cells are inputs: the staged sheet has one server cohort per row and one "
              "commitment cohort per row and offer, reading these cells. Change a purchase or "
              "a commitment (or move it to another row) and the staged sheet's cash lines and "
              "PV follow. The dispatch (GPU-hours owned, committed, spot, on demand) stays the "
              "engine's at export: the workbook re-prices a schedule, it does not re-dispatch "
              "or re-optimize it. Months are text YYYY-MM; rows without a decision are "
              "decision points where one may be added.")
    note += " " + tr(SERVERS_NOTE)
    ws.merge_range(1, 0, 2, 7, "", fmt["note"])
    write_text(ws, 1, 0, note, fmt["note"])
    # the note over rows 2-3, as tall as its lines (columns A-H: 16 + 3 x 14 + 4 x 18)
    lines = text_lines(note, 16 + 3 * 14 + 4 * 18)
    for r in (1, 2):
        ws.set_row(r, ROW_HEIGHT * lines / 2)
    write_first_month(ws, fmt, first_month)
    refs = write_decision_rows(ws, sheet, fmt, s, sl, HEADER_ROW, START_CELL)
    decision_columns(ws, s)
    ws.set_row(HEADER_ROW, 30)
    ws.freeze_panes(HEADER_ROW + 1, 0)
    print_setup(ws, label or PrintLabel(s.name), (HEADER_ROW, HEADER_ROW))
    if not printed:
        print_nothing(ws)
    return refs


def write_first_month(ws, fmt: dict, first_month: str) -> None:
    """The plan's first month as a date in ``START_CELL`` (B4), labelled: the decision rows'
    month indexes count from it."""
    write_text(ws, 3, 0, tr("Plan's first month"), fmt["bold"])
    first = np.datetime64(first_month, "D")
    ws.write_number(3, 1, float((first - np.datetime64("1899-12-30", "D")).astype(int)),
                    fmt["date"])


def write_decision_rows(ws, sheet: str, fmt: dict, s: Scenario, sl: StrategyLedger,
                        header_row: int, start_cell: str) -> dict[str, DecisionRef]:
    """A schedule's decision rows as input cells under a header at ``header_row`` (0-based):
    month, month index (a formula from the plan's first month in ``start_cell``), servers to
    buy and sold, GPUs to commit per offer, and a fleet's servers by type. Returns the rows by
    month, as the cells a strategy sheet's cohorts read."""
    fleet = [t.id for t in s.server_types]
    heads = [tr("Month"), tr("Month index"), tr("Buy servers"), tr("Sell servers (engine)")] + [
        tr("Commit %(offer)s [GPUs, %(months)s months]", offer=o.id, months=o.term_months)
        for o in s.commitments]
    for type_id in fleet:      # a fleet (issue 26): what is bought and sold of each type
        heads += [tr("Buy %(type)s [servers]", type=server_type_name(type_id)),
                  tr("Sell %(type)s [servers] (engine)", type=server_type_name(type_id))]
    by_type = 4 + len(s.commitments)    # the first per-type column
    for j, head in enumerate(heads):
        write_text(ws, header_row, j, head, fmt["header"])
    refs = {}
    for i, d in enumerate(sl.schedule_rows):
        row = header_row + 1 + i
        x = row + 1
        write_text(ws, row, 0, d.month, fmt["input"])
        ws.write_formula(row, 1, "=" + month_index(f"$A${x}", start_cell), fmt["derived"],
                         d.index)
        buy_cells = {}
        for k, type_id in enumerate(fleet):
            at = by_type + 2 * k
            ws.write_number(row, at, d.buy_by_type.get(type_id, 0), fmt["input"])
            ws.write_number(row, at + 1, d.sell_by_type.get(type_id, 0), fmt["int"])
            buy_cells[type_id] = sheet_ref(sheet, f"${col(at)}${x}")
        # the servers of every type: a sum of the type cells
        cells = ",".join(f"{col(by_type + 2 * k)}{x}" for k in range(len(fleet)))
        ws.write_formula(row, 2, f"=SUM({cells})", fmt["derived"],
                         sum(d.buy_by_type.values()))
        ws.write_number(row, 3, sum(d.sell_by_type.values()), fmt["int"])
        commit = {}
        for k, offer in enumerate(s.commitments):
            ws.write_number(row, 4 + k, d.commit.get(offer.id, 0), fmt["input"])
            commit[offer.id] = sheet_ref(sheet, f"${col(4 + k)}${x}")
        refs[d.month] = DecisionRef(d.month, sheet_ref(sheet, f"$B${x}"), None, commit,
                                    buy_cells)
    return refs


def decision_columns(ws, s: Scenario) -> None:
    """The widths of :func:`write_decision_rows`' columns."""
    ws.set_column(0, 0, 16)
    ws.set_column(1, 3, 14)
    ws.set_column(4, 4 + len(s.commitments), 18)
    first = 4 + len(s.commitments)
    ws.set_column(first, first + 2 * len(s.server_types) - 1, 14)
