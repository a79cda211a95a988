"""Words of the owned fleet's actuals (issue 43; service/owned_actuals.py): the reader's
refusals, each with its values as placeholders. service/i18n/ingest_refusals.py adds them to
its templates, so a refusal by row and column is rebuilt in the reader's language as a usage
file's is."""
from __future__ import annotations

from service.i18n import N_

REFUSALS = (
    N_("unknown column; the owned actuals' columns are %(columns)s"),
    N_("%(value)s is not a month written YYYY-MM"),
    N_("%(value)s is not a month written YYYY-MM: servers bought need the month they were "
       "delivered"),
    N_("%(kind)s is not a server type of the plan; its types are %(types)s"),
    N_("an empty cell; write the servers online, 0 for none"),
    N_("%(value)s is not a number from 0 to %(limit)s"),
    N_("%(value)s is not a whole number of servers"),
    N_("energy is given both in kWh and as a cost; give one of them"),
    N_("the plan's energy price is in %(currency)s, not its reporting currency: give "
       "energy_cost in the reporting currency"),
    N_("servers bought need their price per server"),
    N_("%(month)s of type %(kind)s is given twice (rows %(first)s and %(row)s)"),
    N_("the file has no rows of owned actuals"),
    N_("the file has more than %(limit)s rows"),
    N_("%(sold)s servers sold but %(held)s held in %(month)s"),
    N_("%(online)s servers online but %(held)s held in %(month)s"),
    N_("%(busy)s busy GPU-hours but the servers online have %(capacity)s"),
    N_("owned actuals are read against a plan's owned fleet"),
    N_("%(month)s is also in %(name)s: give each month of owned actuals in one file"),
    N_("busy time of %(month)s has no owned actuals of that month"),
    N_("busy time of %(month)s is also in the owned actuals' busy_gpu_hours: give it in one "
       "place"),
    N_("%(value)s busy GPU-hours in %(month)s but the servers online have %(capacity)s"),
    N_("GPU busy time is read with the owned fleet's actuals: upload the owned actuals CSV "
       "with it"),
)
PHRASES = (
    N_("an empty cell"),
)
