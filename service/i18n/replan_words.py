"""Words of the re-plan from actuals (issue 43): the refusals of service/plans/replan.py and
models/actual_usage.py, repeated here so that pybabel extracts them (a test keeps the lists
equal); the service says them with ``_(template, **values)``."""
from __future__ import annotations

from service.i18n import N_

MESSAGES = (
    N_("No actual bills within the approved plan's months yet: a re-plan starts after them."),
    N_("The actuals reach the approved plan's last month (%(month)s): no month is left to "
       "plan."),
    N_("The approved plan plans on busy GPU-hours; the bills give allocated ones, so a re-plan "
       "needs the demand basis 'allocated'."),
    N_("The position after %(month)s cannot be held as a scenario: %(reason)s"),
)
USAGE_MESSAGES = (
    N_("The usage ends inside %(month)s: a re-plan appends whole months after the usage's last "
       "whole month"),
    N_("The usage ends in %(end)s and the first month to append is %(first)s: the months "
       "between have no usage"),
)
