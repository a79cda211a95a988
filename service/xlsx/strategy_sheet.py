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

from models.costs import (COST_LINES, CREDIT_LINES, START_OF_MONTH_LINES, cohort_items,
                          data_share, deductible_by_month, server_columns)
from models.capacity import Capacity, CapacityPlan, server_chain
from models.finance import MACRS_5
from models.plan import Plan
from models.strategies import StrategyResult
from service.xlsx.cells import add_sheet, col, write_text
from service.xlsx.cohort_block import COHORT_TOTALS, CohortBlock, cohort_sums
from service.xlsx.cohort_sources import DecisionRef, strategy_cohorts

LINE_TITLES = {
    "capex": "Capex (purchase + install)", "loan_payment": "Loan payments", "energy": "Energy",
    "space": "Space (colocation)", "maintenance": "Maintenance", "staff": "Staff",
    "owned_storage": "Owned storage", "owned_network": "Owned network (data out)",
    "commitment_upfront": "Commitment upfront", "commitment": "Commitment monthly",
    "spot": "Spot", "on_demand": "On demand", "storage": "Cloud storage", "egress": "Egress",
    "cloud_setup": "Cloud setup fee", "cloud_support": "Cloud support",
    "tax_on_resale": "Tax on resale gain", "resale_credit": "Resale credit (-)",
    "tax_shield": "Tax shield (-)",
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


def padded(values, rows: int) -> np.ndarray:
    """A horizon-long engine array over the sheet's rows (zero after the horizon)."""
    out = np.zeros(rows)
    values = np.asarray(values, float)[:rows]
    out[:len(values)] = values
    return out


def held(values, rows: int) -> np.ndarray:
    """A cumulative engine array over the sheet's rows (its last value held after it)."""
    values = np.asarray(values, float)[:rows]
    return np.concatenate([values, np.full(rows - len(values), values[-1] if len(values) else 0.0)])


def build_columns(plan: Plan, r: StrategyResult, c: Callable[[str, int], str],
                  params: dict[str, str], rows: int,
                  cohorts: Optional[Callable[[str, int], str]] = None,
                  cohort_values: Optional[dict[str, np.ndarray]] = None) -> list[Column]:
    """The monthly table's columns. ``c(key, row)`` is the address of another column's cell;
    ``params`` holds absolute addresses of the strategy's figures (servers, uses_cloud, ...);
    ``cohorts(key, row)``, when the strategy has cohorts beyond its static chain, sums their
    monthly column ``key`` (cohort_values: the engine's sums). Cached values are the engine's
    own (models/costs.py), never recomputed here."""
    ctx, s = plan.context, plan.scenario
    book, L = ctx.book, r.lines
    H = ctx.horizon
    sch = server_columns(book, server_chain(s, 1, H), rows)  # one server of the static chain
    servers, uses = params["servers"], params["uses_cloud"]
    chain_servers = r.capacity.servers if r.capacity is not None else 0
    chain_online = padded(CapacityPlan(server_chain(s, chain_servers, H)).servers_online(H),
                          rows)
    commits = "+".join(params[f"commit_{i}"] for i in range(1, len(s.commitments) + 1)) or "0"

    def add(key: str, x: int) -> str:
        """'+' the cohorts' sum of ``key`` in row x, or nothing without cohorts."""
        return f"+{c('c_' + key, x)}" if cohorts is not None else ""
    totals = []
    if cohorts is not None:
        totals = [Column(f"c_{key}", f"All cohorts: {title}", "cohort", style,
                         padded(cohort_values[key], rows),
                         lambda x, key=key: "=" + cohorts(key, x))
                  for key, title, style in COHORT_TOTALS]
    month_start = np.array([(np.datetime64(mo, "D") - np.datetime64("1899-12-30", "D"))
                            .astype(int) for mo in book.labels[:rows]], dtype=float)
    start_lines = padded(sum(L[k] for k in START_OF_MONTH_LINES), rows)
    m = np.arange(1, rows + 1, dtype=float)
    inside = "finance_horizon_months"
    ded = padded(deductible_by_month(book, r.plan, L), rows)
    cols = [
        Column("m", "Month no.", "volume", "int", m),
        Column("start", "Month start", "volume", "date", month_start),
        Column("hours", "Hours in month", "volume", "hours", book.hours[:rows]),
        Column("demand", "Demand [useful GPU-h]", "volume", "hours",
               padded(ctx.tables.useful_by_month, rows)),
        Column("gross", "Gross demand [GPU-h, failure overhead included]", "volume", "hours",
               padded(ctx.tables.gross.totals, rows)),
        Column("owned_h", "Owned [GPU-h]", "volume", "hours",
               padded(r.owned_gpu_hours_by_month, rows)),
        Column("committed_h", "Committed [GPU-h]", "volume", "hours",
               padded(r.committed_gpu_hours_by_month, rows)),
        Column("spot_h", "Spot [GPU-h billed]", "volume", "hours",
               padded(r.spot_gpu_hours_by_month, rows)),
        Column("od_h", "On demand [GPU-h]", "volume", "hours",
               padded(r.on_demand_gpu_hours_by_month, rows)),
        Column("overhead_h", "Overhead [GPU-h]", "volume", "hours",
               padded(r.volumes.overhead, rows)),
        # capacity by month: the static chain and the cohorts (formulas)
        Column("chain_online", "Servers online, static chain", "schedule", "number",
               chain_online, lambda x: f"=IF(AND({c('m', x)}<={inside},{c('m', x)}-1>="
                                       f"{c('svc', x)}),{servers},0)"),
        Column("online", "Servers online", "schedule", "number", padded(r.servers_online, rows),
               lambda x: f"={c('chain_online', x)}{add('online', x)}"),
        Column("committed", "Committed GPUs", "schedule", "number",
               padded(r.committed_gpus_by_month, rows),
               lambda x: f"=IF({c('m', x)}<={inside},{commits},0){add('gpus', x)}"),
        # schedule columns: formulas over Assumptions names
        Column("ef", "Discount factor, end of month", "schedule", "fraction",
               book.end[:rows, 0], lambda x: f"=(1+calc_monthly_rate)^-{c('m', x)}"),
        Column("sf", "Discount factor, start of month", "schedule", "fraction",
               book.start[:rows, 0], lambda x: f"=(1+calc_monthly_rate)^-({c('m', x)}-1)"),
        Column("trend", "Cloud price trend factor", "schedule", "fraction",
               book.cloud_trend[:rows, 0],
               lambda x: f"=(1+on_demand_price_trend_annual)^(({c('m', x)}-1)/12)"),
        Column("power", "Power price [per kWh]", "schedule", "rate", book.power[:rows, 0],
               lambda x: f"=owned_electricity_price_per_kwh*(1+finance_power_price_inflation_"
                         f"annual)^(({c('m', x)}-1)/12)"),
        Column("staff_f", "Staff cost factor", "schedule", "fraction", book.staff_factor[:rows],
               lambda x: f"=(1+finance_staff_cost_inflation_annual)^(({c('m', x)}-1)/12)"),
        Column("share", "Data at owned prices (share)", "schedule", "fraction",
               _data_share(ctx, r, rows),
               lambda x: f"=IF({c('m', x)}>{inside},0,IF({c('gross', x)}>0,{c('owned_h', x)}*"
                         f"owned_relative_throughput/{c('gross', x)},IF({c('online', x)}>0,1,"
                         "0)))"),
        Column("gen_start", "Server generation bought (month index)", "schedule", "int",
               sch["gen_start"], lambda x: _inside(c, x, f"INT(({c('m', x)}-1)/owned_useful_"
                                                         "life_months)*owned_useful_life_months")),
        Column("svc", "Generation in service from (month index)", "schedule", "int",
               sch["svc"], lambda x: _inside(c, x, f"{c('gen_start', x)}+owned_lead_time_"
                                                   "months")),
        Column("age", "Generation age at month start [months]", "schedule", "int", sch["age"],
               lambda x: _inside(c, x, f"{c('m', x)}-1-{c('gen_start', x)}")),
        Column("span", "Generation months in horizon", "schedule", "int", sch["span"],
               lambda x: _inside(c, x, f"MIN(owned_useful_life_months,{inside}-"
                                       f"{c('gen_start', x)})")),
        Column("price", "Generation server price", "schedule", "money", sch["price"],
               lambda x: _inside(c, x, f"owned_server_price*(1+owned_hardware_price_trend_"
                                       f"annual)^({c('gen_start', x)}/12)")),
        Column("basis", "Generation capex per server", "schedule", "money", sch["basis"],
               lambda x: _inside(c, x, f"{c('price', x)}+owned_install_cost_per_server")),
        Column("frac", "Resale fraction at sale", "schedule", "fraction", sch["frac"],
               lambda x: _inside(c, x, _resale_formula(c('span', x))[1:])),
        # per-server owned schedules (zero after the horizon: servers are sold at its end)
        Column("pmt", "Loan payment per server (level)", "server", "money", sch["pmt"],
               lambda x: f"=IF(AND(calc_loan=1,{c('m', x)}<={inside}),PMT(owned_financing_apr/"
                         f"12,owned_financing_term_months,-{c('basis', x)}*(1-owned_financing_"
                         "down_payment_fraction)),0)"),
        Column("srv_loan", "Loan cash per server (payments + payoff)", "server", "money",
               sch["loan"], lambda x: _loan_formula(c, x)),
        Column("srv_interest", "Loan interest per server", "server", "money", sch["interest"],
               lambda x: f"=IF(AND(calc_loan=1,{c('m', x)}<={inside},{c('age', x)}<MIN("
                         f"owned_financing_term_months,{c('span', x)})),owned_financing_apr/12*"
                         f"FV(owned_financing_apr/12,{c('age', x)},{c('pmt', x)},-"
                         f"{c('basis', x)}*(1-owned_financing_down_payment_fraction)),0)"),
        Column("srv_dep", "Tax depreciation per server (from entering service)", "server",
               "money", sch["dep"], lambda x: _depreciation_formula(c, x)),
        Column("srv_cumdep", "Depreciation of the generation so far", "server", "money",
               sch["cumdep"],
               lambda x: (f"={c('srv_dep', x)}" if x == FIRST + 1 else
                          f"=IF({c('age', x)}=0,0,{c('srv_cumdep', x - 1)})+{c('srv_dep', x)}")),
        Column("srv_resale", "Resale value per server (at sale)", "server", "money",
               sch["resale"],
               lambda x: f"=IF(AND({c('m', x)}<={inside},{c('age', x)}={c('span', x)}-1),"
                         f"{c('price', x)}*{c('frac', x)},0)"),
        Column("srv_gain", "Resale gain over book value per server", "server", "money",
               sch["gain"],
               lambda x: f"=IF({c('srv_resale', x)}<>0,{c('srv_resale', x)}-({c('basis', x)}-"
                         f"{c('srv_cumdep', x)}),IF(AND({c('m', x)}<={inside},{c('age', x)}="
                         f"{c('span', x)}-1),-({c('basis', x)}-{c('srv_cumdep', x)}),0))"),
        Column("prepaid", "Prepaid commitments deducted this month", "server", "money",
               padded(cohort_items(book, r.plan).get("prepaid", np.zeros((rows, 1)))[:rows, 0],
                      rows),
               lambda x: _prepaid_formula(s, params, c, x) + add("prepaid", x)),
        Column("taxable_gain", "Taxable gain on sales this month", "server", "money",
               padded(cohort_items(book, r.plan).get("gains", np.zeros((rows, 1)))[:rows, 0],
                      rows),
               lambda x: f"={servers}*MAX({c('srv_gain', x)},0){add('gain', x)}"),
    ] + totals
    f = {
        "capex": lambda x: f"=IF(AND({c('m', x)}<={inside},{c('age', x)}=0),{servers}*"
                           f"{c('basis', x)}*IF(calc_loan=1,owned_financing_down_payment_"
                           f"fraction,1),0){add('capex', x)}",
        "loan_payment": lambda x: f"={servers}*{c('srv_loan', x)}{add('loan', x)}",
        "energy": lambda x: f"={c('online', x)}*owned_power_kw_idle*owned_pue*{c('hours', x)}*"
                            f"{c('power', x)}+calc_busy_kw_per_gpu*{c('power', x)}*"
                            f"{c('owned_h', x)}",
        "space": lambda x: f"={c('online', x)}*owned_power_kw_max*owned_space_price_per_kw_month",
        "maintenance": lambda x: f"={c('chain_online', x)}*owned_maintenance_fraction_annual*"
                                 f"{c('price', x)}/12{add('maint', x)}",
        "staff": lambda x: f"={c('online', x)}*owned_fte_cost_annual/12/owned_servers_per_fte*"
                           f"{c('staff_f', x)}",
        "owned_storage": lambda x: f"=IF({c('m', x)}>{inside},0,cloud_data_storage_tb*owned_"
                                   f"storage_price_per_tb_month*{c('share', x)})",
        "owned_network": lambda x: f"=IF({c('m', x)}>{inside},0,cloud_data_egress_tb_per_month"
                                   f"*owned_network_price_per_tb*{c('share', x)})",
        "commitment_upfront": lambda x: _commitment_formula(s, params, c, x, upfront=True)
        + add("upfront", x),
        "commitment": lambda x: _commitment_formula(s, params, c, x, upfront=False)
        + add("monthly", x),
        "spot": lambda x: f"={c('spot_h', x)}*calc_spot_base/calc_vat*{c('trend', x)}*"
                          "calc_spot_rounding",
        "on_demand": lambda x: f"={c('od_h', x)}*on_demand_price_per_gpu_hour/calc_vat*"
                               f"{c('trend', x)}*calc_rounding",
        "storage": lambda x: f"=IF({c('m', x)}>{inside},0,cloud_data_storage_tb*1000*cloud_data"
                             f"_storage_price_per_gb_month/calc_vat*(1-{c('share', x)}))",
        "egress": lambda x: f"=IF({c('m', x)}>{inside},0,cloud_data_egress_tb_per_month*1000*"
                            f"cloud_data_egress_price_per_gb/calc_vat*(1-{c('share', x)}))",
        "cloud_setup": lambda x: f"=IF({c('m', x)}=1,{uses}*cloud_terms_setup_fee/calc_vat,0)",
        "cloud_support": lambda x: (
            f"=IF(SUM({c('commitment_upfront', x)}:{c('egress', x)})>0,MAX("
            f"cloud_terms_support_fraction*SUM({c('commitment_upfront', x)}:{c('egress', x)}),"
            "cloud_terms_support_minimum_per_month/calc_vat),0)"),
        "tax_on_resale": lambda x: _lagged(c, x, "{}", "taxable_gain"),
        "resale_credit": lambda x: f"={servers}*{c('srv_resale', x)}{add('resale', x)}",
        "tax_shield": lambda x: _lagged(c, x, "{}", "deductible"),
    }
    for name in COST_LINES + CREDIT_LINES:
        cols.append(Column(name, LINE_TITLES[name], "money", "money", padded(L[name], rows),
                           f[name]))
    first_cost, last_cost = COST_LINES[0], COST_LINES[-1]
    cols += [
        Column("deductible", "Tax-deductible this month (before the lag)", "total", "money",
               ded, lambda x: (f"=SUM({c('energy', x)}:{c('owned_network', x)})+SUM("
                               f"{c('commitment', x)}:{c('cloud_support', x)})+{c('prepaid', x)}"
                               f"+{servers}*({c('srv_interest', x)}+{c('srv_dep', x)}+MAX(-"
                               f"{c('srv_gain', x)},0)){add('interest', x)}{add('dep', x)}"
                               f"{add('loss', x)}")),
        Column("total", "Total cost", "total", "money_bold", padded(r.total_by_month, rows),
               lambda x: f"=SUM({c(first_cost, x)}:{c(last_cost, x)})-{c('resale_credit', x)}"
                         f"-{c('tax_shield', x)}"),
        Column("cumulative", "Cumulative cost", "total", "money", held(r.cumulative, rows),
               lambda x: (f"={c('total', x)}" if x == FIRST + 1
                          else f"={c('cumulative', x - 1)}+{c('total', x)}")),
        Column("start_pay", "Paid at month start", "total", "money", start_lines,
               lambda x: "=" + "+".join(c(k, x) for k in START_OF_MONTH_LINES)),
        Column("end_net", "Paid at month end (net of credits)", "total", "money",
               padded(r.total_by_month, rows) - start_lines,
               lambda x: f"={c('total', x)}-{c('start_pay', x)}"),
        Column("discounted", "Discounted cost", "total", "money", padded(r.discounted_by_month, rows),
               lambda x: f"={c('end_net', x)}*{c('ef', x)}+{c('start_pay', x)}*{c('sf', x)}"),
        Column("disc_cum", "Discounted cumulative cost", "total", "money",
               held(r.discounted_cumulative, rows),
               lambda x: (f"={c('discounted', x)}" if x == FIRST + 1
                          else f"={c('disc_cum', x - 1)}+{c('discounted', x)}")),
    ]
    assert all(len(col_.values) == rows for col_ in cols)
    return cols


def _data_share(ctx, r: StrategyResult, rows: int) -> np.ndarray:
    """The engine's share of data charges at owned prices (models/costs.data_share)."""
    return padded(data_share(r.plan, r.volumes, ctx.horizon, False), rows)


def _inside(c, x: int, expr: str) -> str:
    """A schedule value inside the horizon; 0 after it (servers are sold at its end)."""
    return f"=IF({c('m', x)}>finance_horizon_months,0,{expr})"


def _lagged(c, x: int, template: str, key: str) -> str:
    """finance_tax_rate x template(key of the row tax_payment_lag_months above), 0 before."""
    lagged = (f"INDEX({c(key, FIRST + 1)}:{c(key, x)},{c('m', x)}-"
              "finance_tax_payment_lag_months)")
    return (f"=IF({c('m', x)}>finance_tax_payment_lag_months,finance_tax_rate*"
            + template.format(lagged) + ",0)")


def _resale_formula(span: str) -> str:
    """np.interp over ages 0, 12, ... with values 1, f1, f2, ...; the last value holds."""
    lst = "owned_resale_fraction_by_year"
    lo = f"INT({span}/12)"
    v_lo = f"IF({lo}=0,1,INDEX({lst},{lo}))"
    return (f"=IF({span}>=12*COUNT({lst}),INDEX({lst},COUNT({lst})),{v_lo}+({span}-12*{lo})"
            f"*(INDEX({lst},{lo}+1)-{v_lo})/12)")


def _depreciation_formula(c, x: int) -> str:
    """Depreciation from the month the generation enters service until its sale."""
    age = f"({c('m', x)}-1-{c('svc', x)})"
    held = f"AND({c('m', x)}<=finance_horizon_months,{age}>=0)"
    return (f'=IF({held},IF(finance_tax_depreciation="macrs_5",IF({age}<72,CHOOSE(INT({age}/12)'
            f'+1,{MACRS_LIST})/12*{c("basis", x)},0),IF({age}<owned_useful_life_months,'
            f'{c("basis", x)}/owned_useful_life_months,0)),0)')


def _loan_formula(c, x: int) -> str:
    rate, term = "owned_financing_apr/12", "owned_financing_term_months"
    principal = f"{c('basis', x)}*(1-owned_financing_down_payment_fraction)"
    return (f"=IF(AND(calc_loan=1,{c('m', x)}<=finance_horizon_months),IF({c('age', x)}<MIN("
            f"{term},{c('span', x)}),{c('pmt', x)},0)+IF(AND({c('age', x)}={c('span', x)}-1,"
            f"{term}>{c('span', x)}),FV({rate},{c('span', x)},{c('pmt', x)},-{principal}),0),0)")


def _term(s, params, c, x: int, i: int) -> tuple[str, str, str, str]:
    """(GPUs, position in term, committed rate, counted) of offer i in row x.

    A term starts every term_months from month 1 while the horizon lasts; under the
    liquidate rule the last term is paid to its end after the horizon, under prorate payments
    after the horizon are left out.
    """
    gpus = params[f"commit_{i}"]
    term = f"commitments_{i}_term_months"
    pos = f"MOD({c('m', x)}-1,{term})"
    rate = (f"calc_commit_{i}_base*(1+on_demand_price_trend_annual)^(({c('m', x)}-1-{pos})"
            "/12)")
    counted = (f"AND({c('m', x)}-1-{pos}<finance_horizon_months,OR(finance_horizon_end="
               f'"liquidate",{c("m", x)}<=finance_horizon_months))')
    return gpus, pos, rate, counted


def _term_hours(c, x: int, pos: str, term: str) -> str:
    """Calendar hours of the term that contains row x."""
    start = c('start', x)
    first = f"DATE(YEAR({start}),MONTH({start})-{pos},1)"
    return f"(DATE(YEAR({start}),MONTH({start})-{pos}+{term},1)-{first})*24"


def _commitment_formula(s, params, c, x: int, *, upfront: bool) -> str:
    """Sum over offers of committed GPUs x the offer's cash flow in this month."""
    terms = []
    for i, _offer in enumerate(s.commitments, start=1):
        gpus, pos, rate, counted = _term(s, params, c, x, i)
        term = f"commitments_{i}_term_months"
        share = f"calc_commit_{i}_upfront_share"
        if upfront:
            inside = (f'IF(finance_horizon_end="liquidate",1,MIN({term},finance_horizon_months-'
                      f"({c('m', x)}-1))/{term})")
            terms.append(f"{gpus}*IF(AND({pos}=0,{counted}),{share}*{rate}*"
                         f"{_term_hours(c, x, pos, term)}*{inside},0)")
        else:
            terms.append(f"{gpus}*IF({counted},(1-{share})*{rate}*{c('hours', x)},0)")
    return "=" + ("+".join(terms) if terms else "0")


def _prepaid_formula(s, params, c, x: int) -> str:
    """Prepaid commitments are deducted evenly over their term (in the months counted)."""
    terms = []
    for i, _offer in enumerate(s.commitments, start=1):
        gpus, pos, rate, counted = _term(s, params, c, x, i)
        term = f"commitments_{i}_term_months"
        share = f"calc_commit_{i}_upfront_share"
        terms.append(f"{gpus}*IF({counted},{share}*{rate}*{_term_hours(c, x, pos, term)}/"
                     f"{term},0)")
    return "=" + ("+".join(terms) if terms else "0")


def write_strategy_sheet(workbook, fmt: dict, plan: Plan, name: str, r: StrategyResult,
                         decisions: Optional[list[DecisionRef]] = None) -> SheetInfo:
    """The strategy's sheet. ``decisions``: the rows of its schedule (Schedule sheet or
    proposed.schedule), whose cohorts the sheet reads; the sheet then runs to the end of the
    price book so that an edited decision's payments still have their months."""
    ws = add_sheet(workbook, name)
    s, ctx = plan.scenario, plan.context
    book, H = ctx.book, ctx.horizon
    cur = s.finance.currency
    months = len(r.total_by_month)   # the horizon and the months after it still paid
    if decisions is not None:
        months = max(months, book.months)
    write_text(ws, 0, 0, f"Strategy {name}: monthly cash flows [{cur}]", fmt["title"])
    # Strategy figures: the static chain's capacity (engine decisions) and totals (formulas).
    static = r.capacity if r.capacity is not None else Capacity(0, {})
    params = {"servers": "$B$3"}
    write_text(ws, 2, 0, "Servers, static chain (engine decision)")
    ws.write_number(2, 1, static.servers, fmt["input"])
    for i, offer in enumerate(s.commitments, start=1):
        write_text(ws, 1 + i, 3, f"Committed GPUs, offer {offer.id}")
        ws.write_number(1 + i, 4, static.committed.get(offer.id, 0), fmt["input"])
        params[f"commit_{i}"] = f"$E${2 + i}"
    params["uses_cloud"] = "$B$4"
    servers_c, commits_c, notes = strategy_cohorts(book, r, decisions, "{first_start}", months)
    cohorts = servers_c + commits_c
    cols_index: dict[str, int] = {}

    def c(key: str, row: int) -> str:
        return f"{col(cols_index[key])}{row}"

    # Column positions first (a dry run with dummy addresses), then the real formulas.
    dummy = (lambda k, x: "") if cohorts else None
    sums = cohort_sums(cohorts, months) if cohorts else None
    for i, column in enumerate(build_columns(plan, r, lambda k, x: "", params, months, dummy,
                                             sums), start=1):
        cols_index[column.key] = i
    first, last = FIRST + 1, FIRST + months   # 1-based excel rows of the data
    first_start = f"${col(cols_index['start'])}${first}"
    block = CohortBlock(cohorts, first_col=len(cols_index) + 2, table_row=FIRST + months + 3,
                        first_start=first_start)
    columns_holder = build_columns(plan, r, c, params, months,
                                   block.sum if cohorts else None, sums)

    def rng(key: str, rows: int = months) -> str:
        letter = col(cols_index[key])
        return f"${letter}${first}:${letter}${first + rows - 1}"

    commits = "+".join(params[f"commit_{i}"] for i in range(1, len(s.commitments) + 1)) or "0"
    figures = [
        ("uses_cloud", "Uses cloud capacity (1/0)",
         f"=IF(OR({commits}>0,{block.any_commitment()}SUM({rng('spot_h')})>0,"
         f"SUM({rng('od_h')})>1E-9),1,0)", 1.0 if r.uses_cloud else 0.0, "int"),
        ("total_cost", "Total cost (nominal)", f"=SUM({rng('total')})", r.total_cost,
         "money_bold"),
        ("pv_cost", "PV cost", f"=SUM({rng('discounted')})", r.pv_cost, "money_bold"),
        ("pv_npv", "PV cost via Excel NPV (same figure)",
         f"=NPV(calc_monthly_rate,{rng('end_net')})+(1+calc_monthly_rate)*NPV("
         f"calc_monthly_rate,{rng('start_pay')})", r.pv_cost, "money"),
        ("pv_useful", "PV of useful GPU-hours", f"=SUMPRODUCT({rng('demand')},{rng('ef')})",
         ctx.useful_pv, "hours"),
        ("cost_per_hour", "Cost per useful GPU-hour", "=IF($B$8>0,$B$6/$B$8,\"-\")",
         r.cost_per_useful_gpu_hour if ctx.useful_pv > 0 else "-", "rate"),
        ("utilization", "Owned utilization (of installed GPUs)",
         f"=IF(SUMPRODUCT({rng('online')},{rng('hours')})>0,SUM({rng('owned_h')})/(SUMPRODUCT("
         f"{rng('online')},{rng('hours')})*owned_gpus_per_server),\"-\")",
         r.owned_utilization if r.owned_utilization is not None else "-", "percent"),
    ]
    cells = {"servers": "$B$3"}
    for i, (key, label, formula, value, f_) in enumerate(figures):
        row = 3 + i
        write_text(ws, row, 0, label)
        ws.write_formula(row, 1, formula, fmt[f_], value)
        cells[key] = f"$B${row + 1}"
    assert cells["uses_cloud"] == params["uses_cloud"] and cells["pv_useful"] == "$B$8"
    nominal = r.cost_per_useful_gpu_hour_nominal
    extra = [
        ("cost_per_hour_nominal", "Cost per useful GPU-hour, nominal (total / useful GPU-h)",
         f"=IF(SUM({rng('demand')})>0,$B$5/SUM({rng('demand')}),\"-\")",
         nominal if np.isfinite(nominal) else "-", "rate"),
        ("normal_pv", "Normal-run PV: nothing failed or interrupted (engine value)", None,
         r.normal_cost_pv, "money"),
        ("failure_pv", "What failures and interruptions add to the PV cost", "=$B$6-$H$5",
         r.failure_cost_pv, "money"),
        ("servers_max", "Most servers online in a month", f"=MAX({rng('online', H)})",
         float(r.servers), "int"),
        ("committed_max", "Most GPUs committed in a month", f"=MAX({rng('committed', H)})",
         float(r.committed_gpus_by_month.max(initial=0)), "int"),
    ]
    for i, (key, label, formula, value, f_) in enumerate(extra):
        row = 3 + i
        write_text(ws, row, 6, label)
        if formula is None:
            ws.write_number(row, 7, value, fmt[f_])
        else:
            ws.write_formula(row, 7, formula, fmt[f_], value)
        cells[key] = f"$H${row + 1}"
    assert cells["normal_pv"] == "$H$5"
    note = ("Columns under 'Engine volumes (values)' are the engine's numbers; everything else "
            "is a formula over the Assumptions sheet and those volumes.")
    if cohorts:
        note += (" Servers online and committed GPUs add the cohorts listed under the monthly "
                 "table (their inputs: the Assumptions sheet" + (" and the Schedule sheet"
                                                                 if name == "staged" else "")
                 + "); editing one moves the cash lines, while the dispatch (GPU-hours by "
                 "source, a sorted-demand computation) stays the engine's at export.")
    write_text(ws, 10, 0, note, fmt["note"])
    for k, text in enumerate(notes):
        write_text(ws, 1, 6 * k, text, fmt["note"])
    # Monthly table.
    group_titles = {"volume": "Engine volumes (values)", "schedule": "Schedules (formulas)",
                    "server": "Per owned server (formulas)", "money": "Cost lines (formulas)",
                    "total": "Totals (formulas)",
                    "cohort": "All cohorts (formulas: sums of the cohort columns at the right)"}
    hdr = TABLE_HEADER_ROW
    write_text(ws, hdr, 0, "Month", fmt["header"])
    seen = set()
    for column in columns_holder:
        ci = cols_index[column.key]
        if column.group not in seen:
            seen.add(column.group)
            write_text(ws, hdr - 1, ci, group_titles[column.group], fmt["group"])
        write_text(ws, hdr, ci, column.header, fmt["header"])
    for m, label in enumerate(book.labels[:months]):
        write_text(ws, FIRST + m, 0, label if m < H else f"{label} (after horizon)")
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
    if cohorts:
        block.write(ws, fmt, c, months)
    # Totals row under the table: sums of volumes and money columns.
    total_row = FIRST + months
    write_text(ws, total_row, 0, "Total", fmt["bold"])
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
    return SheetInfo(name, cols_index, FIRST, FIRST + months - 1, cells)
