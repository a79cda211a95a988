"""Cohorts on a strategy sheet: capacity that varies by month, as formulas over input cells.

A strategy is a set of cohorts (models/capacity.py), each one row of a cohort table below the
monthly table (servers owned and contracts signed before the plan, a schedule's purchases and
commitments, the generations and renewals of a static strategy's chain) whose cells read the
Assumptions sheet (``position.*``, ``proposed.schedule[i].*``), the Schedule sheet or the
strategy's own capacity cells, and one block of monthly columns at the right of the table.
Cost lines add those columns up with SUMIF over a key row, so the cohort count is free. The
values each formula caches are the engine's, read from the plan's ledger (models/ledger.py).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np

from models.finance import MACRS_5
from service.xlsx.sheet_formulas import fx_at
from service.xlsx.type_names import OWNED, OwnedNames
from service.i18n import N_   # labels: English, written through gettext

# Per-month columns of each cohort: (key, header); the keys are what SUMIF adds up.
SERVER_ITEMS = (("online", N_("servers online")), ("capex", N_("capex")),
                ("loan", N_("loan cash")), ("interest", N_("loan interest")),
                ("maint", N_("maintenance")), ("dep", N_("tax depreciation")),
                ("resale", N_("resale")), ("gain", N_("taxable gain on sale")),
                ("loss", N_("loss on sale")))
COMMIT_ITEMS = (("gpus", N_("GPUs committed")), ("upfront", N_("upfront")),
                ("monthly", N_("monthly")), ("prepaid", N_("prepaid deducted")))
SERVER_PARAMS = (("count", N_("Servers"), "int"), ("bought", N_("Bought (month index)"), "int"),
                 ("online", N_("Online from (month index)"), "int"),
                 ("sold", N_("Leaves at start of (month index)"), "int"),
                 ("price", N_("Price per server"), "money"),
                 ("install", N_("Install per server"), "money"),
                 ("basis", N_("Capex basis per server"), "money"),
                 ("span", N_("Months held"), "int"),
                 ("service", N_("Months in service"), "int"),
                 ("frac", N_("Resale fraction at sale"), "fraction"),
                 ("taken", N_("Depreciation taken by the sale (share of basis)"), "fraction"),
                 ("principal", N_("Loan principal per server"), "money"),
                 ("pmt", N_("Level loan payment per server"), "money"))
COMMIT_PARAMS = (("gpus", N_("GPUs"), "int"), ("start", N_("Term start (month index)"), "int"),
                 ("term", N_("Term [months]"), "int"),
                 ("rate", N_("Rate per GPU-hour, ex VAT"), "rate_cloud"),
                 ("share", N_("Share paid upfront"), "fraction"),
                 ("hours", N_("Calendar hours of the term"), "hours"),
                 ("upfront", N_("Upfront per GPU"), "money"),
                 ("inside", N_("Months of the upfront counted"), "int"))
MACRS_CUMULATIVE = ",".join(repr(float(x)) for x in np.concatenate([[0.0],
                                                                       np.cumsum(MACRS_5)]))
MACRS_LIST = ",".join(repr(x) for x in MACRS_5)


@dataclass
class Cohort:
    """One row of a cohort table: parameter formulas (None: the value is written) and the
    engine's values of its parameters and monthly columns."""

    kind: str                       # "server" | "commitment"
    label: str                      # "S1", "K3"
    source: str                     # what it is, for the reader
    formulas: dict[str, Optional[str]]
    values: dict[str, float]
    monthly: dict[str, np.ndarray] = field(default_factory=dict)
    market: str = "cloud"           # whose exchange rate converts a commitment's payments
    type_id: Optional[str] = None   # a server cohort's type in a fleet (issue 26)
    names: OwnedNames = OWNED       # the inputs its type is priced with


def month_index(text: str, start: str) -> str:
    """Months from the plan's first month (date cell ``start``) to a 'YYYY-MM' text."""
    return (f"(VALUE(LEFT({text},4))-YEAR({start}))*12+VALUE(MID({text},6,2))"
            f"-MONTH({start})")


def share_formula(payment: str) -> str:
    return f'IF({payment}="all",1,IF({payment}="partial",0.5,0))'


def derived_server_formulas(p: Callable[[str], str], names: OwnedNames = OWNED
                            ) -> dict[str, str]:
    """Parameters every server cohort computes from its inputs (``p(key)`` is a cell);
    ``names``: the inputs of the cohort's type (service.xlsx.type_names)."""
    span = p("span")
    lst = names.resale
    life = names.life
    lo = f"INT({span}/12)"
    v_lo = f"IF({lo}=0,1,INDEX({lst},{lo}))"
    n = f"MIN({p('service')},72)"
    return {
        "basis": f"={p('price')}+{p('install')}",
        "span": f"={p('sold')}-{p('bought')}",
        "service": f"=MAX({p('sold')}-{p('online')},0)",
        "frac": (f"=IF({span}>=12*COUNT({lst}),INDEX({lst},COUNT({lst})),{v_lo}+({span}-12*"
                 f"{lo})*(INDEX({lst},{lo}+1)-{v_lo})/12)"),
        "taken": (f'=IF(finance_tax_depreciation="macrs_5",CHOOSE(INT({n}/12)+1,'
                  f"{MACRS_CUMULATIVE})+IF({n}<72,CHOOSE(INT({n}/12)+1,{MACRS_LIST})*MOD({n},12)"
                  f"/12,0),MIN({p('service')},{life})/{life})"),
        "principal": f"=IF(calc_loan=1,{p('basis')}*(1-owned_financing_down_payment_fraction),0)",
        "pmt": (f"=IF(AND(calc_loan=1,{p('bought')}>=0),PMT(owned_financing_apr/12,owned_"
                f"financing_term_months,-{p('principal')}),0)"),
    }


def derived_commit_formulas(p: Callable[[str], str], first_start: str) -> dict[str, str]:
    start, term = p("start"), p("term")
    d0 = f"DATE(YEAR({first_start}),MONTH({first_start})+{start}"
    return {
        "hours": f"=({d0}+{term},1)-{d0},1))*24",
        "upfront": f"={p('share')}*{p('rate')}*{p('hours')}",
        "inside": (f'=IF(finance_horizon_end="liquidate",{term},MIN({term},'
                   f"finance_horizon_months-{start}))"),
    }


def resale_drop(p: Callable[[str], str], names: OwnedNames, first_start: str) -> str:
    """'*factor' of the resale value a successor's arrival leaves (models/cohort_costs.server_schedule:
    a sale at the end of a month in or after the successor's first month available loses the
    type's drop), '' for a type without a successor."""
    if names.drop is None:
        return ""
    arrival = month_index(names.successor_from, first_start)
    return (f"*IF(ISBLANK({names.successor_from}),1,IF({p('sold')}-1>={arrival},"
            f"1-{names.drop},1))")


def server_month_formulas(p: Callable[[str], str], a: str, hours: str,
                          names: OwnedNames = OWNED, first_start: str = ""
                          ) -> dict[str, str]:
    """Monthly columns of a server cohort in the month whose index (0-based) is ``a``;
    models/cohort_costs.server_schedule in cell formulas. ``names``: the inputs of the cohort's type
    (service.xlsx.type_names); ``first_start``: the plan's first month (a date cell), for the
    month a successor arrives."""
    count, bought, online, sold = p("count"), p("bought"), p("online"), p("sold")
    rate = "owned_financing_apr/12"
    term = "owned_financing_term_months"
    life = names.life
    age_s = f"({a}-{online})"
    by_age = (f'IF(finance_tax_depreciation="macrs_5",IF({age_s}<72,CHOOSE(INT({age_s}/12)+1,'
              f"{MACRS_LIST})/12,0),IF({age_s}<{life},1/{life},0))")
    last = f"{a}={sold}-1"
    loan = f"AND(calc_loan=1,{bought}>=0,{a}>={bought},{a}<{sold})"
    # payment, historical rate
    now, bought_at = fx_at(names.market, a), fx_at(names.market, bought)
    resale = f"{p('price')}*{p('frac')}{resale_drop(p, names, first_start)}*{now}"
    book = f"{p('basis')}*{bought_at}*(1-{p('taken')})"
    return {
        "online": f"=IF(AND({a}>={online},{a}<{sold}),{count},0)",
        "capex": (f"=IF({a}={bought},{count}*{p('basis')}*IF(calc_loan=1,owned_financing_down_"
                  f"payment_fraction,1)*{now},0)"),
        "loan": (f"=IF({loan},{count}*(IF({a}-{bought}<MIN({term},{p('span')}),{p('pmt')},0)"
                 f"+IF(AND({last},{term}>{p('span')}),FV({rate},{p('span')},{p('pmt')},"
                 f"-{p('principal')}),0))*{now},0)"),
        "interest": (f"=IF(AND({loan},{a}-{bought}<MIN({term},{p('span')})),{count}*{rate}*"
                     f"FV({rate},{a}-{bought},{p('pmt')},-{p('principal')})*{now},0)"),
        "maint": (f"=IF(AND({a}>={online},{a}<{sold}),{count}*{p('price')}*{names.maint}"
                  f"/12*{now},0)"),
        "dep": (f"=IF(AND({a}>={online},{a}<{sold}),{count}*{p('basis')}*{by_age}*{bought_at},"
                "0)"),
        "resale": f"=IF({last},{count}*{resale},0)",
        "gain": f"=IF({last},{count}*MAX({resale}-{book},0),0)",
        "loss": f"=IF({last},{count}*MAX({book}-{resale},0),0)",
    }


def commit_month_formulas(p: Callable[[str], str], a: str, hours: str, market: str = "cloud"
                          ) -> dict[str, str]:
    """Monthly columns of a commitment cohort (models/cohort_costs.commitment_schedule); ``market``:
    whose exchange rate converts it (a signed contract's own currency)."""
    gpus, start, term = p("gpus"), p("start"), p("term")
    active = f"{a}>={start},{a}<{start}+{term}"
    counted = f'AND({active},OR(finance_horizon_end="liquidate",{a}<finance_horizon_months))'
    now, signing = fx_at(market, a), fx_at(market, start)
    return {
        "gpus": f"=IF(AND({active},{a}<finance_horizon_months),{gpus},0)",
        "upfront": f"=IF({a}={start},{gpus}*{p('upfront')}*{p('inside')}/{term}*{now},0)",
        "monthly": f"=IF({counted},{gpus}*(1-{p('share')})*{p('rate')}*{hours}*{now},0)",
        "prepaid": (f"=IF(AND({counted},{start}>=0),{gpus}*{p('upfront')}/{term}*{signing},"
                    "0)"),
    }
