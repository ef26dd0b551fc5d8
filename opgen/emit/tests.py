"""tests/ of an operator package, in the ops-nn layout:

- `tests/ut/op_api/test_aclnn_<api>.cpp` per aclnn API (the in-place one too): one case per error-table row
  asserting its status (null workspaceSize/executor included), one success case per dtype (and per extra
  mode) whose output is checked against the plan's expectations through the kernel's precision path
  (`opgen.plan.op_api_expectations`);
- `tests/ut/op_host/test_<op>_tiling.cpp`: `Plan<OpType>Tiling` per SoC x kernel variant x size, checked
  against `opgen.plan.tiling` and against the tiling's invariants (cores, 32-byte blocks, UB budget);
- `tests/ut/op_api/op_api_ut.h`, the helpers the op_api tests share; the tests include "gtest/gtest.h" as
  ops-nn's do, which on the twin is `opgen/twin/include/gtest/gtest.h` (one stand-in, not a copy per package);
- `tests/golden/gen_data.py` and `compare_data.py`: standalone CANN-style input/golden generation and
  comparison under the spec's precision standard (settings, options, derived inputs and the split: the golden
  plan, `opgen.plan.golden`, which the golden tests print too).

What it prints comes from the plan (`OperatorPlan`) alone.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from opgen import formula as F
from opgen.dtypes import DType
from opgen.emit.golden_tests import derived_input_context, reference_source
from opgen.emit.templating import render
from opgen.lang import Code, code, cpp, ident, idents, python
from opgen.plan.cases import Arg, Call, SocCall
from opgen.plan.dtype_table import DtypeRow, dtype_rows
from opgen.plan.golden import ScriptOption
from opgen.plan.kernel import BLOCK_BYTES
from opgen.plan.op_api_expectations import SuccessData
from opgen.plan.operator import OperatorPlan
from opgen.plan.signature import ApiSignature
from opgen.plan.unit_cases import LARGE_TILING_SIZE
from opgen.types import Direction, ParamKind

UNWRITTEN_SENTINEL = 7.0  # what an output the API never writes holds before and after a success case


# ---------------------------------------------------------------------------------------------- C++ literals


def _bits(values: np.ndarray) -> list[str]:
    return [f"0x{int(b):04x}" for b in np.ascontiguousarray(values).view(np.uint16).reshape(-1)]


def _tensor_data(values: np.ndarray, dtype: DType) -> tuple[list[str], str]:
    """(C++ items of the host data, comment with the values when they travel as bits)."""
    flat = values.reshape(-1)
    if dtype in (DType.FLOAT16, DType.BFLOAT16):
        comment = cpp.comment("values: " + ", ".join(_value_text(float(v)) for v in flat.astype(np.float64)))
        return _bits(flat), comment
    if dtype.is_integral or dtype is DType.BOOL:
        return [cpp.int_literal(int(v)) for v in flat], ""
    if dtype.is_complex:  # the parts one after the other, as std::complex lays them out
        ctype = _complex_part(dtype)
        parts = np.stack([flat.real, flat.imag], axis=-1).reshape(-1).astype(np.float64)
        return [cpp.float_literal(float(v), ctype) for v in parts], ""
    ctype = "float" if dtype is DType.FLOAT else "double"
    return [cpp.float_literal(float(v), ctype) for v in flat.astype(np.float64)], ""


def _complex_part(dtype: DType) -> str:
    return "float" if dtype is DType.COMPLEX64 else "double"


def _expected_values(values: np.ndarray) -> np.ndarray:
    """An output's expected values as UtTensor::Values reads them back: doubles, a complex element as its real and
    imaginary parts one after the other."""
    flat = values.reshape(-1)
    if np.iscomplexobj(flat):
        return np.stack([flat.real, flat.imag], axis=-1).reshape(-1).astype(np.float64)
    return flat.astype(np.float64)


def _value_text(value: float) -> str:
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return f"{value:g}" if value != 0 or math.copysign(1, value) > 0 else "-0"


def _scalar_literal(arg: Arg) -> str:
    """The host value an aclScalar of `arg.dtype` is created from."""
    dtype, value = arg.dtype, arg.value
    assert dtype is not None and value is not None  # a scalar argument has both
    if dtype is DType.FLOAT:
        return cpp.float_literal(float(value), "float")
    if dtype is DType.DOUBLE:
        return cpp.float_literal(float(value), "double")
    if dtype in (DType.FLOAT16, DType.BFLOAT16):
        return f"uint16_t{{{_bits(np.asarray([value], dtype=dtype.numpy))[0]}}}"
    if dtype is DType.BOOL:
        return "true" if value else "false"
    if dtype is DType.COMPLEX64:
        return f"std::complex<float>({cpp.float_literal(float(value), 'float')}, 0.0f)"
    if dtype is DType.COMPLEX128:
        return f"std::complex<double>({cpp.float_literal(float(value), 'double')}, 0.0)"
    return f"{dtype.host_cpp_type}{{{cpp.int_literal(int(value))}}}"


def _shape(shape: tuple[int, ...]) -> str:
    return "{" + ", ".join(str(d) for d in shape) + "}"


def pack(items: Sequence[str], first: str, indent: str, last: str = "", width: int = 120) -> list[str]:
    """`first` + the comma-separated items + `last`, packed greedily into lines of at most `width` columns
    (continuation lines start with `indent`); one line when it fits."""
    lines: list[str] = []
    line = first
    for i, item in enumerate(items):
        text = item + ("," if i + 1 < len(items) else last)
        if line not in (first, indent) and len(line) + 1 + len(text) > width:
            lines.append(line.rstrip())
            line = indent
        line += ("" if line in (first, indent) else " ") + text
    if not items:
        line += last
    lines.append(line)
    return lines


def wrap_comment(text: str, indent: int = 0, width: int = 120) -> list[str]:
    """Lines of a `// ` comment starting at column `indent`."""
    return textwrap.wrap(text, width=width - indent - 3, break_long_words=False)


# ---------------------------------------------------------------------------------------------- op_api tests


@dataclass(frozen=True)
class CaseArg:
    """One argument of a generated call: declaration lines (maybe none) and the expression passed."""

    declarations: list[str]
    expression: str


@dataclass(frozen=True)
class ApiCase:
    name: Code
    comment: list[Code]  # comment lines, escaped
    body: list[Code]  # the test body's lines, without indentation

    @staticmethod
    def of(name: str, comment: list[str], body: list[str]) -> ApiCase:
        """Comment lines may hold spec text (escaped here); body lines are code built from escaped parts."""
        return ApiCase(ident(name), [cpp.comment(line) for line in comment], [code(line) for line in body])


@dataclass(frozen=True)
class ApiTest:
    path: str
    api: Code
    suite: Code
    header: Code
    cases: list[ApiCase]
    platform: bool = False  # some case switches the SoC (opdev/platform.h)


_INDENT = "  "


def _tensor_arg(name: str, arg: Arg, data: np.ndarray | None) -> CaseArg:
    assert arg.dtype is not None  # a tensor argument has one
    acl = arg.dtype.acl_enum
    if data is None:
        return CaseArg([f"UtTensor {name}({_shape(arg.shape)}, {acl});"], f"{name}.get()")
    items, comment = _tensor_data(data, arg.dtype)
    lines = [f"// {comment}"] if comment else []
    host = _complex_part(arg.dtype) if arg.dtype.is_complex else arg.dtype.host_cpp_type
    lines += pack(items, f"const std::vector<{host}> {name}Data = {{", _INDENT * 2, "};", 120 - len(_INDENT))
    lines.append(f"UtTensor {name}({_shape(arg.shape)}, {acl}, {name}Data);")
    return CaseArg(lines, f"{name}.get()")


def _case_arg(name: str, arg: Arg, data: np.ndarray | None) -> CaseArg:
    if arg.kind == "null":
        return CaseArg([], "nullptr")
    if arg.kind == "bool":
        return CaseArg([f"const bool {name} = {'true' if arg.value else 'false'};"], name)
    if arg.kind == "int64":
        return CaseArg([f"const int64_t {name} = {int(arg.value or 0)};"], name)
    if arg.kind == "double":
        return CaseArg([f"const double {name} = {cpp.float_literal(float(arg.value or 0.0), 'double')};"], name)
    if arg.kind == "string":
        # an array: it passes as char* as well as const char*, whichever the API declares
        return CaseArg([f"char {name}[] = {cpp.string(str(arg.value))};"], name)
    if arg.kind == "scalar":
        assert arg.dtype is not None
        return CaseArg([f"UtScalar {name}({_scalar_literal(arg)}, {arg.dtype.acl_enum});"], name + ".get()")
    return _tensor_arg(name, arg, data)


def _phase_one(sig: ApiSignature, parts: list[CaseArg], null_outputs: tuple[str, ...]) -> list[str]:
    """Declarations, then `aclnnStatus ret = <Api>GetWorkspaceSize(...)`."""
    lines = [line for part in parts for line in part.declarations]
    outputs = []
    if "workspaceSize" in null_outputs:
        outputs.append("nullptr")
    else:
        lines.append("uint64_t workspaceSize = 0;")
        outputs.append("&workspaceSize")
    if "executor" in null_outputs:
        outputs.append("nullptr")
    else:
        lines.append("aclOpExecutor* executor = nullptr;")
        outputs.append("&executor")
    args = [part.expression for part in parts] + outputs
    lines += pack(args, f"aclnnStatus ret = {sig.get_workspace_name}(", _INDENT * 2, ");", 120 - len(_INDENT))
    return lines


def _inplace_args(sig: ApiSignature, call: Call) -> dict[str, Arg] | None:
    """The call's arguments for the in-place API, or None when the replaced params differ (not expressible)."""
    replaced = [call.args[name] for name in sig.replaced]
    args: dict[str, Arg] = {}
    for cparam in sig.user_params:
        if cparam.inplace:
            if any(a.kind == "null" for a in replaced):
                args[cparam.name] = Arg("null")
            elif all(a == replaced[0] for a in replaced):
                args[cparam.name] = replaced[0]
            else:
                return None
        else:
            args[cparam.name] = call.args[cparam.name]
    return args


def _api_args(sig: ApiSignature, call: Call) -> dict[str, Arg] | None:
    if sig.inplace:
        return _inplace_args(sig, call)
    return {p.name: call.args[p.name] for p in sig.user_params}


def _success_case(operator: OperatorPlan, sig: ApiSignature, data: SuccessData) -> ApiCase | None:
    call = data.call
    api_args = _api_args(sig, call)
    if api_args is None:
        return None
    inputs = data.inputs
    first = data.outputs[0]
    out, out_dtype, expected, tolerance = first.name, first.dtype, first.values, first.tolerance
    # The in-place tensor holds the first replaced input's data and receives the result.
    data_of = dict(inputs)
    output = out
    if sig.inplace:
        output = next(p.name for p in sig.user_params if p.inplace)
        data_of[output] = inputs[sig.replaced[0]]
    # An output the API never writes is given sentinels, which must still be there after the run.
    unwritten = [p.name for p in operator.unwritten_outputs if api_args.get(p.name, Arg("null")).kind != "null"]
    for name in unwritten:
        api_args[name] = Arg("tensor", call.args[out].shape, out_dtype)
        data_of[name] = np.full(call.args[out].shape, UNWRITTEN_SENTINEL).astype(out_dtype.numpy)
    parts = [_case_arg(name, arg, data_of.get(name)) for name, arg in api_args.items()]
    tensors = ", ".join(f"{n} {a.dtype.value}" for n, a in api_args.items() if a.kind == "tensor" and a.dtype)
    comment = wrap_comment(
        f"Success: {tensors}, shape {list(call.args[out].shape)}. Expected: the spec's formula through the "
        "kernel plan's precision path, computed when this file was generated."
    )
    items = [cpp.float_literal(float(v), "double") for v in _expected_values(expected)]
    allowed = math.floor(tolerance.max_fail_ratio * expected.size)
    standard = tolerance.standard or "precision standard"
    check = f"CountMismatches({output}.Values(), expected, {tolerance.rtol!r}, {tolerance.atol!r})"
    body = _phase_one(sig, parts, ())
    body += [
        "ASSERT_EQ(ret, ACLNN_SUCCESS);",
        f"ASSERT_EQ(RunPhaseTwo({sig.name}, workspaceSize, executor), ACLNN_SUCCESS);",
        "",
        *pack(items, "const std::vector<double> expected = {", _INDENT * 2, "};", 120 - len(_INDENT)),
        *(
            "// " + cpp.comment(line)
            for line in wrap_comment(
                f"{standard}: rtol {tolerance.rtol:g}, atol {tolerance.atol:g}; at most {allowed} of {expected.size} "
                "elements outside.",
                len(_INDENT),
            )
        ),
        f"EXPECT_LE({check}, {allowed}u);" if allowed else f"EXPECT_EQ({check}, 0u);",
    ]
    # every further computed output, checked the same way against its own precision path
    for other in data.outputs[1:]:
        if sig.inplace:
            break  # an in-place API writes one tensor
        values, other_tolerance = other.values, other.tolerance
        other_allowed = math.floor(other_tolerance.max_fail_ratio * values.size)
        items = [cpp.float_literal(float(v), "double") for v in _expected_values(values)]
        variable = f"expected_{other.name}"
        other_check = (
            f"CountMismatches({other.name}.Values(), {variable}, {other_tolerance.rtol!r}, {other_tolerance.atol!r})"
        )
        body += [
            "",
            f"// {other.name}: its own formula through the same kernel",
            *pack(items, f"const std::vector<double> {variable} = {{", _INDENT * 2, "};", 120 - len(_INDENT)),
            f"EXPECT_LE({other_check}, {other_allowed}u);" if other_allowed else f"EXPECT_EQ({other_check}, 0u);",
        ]
    sentinel = cpp.float_literal(UNWRITTEN_SENTINEL, "double")
    for name in unwritten:
        body.append(f"// {name} is never written: it keeps its {UNWRITTEN_SENTINEL:g}s")
        kept = f"std::vector<double>({name}.Values().size(), {sentinel})"
        body.append(f"EXPECT_EQ(CountMismatches({name}.Values(), {kept}, 0, 0), 0u);")
    return ApiCase.of(call.name, comment, body)


def _error_case(operator: OperatorPlan, sig: ApiSignature, call: Call) -> ApiCase | None:
    api_args = _api_args(sig, call)
    if api_args is None:
        return None
    parts = [_case_arg(name, arg, None) for name, arg in api_args.items()]
    assert call.row is not None  # a negative call names its row
    row = operator.errors[call.row]
    body = _phase_one(sig, parts, call.null_outputs) + [f"EXPECT_EQ(ret, {call.status_name});  // {call.status}"]
    comment = wrap_comment(f"Error row {call.row} ({row.status.value}): {row.message}")
    return ApiCase.of(call.name, comment, body)


def _soc_case(operator: OperatorPlan, sig: ApiSignature, soc_call: SocCall) -> ApiCase | None:
    """A call on another SoC: the platform switched to it for phase one (as ops-nn's UTs do), then back."""
    call = soc_call.call
    api_args = _api_args(sig, call)
    if api_args is None:
        return None
    parts = [_case_arg(name, arg, None) for name, arg in api_args.items()]
    names = " or ".join(operator.empty_return) or "output"
    if call.row is None:
        comment = f"On {soc_call.soc} an empty {names} returns success before the rows it checks later."
    else:
        row = operator.errors[call.row]
        comment = f"On {soc_call.soc} error row {call.row} ({row.status.value}) is checked before the empty return."
    body = [
        "const op::SocVersion socBefore = op::GetCurrentPlatformInfo().GetSocVersion();",
        f"op::SetPlatformSocVersion(op::SocVersion::{soc_call.soc_version});",
        *_phase_one(sig, parts, ()),
        "op::SetPlatformSocVersion(socBefore);",
        f"EXPECT_EQ(ret, {call.status_name});" + (f"  // {call.status}" if call.status else ""),
    ]
    return ApiCase.of(call.name, wrap_comment(comment), body)


def api_test(operator: OperatorPlan, sig: ApiSignature) -> ApiTest:
    """The op_api test of one API: the error rows it can express, the calls made on another SoC, then the success
    cases."""
    cases = [case for call in operator.negative_calls if (case := _error_case(operator, sig, call))]
    soc_cases = [case for call in operator.empty_soc_calls if (case := _soc_case(operator, sig, call))]
    cases += soc_cases
    cases += [case for data in operator.success_data if (case := _success_case(operator, sig, data))]
    api_snake = sig.snake
    return ApiTest(
        path=f"tests/ut/op_api/test_aclnn_{api_snake}.cpp",
        api=ident(sig.name),
        suite=ident(f"l2_{api_snake}_test"),
        header=code(operator.header_name),
        cases=cases,
        platform=bool(soc_cases),
    )


def api_tests(operator: OperatorPlan) -> list[ApiTest]:
    return [api_test(operator, sig) for sig in operator.signatures]


# ---------------------------------------------------------------------------------------------- tiling tests


def _tiling_context(operator: OperatorPlan) -> dict:
    plan, tiling = operator.kernel, operator.tiling
    assert tiling is not None  # an operator with its own kernel
    socs = tiling.socs
    variants = [
        {
            "name": ident(v.name),
            "dtype": code(v.storage.ge_enum),
            "mode": v.mode_index,
            "key": v.key,
            "item_size": v.storage.itemsize,
            "bits": v.bits_per_element,
            "align": v.align_elements,
            "masks": len(v.program.masks),
        }
        for v in plan.variants
    ]
    cases = [
        {
            "test": ident(f"{socs[case.soc].name}_{plan.variants[case.variant].name}"),
            "soc": case.soc,
            "variant": case.variant,
            "plans": [
                {"total": total, "block_dim": r.block_dim, "per_core": r.per_core_length, "tile": r.tile_length}
                for total, r in case.plans
            ],
            "split_plans": [
                {
                    "rows": x,
                    "ny": ny,
                    "block_dim": r.block_dim,
                    "rows_per_tile": r.rows_per_tile,
                    "chunk": r.chunk,
                    "chunks_per_row": r.chunks_per_row,
                    "tile": r.tile_length,
                    "gather": int(r.gather),
                }
                for (x, ny), r in case.split_plans
            ],
            "reduce_plans": [
                {
                    "rows": rows,
                    "r": r,
                    "a0": a0,
                    "block_dim": p.block_dim,
                    "rows_per_tile": p.rows_per_tile,
                    "tile": p.tile_length,
                    "columns_per_tile": p.columns_per_tile,
                    "rows_per_chunk": p.rows_per_chunk,
                    "levels": p.levels,
                }
                for (rows, r, a0), p in case.reduce_plans
            ],
        }
        for case in tiling.cases
    ]
    return {
        "op_type": ident(operator.op_type),
        "tiling_header": code(f"{operator.file_stem}_tiling.h"),
        "socs": [{"name": ident(s.name), "cores": s.vector_cores, "ub": s.ub_usable_bytes} for s in socs],
        "variants": variants,
        "cases": cases,
        "large": LARGE_TILING_SIZE,
        "block_bytes": BLOCK_BYTES,
        # ny = 1 interleaves an output written per half (Gather): UB bytes per element of the joined buffers
        "interleaves": operator.schedule.interleaves,
        "unknown_mode": plan.mode_count,  # a mode index no variant has: the tiling must refuse it
        "first_dtype": code(plan.variants[0].storage.ge_enum),
        # a dtype no variant has (INT64 never has an AI Core kernel): the tiling must refuse it
        "unknown_dtype": code(
            next(d for d in (DType.INT32, DType.INT64) if all(v.storage is not d for v in plan.variants)).ge_enum
        ),
    }


# ---------------------------------------------------------------------------------------------- golden scripts


def _option(param: ScriptOption) -> dict[str, Code]:
    """The gen_data.py command-line option of a host parameter (or of a one-element tensor's value): argparse
    keywords, and the conversion of what argparse gives back."""
    default = param.default
    if param.kind is ParamKind.BOOL:
        text = "true" if default else "false"
        return {"argument": code(f'choices=["true", "false"], default="{text}"'), "convert": Code(' == "true"')}
    if param.values is not None:
        kind = "int" if param.kind is ParamKind.INT64 else "str"
        choices = python.literal(list(param.values))
        return {
            "argument": code(f"type={kind}, choices={choices}, default={python.literal(default)}"),
            "convert": Code(""),
        }
    if param.kind is ParamKind.INT64:
        return {"argument": code(f"type=int, default={python.literal(default)}"), "convert": Code("")}
    if default is None:  # an optional scalar: left out, the API takes its null_default
        return {"argument": code("type=float, default=None"), "convert": Code("")}
    assert isinstance(default, (int, float))
    return {"argument": code(f"type=float, default={python.float_literal(float(default))}"), "convert": Code("")}


def _script_split(operator: OperatorPlan) -> dict | None:
    """A half-split operator's golden scripts: `--shape` is the split tensor's; the dim (its option's key in the
    values, or the literal) and the half-size inputs, which take the shape with size(dim) halved."""
    split = operator.golden.split
    if split is None:
        return None
    named = split.dim_python is not None
    dim = split.dim_python if split.dim_python is not None else split.dim
    half = list(split.half_inputs)
    option = f" (--{str(dim).replace('_', '-')})" if named else ""
    taking = f"; {', '.join(half)} take it with size(dim) halved" if half else ""
    return {
        "tensor": ident(split.tensor),
        # the call's dim: the named parameter's value (None when left out), or the literal dim
        "dim_value": code(f"values.get({python.string(str(dim))})") if named else code(str(dim)),
        "half_inputs": bool(half),
        "half_literal": python.literal(half),
        # the golden output (the first) written per half: full-size, a torch difference declared over the halves
        "per_half": operator.outputs[0].param.name in split.full_outputs,
        "doc": f" (--shape is {split.tensor}'s, split in two halves along dim{option}{taking})",
    }


def _golden_context(operator: OperatorPlan) -> dict:
    golden = operator.golden
    names = operator.formulas.python_names
    inputs = [p for p in operator.params if p.direction is Direction.INPUT]
    schedule = operator.schedule
    channels = [c.python for c in schedule.channel_inputs]
    rejections: list[dict[str, Code]] = []
    rejection_names: set[str] = set()
    for rejection in operator.rejections:
        rejection_names.update(names[n] for n in F.free_names(rejection.condition))
        rejections.append({"condition": code(rejection.python), "message": python.string(rejection.row.message)})
    options = [
        {
            "name": ident(o.python),
            "key": python.string(o.python),
            "option": code(o.python.replace("_", "-")),
            **_option(o),
        }
        for o in golden.options
    ]
    # a one-element tensor: the value it holds, an option (default: its first golden value)
    held = [o.python for o in golden.options if o.held]
    source = reference_source(operator.formulas, names)
    # the golden of the first output; one written per half is its halves' references joined (the schedule's)
    reference = schedule.output_references(source.outputs)[operator.outputs[0].param.name]
    every_output = [p.name for p in operator.params if p.direction is Direction.OUTPUT]
    # several computed outputs: a golden of each, from its formula or its element of aten's tuple
    computed = (
        [
            {
                "key": python.string(operator.param(name).python),
                "position": every_output.index(name),
                "reference": code(schedule.reference(name, text)),
            }
            for name, text in source.outputs.items()
        ]
        if schedule.several
        else []
    )
    reduced = {operator.param(s.output).python: (s.of_python, s.like_python) for s in schedule.sums}
    aten_views = {c.python: c.of_python for c in schedule.channel_inputs}
    goldens = ", ".join(f"golden_{rule.param.python}.bin" for rule in operator.outputs)
    # the CANN-style scripts carry floating data (.bin files of float values); integer dtypes are covered by the
    # pytest golden tests and the C++ op_api tests
    dtypes = [d.value for d in operator.tensor_inputs[0].dtypes if d.is_floating]
    shapes = [",".join(str(d) for d in shape) for shape in golden.script_shapes]
    in_double = " (double for DOUBLE)" if "DOUBLE" in dtypes else ""
    declared = (
        " (the spec's formula where the spec declares that ops-nn differs from torch)"
        if operator.torch_differences
        else ""
    )
    golden_source = (
        f"torch.ops.aten.{golden.aten} computed in float{in_double} when torch is importable{declared}, else "
        f"the spec's formula in numpy, computed in float{in_double}"
        if golden.aten
        else f"the spec's formula in numpy, computed in float{in_double}"
    )
    # those made with the inputs (which the torch golden derives anew, as the golden tests do), then those made from
    # the split tensor's halves and the options once every input is stored
    derived = "; ".join(f"{name} = {F.to_text(expr)}" for name, expr in golden.derived_inputs + golden.case_derived)
    anew = "; the torch golden derives them anew in its precision" if golden.aten and golden.derived_inputs else ""
    halves = ""
    if golden.case_derived and golden.split is not None:
        halves = f"; {' and '.join(golden.split.halves)} are {golden.split.tensor}'s halves"
    derived_doc = (
        f", but for those the spec derives from the others as stored ({derived}{anew}{halves})" if derived else ""
    )
    held_doc = " (a channel input holds one value per channel: dim 1 of the shape)" if channels else ""
    split = _script_split(operator)
    if split is not None:
        held_doc += split.pop("doc")
    if held:
        held_doc += f" (a one-element tensor holds the value of its option: {', '.join(held)})"
    doc = (
        f"Writes input_<name>.bin for each tensor input{held_doc} and {goldens}: raw "
        "little-endian arrays of the dtype (BFLOAT16 as 16-bit patterns). Inputs are uniform over the spec's value "
        f"range, led by its special values{derived_doc}. The golden is {golden_source}; then it is rounded to the "
        "dtype (BFLOAT16 through float). Standalone: needs numpy, and torch for the aten golden."
    )
    return {
        "doc": [python.docstring_body(line) for line in textwrap.wrap(doc, width=116)],
        "op_type": ident(operator.op_type),
        "api": ident(operator.main.name),
        "aten": ident(golden.aten) if golden.aten else None,
        # aten returning several tensors (log_sigmoid_forward: output, buffer): the computed one
        "aten_pick": code(f"[{operator.result_index}]" if operator.result_index is not None else ""),
        "dtypes": python.literal(dtypes),
        "value_range": python.literal(golden.value_range),
        "special": python.literal(list(golden.special_values)),
        "tensors": python.literal([p.python for p in operator.tensor_inputs]),
        "output": ident(operator.outputs[0].param.python),
        "output_literal": python.string(operator.outputs[0].param.python),
        "params": idents([p.python for p in inputs]),
        "params_literal": python.literal([p.python for p in inputs]),
        "keyword_only": python.literal([p.python for p in inputs if p.keyword_only]),
        "channels": python.literal(channels) if channels else None,
        "held": python.literal(held) if held else None,
        "options": options,
        "reference": code(reference),
        "lets": source.assignments,
        "computed": computed,
        "reduced": python.literal(reduced) if reduced else None,
        "aten_views": python.literal(aten_views),
        "differences": [code(F.to_numpy(c, names)) for c in operator.torch_differences],
        "helpers": code(operator.numpy_helpers.strip()),
        **derived_input_context(operator),
        "rejections": rejections,
        "rejection_names": [{"ident": o["name"], "key": o["key"]} for o in options if o["name"] in rejection_names],
        "default_shape": code(shapes[-1] if shapes else "33"),
        "split": split,
        "tolerance": {
            python.string(d.value): python.literal((t.rtol, t.atol, t.max_fail_ratio, t.standard or ""))
            for d, t in golden.tolerance.items()
        },
    }


# ---------------------------------------------------------------------------------------------- op_api_ut.h


def _host_element(row: DtypeRow) -> Code:
    """C++ reading element `i` of a host copy of a tensor of dtype `row` (`bytes`) as a double: FLOAT16/BF16 travel
    as bits, a complex element as two parts, 64-bit integers exact up to 2**53 (the expectations are doubles too)."""
    if row.is_complex:
        return code(f"Load<{'float' if row.itemsize == 8 else 'double'}>(bytes, i)")
    if row.name == "FLOAT16":
        return code("aclFloat16ToFloat(Load<uint16_t>(bytes, i))")
    if row.name == "BFLOAT16":
        return code("BFloat16ToFloat(Load<uint16_t>(bytes, i))")
    load = f"Load<{row.host_cpp_type}>(bytes, i)"
    return code(f"static_cast<double>({load})" if row.itemsize == 8 and row.is_integral else load)


def _ut_helper_context() -> dict[str, object]:
    """op_api_ut.h's dtype cases, one per dtype of the table (the enum is written in opgen.spec.dtypes only)."""
    rows = dtype_rows()
    return {
        "host_elements": [(ident(row.acl_enum), _host_element(row)) for row in rows],
        "complex_test": code(" || ".join(f"dtype_ == {row.acl_enum}" for row in rows if row.is_complex)),
    }


# ---------------------------------------------------------------------------------------------- entry point


def render_tests(operator: OperatorPlan) -> dict[str, str]:
    spec_name = operator.source
    op = operator.file_stem
    helper = "tests/ut/op_api/op_api_ut.h"
    guard = ident(f"{operator.op.upper()}_TESTS_UT_OP_API_OP_API_UT_H_")  # one header per directory
    files = {
        helper: render("op/tests/ut/op_api/op_api_ut.h.j2", helper, spec_name, guard=guard, **_ut_helper_context())
    }
    for test in api_tests(operator):
        files[test.path] = render("op/tests/ut/op_api/test_aclnn_api.cpp.j2", test.path, spec_name, test=test)
    if operator.runs is None:  # an operator running another's kernel has no tiling of its own
        tiling = f"tests/ut/op_host/test_{op}_tiling.cpp"
        context = _tiling_context(operator)
        template = operator.schedule.tiling_test_template
        files[tiling] = render(template, tiling, spec_name, **context)
    golden = _golden_context(operator)
    # A directory's later operators (their own stem) keep their scripts in a folder of their own.
    folder = "tests/golden/" if op == operator.op else f"tests/golden/{op}/"
    for name in ("gen_data.py", "compare_data.py"):
        path = folder + name
        text = render(f"op/tests/golden/{name}.j2", path, spec_name, **golden)
        if "math." not in text:  # no literal needed math.inf / math.nan (softmax's special values are finite)
            text = text.replace("\nimport math\n", "\n", 1)
        files[path] = text
    return files
