"""The Profile sheet: the usage as ingested (per period) and the plan's monthly demand."""
from __future__ import annotations

import numpy as np

from models.ledger import Ledger
from service.i18n import N_, _
from service.i18n.labels import PERIOD_UNITS
from service.xlsx.cells import add_sheet, write_text
from service.xlsx.print_setup import PrintLabel, print_setup

SHEET = N_("Profile")  # sheet name, through _()
EXCEL_EPOCH = np.datetime64("1899-12-30T00", "h")
EMPTY_COL = 6   # G, between the monthly demand and the usage as ingested: always empty


def write_profile(workbook, fmt: dict, ledger: Ledger, print_label: PrintLabel) -> None:
    """The sheet; it prints nothing (its print area is one empty cell): the monthly demand is
    every strategy sheet's, by year in their roll-ups, and the usage as ingested would be
    hundreds of pages."""
    ws = add_sheet(workbook, _(SHEET))
    profile, H = ledger.profile, ledger.horizon
    period = _(PERIOD_UNITS.get(profile.period, profile.period))
    write_text(ws, 0, 0, _("Usage profile"), fmt["title"])
    write_text(ws, 1, 0, _("As ingested: %(count)s periods of one %(period)s, %(hours)s "
                           "GPU-hours. Plan demand: the profile laid over the plan's "
                           "%(plan_hours)s hours (repeated and grown as the scenario says). All "
                           "values here are engine volumes.",
                           count=f"{len(profile.starts):,}", period=period,
                           hours=f"{profile.gpu_hours:,.1f}",
                           plan_hours=f"{int(ledger.hours[:H].sum()):,}"), fmt["note"])
    # Plan demand by month (columns A-E).
    heads = [_("Plan month"), _("Hours"), _("Steady [GPU-h]"), _("Interruptible [GPU-h]"),
             _("Total [GPU-h]"), _("Peak [GPUs]")]
    for c, h in enumerate(heads):
        write_text(ws, 3, c, h, fmt["header"])
    steady, inter, peak = ledger.steady, ledger.interruptible, ledger.peak
    for m, label in enumerate(ledger.labels[:H]):
        row = 4 + m
        write_text(ws, row, 0, label)
        ws.write_number(row, 1, float(ledger.hours[m]), fmt["int"])
        ws.write_number(row, 2, float(steady[m]), fmt["hours"])
        ws.write_number(row, 3, float(inter[m]), fmt["hours"])
        ws.write_number(row, 4, float(steady[m] + inter[m]), fmt["hours"])
        ws.write_number(row, 5, float(peak[m]), fmt["hours"])
    # Usage as ingested (columns H-K), one row per period.
    heads = [_("Period start (%(period)s)", period=period), _("Steady [GPU-h]"),
             _("Interruptible [GPU-h]")]
    for c, h in enumerate(heads):
        write_text(ws, 3, 7 + c, h, fmt["header"])
    starts = np.array(profile.starts, dtype="datetime64[h]")
    serial = ((starts - EXCEL_EPOCH) / np.timedelta64(1, "h") / 24.0).tolist()
    st, it = profile.steady.tolist(), profile.interruptible.tolist()
    # Up to tens of thousands of rows: General format for the volumes keeps the XML lean.
    date_fmt = fmt["datetime"]
    write = ws.write_number
    for i in range(len(serial)):
        row = 4 + i
        write(row, 7, serial[i], date_fmt)
        write(row, 8, st[i])
        write(row, 9, it[i])
    # Teams (user text: written as strings).
    if profile.teams:
        write_text(ws, 3, 13, _("Team"), fmt["header"])
        write_text(ws, 3, 14, _("GPU-hours"), fmt["header"])
        for i, (team, hours) in enumerate(profile.teams.items()):
            write_text(ws, 4 + i, 13, team)
            ws.write_number(4 + i, 14, float(hours), fmt["hours"])
    ws.set_column(0, 0, 12)
    ws.set_column(1, 5, 16)
    ws.set_column(7, 7, 18)
    ws.set_column(8, 9, 16)
    ws.set_column(13, 14, 20)
    ws.set_row(3, 30)
    ws.freeze_panes(4, 0)
    print_setup(ws, print_label)
    ws.print_area(0, EMPTY_COL, 0, EMPTY_COL)   # G1: nothing to print
