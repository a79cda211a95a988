"""Where each cohort of a strategy sheet takes its inputs, by where the ledger says it comes
from (models/ledger.ORIGINS): the Assumptions sheet's position rows, a decision row (the
Schedule sheet of the staged plan, or the proposed schedule on the Assumptions sheet), or the
strategy's own capacity cells for the generations and renewals of a static chain. Server
cohorts take theirs by their type (service/xlsx/server_sources.py); commitments here.

Formulas are templates over the cohort's own parameter cells (``{bought}`` is the cell of the
cohort's purchase month index), so a cell of the Schedule or Assumptions sheet moves it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from models.ledger import CohortRow, StrategyLedger
from models.scenario import Scenario
from service.i18n import gettext as tr
from service.xlsx.names import defined_name
from service.xlsx.cohorts import Cohort, month_index, share_formula
from service.xlsx.server_sources import (SERVERS_NOTE, cohort_key, server_formulas,
                                         unsplit_counts)
from service.xlsx.type_names import OWNED


@dataclass
class DecisionRef:
    """One decision row and the cells that hold it (expressions usable in a formula)."""

    month: str
    index: str                      # month index expression
    buy_ref: Optional[str]
    commit: dict[str, Optional[str]] = field(default_factory=dict)   # offer id -> GPUs cell
    buy_by_type: dict[str, str] = field(default_factory=dict)   # a fleet: type id -> cell


@dataclass
class SheetInputs:
    """The cells a strategy sheet's cohorts read besides the Assumptions names: the plan's
    first month (a date cell), the strategy's capacity cells of its static chain (each
    offer's ``commit_<i>``; ``servers`` by type id), and its decision rows by month."""

    first_start: str
    params: dict[str, str]
    decisions: dict[str, DecisionRef] = field(default_factory=dict)
    servers: dict[str, str] = field(default_factory=dict)


def new_commit_formulas(i: int, index: str, gpus: Optional[str]) -> dict[str, Optional[str]]:
    """GPUs committed under offer ``i`` (1-based) from month index ``index``, at the offer's
    rate of that month."""
    return {"gpus": f"={gpus}" if gpus else None, "start": f"={index}",
            "term": f"=commitments_{i}_term_months",
            "rate": f"=calc_commit_{i}_base*(1+on_demand_price_trend_annual)^({{start}}/12)",
            "share": f"=calc_commit_{i}_upfront_share"}


def commit_formulas(s: Scenario, row: CohortRow, inputs: SheetInputs
                    ) -> tuple[dict[str, Optional[str]], str]:
    """(parameter formulas, what it is) of a commitment cohort row."""
    i = row.offer_index
    if row.origin == "position":
        signed = s.position.commitments[row.ref - 1]
        p = f"position_commitments_{row.ref}_"
        return ({"gpus": f"={p}gpus", "start": "=" + month_index(f"{p}start",
                                                                 inputs.first_start),
                 "term": f"={p}term_months", "rate": f"={p}price_per_gpu_hour/calc_vat",
                 "share": "=" + share_formula(f"{p}payment")},
                tr("signed %(id)s from %(month)s", id=signed.id, month=signed.start))
    if row.origin == "decision":
        d = inputs.decisions[row.ref]
        return (new_commit_formulas(i, d.index, d.commit.get(row.offer)),
                tr("sign %(offer)s in %(month)s", offer=row.offer, month=row.ref))
    return (new_commit_formulas(i, f"{row.ref - 1}*commitments_{i}_term_months",
                                inputs.params[f"commit_{i}"]),
            tr("static plan, %(offer)s term %(number)s", offer=row.offer, number=row.ref))


def sheet_cohorts(s: Scenario, sl: StrategyLedger, labels: tuple[str, ...],
                  inputs: SheetInputs) -> tuple[list[Cohort], list[str]]:
    """The cohorts of a strategy sheet with their formulas, and the sheet's notes.

    ``labels`` are the plan's month labels (to name an engine cohort's purchase month).
    """
    out = []
    servers = commits = 0
    split = unsplit_counts(sl.cohorts)
    for row in sl.cohorts:
        names = OWNED
        if row.kind == "server":
            servers += 1
            formulas, what, names = server_formulas(
                s, row, inputs.first_start, inputs.decisions, inputs.servers, labels,
                len(sl.owned_h), split[cohort_key(row)] == 1)
            label = f"S{servers}"
        else:
            commits += 1
            formulas, what = commit_formulas(s, row, inputs)
            label = f"K{commits}"
        market = (s.commitment_market(s.position.commitments[row.ref - 1])
                  if row.kind == "commitment" and row.origin == "position" else "cloud")
        out.append(Cohort(row.kind, label, what, formulas, row.params, row.monthly, market,
                          row.type, names))
    return out, [tr(SERVERS_NOTE)] if servers else []


def proposed_decisions(s: Scenario, first_start: str) -> dict[str, DecisionRef]:
    """The proposed schedule's rows of the Assumptions sheet (defined names by path), by
    month."""
    out = {}
    for i, d in enumerate(s.proposed.schedule, start=1):
        p = f"proposed.schedule[{i}]."
        index = month_index(defined_name(p + "month"), first_start)
        commit = {k: defined_name(f"{p}commit[{k}]") for k in d.commit}
        # purchases by type: the buy[type] rows, or the shorthand for the first type
        buy = {k: defined_name(f"{p}buy[{k}]") for k in d.buy}
        if d.buy_servers and s.server_types[0].id not in buy:
            buy[s.server_types[0].id] = defined_name(p + "buy_servers")
        out[d.month] = DecisionRef(d.month, f"({index})", defined_name(p + "buy_servers"),
                                   commit, buy)
    return out
