"""The robust plan's Scenarios sheet and one sheet per demand scenario (issue 27).

The robust plan has one schedule per demand scenario, identical up to its decide-now month. The
Scenarios sheet holds each scenario's decisions as input cells (the Schedule sheet's layout, one
block per scenario) and a table of the scenarios: probability (an input), growth, and the PV,
total cost and cost per useful GPU-hour of each scenario's own sheet, with the expected PV and
total as SUMPRODUCTs of the probabilities. Each scenario's sheet is a strategy sheet of the
scenario's schedule on its own demand: its cohorts read the decision cells, every money figure
is a formula over the Assumptions sheet, the dispatch is the engine's for that demand. CVaR,
EVPI and VSS need the optimizer (the best plan of each scenario alone, the base plan
re-optimised): they are the engine's values, said to be.
"""
from __future__ import annotations

import dataclasses
import re
from typing import Optional

from models.ledger import Ledger, PathLedger
from models.scenario import Scenario
from service.i18n import N_, current_locale, DEFAULT, gettext as tr
from service.i18n.robust_words import scenario_name
from service.i18n.labels import server_type_name
from service.xlsx.cells import add_sheet, col, sheet_ref, write_text
from service.xlsx.print_setup import (ROW_HEIGHT, PrintLabel, area_points, fit, print_setup,
                                      text_lines, text_width)
from service.xlsx.schedule_sheet import decision_columns, write_decision_rows, write_first_month
from service.xlsx.strategy_sheet import SheetInfo, write_strategy_sheet

SHEET = N_("Scenarios")   # sheet name: English here, written through gettext
START_CELL = "$B$4"       # the plan's first month (write_first_month)
TABLE_ROW = 5             # 0-based: the scenarios table's header
# the table's columns: scenario, its sheet, probability, growth, PV, total cost, per GPU-hour
HEADS = (N_("Demand scenario"), N_("Its sheet"), N_("Probability"),
         N_("Demand growth a year"), N_("PV cost"), N_("Total cost (nominal)"),
         N_("Cost per useful GPU-hour"))
# the strategy sheet's figure cells each column reads (strategy_sheet.write_strategy_sheet)
FIGURES = {4: "pv_cost", 5: "total_cost", 6: "cost_per_hour"}
INVALID = re.compile(r"[\[\]:*?/\\]")


def path_sheet_names(paths: tuple[PathLedger, ...], robust: dict) -> list[str]:
    """Each scenario's sheet name: ``robust <name>`` in English (the strategy's key, as the
    strategy sheets), "robust plan" and the scenario's name in the reader's
    language otherwise; at most 31 characters, none of []:*?/\\, no two alike (Excel compares
    sheet names without case)."""
    names: list[str] = []
    for k, q in enumerate(paths, start=1):
        head = "robust" if current_locale() == DEFAULT else tr(N_("robust plan"))
        name = INVALID.sub(" ", f"{head} {scenario_name(robust, q.name)}").strip("' ")[:31]
        if name.lower() in {n.lower() for n in names} or name.lower() == tr(SHEET).lower():
            name = f"{name[:27]} {k}"
        names.append(name)
    return names


def write_scenarios(workbook, fmt: dict, s: Scenario, doc: dict, ledger: Ledger,
                    label: Optional[PrintLabel] = None) -> dict[str, SheetInfo]:
    """The Scenarios sheet and each scenario's sheet, after it; nothing without a robust plan
    in the ledger.

    Parameters
    ----------
    workbook : xlsxwriter.Workbook
        The plan's workbook.
    fmt : dict
        Its formats (service/xlsx/cells.make_formats).
    s : Scenario
        The plan's scenario.
    doc : dict
        The plan document (its ``strategies.robust``: names, CVaR, EVPI, VSS).
    ledger : Ledger
        The plan's ledger; ``ledger.robust`` holds each scenario's schedule costed.
    label : PrintLabel, optional
        The printed footer's revision.

    Returns
    -------
    dict of str to SheetInfo
        Each scenario's sheet by the scenario's name.
    """
    robust = doc.get("strategies", {}).get("robust")
    if not ledger.robust or not robust:
        return {}
    paths = ledger.robust
    sheet = tr(SHEET)
    ws = add_sheet(workbook, sheet)
    cur = s.finance.currency
    write_text(ws, 0, 0, tr("Robust plan: its demand scenarios [%(currency)s]", currency=cur),
               fmt["title"])
    names = path_sheet_names(paths, robust)
    note = tr("Yellow cells are inputs. Each demand scenario's schedule is a block below, the "
              "same in every scenario through %(until)s (decided now); each scenario's sheet "
              "(named in the table) prices its schedule on that scenario's demand with "
              "formulas over the Assumptions sheet and these cells. Change a purchase or a "
              "commitment and that scenario's PV and the expected PV follow; the dispatch stays "
              "the engine's at export. The expected PV is the probabilities times the "
              "scenarios' PVs (the probabilities should add up to 1). CVaR, EVPI and VSS are "
              "the engine's values: they need the optimizer.",
              until=robust.get("decide_now_until", ""))
    ws.merge_range(1, 0, 2, 6, "", fmt["note"])
    write_text(ws, 1, 0, note, fmt["note"])
    lines = text_lines(note, 16 + 14 * 2 + 18 * 4)
    for r in (1, 2):
        ws.set_row(r, ROW_HEIGHT * lines / 2)
    write_first_month(ws, fmt, ledger.labels[0])
    for j, head in enumerate(HEADS):
        write_text(ws, TABLE_ROW, j, tr(head), fmt["header"])
    n = len(paths)
    first, last = TABLE_ROW + 2, TABLE_ROW + 1 + n    # 1-based rows of the scenarios
    expected_row = TABLE_ROW + 1 + n                   # 0-based
    # the printed table of the decisions that are not zero, under the engine's figures; the
    # decision blocks (every cell, inputs) under it, on screen only
    nonzero = nonzero_decisions(s, paths)
    short_row = expected_row + 6
    short_last = short_row + 1 + len(nonzero) if nonzero else expected_row + 4
    row = short_last + 3
    blocks = []
    decisions = []
    for q, name in zip(paths, names):
        write_text(ws, row, 0, tr("Decisions of scenario %(name)s",
                                  name=scenario_name(robust, q.name)), fmt["bold"])
        decisions.append(write_decision_rows(ws, sheet, fmt, s, q.strategy, row + 1,
                                             START_CELL))
        blocks.append(row + 1)
        ws.set_row(row + 1, 30)     # the headers wrap on two lines
        row += 3 + len(q.strategy.schedule_rows)
    infos = {}
    for q, name, refs in zip(paths, names, decisions):
        own = dataclasses.replace(ledger, useful=q.useful, gross=q.gross,
                                  useful_pv=q.useful_pv)
        infos[q.name] = write_strategy_sheet(
            workbook, fmt, s, own, q.strategy, refs, label, sheet_name=name,
            title=tr("%(strategy)s, demand scenario %(name)s", strategy=tr(N_("robust plan")),
                     name=scenario_name(robust, q.name)),
            printed=False)    # its PV, total and cost per GPU-hour print in the table
    for i, (q, name) in enumerate(zip(paths, names)):
        r = TABLE_ROW + 1 + i
        write_text(ws, r, 0, scenario_name(robust, q.name))
        write_text(ws, r, 1, name)
        ws.write_number(r, 2, q.probability, fmt["input_percent"])
        ws.write_number(r, 3, q.growth_annual, fmt["percent"])
        figures = q.strategy.figures
        for j, key in FIGURES.items():
            value = figures["cost_per_useful_gpu_hour" if key == "cost_per_hour" else key]
            ws.write_formula(r, j, "=" + sheet_ref(name, infos[q.name].cells[key]),
                             fmt["rate" if key == "cost_per_hour" else "money"],
                             "-" if value is None else value)
    probabilities = f"$C${first}:$C${last}"
    write_text(ws, expected_row, 0, tr("Expected (probability-weighted)"), fmt["bold"])
    ws.write_formula(expected_row, 2, f"=SUM({probabilities})", fmt["percent"],
                     sum(q.probability for q in paths))
    for j, key in ((4, "pv_cost"), (5, "total_cost")):
        letter = "EF"[j - 4]
        ws.write_formula(expected_row, j,
                         f"=SUMPRODUCT({probabilities},${letter}${first}:${letter}${last})",
                         fmt["money_bold"],
                         sum(q.probability * q.strategy.figures[key] for q in paths))
    engine = [(tr("CVaR of PV at %(alpha)s (engine)", alpha=f"{robust.get('cvar_alpha', 0):.0%}"),
               robust.get("cvar")),
              (tr("EVPI: what perfect foresight is worth (engine)"), robust.get("evpi")),
              (tr("VSS: what planning for the scenarios saves (engine)"), robust.get("vss"))]
    for k, (text, value) in enumerate(engine, start=2):
        write_text(ws, expected_row + k, 0, text)
        if value is None or value != value:     # not computed (NaN) or absent
            write_text(ws, expected_row + k, 4, "-", fmt["right"])
        else:
            ws.write_number(expected_row + k, 4, value, fmt["money"])
    decision_columns(ws, s)
    ws.set_column(0, 0, 34)
    widths = [34.0, _short_width(nonzero)] + [14.0] * 2 + [18.0] * 3
    ws.set_column(1, 1, widths[1])
    ws.set_row(TABLE_ROW, 30)
    heights = ([20.0, ROW_HEIGHT * lines / 2, ROW_HEIGHT * lines / 2, ROW_HEIGHT, ROW_HEIGHT,
                30.0] + [ROW_HEIGHT] * (short_last - TABLE_ROW))
    if nonzero:
        _write_nonzero(ws, fmt, s, robust, paths, nonzero, blocks, short_row)
        heights[short_row + 1] = 30.0
    last_col = max(6, 1 + len(paths))
    widths += [18.0] * (last_col + 1 - len(widths))
    ws.print_area(0, 0, short_last, last_col)
    width, height = area_points(widths[:last_col + 1], heights[:short_last + 1])
    print_setup(ws, label or PrintLabel(s.name), pages_tall=1, scale=fit(width, height))
    return infos


@dataclasses.dataclass(frozen=True)
class Decision:
    """A decision that is not zero in at least one scenario: its month, its words (the
    decision block's column header) and that column (0-based)."""
    month: str
    what: str
    column: int


def nonzero_decisions(s: Scenario, paths: tuple[PathLedger, ...]) -> list[Decision]:
    """The (month, column) of the decision blocks that hold a decision other than zero in
    any scenario, by month and in the blocks' column order: servers bought and sold (by
    type in a fleet, whose total columns are sums of the types') and GPUs committed per
    offer. The scenarios share their months through the decide-now month, so a decision
    taken in every scenario is one row."""
    fleet = [t.id for t in s.server_types]
    by_type = 4 + len(s.commitments)
    heads = {2: tr("Buy servers"), 3: tr("Sell servers (engine)")}
    for k, offer in enumerate(s.commitments):
        heads[4 + k] = tr("Commit %(offer)s [GPUs, %(months)s months]", offer=offer.id,
                          months=offer.term_months)
    for k, type_id in enumerate(fleet):
        heads[by_type + 2 * k] = tr("Buy %(type)s [servers]", type=server_type_name(type_id))
        heads[by_type + 2 * k + 1] = tr("Sell %(type)s [servers] (engine)",
                                          type=server_type_name(type_id))
    found: set[tuple[str, int]] = set()
    for q in paths:
        for d in q.strategy.schedule_rows:
            for c, value in decision_values(s, d).items():
                if value:
                    found.add((d.month, c))
    return [Decision(month, heads[c], c) for month, c in sorted(found)]


def decision_values(s: Scenario, d) -> dict[int, float]:
    """A decision row's numbers by the block's column (write_decision_rows' layout); a
    fleet by its types' columns only."""
    out: dict[int, float] = {}
    by_type = 4 + len(s.commitments)
    for k, t in enumerate(s.server_types):
        out[by_type + 2 * k] = d.buy_by_type.get(t.id, 0)
        out[by_type + 2 * k + 1] = d.sell_by_type.get(t.id, 0)
    for k, offer in enumerate(s.commitments):
        out[4 + k] = d.commit.get(offer.id, 0)
    return out


def _short_width(nonzero: list[Decision]) -> float:
    """Column B: the scenarios' sheet names (24 characters) or the longest decision's
    words, whole (text_width under-counts Carlito's letters: a third more room)."""
    return max([24.0] + [text_width(d.what) * 1.3 + 2 for d in nonzero])


def _write_nonzero(ws, fmt: dict, s: Scenario, robust: dict, paths: tuple[PathLedger, ...],
                   nonzero: list[Decision], blocks: list[int], row: int) -> None:
    """The printed table: month, decision, and each scenario's number, a formula reading
    its cell in the scenario's block (an edited cell prints; a zero prints as a dash)."""
    write_text(ws, row, 0, tr("Decisions that are not zero, by demand scenario (each number "
                              "reads its scenario's block below)"), fmt["bold"])
    heads = [tr("Month"), tr("Decision")] + [scenario_name(robust, q.name) for q in paths]
    for j, head in enumerate(heads):
        write_text(ws, row + 1, j, head, fmt["header"])
    ws.set_row(row + 1, 30)
    for i, item in enumerate(nonzero):
        r = row + 2 + i
        write_text(ws, r, 0, item.month)
        write_text(ws, r, 1, item.what)
        for j, (q, header) in enumerate(zip(paths, blocks)):
            months = [d.month for d in q.strategy.schedule_rows]
            if item.month not in months:
                continue
            k = months.index(item.month)
            value = decision_values(s, q.strategy.schedule_rows[k])
            ws.write_formula(r, 2 + j, f"=${col(item.column)}${header + 2 + k}",
                             fmt["count"], value[item.column])
