"""The owned fleet's share of a month's variance (issue 43): idle servers and late or early
deliveries, from the owned fleet's actuals (models/owned_actuals.py) against the plan's row.

The variance engine (models/variance.py) prices owned GPU-hours at 0 (owned costs are fixed in
a month and read line by line, ``other.energy`` and the rest), so owned work that did not happen
and was bought in the cloud shows whole in ``mix``. This module takes two named parts out of
that mix, which is why the parts still add up to the total exactly:

- ``idle_servers``: owned capacity the plan counted on, online, that did no work, at its cost
  share (the plan's running owned cost per GPU-hour of capacity);
- ``timing.delivery``: the work the servers missing against the plan's count (delivered later
  than the schedule) would have done, bought at the plan's on-demand rate; negative for
  servers delivered earlier (work the plan bought elsewhere, done on them).

Kept apart from models/variance.py so that the engine's hunk is small; it imports nothing of
the engine (no import cycle).
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Mapping, Optional

# the plan's running owned lines whose sum, per GPU-hour of capacity, is the cost share of an
# idle owned GPU-hour (capex is a one-off payment: it is timing, not a running cost)
RUNNING_OWNED_LINES = ("energy", "space", "maintenance", "staff")


@dataclass(frozen=True)
class OwnedSplit:
    """The owned fleet's month against the plan (exact).

    ``gpu_hours`` the owned GPU-hours of work done (given, or derived when no busy time was
    given); ``late`` L and ``idle`` I in GPU-hours; ``cost_share`` p_o per GPU-hour. What they
    were computed from (the Variance sheet writes it as its inputs, service/xlsx/
    variance_sheet.py): ``plan_gpus`` G_p and ``actual_gpus`` G_a [GPUs], ``capacity`` C =
    G_p h [GPU-h], ``utilisation`` u = q_o / C (0 when C = 0), ``busy`` the busy GPU-hours
    given (None: not measured).
    """

    gpu_hours: Fraction
    late: Fraction
    idle: Fraction
    cost_share: Fraction
    plan_gpus: Fraction = Fraction(0)
    actual_gpus: Fraction = Fraction(0)
    capacity: Fraction = Fraction(0)
    utilisation: Fraction = Fraction(0)
    busy: Optional[Fraction] = None


def _q(x: Any) -> Fraction:
    return Fraction(float(x))


def plan_gpus_online(plan_row: Mapping[str, Any], gpus_per_server: Mapping[str, float]
                     ) -> Fraction:
    """GPUs of the plan's servers online in the row's month.

    Parameters
    ----------
    plan_row : mapping
        The plan's row (``servers_online`` [servers]; ``servers_online_by_type`` [servers by
        type id] for a fleet of server types).
    gpus_per_server : mapping of str to float
        GPUs per server by type id (one entry for a plan of one server type).

    Returns
    -------
    Fraction
        :math:`\\sum_t N_t g_t` [GPUs]; for a plan of one type :math:`N g`.

    Notes
    -----
    G_p = sum over types t of N_t g_t, or N g for a plan of one type, with N_t the plan's
    servers online [servers] and g_t GPUs per server [GPUs]. A type the mapping lacks counts
    with the GPUs of the mapping's first type, which is the scenario's
    ``owned.gpus_per_server`` for a plan of one type.
    """
    default = next(iter(gpus_per_server.values()), 0.0)
    by_type = plan_row.get("servers_online_by_type")
    if by_type:
        return sum((_q(n) * _q(gpus_per_server.get(t, default)) for t, n in by_type.items()),
                   Fraction(0))
    return _q(plan_row.get("servers_online", 0.0)) * _q(default)


def owned_split(plan_row: Mapping[str, Any], gpus_online: float,
                gpus_per_server: Mapping[str, float], busy_gpu_hours: Optional[float]
                ) -> OwnedSplit:
    """Late, early and idle owned capacity of one month against the plan.

    Parameters
    ----------
    plan_row : mapping
        The plan's row of the month: ``owned_gpu_hours`` q_o [GPU-h], ``hours`` h [h], the
        servers online and the running owned lines (energy, space, maintenance, staff)
        [currency].
    gpus_online : float
        GPUs of the servers actually online, :math:`G_a = \\sum_t N'_t g_t` [GPUs].
    gpus_per_server : mapping of str to float
        GPUs per server by type id, for the plan's GPUs online :math:`G_p`.
    busy_gpu_hours : float or None
        Owned GPU-hours of work actually done a_o [GPU-h]; None when the actuals give no busy
        time.

    Returns
    -------
    OwnedSplit
        a_o, L, I and p_o (exact).

    Notes
    -----
    With the plan's capacity :math:`C = G_p h`, its utilisation :math:`u = q_o / C` and its
    cost share :math:`p_o = F / C` (:math:`F` the plan's energy + space + maintenance + staff
    of the month; both 0 when :math:`C = 0`):

    .. math::

        L &= (G_p - G_a)\\,h\\,u \\quad (C > 0), \\qquad L = -a_o \\quad (C = 0) \\\\
        I &= (q_o - L) - a_o

    L is the work the servers missing against the plan would have done at the plan's
    utilisation (negative: servers online earlier or more than planned; with no capacity
    planned all owned work is theirs); I is the work the plan counted on from the servers
    that were online and that they did not do (negative: more work than planned). Without
    busy time :math:`a_o = q_o - L` (the plan's utilisation on the servers online), so
    :math:`I = 0`: no idle part can be read.
    """
    q_o = _q(plan_row.get("owned_gpu_hours", 0.0))
    h = _q(plan_row.get("hours", 0.0))
    g_p = plan_gpus_online(plan_row, gpus_per_server)
    capacity = g_p * h
    g_a = _q(gpus_online)
    busy = None if busy_gpu_hours is None else _q(busy_gpu_hours)
    running = sum((_q(plan_row.get(n, 0.0)) for n in RUNNING_OWNED_LINES), Fraction(0))
    use = q_o / capacity if capacity > 0 else Fraction(0)
    if capacity > 0:
        share = running / capacity
        late = (g_p - g_a) * h * use
        done = q_o - late if busy is None else busy
    else:
        share = Fraction(0)
        done = Fraction(0) if busy is None else busy
        late = -done
    return OwnedSplit(gpu_hours=done, late=late, idle=(q_o - late) - done, cost_share=share,
                      plan_gpus=g_p, actual_gpus=g_a, capacity=capacity, utilisation=use,
                      busy=busy)


def owned_parts(split: OwnedSplit, on_demand_rate: Fraction) -> dict[str, Fraction]:
    """The two owned parts of a month and what they take out of ``mix``.

    Parameters
    ----------
    split : OwnedSplit
        :func:`owned_split` of the month.
    on_demand_rate : Fraction
        The plan's on-demand rate of the month p_od (the engine's: the rate paid when the plan
        has no on-demand GPU-hours) [currency per GPU-hour].

    Returns
    -------
    dict of str to Fraction
        ``idle_servers`` and ``timing.delivery`` [currency]; ``mix`` the amount to add to the
        engine's mix (minus their sum), so that every part still adds up to the total.

    Notes
    -----
    .. math::

        \\text{idle\\_servers} = I\\,p_o, \\qquad
        \\text{timing.delivery} = L\\,p_{od}, \\qquad
        \\Delta\\text{mix} = -(I\\,p_o + L\\,p_{od})

    The engine's mix prices owned GPU-hours at 0, so owned work that moved to the cloud is
    whole in it; these parts name two causes of that move and leave in mix the rest (the
    cloud's premium over the owned cost share, and moves of other causes).
    """
    idle = split.idle * split.cost_share
    delivery = split.late * on_demand_rate
    return {"idle_servers": idle, "timing.delivery": delivery, "mix": -(idle + delivery)}
