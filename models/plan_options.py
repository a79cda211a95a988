"""Settings that change a plan without being an assumption of its scenario.

They are arguments of the engine (:func:`models.plan.compute_plan`, :class:`models.plan.Planner`),
never module globals: a stored plan's key carries :meth:`PlanOptions.key`, so two processes
given the same input and the same options store and show the same plan, and a worker plans with
the options its job was queued with, not with its own environment (issue 36).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any, Mapping


@dataclass(frozen=True)
class PlanOptions:
    """How much of a plan to compute beyond its scenario's own assumptions.

    Parameters
    ----------
    growth_range_paths : bool, default True
        A plan without demand scenarios of its own gets a robust plan over three paths from
        its demand growth range (issue 27; ``staging.scenarios_from_growth_range`` opts one
        scenario out). False leaves every such robust plan out: a deployment's choice (and the
        test suite's, whose hundreds of plans test something else), at 5-40 s a plan.
    """

    growth_range_paths: bool = True

    def key(self) -> str:
        """The options' part of a stored plan's key.

        Returns
        -------
        str
            Empty for the defaults (keys of plans stored before options existed stay valid),
            else ``+name=0|1`` for each option that differs from its default.
        """
        default = PlanOptions()
        return "".join(f"+{f.name}={int(getattr(self, f.name))}" for f in fields(self)
                       if getattr(self, f.name) != getattr(default, f.name))

    def to_dict(self) -> dict[str, Any]:
        """The options as JSON data (a plan job's spec).

        Returns
        -------
        dict
            Option name to value.
        """
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> "PlanOptions":
        """The options a job was queued with.

        Parameters
        ----------
        data : mapping or None
            :meth:`to_dict`'s output; None (a job queued before options existed): the
            defaults. Names this version does not know are left out.

        Returns
        -------
        PlanOptions
            The options.
        """
        names = {f.name for f in fields(cls)}
        return cls(**{k: bool(v) for k, v in (data or {}).items() if k in names})
