"""The plan page's robust plan (issue 27): the decision now, the scenarios' table, expected PV,
CVaR, EVPI and VSS in words, and the fan chart of capacity per scenario against its demand."""
from __future__ import annotations

from typing import Any, Optional

from service.i18n import _, formats
from service.plans.fan_chart import fan_chart, fan_notes
from service.i18n.robust_words import (decision_now, risk_words, robust_entry, scenario_name,
                                       schedule_text, signed_text)


def robust_view(doc: Optional[dict]) -> Optional[dict[str, Any]]:
    """The template values of the robust plan; None when the plan has none.

    Parameters
    ----------
    doc : dict or None
        The plan document.

    Returns
    -------
    dict or None
        ``sentence``, ``words`` (risk sentences), ``rows`` (one per scenario: name,
        probability, growth, PV, its own optimum, schedule: servers bought and sold per type,
        signed: GPUs signed per offer now and later, whose most is the robust card's GPUs),
        ``chart`` (the fan chart's data), ``text`` (its summary and the numbers behind it)
        and ``from_range`` (the scenarios are the growth range's, none being given).
    """
    r = robust_entry(doc)
    if not r:
        return None
    currency = doc["scenario"]["finance"]["currency"]
    rows = [{"name": scenario_name(r, q["name"]), "probability": formats.percent(q["probability"]),
             "growth": formats.percent(q["growth_annual"]),
             "pv": formats.money(q["pv_cost"], currency),
             "foresight": formats.money(q["foresight_pv"], currency)
             if q.get("foresight_pv") is not None else "-",
             "schedule": schedule_text(q["schedule"]),
             "signed": signed_text(q["schedule"])} for q in r["scenarios"]]
    months = doc["months"]
    # the axis cut above capacity, the cut peaks labelled, coinciding capacity lines apart
    # (service/plans/fan_chart.py)
    fan = fan_chart(months, [{**q, "name": scenario_name(r, q["name"])} for q in r["scenarios"]])
    chart = {"fan": fan,
             "text": {"fan": _("Capacity by demand scenario against its demand"),
                      "month": _("month"), "gpus": _("GPUs"),
                      "capacity_of": _("capacity, %(name)s"),
                      "demand_of": _("demand peak, %(name)s")}}
    picked = list(range(0, len(months), 12)) + ([len(months) - 1] if len(months) % 12 != 1
                                                else [])
    text = {"summary": _("Capacity (committed and owned) of each demand scenario's schedule "
                         "against that scenario's peak demand, by month; the schedules are "
                         "the same until %(until)s.", until=r["decide_now_until"])
            + "".join(" " + note for note in fan_notes(fan)),
            "head": [_("Month")] + [f"{scenario_name(r, q['name'])}: " + _("capacity / peak")
                                    for q in r["scenarios"]],
            "rows": [[months[i]] + [f"{formats.number(q['capacity'][i], 0)} / "
                                    f"{formats.number(q['demand_peak'][i], 0)}"
                                    for q in r["scenarios"]] for i in sorted(set(picked))]}
    return {"sentence": decision_now(r), "words": risk_words(r, currency), "rows": rows,
            "chart": chart, "text": text, "until": r["decide_now_until"],
            "gap": r["gap"], "notes": r["notes"],
            "from_range": bool(r.get("scenarios_from_range"))}
