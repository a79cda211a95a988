"""The names a server cohort is priced with, by its type (issue 26).

Every plan is a fleet of server types (issue 36: a scenario without them is a fleet of one,
``owned``), and each type has a block of derived rows on the Assumptions sheet,
``calc_type_<i>_<field>``: the type's override of the field (``server_types[i].field``), else
``owned``'s, so a cohort of type i reads its own type's price, life, maintenance, power and
currency, and a blanked override falls back to ``owned`` as the engine does
(models.scenario_owned.type_owned). Financing, failures, storage and network stay ``owned``'s
(models.scenario_owned.FLEET_WIDE).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from models.fields import field_meta
from models.ledger import TYPE_PARAMS
from models.scenario import Scenario
from models.scenario_owned import Owned, ServerType
from service.i18n import N_, gettext as tr
from service.i18n.labels import server_type_name
from service.xlsx.names import defined_name, list_name


@dataclass(frozen=True)
class OwnedNames:
    """Defined names of the inputs one type's server cohorts read; ``market`` is whose
    exchange rate converts its payments (service.xlsx.sheet_formulas.fx_at)."""

    lead: str
    life: str
    price: str
    trend: str
    install: str
    maint: str
    resale: str                        # the range of resale fractions by year of age
    market: str
    drop: Optional[str] = None         # resale value lost once the successor is out [fraction]
    successor_from: Optional[str] = None   # the successor's available_from input (YYYY-MM)


OWNED = OwnedNames("owned_lead_time_months", "owned_useful_life_months", "owned_server_price",
                   "owned_hardware_price_trend_annual", "owned_install_cost_per_server",
                   "owned_maintenance_fraction_annual", "owned_resale_fraction_by_year",
                   "owned")


def online_formula(names: OwnedNames = OWNED) -> str:
    """Online after the type's lead time (a template over the cohort's ``{bought}`` cell)."""
    return "={bought}+" + names.lead


def sold_formula(names: OwnedNames = OWNED) -> str:
    """Sold at the end of the type's useful life or of the horizon."""
    return "=MIN({bought}+" + names.life + ",finance_horizon_months)"


def price_formula(names: OwnedNames = OWNED) -> str:
    """A server's price in the month it is bought, moved by its type's hardware trend."""
    return f"={names.price}*(1+{names.trend})^({{bought}}/12)"


def type_prefix(i: int) -> str:
    """The prefix of type ``i``'s derived names (1-based, the scenario's order)."""
    return f"calc_type_{i}_"


def type_names(s: Scenario, i: int) -> OwnedNames:
    """The names a cohort of server type ``i`` (1-based) reads."""
    t = s.server_types[i - 1]
    p = type_prefix(i)
    resale = (list_name(f"server_types[{i}].resale_fraction_by_year")
              if t.resale_fraction_by_year is not None else OWNED.resale)
    drop = successor_from = None
    if t.successor:
        j = next(k for k, u in enumerate(s.server_types, start=1) if u.id == t.successor)
        drop = p + "resale_drop_at_successor"
        successor_from = defined_name(f"server_types[{j}].available_from")
    return OwnedNames(p + "lead_time_months", p + "useful_life_months", p + "server_price",
                      p + "hardware_price_trend_annual", p + "install_cost_per_server",
                      p + "maintenance_fraction_annual", resale, f"type_{i}", drop,
                      successor_from)


def type_index(s: Scenario, type_id: Optional[str]) -> Optional[int]:
    """The 1-based index of a type id among ``server_types``; None without a type."""
    if type_id is None:
        return None
    return next(i for i, t in enumerate(s.server_types, start=1) if t.id == type_id)


def type_rows(s: Scenario, calc: dict[str, float]
              ) -> list[tuple[str, str, str, float, str]]:
    """(name, label, formula, engine value, unit) of each server type's derived rows of the
    Assumptions sheet: its value of every field its costs read, its busy power above idle per
    GPU and whether its costs are converted; values are the engine's (``calc``, the ledger's:
    models/ledger_build.assumption_values)."""
    rows = []
    for i, t in enumerate(s.server_types, start=1):
        p, src = type_prefix(i), f"server_types_{i}_"
        for name in TYPE_PARAMS:
            info = (ServerType if name == "resale_drop_at_successor" else Owned).model_fields[name]
            meta = field_meta(info)
            if name == "resale_drop_at_successor":    # the type's own field, never blank
                formula = f"={src}{name}"
            else:
                formula = f"=IF(ISBLANK({src}{name}),owned_{name},{src}{name})"
            rows.append((p + name, tr("Server type %(type)s: %(setting)s", type=server_type_name(t.id),
                                      setting=tr(meta["label"])),
                         formula, calc[p + name], tr(meta["unit"])))
        rows.append((p + "busy_kw_per_gpu",
                     tr("Server type %(type)s: busy power above idle per GPU, with PUE",
                        type=server_type_name(t.id)),
                     f"=({p}power_kw_max-{p}power_kw_idle)/{p}gpus_per_server*{p}pue",
                     calc[p + "busy_kw_per_gpu"], tr(KW_PER_GPU)))
        rows.append((f"calc_fx_type_{i}",
                     tr("Server type %(type)s: costs converted at the exchange rate (1) or "
                        "not (0)", type=server_type_name(t.id)),
                     f'=IF(ISBLANK({src}currency),calc_fx_owned,IF(OR({src}currency="",'
                     f'{src}currency=finance_currency),0,1))', calc[f"calc_fx_type_{i}"],
                     tr(FLAG)))
    return rows


KW_PER_GPU, FLAG = N_("kW per GPU"), N_("flag")
