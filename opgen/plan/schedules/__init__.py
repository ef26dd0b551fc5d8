"""Schedules: how an operator maps onto the hardware (`base.Schedule`), one module per schedule.

Each module of this package defines `SCHEDULE`, a `Schedule` subclass; `schedule_for` gives an operator the
most specific one (highest `rank`) whose `applies` holds. Adding a schedule is adding a module here."""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache

from opgen.plan.schedules.base import ChannelInput, ChannelSum, Schedule
from opgen.spec.model import OpSpec

__all__ = ["ChannelInput", "ChannelSum", "Schedule", "registered", "schedule_for"]


@cache
def registered() -> tuple[type[Schedule], ...]:
    """Every module's schedule, by rank (ties are an error: the choice must not depend on module order)."""
    found = []
    for module in sorted(m.name for m in pkgutil.iter_modules(__path__)):
        if module == "base":
            continue
        schedule = importlib.import_module(f"{__name__}.{module}").SCHEDULE
        assert issubclass(schedule, Schedule) and schedule.name == module, f"{module}: SCHEDULE named {module}"
        found.append(schedule)
    ranks = [s.rank for s in found]
    assert len(set(ranks)) == len(ranks), f"schedules share a rank: {ranks}"
    return tuple(sorted(found, key=lambda s: s.rank))


def schedule_for(spec: OpSpec) -> Schedule:
    """The one place an operator's schedule is chosen: the most specific that applies."""
    chosen = max((s for s in registered() if s.applies(spec)), key=lambda s: s.rank)
    return chosen.from_spec(spec)
