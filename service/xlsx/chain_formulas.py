"""Formulas of a strategy's static chain: N servers bought at month 1 and replaced at the end
of each useful life, C GPUs per offer committed from month 1 and renewed at each term's end.

Each function returns a formula for one cell of the monthly table; ``c(key, row)`` is the
address of another column's cell in the same table. Cohorts that are not a chain (servers held
before the plan, a schedule's purchases) are written by service/xlsx/cohorts.py.
"""
from __future__ import annotations

from models.finance import MACRS_5

MACRS_LIST = ",".join(repr(x) for x in MACRS_5)
FIRST = 13   # 0-based first data row of the monthly table (strategy_sheet.FIRST)


def fx_at(market: str, index: str) -> str:
    """Reporting units per unit of a market's currency at month index ``index`` (0 = the
    plan's first month): fx_rate x (1 + fx_trend_annual)^(index/12), or 1 when the market is
    in the reporting currency (models/prices.PriceBook.fx_at)."""
    return f"IF(calc_fx_{market}=1,fx_rate*(1+fx_trend_annual)^(({index})/12),1)"


def inside_horizon(c, x: int, expr: str) -> str:
    """A schedule value inside the horizon; 0 after it (servers are sold at its end)."""
    return f"=IF({c('m', x)}>finance_horizon_months,0,{expr})"


def lagged(c, x: int, template: str, key: str) -> str:
    """finance_tax_rate x template(key of the row tax_payment_lag_months above), 0 before."""
    lagged = (f"INDEX({c(key, FIRST + 1)}:{c(key, x)},{c('m', x)}-"
              "finance_tax_payment_lag_months)")
    return (f"=IF({c('m', x)}>finance_tax_payment_lag_months,finance_tax_rate*"
            + template.format(lagged) + ",0)")


def resale_formula(span: str) -> str:
    """np.interp over ages 0, 12, ... with values 1, f1, f2, ...; the last value holds."""
    lst = "owned_resale_fraction_by_year"
    lo = f"INT({span}/12)"
    v_lo = f"IF({lo}=0,1,INDEX({lst},{lo}))"
    return (f"=IF({span}>=12*COUNT({lst}),INDEX({lst},COUNT({lst})),{v_lo}+({span}-12*{lo})"
            f"*(INDEX({lst},{lo}+1)-{v_lo})/12)")


def depreciation_formula(c, x: int) -> str:
    """Depreciation from the month the generation enters service until its sale."""
    age = f"({c('m', x)}-1-{c('svc', x)})"
    held = f"AND({c('m', x)}<=finance_horizon_months,{age}>=0)"
    return (f'=IF({held},IF(finance_tax_depreciation="macrs_5",IF({age}<72,CHOOSE(INT({age}/12)'
            f'+1,{MACRS_LIST})/12*{c("basis", x)},0),IF({age}<owned_useful_life_months,'
            f'{c("basis", x)}/owned_useful_life_months,0)),0)')


def loan_formula(c, x: int) -> str:
    rate, term = "owned_financing_apr/12", "owned_financing_term_months"
    principal = f"{c('basis', x)}*(1-owned_financing_down_payment_fraction)"
    return (f"=IF(AND(calc_loan=1,{c('m', x)}<=finance_horizon_months),IF({c('age', x)}<MIN("
            f"{term},{c('span', x)}),{c('pmt', x)},0)+IF(AND({c('age', x)}={c('span', x)}-1,"
            f"{term}>{c('span', x)}),FV({rate},{c('span', x)},{c('pmt', x)},-{principal}),0),0)")


def term_cells(s, params, c, x: int, i: int) -> tuple[str, str, str, str]:
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


def term_hours(c, x: int, pos: str, term: str) -> str:
    """Calendar hours of the term that contains row x."""
    start = c('start', x)
    first = f"DATE(YEAR({start}),MONTH({start})-{pos},1)"
    return f"(DATE(YEAR({start}),MONTH({start})-{pos}+{term},1)-{first})*24"


def commitment_formula(s, params, c, x: int, *, upfront: bool) -> str:
    """Sum over offers of committed GPUs x the offer's cash flow in this month."""
    terms = []
    for i, _offer in enumerate(s.commitments, start=1):
        gpus, pos, rate, counted = term_cells(s, params, c, x, i)
        term = f"commitments_{i}_term_months"
        share = f"calc_commit_{i}_upfront_share"
        if upfront:
            inside = (f'IF(finance_horizon_end="liquidate",1,MIN({term},finance_horizon_months-'
                      f"({c('m', x)}-1))/{term})")
            terms.append(f"{gpus}*IF(AND({pos}=0,{counted}),{share}*{rate}*"
                         f"{term_hours(c, x, pos, term)}*{inside},0)")
        else:
            terms.append(f"{gpus}*IF({counted},(1-{share})*{rate}*{c('hours', x)},0)")
    return "=" + ("+".join(terms) if terms else "0")


def prepaid_formula(s, params, c, x: int) -> str:
    """Prepaid commitments are deducted evenly over their term (in the months counted)."""
    terms = []
    for i, _offer in enumerate(s.commitments, start=1):
        gpus, pos, rate, counted = term_cells(s, params, c, x, i)
        term = f"commitments_{i}_term_months"
        share = f"calc_commit_{i}_upfront_share"
        # deducted at the rate it was paid at: the term's signing month
        signing = fx_at("cloud", f"{c('m', x)}-1-{pos}")
        terms.append(f"{gpus}*IF({counted},{share}*{rate}*{term_hours(c, x, pos, term)}/"
                     f"{term}*{signing},0)")
    return "=" + ("+".join(terms) if terms else "0")
