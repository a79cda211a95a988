"""Two plans side by side: two revisions of a scenario, or the latest revisions of two
scenarios. Both cumulative-cost curves on one chart, the assumptions that differ, the results,
and the waterfall of what changed the saving (service.plans.attribution)."""
from __future__ import annotations

from typing import Any, Optional

from flask import abort, g, render_template, request

from service.clip import short_name
from service.web.access import id_or_404, revision_or_404, scenario_or_404
from service.plans.attribution import Waterfall
from service.plans.jobs.compute import waterfall_from_json
from service.plans.stored import compare_job, job_status, read_plan, reason
from service.web.users import login_required
from service.web.tables import Revision
from service.forms.scenario import flatten, form_currency, label_for, show_value
from models.scenario import OWNED_TYPE
from service.i18n import _, formats
from service.i18n.labels import strategy_label
from service.plans import bp


def revision_label(revision: Revision, same_scenario: bool) -> str:
    """"r3" beside another revision of its scenario, else the scenario's name shortened
    (service.clip.short_name; pages show :func:`revision_title` on hover) and "r3"."""
    return f"r{revision.number}" if same_scenario else \
        f"{short_name(revision.scenario.name)} r{revision.number}"


def revision_title(revision: Revision) -> str:
    """The whole name of a revision, for the ``title`` beside a shortened label."""
    return f"{revision.scenario.name} r{revision.number}"


def curves(docs: list[Optional[dict]], labels: list[str]) -> Optional[dict[str, Any]]:
    """The recommended plan's cumulative cost of each side, and each side's all-on-demand
    curve, as chart data by month."""
    if not all(docs):
        return None
    series = []
    for doc, label in zip(docs, labels):
        rec = doc["recommendation"]
        for name, dash in ((rec, "solid"), ("on_demand", "dot")):
            series.append({"name": f"{label}: {strategy_label(name)}",
                           "x": doc["months"], "dash": dash,
                           "y": [row["cumulative_cost"]
                                 for row in doc["strategies"][name]["monthly"]]})
    return {"series": series}


def curves_summary(docs: list[dict], labels: list[str]) -> str:
    parts = []
    for doc, label in zip(docs, labels):
        rec = doc["recommendation"]
        currency = doc["scenario"]["finance"]["currency"]
        end = doc["strategies"][rec]["monthly"][-1]["cumulative_cost"]
        parts.append(_("%(label)s: %(strategy)s ends at %(cost)s after %(count)s months",
                       label=label, strategy=strategy_label(rec),
                       cost=formats.money(end, currency), count=len(doc["months"])))
    return _("Cumulative cost of each plan's recommendation (solid) and of all on demand "
             "(dotted). %(parts)s.", parts="; ".join(parts))


def compare_page(rev_a: Revision, rev_b: Revision, numbers: list[int]):
    same = rev_a.scenario_id == rev_b.scenario_id
    labels = [revision_label(rev_a, same), revision_label(rev_b, same)]
    titles = [revision_title(rev_a), revision_title(rev_b)]
    flat_a, flat_b = flatten(rev_a.assumptions_dict), flatten(rev_b.assumptions_dict)
    currencies = [form_currency(r.assumptions_dict, None) for r in (rev_a, rev_b)]
    diffs = [(label_for(k), k, show_value(k, flat_a.get(k), currencies[0]),
              show_value(k, flat_b.get(k), currencies[1]))
             for k in list(dict.fromkeys(list(flat_b) + list(flat_a)))
             if flat_a.get(k) != flat_b.get(k)]
    views = [read_plan(revision) for revision in (rev_a, rev_b)]
    docs: list[Optional[dict]] = [v.document if v.complete else None for v in views]
    results = []
    if all(docs):
        for name in dict.fromkeys(list(docs[0]["strategies"]) + list(docs[1]["strategies"])):
            sa, sb = docs[0]["strategies"].get(name), docs[1]["strategies"].get(name)
            results.append((name, sa and sa["pv_cost"], sb and sb["pv_cost"],
                            sa and sb and sb["pv_cost"] - sa["pv_cost"]))
    waterfall: Optional[Waterfall] = None
    waterfall_error = None
    waterfall_job = None
    if all(docs) and rev_a.content_hash == rev_b.content_hash:   # nothing changed
        rec = docs[0]["recommendation"]
        waterfall = Waterfall(round(docs[0]["savings_vs_on_demand"][rec] * 100), rec)
    elif all(docs):   # a waterfall plans once per changed group: a job, once per pair
        job = compare_job(rev_a, rev_b)
        if job.state == "done":
            waterfall = waterfall_from_json(job.result.decode())
        elif job.state == "failed":
            waterfall_error = reason(job)
        else:
            waterfall_job = job_status(job)
    pending = [label for label, v in zip(labels, views) if not v.complete and not v.error]
    chart = curves(docs, labels)
    currency_b = docs[1]["scenario"]["finance"]["currency"] if docs[1] else ""
    return render_template(
        "plans/compare.html", scenario=rev_a.scenario, a=rev_a, b=rev_b, labels=labels,
        titles=titles,
        same=same, diffs=diffs, results=results, docs=docs, numbers=numbers,
        charts={"compare": chart, "waterfall": waterfall.chart(*labels) if waterfall else None,
                "text": {"compare": _("Cumulative cost of both plans"), "month": _("month"),
                         "cost": _("cost [%(currency)s]", currency=currency_b),
                         "waterfall": _("What changed the saving of the recommended plan"),
                         "saving_vs_on_demand": _("PV saving vs on demand")}},
        curves_text=curves_summary(docs, labels) if chart else "", waterfall=waterfall,
        waterfall_text=waterfall_summary(waterfall, labels, currency_b) if waterfall else "",
        waterfall_error=waterfall_error, schedules=schedule_comparison(docs),
        waterfall_job=waterfall_job, pending=pending,
        currency=docs[1]["scenario"]["finance"]["currency"] if docs[1] else "")


def waterfall_summary(waterfall: Waterfall, labels: list[str], currency: str) -> str:
    """The waterfall's caption, saying where its axis starts when not at zero."""
    text = _("Waterfall from the saving of %(a)s to the saving of %(b)s, one bar per changed "
             "assumption (table below).", a=labels[0], b=labels[1])
    axis = waterfall.axis_range()
    if axis is not None:
        text += " " + _("The axis starts at %(low)s, not at zero, so that the changes can be "
                        "read; the bars of %(a)s and %(b)s are cut at its foot.",
                        low=formats.money(axis[0], currency), a=labels[0], b=labels[1])
    return text


def decision_text(d: Optional[dict]) -> str:
    """One schedule decision in words of the catalog: "buy 2, commit 1y 16"."""
    if not d:
        return ""
    parts = []
    for word, action in ((_("buy"), "buy"), (_("sell"), "sell")):
        # by type (the shorthand counts for the one type, ``owned``, of a plan stored before
        # issue 36)
        counts = dict(d.get(action) or {})
        if d.get(f"{action}_servers"):
            counts[OWNED_TYPE] = counts.get(OWNED_TYPE, 0) + d[f"{action}_servers"]
        if any(counts.values()):
            parts.append(f"{word} {formats.servers(counts)}")
    parts += [f"{_('commit')} {offer} {gpus}" for offer, gpus in d.get("commit", {}).items()]
    return ", ".join(parts)


def schedule_comparison(docs: list[Optional[dict]]) -> list[tuple[str, list[tuple]]]:
    """The scheduled strategies of two plans side by side: for the staged plan and a proposed
    schedule, every decision month of either with what each plan does then."""
    out = []
    if not all(docs):
        return out
    for name in ("staged", "proposed"):
        both = [{d["month"]: d for d in (doc["strategies"].get(name) or {}).get("schedule") or []}
                for doc in docs]
        months = sorted(set(both[0]) | set(both[1]))
        if months:
            out.append((name, [(m, decision_text(both[0].get(m)), decision_text(both[1].get(m)))
                               for m in months]))
    return out


def revision_number(name: str, default: int) -> int:
    return id_or_404(request.args.get(name, default))


@bp.get("/scenarios/<int:scenario_id>/compare")
@login_required
def compare(scenario_id: int):
    scenario = scenario_or_404(g.user, scenario_id)
    numbers = [r.number for r in scenario.revisions]
    a = revision_number("a", numbers[-2] if len(numbers) > 1 else numbers[-1])
    b = revision_number("b", numbers[-1])
    return compare_page(revision_or_404(g.user, scenario_id, a),
                        revision_or_404(g.user, scenario_id, b), numbers)


@bp.get("/scenarios/compare")
@login_required
def compare_scenarios():
    """The latest revisions (or ``ra``/``rb``) of scenarios ``a`` and ``b``."""
    if not request.args.get("a") or not request.args.get("b"):
        abort(400, _("Choose two scenarios to compare (a and b)."))
    ids = id_or_404(request.args["a"]), id_or_404(request.args["b"])
    sa, sb = (scenario_or_404(g.user, i) for i in ids)
    rev_a = revision_or_404(g.user, sa.id, revision_number("ra", sa.latest.number))
    rev_b = revision_or_404(g.user, sb.id, revision_number("rb", sb.latest.number))
    return compare_page(rev_a, rev_b, [])
