"""How fast the CPU twin runs generated operators through the Python binding, next to numpy.

    python benchmarks/twin_speed.py            # the full run (about a minute once the library is built)
    python benchmarks/twin_speed.py --quick    # fewer repeats

Prints, measured in this run on this machine:

* twin time / numpy time, float32, for `opgen_ops.leaky_relu(x, 0.1)` against
  `np.where(x > 0, x, x * np.float32(0.1))` at 1e6 and 1e7 elements (target: <= 2.0, i.e. the twin at least
  half as fast as numpy), the same with a preallocated `out=`, and for `opgen_ops.elu_backward` against its
  numpy formula (no target);
* microseconds per binding call on a 16-element float32 array (target: <= 50 us).

It says whether each target is met; it never fails on a timing (timings belong to a machine, not to the unit
tests). The first run builds the twin's operator library (a few minutes; cached in ~/.cache/opgen or
$OPGEN_CACHE_DIR). The machine may be shared: large sizes interleave the twin and numpy and keep the best
median of three rounds; small calls print the median single call (which the target is checked against), the
best batch mean and the CPU time per call.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
for _path in (ROOT / "generated" / "python", ROOT):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

import opgen_ops  # noqa: E402
from opgen_ops import _runtime  # noqa: E402

RATIO_TARGET = 2.0  # twin time <= 2x numpy time
SMALL_CALL_TARGET_US = 50.0
SLOPE = 0.1


def _median_seconds(function: Callable[[], object], repeats: int, budget_s: float) -> float:
    """Median wall time of `function` over `repeats` calls (fewer, but at least 3, past `budget_s`)."""
    times: list[float] = []
    start = time.perf_counter()
    for _ in range(repeats):
        t0 = time.perf_counter()
        function()
        times.append(time.perf_counter() - t0)
        if time.perf_counter() - start > budget_s and len(times) >= 3:
            break
    return statistics.median(times)


def _compare(name: str, twin: Callable[[], object], ref: Callable[[], object], repeats: int) -> float:
    """Twin time / numpy time; both warmed up, interleaved in three rounds, best median of each."""
    twin()
    ref()
    twin_times, ref_times = [], []
    for _ in range(3):
        twin_times.append(_median_seconds(twin, repeats, 4.0))
        ref_times.append(_median_seconds(ref, repeats, 4.0))
    t_twin, t_ref = min(twin_times), min(ref_times)
    ratio = t_twin / t_ref
    print(f"  {name:<28} twin {t_twin * 1e3:9.2f} ms   numpy {t_ref * 1e3:9.2f} ms   twin/numpy {ratio:5.2f}")
    return ratio


def _per_call_us(function: Callable[[], object], batches: int, calls: int) -> tuple[float, float, float]:
    """(median single call, best batch mean, CPU time per call), in microseconds.

    On a shared machine a batch is also charged for the time other processes hold the CPU; the median single
    call is what one call takes when it runs, the CPU time what this process spent on it."""
    for _ in range(200):
        function()
    batch_means, cpu_means, singles = [], [], []
    clock = time.perf_counter_ns
    for _ in range(batches):
        c0 = time.process_time_ns()
        t0 = clock()
        for _ in range(calls):
            function()
        batch_means.append((clock() - t0) / calls / 1e3)
        cpu_means.append((time.process_time_ns() - c0) / calls / 1e3)
        for _ in range(calls):
            s0 = clock()
            function()
            singles.append((clock() - s0) / 1e3)
    return statistics.median(singles), min(batch_means), min(cpu_means)


def _leaky_relu_numpy(x: np.ndarray) -> np.ndarray:
    return np.where(x > 0, x, x * np.float32(SLOPE))


def _elu_backward_numpy(grad: np.ndarray, x: np.ndarray, alpha: float, scale: float, input_scale: float) -> np.ndarray:
    negative = np.float32(input_scale * alpha * scale) * np.exp(x * np.float32(input_scale))
    return grad * np.where(x > 0, np.float32(scale), negative)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    args = parser.parse_args(argv)
    repeats = 3 if args.quick else 7

    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cpus, load average {load:.2f}; "
        f"python {platform.python_version()}, numpy {np.__version__}"
    )
    if os.environ.get("OPGEN_OPS_LIB"):
        print(f"op library: {os.environ['OPGEN_OPS_LIB']} (OPGEN_OPS_LIB)")
    else:
        print("loading the CPU-twin operator library (the first run builds it: this can take a few minutes) ...")
    sys.stdout.flush()
    t0 = time.perf_counter()
    _runtime.library()
    print(f"library ready in {time.perf_counter() - t0:.1f} s")

    rng = np.random.default_rng(0)
    met: dict[str, bool] = {}

    # A fast wrong answer is no answer: the twin must agree with the numpy model bit for bit.
    probe = rng.standard_normal(4099).astype(np.float32)
    probe[:5] = [0.0, -0.0, np.inf, -np.inf, np.nan]
    got = opgen_ops.leaky_relu(probe, SLOPE)
    want = _leaky_relu_numpy(probe)
    same = np.array_equal(got.view(np.uint32), want.view(np.uint32))
    print(f"leaky_relu bit-exact with numpy on 4099 elements (+-0, +-inf, nan): {'yes' if same else 'NO'}")

    print("\nfloat32, twin time / numpy time (target for leaky_relu: <= 2.0):")
    for n in (1_000_000, 10_000_000):
        x = rng.standard_normal(n).astype(np.float32)
        out = np.empty_like(x)
        grad = rng.standard_normal(n).astype(np.float32)
        ratio = _compare(
            f"leaky_relu        n={n:.0e}",
            partial(opgen_ops.leaky_relu, x, SLOPE),
            partial(_leaky_relu_numpy, x),
            repeats,
        )
        met[f"leaky_relu at {n:.0e} elements: twin/numpy {ratio:.2f} <= {RATIO_TARGET:.1f}"] = ratio <= RATIO_TARGET
        _compare(
            f"leaky_relu out=   n={n:.0e}",
            partial(opgen_ops.leaky_relu, x, SLOPE, out=out),
            partial(_leaky_relu_numpy, x),
            repeats,
        )
        _compare(
            f"elu_backward      n={n:.0e}",
            partial(opgen_ops.elu_backward, grad, 1.0, 1.0, 1.0, False, x),
            partial(_elu_backward_numpy, grad, x, 1.0, 1.0, 1.0),
            repeats,
        )
        del x, out, grad

    print("\nper call, 16 float32 elements (target for leaky_relu: <= 50 us):")
    small = rng.standard_normal(16).astype(np.float32)
    small_grad = rng.standard_normal(16).astype(np.float32)
    batches, calls = (5, 300) if args.quick else (10, 1000)
    cases: list[tuple[str, Callable[[], object]]] = [
        ("leaky_relu", partial(opgen_ops.leaky_relu, small, SLOPE)),
        ("elu_backward", partial(opgen_ops.elu_backward, small_grad, 1.0, 1.0, 1.0, False, small)),
        ("numpy where (leaky_relu)", partial(_leaky_relu_numpy, small)),
    ]
    print(f"  {'':<26} {'median call':>12} {'best batch':>12} {'CPU/call':>12}   (us; batches of {calls} calls)")
    for name, function in cases:
        median, best, cpu = _per_call_us(function, batches, calls)
        print(f"  {name:<26} {median:12.1f} {best:12.1f} {cpu:12.1f}")
        if name == "leaky_relu":
            met[f"16-element leaky_relu: {median:.1f} us per call (median) <= {SMALL_CALL_TARGET_US:.0f} us"] = (
                median <= SMALL_CALL_TARGET_US
            )

    print("\ntargets:")
    for name, ok in met.items():
        print(f"  {'met    ' if ok else 'NOT met'}  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
