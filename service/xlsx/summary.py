"""Summary and Breakeven sheets, and the native charts.

The Summary prints as the report's first two pages (issue 25): the recommendation and its
explanation, the strategies side by side, each strategy's cash by year and the schedule on
the first; the two charts, the breakevens in words and the warnings on the second.
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from models.ledger import Ledger
from models.scenario import Scenario
from models.schedule_words import decisions_from_json, schedule_words
from service.i18n import DEFAULT, N_, _, current_locale, formats, sentences
from service.i18n.charts import source_label
from service.i18n.labels import strategy_label
from service.xlsx.cells import add_sheet, sheet_ref, write_text
from service.xlsx.schedule_sheet import summary_schedule
from service.xlsx.print_setup import (MIN_SCALE, PAGE_HEIGHT, PAGE_WIDTH, ROW_HEIGHT, PrintLabel,
                                      area_points, chart_text, print_setup, text_lines)
from service.xlsx.strategy_sheet import LINE_TITLES, SheetInfo

SUMMARY, BREAKEVEN = N_("Summary"), N_("Breakeven")  # sheet names, through _()
DECISION_ROW = 5   # 0-based: the recommendation, the explanation under it
TABLE_ROW = 8      # 0-based header row of the strategy table
# Columns A-J print (labels, description, eight figures); K-M stay on screen.
COLUMN_WIDTHS = [26, 30] + [13] * 8
SCREEN_WIDTHS = [16] * 3
PRINT_LAST = len(COLUMN_WIDTHS) - 1
CHART_WIDTH, CHART_HEIGHT = 570, 280   # pixels: the two Summary charts side by side
CHART_SPAN = 14    # rows under them (20 pixels a row)
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


def _merged_text(ws, row: int, text: str, style, first: int = 0, last: int = PRINT_LAST,
                 ) -> float:
    """``text`` wrapped over columns first..last of ``row``, the row as tall as its lines;
    returns the row's height [points]."""
    ws.merge_range(row, first, row, last, "", style)
    write_text(ws, row, first, text, style)
    height = ROW_HEIGHT * text_lines(text, sum(COLUMN_WIDTHS[first:last + 1]))
    ws.set_row(row, height)
    return height


def write_summary(workbook, fmt: dict, s: Scenario, doc: dict, ledger: Ledger,
                  sheets: dict[str, SheetInfo], ws=None,
                  print_label: Optional[PrintLabel] = None) -> None:
    """The report's first two pages: the decision, the strategies side by side, cash by year
    and the schedule (page 1); the charts, the breakevens and the warnings (page 2). The
    secondary figures (columns K-M) and the note on formulas stay on screen."""
    ws = ws if ws is not None else add_sheet(workbook, _(SUMMARY))
    # rows of Excel's height in LibreOffice too, so that the charts sit where they are put
    ws.set_default_row(ROW_HEIGHT)
    months = doc["months"]
    recommendation = doc["recommendation"]
    cur = s.finance.currency
    heights: dict[int, float] = {}
    write_text(ws, 0, 0, _("Buy-vs-rent plan"), fmt["title"])
    heights[0] = 20.0
    write_text(ws, 1, 0, _("Scenario"), fmt["bold"])
    write_text(ws, 1, 1, s.name)
    write_text(ws, 2, 0, _("Plan months"), fmt["bold"])
    write_text(ws, 2, 1, _("%(first)s .. %(last)s (%(count)s months), %(currency)s",
                           first=months[0], last=months[-1], count=len(months),
                           currency=cur))
    write_text(ws, 3, 0, _("Discount rate (annual)"), fmt["bold"])
    ws.write_formula(3, 1, "=finance_discount_rate_annual", fmt["percent_left"],
                     s.finance.discount_rate_annual)
    # The decision: the recommendation and the optimizer's explanation, wrapped.
    write_text(ws, DECISION_ROW, 0, _("Recommendation"), fmt["bold"])
    ws.merge_range(DECISION_ROW, 1, DECISION_ROW, PRINT_LAST, "", fmt["bold_wrap"])
    decision = _("%(strategy)s: lowest PV cost at export (%(description)s)",
                 strategy=strategy_label(recommendation),
                 description=strategy_text(recommendation))
    write_text(ws, DECISION_ROW, 1, decision, fmt["bold_wrap"])
    heights[DECISION_ROW] = ROW_HEIGHT * text_lines(decision, sum(COLUMN_WIDTHS[1:]))
    ws.set_row(DECISION_ROW, heights[DECISION_ROW])
    explanation = sentences.explanation(doc)
    heights[DECISION_ROW + 1] = (_merged_text(ws, DECISION_ROW + 1, explanation, fmt["wrap"])
                                 if explanation else ROW_HEIGHT)
    # The strategies side by side (the cards), in the print area's columns A-J; the
    # secondary figures at their right (K-M) on screen.
    # "servers": bought by the strategy, as on the cards and in the CLI; the held ones apart
    held = next((e["servers_held"] for e in doc["strategies"].values() if "servers_held" in e),
                0)
    servers_head = (_("Servers bought (held at the start, in every strategy: %(held)s)",
                      held=formats.servers(held)) if formats.server_total(held)
                    else _("Servers bought"))
    heads = [_("Strategy"), _("Description"), servers_head, _("Committed GPUs"),
             _("PV cost [%(currency)s]", currency=cur),
             _("Total cost [%(currency)s]", currency=cur),
             _("Cost per useful GPU-hour, levelized [%(currency)s]", currency=cur),
             _("Owned utilization"),
             _("PV saving vs on demand [%(currency)s]", currency=cur), _("Recommended"),
             _("Cost per useful GPU-hour, nominal [%(currency)s]", currency=cur),
             _("Normal-run PV [%(currency)s]", currency=cur),
             _("Failures and interruptions add [%(currency)s]", currency=cur)]
    for c, h in enumerate(heads):
        write_text(ws, TABLE_ROW, c, h, fmt["header"] if c < 2 else fmt["header_right"])
    ws.set_row(TABLE_ROW, 4 * ROW_HEIGHT)
    heights[TABLE_ROW] = 4 * ROW_HEIGHT
    base = sheets.get("on_demand")
    base_pv = sheet_ref(base.name, base.cells["pv_cost"]) if base else None
    shown = list(ledger.strategies.items())
    for i, (name, sl) in enumerate(shown):
        row = TABLE_ROW + 1 + i
        info, fig = sheets[name], sl.figures
        saving = doc["savings_vs_on_demand"][name]
        recommended = name == recommendation
        write_text(ws, row, 0, strategy_label(name), fmt["bold_wrap" if recommended else "wrap"])
        write_text(ws, row, 1, strategy_text(name), fmt["wrap"])
        write_text(ws, row, 9, _("yes") if recommended else "", fmt["right"])
        ref = lambda key: sheet_ref(info.name, info.cells[key])  # noqa: E731
        bought = doc["strategies"].get(name, {}).get("servers_bought")
        if isinstance(bought, dict):
            write_text(ws, row, 2, formats.servers(bought), fmt["right"])
        elif bought is not None:
            ws.write_number(row, 2, bought, fmt["count"])
        else:   # the robust plan: the most servers online, as its card says
            ws.write_formula(row, 2, "=" + ref("servers_max"), fmt["count"],
                             fig["servers_max"])
        ws.write_formula(row, 3, "=" + ref("committed_max"), fmt["count"], fig["committed_max"])
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
        ws.set_row(row, 2 * ROW_HEIGHT)
        heights[row] = 2 * ROW_HEIGHT
    row = TABLE_ROW + 2 + len(shown)
    row = _cash_by_year(ws, fmt, cur, sheets, shown, recommendation, row, heights)
    # a plan of more than seven years widens the printed columns to its last year
    print_last = max(PRINT_LAST, 1 + len(_cash_titles(sheets)))
    widths = (COLUMN_WIDTHS + SCREEN_WIDTHS
              + [COLUMN_WIDTHS[-1]] * max(0, print_last + 1 - len(COLUMN_WIDTHS)
                                          - len(SCREEN_WIDTHS)))
    row = _schedule(ws, fmt, s, doc, row + 1, heights)
    # Page 2: the charts side by side, the breakevens, the warnings.
    page_two = row + 1
    ws.set_h_pagebreaks([page_two])
    chart_row = page_two
    _summary_charts(workbook, ws, s, doc, ledger, sheets, chart_row)
    for r in range(chart_row, chart_row + CHART_SPAN):
        heights[r] = ROW_HEIGHT
    row = chart_row + CHART_SPAN
    row = _breakeven_rows(ws, fmt, s, doc, row, heights)
    warnings = summary_warnings(doc)
    if warnings:
        write_text(ws, row, 0, _("Warnings"), fmt["bold"])
        for w in warnings:
            row += 1
            heights[row] = _merged_text(ws, row, w, fmt["wrap"])
    last_printed = row
    row += 2
    write_text(ws, row, 0, _("Formulas and values"), fmt["bold"])
    _merged_text(ws, row + 1, _(NOTE), fmt["note"])
    for c, width in enumerate(widths):
        ws.set_column(c, c, width)
    ws.freeze_panes(TABLE_ROW + 1, 0)
    ws.print_area(0, 0, last_printed, print_last)
    # one scale for both pages, the taller of the two deciding
    pages = [[heights.get(r, ROW_HEIGHT) for r in range(0, page_two)],
             [heights.get(r, ROW_HEIGHT) for r in [0, 1, *range(page_two, last_printed + 1)]]]
    scale = min(100, max(MIN_SCALE, int(min(
        PAGE_WIDTH / area_points(widths[:print_last + 1], [])[0],
        *(PAGE_HEIGHT / sum(h) for h in pages)) * 100)))
    print_setup(ws, print_label or PrintLabel(s.name), (0, 1), scale=scale)
    ws.activate()


def _cash_titles(sheets: dict[str, SheetInfo]) -> list[str]:
    """The roll-ups' columns across the strategies: the plan's years, the months after the
    horizon when a strategy pays in them, the total."""
    titles: list[str] = []
    for info in sheets.values():
        titles += [t for t in info.rollup_years[:-1] if t not in titles]
    return titles + [next(iter(sheets.values())).rollup_years[-1]]


def _cash_by_year(ws, fmt: dict, cur: str, sheets: dict[str, SheetInfo], shown, recommendation,
                  row: int, heights: dict[int, float]) -> int:
    """Each strategy's total cost by calendar year (formulas: its sheet's roll-up). Returns
    the next free row."""
    years = _cash_titles(sheets)
    write_text(ws, row, 0, _("Cash by year: total cost of each strategy [%(currency)s], "
                             "nominal", currency=cur), fmt["bold"])
    row += 1
    columns = years      # from column C on, the total last
    write_text(ws, row, 0, _("Strategy"), fmt["header"])
    write_text(ws, row, 1, "", fmt["header"])
    for j, year in enumerate(columns):
        write_text(ws, row, 2 + j, year, fmt["header_right"])
    for name, _sl in shown:
        row += 1
        info = sheets[name]
        write_text(ws, row, 0, strategy_label(name),
                   fmt["bold"] if name == recommendation else fmt["text"])
        for j, year in enumerate(columns):
            if year not in info.rollup_total:   # no payment after the horizon
                ws.write_number(row, 2 + j, 0.0, fmt["money"])
                continue
            cell, value = info.rollup_total[year]
            ws.write_formula(row, 2 + j, "=" + sheet_ref(info.name, cell), fmt["money"], value)
    return row + 1


def _schedule(ws, fmt: dict, s: Scenario, doc: dict, row: int,
              heights: dict[int, float]) -> int:
    """The schedule in sentences: the recommended strategy's, or the staged plan's when the
    recommendation is a static plan; two sentences a row. Returns the next free row."""
    name = summary_schedule(doc)
    if name is None:
        return row
    decisions = decisions_from_json(doc["strategies"][name]["schedule"])
    words = [sentences.render(m) for m in schedule_words(s, decisions, doc["months"][0])]
    if not words:
        return row
    write_text(ws, row, 0, _("Schedule: %(strategy)s", strategy=strategy_label(name)),
               fmt["bold"])
    half = -(-len(words) // 2)
    for i in range(half):
        r = row + 1 + i
        left = _merged_text(ws, r, words[i], fmt["wrap"], 0, 4)
        right = (_merged_text(ws, r, words[half + i], fmt["wrap"], 5, PRINT_LAST)
                 if half + i < len(words) else ROW_HEIGHT)
        heights[r] = max(left, right)
        ws.set_row(r, heights[r])
    return row + 1 + half


def _breakeven_rows(ws, fmt: dict, s: Scenario, doc: dict, row: int,
                    heights: dict[int, float]) -> int:
    """The breakevens as a table in words: what, value, and the direction (or why there is
    none). Returns the next free row."""
    write_text(ws, row, 0, _("Breakevens (engine results)"), fmt["bold"])
    row += 1
    breakeven = doc.get("breakeven")
    if not breakeven:
        write_text(ws, row, 0, _("Not computed for this plan (no optimizer results)."),
                   fmt["note"])
        return row + 1
    for c, head in ((0, _("Breakeven")), (2, _("Value")), (3, _("Which side is cheaper, or "
                                                                  "why there is none"))):
        write_text(ws, row, c, head, fmt["header"])
    ws.merge_range(row, 0, row, 1, "", fmt["header"])
    write_text(ws, row, 0, _("Breakeven"), fmt["header"])
    ws.merge_range(row, 3, row, PRINT_LAST, "", fmt["header"])
    write_text(ws, row, 3, _("Which side is cheaper, or why there is none"), fmt["header"])
    for key, label, value, note in breakeven_items(breakeven):
        row += 1
        if key in TIE_MARKETS:   # a price of its own market, in that market's currency
            label = f"{label} [{s.market_currency(TIE_MARKETS[key])}]"
        ws.merge_range(row, 0, row, 1, "", fmt["wrap"])
        write_text(ws, row, 0, label, fmt["wrap"])
        _write_any(ws, row, 2, value, fmt, key)
        heights[row] = max(_merged_text(ws, row, note, fmt["wrap"], 3, PRINT_LAST),
                           ROW_HEIGHT * text_lines(label, sum(COLUMN_WIDTHS[:2])))
        ws.set_row(row, heights[row])
    return row + 1


def breakeven_items(breakeven: dict) -> list[tuple[str, str, Any, str]]:
    """(key, label in words, value, note) of every breakeven: a value per option or
    strategy, its direction as a sentence, or the reason there is none."""
    directions = breakeven.get("directions") or {}
    reasons = breakeven.get("reasons") or {}
    messages = breakeven.get("reason_messages") or {}
    out = []
    for section, value in breakeven.items():
        if section in ("directions", "reasons", "reason_messages", "basis"):
            continue
        if isinstance(value, dict):
            for key, v in value.items():
                path = f"{section}.{key}"
                note = (_direction_text(directions[path]) if v is not None and path in directions
                        else sentences.render(messages[path]) if path in messages
                        else str(reasons.get(path, "")) if isinstance(reasons, dict) else "")
                # an offer against on demand: the offer's id says it all
                subject = key if section == "commitment_vs_on_demand" else _subject(key)
                out.append((path, f"{_(BREAKEVEN_WORDS.get(section, section))} · {subject}",
                            v, note))
        elif not isinstance(value, (list, tuple)):
            out.append((section, _(BREAKEVEN_WORDS[section]) if section in BREAKEVEN_WORDS
                        else section, value, ""))
    if isinstance(reasons, dict) and "spot" in reasons:   # spot is off: one row says so
        note = sentences.render(messages["spot"]) if "spot" in messages else str(reasons["spot"])
        out.append(("spot_off", f"{_(BREAKEVEN_WORDS['utilization'])} · {_subject('spot')}",
                    None, note))
    if isinstance(reasons, (list, tuple)):   # documents that list the reasons only
        out += [("reasons", _(BREAKEVEN_WORDS["reasons"]), None, str(r)) for r in reasons]
    return out


def summary_warnings(doc: dict) -> list[str]:
    """The plan's warnings in words in every language: each from its message when it has one
    (a strategy named by its label, not its key), other texts as they are."""
    messages = [sentences.as_message(m) for m in doc.get("warning_messages") or []]
    by_text = {m.text: m for m in messages}
    texts = list(doc.get("warnings") or [])
    # an offer by its term, as on the page (issue 39); English keeps the engine's own words
    offers = (doc["scenario"].get("commitments") or ()) if current_locale() != DEFAULT else ()

    def said(message) -> str:
        return sentences.render(sentences.offers_named(message, offers, None))
    out = [said(by_text[text]) if text in by_text else sentences.plain(text) for text in texts]
    return out + [said(m) for m in messages if m.text not in texts]


def _subject(key: str) -> str:
    """What a breakeven is for: a strategy, or a cloud option (on demand, spot, an offer)."""
    return strategy_label(key) if key in STRATEGY_KEYS else source_label(key)


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


def _write_any(ws, row, column, value, fmt, label: str = "") -> None:
    if isinstance(value, bool) or value is None:
        write_text(ws, row, column, _("none") if value is None else str(value), fmt["right"])
    elif isinstance(value, int):
        ws.write_number(row, column, value, fmt["int"])
    elif isinstance(value, float) and np.isfinite(value):
        share = "utilization" in label or "commitment_vs" in label
        price = label == "on_demand_price"      # a price per GPU-hour: its cents
        ws.write_number(row, column, value, fmt["percent"] if share else
                        fmt["rate_cloud"] if price else fmt["money"])
    else:
        write_text(ws, row, column, value, fmt["right"])


def _summary_charts(workbook, ws, s: Scenario, doc: dict, ledger: Ledger,
                    sheets: dict[str, SheetInfo], row: int) -> None:
    cur = s.finance.currency
    if not sheets:
        return   # charts draw from the strategy sheets
    # the plan's months: the months after the horizon (a contract's last payments) are in the
    # roll-ups and would crowd the axis with their long labels
    last = lambda info: min(info.last_row, info.first_row + ledger.horizon - 1)  # noqa: E731
    cumulative = workbook.add_chart({"type": "line"})
    for name, info in sheets.items():
        c = info.columns["cumulative"]
        cumulative.add_series({
            "name": strategy_label(name),
            "categories": [info.name, info.first_row, 0, last(info), 0],
            "values": [info.name, info.first_row, c, last(info), c],
        })
    chart_text(cumulative, _("Cumulative cost by strategy"), {"name": _("Month")},
               {"name": cur, "num_format": "#,##0"})
    cumulative.set_size({"width": CHART_WIDTH, "height": CHART_HEIGHT})
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
            "categories": [info.name, info.first_row, 0, last(info), 0],
            "values": [info.name, info.first_row, c, last(info), c],
            "gap": 20,
        })
    chart_text(stacked, _("Monthly cost of %(strategy)s by source and cost line "
                          "(credits not shown)", strategy=strategy_label(rec)), None,
               {"name": cur, "num_format": "#,##0"},
               {"position": "bottom", "layout": {"x": 0.02, "y": 0.7, "width": 0.96,
                                                  "height": 0.3}})
    # the plot keeps half the chart however long the cost lines' names (Korean ones are)
    stacked.set_plotarea({"layout": {"x": 0.14, "y": 0.16, "width": 0.84, "height": 0.36}})
    stacked.set_size({"width": CHART_WIDTH, "height": CHART_HEIGHT})
    ws.insert_chart(row, 0, stacked, {"x_offset": CHART_WIDTH + 12})


CHART_ROWS = 18     # a 340-pixel chart spans 17 rows of the default height
SECOND_CHART_COL = 7  # the load-duration chart sits right of the screening chart
BREAKEVEN_COLUMN = 10   # characters: seven columns (525 pixels) under each chart
BREAKEVEN_CHART = (520, 340)   # pixels


def write_breakeven(workbook, fmt: dict, s: Scenario, doc: dict,
                    label: Optional[PrintLabel] = None) -> None:
    """Charts and breakeven crossings on top (the print area); the data behind the charts
    below it, outside the print area."""
    sheet = _(BREAKEVEN)
    ws = add_sheet(workbook, sheet)
    ws.set_default_row(ROW_HEIGHT)   # Excel's row height in LibreOffice too: charts stay put
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
            write_text(ws, data_row, j, _("%(source)s [per GPU-year]",
                                          source=source_label(name, s.commitments)),
                       fmt["header"])
        for i, x in enumerate(xs):
            ws.write_number(data_row + 1 + i, 0, float(x), fmt["hours"])
            for j, values in enumerate(curves.values(), start=1):
                v = values[i]
                if v is not None and np.isfinite(v):
                    ws.write_number(data_row + 1 + i, j, float(v), fmt["money"])
        chart = workbook.add_chart({"type": "scatter", "subtype": "straight"})
        for j, name in enumerate(curves, start=1):
            chart.add_series({"name": source_label(name, s.commitments),
                              "categories": [sheet, data_row + 1, 0, data_row + len(xs), 0],
                              "values": [sheet, data_row + 1, j, data_row + len(xs), j]})
        if crossings:
            heads = [_("Crossing"), _("Hours per year"), _("Utilization"),
                     _("Cost per GPU-year")]
            # the crossing in columns A-C (merged), its figures in D-F
            ws.merge_range(table_row, 0, table_row, 2, "", fmt["header"])
            for k, h in enumerate(heads):
                write_text(ws, table_row, 0 if k == 0 else 2 + k, h,
                           fmt["header"] if k == 0 else fmt["header_right"])
            ws.set_row(table_row, 2 * ROW_HEIGHT)
            for i, cr in enumerate(crossings):
                r_ = table_row + 1 + i
                ws.merge_range(r_, 0, r_, 2, "", fmt["text"])
                write_text(ws, r_, 0, " = ".join(source_label(str(x), s.commitments)
                                                 for x in cr.get("sources", [])), fmt["text"])
                for k, key in enumerate(("hours_per_year", "utilization", "cost_per_gpu_year"),
                                        start=3):
                    value = cr.get(key)
                    if isinstance(value, (int, float)) and np.isfinite(value):
                        ws.write_number(r_, k, float(value),
                                        fmt["percent"] if key == "utilization" else fmt["count"])
            chart.add_series({"name": _("crossings"),
                              "categories": [sheet, table_row + 1, 3,
                                             table_row + len(crossings), 3],
                              "values": [sheet, table_row + 1, 5,
                                         table_row + len(crossings), 5],
                              "marker": {"type": "diamond", "size": 8},
                              "line": {"none": True}})
        chart_text(chart, _("Screening curves: cost per GPU-year"),
                   {"name": _("Hours used per year"), "min": 0, "max": 8760},
                   {"name": s.finance.currency, "num_format": "#,##0"})
        chart.set_size({"width": BREAKEVEN_CHART[0], "height": BREAKEVEN_CHART[1]})
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
        write_text(ws, data_row, j, _("%(source)s capacity [GPUs]",
                                      source=source_label(name, s.commitments)),
                   fmt["header"])
    for i, (fr, g) in enumerate(zip(fractions, gpus)):
        ws.write_number(data_row + 1 + i, ld_col, float(fr), fmt["percent"])
        ws.write_number(data_row + 1 + i, ld_col + 1, float(g), fmt["hours"])
        for j, level in enumerate(levels.values(), start=ld_col + 2):
            ws.write_number(data_row + 1 + i, j, float(level or 0.0), fmt["hours"])
    n = len(fractions)
    chart = workbook.add_chart({"type": "scatter", "subtype": "straight"})
    series = [_("demand")] + [_("%(name)s capacity", name=source_label(k, s.commitments))
                              for k in levels]
    for j, name in enumerate(series, start=1):
        chart.add_series({"name": name,
                          "categories": [sheet, data_row + 1, ld_col, data_row + n, ld_col],
                          "values": [sheet, data_row + 1, ld_col + j, data_row + n,
                                     ld_col + j]})
    chart_text(chart, _("Load duration with the chosen capacities"),
               {"name": _("Fraction of hours"), "min": 0, "max": 1, "num_format": "0%"},
               {"name": _("GPUs")})
    chart.set_size({"width": BREAKEVEN_CHART[0], "height": BREAKEVEN_CHART[1]})
    ws.insert_chart(chart_row, SECOND_CHART_COL, chart)
    ws.set_column(0, 13, BREAKEVEN_COLUMN)
    ws.print_area(0, 0, table_row + max(len(crossings), 1), SECOND_CHART_COL + 6)
    print_setup(ws, label or PrintLabel(s.name), (0, 1))
