"""The cohort block of a strategy sheet: the cohort tables under the monthly table and the
cohorts' monthly columns at its right, with a key row that the cost lines' SUMIFs read.

Server cohort table: one row per purchase (count, purchase month, price, install, online and
sale months, and what follows from them: basis, months held, resale fraction, depreciation
taken, loan payment). Commitment cohort table: one row per contract (GPUs, start, term, rate,
upfront share, term hours). Inputs are formulas over the Assumptions or Schedule sheet, or the
strategy's capacity cells for a static chain.
"""
from __future__ import annotations

from typing import Callable

from service.i18n import N_, gettext as tr   # tr: '_' is a throwaway name here
from service.xlsx.cells import col, write_text
from service.xlsx.cohorts import (COMMIT_ITEMS, COMMIT_PARAMS, SERVER_ITEMS, SERVER_PARAMS,
                                  Cohort, commit_month_formulas, derived_commit_formulas,
                                  derived_server_formulas, server_month_formulas)

COHORT_TOTALS = (("online", N_("servers online"), "number"), ("capex", N_("capex"), "money"),
                 ("loan", N_("loan cash"), "money"), ("interest", N_("loan interest"), "money"),
                 ("maint", N_("maintenance"), "money"), ("dep", N_("tax depreciation"), "money"),
                 ("resale", N_("resale"), "money"), ("gain", N_("taxable gain on sale"), "money"),
                 ("loss", N_("loss on sale"), "money"), ("gpus", N_("GPUs committed"), "number"),
                 ("upfront", N_("commitment upfront"), "money"),
                 ("monthly", N_("commitment monthly"), "money"),
                 ("prepaid", N_("prepaid deducted"), "money"))
ITEM_FORMAT = {"online": "number", "gpus": "number"}


def item_key(cohort: Cohort, key: str) -> str:
    """The key-row text of a cohort's monthly column: the item, or for the servers online of a
    fleet's cohort ``online:<type id>``, which the per-type capacity columns add up (and the
    fleet's servers online adds over its types)."""
    if key == "online" and cohort.type_id is not None:
        return f"online:{cohort.type_id}"
    return key


class CohortBlock:
    """Where every cohort's parameters and monthly columns sit on the sheet."""

    def __init__(self, cohorts: list[Cohort], first_col: int, table_row: int,
                 first_start: str, header_row: int):
        """``header_row``: 0-based row of the monthly table's headers (the key row two
        above it)."""
        self.cohorts, self.first_start = cohorts, first_start
        self.header_row, self.key_row = header_row, header_row - 2
        self.servers = [c for c in cohorts if c.kind == "server"]
        self.commits = [c for c in cohorts if c.kind == "commitment"]
        # tables: title, header, rows; the commitment table two rows under the server table
        self.server_head = table_row + 1
        self.commit_head = self.server_head + len(self.servers) + 3
        self.row_of: dict[int, int] = {}      # id(cohort) -> 0-based table row
        for i, c in enumerate(self.servers):
            self.row_of[id(c)] = self.server_head + 1 + i
        for i, c in enumerate(self.commits):
            self.row_of[id(c)] = self.commit_head + 1 + i
        self.col_of: dict[int, int] = {}      # id(cohort) -> first monthly column
        at = first_col
        for c in cohorts:
            self.col_of[id(c)] = at
            at += len(SERVER_ITEMS if c.kind == "server" else COMMIT_ITEMS)
        self.first_col, self.last_col = first_col, at - 1

    def param(self, cohort: Cohort) -> Callable[[str], str]:
        keys = [k for k, _, _ in (SERVER_PARAMS if cohort.kind == "server" else COMMIT_PARAMS)]
        row = self.row_of[id(cohort)] + 1
        # every address once: the monthly formulas ask for them ~30 times a month (issue 38)
        addresses = {key: f"${col(2 + j)}${row}" for j, key in enumerate(keys)}

        def p(key: str) -> str:
            return addresses[key]
        return p

    def sum(self, key: str, x: int) -> str:
        """The cohorts' sum of monthly column ``key`` in excel row ``x``."""
        a, b = col(self.first_col), col(self.last_col)
        k = self.key_row + 1
        return f'SUMIF(${a}${k}:${b}${k},"{key}",{a}{x}:{b}{x})'

    def any_commitment(self) -> str:
        """'SUMPRODUCT(...)>0,' when a commitment cohort with GPUs runs into the plan (an
        OR() term of "uses cloud capacity"), else ''."""
        if not self.commits:
            return ""
        top, bottom = self.commit_head + 2, self.commit_head + 1 + len(self.commits)
        g, s, t = (col(2 + i) for i in range(3))
        return (f"SUMPRODUCT((${g}${top}:${g}${bottom}>0)*((${s}${top}:${s}${bottom}+"
                f"${t}${top}:${t}${bottom})>0))>0,")

    def write(self, ws, fmt: dict, c: Callable[[str, int], str], months: int) -> None:
        first = self.header_row + 1
        for title, head, cohorts, params in (
                (tr("Server cohorts: servers owned before the plan, purchases of the schedule "
                    "and generations of a static plan (month indices count from 0 = the plan's "
                    "first month)"),
                 self.server_head,
                 self.servers, SERVER_PARAMS),
                (tr("Commitment cohorts: contracts signed before the plan, commitments of the "
                    "schedule and terms of a static plan"), self.commit_head, self.commits,
                 COMMIT_PARAMS)):
            if not cohorts:
                continue
            write_text(ws, head - 1, 0, title, fmt["bold"])
            write_text(ws, head, 0, tr("Cohort"), fmt["header"])
            write_text(ws, head, 1, tr("What"), fmt["header"])
            for j, (_, label, _) in enumerate(params):
                write_text(ws, head, 2 + j, tr(label), fmt["header"])
            for cohort in cohorts:
                self._write_params(ws, fmt, cohort, params)
        for cohort in self.cohorts:
            p = self.param(cohort)
            server = cohort.kind == "server"
            items = SERVER_ITEMS if server else COMMIT_ITEMS
            at = self.col_of[id(cohort)]
            write_text(ws, self.header_row - 1, at, f"{cohort.label}: {cohort.source}",
                       fmt["group"])
            for j, (key, header) in enumerate(items):
                write_text(ws, self.key_row, at + j, item_key(cohort, key), fmt["note"])
                write_text(ws, self.header_row, at + j, f"{cohort.label} {tr(header)}",
                           fmt["header"])
            styles = [fmt[ITEM_FORMAT.get(key, "money")] for key, _ in items]
            keys = [key for key, _ in items]
            rows = []
            for m in range(months):
                x = first + m + 1
                a = f"({c('m', x)}-1)"
                formulas = (server_month_formulas(p, a, c("hours", x), cohort.names,
                                                  self.first_start) if server else
                            commit_month_formulas(p, a, c("hours", x), cohort.market))
                rows.append([formulas[key] for key in keys])
            ws.write_formula_rows(first, at, rows, styles,
                                  [[float(cohort.monthly[key][m]) for key in keys]
                                   for m in range(months)])
        ws.set_column(self.first_col, self.last_col, 12)

    def _write_params(self, ws, fmt: dict, cohort: Cohort, params) -> None:
        row = self.row_of[id(cohort)]
        p = self.param(cohort)
        addresses = {key: p(key) for key, _, _ in params}
        addresses["first_start"] = self.first_start
        derived = (derived_server_formulas(p, cohort.names) if cohort.kind == "server"
                   else derived_commit_formulas(p, self.first_start))
        write_text(ws, row, 0, cohort.label, fmt["bold"])
        write_text(ws, row, 1, cohort.source)
        for j, (key, _, style) in enumerate(params):
            value = float(cohort.values[key])
            formula = derived.get(key) or cohort.formulas.get(key)
            if formula is None:
                ws.write_number(row, 2 + j, value, fmt[style])
            else:
                if key not in derived:
                    formula = formula.format(**addresses)
                ws.write_formula(row, 2 + j, formula, fmt.get(f"derived_{style}",
                                                              fmt["derived"]), value)
