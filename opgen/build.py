"""`opgen build`: specs -> plans -> the complete generated tree, as bytes in memory.

Each spec is loaded and validated once (`opgen.spec`), planned once (`opgen.plan`), and every emitter
(`opgen.emit`) renders its artifact from that plan. This module only gathers the emitters' files under
each operator's directory, so the tree is deterministic and can be compared or written in one go.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from opgen.emit.aicpu import render_aicpu
from opgen.emit.cmake import render_cmake
from opgen.emit.docs import render_docs
from opgen.emit.example import example_path, render_example
from opgen.emit.golden_tests import render_golden_tests
from opgen.emit.host import render_host
from opgen.emit.kernel import render_kernel
from opgen.emit.op_api import render_op_api
from opgen.emit.python import python_fragment, render_python
from opgen.emit.tests import render_tests
from opgen.emit.torch_npu import render_torch_npu, torch_npu_fragment
from opgen.lang.python_format import format_python
from opgen.output_tree import safe_relative
from opgen.plan.operator import OperatorPlan, PlanError, plan_operator
from opgen.spec.diagnostics import Diagnostic, SpecError
from opgen.spec.loader import LoadedSpec, load_spec_text, load_specs


def plan_specs(loaded: list[LoadedSpec]) -> list[OperatorPlan]:
    """Plan every spec; raise one SpecError with the problems of all of them, at their spec fields."""
    plans: list[OperatorPlan] = []
    problems: list[Diagnostic] = []
    for item in loaded:
        try:
            plans.append(plan_operator(item.spec, item.source.file))
        except PlanError as exc:
            problems.extend(
                Diagnostic(item.source.location_of(p.path), p.path, p.message, p.kind) for p in exc.problems
            )
    if problems:
        raise SpecError(problems)
    return plans


def check_spec_text(text: str, name: str) -> OperatorPlan:
    """One spec's text loaded, validated and planned (for tools and tests), or a SpecError."""
    return plan_specs([load_spec_text(text, name)])[0]


def check_specs(spec_dir: Path) -> list[OperatorPlan]:
    """What `opgen check` runs: every spec loaded, validated and planned, or one SpecError for all."""
    return plan_specs(load_specs(spec_dir))


def emit_docs_and_example(plan: OperatorPlan) -> dict[str, str]:
    program = render_example(plan)
    files = {example_path(plan.spec): program}
    body = program.split("\n", 1)[1]  # the doc shows the program without its generated-file notice
    files.update(render_docs(plan, body, example_path(plan.spec)))
    return files


def emit_op_kernel(plan: OperatorPlan) -> dict[str, str]:
    return {**render_kernel(plan), **render_aicpu(plan)}


# One entry per artifact of an operator package; each is a pure function of the plan.
EMITTERS: list[Callable[[OperatorPlan], dict[str, str]]] = [
    emit_docs_and_example,
    render_host,
    emit_op_kernel,
    render_op_api,
    render_golden_tests,
    render_tests,
    render_cmake,
]


@dataclass(frozen=True)
class BuildResult:
    specs: list[LoadedSpec]
    plans: list[OperatorPlan]
    files: dict[str, bytes]


def render_operator(plan: OperatorPlan) -> dict[str, str]:
    """Every file of one operator package, by path relative to the output tree (Python not yet formatted)."""
    files: dict[str, str] = {}
    for emitter in EMITTERS:
        for rel, text in emitter(plan).items():
            path = safe_relative(f"{plan.op}/{rel}")
            if path in files:
                raise AssertionError(f"two emitters produce {path}")
            files[path] = text
    return files


def build_tree(spec_dir: Path) -> BuildResult:
    loaded = load_specs(spec_dir)
    plans = plan_specs(loaded)
    texts: dict[str, str] = {}
    for plan in plans:
        texts.update(render_operator(plan))
    shared = {
        **render_python([python_fragment(plan) for plan in plans]),
        **render_torch_npu([torch_npu_fragment(plan) for plan in plans]),
    }
    for rel, text in shared.items():
        texts[safe_relative(rel)] = text
    files = {rel: text.encode("utf-8") for rel, text in format_python(texts).items()}
    return BuildResult(loaded, plans, dict(sorted(files.items())))
