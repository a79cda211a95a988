"""Words of the alert thresholds (issue 43): the kinds as a badge says them, a breach as a
sentence (the Plan vs actual page, the audit log's reader, the webhook's message) and the
settings' labels (models.thresholds.Thresholds's fields, one label each: a test keeps the
two equal)."""
from __future__ import annotations

from typing import Any

from service.i18n import N_, gettext

BADGES = {
    "spend_over_plan": N_("Spend over plan"),
    "commitment_utilization": N_("Commitment utilization low"),
    "owned_utilization": N_("Owned server utilization low"),
}

SENTENCES = {
    "spend_over_plan": N_("%(month)s: spend %(value)s %% over plan (alert above "
                          "%(threshold)s %%)"),
    "commitment_utilization": N_("%(month)s: commitment utilization %(value)s %% (alert "
                                 "under %(threshold)s %%)"),
    "owned_utilization": N_("%(month)s: owned server utilization %(value)s %% (alert under "
                            "%(threshold)s %%)"),
}

LABELS = {
    "spend_over_plan": N_("Alert when a month's spend is over its plan by more than"),
    "commitment_utilization": N_("Alert when the utilization of commitments is under"),
    "owned_utilization": N_("Alert when the utilization of owned servers is under"),
}

# after the input and its "%" (a "%" inside a message would read as a placeholder)
UNITS = {
    "spend_over_plan": N_("of the month's plan"),
    "commitment_utilization": N_("of the committed GPU-hours"),
    "owned_utilization": N_("of the owned GPU-hours installed"),
}

WEBHOOK_MESSAGE = N_("[buyrent] Scenario %(scenario)s, revision %(number)s: %(sentence)s")


def badge(kind: str) -> str:
    return gettext(BADGES[kind]) if kind in BADGES else kind


def sentence(kind: str, month: str, value: Any, threshold: Any) -> str:
    """A breach in the current language; ``value`` and ``threshold`` as decimal text [%]."""
    if kind not in SENTENCES:
        return f"{month}: {kind}"
    return gettext(SENTENCES[kind], month=month, value=value, threshold=threshold)
