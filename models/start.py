"""The plan's first month, and what a reader should know about it (issue 23).

A plan starts in ``finance.start_month`` when the scenario sets one. Otherwise it starts the
month after the later of the usage's last period and the current month, so that an old export
(a FOCUS file ending 2024-09, read in 2026-12) plans the future, not the past. The current month
is the caller's to give (the service and the CLI know the date; the engine does not read a
clock): without it the plan starts the month after the usage, as before.
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from models.messages import Message, Months, Number
from models.profile import UsageProfile
from models.scenario import Scenario

HOURS_PER_YEAR = 8760
OLD_AFTER_MONTHS = 3   # usage ending more than a quarter before the current month is old


def default_start_month(profile: UsageProfile, current_month: Optional[str] = None) -> str:
    """The month after the later of the profile's last period and the current month.

    Parameters
    ----------
    profile : UsageProfile
        Usage; its last period is read.
    current_month : str, optional
        The current month, ``'YYYY-MM'``; None leaves it out (the month after the usage).

    Returns
    -------
    str
        ``'YYYY-MM'``.

    Notes
    -----
    start = max(month of the profile's last period, ``current_month``) + 1 month.

    Examples
    --------
    >>> import numpy as np
    >>> p = UsageProfile("month", np.array(["2024-09-01T00"], "datetime64[h]"),
    ...                  np.array([1.0]), np.array([0.0]))
    >>> default_start_month(p), default_start_month(p, "2026-12")
    ('2024-10', '2027-01')
    """
    last = profile.starts[-1].astype("datetime64[M]")
    if current_month is not None:
        last = max(last, np.datetime64(current_month, "M"))
    return str(last + 1)


def plan_start_month(scenario: Scenario, profile: UsageProfile,
                     current_month: Optional[str] = None) -> str:
    """The plan's first month: ``finance.start_month``, else :func:`default_start_month`.

    Parameters
    ----------
    scenario : Scenario
        The scenario (``finance.start_month``).
    profile : UsageProfile
        Usage laid over the plan.
    current_month : str, optional
        The current month, ``'YYYY-MM'``.

    Returns
    -------
    str
        ``'YYYY-MM'``.

    Notes
    -----
    start = ``finance.start_month`` when set, else :func:`default_start_month`.
    """
    return scenario.finance.start_month or default_start_month(profile, current_month)


def months_between(earlier: str, later: str) -> int:
    """Whole months from one month to another.

    Parameters
    ----------
    earlier : str
        ``'YYYY-MM'``.
    later : str
        ``'YYYY-MM'``.

    Returns
    -------
    int
        ``later - earlier`` [months]; negative when ``later`` comes first.

    Notes
    -----
    n = (12 y_later + m_later) - (12 y_earlier + m_earlier) [months], y the year, m the month.

    Examples
    --------
    >>> months_between("2024-09", "2026-12")
    27
    """
    return int((np.datetime64(later, "M") - np.datetime64(earlier, "M")).astype(int))


def start_warnings(scenario: Scenario, first_month: str, current_month: Optional[str]
                   ) -> list[Message]:
    """A warning when the scenario sets a start month before the current month.

    Parameters
    ----------
    scenario : Scenario
        The scenario (``finance.start_month``).
    first_month : str
        The plan's first month, ``'YYYY-MM'``.
    current_month : str or None
        The current month, ``'YYYY-MM'``; None: no warning (the date is not known).

    Returns
    -------
    list of Message
        One sentence naming both months and how many months of the plan are past; none for
        a start in the current month or later, or a default start (never in the past).
    """
    if current_month is None or scenario.finance.start_month is None:
        return []
    past = months_between(first_month, current_month)
    if past <= 0:
        return []
    return [Message("The plan starts in {start}, before the current month ({current}), "
                    "because finance.start_month sets it: its first {past} are in the past. "
                    "Leave the start month empty to plan from the month after the later of "
                    "the usage's end and the current month.",
                    {"start": first_month, "current": current_month, "past": Months(past)})]


def usage_notes(profile: UsageProfile, current_month: str, first_month: str
                ) -> list[Message]:
    """What to know about a usage file before planning with it: short, or old.

    Parameters
    ----------
    profile : UsageProfile
        The usage as read.
    current_month : str
        The current month, ``'YYYY-MM'``.
    first_month : str
        The first month of a plan of it (:func:`plan_start_month`), ``'YYYY-MM'``.

    Returns
    -------
    list of Message
        Less than a year of usage (the plan repeats it for its whole horizon: seasons it does
        not show are missing) [days, h]; usage that ends more than ``OLD_AFTER_MONTHS``
        before the current month (its pattern is laid from the plan's first month on)
        [months].
    """
    out = []
    hours = float(profile.hours().sum())
    if hours < HOURS_PER_YEAR:
        out.append(Message("The usage covers {days} days ({hours} hours), less than a year: "
                           "plans repeat it for their whole horizon, so any season it does not "
                           "show is missing from them.",
                           {"days": Number(hours / 24, 1), "hours": Number(hours)}))
    last = str(profile.starts[-1].astype("datetime64[M]"))
    age = months_between(last, current_month)
    if age > OLD_AFTER_MONTHS:
        out.append(Message("The usage ends in {last}, {age} before the current month "
                           "({current}); a plan of it starts in {start} and lays this older "
                           "pattern from there.",
                           {"last": last, "age": Months(age), "current": current_month,
                            "start": first_month}))
    return out
