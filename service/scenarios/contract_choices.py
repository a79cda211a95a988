"""Which commitments of a Contract Commitment preview are checked, and why not (issue 24):
used by the upload's preview (service.scenarios.views) and the attach route
(service.scenarios.contract_attach), which as route modules of one blueprint do not import each
other."""
from __future__ import annotations

import json
import re
from collections import Counter
from typing import Optional

import numpy as np

from models.scenario import Scenario
from service import clock
from service.i18n import _
from service.ingest import instances
from service.ingest.commitment_record import KEYS


# GPU types of the instance table (service/ingest/instance_gpus.csv), longest first: "A100 80GB"
# before "A100".
GPU_TYPES = sorted({str(t) for t in instances.table().accelerator}, key=len, reverse=True)


def scenario_gpu_type(model: Scenario) -> Optional[str]:
    """The GPU type a scenario plans, as its name says it ("8x H100 servers ..."), or None when
    the name names none or several."""
    named = {t for t in GPU_TYPES
             if re.search(rf"(?<![A-Za-z0-9]){re.escape(t)}(?![A-Za-z0-9])", model.name)}
    named = {t for t in named if not any(t != o and t in o for o in named)}
    return named.pop() if len(named) == 1 else None


def currency_fits(model: Scenario, currency: str, foreign: Optional[str] = None
                  ) -> Optional[str]:
    """Why a contract in ``currency`` cannot join the scenario's position, or None when it
    can: the reporting currency, the cloud's, or the one foreign currency (the scenario's, else
    ``foreign``, the one the file's contracts are mostly in) at the exchange rate."""
    reporting = model.finance.currency
    if not currency or currency in (reporting, model.market_currency("cloud")):
        return None
    foreign = model.foreign_currency() or foreign or currency
    if foreign != currency:
        return _("in %(currency)s: the scenario converts only %(foreign)s into %(reporting)s",
                 currency=currency, foreign=foreign, reporting=reporting)
    if model.fx.rate is None:
        return _("in %(currency)s: give the scenario an exchange rate (%(reporting)s per "
                 "%(currency)s) first", currency=currency, reporting=reporting)
    return None


def plan_start(model: Scenario, current_month: str) -> str:
    """The earliest month the scenario's plan can start: its ``finance.start_month``, else the
    month after the current one (a plan starts after its usage and after today:
    models.start.default_start_month)."""
    if model.finance.start_month:
        return model.finance.start_month
    return str(np.datetime64(current_month, "M") + 1)


def ended_before(detail: dict, start: str) -> bool:
    """Whether a contract's term ends before the plan's first month begins."""
    end = detail.get("end")
    return bool(end) and np.datetime64(end) <= np.datetime64(start, "M").astype(
        "datetime64[s]").astype(np.datetime64(end).dtype)


def attach_choices(model: Scenario, result, current_month: Optional[str] = None
                   ) -> list[dict]:
    """For each commitment of a Contract Commitment preview: whether it is checked, whether it
    can be attached at all, and why not when it is not checked. A contract whose term ended
    before the plan starts is neither checked nor attachable: it holds nothing (issue 37: an
    ended one was pre-checked and listed as held, with no word and no effect)."""
    planned = scenario_gpu_type(model)
    start = plan_start(model, current_month or clock.current_month())
    details = result.summary.get("details", [])
    others = Counter(d["currency"] for d in details if d.get("currency") and d["currency"]
                     not in (model.finance.currency, model.market_currency("cloud")))
    foreign = others.most_common(1)[0][0] if others else None
    out = []
    for d in details:
        refused = currency_fits(model, d.get("currency") or "", foreign)
        if ended_before(d, start):
            refused = _("ended %(end)s, before the plan starts in %(start)s",
                        end=str(d["end"])[:10], start=start)
        other_gpu = planned and d.get("gpu_type") and d["gpu_type"] != planned
        why = refused or (_("%(theirs)s GPUs; the scenario plans %(planned)s",
                            theirs=d["gpu_type"], planned=planned) if other_gpu else "")
        out.append({"detail": d, "checked": not why, "disabled": bool(refused), "why": why})
    return out


def choice_value(detail: dict) -> str:
    """The checkbox value of one commitment of the preview: its record and currency."""
    return json.dumps({**{k: detail[k] for k in KEYS}, "currency": detail.get("currency", "")},
                      sort_keys=True)
