"""Worker: runs every op x dtype x shape case through the generated aclnn API on one SoC of the twin.

Run as `OPGEN_SOC=ascend950 python aclnn_matrix.py OUT.json OP...` (operator dirs); the SoC is fixed per
process (the twin reads it at start-up); `OPGEN_MATRIX_SPECS=DIR` reads the specs from DIR instead of specs/ (a
tree built elsewhere, its binding on PYTHONPATH). For each case the result must equal, bit for bit (NaN payloads
aside), the numpy model of the whole aclnn path (contiguous, promotion casts, broadcast, the lowered kernel
program or the AICPU double kernel, the cast to out's dtype) and must meet the spec's precision standard
as the golden tests hold it: against the float64 reference, or where an element differs from it, against the
formula evaluated in the kernel's compute dtype (which overflows and underflows where the kernel does). Writes a
JSON summary: cases run, failures, UB/trace facts for large launches.
"""

from __future__ import annotations

import inspect
import itertools
import json
import math
import os
import sys
import time
from pathlib import Path

import ml_dtypes
import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from opgen import formula as F  # noqa: E402
from opgen.plan.aclnn_path import aclnn_output  # noqa: E402
from opgen.plan.kernel import KernelPlan, aicore_dtypes, kernel_plan  # noqa: E402
from opgen.plan.opdef import opdef_plan  # noqa: E402
from opgen.plan.operator import binding_names, binding_out_keywords, binding_result_index  # noqa: E402
from opgen.plan.schedules import schedule_for  # noqa: E402
from opgen.plan.schedules.reduce_dim import ReduceDim  # noqa: E402
from opgen.spec.checks import CheckRejectIf  # noqa: E402
from opgen.spec.dtypes import DType  # noqa: E402
from opgen.spec.formula_binding import aligned_values, evaluate_reference, kernel_formula  # noqa: E402
from opgen.spec.half_split import half_shape  # noqa: E402
from opgen.spec.loader import load_spec_documents  # noqa: E402
from opgen.spec.model import OpSpec, ParamKind  # noqa: E402
from opgen.spec.socs import get_soc  # noqa: E402

LARGE = 1_000_003
LARGE_ROW = 1000  # a reduction's large case: rows of this many elements
NP_DTYPE = {
    DType.FLOAT: np.dtype(np.float32),
    DType.FLOAT16: np.dtype(np.float16),
    DType.BFLOAT16: np.dtype(ml_dtypes.bfloat16),
    DType.DOUBLE: np.dtype(np.float64),
    **{d: d.numpy for d in (DType.INT8, DType.UINT8, DType.INT16, DType.INT32, DType.INT64, DType.BOOL)},
}
DTYPE_OF = {v: k for k, v in NP_DTYPE.items()}


def typed(kind: ParamKind, value, integer_tensors: bool = False):
    """A golden scalar value as the binding takes it: int for int64, str for string, None for a null scalar; a
    scalar meeting integer tensors is an integer (truncated), as torch wants it."""
    if value is None or kind is ParamKind.STRING:
        return value
    if kind is ParamKind.SCALAR and integer_tensors:
        return int(np.trunc(float(value)))
    return int(value) if kind is ParamKind.INT64 else float(value)


def in_compute_dtype(spec: OpSpec, plan: KernelPlan, inputs, scalars, dtype: DType) -> np.ndarray | None:
    """The formula evaluated in the dtype the kernel computes `dtype` in (the generated numpy reference on inputs
    of that dtype, as the golden tests' second reference), or None where that is not a narrower float."""
    compute = plan.compute_of(dtype)
    if compute not in (DType.FLOAT, DType.FLOAT16, DType.BFLOAT16) or len(spec.outputs) != 1:
        return None
    expr = kernel_formula(spec)
    namespace: dict = {"np": np, "math": __import__("math")}
    exec(F.numpy_helpers([expr]), namespace)  # opgen's own generated source, as the golden tests carry it
    narrow = {n: a.astype(NP_DTYPE[compute]) for n, a in inputs.items()}
    with np.errstate(all="ignore"):
        result = eval(F.to_numpy(expr), namespace, aligned_values(spec, {**narrow, **scalars}))
    return np.asarray(result).astype(NP_DTYPE[spec.result_dtype(dtype)]).astype(np.float64)


def row_magnitude(spec: OpSpec, inputs, scalars) -> np.ndarray:
    """A per-row output's scale: its formula with each row sum over its terms' magnitudes (what float sums may lose
    to cancellation is relative to that)."""

    def absolute(node: F.Expr) -> F.Expr:
        return F.Reduce("sum", F.Call("abs", (node.x,))) if isinstance(node, F.Reduce) and node.op == "sum" else node

    expr = F.rewrite(kernel_formula(spec), absolute)
    env = aligned_values(spec, {**inputs, **scalars})
    return np.abs(F.evaluate(expr, env, axis=spec.split_dim(scalars), keepdims=False))


def precision_ok(spec: OpSpec, plan: KernelPlan, got: np.ndarray, inputs, scalars, dtype: DType) -> tuple[bool, float]:
    reference = evaluate_reference(spec, {**inputs, **scalars}, np.float64).reshape(got.shape)
    tol = spec.golden.tolerance[dtype]
    g, r = got.astype(np.float64), reference
    if spec.result_dtype(dtype).is_integral:  # the kernel truncates toward zero into an integer dtype
        info = np.iinfo(dtype.numpy)
        with np.errstate(invalid="ignore"):
            r = np.clip(np.nan_to_num(np.trunc(r), nan=0.0), info.min, info.max)

    scale = np.abs(r)
    if spec.formula.main_output in spec.per_row_outputs:  # a row's sum: within rtol of the sum of its terms' sizes
        scale = np.maximum(scale, row_magnitude(spec, inputs, scalars).reshape(got.shape))

    def bad_against(r: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore"):
            return ~((np.isnan(g) & np.isnan(r)) | (g == r) | (np.abs(g - r) <= tol.atol + tol.rtol * scale))

    bad = bad_against(r)
    if bad.any() and not spec.result_dtype(dtype).is_integral:
        narrow = in_compute_dtype(spec, plan, inputs, scalars, dtype)
        if narrow is not None:
            bad &= bad_against(np.broadcast_to(narrow, g.shape))
    ratio = float(bad.mean()) if bad.size else 0.0
    return ratio <= tol.max_fail_ratio, ratio


def same_bits(got: np.ndarray, want: np.ndarray) -> bool:
    g, w = got.astype(np.float64), want.astype(np.float64)
    nan = np.isnan(g) & np.isnan(w)
    uint = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[got.dtype.itemsize]
    bits = np.ascontiguousarray(got).view(uint) == np.ascontiguousarray(want).view(uint)
    return bool((bits | nan).all()) and np.array_equal(np.isnan(g), np.isnan(w))


def shape_cases(spec: OpSpec, dtype: DType, large: bool, dim: int | None = None):
    """(label, {input: shape}, the first output's shape). A half split's cases are its halves' shapes, along `dim`
    (the split tensor doubles them; a 0-d half has no dim to split along). Every case is within the spec's rank
    ranges: a shape below the lowest rank gains size-1 dims (OpSpec.within_rank), a 0-d case below it is left out."""
    names = [p.name for p in spec.tensor_inputs]
    cases = [(f"n{n}", dict.fromkeys(names, (n,))) for n in (1, 31, 32, 33, 4096 + 3)]
    if large:  # a reduction along dim: rows that fit in UB, many of them (every core busy, x read once)
        rows_of = isinstance(schedule_for(spec), ReduceDim)
        large_shape = (LARGE // LARGE_ROW + 1, LARGE_ROW) if rows_of else (LARGE,)
        cases.append((f"n{LARGE}", dict.fromkeys(names, large_shape)))
    cases += [
        ("0d", dict.fromkeys(names, ())),
        ("empty", dict.fromkeys(names, (3, 0))),
        ("8d", dict.fromkeys(names, (2, 1, 3, 1, 2, 1, 2, 3))),
    ]
    if spec.outputs[0].shape.broadcast_result_of:
        cases.append(("broadcast", dict(zip(names, [(4, 1, 5), (3, 5)], strict=True))))
    if any(spec.param(n).shape.channel_of for n in names):
        cases += [("channels", dict.fromkeys(names, (2, 5, 3))), ("one_value", dict.fromkeys(names, (2, 5, 3)))]
    found = []
    for label, shapes in cases:
        if label == "0d" and (spec.split is not None or spec.lowest_rank > 0):
            continue  # out of the rank range (lifted, it would repeat n1)
        if any(len(s) > spec.param(n).rank[1] for n, s in shapes.items() if spec.param(n).rank is not None):
            continue  # above a rank range (features of rank 2 exactly)
        # within every tensor's rank range: (n,) as (1, n) where rank 2 is needed (GeluMul), the split dim kept
        shapes = {n: spec.within_rank(s, dim) for n, s in shapes.items()}
        # a channel input holds one value per channel of the tensor it follows (one value in the one_value case)
        shapes = {n: spec.input_shape(n, s, one_value=label == "one_value", dim=dim) for n, s in shapes.items()}
        found.append((label, shapes, shape_of(spec, spec.outputs[0].name, shapes, dim)))
    return found


def shape_of(spec: OpSpec, name: str, shapes: dict[str, tuple[int, ...]], dim: int | None) -> tuple[int, ...]:
    """Output `name`'s shape in a case of these input shapes: the inputs' (broadcast); a half split's, its split
    tensor's or that with size(dim) halved."""
    if spec.split is None:
        shape = tuple(np.broadcast_shapes(*(spec.aligned_shape(n, shapes) for n in shapes)))
        # one value per row: without the reduced dim (a literal dim, or the example's)
        return spec.row_shape(shape, spec.example.scalars) if name in spec.per_row_outputs else shape
    full = shapes[spec.split.tensor]
    assert dim is not None
    return full if spec.full_size(name) else half_shape(full, dim)


def refused(spec: OpSpec, scalars: dict) -> bool:
    """Whether a `reject_if` row of the spec refuses these scalar and flag values (aclnnRrelu's training = true,
    aclnnEluBackward's isResult with a negative alpha): the API fails such a call, so the matrix has no result to
    hold; the golden tests and the C++ op_api tests check the refusal."""
    return any(isinstance(row.check, CheckRejectIf) and row.check.rejects(spec, scalars) for row in spec.errors)


def make_input(shape, dtype: np.dtype, rng, lo, hi, strided: bool, extremes: bool = True) -> np.ndarray:
    size = int(np.prod(shape)) if shape else 1
    if dtype.kind == "b":  # False and True first, then either
        data = rng.integers(0, 1, size, endpoint=True).astype(dtype)
        data[: min(size, 2)] = [False, True][: min(size, 2)]
        data = data.reshape(shape)
    elif dtype.kind in "iu":  # integers: the dtype's extremes, -1, 0, 1, then integers over the golden range
        info = np.iinfo(dtype)
        edges = ([int(info.min), int(info.max)] if extremes else []) + [-1 if info.min < 0 else 2, 0, 1]
        low, high = max(int(np.floor(lo)), int(info.min)), min(int(np.ceil(hi)), int(info.max))
        data = rng.integers(low, high, size, endpoint=True).astype(dtype)
        data[: min(size, len(edges))] = np.array(edges[: min(size, len(edges))]).astype(dtype)
        data = data.reshape(shape)
    else:
        special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan], dtype=np.float64)
        data = rng.uniform(lo, hi, size)
        data[: min(size, len(special))] = special[: min(size, len(special))]
        data = data.astype(np.float32 if dtype != np.float64 else np.float64).astype(dtype).reshape(shape)
    if strided and len(shape) >= 1 and size > 1:
        big = np.zeros(shape[:-1] + (shape[-1] * 2,), dtype)
        big[..., ::2] = data
        view = big[..., ::2]
        assert not view.flags.c_contiguous
        return view
    return data


def run(out_path: str, ops: list[str]) -> None:
    import opgen_ops
    from opgen.twin.trace import read_trace

    soc = get_soc(os.environ.get("OPGEN_SOC", "ascend910b"))
    trace_file = Path(os.environ["OPGEN_TWIN_TRACE"])
    rng = np.random.default_rng(2026)
    summary = {"soc": soc.name, "cases": {}, "failures": [], "large": {}, "seconds": 0.0}
    start = time.time()
    by_dir: dict[str, list[OpSpec]] = {}
    for path in sorted(Path(os.environ.get("OPGEN_MATRIX_SPECS", ROOT / "specs")).glob("*.yaml")):
        for document in load_spec_documents(path):  # a file may describe several operators of one directory
            by_dir.setdefault(document.spec.operator.dir, []).append(document.spec)
    for op, spec in [(name, spec) for name in ops for spec in by_dir[name]]:
        summary["cases"].setdefault(op, 0)
        plan = kernel_plan(spec)
        function = getattr(opgen_ops, binding_names(spec)[0])
        scalar_names = [p.name for p in spec.params if p.kind is not ParamKind.TENSOR]
        flag_names = [n for n in scalar_names if spec.param(n).kind is ParamKind.BOOL]
        for dtype in spec.tensor_inputs[0].dtypes:
            if dtype.is_complex:  # real-valued inputs and comparisons here: the golden tests and
                continue  # tests/e2e/test_ops_nn_dtypes.py run complex dtypes against torch
            np_dtype = NP_DTYPE[dtype]
            for flags in itertools.product((False, True), repeat=len(flag_names)):
                scalars = {
                    n: typed(
                        spec.param(n).kind,
                        spec.golden.scalar_values.get(n, [spec.example.scalars[n]])[
                            -2 if len(spec.golden.scalar_values.get(n, [0])) > 1 else 0
                        ],
                        dtype.is_integral,
                    )
                    for n in scalar_names
                    if n not in flag_names
                }
                scalars.update(dict(zip(flag_names, flags, strict=True)))
                if refused(spec, scalars):  # the error rows' own cases run these (opgen.plan.cases)
                    continue
                large = dtype is spec.tensor_inputs[0].dtypes[0] and not any(flags) and spec is by_dir[op][0]
                dim = spec.split_dim(scalars) if spec.split is not None else None
                for label, shapes, out_shape in shape_cases(spec, dtype, large, dim):
                    for strided in (False, True):
                        if strided and label not in ("n33", "8d", "broadcast", "channels"):
                            continue
                        lo, hi = spec.golden.value_range
                        extremes = spec.golden.integer_extremes
                        inputs = {n: make_input(s, np_dtype, rng, lo, hi, strided, extremes) for n, s in shapes.items()}
                        out_holder = None
                        out = None
                        out_keyword = binding_out_keywords(spec)[spec.outputs[0].name]
                        takes_out = out_keyword in inspect.signature(function).parameters  # not selu, mish_backward
                        if strided and not takes_out:
                            continue  # the strided-output cases need out=
                        if strided and len(out_shape) >= 1:
                            out_np = NP_DTYPE[spec.result_dtype(dtype)]  # FLOAT for erfinv's integer self
                            out_holder = np.full(out_shape[:-1] + (out_shape[-1] * 2,), 7, out_np)
                            out = out_holder[..., ::2]
                        args = []
                        keywords = {}
                        for p in spec.params:
                            if p.kind is ParamKind.TENSOR and p.direction.value == "input":
                                args.append(inputs[p.name])
                            elif p.kind is not ParamKind.TENSOR and p.keyword_only:
                                keywords[p.python] = scalars[p.name]
                            elif p.kind is not ParamKind.TENSOR:
                                args.append(scalars[p.name])
                        trace_file.unlink(missing_ok=True)
                        name = f"{op}/{dtype.value}/{label}/{'strided' if strided else 'dense'}/{flags}"
                        try:
                            if out is not None:
                                keywords[out_keyword] = out
                            got = function(*args, **keywords)
                            if binding_result_index(spec) is not None:  # a tuple of every output, as aten's
                                got = got[binding_result_index(spec)]
                        except Exception as exc:
                            summary["failures"].append(f"{name}: raised {exc}")
                            continue
                        summary["cases"][op] += 1
                        if got.shape != tuple(out_shape):
                            summary["failures"].append(f"{name}: shape {got.shape} != {out_shape}")
                            continue
                        if out_holder is not None and not np.all(out_holder[..., 1::2].astype(np.float64) == 7):
                            summary["failures"].append(f"{name}: wrote outside the output view")
                        dtypes = {n: DTYPE_OF[a.dtype] for n, a in inputs.items()}
                        want = aclnn_output(spec, plan, inputs, dtypes, scalars, spec.result_dtype(dtype))
                        # AICPU-routed dtypes compute in double with the C library's functions, which may differ
                        # from numpy's by an ulp: there the model is held to 1e-13, elsewhere to the bit
                        aicpu = dtype not in aicore_dtypes(spec)
                        if got.size and aicpu and np.allclose(got, want, rtol=1e-13, atol=0, equal_nan=True):
                            pass
                        elif got.size and not same_bits(got, want):
                            g, w = got.reshape(-1).astype(np.float64), want.reshape(-1).astype(np.float64)
                            diff = np.nonzero(~((g == w) | (np.isnan(g) & np.isnan(w))))[0]
                            summary["failures"].append(
                                f"{name}: {len(diff)} bits differ, e.g. {g[diff[:3]]} vs {w[diff[:3]]}"
                            )
                        ok, ratio = precision_ok(spec, plan, got, inputs, scalars, dtype)
                        if not ok:
                            summary["failures"].append(f"{name}: precision standard failed ({ratio:.2e} of elements)")
                        if label == f"n{LARGE}" and not strided:
                            # the kernel entry is named after the file stem (`stem: tanh_op` for a libm name)
                            entry = spec.operator.file_stem
                            launches = [t for t in read_trace(trace_file) if t.kernel == entry]
                            if not launches:
                                summary["failures"].append(f"{name}: no kernel launch traced")
                                continue
                            launch = launches[-1]
                            totals = launch.totals()
                            itemsize = np_dtype.itemsize
                            summary["large"][f"{op}/{dtype.value}"] = {
                                "block_dim": launch.block_dim,
                                "gm_to_ub_bytes": totals.gm_to_ub_bytes,
                                "ub_to_gm_bytes": totals.ub_to_gm_bytes,
                                "ub_high_water": totals.ub_high_water,
                                "vector_calls": {k: v.calls for k, v in totals.vector.items()},
                            }
                            if launch.block_dim != soc.vector_cores:
                                summary["failures"].append(
                                    f"{name}: {launch.block_dim} cores used of {soc.vector_cores}"
                                )
                            # every input holding one value per element is read once; a channel input holding
                            # fewer values fills its tiles in the kernel
                            # (an API input the OpDef does not pass to the kernel, e.g. LogSigmoidBackward's buffer, is
                            # not read at all)
                            kernel_reads = {i.param for i in opdef_plan(spec).read_inputs}
                            read = sum(a.nbytes for n, a in inputs.items() if a.size >= LARGE and n in kernel_reads)
                            if totals.gm_to_ub_bytes != read:
                                summary["failures"].append(f"{name}: read {totals.gm_to_ub_bytes} bytes from GM")
                            # one kernel writes every computed output once (a half split's: half or full size)
                            written = sum(
                                math.prod(shape_of(spec, o.name, shapes, dim)) * itemsize for o in spec.outputs
                            )
                            if totals.ub_to_gm_bytes != written:
                                summary["failures"].append(f"{name}: wrote {totals.ub_to_gm_bytes} bytes to GM")
    summary["seconds"] = round(time.time() - start, 1)
    Path(out_path).write_text(json.dumps(summary, indent=1))


if __name__ == "__main__":
    run(sys.argv[1], sys.argv[2:])
