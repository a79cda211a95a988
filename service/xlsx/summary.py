"""Summary and Breakeven sheets, and the native charts."""
from __future__ import annotations

from typing import Any

import numpy as np

from models.plan import Plan
from service.i18n import N_, _, sentences
from service.i18n.charts import source_label
from service.i18n.labels import strategy_label
from service.xlsx.cells import add_sheet, sheet_ref, write_text
from service.xlsx.strategy_sheet import LINE_TITLES, SheetInfo

SUMMARY, BREAKEVEN = N_("Summary"), N_("Breakeven")  # sheet names, through _()
TABLE_ROW = 6   # 0-based header row of the strategy table
NOTE = N_("What is a formula and what is a value: the Assumptions sheet holds every input "
        "(yellow cells, each a defined name). Each strategy sheet holds the engine's volumes as "
        "values (hours, demand, GPU-hours by source, overhead, servers online) and the "
        "strategy's capacity (servers, committed GPUs); every money figure, total, cumulative "
        "and discounted figure there, and every money figure in this table, is a formula over "
        "those. Change an input and the money follows; volumes, capacities, breakevens and the "
        "recommendation are the engine's results at export time and do not re-optimize.")
STRATEGY_TEXT = {
    "on_demand": N_("everything on demand (baseline)"),
    "cloud_only": N_("cheapest cloud-only mix"),
    "buy_for_peak": N_("servers for the peak hour"),
    "optimal": N_("cheapest mix of owned, committed, spot and on demand"),
    "proposed": N_("the analyst's own capacity"),
}


def strategy_text(name: str) -> str:
    return _(STRATEGY_TEXT[name]) if name in STRATEGY_TEXT else ""


def write_summary(workbook, fmt: dict, plan: Plan, sheets: dict[str, SheetInfo], ws=None
                  ) -> None:
    ws = ws if ws is not None else add_sheet(workbook, _(SUMMARY))
    s, cal = plan.scenario, plan.calendar
    cur = s.finance.currency
    write_text(ws, 0, 0, _("Buy-vs-rent plan"), fmt["title"])
    write_text(ws, 1, 0, _("Scenario"), fmt["bold"])
    write_text(ws, 1, 1, s.name)
    write_text(ws, 2, 0, _("Plan months"), fmt["bold"])
    write_text(ws, 2, 1, _("%(first)s .. %(last)s (%(count)s months), %(currency)s",
                           first=cal.months[0], last=cal.months[-1], count=len(cal.months),
                           currency=cur))
    write_text(ws, 3, 0, _("Discount rate (annual)"), fmt["bold"])
    ws.write_formula(3, 1, "=finance_discount_rate_annual", fmt["percent"],
                     s.finance.discount_rate_annual)
    heads = [_("Strategy"), _("Description"), _("Servers"), _("Committed GPUs"),
             _("PV cost [%(currency)s]", currency=cur), _("Total cost [%(currency)s]",
                                                          currency=cur),
             _("Cost per useful GPU-hour [%(currency)s]", currency=cur), _("Owned utilization"),
             _("PV saving vs on demand [%(currency)s]", currency=cur), _("Recommended")]
    for c, h in enumerate(heads):
        write_text(ws, TABLE_ROW, c, h, fmt["header"])
    base = sheets["on_demand"]
    base_pv = sheet_ref(base.name, base.cells["pv_cost"])
    baseline_value = plan.strategies["on_demand"].pv_cost
    for i, (name, r) in enumerate(plan.strategies.items()):
        row, info = TABLE_ROW + 1 + i, sheets[name]
        ref = lambda key: sheet_ref(info.name, info.cells[key])  # noqa: E731
        write_text(ws, row, 0, info.name, fmt["bold"] if name == plan.recommendation else None)
        write_text(ws, row, 1, strategy_text(name))
        ws.write_formula(row, 2, "=" + ref("servers"), fmt["int"], r.capacity.servers)
        commits = [sheet_ref(info.name, f"$E${2 + k}") for k in range(1, len(s.commitments) + 1)]
        ws.write_formula(row, 3, "=" + ("+".join(commits) or "0"), fmt["int"],
                         sum(r.capacity.committed.values()))
        ws.write_formula(row, 4, "=" + ref("pv_cost"), fmt["money"], r.pv_cost)
        ws.write_formula(row, 5, "=" + ref("total_cost"), fmt["money"], r.total_cost)
        ws.write_formula(row, 6, "=" + ref("cost_per_hour"), fmt["rate"],
                         _num_or_dash(r.cost_per_useful_gpu_hour))
        ws.write_formula(row, 7, "=" + ref("utilization"), fmt["percent"],
                         _num_or_dash(r.owned_utilization))
        ws.write_formula(row, 8, f"={base_pv}-{ref('pv_cost')}", fmt["money"],
                         baseline_value - r.pv_cost)
        write_text(ws, row, 9, _("yes") if name == plan.recommendation else "")
    row = TABLE_ROW + 2 + len(plan.strategies)
    write_text(ws, row, 0, _("Recommendation"), fmt["bold"])
    write_text(ws, row, 1, _("%(strategy)s: lowest PV cost at export (%(description)s)",
                             strategy=strategy_label(plan.recommendation),
                             description=strategy_text(plan.recommendation)))
    row += 1
    explanation = sentences.plan_explanation(plan)
    if explanation:
        write_text(ws, row, 1, explanation, fmt["wrap"])
        ws.set_row(row, 15 * min(12, 1 + len(str(explanation)) // 90))
        row += 1
    row += 1
    write_text(ws, row, 0, _("Breakevens (engine results)"), fmt["bold"])
    row += 1
    breakeven = plan.extras.get("breakeven")
    if breakeven:
        for key, label, value in _flatten(breakeven):
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
    warnings = sentences.plan_warnings(plan)
    if warnings:
        write_text(ws, row, 0, _("Warnings"), fmt["bold"])
        for w in warnings:
            row += 1
            write_text(ws, row, 0, w)
    ws.set_column(0, 0, 26)
    ws.set_column(1, 1, 44)
    ws.set_column(2, 9, 16)
    ws.set_row(TABLE_ROW, 45)
    ws.freeze_panes(TABLE_ROW + 1, 0)
    ws.set_landscape()
    ws.fit_to_pages(1, 0)
    _summary_charts(workbook, ws, plan, sheets, row + 3)
    ws.activate()


def _num_or_dash(x):
    return "-" if x is None or not np.isfinite(x) else float(x)


BREAKEVEN_WORDS = {
    "utilization": N_("utilization breakeven"),
    "commitment_vs_on_demand": N_("commitment vs on demand, utilization breakeven"),
    "payback_month": N_("payback month"),
    "payback_month_discounted": N_("payback month (discounted)"),
    "on_demand_price": N_("on-demand price at which buying ties"),
    "server_price": N_("server price at which buying ties"), "reasons": N_("why missing"),
}


def _key_word(key: str) -> str:
    """A breakeven key in the workbook's language (English workbooks keep the keys)."""
    from service.i18n import DEFAULT, current_locale
    if current_locale() == DEFAULT:
        return key
    if key in BREAKEVEN_WORDS:
        return _(BREAKEVEN_WORDS[key])
    return strategy_label(key) if key in ("optimal", "proposed", "cloud_only",
                                          "buy_for_peak") else source_label(key)


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


def _summary_charts(workbook, ws, plan: Plan, sheets: dict[str, SheetInfo], row: int) -> None:
    cur = plan.scenario.finance.currency
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
    rec = plan.recommendation
    info, result = sheets[rec], plan.strategies[rec]
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


def _load_duration(plan: Plan) -> dict[str, Any]:
    """The optimizer's load-duration data, or one computed from the plan's demand."""
    charts = plan.extras.get("charts") or {}
    if charts.get("load_duration"):
        return charts["load_duration"]
    demand = np.sort(plan.context.demand.total)[::-1]
    n = len(demand)
    idx = np.unique(np.linspace(0, n - 1, min(n, 400)).round().astype(int))
    r = plan.strategies[plan.recommendation]
    s = plan.scenario
    committed = sum(r.capacity.committed.values()) * s.on_demand.relative_throughput
    owned = (r.capacity.servers * s.owned.gpus_per_server * s.owned.availability
             * s.owned.relative_throughput)
    return {"fraction_of_hours": ((idx + 1) / n).tolist(), "gpus": demand[idx].tolist(),
            "levels": {"committed": committed, "committed + owned": committed + owned}}


def write_breakeven(workbook, fmt: dict, plan: Plan) -> None:
    sheet = _(BREAKEVEN)
    ws = add_sheet(workbook, sheet)
    write_text(ws, 0, 0, _("Breakeven: screening curves and load duration"), fmt["title"])
    write_text(ws, 1, 0, _("Engine results (values): cost per GPU-year of each source against "
                           "the hours a GPU is used per year, and the hourly demand sorted from "
                           "the busiest hour down with the chosen capacities."), fmt["note"])
    charts = plan.extras.get("charts") or {}
    screening = charts.get("screening")
    row = 3
    if screening and screening.get("hours_per_year"):
        xs = list(screening["hours_per_year"])
        curves = screening.get("curves", {})
        write_text(ws, row, 0, _("Hours used per year"), fmt["header"])
        for j, name in enumerate(curves, start=1):
            write_text(ws, row, j, _("%(source)s [per GPU-year]", source=source_label(name)),
                       fmt["header"])
        for i, x in enumerate(xs):
            ws.write_number(row + 1 + i, 0, float(x), fmt["hours"])
            for j, values in enumerate(curves.values(), start=1):
                v = values[i]
                if v is not None and np.isfinite(v):
                    ws.write_number(row + 1 + i, j, float(v), fmt["money"])
        chart = workbook.add_chart({"type": "scatter", "subtype": "straight"})
        for j, name in enumerate(curves, start=1):
            chart.add_series({"name": source_label(name),
                              "categories": [sheet, row + 1, 0, row + len(xs), 0],
                              "values": [sheet, row + 1, j, row + len(xs), j]})
        crossings = screening.get("crossings") or []
        cross_col = len(curves) + 2
        if crossings:
            heads = [_("Crossing"), _("Hours per year"), _("Utilization"),
                     _("Cost per GPU-year")]
            for k, h in enumerate(heads):
                write_text(ws, row, cross_col + k, h, fmt["header"])
            for i, cr in enumerate(crossings):
                r_ = row + 1 + i
                write_text(ws, r_, cross_col, " = ".join(source_label(str(x))
                                                         for x in cr.get("sources", [])))
                for k, key in enumerate(("hours_per_year", "utilization", "cost_per_gpu_year"),
                                        start=1):
                    value = cr.get(key)
                    if isinstance(value, (int, float)) and np.isfinite(value):
                        ws.write_number(r_, cross_col + k, float(value),
                                        fmt["percent"] if key == "utilization" else fmt["money"])
            chart.add_series({"name": _("crossings"),
                              "categories": [sheet, row + 1, cross_col + 1,
                                             row + len(crossings), cross_col + 1],
                              "values": [sheet, row + 1, cross_col + 3,
                                         row + len(crossings), cross_col + 3],
                              "marker": {"type": "diamond", "size": 8},
                              "line": {"none": True}})
        chart.set_title({"name": _("Screening curves: cost per GPU-year")})
        chart.set_x_axis({"name": _("Hours used per year"), "min": 0, "max": 8760})
        chart.set_y_axis({"name": plan.scenario.finance.currency, "num_format": "#,##0"})
        chart.set_size({"width": 760, "height": 400})
        ws.insert_chart(row, cross_col + 5, chart)
        row += len(xs) + 3
    else:
        write_text(ws, row, 0, _("Screening curves: not computed for this plan (no optimizer "
                                 "results)."), fmt["note"])
        row += 2
    ld = _load_duration(plan)
    fractions, gpus = list(ld["fraction_of_hours"]), list(ld["gpus"])
    levels = dict(ld.get("levels") or {})
    write_text(ws, row, 0, _("Fraction of hours"), fmt["header"])
    write_text(ws, row, 1, _("Demand [GPUs]"), fmt["header"])
    for j, name in enumerate(levels, start=2):
        write_text(ws, row, j, _("%(source)s capacity [GPUs]", source=source_label(name)),
                   fmt["header"])
    for i, (fr, g) in enumerate(zip(fractions, gpus)):
        ws.write_number(row + 1 + i, 0, float(fr), fmt["percent"])
        ws.write_number(row + 1 + i, 1, float(g), fmt["hours"])
        for j, level in enumerate(levels.values(), start=2):
            ws.write_number(row + 1 + i, j, float(level or 0.0), fmt["hours"])
    n = len(fractions)
    chart = workbook.add_chart({"type": "scatter", "subtype": "straight"})
    series = [_("demand")] + [_("%(name)s capacity", name=source_label(k)) for k in levels]
    for j, name in enumerate(series, start=1):
        chart.add_series({"name": name,
                          "categories": [sheet, row + 1, 0, row + n, 0],
                          "values": [sheet, row + 1, j, row + n, j]})
    chart.set_title({"name": _("Load duration with the chosen capacities")})
    chart.set_x_axis({"name": _("Fraction of hours"), "min": 0, "max": 1, "num_format": "0%"})
    chart.set_y_axis({"name": _("GPUs")})
    chart.set_size({"width": 760, "height": 400})
    ws.insert_chart(row, 2 + len(levels) + 1, chart)
    ws.set_column(0, 12, 16)
    ws.set_landscape()
    ws.fit_to_pages(1, 0)
