"""The rules the plan document's figures follow, in words (design 9.3): how the horizon ends,
how data is charged, what cost per useful GPU-hour, normal and failure cost and the breakevens
mean, and the note on the uncertainty ranges' distributions.

Separate from the code that writes the document because these are texts the catalogs
translate (babel.cfg gives this file to service/i18n/extract.py's document_rules), and the
document only copies them.
"""
from __future__ import annotations


DISTRIBUTION_NOTE = ("Each range is triangular (or log-normal) with the base case as its mode, "
                     "not its median, so P50 can differ from the deterministic saving.")
# The rules the figures follow, as the plan document states them (views translate these
# texts: service/i18n/extract.py gives them to the catalogs).
RULES = {
    "horizon_end": {
        "liquidate": "Servers are sold at their resale value and loans paid off at the end of "
                     "the last month; every commitment payment still owed is counted in its "
                     "month and discounted (a commitment cannot be exited).",
        "prorate": "The horizon is a window on a going concern: commitment payments after the "
                   "last month are left out and an upfront payment counts in proportion to its "
                   "months inside the horizon; servers are sold at their resale value at the "
                   "end."},
    "data": "Stored terabytes and egress are charged every month for every strategy, split "
            "between cloud and owned prices in proportion to the month's gross GPU-hours on "
            "owned servers; a month with no work keeps its data by the servers if any are "
            "online, else in the cloud.",
    "cost_per_useful_gpu_hour": "Levelized: PV cost / PV of useful GPU-hours (each month's "
                                "useful GPU-hours discounted like an end-of-month payment); "
                                "the nominal figure is total cost / useful GPU-hours.",
    "normal_and_failure_cost": "normal_cost_pv is the PV cost of the same capacity if nothing "
                               "failed or was interrupted (spot sessions billed at their full "
                               "length, not cut short); failure_cost_pv is what failures and "
                               "interruptions add (overhead GPU-hours at the price of the "
                               "source that ran them, restarts, the billing of spot sessions "
                               "cut short); they sum to pv_cost.",
    "utilization_breakeven": "Marginal: crossings of screening curves for the next server "
                             "bought (on top of the servers held), without storage, egress, "
                             "setup fee or support minimum, owned and cloud compared over the "
                             "months that server is online. All-in: the utilization of "
                             "one server at which owning it costs what the cloud option does "
                             "on a flat profile, every charge included (against spot: all "
                             "work interruptible, spot for the share it can take and on "
                             "demand for the rest; against a commitment: as many committed "
                             "GPUs as one server holds).",
    "breakeven_difference": "Marginal and all-in figures can disagree because they answer "
                            "different questions: the marginal one prices one more server on "
                            "top of those held, over its own online months, without data "
                            "charges, setup fee or support minimum; the all-in one prices a "
                            "single server alone over the horizon with every charge, and a "
                            "charge that does not grow with use (data kept on owned storage "
                            "instead of in the cloud, the setup fee) moves its breakeven a "
                            "long way.",
}
