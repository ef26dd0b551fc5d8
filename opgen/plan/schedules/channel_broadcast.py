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

    def shape_notes(self, name: str) -> tuple[str, ...]:
        """A channel input's element count follows the channels of the tensor it follows, not its shape."""
        channel = self.channel_of(name)
        if channel is None:
            return ()
        of = channel.of
        return (
            f"元素个数需要为1或等于{of}的通道数（{of}不足2维时通道数为1，否则为{of}.shape[1]），与shape无关；"
            f"第i个值作用于{of}第1维下标为i的全部元素，只有1个值时作用于全部元素。",
        )

    def constraint_notes(self) -> tuple[str, ...]:
        """Each channel input is taken per channel of its tensor instead of broadcast with it."""
        return tuple(
            f"通道广播：{c.name}不按broadcast关系与{c.of}广播，而是按{c.of}的第1维（通道）取值："
            f"{c.of}中第1维下标为c的元素使用{c.name}展平后的第c个元素"
            f"（{c.name}只有1个元素时全部使用该元素）；{c.of}不足2维时只有1个通道。"
            for c in self.channel_inputs
        )

    def aten_arg(self, name: str, python: str) -> str:
        channel = self.channel_of(name)
        return f"channel_view({python}, {channel.of_python})" if channel is not None else python


SCHEDULE = ChannelBroadcast
