"""Per-channel broadcast (`shape: {channel_of: self}`, aclnnPrelu's weight): an input holding one value per
channel (dim 1) of another.

The aclnn API lays it along dim 1 and expands it where its runs are short (`MIN_CHANNEL_RUN`); the tiling tells
the kernel the length of a run of elements sharing one value, and the kernel fills each tile of a run with it.
The references lay it along dim 1 (`channel_view`)."""

from __future__ import annotations

from opgen.plan.schedules.base import ChannelInput
from opgen.plan.schedules.elementwise import Elementwise
from opgen.spec.model import OpSpec


class ChannelBroadcast(Elementwise):
    name = "channel_broadcast"
    rank = 1

    @classmethod
    def applies(cls, spec: OpSpec) -> bool:
        return any(p.shape.channel_of for p in spec.tensor_inputs)

    @classmethod
    def refinements(cls, spec: OpSpec) -> dict:
        found = []
        for p in spec.tensor_inputs:
            if p.shape.channel_of:
                of = spec.param(p.shape.channel_of)
                found.append(ChannelInput(p.name, p.python, of.name, of.python))
        return {"channel_inputs": tuple(found)}

    @property
    def expands_inputs(self) -> bool:
        # a channel input, once laid along dim 1, is expanded to the output's shape like a broadcast input
        return True

    def aten_arg(self, name: str, python: str) -> str:
        channel = self.channel_of(name)
        return f"channel_view({python}, {channel.of_python})" if channel is not None else python


SCHEDULE = ChannelBroadcast
