"""The Plan vs actual workbook (issue 43): its Variance sheet recomputes, with live formulas,
every part of the variance of models/variance.py from the plan's lines and the actuals.

Why a workbook of its own, not a sheet added to the plan's workbook: the plan's workbook is
the approved plan, written once per revision and language and kept (its key is the revision's
content); the actuals change with every upload. A separate "Plan vs actual" workbook keyed by
the revision, its approved strategy and the actuals it holds is written again only when they
change, and the approved plan's workbook stays byte for byte what was approved.

Layout (one column per month with actuals, then the year to date):

- **Variance**: plan, actual, each part (volume, mix, price, idle commitments, timing.*,
  other.*), the sum of the parts, the total (actual - plan) and their difference (0).
- **Plan**: the strategy's GPU-hours by source, committed GPUs, hours in the month and every
  cost and credit line: numbers (inputs).
- **Actual**: GPU-hours by source, the idle part of the commitment line, every line: numbers
  where the actuals give them, else a formula taking the plan's cell ("as planned").
- **Rates and quantities**: the plan's rates, idle commitments, Q, Q', the mean rate ...:
  formulas (models.variance.month_variance, its Notes give each one).

The parts are exact (to the float arithmetic of the spreadsheet): the engine rounds them to
the cent by cumulative rounding only when it reports them, and the sheet says so. Every
formula stores the engine's exact figure as its cached value, so a viewer that does not
recalculate shows the same numbers.
"""
from __future__ import annotations

import io
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Mapping, Optional, Sequence

import xlsxwriter

from models.lines import COST_LINES, CREDIT_LINES
from models.owned_variance import RUNNING_OWNED_LINES
from models.variance import MonthActuals, month_variance, variance
from service.i18n import DEFAULT, N_, _, using_locale
from service.i18n.labels import cost_line_label, strategy_label
from service.i18n.variance_words import part_label
from service.xlsx.cells import add_sheet, col, write_text
from service.xlsx.export import WORKBOOK_OPTIONS

LINES = COST_LINES + CREDIT_LINES
SOURCES = ("on_demand", "spot", "committed", "owned")
SOURCE_WORDS = {"on_demand": N_("GPU-hours on demand"), "spot": N_("GPU-hours on spot"),
                "committed": N_("GPU-hours on commitments"),
                "owned": N_("GPU-hours on owned servers")}
FIRST_MONTH_COLUMN = 2        # A: what the row holds, B: its unit
HEADER_ROW = 5                # 0-based: the months' header
# The engine's part other.commitment is always 0 (a commitment's plan cost without committed
# GPU-hours is the plan's idle commitments, in idle_commitments): no row.
NO_ROW = ("other.commitment",)


@dataclass
class Layout:
    """Where things are (0-based rows and columns), for the tests and the download."""
    months: list[str]
    ytd_months: list[str]
    columns: dict[str, int] = field(default_factory=dict)     # month or "ytd" -> column
    rows: dict[str, int] = field(default_factory=dict)        # row key -> row
    parts: list[str] = field(default_factory=list)            # part names with a row


def _f(x: Fraction) -> float:
    return float(x)


class _Writer:
    def __init__(self, wb, ws, exact: list[dict], layout: Layout):
        self.wb, self.ws, self.exact, self.layout = wb, ws, exact, layout
        self.row = HEADER_ROW + 1
        self.fmt = {
            "title": wb.add_format({"bold": True, "font_size": 14}),
            "note": wb.add_format({"italic": True, "font_color": "#595959"}),
            "header": wb.add_format({"bold": True, "bg_color": "#DDEBF7", "border": 1,
                                     "align": "center", "text_wrap": True}),
            "group": wb.add_format({"bold": True, "italic": True, "font_color": "#44546A"}),
            "label": wb.add_format({}),
            "unit": wb.add_format({"font_color": "#595959"}),
            "money": wb.add_format({"num_format": "#,##0.00"}),
            "money_bold": wb.add_format({"num_format": "#,##0.00", "bold": True,
                                         "top": 1}),
            "input": wb.add_format({"num_format": "#,##0.00##", "bg_color": "#FFF2CC"}),
            "planned": wb.add_format({"num_format": "#,##0.00##", "italic": True,
                                      "font_color": "#7F7F7F"}),
            "derived": wb.add_format({"num_format": "#,##0.00####", "bg_color": "#E2EFDA"}),
        }

    def cell(self, key: str, column: int) -> str:
        return f"{col(column)}{self.layout.rows[key] + 1}"

    def start(self, key: str, label: str, unit: str = "") -> int:
        self.layout.rows[key] = self.row
        write_text(self.ws, self.row, 0, label, self.fmt["label"])
        if unit:
            write_text(self.ws, self.row, 1, unit, self.fmt["unit"])
        self.row += 1
        return self.row - 1

    def group(self, label: str) -> None:
        write_text(self.ws, self.row, 0, label, self.fmt["group"])
        self.row += 1

    def months(self):
        return [(m, self.layout.columns[m], e) for m, e in zip(self.layout.months, self.exact)]

    def ytd_sum(self, key: str, fmt: str, value: Optional[float]) -> None:
        cols = [self.layout.columns[m] for m in self.layout.ytd_months]
        r = self.layout.rows[key] + 1
        formula = f"=SUM({col(cols[0])}{r}:{col(cols[-1])}{r})"
        self.ws.write_formula(self.layout.rows[key], self.layout.columns["ytd"], formula,
                              self.fmt[fmt], value)


def variance_workbook(monthly: Sequence[Mapping[str, Any]], actuals: Sequence[MonthActuals],
                      strategy: str, currency: str, label: str, target) -> Layout:
    """Write the Plan vs actual workbook of ``actuals`` against ``monthly`` (one strategy's
    monthly rows of a plan document) to ``target`` (a path or a binary file), its words in
    the current language; returns where each figure is.

    Raises models.variance.VarianceError for actuals the engine refuses (a month outside
    the plan, a month twice ...), before anything is written.
    """
    doc = variance(monthly, actuals)           # the engine's checks, and its year to date
    rows = {str(r["month"]): r for r in monthly}
    ordered = sorted(actuals, key=lambda a: a.month)
    exact = [month_variance(rows[a.month], a) for a in ordered]
    months = [a.month for a in ordered]
    ytd_months = [m for m in months if doc["ytd"]["from"] <= m <= doc["ytd"]["to"]]
    layout = Layout(months, ytd_months)
    for k, m in enumerate(months):
        layout.columns[m] = FIRST_MONTH_COLUMN + k
    layout.columns["ytd"] = FIRST_MONTH_COLUMN + len(months)

    wb = xlsxwriter.Workbook(target, WORKBOOK_OPTIONS)
    ws = add_sheet(wb, _("Variance"))
    w = _Writer(wb, ws, exact, layout)
    f = w.fmt
    write_text(ws, 0, 0, _("Plan vs actual: %(label)s", label=label), f["title"])
    write_text(ws, 1, 0, _("Baseline: the strategy %(strategy)s; amounts in %(currency)s; a "
                           "positive variance is more spent than planned.",
                           strategy=strategy_label(strategy), currency=currency), f["note"])
    write_text(ws, 2, 0, _("The formulas give each part exactly. The service, the API and "
                           "the command round the parts to the cent by cumulative rounding "
                           "(each running sum of the parts rounded to the cent, halves to "
                           "even), so that the rounded parts add up to the rounded total: "
                           "a part there can differ from this sheet by up to one cent."),
               f["note"])
    write_text(ws, 3, 0, _("Yellow cells are what the actuals give; grey cells in italics are "
                           "taken as planned (the actuals do not give them); green cells are "
                           "formulas."), f["note"])
    write_text(ws, HEADER_ROW, 0, "", f["header"])
    write_text(ws, HEADER_ROW, 1, _("Unit"), f["header"])
    for m in months:
        write_text(ws, HEADER_ROW, layout.columns[m], m, f["header"])
    write_text(ws, HEADER_ROW, layout.columns["ytd"],
               _("Year to date %(start)s to %(end)s", start=doc["ytd"]["from"],
                 end=doc["ytd"]["to"]), f["header"])
    money = currency

    # the rows first (so that every formula can name any row), then the cells
    w.group(_("Variance: actual minus plan"))
    w.start("plan_total", _("Plan"), money)
    w.start("actual_total", _("Actual"), money)
    parts = [p for p in exact[-1]["parts"] if p not in NO_ROW]
    for p in parts:
        w.start(f"part:{p}", part_label(p), money)
    layout.parts = parts
    w.start("parts_sum", _("Sum of the parts"), money)
    w.start("total", _("Total variance (actual - plan)"), money)
    w.start("check", _("Sum of the parts - total variance (0)"), money)
    w.row += 1
    w.group(_("Plan"))
    for s in SOURCES:
        w.start(f"plan_hours:{s}", _(SOURCE_WORDS[s]), _("GPU-hours"))
    w.start("plan_gpus", _("Committed GPUs"), _("GPUs"))
    w.start("plan_month_hours", _("Hours in the month"), _("hours"))
    for n in LINES:
        w.start(f"plan_line:{n}", cost_line_label(n), money)
    w.row += 1
    w.group(_("Actual"))
    for s in SOURCES:
        w.start(f"actual_hours:{s}", _(SOURCE_WORDS[s]), _("GPU-hours"))
    w.start("actual_idle", _("Idle commitments paid (part of the commitment line)"), money)
    for n in LINES:
        w.start(f"actual_line:{n}", cost_line_label(n), money)
    w.start("fx_cost", _("Exchange rate paid over the plan's rate (bills in the plan's foreign "
                         "currency)"), money)
    w.row += 1
    w.group(_("Owned servers (their actuals)"))
    w.start("owned_given", _("Owned fleet's actuals given (1 = yes, 0 = no)"), "")
    w.start("plan_gpus_online", _("GPUs online in the plan (G_p)"), _("GPUs"))
    w.start("actual_gpus_online", _("GPUs actually online (G_a)"), _("GPUs"))
    w.row += 1
    w.group(_("Rates and quantities (formulas)"))
    w.start("rate:on_demand", _("Plan rate on demand (the rate paid where none is planned)"),
            _("%(currency)s per GPU-hour", currency=money))
    w.start("rate:spot", _("Plan rate on spot (the rate paid where none is planned)"),
            _("%(currency)s per GPU-hour", currency=money))
    w.start("capacity", _("Committed GPU-hours paid for: max(GPUs x hours, GPU-hours used)"),
            _("GPU-hours"))
    w.start("rate:committed", _("Plan rate on commitments"),
            _("%(currency)s per GPU-hour", currency=money))
    w.start("plan_idle", _("Plan's own idle commitments"), money)
    w.start("used:on_demand", _("Actual cost of the work on demand"), money)
    w.start("used:spot", _("Actual cost of the work on spot"), money)
    w.start("used:committed", _("Actual cost of the work on commitments (less idle)"), money)
    w.start("Q", _("Planned GPU-hours, all sources (Q)"), _("GPU-hours"))
    w.start("actual_Q", _("Actual GPU-hours, all sources (Q')"), _("GPU-hours"))
    w.start("planned_cost", _("Planned work at the plan's rates"), money)
    w.start("mean", _("Plan's mean rate"), _("%(currency)s per GPU-hour", currency=money))
    w.start("at_plan_rates", _("Actual work at the plan's rates"), money)
    w.start("leftover:on_demand", _("On-demand cost planned without GPU-hours"), money)
    w.start("leftover:spot", _("Spot cost planned without GPU-hours"), money)
    w.start("owned_capacity", _("Owned capacity in the plan: G_p x hours (C)"), _("GPU-hours"))
    w.start("utilisation", _("Plan's utilisation of the owned servers: owned GPU-hours / C (u)"),
            "")
    w.start("cost_share", _("Plan's owned cost share: (energy + space + maintenance + staff) / "
                            "C (p_o)"), _("%(currency)s per GPU-hour", currency=money))
    w.start("late", _("Work of the servers missing against the plan: (G_p - G_a) x hours x u "
                      "(L)"), _("GPU-hours"))
    w.start("idle", _("Work planned on the servers online and not done: owned GPU-hours - L - "
                      "busy GPU-hours (I)"), _("GPU-hours"))

    for m, c, e in w.months():
        _month_cells(w, c, e)
    _ytd_cells(w, doc, exact)
    ws.set_column(0, 0, 58)
    ws.set_column(1, 1, 16)
    ws.set_column(FIRST_MONTH_COLUMN, layout.columns["ytd"], 15)
    ws.freeze_panes(HEADER_ROW + 1, FIRST_MONTH_COLUMN)
    ws.set_landscape()
    ws.fit_to_pages(1, 0)
    wb.set_properties({"title": _("Plan vs actual"), "comments": _("Generated by buyrent")})
    wb.set_calc_mode("auto")
    wb.close()
    return layout


def _month_cells(w: _Writer, c: int, e: dict) -> None:
    ws, f, b = w.ws, w.fmt, e["basis"]
    r = lambda key: w.cell(key, c)                           # noqa: E731 (a short address)

    def formula(key: str, text: str, value: Fraction, fmt: str = "derived") -> None:
        ws.write_formula(w.layout.rows[key], c, "=" + text, f[fmt], _f(value))

    # inputs: the plan's
    for s in SOURCES:
        ws.write_number(w.layout.rows[f"plan_hours:{s}"], c, _f(b["hours"][s]), f["input"])
    # committed GPUs and hours: from the plan row, as the engine reads them
    ws.write_number(w.layout.rows["plan_gpus"], c, _f(b["capacity_gpus"]), f["input"])
    ws.write_number(w.layout.rows["plan_month_hours"], c, _f(b["month_hours"]), f["input"])
    for n in LINES:
        ws.write_number(w.layout.rows[f"plan_line:{n}"], c, _f(b["plan_lines"][n]), f["input"])
    # the actuals', or the plan's cell where they do not give it
    for s in SOURCES:
        key = f"actual_hours:{s}"
        if s == "owned" and b["owned"] is not None and b["owned"].busy is None:
            # owned actuals without busy time: the plan's utilisation on the servers online,
            # q_o - L (0 without planned capacity), written without the L cell, which reads it
            formula(key, f"IF({r('owned_capacity')}>0,{r('plan_hours:owned')}-"
                    f"({r('plan_gpus_online')}-{r('actual_gpus_online')})*"
                    f"{r('plan_month_hours')}*{r('utilisation')},0)",
                    b["actual_hours"][s], "planned")
        elif f"gpu_hours.{s}" in e["as_planned"]:
            formula(key, r(f"plan_hours:{s}"), b["actual_hours"][s], "planned")
        else:
            ws.write_number(w.layout.rows[key], c, _f(b["actual_hours"][s]), f["input"])
    for n in LINES:
        key = f"actual_line:{n}"
        if n in b["given_lines"]:
            ws.write_number(w.layout.rows[key], c, _f(b["actual_lines"][n]), f["input"])
        else:
            formula(key, r(f"plan_line:{n}"), b["actual_lines"][n], "planned")
    if b["idle_given"]:
        ws.write_number(w.layout.rows["actual_idle"], c, _f(b["actual_idle"]), f["input"])
    else:
        formula("actual_idle", r("plan_idle"), b["actual_idle"], "planned")
    ws.write_number(w.layout.rows["fx_cost"], c, _f(b["fx_cost"]), f["input"])
    split = b["owned"]
    ws.write_number(w.layout.rows["owned_given"], c, 0 if split is None else 1, f["input"])
    if split is None:       # the engine read no servers online: nothing to write
        for key in ("plan_gpus_online", "actual_gpus_online"):
            ws.write_blank(w.layout.rows[key], c, None, f["input"])
    else:
        ws.write_number(w.layout.rows["plan_gpus_online"], c, _f(split.plan_gpus), f["input"])
        ws.write_number(w.layout.rows["actual_gpus_online"], c, _f(split.actual_gpus),
                        f["input"])

    q = {s: r(f"plan_hours:{s}") for s in SOURCES}
    a = {s: r(f"actual_hours:{s}") for s in SOURCES}
    plan_line = {n: r(f"plan_line:{n}") for n in LINES}
    act_line = {n: r(f"actual_line:{n}") for n in LINES}
    rate = {s: r(f"rate:{s}") for s in ("on_demand", "spot", "committed")}
    used = {s: r(f"used:{s}") for s in ("on_demand", "spot", "committed")}

    # the plan's rates (the rate paid for a source the plan does not use)
    for s in ("on_demand", "spot"):
        formula(f"rate:{s}", f"IF({q[s]}>0,{plan_line[s]}/{q[s]},"
                f"IF({a[s]}>0,{used[s]}/{a[s]},0))", b["rates"][s])
    formula("capacity", f"MAX({r('plan_gpus')}*{r('plan_month_hours')},{q['committed']})",
            b["capacity"])
    formula("rate:committed", f"IF({r('capacity')}>0,{plan_line['commitment']}/"
            f"{r('capacity')},IF({a['committed']}>0,{used['committed']}/{a['committed']},0))",
            b["rates"]["committed"])
    # K - q_c x K / capacity, written without the rate cell: the rate of an unplanned
    # commitment reads the actual idle, which may be this cell (as planned)
    formula("plan_idle", f"IF({r('capacity')}>0,{plan_line['commitment']}-{q['committed']}*"
            f"({plan_line['commitment']}/{r('capacity')}),{plan_line['commitment']})",
            b["plan_idle"])
    formula("used:on_demand", act_line["on_demand"], b["used"]["on_demand"])
    formula("used:spot", act_line["spot"], b["used"]["spot"])
    formula("used:committed", f"{act_line['commitment']}-{r('actual_idle')}",
            b["used"]["committed"])
    formula("Q", "+".join(q[s] for s in SOURCES), b["Q"])
    formula("actual_Q", "+".join(a[s] for s in SOURCES), b["actual_Q"])
    # owned GPU-hours have rate 0 (their costs are read line by line)
    formula("planned_cost", "+".join(f"{q[s]}*{rate[s]}" for s in rate), b["planned_cost"])
    formula("mean", f"IF({r('Q')}>0,{r('planned_cost')}/{r('Q')},0)", b["mean"])
    formula("at_plan_rates", "+".join(f"{a[s]}*{rate[s]}" for s in rate), b["at_plan_rates"])
    for s in ("on_demand", "spot"):
        formula(f"leftover:{s}", f"IF({q[s]}>0,0,{plan_line[s]})", b["leftover"][s])
    # the owned split (models.owned_variance.owned_split): 0 without the owned actuals
    split = b["owned"]
    formula("owned_capacity", f"{r('plan_gpus_online')}*{r('plan_month_hours')}",
            Fraction(0) if split is None else split.capacity)
    formula("utilisation", f"IF({r('owned_capacity')}>0,{q['owned']}/{r('owned_capacity')},0)",
            Fraction(0) if split is None else split.utilisation)
    running = "+".join(plan_line[n] for n in RUNNING_OWNED_LINES)
    formula("cost_share", f"IF({r('owned_capacity')}>0,({running})/{r('owned_capacity')},0)",
            Fraction(0) if split is None else split.cost_share)
    formula("late", f"IF({r('owned_given')}=1,IF({r('owned_capacity')}>0,"
            f"({r('plan_gpus_online')}-{r('actual_gpus_online')})*{r('plan_month_hours')}*"
            f"{r('utilisation')},-{a['owned']}),0)",
            Fraction(0) if split is None else split.late)
    formula("idle", f"IF({r('owned_given')}=1,({q['owned']}-{r('late')})-{a['owned']},0)",
            Fraction(0) if split is None else split.idle)

    # totals and parts
    first_cost, last_cost = plan_line[COST_LINES[0]], plan_line[COST_LINES[-1]]
    first_credit, last_credit = plan_line[CREDIT_LINES[0]], plan_line[CREDIT_LINES[-1]]
    formula("plan_total", f"SUM({first_cost}:{last_cost})-SUM({first_credit}:{last_credit})",
            e["plan"], "money")
    formula("actual_total", f"SUM({act_line[COST_LINES[0]]}:{act_line[COST_LINES[-1]]})-"
            f"SUM({act_line[CREDIT_LINES[0]]}:{act_line[CREDIT_LINES[-1]]})+{r('fx_cost')}",
            e["actual"], "money")
    texts = {
        "volume": f"IF({r('Q')}>0,({r('actual_Q')}-{r('Q')})*{r('mean')},0)",
        # less the owned parts, which name two causes of the move out of owned work
        "mix": f"IF({r('Q')}>0,{r('at_plan_rates')}-{r('actual_Q')}*{r('mean')},"
               f"{r('at_plan_rates')})-({r('idle')}*{r('cost_share')}+{r('late')}*"
               f"{rate['on_demand']})",
        "price": "+".join(f"({used[s]}-{a[s]}*{rate[s]})" for s in rate),
        "idle_commitments": f"{r('actual_idle')}-{r('plan_idle')}",
        "idle_servers": f"{r('idle')}*{r('cost_share')}",
        "fx": r("fx_cost"),
        "timing.delivery": f"{r('late')}*{rate['on_demand']}",
        "other.on_demand": f"-{r('leftover:on_demand')}",
        "other.spot": f"-{r('leftover:spot')}",
    }
    for p in w.layout.parts:
        if p not in texts:
            line = p.split(".", 1)[-1]
            if not p.startswith(("timing.", "other.")) or line not in LINES:
                # a part the engine gained (FX, idle servers ...) needs its formula here:
                # no workbook beats one whose parts do not add up
                raise ValueError(f"the Variance sheet has no formula for the part {p}")
            texts[p] = (f"{plan_line[line]}-{act_line[line]}" if line in CREDIT_LINES
                        else f"{act_line[line]}-{plan_line[line]}")
        formula(f"part:{p}", texts[p], e["parts"][p], "money")
    first, last = w.layout.parts[0], w.layout.parts[-1]
    formula("parts_sum", f"SUM({r('part:' + first)}:{r('part:' + last)})",
            sum(e["parts"].values(), Fraction(0)), "money_bold")
    formula("total", f"{r('actual_total')}-{r('plan_total')}", e["total"], "money_bold")
    formula("check", f"{r('parts_sum')}-{r('total')}", Fraction(0), "money")


def _ytd_cells(w: _Writer, doc: dict, exact: list[dict]) -> None:
    """The year to date: the sum of its months' cells (the engine sums the exact parts)."""
    in_year = [e for e in exact if e["month"] in w.layout.ytd_months]

    def total(get) -> float:
        return _f(sum((get(e) for e in in_year), Fraction(0)))

    w.ytd_sum("plan_total", "money", total(lambda e: e["plan"]))
    w.ytd_sum("actual_total", "money", total(lambda e: e["actual"]))
    for p in w.layout.parts:
        w.ytd_sum(f"part:{p}", "money", total(lambda e: e["parts"][p]))
    w.ytd_sum("parts_sum", "money_bold", total(lambda e: sum(e["parts"].values(),
                                                                Fraction(0))))
    w.ytd_sum("total", "money_bold", total(lambda e: e["total"]))
    w.ytd_sum("check", "money", 0.0)
    for s in SOURCES:
        w.ytd_sum(f"plan_hours:{s}", "derived", total(lambda e: e["basis"]["hours"][s]))
        w.ytd_sum(f"actual_hours:{s}", "derived",
                  total(lambda e: e["basis"]["actual_hours"][s]))
    w.ytd_sum("actual_idle", "derived", total(lambda e: e["basis"]["actual_idle"]))
    w.ytd_sum("fx_cost", "derived", total(lambda e: e["basis"]["fx_cost"]))
    w.ytd_sum("late", "derived",
              total(lambda e: e["basis"]["owned"].late if e["basis"]["owned"] else 0))
    w.ytd_sum("idle", "derived",
              total(lambda e: e["basis"]["owned"].idle if e["basis"]["owned"] else 0))
    for n in LINES:
        w.ytd_sum(f"plan_line:{n}", "derived", total(lambda e: e["basis"]["plan_lines"][n]))
        w.ytd_sum(f"actual_line:{n}", "derived",
                  total(lambda e: e["basis"]["actual_lines"][n]))


def variance_xlsx_bytes(monthly: Sequence[Mapping[str, Any]], actuals: Sequence[MonthActuals],
                        strategy: str, currency: str, label: str, lang: str = DEFAULT
                        ) -> bytes:
    """The Plan vs actual workbook as bytes, its words in ``lang`` (formulas are the same in
    every language)."""
    buffer = io.BytesIO()
    with using_locale(lang):
        variance_workbook(monthly, actuals, strategy, currency, label, buffer)
    return buffer.getvalue()
