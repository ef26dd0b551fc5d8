"""Operator README and aclnn API docs, in the ops-nn format and language (Chinese).

Every row and sentence is decided by the plan (`OperatorPlan.docs`, opgen.plan.documentation); this module lays
them out as table cells and template data, and the templates lay the data out.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from opgen.emit.templating import render
from opgen.lang import Code, code, ident, markdown
from opgen.plan.documentation import DocsApi, DocsError, DocsParam, DocsPlan
from opgen.plan.operator import OperatorPlan
from opgen.plan.signature import ApiSignature


@dataclass(frozen=True)
class ParamRow:
    name: Code
    direction: Code
    description: Code
    notes: Code
    dtypes: Code
    formats: Code
    rank: Code
    non_contiguous: Code


@dataclass(frozen=True)
class ErrorGroup:
    status: Code
    code: int
    descriptions: list[Code]


def _cell(lines: Sequence[str]) -> Code:
    """Usage-note lines as one table cell; each line is already sanitised or generated."""
    if not lines:
        return Code("-")
    if len(lines) == 1:
        return code(" ".join(lines[0].splitlines()))
    return code("<ul>" + "".join(f"<li>{' '.join(line.splitlines())}</li>" for line in lines) + "</ul>")


def _param_row(param: DocsParam) -> ParamRow:
    marks = {True: Code("√"), False: Code("×"), None: Code("-")}
    return ParamRow(
        name=ident(param.name),
        direction=code(param.direction),
        description=param.description,
        notes=_cell(param.notes),
        dtypes=code("、".join(param.dtypes) or "-"),
        formats=code("、".join(param.formats) or "-"),
        rank=code(param.rank or "-"),
        non_contiguous=marks[param.non_contiguous],
    )


def param_rows(api: DocsApi) -> list[ParamRow]:
    rows = [_param_row(param) for param in api.params]
    for name, text in (
        ("workspaceSize", "返回需要在Device侧申请的workspace大小。"),
        ("executor", "返回op执行器，包含了算子计算流程。"),
    ):
        none = Code("-")
        rows.append(ParamRow(Code(name), Code("输出"), Code(text), none, none, none, none, none))
    return rows


def error_groups(errors: Sequence[DocsError]) -> list[ErrorGroup]:
    """Consecutive rows with one status share a cell (rowspan), as in the ops-nn docs."""
    groups = []
    for (status, status_code), rows in itertools.groupby(errors, key=lambda row: (row.status, row.code)):
        groups.append(ErrorGroup(ident(status), status_code, [markdown.html_cell(row.text) for row in rows]))
    return groups


def _products(docs: DocsPlan, readme: bool) -> list[tuple[Code, Code]]:
    return [
        (code(p.readme_label if readme else p.api_doc_label), Code("√" if p.supported else "×")) for p in docs.products
    ]


def _number(value: float) -> Code:
    return Code(f"{value:.3g}")


def _precision(docs: DocsPlan) -> dict | None:
    """The 精度 section: the plan's measured figures per dtype (numbers only: no spec text but the standard)."""
    if not docs.precision:
        return None
    lo, hi = docs.value_range
    rows = [p.row for p in docs.precision]
    table = []
    for precision in docs.precision:
        row = precision.row
        table.append(
            {
                "output": ident(row.output),
                "dtype": ident(row.dtype.value),
                "abs": _number(row.max_abs_error),
                "rel": _number(row.max_rel_error),
                "ulp": _number(row.max_ulp_error),
                "specials": Code(str(row.special_mismatches)),
                "standard": markdown.cell(precision.standard),
                "fail": _number(row.fail_ratio) if row.fail_ratio is not None else Code("-"),
            }
        )
    return {
        "several": len({row.output for row in rows}) > 1,  # a column names each row's output
        "points": Code(str(rows[0].points)),
        "scalar_sets": Code(str(rows[0].scalar_sets)),
        "range": Code(f"[{lo:g}, {hi:g}]"),
        "rows": table,
    }


def _fence(program: str) -> Code:
    """A code fence longer than any backtick run in the program, so no literal in it can close the block."""
    longest = max((len(run) for run in re.findall(r"`+", program)), default=0)
    return Code("`" * max(3, longest + 1))


def _api_context(signature: ApiSignature, api: DocsApi) -> dict:
    return {
        "name": ident(signature.name),
        "get_workspace_name": ident(signature.get_workspace_name),
        "phase_one": code(signature.phase_one_prototype()),
        "phase_two": code(signature.phase_two_prototype()),
        "params": param_rows(api),
        "errors": error_groups(api.errors),
    }


def render_docs(operator: OperatorPlan, example_program: str, example_path: str) -> dict[str, str]:
    docs, source = operator.docs, operator.source
    sigs = list(operator.signatures)
    names = [s.name for s in sigs]
    doc_file = f"docs/{docs.doc_stem}.md"
    common = {
        "function": code(" ".join(markdown.text(operator.function).splitlines())),
        "formulas": list(docs.formulas),
        "var_doc": markdown.text(docs.var_doc) if docs.var_doc else None,
    }
    api_doc = render(
        "op/docs/aclnn_api.md.j2",
        doc_file,
        source,
        title=code(docs.doc_stem),
        products=_products(docs, readme=False),
        apis=[_api_context(s, api) for s, api in zip(sigs, docs.apis, strict=True)],
        api_names=[ident(n) for n in names],
        constraints=list(docs.constraints),
        precision=_precision(docs),
        example_program=code(example_program),
        fence=_fence(example_program),
        **common,
    )
    readme = render(
        "op/README.md.j2",
        "README.md",
        source,
        op_type=ident(operator.op_type),
        products=_products(docs, readme=True),
        params=param_rows(docs.apis[0]),
        constraints=list(docs.constraints),
        calls=[
            {
                "example": code(example_path),
                "example_name": code(example_path.rsplit("/", 1)[-1]),
                "doc": code(doc_file),
                "api": code(names[0] if len(names) == 1 else "&".join(names)),
            }
        ],
        **common,
    )
    return {"README.md": readme, doc_file: api_doc}
