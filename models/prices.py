"""Prices of a plan month by month, with a draws axis (the price book of the cost kernel).

Everything the cost rules (models/costs.py) need that does not depend on the capacity chosen:
unit prices per month, discount factors, the price of a server bought in a given month, the
committed rate of an offer signed in a given month, resale fractions. Arrays have shape
``(months, n)``: ``n = 1`` for the plan itself, ``n`` draws for the Monte Carlo, which overrides
some assumptions with one value per draw (``values``, keyed as models/assumptions.py). So the
plan, the tornado and the Monte Carlo price capacity with the same rules.

The calendar runs past the horizon by ``tail`` months: payments that a plan still owes after its
last month (commitments under the ``liquidate`` horizon rule, tax paid with a lag) are counted in
their own month and discounted.
"""
from __future__ import annotations

import copy
from typing import Mapping, Optional

import numpy as np

from models.assumption_values import base_value, offer_discount
from models.assumptions import TYPE_SEP
from models.billing import billing_factor, spot_billing_factor
from models.finance import resale_fraction
from models.fleet import fleet_types, type_scenario
from models.profile import PlanCalendar, plan_calendar
from models.scenario import Scenario
from models.scenario_cloud import CommitmentOffer

UPFRONT_SHARE = {"none": 0.0, "partial": 0.5, "all": 1.0}
PRICED = ("on_demand_price", "on_demand_trend", "hardware_trend", "server_price",
          "electricity_price", "pue", "discount_rate", "resale_value", "spot_discount",
          "spot_interruptions", "commitment_discount", "fx_rate")
MARKETS = ("owned", "cloud")


def tail_months(s: Scenario, first_month: str | None = None) -> int:
    """Months after the horizon in which a plan can still owe payments.

    Parameters
    ----------
    s : Scenario
        Scenario (horizon rule, offer terms, position, tax lag).
    first_month : str, optional
        The plan's first month, ``'YYYY-MM'``; needed to place the signed contracts of the
        position, which are left out when None.

    Returns
    -------
    int
        Tail length [months]: under ``liquidate``, a term signed in the last month and a signed
        contract of the position; always the tax payment lag.

    Notes
    -----
    tail = L + (under ``liquidate``: max(0, max_o T_o - 1, max_c (start_c - first + T_c) - H),
    else 0), L the tax payment lag, T the terms of offers o and held contracts c, H the horizon
    [months].
    """
    tail = 0
    if s.finance.horizon_end == "liquidate":
        if s.commitments:
            tail = max(o.term_months for o in s.commitments) - 1
        if first_month is not None:
            start = np.datetime64(first_month, "M")
            for c in s.position.commitments:
                end = int((np.datetime64(c.start, "M") - start).astype(int)) + c.term_months
                tail = max(tail, end - s.finance.horizon_months)
    return tail + s.finance.tax_payment_lag_months


class PriceBook:
    """Month-by-month prices of one scenario, for ``n`` draws of its assumptions.

    Attributes are arrays over months ``(months, n)`` or over draws ``(n,)``; ``months`` counts
    the horizon and the tail. Prices exclude VAT (cloud prices entered with VAT are divided).

    Money is in the reporting currency, except what is fixed in a market's own currency at
    purchase or signing (a server's price, a commitment's rate, the data and support amounts):
    those stay in the market's currency here and the cost rules convert each payment at the
    rate of its month (:meth:`convert`, :meth:`fx_at`). A market whose currency is the
    reporting one is never multiplied, so a single-currency plan is priced exactly as before.
    """

    def __init__(self, s: Scenario, calendar: PlanCalendar,
                 values: Optional[Mapping[str, np.ndarray]] = None):
        values = dict(values or {})
        self.scenario, self.calendar = s, calendar
        self.horizon = len(calendar.hours)
        self.tail = tail_months(s, calendar.months[0])
        long = plan_calendar(calendar.months[0], self.horizon + self.tail)
        self.hours = long.hours                      # (T,)
        self.labels = long.months
        n = max([len(np.atleast_1d(v)) for v in values.values()] + [1])
        self.n = n

        def v(key: str) -> np.ndarray:
            if key in values:
                return np.broadcast_to(np.asarray(values[key], float), (n,))
            return np.full(n, float(base_value(s, key)))

        self.values = {key: v(key) for key in PRICED}
        # a fleet's draws of one type's own price or throughput (models/assumptions.py
        # PER_TYPE), applied by the type's book (:meth:`for_type`)
        self.type_values = {key: np.broadcast_to(np.asarray(value, float), (n,))
                            for key, value in values.items() if TYPE_SEP in key}
        # work of one busy GPU-hour of this book's servers [GPU-hours of the reference type]
        self.throughput: float | np.ndarray = s.owned.relative_throughput
        months = self.horizon + self.tail
        step = np.arange(months, dtype=float)[:, None]          # m - 1 for month m
        rm = np.expm1(np.log1p(self.values["discount_rate"]) / 12.0)
        self.end = np.exp(-(step + 1) * np.log1p(rm)[None, :])  # 1/(1+r_m)^m
        self.start = np.exp(-step * np.log1p(rm)[None, :])      # 1/(1+r_m)^(m-1)
        terms = s.cloud_terms
        self.vat = 1.0 + terms.vat_rate if terms.prices_include_vat else 1.0
        od = s.on_demand
        # reporting units per market unit in each month [(months, n)]; None: not converted
        fx_path = np.exp(step / 12.0 * np.log1p(s.fx.trend_annual))
        self.fx = {m: self.values["fx_rate"][None, :] * fx_path if s.converts(m) else None
                   for m in MARKETS}
        # signed contracts (Scenario.commitment_market): in the reporting currency, or in the
        # foreign one while cloud prices are not
        self.fx["reporting"] = None
        self.fx["foreign"] = (self.values["fx_rate"][None, :] * fx_path
                              if s.foreign_currency() else None)
        self.cloud_trend = np.exp(step / 12.0 * np.log1p(self.values["on_demand_trend"]))
        od_billing = billing_factor(od.billing_increment_seconds, od.billing_minimum_seconds,
                                    od.mean_session_hours)
        spot_billing = self._spot_billing()
        odp = self.values["on_demand_price"]
        spot_base = (np.full(n, s.spot.price_per_gpu_hour) if s.spot.price_per_gpu_hour is not None
                     else odp * (1.0 - self.values["spot_discount"]))
        self.on_demand = self.convert(
            "cloud", (odp * od_billing / self.vat)[None, :] * self.cloud_trend)
        self.spot = self.convert("cloud", (spot_base * spot_billing / self.vat)[None, :]
                                 * self.cloud_trend)
        self.spot_base = spot_base / self.vat        # per GPU-hour, month 1, no billing factor
        self.od_billing, self.spot_billing = od_billing, spot_billing
        f = s.finance
        o = s.owned
        self.power = self.convert("owned", self.values["electricity_price"][None, :]
                                  * np.exp(step * np.log1p(f.power_price_inflation_annual) / 12.0))
        self.staff_factor = np.exp(step[:, 0] * np.log1p(f.staff_cost_inflation_annual) / 12.0)
        pue = self.values["pue"][None, :]
        # energy of one busy owned GPU-hour above idle [currency per own GPU-hour]
        self.energy_busy = (o.power_kw_max - o.power_kw_idle) / o.gpus_per_server * pue * self.power
        # per online server-month
        self.energy_idle = o.power_kw_idle * pue * self.hours[:, None] * self.power
        # per online server-month [(months, 1) or (months, n)]
        self.space = self.convert("owned", np.full((months, 1),
                                                   o.power_kw_max * o.space_price_per_kw_month))
        self.staff = self.convert("owned", (o.fte_cost_annual / 12.0 / o.servers_per_fte
                                            * self.staff_factor)[:, None])
        cd = s.cloud_data
        # data charges per month [market currency], split between cloud and owned by
        # costs.data_share and converted there
        self.cloud_storage = cd.storage_tb * 1000 * cd.storage_price_per_gb_month / self.vat
        self.cloud_egress = cd.egress_tb_per_month * 1000 * cd.egress_price_per_gb / self.vat
        self.owned_storage = cd.storage_tb * o.storage_price_per_tb_month
        self.owned_network = cd.egress_tb_per_month * o.network_price_per_tb
        self.setup_fee = terms.setup_fee / self.vat                    # [cloud currency]
        self.support_minimum = terms.support_minimum_per_month / self.vat  # [cloud currency]
        self.offers = {offer.id: offer for offer in s.commitments}
        self.cache: dict = {}   # cohort schedules, shared by every strategy of this book
        self.type_books: dict = {}      # server types' books (issue 26), built on first use
        self.resale_drop_month: Optional[int] = None   # the successor's arrival [month index]
        self.resale_drop = 0.0                          # resale value lost from then [fraction]

    def for_type(self, type_id: Optional[str]) -> "PriceBook":
        """The price book of one server type: the type's ``owned`` prices, the same calendar,
        discount factors and draws (a draw of an assumption the type sets itself is not
        applied to it).

        Parameters
        ----------
        type_id : str or None
            Server type id; None: the book itself (a scenario without server types).

        Returns
        -------
        PriceBook
            The type's book, built once; this book when the type changes nothing.

        Notes
        -----
        The type's book prices with the type's scenario (:func:`models.fleet.type_scenario`): drawn
        value v_key = the plan's draw where the type's base value equals the scenario's, else the
        type's own value (its own draw ``key@type`` where there is one); throughput = the type's
        ``relative_throughput`` (its draw where there is one) [-].
        """
        if type_id is None:
            return self
        book = self.type_books.get(type_id)
        if book is None:
            s = type_scenario(self.scenario, type_id)
            kind = next(k for k in fleet_types(self.scenario, self.labels[0]) if k.id == type_id)
            own = {key.partition(TYPE_SEP)[0]: v for key, v in self.type_values.items()
                   if key.partition(TYPE_SEP)[2] == type_id}
            if s is self.scenario and kind.successor_month is None and not own:
                book = self
            else:
                values = {key: v for key, v in self.values.items()
                          if base_value(s, key) == base_value(self.scenario, key)}
                values.update({k: v for k, v in own.items() if k in PRICED})
                book = PriceBook(s, self.calendar, values)
                book.throughput = own.get("relative_throughput", s.owned.relative_throughput)
                book.resale_drop_month, book.resale_drop = kind.successor_month, kind.drop
                book.type_books = self.type_books
            self.type_books[type_id] = book
        return book

    def _spot_billing(self) -> np.ndarray:
        """spot_billing_factor of each draw's interruption rate (few distinct rates: each
        computed once)."""
        rates, inverse = np.unique(self.values["spot_interruptions"], return_inverse=True)
        od = self.scenario.on_demand
        each = np.array([spot_billing_factor(od.billing_increment_seconds,
                                             od.billing_minimum_seconds, od.mean_session_hours,
                                             float(r)) for r in rates])
        return each[inverse.ravel()]

    # ---- exchange rates ---------------------------------------------------------------------
    def converts(self, market: str) -> bool:
        """Whether a market's payments are converted into the reporting currency.

        Parameters
        ----------
        market : str
            Market: ``"owned"`` or ``"cloud"``, or a signed contract's ``"reporting"`` or
            ``"foreign"`` (models.scenario.Scenario.commitment_market).

        Returns
        -------
        bool
            True when the market is priced in a currency other than the reporting one.

        Notes
        -----
        converts = (rate of the market is not None), i.e. the market's currency differs from the
        reporting one.
        """
        return self.fx[market] is not None

    def convert(self, market: str, line: np.ndarray, rows: int | None = None) -> np.ndarray:
        """A line in a market's currency, converted month by month into the reporting currency.

        Parameters
        ----------
        market : str
            Market whose currency ``line`` is in: ``"owned"`` or ``"cloud"``.
        line : numpy.ndarray
            Amounts by month [market currency, (months, k)] or a scalar amount per month.
        rows : int, optional
            Convert only with the first ``rows`` months' rates (the line has that many rows); all
            months when None [months].

        Returns
        -------
        numpy.ndarray
            The line at each month's rate [currency]; ``line`` itself, unchanged, when the market
            needs no rate.

        Notes
        -----
        converted_m = line_m x fx_m, fx_m the market's rate at month m [reporting currency per
        market currency unit]; the line unchanged when the market needs no rate.
        """
        fx = self.fx[market]
        if fx is None:
            return line
        return line * (fx if rows is None else fx[:rows])

    def fx_at(self, market: str, month: int | float) -> np.ndarray | float:
        """Exchange rate of a market at a month.

        Parameters
        ----------
        market : str
            Market, ``"owned"`` or ``"cloud"``.
        month : int or float
            Month index, 0-based; negative is before the plan (the purchase month of a server
            already owned) [months].

        Returns
        -------
        numpy.ndarray or float
            Rate at the plan's first month moved by the trend [reporting currency per market
            currency unit, (n,)]; 1.0 when the market is not converted.

        Notes
        -----
        fx(m) = fx_0 x (1 + g)^(m / 12), fx_0 the drawn rate at the plan's first month [reporting
        currency per market currency unit], g the annual FX trend [fraction per year], m the month
        [months]; 1.0 for an unconverted market.
        """
        if self.fx[market] is None:
            return 1.0
        return self.values["fx_rate"] * np.exp(month / 12.0 * np.log1p(
            self.scenario.fx.trend_annual))

    def fx_sum(self, market: str, months: np.ndarray, weights: np.ndarray) -> np.ndarray:
        """Sum of weights each converted at its month's rate, for payments after the priced months.

        Parameters
        ----------
        market : str
            Market of the payments, ``"owned"`` or ``"cloud"``.
        months : numpy.ndarray
            Month index of each weight, 0-based [months, (k,)].
        weights : numpy.ndarray
            Amounts [market currency, (k,)].

        Returns
        -------
        numpy.ndarray or float
            sum_m weights[m] x rate(months[m]) [currency, (n,)]; the plain sum when not converted.

        Notes
        -----
        S = fx_0 x sum_m w_m (1 + g)^(t_m / 12), w_m the weights [market currency], t_m their months
        [months], fx_0 and g as in :meth:`fx_at`; S = sum_m w_m for an unconverted market.
        """
        weights = np.asarray(weights, float)
        if self.fx[market] is None:
            return weights.sum()
        path = np.exp(np.asarray(months, float)[:, None] / 12.0
                      * np.log1p(self.scenario.fx.trend_annual))
        return self.values["fx_rate"] * (weights[:, None] * path).sum(axis=0)

    # ---- prices of things bought or signed in a given month -------------------------------
    def server_price(self, month: int) -> np.ndarray:
        """Purchase price of one server bought at the start of a month, before install.

        Parameters
        ----------
        month : int
            Month index of the purchase, 0-based; negative before the plan [months].

        Returns
        -------
        numpy.ndarray
            Price moved by the hardware trend [owned currency per server, (n,)].

        Notes
        -----
        P(m) = P_0 x (1 + g_hw)^(m / 12), P_0 the drawn server price [owned currency per server],
        g_hw the drawn hardware trend [fraction per year], m the purchase month [months].
        """
        return self.values["server_price"] * np.exp(
            month / 12.0 * np.log1p(self.values["hardware_trend"]))

    def resale_fraction(self, age_months: float) -> np.ndarray:
        """Resale value as a fraction of the purchase price at an age.

        Parameters
        ----------
        age_months : float
            Age of the server at sale [months].

        Returns
        -------
        numpy.ndarray
            Resale fraction [fraction of purchase price, (n,)].

        Notes
        -----
        f(a) = f_0(a) + k (f(a; v) - f_0(a)), with f(a; v) :func:`models.finance.resale_fraction` of
        the year-end fractions v, f_0(a) the same with every year-end at 0 (1 at age 0, falling
        linearly to 0 at 12 months), k the drawn resale multiplier [-], a the age [months].
        The year-end fractions are scaled by the drawn resale multiplier; age 0 stays 1.0.
        """
        by_year = self.scenario.owned.resale_fraction_by_year
        anchor = resale_fraction(age_months, tuple(0.0 for _ in by_year))
        scaled = resale_fraction(age_months, by_year) - anchor
        return anchor + scaled * self.values["resale_value"]

    def offer_base(self, offer: CommitmentOffer) -> np.ndarray:
        """Committed rate of an offer signed in the plan's first month, ex VAT.

        Parameters
        ----------
        offer : CommitmentOffer
            The offer: an absolute price, or a discount off the on-demand price.

        Returns
        -------
        numpy.ndarray
            Rate [cloud currency per GPU-hour, (n,)].

        Notes
        -----
        A fixed price: r_0 = p / v. A discount: r_0 = od x (1 - d) / v, with p the offer's price
        [cloud currency per GPU-hour, with VAT], od the drawn on-demand price [cloud currency per
        GPU-hour, with VAT], d the offer's discount shifted by the drawn commitment shift
        (:func:`models.assumptions.offer_discount`) [fraction], v the VAT divisor 1 + VAT rate [-].
        """
        if offer.price_per_gpu_hour is not None:
            return np.full(self.n, offer.price_per_gpu_hour / self.vat)
        discount = offer_discount(offer.discount, self.values["commitment_discount"])
        return self.values["on_demand_price"] * (1.0 - discount) / self.vat

    def offer_rate(self, offer: CommitmentOffer, month: int) -> np.ndarray:
        """Committed rate fixed at signing in a month; it follows the on-demand trend until then.

        Parameters
        ----------
        offer : CommitmentOffer
            The offer.
        month : int
            Month index of signing, 0-based [months].

        Returns
        -------
        numpy.ndarray
            Rate fixed at signing [cloud currency per GPU-hour, (n,)].

        Notes
        -----
        r(m) = r_0 x (1 + g_od)^(m / 12), r_0 from :meth:`offer_base` [cloud currency per GPU-hour],
        g_od the drawn on-demand trend [fraction per year], m the signing month [months].
        """
        return self.offer_base(offer) * np.exp(
            month / 12.0 * np.log1p(self.values["on_demand_trend"]))

    def uninterrupted(self) -> "PriceBook":
        """The same prices with spot sessions as long as the mean session (no interruption).

        Returns
        -------
        PriceBook
            A copy whose spot price carries the on-demand billing factor (sessions of
            ``on_demand.mean_session_hours``) instead of interruption-shortened sessions; the
            book itself when the two factors agree. It shares the cohort cache.

        Notes
        -----
        spot' = spot x b_od / b_spot, b the billing factors of :func:`billing_factor` (on demand:
        mean sessions; spot: interruption-shortened sessions) [-].
        A plan's normal cost prices its capacity as if nothing failed or was interrupted
        (design 9.2): no overhead GPU-hours, and no rounding of sessions cut short.
        """
        if np.all(self.spot_billing == self.od_billing):
            return self
        new = copy.copy(self)   # every price shared but spot's
        new.spot = self.spot * (self.od_billing / self.spot_billing)[None, :]
        new.spot_billing = np.full_like(self.spot_billing, self.od_billing)
        return new

    @property
    def months(self) -> int:
        """Months priced: the horizon and the tail after it [months].

        Notes
        -----
        M = horizon + tail [months].
        """
        return self.horizon + self.tail

    def spot_rate_is_finite(self) -> bool:
        """Whether every draw's spot price is finite.

        Returns
        -------
        bool
            False when some draw's spot price per GPU-hour is infinite or NaN.

        Notes
        -----
        finite = (every entry of spot[m, i] is finite), spot the spot price per GPU-hour by month m
        and draw i.
        """
        return bool(np.all(np.isfinite(self.spot)))


