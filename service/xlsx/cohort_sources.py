"""Where each cohort of a strategy sheet takes its inputs: the Assumptions sheet's position and
proposed schedule, or the Schedule sheet of the staged plan.

Every strategy holds the position (servers owned with their purchase month and price, signed
contracts); a schedule adds one server cohort per decision row (its purchase) and one
commitment cohort per decision row and offer. Formulas are templates over the cohort's own
parameter cells (``{bought}`` is the cell of the cohort's purchase month index), so a cell of
the Schedule sheet or of the Assumptions sheet moves the cohort.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from models.capacity import CommitmentCohort, ServerCohort, month_index as engine_month
from models.prices import PriceBook
from models.scenario import Scenario
from service.i18n import N_, gettext as tr
from service.xlsx.names import defined_name
from service.xlsx.cohorts import (Cohort, commitment_cohort, month_index, server_cohort,
                                  share_formula)

SALES_NOTE = N_("This schedule sells servers: a sale splits the cohorts it takes from (oldest "
                "first), which the sheet does not rewrite as formulas. Server cohorts are the "
                "engine's (values); commitments are formulas.")   # written through gettext


@dataclass
class DecisionRef:
    """One decision row and the cells that hold it (expressions usable in a formula)."""

    month: str
    index: str                      # month index expression
    buy: int
    buy_ref: Optional[str]
    commit: dict[str, tuple[int, Optional[str]]] = field(default_factory=dict)


def new_server_formulas(index: str, buy_ref: str) -> dict[str, str]:
    return {"count": f"={buy_ref}", "bought": f"={index}",
            "online": "={bought}+owned_lead_time_months",
            "sold": "=MIN({bought}+owned_useful_life_months,finance_horizon_months)",
            "price": "=owned_server_price*(1+owned_hardware_price_trend_annual)^({bought}/12)",
            "install": "=owned_install_cost_per_server"}


def position_cohorts(book: PriceBook, first_start: str, rows: int, with_servers: bool
                     ) -> tuple[list[Cohort], list[Cohort]]:
    """Servers owned and contracts signed before the plan, each from its Assumptions rows
    (all of them: a cohort that ended before the plan costs nothing in any month)."""
    s: Scenario = book.scenario
    o, H, first = s.owned, book.horizon, book.labels[0]
    servers, commits = [], []
    for j, held in enumerate(s.position.servers if with_servers else (), start=1):
        p = f"position_servers_{j}_"
        bought = engine_month(held.purchased, first)
        c = ServerCohort(held.count, bought, bought + o.lead_time_months,
                         min(bought + o.useful_life_months, H), held.price, held.install_cost)
        formulas = {"count": f"={p}count", "bought": "=" + month_index(f"{p}purchased",
                                                                      first_start),
                    "online": "={bought}+owned_lead_time_months",
                    "sold": "=MIN({bought}+owned_useful_life_months,finance_horizon_months)",
                    "price": f"={p}price", "install": f"={p}install_cost"}
        servers.append(server_cohort(book, f"S{len(servers) + 1}",
                                     tr("held since %(month)s", month=held.purchased), c,
                                     formulas, rows))
    for j, signed in enumerate(s.position.commitments, start=1):
        p = f"position_commitments_{j}_"
        start = engine_month(signed.start, first)
        c = CommitmentCohort(signed.id, signed.gpus, start, signed.term_months,
                             signed.price_per_gpu_hour / book.vat, signed.payment)
        formulas = {"gpus": f"={p}gpus", "start": "=" + month_index(f"{p}start", first_start),
                    "term": f"={p}term_months", "rate": f"={p}price_per_gpu_hour/calc_vat",
                    "share": "=" + share_formula(f"{p}payment")}
        commits.append(commitment_cohort(book, f"K{len(commits) + 1}",
                                         tr("signed %(id)s from %(month)s", id=signed.id,
                                            month=signed.start), c,
                                         formulas, rows))
    return servers, commits


def schedule_cohorts(book: PriceBook, decisions: list[DecisionRef], rows: int,
                     servers: list[Cohort], commits: list[Cohort], with_servers: bool) -> None:
    """Append a server cohort per decision row and a commitment cohort per row and offer."""
    s = book.scenario
    o, H = s.owned, book.horizon
    for d in decisions:
        m = engine_month(d.month, book.labels[0])
        if with_servers and d.buy_ref is not None:
            c = ServerCohort(d.buy, m, m + o.lead_time_months, min(m + o.useful_life_months, H))
            servers.append(server_cohort(book, f"S{len(servers) + 1}",
                                         tr("buy in %(month)s", month=d.month), c,
                                         new_server_formulas(d.index, d.buy_ref), rows))
        for k, offer in enumerate(s.commitments, start=1):
            if offer.id not in d.commit:
                continue
            gpus, ref = d.commit[offer.id]
            c = CommitmentCohort(offer.id, gpus, m, offer.term_months)
            formulas = {"gpus": f"={ref}" if ref else None, "start": f"={d.index}",
                        "term": f"=commitments_{k}_term_months",
                        "rate": (f"=calc_commit_{k}_base*(1+on_demand_price_trend_annual)^("
                                 "{start}/12)"),
                        "share": f"=calc_commit_{k}_upfront_share"}
            commits.append(commitment_cohort(book, f"K{len(commits) + 1}",
                                             tr("sign %(offer)s in %(month)s", offer=offer.id,
                                                month=d.month), c, formulas,
                                             rows))


def engine_server_cohorts(book: PriceBook, plan, rows: int) -> list[Cohort]:
    """The engine's server cohorts as values (a schedule with sales)."""
    out = []
    for c in plan.servers:
        formulas = dict.fromkeys(("count", "bought", "online", "sold", "price", "install"))
        bought = str(np.datetime64(book.labels[0], "M") + c.bought)
        out.append(server_cohort(book, f"S{len(out) + 1}", f"bought {bought} (engine)", c,
                                 formulas, rows))
    return out


def proposed_decisions(s: Scenario, first_start: str) -> list[DecisionRef]:
    """The proposed schedule's rows of the Assumptions sheet (defined names by path)."""
    out = []
    for i, d in enumerate(s.proposed.schedule, start=1):
        p = f"proposed.schedule[{i}]."
        index = month_index(defined_name(p + "month"), first_start)
        commit = {k: (v, defined_name(f"{p}commit[{k}]")) for k, v in d.commit.items()}
        out.append(DecisionRef(d.month, f"({index})", d.buy_servers,
                               defined_name(p + "buy_servers"), commit))
    return out


def strategy_cohorts(book: PriceBook, r, decisions: Optional[list[DecisionRef]],
                     first_start: str, rows: int) -> tuple[list[Cohort], list[Cohort], list[str]]:
    """Server and commitment cohorts of a strategy sheet (beyond its static chain), and notes."""
    sales = any(d.sell_servers for d in (r.schedule or ()))
    servers, commits = position_cohorts(book, first_start, rows, not sales)
    if decisions:
        schedule_cohorts(book, decisions, rows, servers, commits, not sales)
    notes = []
    if sales:
        servers = engine_server_cohorts(book, r.plan, rows)
        notes.append(tr(SALES_NOTE))
    return servers, commits, notes
