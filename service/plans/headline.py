"""The headline of a plan: the recommendation in words and the payback months, shown on the plan
page and in the live panel beside the scenario form."""
from __future__ import annotations

from service.i18n import _, formats, labels, sentences


def recommendation_text(doc: dict) -> str:
    """The recommendation in the reader's language (the engine's messages when the document
    has them), or a sentence made from the numbers for documents without an explanation."""
    text = sentences.explanation(doc)
    if text:
        return text
    name = doc["recommendation"]
    s = doc["strategies"][name]
    currency = doc["scenario"]["finance"]["currency"]
    committed = ", ".join(f"{v} ({k})" for k, v in s["committed_gpus"].items() if v)
    text = _("Recommended: %(strategy)s - %(servers)s owned servers, committed GPUs "
             "%(committed)s; PV cost %(pv)s", strategy=labels.strategy_label(name),
             servers=formats.servers(s["servers"]), committed=committed or _("none"),
             pv=formats.money(s["pv_cost"], currency))
    if name != "on_demand":
        text += _(", %(saving)s less than running everything on demand",
                  saving=formats.money(doc["savings_vs_on_demand"].get(name, 0.0), currency))
    return text + "."


def payback(doc: dict) -> dict:
    breakeven = doc.get("breakeven") or {}
    return {"nominal": breakeven.get("payback_month") or {},
            "discounted": breakeven.get("payback_month_discounted") or {}}
