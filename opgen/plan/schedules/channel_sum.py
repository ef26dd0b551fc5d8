"""Per-channel sum (`formula.reduce: {gradWeight: {sum_over_channels_of: self}}`, aclnnPreluBackward): an output
whose kernel result is elementwise and which the aclnn API sums per channel afterwards (`l0op::ReduceSumOp` over
every axis of `self` but dim 1), reshaped to the channel input's shape. Its operators also take a channel input.

The empty-tensor return sets such an output to zeros; the references and golden tests sum with `channel_sum`."""

from __future__ import annotations

from opgen.plan.schedules.base import ChannelSum
from opgen.plan.schedules.channel_broadcast import ChannelBroadcast
from opgen.spec.model import OpSpec


class ChannelSummed(ChannelBroadcast):
    name = "channel_sum"
    rank = 2

    @classmethod
    def applies(cls, spec: OpSpec) -> bool:
        return bool(spec.formula.reduce)

    @classmethod
    def refinements(cls, spec: OpSpec) -> dict:
        sums = []
        for output, reduction in spec.formula.reduce.items():
            like = spec.param(output).shape.same_as
            assert like is not None  # validated: a reduced output has a channel input's shape
            of = reduction.sum_over_channels_of
            sums.append(ChannelSum(output, of, like, spec.param(of).python, spec.param(like).python))
        return {**super().refinements(spec), "sums": tuple(sums)}

    def reference(self, output: str, elementwise: str) -> str:
        found = self.sum_of(output)
        if found is None:
            return elementwise
        return f"channel_sum({elementwise}, {found.of_python}, {found.like_python})"


SCHEDULE = ChannelSummed
