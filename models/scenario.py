"""Scenario: every cost assumption of a plan, as frozen pydantic v2 sections (design 4.2, 9.2).

Each field carries its unit, bounds and the source of its default (design section 8).
``Scenario.model_validate({})`` is the default 8x H100 versus AWS p5 scenario. The sections
live in modules by what they hold (models.scenario_settings, scenario_owned, scenario_cloud,
scenario_position, scenario_schedule, on the vocabulary of models.scenario_types); this module
holds the scenario that gathers them in their order, the rules across sections, and the
scenario as a document, from JSON and in error lines.
"""
from __future__ import annotations

from typing import Optional

from pydantic import Field, model_validator

from models.fields import field
from models.json_numbers import whole_numbers
from models.ranges import Uncertainty
from models.scenario_cloud import (DEFAULT_OFFERS, CloudData, CloudTerms, CommitmentOffer,
                                   OnDemand, Spot)
from models.scenario_owned import Owned, ServerType, type_owned
from models.scenario_position import Position, PositionCommitment
from models.scenario_schedule import Proposed, Staging
from models.scenario_settings import FX, Finance, ProfileOptions
from models.scenario_types import Section

# the one type of a scenario written without server types: its owned servers section
OWNED_TYPE = "owned"


class Scenario(Section):
    """Every assumption of a plan; ``{}`` is the default scenario.

    Checked across fields, beyond each section's own rules (a 422 names the rule): the ids of
    ``commitments`` are unique; ``proposed.committed_gpus`` and each ``proposed.schedule[].commit``
    name offers of ``commitments`` with a multiple of the offer's ``block_gpus``; at most one
    currency other than ``finance.currency`` among ``owned.currency`` and
    ``cloud_terms.currency``, and when there is one ``fx.rate`` is required; the ids of
    ``server_types`` are unique, each type's ``owned`` (``owned`` with its overrides) keeps
    the rules of ``owned``, a ``successor`` and every type a position row, a proposal or a
    decision names (``type``, ``servers_by_type``, ``buy``, ``sell``, ``type:`` keys of
    ``sell_from``) names one of ``server_types`` (``owned`` without them: a fleet of
    one, :meth:`as_fleet`), and a type's ``available_until`` is not
    before its ``available_from``. The engine also
    refuses a plan whose demand, grown by ``profile.growth_annual``, needs more than
    10,000,000 GPUs in an hour.
    """

    name: str = field("Built-in defaults: 8x H100 vs AWS p5 on demand", "Scenario name",
                      "text", max_length=200)
    finance: Finance = Field(default_factory=Finance)
    owned: Owned = Field(default_factory=Owned)
    on_demand: OnDemand = Field(default_factory=OnDemand)
    commitments: tuple[CommitmentOffer, ...] = Field(default=DEFAULT_OFFERS, max_length=8,
                                                  title="Commitment offers")
    spot: Spot = Field(default_factory=Spot)
    cloud_data: CloudData = Field(default_factory=CloudData)
    cloud_terms: CloudTerms = Field(default_factory=CloudTerms)
    fx: FX = Field(default_factory=FX)
    profile: ProfileOptions = Field(default_factory=ProfileOptions)
    position: Position = Field(default_factory=Position)
    staging: Staging = Field(default_factory=Staging)
    proposed: Proposed = Field(default_factory=Proposed)
    uncertainty: Uncertainty = Field(default_factory=Uncertainty)
    server_types: tuple[ServerType, ...] = Field(
        default=(), max_length=8, title="Server types",
        description="Generations of servers a fleet may hold, each naming what differs from "
                    "the owned servers section; empty: one type, the owned servers.")

    @model_validator(mode="after")
    def _server_types_consistent(self) -> "Scenario":
        ids = [t.id for t in self.server_types]
        if len(set(ids)) != len(ids):
            raise ValueError(f"server_types: ids must be unique, got {ids}")
        for t in self.server_types:
            owned = type_owned(self.owned, t)      # raises on idle > max or rising resale
            if owned.currency and owned.currency != self.finance.currency and (
                    owned.currency != (self.foreign_currency() or owned.currency)
                    or self.fx.rate is None):
                raise ValueError(f"server_types[{t.id}].currency {owned.currency}: one foreign "
                                 "currency, with fx.rate, for the whole plan")
            if t.successor is not None and t.successor not in ids:
                raise ValueError(f"server_types[{t.id}].successor names unknown type "
                                 f"{t.successor!r}; types are {ids}")
            if t.available_from and t.available_until and t.available_until < t.available_from:
                raise ValueError(f"server_types[{t.id}]: available_until {t.available_until} "
                                 f"is before available_from {t.available_from}")
        named = [(f"position.servers[{i}].type", p.type) for i, p in
                 enumerate(self.position.servers)]
        named += [("proposed.servers_by_type", k) for k in self.proposed.servers_by_type]
        for d in self.proposed.schedule:
            named += [(f"proposed.schedule[{d.month}].buy", k) for k in d.buy]
            named += [(f"proposed.schedule[{d.month}].sell", k) for k in d.sell]
            named += [(f"proposed.schedule[{d.month}].sell_from", k.split(":")[0])
                      for k in d.sell_from if ":" in k]
        known = ids or [OWNED_TYPE]     # without server types: a fleet of one, `owned`
        for where, type_id in named:
            if type_id is not None and type_id not in known:
                raise ValueError(f"{where} names unknown server type {type_id!r}; "
                                 f"server_types are {ids}")
        p = self.proposed
        if p.hold_only and (p.servers is not None or p.servers_by_type or p.committed_gpus
                            or p.schedule):
            raise ValueError("proposed.hold_only: keeping only what is held proposes no "
                             "servers, commitments or schedule; clear them or untick it")
        if self.proposed.servers_by_type and (self.proposed.servers is not None
                                              or self.proposed.schedule):
            raise ValueError("proposed: give servers or servers_by_type, not both (and no "
                             "schedule with them)")
        for d in self.proposed.schedule:
            if (d.buy or d.sell) and (d.buy_servers or d.sell_servers):
                raise ValueError(f"proposed.schedule[{d.month}]: give buy/sell by type or "
                                 "buy_servers/sell_servers, not both")
        return self

    @model_validator(mode="after")
    def _one_exchange_rate(self) -> "Scenario":
        reporting = self.finance.currency
        foreign = sorted({c for c in (self.owned.currency, self.cloud_terms.currency)
                          if c and c != reporting})
        if len(foreign) > 1:
            raise ValueError(f"owned.currency ({self.owned.currency}) and cloud_terms.currency "
                             f"({self.cloud_terms.currency}) both differ from the reporting "
                             f"currency ({reporting}); one exchange rate converts one foreign "
                             "currency")
        for c in self.position.commitments:
            if c.currency and c.currency != reporting and foreign and c.currency != foreign[0]:
                raise ValueError(f"position.commitments: contract {c.id} is in {c.currency}, "
                                 f"prices are in {reporting} and {foreign[0]}; one exchange "
                                 "rate converts one foreign currency")
            if c.currency and c.currency != reporting and not foreign:
                foreign = [c.currency]
        if foreign and self.fx.rate is None:
            raise ValueError(f"fx.rate is required: prices in {foreign[0]} are converted into "
                             f"the reporting currency {reporting} (units of {reporting} per "
                             f"{foreign[0]})")
        return self

    def market_currency(self, market: str) -> str:
        """The currency a market's prices are entered in.

        Parameters
        ----------
        market : str
            ``"owned"``, ``"cloud"`` or ``"reporting"``.

        Returns
        -------
        str
            ISO 4217 code; the reporting currency when the market names none.
        """
        own = {"owned": self.owned.currency, "cloud": self.cloud_terms.currency}.get(market)
        return own or self.finance.currency

    def converts(self, market: str) -> bool:
        """Whether a market's prices are converted at the exchange rate.

        Parameters
        ----------
        market : str
            Market, ``"owned"`` or ``"cloud"``.

        Returns
        -------
        bool
            True when the market's currency is not the reporting one.
        """
        return self.market_currency(market) != self.finance.currency

    def as_fleet(self) -> "Scenario":
        """The scenario as the engine plans it: a fleet of server types (issue 36, item 1).

        A scenario written without ``server_types`` (every file before issue 26, and every
        single-generation plan since) is a fleet whose one type is the owned servers section,
        named :data:`OWNED_TYPE`, with no overrides; a proposal's ``servers`` become its
        ``servers_by_type``. This is the one place that reads "one type or a fleet": everything
        the engine computes, and the workbook writes, follows the fleet.

        Returns
        -------
        Scenario
            This scenario when it names its types; else the same scenario as a fleet of one.
        """
        if self.server_types:
            return self
        proposed = self.proposed
        if proposed.servers is not None:
            proposed = proposed.model_copy(update={
                "servers_by_type": {OWNED_TYPE: proposed.servers}, "servers": None})
        return self.model_copy(update={"server_types": (ServerType(id=OWNED_TYPE),),
                                       "proposed": proposed})

    def as_written(self) -> "Scenario":
        """The scenario as a user writes it: the inverse of :meth:`as_fleet`.

        A fleet whose one type is ``owned`` with nothing of its own (what the workbook shows
        for a scenario without server types) is the scenario without server types, its
        proposal's ``servers_by_type`` of ``owned`` its ``servers``; any other scenario is
        itself. Both plan the same.

        Returns
        -------
        Scenario
            This scenario, or the same without its one server type.
        """
        if self.server_types != (ServerType(id=OWNED_TYPE),):
            return self
        proposed = self.proposed
        if set(proposed.servers_by_type) == {OWNED_TYPE}:
            proposed = proposed.model_copy(update={
                "servers": proposed.servers_by_type[OWNED_TYPE], "servers_by_type": {}})
        return self.model_copy(update={"server_types": (), "proposed": proposed})

    def foreign_currency(self) -> Optional[str]:
        """The one currency other than the reporting one that prices are entered in, if any.

        Returns
        -------
        str or None
            ISO 4217 code; None for a plan in one currency.
        """
        for market in ("owned", "cloud"):
            if self.converts(market):
                return self.market_currency(market)
        return next((c.currency for c in self.position.commitments
                     if c.currency and c.currency != self.finance.currency), None)

    def commitment_market(self, c: "PositionCommitment") -> str:
        """Whose exchange rate converts a signed contract's payments.

        Parameters
        ----------
        c : PositionCommitment
            A contract of the position.

        Returns
        -------
        str
            ``"cloud"`` for a contract in the cloud prices' currency (its default),
            ``"reporting"`` for one in the reporting currency (not converted), ``"foreign"``
            for one in the foreign currency when cloud prices are not (converted at the rate).
        """
        currency = c.currency or self.market_currency("cloud")
        if currency == self.market_currency("cloud"):
            return "cloud"
        return "reporting" if currency == self.finance.currency else "foreign"

    @model_validator(mode="after")
    def _proposed_matches_offers(self) -> "Scenario":
        ids = [offer.id for offer in self.commitments]
        if len(set(ids)) != len(ids):
            raise ValueError(f"commitment ids must be unique, got {ids}")
        offers = {offer.id: offer for offer in self.commitments}
        _check_blocks("proposed.committed_gpus", self.proposed.committed_gpus, offers)
        months = [d.month for d in self.proposed.schedule]
        if len(set(months)) != len(months):
            raise ValueError("proposed.schedule has two decisions for the same month")
        if self.proposed.schedule and (self.proposed.servers is not None
                                       or self.proposed.committed_gpus):
            raise ValueError("proposed: give either a schedule or servers and committed_gpus")
        for d in self.proposed.schedule:
            _check_blocks(f"proposed.schedule[{d.month}].commit", d.commit, offers)
            selling = d.sell_servers + sum(d.sell.values())
            if d.sell_from and sum(d.sell_from.values()) != selling:
                raise ValueError(f"proposed.schedule[{d.month}]: sell_from adds up to "
                                 f"{sum(d.sell_from.values())}, sell_servers is "
                                 f"{selling}")
        return self

    def with_changes(self, **sections: dict) -> "Scenario":
        """A what-if copy with some fields of some sections changed, revalidated.

        Parameters
        ----------
        **sections : dict
            Section name to the fields to change (``owned={"server_price": 250_000}``); a section
            that is a list (``commitments``) is replaced whole.

        Returns
        -------
        Scenario
            The copy.

        Raises
        ------
        pydantic.ValidationError
            A change that breaks a bound or a rule.
        """
        data = self.model_dump()
        for section, changes in sections.items():
            if isinstance(data[section], dict):
                data[section] = {**data[section], **changes}
            else:
                data[section] = changes
        return Scenario.model_validate(data)


def scenario_document(s: Scenario) -> dict:
    """A scenario as the plan document echoes it: JSON types, and the fields of server types
    (issue 26) left out where they are empty, so that a plan of one type reads as before.

    Parameters
    ----------
    s : Scenario
        The scenario.

    Returns
    -------
    dict
        ``s.model_dump(mode="json")`` without an empty ``server_types``, ``proposed
        .servers_by_type``, ``staging.max_power_kw``, ``position.servers[].type`` or
        ``proposed.schedule[].buy`` / ``sell``.
    """
    data = s.model_dump(mode="json")
    pairs = [(data, "server_types"), (data["proposed"], "servers_by_type"),
             (data["staging"], "max_power_kw"), (data["staging"], "demand_scenarios")]
    pairs += [(row, "type") for row in data["position"]["servers"]]
    pairs += [(d, k) for d in data["proposed"]["schedule"] for k in ("buy", "sell")]
    for holder, key in pairs:
        if holder.get(key) in (None, {}, []):
            del holder[key]
    return data


def scenario_from_json(text: str | bytes) -> Scenario:
    """A scenario document (the JSON of a file, an API body or an upload part), its types
    checked as JSON has them.

    Parameters
    ----------
    text : str or bytes
        JSON text of a scenario object.

    Returns
    -------
    Scenario
        The validated scenario.

    Raises
    ------
    pydantic.ValidationError
        Broken JSON, a bound or rule broken, or a value of the wrong JSON type: a number in a
        string (``"8"``) or a boolean for a number is refused, not converted (the form's text
        inputs go through :meth:`Scenario.model_validate`, which reads numbers from text). A
        whole number written ``8.0`` is the integer 8, as JSON Schema reads it
        (models.json_numbers).
    """
    return Scenario.model_validate_json(whole_numbers(text), strict=True)


def validation_messages(error) -> list[str]:
    """One line per problem of a pydantic ValidationError.

    Parameters
    ----------
    error : pydantic.ValidationError
        The error.

    Returns
    -------
    list of str
        ``'owned.pue: must be >= 1 (got 0.5)'`` style lines: the field path, the message and
        the value given.
    """
    lines = []
    for item in error.errors():
        path = ".".join(str(part) for part in item["loc"]) or "scenario"
        got = item.get("input")
        suffix = "" if isinstance(got, (dict, list)) or got is None else f" (got {got!r})"
        lines.append(f"{path}: {item['msg']}{suffix}")
    return lines


def _check_blocks(where: str, committed: dict[str, int], offers: dict) -> None:
    """GPUs committed per offer: known offers, whole non-negative blocks."""
    for offer_id, gpus in committed.items():
        if offer_id not in offers:
            raise ValueError(f"{where} names unknown offer {offer_id!r}; offers are "
                             f"{list(offers)}")
        if gpus < 0 or gpus % offers[offer_id].block_gpus:
            raise ValueError(f"{where}[{offer_id!r}] = {gpus} must be a non-negative multiple "
                             f"of block_gpus {offers[offer_id].block_gpus}")


# Which market's currency a money field is entered in (forms, the workbook and the CLI label
# money inputs with it); a path not listed is in the reporting currency.
MARKET_OF_SECTION = {"owned": "owned", "position.servers": "owned", "on_demand": "cloud",
                     "commitments": "cloud", "spot": "cloud", "cloud_data": "cloud",
                     "cloud_terms": "cloud", "position.commitments": "cloud"}


def market_of(path: str) -> str:
    """The market whose currency a money field is entered in.

    Parameters
    ----------
    path : str
        Dotted field path, list indices included (``"position.servers.0.price"``).

    Returns
    -------
    str
        ``"owned"``, ``"cloud"`` or ``"reporting"``.

    Examples
    --------
    >>> market_of("position.servers.0.price"), market_of("finance.discount_rate_annual")
    ('owned', 'reporting')
    """
    parts = [p for p in path.replace("[", ".").replace("]", "").split(".") if not p.isdigit()]
    for n in (2, 1):
        market = MARKET_OF_SECTION.get(".".join(parts[:n]))
        if market:
            return market
    return "reporting"
