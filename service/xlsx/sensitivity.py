"""The Sensitivity sheet: tornado and Monte Carlo results of the engine (design 5.4, 6), with
the Monte Carlo of the staged schedule and of the proposed capacity, each held fixed."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from models.scenario import Scenario
from service.i18n import N_, gettext as tr
from service.i18n.labels import assumption_label, strategy_label
from service.xlsx.cells import add_sheet, write_text
from service.xlsx.print_setup import (ROW_HEIGHT, PrintLabel, area_points, chart_text, fit,
                                      print_setup)

SHEET = N_("Sensitivity")  # sheet name, through tr()
TORNADO_COLUMNS = (("label", N_("Assumption"), None), ("unit", N_("Unit"), None),
                   ("base", N_("Base"), "number"), ("low", N_("Low"), "number"),
                   ("high", N_("High"), "number"), ("saving_low", N_("Saving at low"), "money"),
                   ("saving_high", N_("Saving at high"), "money"),
                   ("swing", N_("Swing"), "money"))
WIDTHS = (24, 32, 11, 11, 11, 13, 13, 13)   # columns A-H: the printed page
PRINT_LAST = len(WIDTHS) - 1
TORNADO_WIDTH = 450   # pixels: from column D to the end of H
MC_ROWS = (("saving_p10", N_("Saving P10"), "money"), ("saving_p50", N_("Saving P50"), "money"),
           ("saving_p90", N_("Saving P90"), "money"), ("saving_mean", N_("Saving mean"), "money"),
           ("probability_buy_cheaper", N_("Probability that buying beats the baseline"),
            "percent"))

HELD_ROWS = {"staged": (("probability_beats_cloud_only",
                         N_("Probability it beats the best cloud-only plan"), "percent"),
                        ("probability_beats_best_static",
                         N_("Probability it beats the best static plan"), "percent")),
             "proposed": (("probability_buy_cheaper", N_("Probability it beats the baseline"),
                           "percent"),)}


def _number(ws, row, column, value: Any, style) -> None:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and np.isfinite(value):
        ws.write_number(row, column, float(value), style)
    elif value is not None:
        write_text(ws, row, column, value)


def _held_schedules(ws, fmt: dict, u: dict, row: int) -> int:
    """The Monte Carlo of plans held fixed under every draw (the staged schedule, the
    proposed capacity): P10/P50/P90 of the saving against the baseline and how often they
    win. Returns the next free row."""
    for key, title in (("staged", N_("Staged schedule held fixed (against %(baseline)s)")),
                       ("proposed", N_("Proposed capacity held fixed (against %(baseline)s)"))):
        figures = u.get(key)
        if not figures:
            continue
        # the baseline by its key in English workbooks (as its sheet), its label otherwise
        write_text(ws, row, 0, tr(title, baseline=strategy_label(u.get("baseline", "?"))),
                   fmt["bold"])
        rows = MC_ROWS[:4] + HELD_ROWS[key]
        for i, (name, label, style) in enumerate(rows):
            write_text(ws, row + 1 + i, 0, tr(label))
            _number(ws, row + 1 + i, 2, figures.get(name), fmt[style])
        row += len(rows) + 2
    return row


def write_sensitivity(workbook, fmt: dict, s: Scenario, doc: dict,
                      print_label: Optional[PrintLabel] = None) -> None:
    """Written only when the plan carries an "uncertainty" section. One printed page: the
    tornado table, the Monte Carlo figures and the tornado chart at their right; the
    histogram of the saving and its chart follow, on screen."""
    u = doc.get("uncertainty")
    if not u:
        return
    sheet = tr(SHEET)
    ws = add_sheet(workbook, sheet)
    ws.set_default_row(ROW_HEIGHT)   # Excel's row height in LibreOffice too: charts stay put
    cur = s.finance.currency
    write_text(ws, 0, 0, tr("Sensitivity and uncertainty"), fmt["title"])
    ws.merge_range(1, 0, 1, PRINT_LAST, "", fmt["note"])
    ws.set_row(1, 2 * ROW_HEIGHT)
    write_text(ws, 1, 0, tr("Engine results (values) at export time: PV savings of %(judged)s "
                            "[%(currency)s] with one assumption at a time at its low and high "
                            "value (against %(tornado_baseline)s), and a Monte Carlo of "
                            "%(draws)s draws (against %(baseline)s).",
                            judged=strategy_label(u.get("judged", "optimal")), currency=cur,
                            tornado_baseline=strategy_label(u.get("tornado_baseline",
                                                                  "on_demand")),
                            draws=u.get("draws", "?"),
                            baseline=strategy_label(u.get("baseline", "?"))), fmt["note"])
    row = 3
    tornado = u.get("tornado") or []
    tornado_chart = None
    if tornado:
        for c, (_, head, _) in enumerate(TORNADO_COLUMNS):
            write_text(ws, row, c, tr(head), fmt["header" if c < 2 else "header_right"])
        for i, item in enumerate(tornado):
            for c, (key, _, style) in enumerate(TORNADO_COLUMNS):
                value = assumption_label(item) if key == "label" else item.get(key)
                if style is None:
                    write_text(ws, row + 1 + i, c, tr(value) if isinstance(value, str) else value)
                else:
                    _number(ws, row + 1 + i, c, value, fmt[style])
        chart = workbook.add_chart({"type": "bar"})
        last = row + len(tornado)
        for c, name in ((5, tr("Saving at low")), (6, tr("Saving at high"))):
            chart.add_series({"name": name, "categories": [sheet, row + 1, 0, last, 0],
                              "values": [sheet, row + 1, c, last, c], "gap": 40})
        chart_text(chart, tr("Tornado: PV saving with each assumption at low / high"),
                   {"name": cur, "num_format": "#,##0"}, {"reverse": True, "label_position": "low"})
        chart.set_size({"width": TORNADO_WIDTH, "height": 80 + 22 * len(tornado)})
        tornado_chart = chart
        row = last + 2
    if tornado_chart is not None:   # at the right of the Monte Carlo figures
        ws.insert_chart(row, 3, tornado_chart, {"x_offset": 10})
    chart_rows = (-(-(80 + 22 * len(tornado)) // 20)) if tornado else 0
    first_mc = row
    write_text(ws, row, 0, tr("Monte Carlo"), fmt["bold"])
    for i, (key, label, style) in enumerate(MC_ROWS):
        write_text(ws, row + 1 + i, 0, tr(label))
        _number(ws, row + 1 + i, 2, u.get(key), fmt[style])
    row += len(MC_ROWS) + 2
    row = _held_schedules(ws, fmt, u, row)
    last_printed = max(row - 2, first_mc + chart_rows)
    row = max(row, first_mc + chart_rows + 2)
    histogram = u.get("histogram") or {}
    edges, counts = histogram.get("edges") or [], histogram.get("counts") or []
    if counts and len(edges) == len(counts) + 1:
        write_text(ws, row, 0, tr("Saving from"), fmt["header"])
        write_text(ws, row, 1, tr("Saving to"), fmt["header"])
        write_text(ws, row, 2, tr("Draws"), fmt["header"])
        for i, count in enumerate(counts):
            ws.write_number(row + 1 + i, 0, float(edges[i]), fmt["money"])
            ws.write_number(row + 1 + i, 1, float(edges[i + 1]), fmt["money"])
            ws.write_number(row + 1 + i, 2, float(count), fmt["int"])
        chart = workbook.add_chart({"type": "column"})
        chart.add_series({"name": tr("Draws"),
                          "categories": [sheet, row + 1, 0, row + len(counts), 0],
                          "values": [sheet, row + 1, 2, row + len(counts), 2], "gap": 5})
        chart_text(chart, tr("Distribution of the PV saving"),
                   {"name": tr("Saving from [%(currency)s]", currency=cur),
                    "num_format": "#,##0"}, None, {"none": True})
        chart.set_size({"width": 760, "height": 360})
        ws.insert_chart(row, 4, chart)
    for c, width in enumerate(WIDTHS):
        ws.set_column(c, c, width)
    ws.print_area(0, 0, last_printed, PRINT_LAST)
    w, h = area_points(list(WIDTHS), [20.0, 2 * ROW_HEIGHT] + [ROW_HEIGHT] * last_printed)
    print_setup(ws, print_label or PrintLabel(s.name), pages_tall=1, scale=fit(w, h))
