"""The columns of a strategy sheet's monthly table, each with its formula and the engine's value.

Left to right: engine volumes (values), capacity by month (servers online and committed GPUs:
the static chain plus the cohorts), schedule columns (discount factors, price trends, the
chain's server generation), per-server owned schedules of the chain, the cohorts' sums, the
cost lines of models.costs in their order, then total, cumulative and discounted figures.
Cached values are the engine's own (models/costs.py), never recomputed here.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np

from models.capacity import CapacityPlan, server_chain
from models.costs import (COST_LINES, CREDIT_LINES, START_OF_MONTH_LINES, cohort_items,
                          data_share, deductible_by_month, server_columns)
from models.plan import Plan
from models.strategies import StrategyResult
from service.i18n import N_, gettext as tr
from service.xlsx.chain_formulas import (FIRST, commitment_formula, depreciation_formula,
                                         fx_at, inside_horizon, lagged, loan_formula,
                                         prepaid_formula, resale_formula)
from service.i18n.labels import LINE_TITLES  # noqa: F401 (read by strategy_sheet, summary)
from service.xlsx.cohort_block import COHORT_TOTALS



@dataclass
class Column:
    key: str
    header: str
    group: str                     # "volume", "schedule", "server", "cohort", "money", "total"
    fmt: str
    values: np.ndarray             # engine values (cached results for formulas)
    formula: Optional[Callable[[int], str]] = None   # excel row number (1-based) -> formula


def padded(values, rows: int) -> np.ndarray:
    """A horizon-long engine array over the sheet's rows (zero after the horizon)."""
    out = np.zeros(rows)
    values = np.asarray(values, float)[:rows]
    out[:len(values)] = values
    return out


def held(values, rows: int) -> np.ndarray:
    """A cumulative engine array over the sheet's rows (its last value held after it)."""
    values = np.asarray(values, float)[:rows]
    last = values[-1] if len(values) else 0.0
    return np.concatenate([values, np.full(rows - len(values), last)])

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
        totals = [Column(f"c_{key}", tr("All cohorts: %(what)s", what=tr(title)), "cohort",
                         style, padded(cohort_values[key], rows),
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
        Column("fx_o", "Exchange rate, owned costs [reporting per owned-currency unit]",
               "schedule", "rate", _fx(book, "owned", rows),
               lambda x: "=" + fx_at("owned", f"{c('m', x)}-1")),
        Column("fx_c", "Exchange rate, cloud prices [reporting per cloud-currency unit]",
               "schedule", "rate", _fx(book, "cloud", rows),
               lambda x: "=" + fx_at("cloud", f"{c('m', x)}-1")),
        Column("power", "Power price [per kWh]", "schedule", "rate", book.power[:rows, 0],
               lambda x: f"=owned_electricity_price_per_kwh*(1+finance_power_price_inflation_"
                         f"annual)^(({c('m', x)}-1)/12)*{c('fx_o', x)}"),
        Column("staff_f", "Staff cost factor", "schedule", "fraction", book.staff_factor[:rows],
               lambda x: f"=(1+finance_staff_cost_inflation_annual)^(({c('m', x)}-1)/12)"),
        Column("share", "Data at owned prices (share)", "schedule", "fraction",
               _data_share(ctx, r, rows),
               lambda x: f"=IF({c('m', x)}>{inside},0,IF({c('gross', x)}>0,{c('owned_h', x)}*"
                         f"owned_relative_throughput/{c('gross', x)},IF({c('online', x)}>0,1,"
                         "0)))"),
        Column("gen_start", "Server generation bought (month index)", "schedule", "int",
               sch["gen_start"], lambda x: inside_horizon(c, x, f"INT(({c('m', x)}-1)/owned_useful_"
                                                         "life_months)*owned_useful_life_months")),
        Column("svc", "Generation in service from (month index)", "schedule", "int",
               sch["svc"], lambda x: inside_horizon(c, x, f"{c('gen_start', x)}+owned_lead_time_"
                                                   "months")),
        Column("age", "Generation age at month start [months]", "schedule", "int", sch["age"],
               lambda x: inside_horizon(c, x, f"{c('m', x)}-1-{c('gen_start', x)}")),
        Column("span", "Generation months in horizon", "schedule", "int", sch["span"],
               lambda x: inside_horizon(c, x, f"MIN(owned_useful_life_months,{inside}-"
                                       f"{c('gen_start', x)})")),
        Column("price", "Generation server price", "schedule", "money", sch["price"],
               lambda x: inside_horizon(c, x, f"owned_server_price*(1+owned_hardware_price_trend_"
                                       f"annual)^({c('gen_start', x)}/12)")),
        Column("basis", "Generation capex per server", "schedule", "money", sch["basis"],
               lambda x: inside_horizon(c, x, f"{c('price', x)}+owned_install_cost_per_server")),
        Column("frac", "Resale fraction at sale", "schedule", "fraction", sch["frac"],
               lambda x: inside_horizon(c, x, resale_formula(c('span', x))[1:])),
        Column("fx_buy", "Exchange rate when the generation was bought", "schedule", "rate",
               _fx_bought(book, sch["gen_start"], rows),
               lambda x: inside_horizon(c, x, fx_at("owned", c('gen_start', x)))),
        # per-server owned schedules (zero after the horizon: servers are sold at its end)
        Column("pmt", "Loan payment per server (level)", "server", "money", sch["pmt"],
               lambda x: f"=IF(AND(calc_loan=1,{c('m', x)}<={inside}),PMT(owned_financing_apr/"
                         f"12,owned_financing_term_months,-{c('basis', x)}*(1-owned_financing_"
                         "down_payment_fraction)),0)"),
        Column("srv_loan", "Loan cash per server (payments + payoff)", "server", "money",
               sch["loan"], lambda x: f"=({loan_formula(c, x)[1:]})*{c('fx_o', x)}"),
        Column("srv_interest", "Loan interest per server", "server", "money", sch["interest"],
               lambda x: f"=IF(AND(calc_loan=1,{c('m', x)}<={inside},{c('age', x)}<MIN("
                         f"owned_financing_term_months,{c('span', x)})),owned_financing_apr/12*"
                         f"FV(owned_financing_apr/12,{c('age', x)},{c('pmt', x)},-"
                         f"{c('basis', x)}*(1-owned_financing_down_payment_fraction))*"
                         f"{c('fx_o', x)},0)"),
        Column("srv_dep", "Tax depreciation per server (from entering service)", "server",
               "money", sch["dep"],
               lambda x: f"=({depreciation_formula(c, x)[1:]})*{c('fx_buy', x)}"),
        Column("srv_cumdep", "Depreciation of the generation so far", "server", "money",
               sch["cumdep"],
               lambda x: (f"={c('srv_dep', x)}" if x == FIRST + 1 else
                          f"=IF({c('age', x)}=0,0,{c('srv_cumdep', x - 1)})+{c('srv_dep', x)}")),
        Column("srv_resale", "Resale value per server (at sale)", "server", "money",
               sch["resale"],
               lambda x: f"=IF(AND({c('m', x)}<={inside},{c('age', x)}={c('span', x)}-1),"
                         f"{c('price', x)}*{c('frac', x)}*{c('fx_o', x)},0)"),
        Column("srv_gain", "Resale gain over book value per server", "server", "money",
               sch["gain"],
               lambda x: f"=IF({c('srv_resale', x)}<>0,{c('srv_resale', x)}-({c('basis', x)}*"
                         f"{c('fx_buy', x)}-{c('srv_cumdep', x)}),IF(AND({c('m', x)}<={inside},"
                         f"{c('age', x)}={c('span', x)}-1),-({c('basis', x)}*{c('fx_buy', x)}-"
                         f"{c('srv_cumdep', x)}),0))"),
        Column("prepaid", "Prepaid commitments deducted this month", "server", "money",
               padded(cohort_items(book, r.plan).get("prepaid", np.zeros((rows, 1)))[:rows, 0],
                      rows),
               lambda x: prepaid_formula(s, params, c, x) + add("prepaid", x)),
        Column("taxable_gain", "Taxable gain on sales this month", "server", "money",
               padded(cohort_items(book, r.plan).get("gains", np.zeros((rows, 1)))[:rows, 0],
                      rows),
               lambda x: f"={servers}*MAX({c('srv_gain', x)},0){add('gain', x)}"),
    ] + totals
    f = {
        "capex": lambda x: f"=IF(AND({c('m', x)}<={inside},{c('age', x)}=0),{servers}*"
                           f"{c('basis', x)}*IF(calc_loan=1,owned_financing_down_payment_"
                           f"fraction,1)*{c('fx_o', x)},0){add('capex', x)}",
        "loan_payment": lambda x: f"={servers}*{c('srv_loan', x)}{add('loan', x)}",
        "energy": lambda x: f"={c('online', x)}*owned_power_kw_idle*owned_pue*{c('hours', x)}*"
                            f"{c('power', x)}+calc_busy_kw_per_gpu*{c('power', x)}*"
                            f"{c('owned_h', x)}",
        "space": lambda x: f"={c('online', x)}*owned_power_kw_max*owned_space_price_per_kw_month"
                           f"*{c('fx_o', x)}",
        "maintenance": lambda x: f"={c('chain_online', x)}*owned_maintenance_fraction_annual*"
                                 f"{c('price', x)}/12*{c('fx_o', x)}{add('maint', x)}",
        "staff": lambda x: f"={c('online', x)}*owned_fte_cost_annual/12/owned_servers_per_fte*"
                           f"{c('staff_f', x)}*{c('fx_o', x)}",
        "owned_storage": lambda x: f"=IF({c('m', x)}>{inside},0,cloud_data_storage_tb*owned_"
                                   f"storage_price_per_tb_month*{c('share', x)}*{c('fx_o', x)})",
        "owned_network": lambda x: f"=IF({c('m', x)}>{inside},0,cloud_data_egress_tb_per_month"
                                   f"*owned_network_price_per_tb*{c('share', x)}*{c('fx_o', x)})",
        "commitment_upfront": lambda x: "=(" + commitment_formula(
            s, params, c, x, upfront=True)[1:] + f")*{c('fx_c', x)}" + add("upfront", x),
        "commitment": lambda x: f"=({commitment_formula(s, params, c, x, upfront=False)[1:]})*"
        f"{c('fx_c', x)}" + add("monthly", x),
        "spot": lambda x: f"={c('spot_h', x)}*calc_spot_base/calc_vat*{c('trend', x)}*"
                          f"calc_spot_rounding*{c('fx_c', x)}",
        "on_demand": lambda x: f"={c('od_h', x)}*on_demand_price_per_gpu_hour/calc_vat*"
                               f"{c('trend', x)}*calc_rounding*{c('fx_c', x)}",
        "storage": lambda x: f"=IF({c('m', x)}>{inside},0,cloud_data_storage_tb*1000*cloud_data"
                             f"_storage_price_per_gb_month/calc_vat*(1-{c('share', x)})*"
                             f"{c('fx_c', x)})",
        "egress": lambda x: f"=IF({c('m', x)}>{inside},0,cloud_data_egress_tb_per_month*1000*"
                            f"cloud_data_egress_price_per_gb/calc_vat*(1-{c('share', x)})*"
                            f"{c('fx_c', x)})",
        "cloud_setup": lambda x: f"=IF({c('m', x)}=1,{uses}*cloud_terms_setup_fee/calc_vat*"
                                 f"{c('fx_c', x)},0)",
        "cloud_support": lambda x: (
            f"=IF(SUM({c('commitment_upfront', x)}:{c('egress', x)})>0,MAX("
            f"cloud_terms_support_fraction*SUM({c('commitment_upfront', x)}:{c('egress', x)}),"
            f"cloud_terms_support_minimum_per_month/calc_vat*{c('fx_c', x)}),0)"),
        "tax_on_resale": lambda x: lagged(c, x, "{}", "taxable_gain"),
        "resale_credit": lambda x: f"={servers}*{c('srv_resale', x)}{add('resale', x)}",
        "tax_shield": lambda x: lagged(c, x, "{}", "deductible"),
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
        Column("discounted", "Discounted cost", "total", "money",
               padded(r.discounted_by_month, rows),
               lambda x: f"={c('end_net', x)}*{c('ef', x)}+{c('start_pay', x)}*{c('sf', x)}"),
        Column("disc_cum", "Discounted cumulative cost", "total", "money",
               held(r.discounted_cumulative, rows),
               lambda x: (f"={c('discounted', x)}" if x == FIRST + 1
                          else f"={c('disc_cum', x - 1)}+{c('discounted', x)}")),
    ]
    assert all(len(col_.values) == rows for col_ in cols)
    return cols

def _fx(book, market: str, rows: int) -> np.ndarray:
    """The engine's rate of a market's currency by month (1 where it is not converted)."""
    fx = book.fx[market]
    return np.ones(rows) if fx is None else fx[:rows, 0]


def _fx_bought(book, gen_start: np.ndarray, rows: int) -> np.ndarray:
    """The rate at each row's generation purchase (0 after the horizon, like gen_start)."""
    inside = np.arange(rows) < book.horizon
    return np.array([float(np.asarray(book.fx_at("owned", g)).ravel()[0]) if ok else 0.0
                     for g, ok in zip(gen_start, inside)])


def _data_share(ctx, r: StrategyResult, rows: int) -> np.ndarray:
    """The engine's share of data charges at owned prices (models/costs.data_share)."""
    return padded(data_share(r.plan, r.volumes, ctx.horizon, False), rows)
