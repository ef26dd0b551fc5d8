"""Elementwise (with numpy broadcast): every output element is a function of the inputs' elements at its index.

The kernel tiles one flat loop; inputs of a broadcast are expanded to the output's shape by the aclnn API."""

from __future__ import annotations

from opgen.plan.schedules.base import Schedule
from opgen.spec.model import OpSpec


class Elementwise(Schedule):
    name = "elementwise"
    rank = 0

    @classmethod
    def applies(cls, spec: OpSpec) -> bool:
        return True


SCHEDULE = Elementwise
