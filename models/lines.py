"""The names of a plan's cost lines (design 9.2), shared by the cost kernel, the ledger and
every view that lists them.

Costs are positive (money out); credits are positive money in and subtracted from the total.
"""
from __future__ import annotations

COST_LINES = ("capex", "loan_payment", "energy", "space", "maintenance", "staff",
              "owned_storage", "owned_network", "commitment_upfront", "commitment", "spot",
              "on_demand", "storage", "egress", "cloud_setup", "cloud_support", "tax_on_resale")
CREDIT_LINES = ("resale_credit", "tax_shield")
LINES = COST_LINES + CREDIT_LINES
# paid at the start of their month, so discounted one month less (design 3)
START_OF_MONTH_LINES = ("capex", "commitment_upfront", "cloud_setup")
