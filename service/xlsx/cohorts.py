"""Cohorts on a strategy sheet: capacity that varies by month, as formulas over input cells.

A strategy is a set of cohorts (models/capacity.py). The static chain of a strategy (N servers
and C committed GPUs renewed for the whole horizon) is written by strategy_sheet.py as before;
every other cohort (servers owned and contracts signed before the plan, purchases and
commitments of a schedule) is one row of a cohort table below the monthly table, whose cells
read the Assumptions sheet (``position.*``, ``proposed.schedule[i].*``) or the Schedule sheet,
and one block of monthly columns at the right of the table. Cost lines add those columns up
with SUMIF over a key row, so the cohort count is free. Each formula caches the engine's own
number (models/costs.server_schedule, commitment_schedule).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np

from models.capacity import CommitmentCohort, ServerCohort
from models.costs import commitment_schedule, server_schedule
from models.finance import MACRS_5, depreciation_by_age, level_payment, month_hours
from models.prices import UPFRONT_SHARE, PriceBook
from service.xlsx.chain_formulas import fx_at
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
                 ("rate", N_("Rate per GPU-hour, ex VAT"), "rate"),
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


def month_index(text: str, start: str) -> str:
    """Months from the plan's first month (date cell ``start``) to a 'YYYY-MM' text."""
    return (f"(VALUE(LEFT({text},4))-YEAR({start}))*12+VALUE(MID({text},6,2))"
            f"-MONTH({start})")


def share_formula(payment: str) -> str:
    return f'IF({payment}="all",1,IF({payment}="partial",0.5,0))'


def server_cohort(book: PriceBook, label: str, source: str, c: ServerCohort,
                  formulas: dict[str, Optional[str]], rows: int) -> Cohort:
    """A server cohort: ``formulas`` gives count, bought, price, install (None: a value);
    the derived parameters are always formulas."""
    o = book.scenario.owned
    f = o.financing
    price = float(book.server_price(c.bought)[0]) if c.price is None else float(c.price)
    install = o.install_cost_per_server if c.install is None else float(c.install)
    basis = price + install
    loan = f.kind == "loan" and c.bought >= 0
    principal = basis * (1 - f.down_payment_fraction) if f.kind == "loan" else 0.0
    service = max(c.sold - c.online, 0)
    values = {"count": c.count, "bought": c.bought, "online": c.online, "sold": c.sold,
              "price": price, "install": install, "basis": basis, "span": c.sold - c.bought,
              "service": service, "frac": float(book.resale_fraction(c.sold - c.bought)[0]),
              "taken": float(depreciation_by_age(book.scenario.finance.tax_depreciation,
                                                 o.useful_life_months, service).sum()),
              "principal": principal,
              "pmt": level_payment(principal, f.apr, f.term_months) if loan else 0.0}
    sch = server_schedule(book, c)
    per = {"online": sch["online"][:, None], "capex": sch["capex"],
           "loan": sch["loan_payment"], "interest": sch["interest"],
           "maint": sch["maintenance"], "dep": sch["depreciation"], "resale": sch["resale"],
           "gain": np.maximum(sch["gain"], 0.0), "loss": np.maximum(-sch["gain"], 0.0)}
    monthly = {k: c.count * np.asarray(v, float)[:rows, 0] for k, v in per.items()}
    return Cohort("server", label, source, formulas, values, monthly)


def commitment_cohort(book: PriceBook, label: str, source: str, c: CommitmentCohort,
                      formulas: dict[str, Optional[str]], rows: int) -> Cohort:
    """A commitment cohort: ``formulas`` gives gpus, start, term, rate, share."""
    s = book.scenario
    offer = book.offers.get(c.offer)
    rate = float(c.rate) if c.rate is not None else float(book.offer_rate(offer, c.start)[0])
    share = UPFRONT_SHARE[c.payment or offer.payment]
    hours = float(month_hours(book.labels[0], c.start, c.term).sum())
    liquidate = s.finance.horizon_end == "liquidate"
    inside = c.term if liquidate else min(c.term, book.horizon - c.start)
    values = {"gpus": c.gpus, "start": c.start, "term": c.term, "rate": rate, "share": share,
              "hours": hours, "upfront": share * rate * hours, "inside": inside}
    sch = commitment_schedule(book, c)
    active = np.zeros(rows)
    active[max(c.start, 0):max(min(c.start + c.term, book.horizon, rows), 0)] = c.gpus
    monthly = {"gpus": active, "upfront": c.gpus * sch["upfront"][:rows, 0],
               "monthly": c.gpus * sch["monthly"][:rows, 0],
               # the engine deducts a prepayment over the term only when it was paid in the
               # plan (models/costs.cohort_items): a contract's upfront paid before is sunk
               "prepaid": c.gpus * sch["prepaid_deduction"][:rows, 0] * bool(
                   sch["upfront"].any())}
    return Cohort("commitment", label, source, formulas, values, monthly)


def derived_server_formulas(p: Callable[[str], str]) -> dict[str, str]:
    """Parameters every server cohort computes from its inputs (``p(key)`` is a cell)."""
    span = p("span")
    lst = "owned_resale_fraction_by_year"
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
                  f"/12,0),MIN({p('service')},owned_useful_life_months)/owned_useful_life_"
                  "months)"),
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


def server_month_formulas(p: Callable[[str], str], a: str, hours: str
                          ) -> dict[str, str]:
    """Monthly columns of a server cohort in the month whose index (0-based) is ``a``;
    models/costs.server_schedule in cell formulas."""
    count, bought, online, sold = p("count"), p("bought"), p("online"), p("sold")
    rate = "owned_financing_apr/12"
    term = "owned_financing_term_months"
    age_s = f"({a}-{online})"
    by_age = (f'IF(finance_tax_depreciation="macrs_5",IF({age_s}<72,CHOOSE(INT({age_s}/12)+1,'
              f"{MACRS_LIST})/12,0),IF({age_s}<owned_useful_life_months,1/owned_useful_life_"
              "months,0))")
    last = f"{a}={sold}-1"
    loan = f"AND(calc_loan=1,{bought}>=0,{a}>={bought},{a}<{sold})"
    now, bought_at = fx_at("owned", a), fx_at("owned", bought)   # payment, historical rate
    resale = f"{p('price')}*{p('frac')}*{now}"
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
        "maint": (f"=IF(AND({a}>={online},{a}<{sold}),{count}*{p('price')}*owned_maintenance_"
                  f"fraction_annual/12*{now},0)"),
        "dep": (f"=IF(AND({a}>={online},{a}<{sold}),{count}*{p('basis')}*{by_age}*{bought_at},"
                "0)"),
        "resale": f"=IF({last},{count}*{resale},0)",
        "gain": f"=IF({last},{count}*MAX({resale}-{book},0),0)",
        "loss": f"=IF({last},{count}*MAX({book}-{resale},0),0)",
    }


def commit_month_formulas(p: Callable[[str], str], a: str, hours: str) -> dict[str, str]:
    """Monthly columns of a commitment cohort (models/costs.commitment_schedule)."""
    gpus, start, term = p("gpus"), p("start"), p("term")
    active = f"{a}>={start},{a}<{start}+{term}"
    counted = f'AND({active},OR(finance_horizon_end="liquidate",{a}<finance_horizon_months))'
    now, signing = fx_at("cloud", a), fx_at("cloud", start)
    return {
        "gpus": f"=IF(AND({active},{a}<finance_horizon_months),{gpus},0)",
        "upfront": f"=IF({a}={start},{gpus}*{p('upfront')}*{p('inside')}/{term}*{now},0)",
        "monthly": f"=IF({counted},{gpus}*(1-{p('share')})*{p('rate')}*{hours}*{now},0)",
        "prepaid": (f"=IF(AND({counted},{start}>=0),{gpus}*{p('upfront')}/{term}*{signing},"
                    "0)"),
    }
