"""The buy-vs-rent engine: pure computation, no I/O (design 2).

Conventions of every docstring in this package (design 3):

Units
    Written in brackets after a description, as numpy-financial and pvlib do: ``[currency]``,
    ``[currency per GPU-hour]``, ``[GPU-hours]``, ``[h]``, ``[s]``, ``[months]``,
    ``[fraction]`` (a share or rate written as 0.08 for 8 %), ``[-]`` (a pure number such as a
    discount factor or a multiplier). An array's shape follows the unit: ``[currency,
    (months, n)]``.
Currency
    ``[currency]`` is the reporting currency (``finance.currency``), ex VAT. An amount still in
    the currency it was entered in says so: ``[owned currency]``, ``[cloud currency]``.
Sign convention
    Costs are positive numbers: money paid out is > 0. Money coming back (the resale of a
    server, the tax shield) is also a positive number, kept on a credit line of its own
    (``models.costs.CREDIT_LINES``) and subtracted: net cost = costs - credits. A PV cost is
    therefore > 0 for a net cost, and a saving is the baseline's PV cost minus the strategy's
    (> 0 when the strategy is cheaper). This is the opposite of numpy-financial's cash-flow
    sign, where money out is negative: :func:`models.finance.level_payment` calls ``npf.pmt``
    with ``-principal`` so that the payment comes out positive.
Months
    A month index is 0-based from the plan's first month (month 0 is its first month); a
    negative index is before the plan. Figures shown to people (payback month) are 1-based.
    Arrays by month have one row per month of the horizon and, where they have one, of the
    tail after it (``models.prices.tail_months``).
Draws
    ``n`` is the width of the draws axis: 1 for the plan itself, the number of draws in the
    Monte Carlo, or the number of unit inputs when the optimizer reads its coefficients off the
    cost rules.
"""
