"""The monthly columns of a fleet of server types (issue 26) on a strategy sheet.

One type's costs read ``owned``: servers online x its idle power, space and staff, and its
busy GPU-hours x its busy power. A fleet prices each type with its own values, so its sheet has
a column of servers online per type (the type's cohorts added up: their key is
``online:<type id>``) and the engine's owned GPU-hours per type, and the energy, space, staff
and data-share formulas add the types up (models/costs.cost_lines, by type).
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from models.ledger import StrategyLedger
from service.i18n import N_, gettext as tr
from service.i18n.labels import server_type_name
from service.xlsx.sheet_formulas import fx_at

Cell = Callable[[str, int], str]
ONLINE_HEADER = N_("Servers online, %(type)s")
OWNED_HEADER = N_("Owned %(type)s [GPU-h of the type]")


def padded(values, rows: int) -> np.ndarray:
    """A horizon-long engine array over the sheet's rows (strategy_columns.padded, which
    imports this module)."""
    out = np.zeros(rows)
    values = np.asarray(values, float)[:rows]
    out[:len(values)] = values
    return out


def online_by_type(sl: StrategyLedger, type_id: str, rows: int) -> np.ndarray:
    """The engine's servers online of one type by month: its cohorts' columns added up
    [servers, (rows,)]."""
    out = np.zeros(rows)
    for c in sl.cohorts:
        if c.kind == "server" and c.type == type_id:
            out += c.monthly["online"][:rows]
    return out


def volume_columns(column, sl: StrategyLedger, types, rows: int) -> list:
    """The engine's owned GPU-hours of each type (values), ``column`` the Column class."""
    return [column(f"owned_h_{i}", tr(OWNED_HEADER, type=server_type_name(t)), "volume", "hours",
                   padded(sl.owned_h_by_type.get(t, ()), rows)) for i, t in types]


def capacity_columns(column, sl: StrategyLedger, types, rows: int,
                     cohorts: Callable[[str, int], str]) -> list:
    """Servers online of each type: sums of its cohorts' columns (formulas)."""
    return [column(f"online_{i}", tr(ONLINE_HEADER, type=server_type_name(t)), "schedule", "number",
                   online_by_type(sl, t, rows),
                   lambda x, t=t: "=" + cohorts(f"online:{t}", x)) for i, t in types]


def cohort_online(types, cohorts: Callable[[str, int], str]) -> Callable[[int], str]:
    """The fleet's servers online summed over the cohorts: every type's key."""
    return lambda x: "=" + "+".join(cohorts(f"online:{t}", x) for _, t in types)


def power(i: int, c: Cell, x: int) -> str:
    """Type i's power price in the row's month [reporting currency per kWh]."""
    m = c("m", x)
    return (f"calc_type_{i}_electricity_price_per_kwh*(1+finance_power_price_inflation_annual)"
            f"^(({m}-1)/12)*{fx_at(f'type_{i}', f'{m}-1')}")


def fleet_formulas(types, c: Cell) -> dict[str, Callable[[int], str]]:
    """Energy, space and staff of every type, and the share of the data at owned prices
    (its GPU-hours x each type's relative throughput over the gross demand)."""
    def energy(x: int) -> str:
        return "=" + "+".join(
            f"{c(f'online_{i}', x)}*calc_type_{i}_power_kw_idle*calc_type_{i}_pue*"
            f"{c('hours', x)}*{power(i, c, x)}+calc_type_{i}_busy_kw_per_gpu*{power(i, c, x)}*"
            f"{c(f'owned_h_{i}', x)}" for i, _ in types)

    def fx(i: int, x: int) -> str:
        return fx_at(f"type_{i}", f"{c('m', x)}-1")

    def space(x: int) -> str:
        return "=" + "+".join(
            f"{c(f'online_{i}', x)}*calc_type_{i}_power_kw_max*calc_type_{i}_space_price_per_"
            f"kw_month*{fx(i, x)}" for i, _ in types)

    def staff(x: int) -> str:
        return "=" + "+".join(
            f"{c(f'online_{i}', x)}*calc_type_{i}_fte_cost_annual/12/calc_type_{i}_servers_per_"
            f"fte*{c('staff_f', x)}*{fx(i, x)}" for i, _ in types)

    def owned_work(x: int) -> str:
        return "(" + "+".join(f"{c(f'owned_h_{i}', x)}*calc_type_{i}_relative_throughput"
                              for i, _ in types) + ")"
    return {"energy": energy, "space": space, "staff": staff, "owned_work": owned_work}


def installed_gpu_hours(types, rng: Callable[[str], str]) -> str:
    """The GPU-hours the fleet's servers could run over the sheet (each type's GPUs per
    server), for the owned utilization figure."""
    return "(" + "+".join(f"SUMPRODUCT({rng(f'online_{i}')},{rng('hours')})*calc_type_{i}_gpus_"
                          "per_server" for i, _ in types) + ")"
