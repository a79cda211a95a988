"""What the plan's charts draw so that they show the decision, decided when a page is shown.

The stored chart data (service.plans.planning.chart_data) has one cumulative curve per strategy
and one series per cost line; drawn as they are, an expensive strategy sets the scale, two
identical strategies hide each other and 14 colours hide the spike of a purchase. This module
adds, beside that data:

- ``cumulative_lines``: the cumulative curves as lines to draw, strategies with the same
  monthly figures merged into one line ("Optimal mix = Staged plan"), and a strategy far
  dearer than all on demand marked to start hidden in the legend, so the axis is scaled on the
  plans worth comparing (a click on its legend entry shows it);
- ``by_source_groups``: the monthly cost lines summed into a few groups (owned servers,
  commitments, spot, on demand, data, cloud fees, tax), with purchases, upfront payments and
  resale in a panel of their own above them: a 2.3 M purchase in month 1 beside 60 k a month
  of running costs is readable only on its own axis, and two panels stacked, each from zero,
  do not invite reading one scale for the other as a second y axis on the same plot would;
- ``panels``: the two panels' shares of the plot's height and the figure's height, so that a
  purchase is a bar a reader sees (a third of a short figure made it a sliver), and
  ``largest``: the largest purchase, labelled on the chart with its amount (issue 39, item 4).

Both are computed from stored data at page time (plans cached before this module existed get
them too) and carry their words in the reader's language.
"""
from __future__ import annotations

from typing import Any, Optional

from service.i18n import N_, formats, gettext
from service.i18n.charts import cumulative_chart_text, plan_chart_text
from service.i18n.labels import cost_line_label, strategy_label

# The monthly chart with a purchases panel: [bottom, top] of each panel as shares of the plot
# height (the purchases 42 %, the running costs 48 %, a gap for the upper axis' ticks) and the
# figure's height [px] (the page's charts are 380 px: two panels need more)
PANELS = {"capital": [0.58, 1.0], "running": [0.0, 0.48]}
PANELS_HEIGHT = 600
SAME_CENTS = 0.005      # two curves are one line when no month differs by half a cent or more
FAR_DEARER = 1.10       # PV cost more than 10 % above all on demand: not worth comparing
ALWAYS_SHOWN = ("on_demand", "proposed")   # the baseline, and what the analyst proposes

# Cost lines by group: purchases, upfront payments and resale in the upper panel, running
# costs below. Every engine line (models.costs.LINES) is in exactly one group (a test).
CAPITAL = {"purchases": ("capex", "commitment_upfront"), "resale": ("resale_credit",)}
RUNNING = {"owned": ("energy", "space", "maintenance", "staff", "loan_payment"),
           "commitments": ("commitment",), "spot": ("spot",), "on_demand": ("on_demand",),
           "data": ("storage", "egress", "owned_storage", "owned_network"),
           "cloud_fees": ("cloud_setup", "cloud_support"),
           "tax": ("tax_on_resale", "tax_shield")}
GROUP_LABELS = {"purchases": N_("purchases and upfront payments"), "resale": N_("resale"),
                "owned": N_("owned servers"), "commitments": N_("commitments"),
                "spot": N_("spot"), "on_demand": N_("on demand"),
                "data": N_("data (storage, egress)"), "cloud_fees": N_("cloud fees"),
                "tax": N_("tax")}


def same_curve(a: list[float], b: list[float]) -> bool:
    return len(a) == len(b) and all(abs(x - y) < SAME_CENTS for x, y in zip(a, b))


def cumulative_lines(curves: dict[str, list[float]], doc: dict[str, Any]
                     ) -> list[dict[str, Any]]:
    """The lines of the cumulative-cost chart, in the order of ``curves``: ``names`` (the
    strategies drawn by this line, more than one when their monthly figures are the same),
    ``label``, ``hidden`` (starts hidden in the legend) and ``recommended``."""
    groups: list[list[str]] = []
    for name in curves:
        match = next((g for g in groups if same_curve(curves[g[0]], curves[name])), None)
        if match is None:
            groups.append([name])
        else:
            match.append(name)
    strategies = doc["strategies"]
    baseline = strategies.get("on_demand", {}).get("pv_cost")
    keep = set(ALWAYS_SHOWN) | {doc["recommendation"]}
    lines = []
    for names in groups:
        pv = strategies.get(names[0], {}).get("pv_cost")
        hidden = (baseline is not None and pv is not None and not keep & set(names)
                  and pv > baseline * FAR_DEARER)
        lines.append({"names": names, "label": " = ".join(strategy_label(n) for n in names),
                      "hidden": hidden, "recommended": doc["recommendation"] in names})
    return lines


def cumulative_notes(lines: list[dict[str, Any]]) -> list[str]:
    """Sentences for the chart's caption: which strategies are one line, which start hidden."""
    notes = []
    for line in lines:
        if len(line["names"]) > 1:
            notes.append(gettext("%(names)s have the same monthly figures and are drawn as "
                                 "one line.", names=_and(line["names"])))
    hidden = [n for line in lines if line["hidden"] for n in line["names"]]
    if hidden:
        notes.append(gettext("%(names)s cost more than %(share)s above all on demand and start "
                             "hidden, so that the axis fits the plans worth comparing: select "
                             "the name in the legend to show it.",
                             names=_and(hidden), share=f"{FAR_DEARER - 1:.0%}"))
    return notes


def _and(names: list[str]) -> str:
    labels = [strategy_label(n) for n in names]
    if len(labels) == 1:
        return labels[0]
    return gettext("%(first)s and %(last)s", first=", ".join(labels[:-1]), last=labels[-1])


def by_source_groups(lines: dict[str, list[float]]) -> dict[str, list[dict[str, Any]]]:
    """The monthly cost lines (credits already negative) summed by group: ``capital`` (the
    upper panel) and ``running``, each a list of ``{"key", "label", "members", "y"}`` for the
    groups with any cost. A line no group names (a newer engine) is a group of its own."""
    known = {n for g in (*CAPITAL.values(), *RUNNING.values()) for n in g}
    running = {**RUNNING, **{n: (n,) for n in lines if n not in known}}
    out: dict[str, list[dict[str, Any]]] = {}
    for panel, groups in (("capital", CAPITAL), ("running", running)):
        out[panel] = []
        for key, members in groups.items():
            present = [n for n in members if n in lines]
            if not present:
                continue
            y = [sum(values) for values in zip(*(lines[n] for n in present))]
            label = gettext(GROUP_LABELS[key]) if key in GROUP_LABELS else cost_line_label(key)
            out[panel].append({"key": key, "label": label,
                               "members": [cost_line_label(n) for n in present], "y": y})
    return out


def largest_purchase(groups: dict[str, list[dict[str, Any]]], months: list[str],
                     currency: str) -> Optional[dict[str, Any]]:
    """The largest month of the purchases group (``month``, ``value``, ``text``: the amount
    in the reader's language), None when nothing is bought."""
    purchases = next((g for g in groups["capital"] if g["key"] == "purchases"), None)
    if purchases is None or not purchases["y"] or max(purchases["y"]) <= 0:
        return None
    value = max(purchases["y"])
    month = months[purchases["y"].index(value)]
    return {"month": month, "value": value,
            "text": gettext("%(amount)s in %(month)s", amount=formats.money(value, currency,
                                                                            "short"),
                            month=month)}


def group_of(line: str) -> str:
    """The group label a cost line is drawn in."""
    for groups in (CAPITAL, RUNNING):
        for key, members in groups.items():
            if line in members:
                return gettext(GROUP_LABELS[key])
    return cost_line_label(line)


def plan_page_charts(charts: dict[str, Any], doc: dict[str, Any]) -> dict[str, Any]:
    """The plan page's chart data: the stored charts with their words
    (service.i18n.charts.plan_chart_text), the cumulative lines and the cost groups."""
    out = plan_chart_text(charts, doc["scenario"]["finance"]["currency"],
                          doc["scenario"].get("commitments") or ())
    out["cumulative_lines"] = cumulative_lines(charts["cumulative"], doc)
    groups = by_source_groups(charts["by_source"]["lines"])
    out["by_source"] = {**out["by_source"], "groups": groups,
                        "panels": PANELS, "height": PANELS_HEIGHT,
                        "largest": largest_purchase(groups, charts["months"], _currency(doc))}
    out["text"] = {**out["text"], "capital": gettext("purchases [%(currency)s]",
                                                     currency=_currency(doc)),
                   "running": gettext("running cost [%(currency)s]", currency=_currency(doc))}
    return out


def live_charts(charts: dict[str, Any], doc: dict[str, Any]) -> dict[str, Any]:
    """The live plan's cumulative chart with its words and lines."""
    out = cumulative_chart_text(charts, _currency(doc))
    out["cumulative_lines"] = cumulative_lines(charts["cumulative"], doc)
    return out


def _currency(doc: dict[str, Any]) -> str:
    return doc["scenario"]["finance"]["currency"]

