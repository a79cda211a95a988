"""Live plans: the plan of the values in a form, without saving anything.

The usage file is the latest revision's, read once per process and kept by its SHA-256 (a few
files at most). In a request, :func:`preview_document` prices the static strategies (the
issue-11 budget) and re-prices the last solved staged schedule under the edited assumptions
(stage "repriced"): no MILP runs in a request. A preview job (service.plans.stored) solves
the edited assumptions' own schedule, which the page shows when it arrives.
:func:`live_document` plans everything in this process: the waterfall's job uses it.
The uncertainty section is skipped (``uncertainty.draws = 0``): the live view shows only the
cards and the cumulative-cost chart.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any, Optional

from models.capacity import Capacity
from models.document import plan_document
from models.plan import Planner, compute_plan
from models.plan_options import PlanOptions
from models.profile import UsageProfile
from models.scenario import Scenario
from models.scenario_schedule import Decision
from service import clock
from service.web.tables import UsageFile
from service.ingest import read_usage

CACHED_PROFILES = 4
# previews and waterfall steps plan no robust plan (see without_uncertainty)
NO_PATHS = PlanOptions(growth_range_paths=False)
_profiles: OrderedDict[str, UsageProfile] = OrderedDict()
_lock = threading.Lock()


def usage_profile(usage: UsageFile) -> UsageProfile:
    """The parsed profile of a stored usage file (content-addressed, so never stale)."""
    with _lock:
        profile = _profiles.get(usage.sha256)
        if profile is not None:
            _profiles.move_to_end(usage.sha256)
            return profile
    profile = read_usage(usage.data, usage.filename).profile   # a Refusal when unreadable
    remember_profile(usage, profile)
    return profile


def remember_profile(usage: UsageFile, profile: UsageProfile) -> None:
    """Keep a profile parsed by the upload: attaching the file does not parse it again."""
    with _lock:
        _profiles[usage.sha256] = profile
        while len(_profiles) > CACHED_PROFILES:
            _profiles.popitem(last=False)


def last_schedule(doc: Optional[dict[str, Any]]) -> tuple[Decision, ...]:
    """The staged schedule of a stored plan document (empty when it has none)."""
    staged = (doc or {}).get("strategies", {}).get("staged")
    if not staged or not staged.get("schedule"):
        return ()
    return tuple(Decision.model_validate(d) for d in staged["schedule"])


def last_optima(doc: Optional[dict[str, Any]]) -> dict[str, Capacity]:
    """The ``cloud_only`` and ``optimal`` decisions of a stored plan document, servers by type
    (none for a document without them; a document stored before issue 36 counts the one
    type's servers as a number, the first type's)."""
    out = {}
    for name in ("cloud_only", "optimal"):
        r = (doc or {}).get("strategies", {}).get(name) or {}
        servers = r.get("servers")
        if not isinstance(servers, (int, dict)) or "committed_gpus" not in r:
            return {}
        by_type = ({k: int(v) for k, v in servers.items()} if isinstance(servers, dict)
                   else {})
        out[name] = Capacity(servers if isinstance(servers, int) else 0,
                             {k: int(v) for k, v in r["committed_gpus"].items()},
                             use_spot=bool(r.get("uses_spot", True)), servers_by_type=by_type)
    return out


def preview_document(model: Scenario, usage: UsageFile, schedule: tuple[Decision, ...] = (),
                     current_month: Optional[str] = None,
                     optima: Optional[dict[str, Capacity]] = None) -> dict[str, Any]:
    """The strategies of ``model`` on ``usage``, with ``schedule`` (the last solved staged
    schedule) and ``optima`` (the last static optima, :func:`last_optima`) priced under
    ``model`` instead of searched: tens of milliseconds, no search; the preview job searches
    (stage ``repriced`` until it answers). Without them the static optima are searched."""
    planner = Planner(without_uncertainty(model), usage_profile(usage),
                      current_month=current_month or clock.current_month(), options=NO_PATHS)
    repriced = planner.add_static(optima)
    if schedule:
        repriced = planner.add_repriced(schedule) or repriced
    stage = "repriced" if repriced else "static"
    return planner.plan(stage).document


def without_uncertainty(model: Scenario) -> Scenario:
    """The scenario a live preview or a waterfall step plans: no Monte Carlo, and no robust
    plan over demand scenarios (issue 27: seconds of MILPs each, and neither shows it; nor
    over the growth range's three: they plan with ``NO_PATHS``)."""
    return model.with_changes(uncertainty={"draws": 0}, staging={"demand_scenarios": []})


def live_document(model: Scenario, usage: UsageFile,
                  current_month: Optional[str] = None) -> dict[str, Any]:
    """The plan document of ``model`` on ``usage``, without the uncertainty section, as of
    ``current_month`` (today's when None: what saving it now would plan)."""
    plan = compute_plan(without_uncertainty(model), usage_profile(usage),
                        current_month=current_month or clock.current_month(), options=NO_PATHS)
    return plan_document(plan)


def cumulative_chart(doc: dict[str, Any]) -> dict[str, Any]:
    """The chart data of the cumulative-cost chart (the same keys the plan page uses)."""
    return {"months": doc["months"],
            "cumulative": {name: [row["cumulative_cost"] for row in s["monthly"]]
                           for name, s in doc["strategies"].items()}}
