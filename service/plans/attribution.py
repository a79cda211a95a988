"""What changed the saving: the change in the recommended plan's saving between two plans,
attributed to each changed assumption in turn.

Method (stated on the page): start from plan A's scenario and usage; change the assumptions
one at a time to B's values, in the order of the scenario's sections (finance, owned servers,
on demand, commitments, spot, cloud data, cloud terms, exchange rate, usage profile options,
position, staging, proposed capacity), then the usage file last; re-plan after each change (uncertainty skipped: it never moves the
base-case saving). Each bar is the change of "the saving of the recommended plan" (its PV
saving against running everything on demand) caused by that step, so the bars depend on the
order, which is why it is fixed. An intermediate scenario that the schema or the engine
refuses (an idle power above the maximum, a proposed commitment on an offer not yet there) is
merged with the next change and shown as one bar naming both. Savings are rounded to the cent
at every step, so the bars are whole cents and add up to the total change exactly.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, Optional

from pydantic import ValidationError

from models.refusals import Refusal
from models.scenario import Scenario
from service.forms.scenario import flatten, label_for, section_title
from service.i18n import _
from service.plans.live import live_document

SKIPPED = ("name", "uncertainty")  # no effect on the base-case saving
USAGE = "usage file"
# room around the levels of the waterfall: a quarter of their spread, or 1 % of the saving
# when the bars barely move it
AXIS_PAD, AXIS_PAD_FLAT = 0.25, 0.01
# the sections in the order the bars follow, which is the order the page states
SECTION_ORDER = tuple(k for k in Scenario.model_fields if k not in SKIPPED)


def order_words() -> str:
    """The sections in the order the bars follow, in the reader's language."""
    return ", ".join(section_title(k) for k in SECTION_ORDER)


@dataclass
class Step:
    paths: list[str]         # the changed groups of this bar (USAGE: the usage file)
    saving_cents: int        # saving of the recommended plan after this step [cents]
    delta_cents: int         # this step's bar [cents]
    recommendation: str

    @property
    def delta(self) -> float:
        return self.delta_cents / 100

    @property
    def label(self) -> str:
        """In the reader's language (waterfalls are cached across readers)."""
        return " + ".join(group_label(g) for g in self.paths)


@dataclass
class Waterfall:
    start_cents: int
    start_recommendation: str
    steps: list[Step] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)

    @property
    def end_cents(self) -> int:
        return self.steps[-1].saving_cents if self.steps else self.start_cents

    @property
    def total_cents(self) -> int:
        return self.end_cents - self.start_cents

    @property
    def order(self) -> str:
        """The order of the bars, as the page states it."""
        return order_words()

    def levels(self) -> list[float]:
        """The saving before the first step and after each step [currency]."""
        return [self.start_cents / 100] + [s.saving_cents / 100 for s in self.steps]

    def axis_range(self) -> Optional[list[float]]:
        """The value axis of the chart: from a little under the lowest level the bars reach to
        a little over the highest, so that a change of 3 % of the saving is a third of the
        chart and not a hairline on an axis from zero; None (the axis from zero) when zero is
        that close anyway or the levels cross it."""
        levels = self.levels()
        low, high = min(levels), max(levels)
        pad = max((high - low) * AXIS_PAD, abs(high) * AXIS_PAD_FLAT, abs(low) * AXIS_PAD_FLAT,
                  0.01)
        low, high = low - pad, high + pad
        return None if low <= 0 <= high else [low, high]

    def chart(self, start_label: str, end_label: str) -> dict[str, Any]:
        """A plotly waterfall: the start, one bar per step, the end; the end bars are named by
        the plans they are the saving of ("r3", "r4")."""
        return {"labels": [_("saving %(label)s", label=start_label)]
                + [s.label for s in self.steps] + [_("saving %(label)s", label=end_label)],
                "measures": ["absolute"] + ["relative"] * len(self.steps) + ["total"],
                "values": [self.start_cents / 100] + [s.delta for s in self.steps]
                + [self.end_cents / 100],
                "range": self.axis_range()}


def schema_order(*dumps: dict) -> list[str]:
    """Every dotted path of scenario dumps in the schema's order: sections as the scenario
    declares them (``SECTION_ORDER``), the fields of each as its section does. Stored
    revisions keep their keys sorted (cloud_data came first), so the order is taken from the
    schema, not from the dump."""
    order: dict[str, None] = {}
    for dump in dumps:
        try:
            canonical = Scenario.model_validate(dump).model_dump(mode="json")
        except ValidationError:
            canonical = {}
        order.update(dict.fromkeys(flatten(canonical)))
    for dump in dumps:                      # paths the schema writes otherwise, at the end
        order.update(dict.fromkeys(flatten(dump)))
    return list(order)


def change_groups(a: dict, b: dict) -> tuple[list[str], list[str]]:
    """(groups of changed assumptions in form order, changed paths that are skipped).

    A group is one field of a section (``owned.server_price``; the financing and the proposed
    commitments as a whole); commitment offers change field by field when both plans have the
    same number of offers, else as one list. Groups come in the schema's order
    (:func:`schema_order`), the order the compare page states.
    """
    flat_a, flat_b = flatten(a), flatten(b)
    same_offers = len(a.get("commitments") or []) == len(b.get("commitments") or [])
    groups: list[str] = []
    skipped: list[str] = []
    for path in schema_order(b, a):
        if flat_a.get(path) == flat_b.get(path) and (path in flat_a) == (path in flat_b):
            continue
        parts = path.split(".")
        if parts[0] in SKIPPED:
            skipped.append(path)
            continue
        if parts[0] == "commitments":
            group = path if same_offers else "commitments"
        else:
            group = ".".join(parts[:2])
        if group not in groups:
            groups.append(group)
    return groups, skipped


def get_path(data: Any, path: str) -> Any:
    for part in path.split("."):
        data = data[int(part)] if isinstance(data, list) else data.get(part)
    return data


def set_path(data: Any, path: str, value: Any) -> None:
    parts = path.split(".")
    for part in parts[:-1]:
        data = data[int(part)] if isinstance(data, list) else data[part]
    last = parts[-1]
    if isinstance(data, list):
        data[int(last)] = value
    else:
        data[last] = value


def group_label(group: str) -> str:
    if group == USAGE:
        return _("usage file")
    return _("Cloud commitments (the offers)") if group == "commitments" else label_for(group)


def saving_cents(model: Scenario, usage, current_month: Optional[str] = None
                 ) -> tuple[int, str]:
    """(saving of the recommended plan against on demand [cents], the recommendation), as of
    ``current_month`` (service.clock; today's when None)."""
    doc = live_document(model, usage, current_month)
    name = doc["recommendation"]
    return round(doc["savings_vs_on_demand"][name] * 100), name


def attribute(a: dict, usage_a, b: dict, usage_b,
              current_month: Optional[str] = None) -> Waterfall:
    """The waterfall from plan A (scenario dump ``a`` on ``usage_a``) to plan B, every step
    planned as of one ``current_month`` (the later revision's, so that its end is B's plan)."""
    start, start_name = saving_cents(Scenario.model_validate(a), usage_a, current_month)
    groups, skipped = change_groups(a, b)
    result = Waterfall(start, start_name, skipped=skipped)
    current, previous = copy.deepcopy(a), start
    pending: list[str] = []
    for i, group in enumerate(groups):
        set_path(current, group, copy.deepcopy(get_path(b, group)))
        pending.append(group)
        last = i == len(groups) - 1
        try:
            model = Scenario.model_validate(current)
            value, name = saving_cents(model, usage_a, current_month)
        except (ValidationError, Refusal):
            if last:
                raise
            continue  # refused half-way: merged with the next change
        result.steps.append(Step(list(pending), value, value - previous, name))
        previous, pending = value, []
    if usage_a.sha256 != usage_b.sha256:
        value, name = saving_cents(Scenario.model_validate(b), usage_b, current_month)
        result.steps.append(Step([USAGE], value, value - previous, name))
    return result
