"""Summary and Breakeven sheets, and the native charts."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from models.ledger import Ledger
from models.scenario import Scenario
from service.i18n import N_, _, sentences
from service.i18n.charts import source_label
from service.i18n.labels import strategy_label
from service.xlsx.cells import add_sheet, sheet_ref, strategy_sheet_name, write_text
from service.xlsx.print_setup import PrintLabel, print_setup
from service.xlsx.strategy_sheet import LINE_TITLES, SheetInfo
from service.i18n import DEFAULT, current_locale

SUMMARY, BREAKEVEN = N_("Summary"), N_("Breakeven")  # sheet names, through _()
TABLE_ROW = 6   # 0-based header row of the strategy table
NOTE = N_("What is a formula and what is a value: the Assumptions sheet holds every input "
        "(yellow cells, each a defined name). Each strategy sheet holds the engine's volumes as "
        "values (hours, demand, GPU-hours by source, overhead) and the strategy's capacity as "
        "cohorts (servers owned, contracts signed, the schedule's purchases and commitments, "
        "the generations and renewals of a static plan, whose inputs are Assumptions, Schedule "
        "and capacity cells); servers online, every money figure, total, cumulative and "
        "discounted figure "
        "there, and every figure in this table, is a formula over those. Change an input and "
        "the money follows; the dispatch, breakevens and the recommendation are the engine's "
        "results at export time and do not re-optimize.")
STRATEGY_TEXT = {
    "on_demand": N_("everything on demand (baseline)"),
    "cloud_only": N_("cheapest cloud-only mix"),
    "buy_for_peak": N_("servers for the peak hour"),
    "optimal": N_("cheapest mix of owned, committed, spot and on demand"),
    "staged": N_("cheapest schedule of purchases and commitments"),
    "proposed": N_("the analyst's own capacity"),
}


def strategy_text(name: str) -> str:
    return _(STRATEGY_TEXT[name]) if name in STRATEGY_TEXT else ""


def write_summary(workbook, fmt: dict, s: Scenario, doc: dict, ledger: Ledger,
                  sheets: dict[str, SheetInfo], ws=None,
                  print_label: Optional[PrintLabel] = None) -> None:
    ws = ws if ws is not None else add_sheet(workbook, _(SUMMARY))
    months = doc["months"]
    recommendation = doc["recommendation"]
    cur = s.finance.currency
    write_text(ws, 0, 0, _("Buy-vs-rent plan"), fmt["title"])
    write_text(ws, 1, 0, _("Scenario"), fmt["bold"])
    write_text(ws, 1, 1, s.name)
    write_text(ws, 2, 0, _("Plan months"), fmt["bold"])
    write_text(ws, 2, 1, _("%(first)s .. %(last)s (%(count)s months), %(currency)s",
                           first=months[0], last=months[-1], count=len(months),
                           currency=cur))
    write_text(ws, 3, 0, _("Discount rate (annual)"), fmt["bold"])
    ws.write_formula(3, 1, "=finance_discount_rate_annual", fmt["percent"],
                     s.finance.discount_rate_annual)
    heads = [_("Strategy"), _("Description"), _("Servers"), _("Committed GPUs"),
             _("PV cost [%(currency)s]", currency=cur),
             _("Total cost [%(currency)s]", currency=cur),
             _("Cost per useful GPU-hour, levelized [%(currency)s]", currency=cur),
             _("Owned utilization"),
             _("PV saving vs on demand [%(currency)s]", currency=cur), _("Recommended"),
             _("Cost per useful GPU-hour, nominal [%(currency)s]", currency=cur),
             _("Normal-run PV [%(currency)s]", currency=cur),
             _("Failures and interruptions add [%(currency)s]", currency=cur)]
    for c, h in enumerate(heads):
        write_text(ws, TABLE_ROW, c, h, fmt["header"])
    base = sheets.get("on_demand")
    base_pv = sheet_ref(base.name, base.cells["pv_cost"]) if base else None
    shown = list(ledger.strategies.items())
    for i, (name, sl) in enumerate(shown):
        row = TABLE_ROW + 1 + i
        info, fig = sheets[name], sl.figures
        saving = doc["savings_vs_on_demand"][name]
        write_text(ws, row, 0, info.name, fmt["bold"] if name == recommendation else None)
        write_text(ws, row, 1, strategy_text(name))
        write_text(ws, row, 9, _("yes") if name == recommendation else "")
        ref = lambda key: sheet_ref(info.name, info.cells[key])  # noqa: E731
        ws.write_formula(row, 2, "=" + ref("servers_max"), fmt["int"], fig["servers_max"])
        ws.write_formula(row, 3, "=" + ref("committed_max"), fmt["int"], fig["committed_max"])
        ws.write_formula(row, 4, "=" + ref("pv_cost"), fmt["money"], fig["pv_cost"])
        ws.write_formula(row, 5, "=" + ref("total_cost"), fmt["money"], fig["total_cost"])
        ws.write_formula(row, 6, "=" + ref("cost_per_hour"), fmt["rate"],
                         _num_or_dash(fig["cost_per_useful_gpu_hour"]))
        ws.write_formula(row, 7, "=" + ref("utilization"), fmt["percent"],
                         _num_or_dash(fig["owned_utilization"]))
        baseline = base_pv or repr(float(fig["pv_cost"] + saving))
        ws.write_formula(row, 8, f"={baseline}-{ref('pv_cost')}", fmt["money"], saving)
        ws.write_formula(row, 10, "=" + ref("cost_per_hour_nominal"), fmt["rate"],
                         _num_or_dash(fig["cost_per_useful_gpu_hour_nominal"]))
        ws.write_formula(row, 11, "=" + ref("normal_pv"), fmt["money"], fig["normal_cost_pv"])
        ws.write_formula(row, 12, "=" + ref("failure_pv"), fmt["money"],
                         fig["failure_cost_pv"])
    row = TABLE_ROW + 2 + len(shown)
    write_text(ws, row, 0, _("Recommendation"), fmt["bold"])
    write_text(ws, row, 1, _("%(strategy)s: lowest PV cost at export (%(description)s)",
                             strategy=strategy_label(recommendation),
                             description=strategy_text(recommendation)))
    row += 1
    explanation = sentences.explanation(doc)
    if explanation:
        write_text(ws, row, 1, explanation, fmt["wrap"])
        ws.set_row(row, 15 * min(12, 1 + len(str(explanation)) // 90))
        row += 1
    row += 1
    write_text(ws, row, 0, _("Breakevens (engine results)"), fmt["bold"])
    row += 1
    breakeven = doc.get("breakeven")
    if breakeven:
        for key, label, value in _flatten(printable_breakeven(breakeven)):
            if key in TIE_MARKETS:   # a price of its own market, in that market's currency
                label = f"{label} [{s.market_currency(TIE_MARKETS[key])}]"
            write_text(ws, row, 0, label)
            _write_any(ws, row, 1, value, fmt, key)
            row += 1
    else:
        write_text(ws, row, 0, _("Not computed for this plan (no optimizer results)."),
                   fmt["note"])
        row += 1
    row += 1
    write_text(ws, row, 0, _("Formulas and values"), fmt["bold"])
    ws.merge_range(row + 1, 0, row + 1, 9, "", fmt["note"])
    write_text(ws, row + 1, 0, _(NOTE), fmt["note"])
    ws.set_row(row + 1, 75)
    row += 3
    warnings = [text for text, _ok in sentences.document_warnings(doc)]
    if warnings:
        write_text(ws, row, 0, _("Warnings"), fmt["bold"])
        for w in warnings:
            row += 1
            write_text(ws, row, 0, w)
    ws.set_column(0, 0, 26)
    ws.set_column(1, 1, 44)
    ws.set_column(2, 12, 16)
    ws.set_row(TABLE_ROW, 45)
    ws.freeze_panes(TABLE_ROW + 1, 0)
    print_setup(ws, print_label or PrintLabel(s.name), (0, 1))
    _summary_charts(workbook, ws, s, doc, ledger, sheets, row + 3)
    ws.activate()


def printable_breakeven(breakeven: dict) -> dict:
    """The breakeven section as people read it: each direction as its sentence, and the
    reasons once (``reason_messages`` repeats them as templates for translation), so that the
    Summary prints on two pages."""
    out = {key: value for key, value in breakeven.items() if key != "reason_messages"}
    if isinstance(out.get("directions"), dict):
        out["directions"] = {key: _direction_text(d) for key, d in out["directions"].items()}
    if breakeven.get("reason_messages"):   # the reasons in the workbook's language
        out["reasons"] = {key: sentences.render(m)
                          for key, m in breakeven["reason_messages"].items()}
    return out


def _direction_text(d: Any) -> str:
    """A direction's sentence in the workbook's language."""
    if not isinstance(d, dict):
        return d
    if {"cheaper", "when", "other"} <= d.keys():
        return sentences.direction_text(d)
    return d.get("text", "")


def _num_or_dash(x):
    return "-" if x is None or not np.isfinite(x) else float(x)


BREAKEVEN_WORDS = {
    "utilization": N_("utilization breakeven"),
    "commitment_vs_on_demand": N_("commitment vs on demand, utilization breakeven"),
    "payback_month": N_("payback month"),
    "payback_month_discounted": N_("payback month (discounted)"),
    "on_demand_price": N_("on-demand price at which buying ties"),
    "server_price": N_("server price at which buying ties"), "reasons": N_("why missing"),
    "utilization_all_in": N_("utilization breakeven, all-in"),
    "directions": N_("which side is cheaper"), "basis": N_("basis"),
}
TIE_MARKETS = {"on_demand_price": "cloud", "server_price": "owned"}
STRATEGY_KEYS = ("optimal", "proposed", "cloud_only", "buy_for_peak", "staged",
                 "best_with_servers")


def _key_word(key: str) -> str:
    """A breakeven key in the workbook's language (English workbooks keep the keys)."""
    if current_locale() == DEFAULT:
        return key
    if key in BREAKEVEN_WORDS:
        return _(BREAKEVEN_WORDS[key])
    if key in STRATEGY_KEYS:
        return strategy_label(key)
    if "." in key:   # "utilization.spot": a breakeven and what it is against
        section, _dot, name = key.partition(".")
        return f"{_key_word(section)} · {_key_word(name)}"
    return source_label(key)   # a cloud option: on demand, spot, or a commitment offer


def _flatten(d: dict, prefix: str = "", shown: str = "") -> list[tuple[str, str, Any]]:
    """(key path, label, value) of every leaf of the breakeven section."""
    out = []
    for key, value in d.items():
        path, label = f"{prefix}{key}", f"{shown}{_key_word(key)}"
        if isinstance(value, dict):
            out.extend(_flatten(value, path + " / ", label + " / "))
        elif isinstance(value, (list, tuple)):
            out.append((path, label, "; ".join(str(v) for v in value)))
        else:
            out.append((path, label, _(value) if isinstance(value, str) else value))
    return out


def _write_any(ws, row, column, value, fmt, label: str = "") -> None:
    if isinstance(value, bool) or value is None:
        write_text(ws, row, column, _("none") if value is None else str(value))
    elif isinstance(value, int):
        ws.write_number(row, column, value, fmt["int"])
    elif isinstance(value, float) and np.isfinite(value):
        share = "utilization" in label or "commitment_vs" in label
        ws.write_number(row, column, value, fmt["percent"] if share else fmt["money"])
    else:
        write_text(ws, row, column, value)


def _summary_charts(workbook, ws, s: Scenario, doc: dict, ledger: Ledger,
                    sheets: dict[str, SheetInfo], row: int) -> None:
    cur = s.finance.currency
    if not sheets:
        return   # charts draw from the strategy sheets
    cumulative = workbook.add_chart({"type": "line"})
    for name, info in sheets.items():
        c = info.columns["cumulative"]
        cumulative.add_series({
            "name": strategy_label(name),
            "categories": [info.name, info.first_row, 0, info.last_row, 0],
            "values": [info.name, info.first_row, c, info.last_row, c],
        })
    cumulative.set_title({"name": _("Cumulative cost by strategy")})
    cumulative.set_y_axis({"name": cur, "num_format": "#,##0"})
    cumulative.set_x_axis({"name": _("Month")})
    cumulative.set_size({"width": 760, "height": 380})
    ws.insert_chart(row, 0, cumulative)
    rec = doc["recommendation"]
    rec = rec if rec in sheets else ("optimal" if "optimal" in sheets else next(iter(sheets)))
    info, result = sheets[rec], ledger.strategies[rec]
    stacked = workbook.add_chart({"type": "column", "subtype": "stacked"})
    for line, title in LINE_TITLES.items():
        if line in ("resale_credit", "tax_shield") or not np.any(result.lines[line]):
            continue
        c = info.columns[line]
        stacked.add_series({
            "name": _(title),
            "categories": [info.name, info.first_row, 0, info.last_row, 0],
            "values": [info.name, info.first_row, c, info.last_row, c],
            "gap": 20,
        })
    stacked.set_title({"name": _("Monthly cost of %(strategy)s by source and cost line "
                                 "(credits not shown)", strategy=strategy_label(rec))})
    stacked.set_y_axis({"name": cur, "num_format": "#,##0"})
    stacked.set_size({"width": 760, "height": 380})
    ws.insert_chart(row + 20, 0, stacked)


CHART_ROWS = 21     # a 400-pixel chart spans about 20 rows of the default height
SECOND_CHART_COL = 7  # the load-duration chart sits right of the screening chart


def write_breakeven(workbook, fmt: dict, s: Scenario, doc: dict,
                    label: Optional[PrintLabel] = None) -> None:
    """Charts and breakeven crossings on top (the print area); the data behind the charts
    below it, outside the print area."""
    sheet = _(BREAKEVEN)
    ws = add_sheet(workbook, sheet)
    write_text(ws, 0, 0, _("Breakeven: screening curves and load duration"), fmt["title"])
    ws.merge_range(1, 0, 1, SECOND_CHART_COL + 6, "", fmt["note"])
    write_text(ws, 1, 0, _("Engine results (values): cost per GPU-year of each source against "
                           "the hours a GPU is used per year, and the hourly demand sorted from "
                           "the busiest hour down with the chosen capacities."), fmt["note"])
    charts = doc.get("charts") or {}
    screening = charts.get("screening")
    crossings = (screening or {}).get("crossings") or []
    chart_row = 3
    table_row = chart_row + CHART_ROWS + 1          # crossings: last part of the print area
    data_row = table_row + len(crossings) + 4       # the data behind the charts
    write_text(ws, data_row - 1, 0, _("Data behind the charts (outside the print area)"),
               fmt["bold"])
    if screening and screening.get("hours_per_year"):
        xs = list(screening["hours_per_year"])
        curves = screening.get("curves", {})
        write_text(ws, data_row, 0, _("Hours used per year"), fmt["header"])
        for j, name in enumerate(curves, start=1):
            write_text(ws, data_row, j, _("%(source)s [per GPU-year]", source=source_label(name)),
                       fmt["header"])
        for i, x in enumerate(xs):
            ws.write_number(data_row + 1 + i, 0, float(x), fmt["hours"])
            for j, values in enumerate(curves.values(), start=1):
                v = values[i]
                if v is not None and np.isfinite(v):
                    ws.write_number(data_row + 1 + i, j, float(v), fmt["money"])
        chart = workbook.add_chart({"type": "scatter", "subtype": "straight"})
        for j, name in enumerate(curves, start=1):
            chart.add_series({"name": source_label(name),
                              "categories": [sheet, data_row + 1, 0, data_row + len(xs), 0],
                              "values": [sheet, data_row + 1, j, data_row + len(xs), j]})
        if crossings:
            heads = [_("Crossing"), _("Hours per year"), _("Utilization"),
                     _("Cost per GPU-year")]
            for k, h in enumerate(heads):
                write_text(ws, table_row, k, h, fmt["header"])
            for i, cr in enumerate(crossings):
                r_ = table_row + 1 + i
                write_text(ws, r_, 0, " = ".join(source_label(str(x))
                                                 for x in cr.get("sources", [])))
                for k, key in enumerate(("hours_per_year", "utilization", "cost_per_gpu_year"),
                                        start=1):
                    value = cr.get(key)
                    if isinstance(value, (int, float)) and np.isfinite(value):
                        ws.write_number(r_, k, float(value),
                                        fmt["percent"] if key == "utilization" else fmt["money"])
            chart.add_series({"name": _("crossings"),
                              "categories": [sheet, table_row + 1, 1,
                                             table_row + len(crossings), 1],
                              "values": [sheet, table_row + 1, 3,
                                         table_row + len(crossings), 3],
                              "marker": {"type": "diamond", "size": 8},
                              "line": {"none": True}})
        chart.set_title({"name": _("Screening curves: cost per GPU-year")})
        chart.set_x_axis({"name": _("Hours used per year"), "min": 0, "max": 8760})
        chart.set_y_axis({"name": s.finance.currency, "num_format": "#,##0"})
        chart.set_size({"width": 760, "height": 400})
        ws.insert_chart(chart_row, 0, chart)
        ld_col = len(curves) + 2
    else:
        write_text(ws, chart_row, 0, _("Screening curves: not computed for this plan (no "
                                       "optimizer results)."), fmt["note"])
        ld_col = 0
    ld = doc["charts"]["load_duration"]
    fractions, gpus = list(ld["fraction_of_hours"]), list(ld["gpus"])
    levels = dict(ld.get("levels") or {})
    write_text(ws, data_row, ld_col, _("Fraction of hours"), fmt["header"])
    write_text(ws, data_row, ld_col + 1, _("Demand [GPUs]"), fmt["header"])
    for j, name in enumerate(levels, start=ld_col + 2):
        write_text(ws, data_row, j, _("%(source)s capacity [GPUs]", source=source_label(name)),
                   fmt["header"])
    for i, (fr, g) in enumerate(zip(fractions, gpus)):
        ws.write_number(data_row + 1 + i, ld_col, float(fr), fmt["percent"])
        ws.write_number(data_row + 1 + i, ld_col + 1, float(g), fmt["hours"])
        for j, level in enumerate(levels.values(), start=ld_col + 2):
            ws.write_number(data_row + 1 + i, j, float(level or 0.0), fmt["hours"])
    n = len(fractions)
    chart = workbook.add_chart({"type": "scatter", "subtype": "straight"})
    series = [_("demand")] + [_("%(name)s capacity", name=source_label(k)) for k in levels]
    for j, name in enumerate(series, start=1):
        chart.add_series({"name": name,
                          "categories": [sheet, data_row + 1, ld_col, data_row + n, ld_col],
                          "values": [sheet, data_row + 1, ld_col + j, data_row + n,
                                     ld_col + j]})
    chart.set_title({"name": _("Load duration with the chosen capacities")})
    chart.set_x_axis({"name": _("Fraction of hours"), "min": 0, "max": 1, "num_format": "0%"})
    chart.set_y_axis({"name": _("GPUs")})
    chart.set_size({"width": 760, "height": 400})
    ws.insert_chart(chart_row, SECOND_CHART_COL, chart)
    ws.set_column(0, 13, 16)
    ws.print_area(0, 0, table_row + max(len(crossings), 1), SECOND_CHART_COL + 6)
    print_setup(ws, label or PrintLabel(s.name), (0, 1))
