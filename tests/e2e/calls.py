"""Turns opgen.plan.cases calls into opgen_ops calls (numpy arrays, numpy scalars, None for null)."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

from opgen.plan.cases import Arg, Call, allocated_by_binding
from opgen.plan.operator import binding_names, binding_out_keywords, binding_result_index
from opgen.spec.model import Direction, OpSpec


def value_of(arg: Arg, rng: np.random.Generator):
    if arg.kind == "null":
        return None
    if arg.kind == "bool":
        return bool(arg.value)
    if arg.kind == "int64":
        return int(arg.value)
    if arg.kind == "double":  # the binding takes a Python float only
        return float(arg.value)
    if arg.kind == "string":
        return str(arg.value)
    if arg.kind == "scalar":
        return np.asarray(arg.value).astype(arg.dtype.numpy)[()]
    data = rng.uniform(-4, 4, arg.shape) if arg.shape else rng.uniform(-4, 4)
    return np.asarray(data).astype(arg.dtype.numpy)


def invoke(module, spec: OpSpec, call: Call, rng: np.random.Generator):
    """Calls the main API's Python function with the call's arguments; returns the computed output array (an
    output the API leaves unwritten is left to the binding, which passes it as torch_npu does)."""
    result = _invoke(module, spec, call, rng)
    index = binding_result_index(spec)
    return result if index is None else result[index]


def _invoke(module, spec: OpSpec, call: Call, rng: np.random.Generator):
    function = getattr(module, binding_names(spec)[0])
    positional = []
    keywords = {}
    outs = {}
    for param in spec.params:
        value = value_of(call.args[param.name], rng)
        if param.direction is Direction.OUTPUT:
            if param.written:
                outs[param.name] = value
        elif param.keyword_only:
            keywords[param.python] = value
        else:
            positional.append(value)
    if any(out is None for out in outs.values()):
        # a null output cannot be expressed with out=None (that allocates one): pass a 0-size placeholder
        return function(*positional, **keywords)
    # every written output by its keyword (an error row may be about any of them: GeGlu's outGelu)
    named = {binding_out_keywords(spec)[name]: out for name, out in outs.items()}
    if any(keyword not in inspect.signature(function).parameters for keyword in named):
        # aten has no out overload (selu, mish_backward)
        if not allocated_by_binding(spec, call.args):
            pytest.skip("this output cannot be passed to a binding without out= (the C++ op_api tests hold it)")
        return function(*positional, **keywords)
    return function(*positional, **keywords, **named)
