"""What one server of a cohort costs to buy and how it is paid: its price, basis and loan.

Written once for every reader of a server cohort: the cost kernel's schedule
(models/cohort_costs.py ``server_schedule``), the workbook's ledger rows
(models/ledger_cohorts.py ``server_row``) and the purchase orders' horizon sale
(models/schedules.py).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from models.capacity import ServerCohort
from models.finance import level_payment, loan_schedule
from models.prices import PriceBook


@dataclass(frozen=True)
class ServerTerms:
    """The purchase terms of one server of a cohort, per draw of the price book."""

    price: np.ndarray       # purchase price [currency per server, (n,)]
    install: float          # install cost [currency per server]
    basis: np.ndarray       # price + install, the depreciable cost [currency per server, (n,)]
    down: np.ndarray        # paid at the start of the purchase month [currency per server, (n,)]
    principal: np.ndarray   # borrowed; 0 without a loan [currency per server, (n,)]
    payment: np.ndarray     # level payment at each month end; 0 without a loan in the plan
    #                         [currency per server per month, (n,)]
    apr: float              # the loan's annual rate [fraction per year]
    term: int               # the loan's term [months]

    def loan(self, months: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The loan's payments, their interest and the payoff over the months a server is held.

        Parameters
        ----------
        months : int
            Months from the purchase to the sale [months].

        Returns
        -------
        payments : numpy.ndarray
            Payment at each month end, the payoff included in the last month [currency per
            server, (months, n)].
        interest : numpy.ndarray
            Interest part of each payment [currency per server, (months, n)].
        payoff : numpy.ndarray
            Balance paid with the last payment when the server is sold inside the term, else 0
            [currency per server, (n,)].

        Notes
        -----
        With B the principal [currency per server], r = apr / 12 [fraction per month], n the term
        [months] and P = B r / (1 - (1 + r)^-n) the level payment (numpy-financial ``pmt``):
        interest_k = b_{k-1} r, b_k = b_{k-1} + interest_k - P, b_0 = B, payment_k = P for
        k = 1..min(n, months); payoff = b_months when n > months, added to the last payment
        (:func:`models.finance.loan_schedule` of one unit, scaled by B).
        """
        pay, interest, payoff = loan_schedule(1.0, self.apr, self.term, months)
        return (np.outer(pay, self.principal), np.outer(interest, self.principal),
                payoff * self.principal)


def server_terms(book: PriceBook, c: ServerCohort) -> ServerTerms:
    """A server cohort's price, install cost, basis, down payment and loan, per server.

    Parameters
    ----------
    book : PriceBook
        The price book of the cohort's type (``book.for_type(c.type)``).
    c : ServerCohort
        The cohort: its own price and install cost (a held server's), or None for the book's
        price at the purchase month and the scenario's install cost.

    Returns
    -------
    ServerTerms
        Per server [currency per server, (n,)]; its count is not applied.

    Notes
    -----
    .. math:: B = P + I, \\qquad D = B \\, d, \\qquad L = B \\, (1 - d),
              \\qquad A = L \\, \\frac{r}{1 - (1 + r)^{-n}}

    with P the price (the book's at the purchase month,
    :meth:`models.prices.PriceBook.server_price`, unless the cohort carries its own), I the
    install cost, B the basis, d the down-payment fraction [fraction], D the down payment, L the
    principal, r = apr / 12 [fraction per month], n the term [months] and A the level payment
    (:func:`models.finance.level_payment`) [currency per server]. Paid in cash: D = B, L = 0,
    A = 0. A cohort bought before the plan (``bought < 0``) keeps its principal as a parameter
    but pays nothing in the plan: A = 0.
    """
    o = book.scenario.owned
    f = o.financing
    price = np.full(book.n, c.price) if c.price is not None else book.server_price(c.bought)
    install = o.install_cost_per_server if c.install is None else c.install
    basis = price + install
    loan = f.kind == "loan"
    principal = basis * (1.0 - f.down_payment_fraction) if loan else np.zeros_like(basis)
    down = basis * f.down_payment_fraction if loan else basis
    per_unit = level_payment(1.0, f.apr, f.term_months) if loan and c.bought >= 0 else 0.0
    return ServerTerms(price=price, install=install, basis=basis, down=down,
                       principal=principal, payment=per_unit * principal,
                       # paid in cash there is no loan: its rows are zeros of a zero principal
                       apr=f.apr if loan else 0.0, term=f.term_months if loan else 1)
