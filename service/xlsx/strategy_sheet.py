"""One monthly sheet per strategy: engine volumes as values, every money figure a formula.

Layout: a block of strategy figures (capacity, totals, PV) above a monthly table whose columns
are, left to right, engine volumes (values), schedule columns (formulas: discount factors, price
trends, server generation), per-server owned schedules (formulas), the cost lines of
models.costs in their order (formulas), then total, cumulative and discounted figures.
Every formula cell stores the engine's own number as its cached value.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np

from models.costs import COST_LINES, CREDIT_LINES, START_OF_MONTH_LINES
from models.finance import MACRS_5, resale_fraction
from models.plan import Plan
from models.strategies import StrategyResult
from service.i18n import N_, _
from service.xlsx.cells import add_sheet, col, strategy_sheet_name, write_text

LINE_TITLES = {  # English; written through _() in the workbook's language
    "capex": N_("Capex (purchase + install)"), "loan_payment": N_("Loan payments"),
    "energy": N_("Energy"), "space": N_("Space (colocation)"),
    "maintenance": N_("Maintenance"), "staff": N_("Staff"),
    "commitment_upfront": N_("Commitment upfront"), "commitment": N_("Commitment monthly"),
    "spot": N_("Spot"), "on_demand": N_("On demand"), "storage": N_("Cloud storage"),
    "egress": N_("Egress"), "cloud_setup": N_("Cloud setup fee"),
    "cloud_support": N_("Cloud support"), "tax_on_resale": N_("Tax on resale gain"),
    "resale_credit": N_("Resale credit (-)"), "tax_shield": N_("Tax shield (-)"),
}
TABLE_HEADER_ROW = 12   # 0-based; rows above: title, strategy figures
FIRST = TABLE_HEADER_ROW + 1
MACRS_LIST = ",".join(repr(x) for x in MACRS_5)


@dataclass
class Column:
    key: str
    header: str
    group: str                     # "volume", "schedule", "server", "money", "total"
    fmt: str
    values: np.ndarray             # engine values (cached results for formulas)
    formula: Optional[Callable[[int], str]] = None   # excel row number (1-based) -> formula


@dataclass
class SheetInfo:
    """Where things are on a strategy sheet, for the Summary formulas and the charts."""

    name: str
    columns: dict[str, int]
    first_row: int   # 0-based first data row
    last_row: int    # 0-based last data row
    cells: dict[str, str]   # figure -> absolute cell ("$B$4")


def _schedules(plan: Plan, r: StrategyResult) -> dict[str, np.ndarray]:
    """Python mirrors of the schedule columns (their cached values)."""
    s, cal, units = plan.scenario, plan.calendar, plan.context.units
    o, months = s.owned, len(cal.hours)
    m = np.arange(1, months + 1, dtype=float)
    life = o.useful_life_months
    gen_start = ((m - 1) // life) * life
    age = m - 1 - gen_start
    span = np.minimum(life, months - gen_start)
    price = o.server_price * (1.0 + o.hardware_price_trend_annual) ** (gen_start / 12.0)
    frac = np.array([resale_fraction(x, o.resale_fraction_by_year) for x in span])
    loan = o.financing.kind == "loan"
    if loan:
        import numpy_financial as npf
        f = o.financing
        pmt = np.array([float(npf.pmt(f.apr / 12.0, f.term_months,
                                      -(p + o.install_cost_per_server)
                                      * (1 - f.down_payment_fraction))) for p in price])
    else:
        pmt = np.zeros(months)
    sv = units.server
    cumdep = np.zeros(months)
    for i in range(months):
        cumdep[i] = sv.depreciation[i] + (cumdep[i - 1] if age[i] > 0 else 0.0)
    return {"m": m, "gen_start": gen_start, "age": age, "span": span, "price": price,
            "basis": price + o.install_cost_per_server, "frac": frac, "pmt": pmt,
            "cumdep": cumdep}


def build_columns(plan: Plan, r: StrategyResult, c: Callable[[str, int], str],
                  params: dict[str, str]) -> list[Column]:
    """The monthly table's columns. ``c(key, row)`` is the address of another column's cell;
    ``params`` holds absolute addresses of the strategy's figures (servers, uses_cloud, ...)."""
    ctx, s, cal = plan.context, plan.scenario, plan.calendar
    sch = _schedules(plan, r)
    sv, L = ctx.units.server, r.lines
    months = len(cal.hours)
    servers, uses = params["servers"], params["uses_cloud"]
    month_start = np.array([(np.datetime64(mo, "D") - np.datetime64("1899-12-30", "D"))
                            .astype(int) for mo in cal.months], dtype=float)
    n = s.finance.horizon_months
    start_lines = sum(L[k] for k in START_OF_MONTH_LINES)
    cols = [
        Column("m", "Month no.", "volume", "int", sch["m"]),
        Column("start", "Month start", "volume", "date", month_start),
        Column("hours", "Hours in month", "volume", "hours", cal.hours),
        Column("demand", "Demand [useful GPU-h]", "volume", "hours", ctx.tables.useful_by_month),
        Column("owned_h", "Owned [GPU-h]", "volume", "hours", r.owned_gpu_hours_by_month),
        Column("committed_h", "Committed [GPU-h]", "volume", "hours",
               r.committed_gpu_hours_by_month),
        Column("spot_h", "Spot [GPU-h billed]", "volume", "hours", r.spot_gpu_hours_by_month),
        Column("od_h", "On demand [GPU-h]", "volume", "hours", r.on_demand_gpu_hours_by_month),
        Column("overhead_h", "Overhead [GPU-h]", "volume", "hours", r.volumes.overhead),
        Column("online", "Servers online", "volume", "number", r.servers_online),
        # schedule columns: formulas over Assumptions names
        Column("ef", "Discount factor, end of month", "schedule", "fraction", ctx.end_factors,
               lambda x: f"=(1+calc_monthly_rate)^-{c('m', x)}"),
        Column("sf", "Discount factor, start of month", "schedule", "fraction",
               ctx.start_factors, lambda x: f"=(1+calc_monthly_rate)^-({c('m', x)}-1)"),
        Column("trend", "Cloud price trend factor", "schedule", "fraction",
               (1.0 + s.on_demand.price_trend_annual) ** ((sch["m"] - 1) / 12.0),
               lambda x: f"=(1+on_demand_price_trend_annual)^(({c('m', x)}-1)/12)"),
        Column("power", "Power price [per kWh]", "schedule", "rate", ctx.units.power_price,
               lambda x: f"=owned_electricity_price_per_kwh*(1+finance_power_price_inflation_"
                         f"annual)^(({c('m', x)}-1)/12)"),
        Column("staff_f", "Staff cost factor", "schedule", "fraction",
               (1.0 + s.finance.staff_cost_inflation_annual) ** ((sch["m"] - 1) / 12.0),
               lambda x: f"=(1+finance_staff_cost_inflation_annual)^(({c('m', x)}-1)/12)"),
        Column("gen_start", "Server generation bought (month index)", "schedule", "int",
               sch["gen_start"], lambda x: f"=INT(({c('m', x)}-1)/owned_useful_life_months)"
                                           "*owned_useful_life_months"),
        Column("age", "Generation age at month start [months]", "schedule", "int", sch["age"],
               lambda x: f"={c('m', x)}-1-{c('gen_start', x)}"),
        Column("span", "Generation months in horizon", "schedule", "int", sch["span"],
               lambda x: f"=MIN(owned_useful_life_months,finance_horizon_months-"
                         f"{c('gen_start', x)})"),
        Column("price", "Generation server price", "schedule", "money", sch["price"],
               lambda x: f"=owned_server_price*(1+owned_hardware_price_trend_annual)^("
                         f"{c('gen_start', x)}/12)"),
        Column("basis", "Generation capex per server", "schedule", "money", sch["basis"],
               lambda x: f"={c('price', x)}+owned_install_cost_per_server"),
        Column("frac", "Resale fraction at sale", "schedule", "fraction", sch["frac"],
               lambda x: _resale_formula(c('span', x))),
        # per-server owned schedules
        Column("pmt", "Loan payment per server (level)", "server", "money", sch["pmt"],
               lambda x: f"=IF(calc_loan=1,PMT(owned_financing_apr/12,owned_financing_term_"
                         f"months,-{c('basis', x)}*(1-owned_financing_down_payment_fraction)),0)"),
        Column("srv_loan", "Loan cash per server (payments + payoff)", "server", "money",
               sv.loan_payment, lambda x: _loan_formula(c, x)),
        Column("srv_interest", "Loan interest per server", "server", "money", sv.interest,
               lambda x: f"=IF(AND(calc_loan=1,{c('age', x)}<MIN(owned_financing_term_months,"
                         f"{c('span', x)})),owned_financing_apr/12*FV(owned_financing_apr/12,"
                         f"{c('age', x)},{c('pmt', x)},-{c('basis', x)}*(1-owned_financing_"
                         "down_payment_fraction)),0)"),
        Column("srv_dep", "Tax depreciation per server", "server", "money", sv.depreciation,
               lambda x: f'=IF(finance_tax_depreciation="macrs_5",IF({c("age", x)}<72,CHOOSE('
                         f'INT({c("age", x)}/12)+1,{MACRS_LIST})/12*{c("basis", x)},0),IF('
                         f'{c("age", x)}<owned_useful_life_months,{c("basis", x)}/owned_useful_'
                         'life_months,0))'),
        Column("srv_cumdep", "Depreciation of the generation so far", "server", "money",
               sch["cumdep"],
               lambda x: (f"={c('srv_dep', x)}" if x == FIRST + 1 else
                          f"=IF({c('age', x)}=0,0,{c('srv_cumdep', x - 1)})+{c('srv_dep', x)}")),
        Column("srv_resale", "Resale value per server (at sale)", "server", "money", sv.resale,
               lambda x: f"=IF({c('age', x)}={c('span', x)}-1,{c('price', x)}*{c('frac', x)},0)"),
        Column("srv_gain", "Resale gain over book value per server", "server", "money",
               sv.resale_gain,
               lambda x: f"=IF({c('age', x)}={c('span', x)}-1,{c('srv_resale', x)}-("
                         f"{c('basis', x)}-{c('srv_cumdep', x)}),0)"),
    ]
    f = {
        "capex": lambda x: f"=IF({c('age', x)}=0,{servers}*{c('basis', x)}*IF(calc_loan=1,"
                           "owned_financing_down_payment_fraction,1),0)",
        "loan_payment": lambda x: f"={servers}*{c('srv_loan', x)}",
        "energy": lambda x: f"={c('online', x)}*owned_power_kw_idle*owned_pue*{c('hours', x)}*"
                            f"{c('power', x)}+calc_busy_kw_per_gpu*{c('power', x)}*"
                            f"{c('owned_h', x)}",
        "space": lambda x: f"={c('online', x)}*owned_power_kw_max*owned_space_price_per_kw_month",
        "maintenance": lambda x: f"={c('online', x)}*owned_maintenance_fraction_annual*"
                                 f"{c('price', x)}/12",
        "staff": lambda x: f"={c('online', x)}*owned_fte_cost_annual/12/owned_servers_per_fte*"
                           f"{c('staff_f', x)}",
        "commitment_upfront": lambda x: _commitment_formula(s, params, c, x, upfront=True, n=n),
        "commitment": lambda x: _commitment_formula(s, params, c, x, upfront=False, n=n),
        "spot": lambda x: f"={c('spot_h', x)}*calc_spot_base/calc_vat*{c('trend', x)}*"
                          "calc_rounding",
        "on_demand": lambda x: f"={c('od_h', x)}*on_demand_price_per_gpu_hour/calc_vat*"
                               f"{c('trend', x)}*calc_rounding",
        "storage": lambda x: f"={uses}*cloud_data_storage_tb*1000*cloud_data_storage_price_per_"
                             "gb_month/calc_vat",
        "egress": lambda x: f"={uses}*cloud_data_egress_tb_per_month*1000*cloud_data_egress_"
                            "price_per_gb/calc_vat",
        "cloud_setup": lambda x: f"=IF({c('m', x)}=1,{uses}*cloud_terms_setup_fee/calc_vat,0)",
        "cloud_support": lambda x: (
            f"=IF(AND({uses}=1,SUM({c('commitment_upfront', x)}:{c('egress', x)})>0),MAX("
            f"cloud_terms_support_fraction*SUM({c('commitment_upfront', x)}:{c('egress', x)}),"
            "cloud_terms_support_minimum_per_month/calc_vat),0)"),
        "tax_on_resale": lambda x: f"=finance_tax_rate*{servers}*MAX({c('srv_gain', x)},0)",
        "resale_credit": lambda x: f"={servers}*{c('srv_resale', x)}",
        "tax_shield": lambda x: (
            f"=finance_tax_rate*(SUM({c('energy', x)}:{c('cloud_support', x)})+{servers}*("
            f"{c('srv_interest', x)}+{c('srv_dep', x)}+MAX(-{c('srv_gain', x)},0)))"),
    }
    for name in COST_LINES + CREDIT_LINES:
        cols.append(Column(name, LINE_TITLES[name], "money", "money", L[name], f[name]))
    first_cost, last_cost = COST_LINES[0], COST_LINES[-1]
    cols += [
        Column("total", "Total cost", "total", "money_bold", r.total_by_month,
               lambda x: f"=SUM({c(first_cost, x)}:{c(last_cost, x)})-{c('resale_credit', x)}"
                         f"-{c('tax_shield', x)}"),
        Column("cumulative", "Cumulative cost", "total", "money", r.cumulative,
               lambda x: (f"={c('total', x)}" if x == FIRST + 1
                          else f"={c('cumulative', x - 1)}+{c('total', x)}")),
        Column("start_pay", "Paid at month start", "total", "money", start_lines,
               lambda x: "=" + "+".join(c(k, x) for k in START_OF_MONTH_LINES)),
        Column("end_net", "Paid at month end (net of credits)", "total", "money",
               r.total_by_month - start_lines,
               lambda x: f"={c('total', x)}-{c('start_pay', x)}"),
        Column("discounted", "Discounted cost", "total", "money", r.discounted_by_month,
               lambda x: f"={c('end_net', x)}*{c('ef', x)}+{c('start_pay', x)}*{c('sf', x)}"),
        Column("disc_cum", "Discounted cumulative cost", "total", "money",
               r.discounted_cumulative,
               lambda x: (f"={c('discounted', x)}" if x == FIRST + 1
                          else f"={c('disc_cum', x - 1)}+{c('discounted', x)}")),
    ]
    assert all(len(col_.values) == months for col_ in cols)
    return cols


def _resale_formula(span: str) -> str:
    """np.interp over ages 0, 12, ... with values 1, f1, f2, ...; the last value holds."""
    lst = "owned_resale_fraction_by_year"
    lo = f"INT({span}/12)"
    v_lo = f"IF({lo}=0,1,INDEX({lst},{lo}))"
    return (f"=IF({span}>=12*COUNT({lst}),INDEX({lst},COUNT({lst})),{v_lo}+({span}-12*{lo})"
            f"*(INDEX({lst},{lo}+1)-{v_lo})/12)")


def _loan_formula(c, x: int) -> str:
    rate, term = "owned_financing_apr/12", "owned_financing_term_months"
    principal = f"{c('basis', x)}*(1-owned_financing_down_payment_fraction)"
    return (f"=IF(calc_loan=1,IF({c('age', x)}<MIN({term},{c('span', x)}),{c('pmt', x)},0)+"
            f"IF(AND({c('age', x)}={c('span', x)}-1,{term}>{c('span', x)}),FV({rate},"
            f"{c('span', x)},{c('pmt', x)},-{principal}),0),0)")


def _commitment_formula(s, params, c, x: int, *, upfront: bool, n: int) -> str:
    """Sum over offers of committed GPUs x the offer's cash flow in this month."""
    terms = []
    for i, _offer in enumerate(s.commitments, start=1):
        gpus = params[f"commit_{i}"]
        term = f"commitments_{i}_term_months"
        pos = f"MOD({c('m', x)}-1,{term})"
        rate = (f"calc_commit_{i}_base*(1+on_demand_price_trend_annual)^(({c('m', x)}-1-{pos})"
                "/12)")
        share = f"calc_commit_{i}_upfront_share"
        if upfront:
            start = c('start', x)
            term_hours = f"(DATE(YEAR({start}),MONTH({start})+{term},1)-{start})*24"
            inside = f"MIN({term},finance_horizon_months-({c('m', x)}-1))"
            terms.append(f"{gpus}*IF({pos}=0,{share}*{rate}*{term_hours}*{inside}/{term},0)")
        else:
            terms.append(f"{gpus}*(1-{share})*{rate}*{c('hours', x)}")
    return "=" + ("+".join(terms) if terms else "0")


def write_strategy_sheet(workbook, fmt: dict, plan: Plan, name: str, r: StrategyResult
                         ) -> SheetInfo:
    sheet = strategy_sheet_name(name)
    ws = add_sheet(workbook, sheet)
    s, ctx = plan.scenario, plan.context
    cur = s.finance.currency
    months = len(plan.calendar.hours)
    write_text(ws, 0, 0, _("Strategy %(name)s: monthly cash flows [%(currency)s]",
                           name=sheet, currency=cur), fmt["title"])
    # Strategy figures: capacity (engine decisions) and totals (formulas).
    params = {"servers": "$B$3"}
    write_text(ws, 2, 0, _("Servers (engine decision)"))
    ws.write_number(2, 1, r.capacity.servers, fmt["input"])
    for i, offer in enumerate(s.commitments, start=1):
        write_text(ws, 1 + i, 3, _("Committed GPUs, offer %(offer)s", offer=offer.id))
        ws.write_number(1 + i, 4, r.capacity.committed.get(offer.id, 0), fmt["input"])
        params[f"commit_{i}"] = f"$E${2 + i}"
    params["uses_cloud"] = "$B$4"
    cols_index: dict[str, int] = {}

    def c(key: str, row: int) -> str:
        return f"{col(cols_index[key])}{row}"

    # Column positions first (a dry run with dummy addresses), then the real formulas.
    for i, column in enumerate(build_columns(plan, r, lambda k, x: "", params), start=1):
        cols_index[column.key] = i
    columns_holder = build_columns(plan, r, c, params)
    first, last = FIRST + 1, FIRST + months   # 1-based excel rows of the data

    def rng(key: str) -> str:
        letter = col(cols_index[key])
        return f"${letter}${first}:${letter}${last}"

    commits = "+".join(params[f"commit_{i}"] for i in range(1, len(s.commitments) + 1)) or "0"
    figures = [
        ("uses_cloud", N_("Uses cloud capacity (1/0)"),
         f"=IF(OR({commits}>0,SUM({rng('spot_h')})>0,SUM({rng('od_h')})>1E-9),1,0)",
         1.0 if r.uses_cloud() else 0.0, "int"),
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
    write_text(ws, 10, 0, _("Columns under 'Engine volumes (values)' are the engine's numbers; "
                            "everything else is a formula over the Assumptions sheet and those "
                            "volumes."), fmt["note"])
    # Monthly table.
    group_titles = {"volume": _("Engine volumes (values)"),
                    "schedule": _("Schedules (formulas)"),
                    "server": _("Per owned server (formulas)"),
                    "money": _("Cost lines (formulas)"), "total": _("Totals (formulas)")}
    hdr = TABLE_HEADER_ROW
    write_text(ws, hdr, 0, _("Month"), fmt["header"])
    seen = set()
    for column in columns_holder:
        ci = cols_index[column.key]
        if column.group not in seen:
            seen.add(column.group)
            write_text(ws, hdr - 1, ci, group_titles[column.group], fmt["group"])
        write_text(ws, hdr, ci, _(column.header), fmt["header"])
    for m, label in enumerate(plan.calendar.months):
        write_text(ws, FIRST + m, 0, label)
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
