"""The usage of a plan made again from the actuals (issue 43, re-plan): the revision's usage
with the GPU-hours actually used appended, one month at a time.

A plan lays its usage from the usage's first period at the plan's first month
(models/profile.py plan_demand), repeating the last 8,760 hours when it runs out. A re-plan
starts the month after the last actual month, so its usage must end with that month and hold
whole years: then every month of the re-plan is laid on the same calendar month of the usage
(a usage of 2026-07 to 2027-06 laid from 2027-07). The extended usage is therefore cut to the
whole years that end with the last actual month (all of it when it holds less than a year).

Pure: a :class:`models.profile.UsageProfile` and GPU-hours by month in, a profile out.
"""
from __future__ import annotations

from typing import Mapping

import numpy as np

from models.profile import UsageProfile, period_hours, period_starts
from models.refusals import Worded

MONTHS_PER_YEAR = 12
# refusals, said in the reader's language by the service (service/i18n/replan_words.py)
MESSAGES = (
    "The usage ends inside %(month)s: a re-plan appends whole months after the usage's last "
    "whole month",
    "The usage ends in %(end)s and the first month to append is %(first)s: the months between "
    "have no usage",
)


class UsageAppendError(Worded):
    """Months that cannot be appended to a usage (``template`` one of MESSAGES)."""


def _month(t: np.datetime64) -> np.datetime64:
    return t.astype("datetime64[M]")


def append_months(profile: UsageProfile, gpu_hours: Mapping[str, float]) -> UsageProfile:
    """The profile with months of GPU-hours appended, cut to the whole years ending with them.

    Parameters
    ----------
    profile : UsageProfile
        The usage, ending at the end of a month.
    gpu_hours : mapping of str to float
        GPU-hours used by month, ``'YYYY-MM'``: every month from the one after the usage's
        last one on, none missing [GPU-hours].

    Returns
    -------
    UsageProfile
        Same period as ``profile`` (hour, day or month); the appended months laid over their
        periods; no team shares or busy time (the months appended have none); cut to the last
        :math:`12 \\lfloor n / 12 \\rfloor` months when it holds :math:`n \\ge 12` months.

    Raises
    ------
    UsageAppendError
        The usage ends inside a month, or the first month given is not the one after it.

    Notes
    -----
    Month M with total :math:`T_M` is laid in the shape of the same month a year before,
    M - 12, when the (extended) usage holds it with work: with :math:`s_j`, :math:`i_j` the
    steady and interruptible GPU-hours of that month's j-th period, period k of M takes
    :math:`s_{j(k)} f` and :math:`i_{j(k)} f`, :math:`j(k) = \\min(k, n_{M-12} - 1)` and
    :math:`f = T_M / \\sum_k (s_{j(k)} + i_{j(k)})`, so M sums to :math:`T_M`, its day and
    hour shape and its interruptible share are those of a year before. Without such a month,
    :math:`T_M` is spread in proportion to the periods' hours with the usage's interruptible
    share :math:`\\sum i / \\sum (s + i)` (0 without work).
    """
    period = profile.period
    starts, steady, inter = profile.starts, profile.steady, profile.interruptible
    end = starts[-1] + (period_hours(starts[-1:], period)[0]).astype("timedelta64[h]")
    if end != _month(end).astype("datetime64[h]"):
        raise UsageAppendError(MESSAGES[0], month=str(_month(starts[-1])))
    months = sorted(gpu_hours)
    if not months:
        return profile
    after = str(_month(end))
    if months[0] != after or len(months) != _month_count(months[0], months[-1]):
        missing = next((m for m in _month_range(after, months[-1]) if m not in gpu_hours),
                       months[0])
        raise UsageAppendError(MESSAGES[1], end=str(_month(starts[-1])), first=missing)
    total = steady.sum() + inter.sum()
    share = float(inter.sum() / total) if total > 0 else 0.0
    all_starts, all_steady, all_inter = [starts], [steady], [inter]
    for month in months:
        first = np.datetime64(month, "M").astype("datetime64[h]")
        following = (np.datetime64(month, "M") + 1).astype("datetime64[h]")
        if period == "month":
            new = np.array([first])
        else:
            step = 1 if period == "hour" else 24
            new = period_starts(first, int((following - first).astype(int)) // step, period)
        hours = period_hours(new, period)
        value = float(gpu_hours[month])
        s_all = np.concatenate(all_starts)
        year_before = (np.datetime64(month, "M") - MONTHS_PER_YEAR)
        mask = _months_of(s_all) == year_before
        template_s = np.concatenate(all_steady)[mask]
        template_i = np.concatenate(all_inter)[mask]
        if template_s.size and (template_s.sum() + template_i.sum()) > 0:
            j = np.minimum(np.arange(len(new)), template_s.size - 1)
            f = value / float((template_s[j] + template_i[j]).sum())
            s_new, i_new = template_s[j] * f, template_i[j] * f
        else:
            spread = value * hours / hours.sum()
            s_new, i_new = spread * (1.0 - share), spread * share
        all_starts.append(new)
        all_steady.append(s_new)
        all_inter.append(i_new)
    s_all = np.concatenate(all_starts)
    steady_all, inter_all = np.concatenate(all_steady), np.concatenate(all_inter)
    held = _month_count(str(_months_of(s_all[:1])[0]), months[-1])
    if held >= MONTHS_PER_YEAR:
        keep_from = np.datetime64(months[-1], "M") + 1 - MONTHS_PER_YEAR * (
            held // MONTHS_PER_YEAR)
        keep = _months_of(s_all) >= keep_from
        s_all, steady_all, inter_all = s_all[keep], steady_all[keep], inter_all[keep]
    return UsageProfile(period, s_all, steady_all, inter_all,
                        has_workload=profile.has_workload)


def _months_of(starts: np.ndarray) -> np.ndarray:
    return starts.astype("datetime64[M]")


def _month_count(first: str, last: str) -> int:
    return int((np.datetime64(last, "M") - np.datetime64(first, "M")).astype(int)) + 1


def _month_range(first: str, last: str) -> list[str]:
    start = np.datetime64(first, "M")
    return [str(start + k) for k in range(max(_month_count(first, last), 0))]
