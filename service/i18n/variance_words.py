"""Words of plan against actual (issue 43): the variance parts' names and the engine's
refusals (models.variance.MESSAGES, repeated here so that pybabel extracts them; a test keeps
the two lists equal)."""
from __future__ import annotations

from service.i18n import N_, gettext

PARTS = {
    "volume": N_("Volume (more or less work)"),
    "mix": N_("Mix (work on another source)"),
    "price": N_("Price (rate paid against plan)"),
    "idle_commitments": N_("Idle commitments"),
    "idle_servers": N_("Idle servers (owned capacity that did no work)"),
    "timing.delivery": N_("Timing: servers delivered late or early"),
    "fx": N_("Exchange rate (paid against the plan's rate)"),
    "timing.capex": N_("Timing: server purchases"),
    "timing.commitment_upfront": N_("Timing: commitment prepayments"),
    "timing.cloud_setup": N_("Timing: cloud set-up"),
    "timing.tax_on_resale": N_("Timing: tax on resale"),
    "timing.resale_credit": N_("Timing: resale proceeds"),
    "other.loan_payment": N_("Other: loan payments"),
    "other.energy": N_("Other: energy"),
    "other.space": N_("Other: space"),
    "other.maintenance": N_("Other: maintenance"),
    "other.staff": N_("Other: staff"),
    "other.owned_storage": N_("Other: owned storage"),
    "other.owned_network": N_("Other: owned network"),
    "other.storage": N_("Other: cloud storage"),
    "other.egress": N_("Other: data transfer out"),
    "other.cloud_support": N_("Other: cloud support"),
    "other.tax_shield": N_("Other: tax shield"),
    "other.on_demand": N_("Other: on-demand cost planned without GPU-hours"),
    "other.spot": N_("Other: spot cost planned without GPU-hours"),
    "other.commitment": N_("Other: commitment cost planned without GPU-hours"),
}

MESSAGES = (
    N_("%(month)s: GPU-hours of %(source)s must be 0 or more"),
    N_("%(month)s: GPU-hours of %(source)s are given without the cost of %(line)s or a rate"),
    N_("%(month)s: %(line)s is not a cost line"),
    N_("%(month)s: %(line)s is not a number"),
    N_("%(month)s: the idle commitment cost is not within the commitment line"),
    N_("the parts do not add up to the total"),
    N_("%(month)s is not a month of the plan (%(first)s to %(last)s)"),
    N_("%(month)s is given twice"),
    N_("no month of actuals was given"),
)


def part_label(name: str) -> str:
    """A part's name as a reader says it, in the current language."""
    return gettext(PARTS[name]) if name in PARTS else name
