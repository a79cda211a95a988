"""What the robust plan's fan chart draws so that capacity stays readable (issue 39, item 4).

The fan chart shows each demand scenario's capacity (committed and owned GPUs) against that
scenario's demand peak. Drawn as they are, a fast path's peak (8,888 GPUs in the robust sample,
1,200 in the issue's plan) sets the axis and the capacity lines, a few dozen GPUs, lie flat at
the bottom, on top of each other where the scenarios hold the same capacity. This module adds,
beside the scenarios' numbers (never changed):

- ``top``: the axis stops where capacity keeps a readable share of the height and the lowest
  demand path is still drawn whole; a demand path above it leaves the plot at the top edge
  (Plotly clips it there, its hover still says its value), and ``peaks`` label each such
  path's peak with its value ("peak 8,888") at its month;
- ``same``: for each scenario and month, the other scenarios holding the same capacity, named
  in the hover, and ``width``: the capacity lines drawn one inside another (the first
  scenario widest), so that coinciding lines show every colour rather than the last one drawn.
"""
from __future__ import annotations

from typing import Any, Optional

from service.i18n import _, formats

SAME_GPUS = 0.005      # two capacities are the same when they differ by less than this [GPUs]
CAPACITY_SHARE = 0.4   # the most capacity reaches is at least this share of the axis height
CLIP_ABOVE = 1.25      # the axis is cut only when a peak is this far above where it would stop
WIDEST, NARROWEST = 8.0, 2.0    # px: the capacity lines one inside another


def axis_top(capacities: list[list[float]], peaks: list[list[float]]) -> Optional[float]:
    """Where the fan chart's GPU axis stops [GPUs], None when everything fits.

    Notes
    -----
    With ``C`` the most capacity of any scenario and ``D_s`` the highest demand peak of
    scenario ``s``::

        top = max(C / CAPACITY_SHARE, min_s D_s)

    so capacity takes at least ``CAPACITY_SHARE`` of the height and the lowest demand path is
    drawn whole. The axis is cut only when ``max_s D_s > CLIP_ABOVE * top``; a path a little
    above ``top`` is drawn whole instead.
    """
    most_capacity = max((max(c) for c in capacities if c), default=0.0)
    highest = [max(p) for p in peaks if p]
    if not highest or most_capacity <= 0:
        return None
    top = max(most_capacity / CAPACITY_SHARE, min(highest))
    return top if max(highest) > CLIP_ABOVE * top else None


def line_widths(count: int) -> list[float]:
    """The capacity lines' widths [px], the first scenario's widest, evenly down to the last."""
    if count <= 1:
        return [NARROWEST] * count
    step = (WIDEST - NARROWEST) / (count - 1)
    return [round(WIDEST - i * step, 2) for i in range(count)]


def shared_capacity(names: list[str], capacities: list[list[float]]) -> list[list[str]]:
    """For each scenario and month, the hover's note naming the other scenarios with the same
    capacity that month ("" when none)."""
    notes = []
    for i, capacity in enumerate(capacities):
        row = []
        for m, value in enumerate(capacity):
            others = [names[j] for j, c in enumerate(capacities)
                      if j != i and m < len(c) and abs(c[m] - value) < SAME_GPUS]
            row.append(_("same as %(names)s", names=", ".join(others)) if others else "")
        notes.append(row)
    return notes


def fan_chart(months: list[str], scenarios: list[dict[str, Any]]) -> dict[str, Any]:
    """The fan chart's data: ``months``, ``scenarios`` (``name``, ``capacity``,
    ``demand_peak`` as stored, with ``same`` and ``width``), ``top`` (the axis top or None)
    and ``peaks`` (``index`` of the scenario, ``month``, ``value``, ``text``) for the paths
    cut at the top, in the reader's language."""
    names = [q["name"] for q in scenarios]
    capacities = [list(q["capacity"]) for q in scenarios]
    demand = [list(q["demand_peak"]) for q in scenarios]
    top = axis_top(capacities, demand)
    peaks = []
    if top is not None:
        for i, d in enumerate(demand):
            value = max(d)
            if value > top:
                m = d.index(value)
                peaks.append({"index": i, "month": months[m], "value": value,
                              "text": _("peak %(gpus)s", gpus=formats.number(value, 0))})
    same = shared_capacity(names, capacities)
    widths = line_widths(len(scenarios))
    return {"months": months, "top": top, "peaks": peaks,
            "scenarios": [{"name": names[i], "capacity": capacities[i],
                           "demand_peak": demand[i], "same": same[i], "width": widths[i]}
                          for i in range(len(scenarios))]}


def fan_notes(fan: dict[str, Any]) -> list[str]:
    """Sentences for the chart's caption: where the axis stops, and which lines coincide."""
    notes = []
    if fan["top"] is not None:
        cut = [fan["scenarios"][p["index"]]["name"] for p in fan["peaks"]]
        notes.append(_("The axis stops at %(top)s GPUs so that capacity stays readable; the "
                       "demand of %(names)s rises above it and its peak is labelled.",
                       top=formats.number(fan["top"], 0), names=", ".join(cut)))
    if any(note for q in fan["scenarios"] for note in q["same"]):
        notes.append(_("Where scenarios hold the same capacity their lines lie on one "
                       "another, drawn one inside the other (the first scenario widest); the "
                       "hover names the scenarios sharing a value."))
    return notes
