"""The cost kernel: every cost rule of a plan, written once (design 3, 4.2, 9.2).

:func:`cost_lines` prices a set of capacity cohorts (models/capacity.py) and its monthly volumes
(models/dispatch.py) with a price book (models/prices.py): one array per cost line, shape
``(months, n)`` by *payment* month, over the horizon and its tail. ``n`` is 1 for a plan, the
number of draws for the Monte Carlo, or the number of unit inputs when the optimizer reads its
coefficients off these same rules. :func:`present_value` discounts the lines. Costs are positive;
resale and the tax shield are credit lines of their own.

The cohorts' own schedules (a server's purchase, loan, maintenance, resale and depreciation; a
commitment's payments) are models/cohort_costs.py, on models/server_terms.py. Rules, each in one
sentence (the README repeats them):

- Owned servers: the purchase (price + install) is paid at the start of the month bought, or its
  down payment with a loan whose ``pmt`` falls at each month end; energy, space, maintenance and
  staff are paid in each month a server takes work; a server is sold at the end of its useful
  life or of the horizon at its resale value, and a loan still running is paid off then.
- Commitments: the rate is fixed at signing; committed GPU-hours are paid whether used or not;
  upfront payments fall at the start of the term; under ``liquidate`` every payment of a term is
  counted in its month, under ``prorate`` payments after the horizon are left out and an upfront
  payment counts in proportion to its months inside the horizon.
- Data: stored terabytes and egress are charged every month for every strategy, split between
  cloud and owned prices in proportion to the month's gross GPU-hours run on owned servers
  (a month with no work: owned prices if servers are online, else cloud prices).
- Cloud terms: a setup fee at the start of month 1 for a strategy that uses cloud GPUs; support
  costs a fraction of each month's cloud spend, at least the minimum in a month with any.
- Tax: a month's deductible costs, loan interest, depreciation (from the month a server enters
  service) and losses on sale shield tax, a gain on sale is taxed; prepaid commitments are
  deducted evenly over their term; tax effects are paid ``tax_payment_lag_months`` later.
"""
from __future__ import annotations

from typing import Mapping

import numpy as np

from models.capacity import CapacityPlan
from models.cohort_costs import cohort_items
from models.dispatch import Volumes
from models.lines import COST_LINES, CREDIT_LINES, LINES, START_OF_MONTH_LINES  # noqa: F401
from models.prices import PriceBook

CLOUD_SPEND_LINES = ("commitment_upfront", "commitment", "spot", "on_demand", "storage", "egress")
# costs deducted in the month they are paid (prepaid commitments are deducted over the term)
DEDUCTIBLE_LINES = ("energy", "space", "maintenance", "staff", "owned_storage",
                    "owned_network", "commitment", "spot", "on_demand", "storage", "egress",
                    "cloud_setup", "cloud_support")
def data_share(plan: CapacityPlan, v: Volumes, horizon: int, linear: bool) -> np.ndarray:
    """Share of a month's data charges at owned prices.

    Parameters
    ----------
    plan : CapacityPlan
        The strategy's cohorts (which months have servers online).
    v : Volumes
        Its monthly volumes [GPU-hours].
    horizon : int
        Months of the horizon [months].
    linear : bool
        Leave a month with no work in the cloud (share 0) instead of following whether any
        server is online; the optimizer adds that difference apart.

    Returns
    -------
    numpy.ndarray
        The month's gross GPU-hours on owned servers over all its gross GPU-hours; a month with
        no work keeps its data by the servers if any are online, else in the cloud [fraction,
        (horizon, n)].

    Notes
    -----
    s_m = owned_m / gross_m when gross_m > 0 [fraction]; a month without work: s_m = 1 when
    servers are online, else 0 (s_m = 0 in the linear form).
    """
    gross = np.asarray(v.gross, float)
    owned = np.asarray(v.owned, float)
    worked = gross > 0
    share = np.divide(owned, gross, out=np.zeros(np.broadcast_shapes(owned.shape, gross.shape)),
                      where=worked)
    if linear:
        return share
    online = (plan.servers_online(horizon) > 0).astype(float)
    return np.where(worked, share, online[:, None] if share.ndim == 2 else online)


class Lines(dict):
    """Cost lines by name, each ``(months, width)``; a line a strategy does not have is
    absent (read as zero), which keeps many-draw pricing cheap. :meth:`full` fills them in."""

    def __init__(self, months: int, width: int):
        super().__init__()
        self.shape = (months, width)

    def add(self, name: str, value, rows: int | None = None) -> None:
        """Add an amount to a line, creating it at zero when absent.

        Parameters
        ----------
        name : str
            Line name, one of ``LINES``.
        value : numpy.ndarray or float
            Amount by month, broadcast to the line [currency].
        rows : int, optional
            Add to the first ``rows`` months only; all when None [months].

        Notes
        -----
        line[:rows] = line[:rows] + value (a line absent so far starts at zero) [currency].
        """
        line = self.get(name)
        if line is None:
            line = self[name] = np.zeros(self.shape)
            if rows is None:
                line[...] = value
            else:
                line[:rows] = value
        elif rows is None:
            line += value
        else:
            line[:rows] += value

    def zero(self) -> np.ndarray:
        """A line of zeros of the lines' shape.

        Returns
        -------
        numpy.ndarray
            Zeros [currency, (months, width)].
        """
        return np.zeros(self.shape)

    def total(self, names) -> np.ndarray:
        """Sum of some lines, absent ones read as zero.

        Parameters
        ----------
        names : iterable of str
            Line names.

        Returns
        -------
        numpy.ndarray
            Their sum by month, a new array [currency, (months, width)].

        Notes
        -----
        T_m = sum over the named lines present of line_m [currency]; zeros when none is present.
        """
        present = [self[n] for n in names if n in self]
        return sum(present[1:], present[0].copy()) if present else self.zero()

    def full(self) -> dict[str, np.ndarray]:
        """Every line of ``LINES``, absent ones filled with zeros.

        Returns
        -------
        dict of str to numpy.ndarray
            Line name to amounts [currency, (months, width)].
        """
        return {name: self[name] if name in self else self.zero() for name in LINES}


def cost_lines(book: PriceBook, plan: CapacityPlan, v: Volumes, *, linear: bool = False,
               setup: bool | None = None, support_minimum: bool | None = None,
               idle_month_data: bool | None = None) -> Lines:
    """Every cost line of a strategy by payment month.

    Parameters
    ----------
    book : PriceBook
        Prices of the plan, with ``n`` draws.
    plan : CapacityPlan
        Cohorts of the strategy.
    v : Volumes
        Its monthly volumes by source over the horizon [GPU-hours, (horizon,) or (horizon, n)].
    linear : bool, default False
        Leave out the three terms that are not linear in the cohorts and volumes: the setup fee
        (paid only by a strategy that rents cloud GPUs), the support minimum, and data charges of
        months with no work at owned prices (they follow whether any server is online).
    setup : bool, optional
        Include the setup fee; None follows ``linear``.
    support_minimum : bool, optional
        Include the support minimum; None follows ``linear``.
    idle_month_data : bool, optional
        Price the data of months with no work by whether servers are online; None follows
        ``linear``.

    Returns
    -------
    Lines
        Cost lines (``COST_LINES``, positive: money out) and credit lines (``CREDIT_LINES``,
        positive: money in) by payment month over the horizon and its tail [currency,
        (months, width)], ``width`` the wider of ``n`` and the volumes'. A line the strategy
        does not have is absent.

    Notes
    -----
    With n_i(m) servers of type i online, owned_i(m), spot(m) and on_demand(m) the volumes
    [GPU-hours of demand units], t_i the type's and theta_c the cloud's relative throughput [-]:
    space, staff, idle energy = sum_i n_i(m) x (the type's price per server-month); busy energy =
    sum_i E_i(m) x owned_i(m) / t_i, E_i the type's energy price of a busy GPU-hour; spot =
    p_spot(m) x spot(m) / theta_c; on_demand = p_od(m) x on_demand(m) / theta_c [currency]; data
    charges = amount x (1 - s) in the cloud and amount x s owned, s the :func:`data_share`
    [fraction]; cloud_support = max(f x cloud spend, minimum) in a month with spend (f x spend
    without the minimum; f the support fraction); cloud_setup = the fee in month 1 when the plan
    uses the cloud; tax_shield_{m+L} = t x (deductible lines + tax items)_m and
    tax_on_resale_{m+L} = t x gains_m, t the tax rate [fraction], L the payment lag [months]; the
    cohorts' own lines from :func:`cohort_items` [currency].
    The optimizer reads its coefficients off the linear lines and adds the three terms exactly.
    """
    setup = not linear if setup is None else setup
    support_minimum = not linear if support_minimum is None else support_minimum
    idle_month_data = not linear if idle_month_data is None else idle_month_data
    s, T, H = book.scenario, book.months, book.horizon
    theta_c = s.on_demand.relative_throughput
    width = max(book.n, *(np.shape(x)[1] if np.ndim(x) == 2 else 1
                          for x in (v.owned, v.spot, v.on_demand, v.gross)))
    lines = Lines(T, width)
    items = cohort_items(book, plan)
    online_by_type = items.pop("online_by_type")
    tax_items, gains = items.pop("tax_items", None), items.pop("gains", None)
    items.pop("prepaid", None)
    for name, value in items.items():
        lines.add(name, value)
    for type_id, on in online_by_type.items():
        if on.any():
            b = book.for_type(type_id)
            lines.add("space", on[:, None] * b.space)
            lines.add("staff", on[:, None] * b.staff)
            lines.add("energy", on[:, None] * b.energy_idle)
    by_type = v.owned_by_type if v.owned_by_type is not None else {None: v.owned}
    for type_id, work in by_type.items():
        owned = _by_month(work)
        if owned.any():
            b = book.for_type(type_id)
            lines.add("energy", b.energy_busy[:H] * owned / b.throughput, H)
    for name, volume, price in (("spot", v.spot, book.spot), ("on_demand", v.on_demand,
                                                               book.on_demand)):
        volume = _by_month(volume)
        if volume.any():
            lines.add(name, price[:H] * volume / theta_c, H)
    if book.cloud_storage or book.cloud_egress or book.owned_storage or book.owned_network:
        share = _by_month(data_share(plan, v, H, not idle_month_data))
        for name, amount, part, market in (
                ("storage", book.cloud_storage, 1.0 - share, "cloud"),
                ("egress", book.cloud_egress, 1.0 - share, "cloud"),
                ("owned_storage", book.owned_storage, share, "owned"),
                ("owned_network", book.owned_network, share, "owned")):
            if amount:
                lines.add(name, book.convert(market, amount * part, H), H)
    terms = s.cloud_terms
    if setup and book.setup_fee:
        setup_row = np.zeros((T, 1))
        setup_row[0] = 1.0
        fee = book.setup_fee * book.fx_at("cloud", 0)
        lines.add("cloud_setup", setup_row * np.where(uses_cloud(plan, v), fee, 0.0))
    if terms.support_fraction or (support_minimum and book.support_minimum):
        spend = lines.total(CLOUD_SPEND_LINES)
        support = terms.support_fraction * spend
        if support_minimum and book.support_minimum:
            floor = book.convert("cloud", np.full((T, 1), book.support_minimum))
            support = np.where(spend > 0, np.maximum(support, floor), 0.0)
        lines["cloud_support"] = support
    t = s.finance.tax_rate
    if t > 0:
        deductible = lines.total(DEDUCTIBLE_LINES)
        if tax_items is not None:
            deductible = deductible + tax_items
        lag = s.finance.tax_payment_lag_months
        shield = lines.zero()
        shield[lag:] = t * deductible[:T - lag]
        lines["tax_shield"] = shield
        if gains is not None and gains.any():
            taxed = lines.zero()
            taxed[lag:] = t * gains[:T - lag]
            lines["tax_on_resale"] = taxed
    return lines


def deductible_by_month(book: PriceBook, plan: CapacityPlan, lines: Mapping[str, np.ndarray]
                        ) -> np.ndarray:
    """What each month deducts from taxable profit, before the payment lag.

    Parameters
    ----------
    book : PriceBook
        Price book of the priced plan.
    plan : CapacityPlan
        Cohorts of the priced plan.
    lines : Mapping of str to numpy.ndarray
        The priced plan's cost lines, one value a month (1-D) [currency, (months,)].

    Returns
    -------
    numpy.ndarray
        Deductible costs plus the cohorts' tax items [currency, (months,)].

    Notes
    -----
    D_m = sum over ``DEDUCTIBLE_LINES`` of line_m + tax_items_m (interest, depreciation, losses on
    sale, prepaid commitments deducted over the term, :func:`cohort_items`) [currency].
    """
    rows = len(lines["energy"])
    items = cohort_items(book, plan).get("tax_items")
    extra = items[:rows, 0] if items is not None else 0.0
    return sum(lines[name] for name in DEDUCTIBLE_LINES) + extra


def _by_month(x) -> np.ndarray:
    """A volume or share by month as a (months, k) array."""
    x = np.asarray(x, float)
    return x[:, None] if x.ndim == 1 else x


def uses_cloud(plan: CapacityPlan, v: Volumes) -> np.ndarray:
    """Whether a strategy rents cloud GPUs at all (commitments, spot or on demand).

    Parameters
    ----------
    plan : CapacityPlan
        Cohorts (any committed GPU counts).
    v : Volumes
        Its monthly volumes [GPU-hours].

    Returns
    -------
    numpy.ndarray
        One flag per draw [bool, (n,)].

    Notes
    -----
    uses = (any commitment with gpus > 0) or (sum_m spot_m > 0) or (sum_m on_demand_m > 1e-9), per
    draw.
    """
    committed = any(c.gpus > 0 for c in plan.commitments)
    spot = _by_month(v.spot).sum(axis=0)
    on_demand = _by_month(v.on_demand).sum(axis=0)
    return committed | (spot > 0) | (on_demand > 1e-9)


def present_value(book: PriceBook, lines: Mapping[str, np.ndarray]) -> np.ndarray:
    """PV of cost lines net of credits.

    Parameters
    ----------
    book : PriceBook
        Prices of the plan (its discount factors).
    lines : Mapping of str to numpy.ndarray
        Lines by name [currency, (months, n)]; absent lines are zero.

    Returns
    -------
    numpy.ndarray
        PV cost, positive for a net cost [currency, (n,)].

    Notes
    -----
    PV = sum_l s_l sum_m l_m F_l(m), m = 1..months, with F_l(m) = (1 + r_m)^-(m-1) for the
    start-of-month lines (``START_OF_MONTH_LINES``) and (1 + r_m)^-m for the others (design 3),
    s_l = -1 for a credit line and +1 for a cost line, r_m the monthly discount rate [fraction per
    month] [currency].
    """
    pv = 0.0
    for name, line in lines.items():
        factors = book.start if name in START_OF_MONTH_LINES else book.end
        weighted = np.einsum("mn,mn->n", line, np.broadcast_to(factors, line.shape)) \
            if factors.shape[1] == line.shape[1] else (line * factors).sum(axis=0)
        pv = pv - weighted if name in CREDIT_LINES else pv + weighted
    return np.asarray(pv) * np.ones(1)


def discounted_by_month(book: PriceBook, lines: Mapping[str, np.ndarray]) -> np.ndarray:
    """Each month's net cost, discounted.

    Parameters
    ----------
    book : PriceBook
        Price book (start- and end-of-month discount factors).
    lines : Mapping of str to numpy.ndarray
        Every line of ``LINES`` [currency, (months, n)].

    Returns
    -------
    numpy.ndarray
        Costs minus credits of each month, discounted to the plan's start [currency,
        (months, n)].

    Notes
    -----
    d_m = S_m (1 + r_m)^-(m-1) + (E_m - C_m) (1 + r_m)^-m, S the start-of-month lines, E the other
    cost lines, C the credit lines [currency], r_m the monthly discount rate [fraction per month].
    """
    start = sum(lines[name] for name in START_OF_MONTH_LINES)
    end = sum(lines[name] for name in COST_LINES if name not in START_OF_MONTH_LINES)
    end = end - sum(lines[name] for name in CREDIT_LINES)
    return start * book.start + end * book.end


def net_by_month(lines: Mapping[str, np.ndarray]) -> np.ndarray:
    """Each month's costs minus credits, nominal.

    Parameters
    ----------
    lines : Mapping of str to numpy.ndarray
        Every line of ``LINES`` [currency, (months,) or (months, n)].

    Returns
    -------
    numpy.ndarray
        Net cost by month, positive for a net payment [currency].

    Notes
    -----
    net_m = sum_{cost lines} line_m - sum_{credit lines} line_m [currency].
    """
    return sum(lines[name] for name in COST_LINES) - sum(lines[name] for name in CREDIT_LINES)
