"""Operator README and aclnn API docs, in the ops-nn format and language (Chinese).

Every row and sentence is derived from the spec here; the templates only lay the data out.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from opgen import formula
from opgen.emit.templating import render
from opgen.lang import Code, code, ident, markdown
from opgen.plan.operator import OperatorPlan
from opgen.plan.schedules import Schedule
from opgen.plan.signature import ApiSignature, CParam
from opgen.spec.formula_binding import latex_symbols, let_definitions, parsed_formulas
from opgen.spec.model import ErrorRow, OpSpec, Param
from opgen.spec.socs import get_soc
from opgen.types import Direction, ParamKind

_CONTEXT = "../../../docs/zh/context"


def _link(page: str) -> str:
    return f'<a href="{_CONTEXT}/{page}.md" target="_blank">{page}</a>'


def _join_names(names: list[str], last: str = "与") -> str:
    return names[0] if len(names) == 1 else "、".join(names[:-1]) + last + names[-1]


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


def usage_notes(spec: OpSpec, param: Param, schedule: Schedule | None = None) -> list[str]:
    """使用说明 lines: free notes first (Markdown from the spec, sanitised), then one line per structured
    fact of the parameter (generated from names the spec validated), the schedule's shape rules among them."""
    notes: list[str] = [markdown.text(note) for note in param.notes]
    if param.empty_tensor:
        notes.append("支持空Tensor。")
    rel = param.dtype
    if rel.promote_with:
        notes.append(
            f"数据类型与{_join_names(rel.promote_with)}的数据类型需满足数据类型推导规则（参见{_link('互推导关系')}）。"
        )
    if rel.same_as:
        notes.append(f"数据类型需要与{rel.same_as}一致。")
    if rel.castable_from:
        notes.append(
            f"数据类型需要是{_join_names(rel.castable_from)}推导之后可转换的数据类型（参见{_link('互转换关系')}）。"
        )
    if rel.cast_inputs:
        notes.append(f"输入Tensor先转换为{param.name}的数据类型，再按该数据类型计算。")
    if rel.castable_to is not None:
        notes.append(f"数据类型需要是可转换为{rel.castable_to.value}的数据类型（参见{_link('互转换关系')}）。")
    if rel.castable_to_promoted_of:
        notes.append(
            f"数据类型需要可转换为{_join_names(rel.castable_to_promoted_of)}推导之后的数据类型（参见{_link('互转换关系')}）。"
        )
    shape = param.shape
    if shape.broadcast_with:
        notes.append(f"shape需要与{_join_names(shape.broadcast_with)}满足{_link('broadcast关系')}。")
    if shape.broadcast_result_of:
        notes.append(f"shape需要与{_join_names(shape.broadcast_result_of)} broadcast之后的shape一致。")
    if shape.same_as:
        notes.append(f"shape需要与{shape.same_as}的shape一致。")
    if shape.channel_of:
        of = shape.channel_of
        notes.append(
            f"元素个数需要为1或等于{of}的通道数（{of}不足2维时通道数为1，否则为{of}.shape[1]），与shape无关；"
            f"第i个值作用于{of}第1维下标为i的全部元素，只有1个值时作用于全部元素。"
        )
    if schedule is not None:
        notes.extend(schedule.shape_notes(param.name))
    if shape.one_element:
        notes.append("只能包含1个元素，shape不限（如[]、[1]、[1, 1]），不参与broadcast，按标量参与计算。")
    if param.values is not None:
        spelled = [f'"{v}"' if isinstance(v, str) else str(v) for v in param.values]
        notes.append(f"取值为{'、'.join(spelled)}，其他取值返回错误。")
    if isinstance(param.null_default, str):
        notes.append(f'可以为空指针，此时取值为"{param.null_default}"。')
    elif param.null_default is not None:
        notes.append(f"可以为空指针，此时取值为{param.null_default!r}。")
    if param.kind is ParamKind.DOUBLE:  # the OpDef's Float attribute carries it (as ops-nn's generated aclnn does)
        notes.append("以FLOAT属性传入kernel，按float精度参与计算。")
    if not param.written:
        notes.append("接口不校验、不写入该参数，调用前后其内容不变。")
    notes.extend(_soc_dtype_notes(spec, param))
    return notes


def _soc_dtype_notes(spec: OpSpec, param: Param) -> list[str]:
    """Per-SoC dtype lists, stated only where supported SoCs differ."""
    lists = {s.soc: spec.dtypes_on(param, s.soc) for s in spec.supported_socs}
    if len({tuple(v) for v in lists.values()}) <= 1:
        return []
    return [
        f"<term>{get_soc(soc).api_doc_label}</term>：数据类型支持{'、'.join(d.value for d in dtypes)}。"
        for soc, dtypes in lists.items()
    ]


def _cell(lines: list[str]) -> Code:
    """Usage-note lines as one table cell; each line is already sanitised or generated."""
    if not lines:
        return Code("-")
    if len(lines) == 1:
        return code(" ".join(lines[0].splitlines()))
    return code("<ul>" + "".join(f"<li>{' '.join(line.splitlines())}</li>" for line in lines) + "</ul>")


def _direction(cparam: CParam) -> Code:
    if cparam.inplace:
        return Code("输入/输出")
    return Code("输入" if cparam.direction is Direction.INPUT else "输出")


def param_rows(spec: OpSpec, signature: ApiSignature, schedule: Schedule) -> list[ParamRow]:
    rows = []
    for cparam in signature.user_params:
        param = cparam.param
        assert param is not None
        if cparam.inplace:
            description = code(f"输入输出tensor，即公式中的{'与'.join(signature.replaced)}，计算结果原地写回。")
            notes = ["支持空Tensor。"] if param.empty_tensor else []
        else:
            description, notes = markdown.html_cell(param.description), usage_notes(spec, param, schedule)
        is_tensor = param.kind is ParamKind.TENSOR
        rows.append(
            ParamRow(
                name=ident(cparam.name),
                direction=_direction(cparam),
                description=description,
                notes=_cell(notes),
                dtypes=code("、".join(d.value for d in param.dtypes) or "-"),
                formats=code("、".join(param.formats) or "-"),
                rank=code(f"{param.rank[0]}-{param.rank[1]}" if is_tensor and param.rank else "-"),
                non_contiguous=code(("√" if param.non_contiguous else "×") if is_tensor and param.written else "-"),
            )
        )
    for name, text in (
        ("workspaceSize", "返回需要在Device侧申请的workspace大小。"),
        ("executor", "返回op执行器，包含了算子计算流程。"),
    ):
        none = Code("-")
        rows.append(ParamRow(Code(name), Code("输出"), Code(text), none, none, none, none, none))
    return rows


def _rows_for(spec: OpSpec, signature: ApiSignature) -> list[tuple[ErrorRow, str]]:
    """The rows an API can hit, with their doc text; for an in-place API, named as it names them."""
    if not signature.inplace:
        return [(row, spec.error_doc(row)) for row in spec.errors]
    inplace = next(p.name for p in signature.params if p.inplace)
    rows = []
    for row in spec.errors:
        check = row.check
        names = list(dict.fromkeys(inplace if n in signature.replaced else n for n in check.names()))
        if check.relational and len(names) == 1:
            continue  # relates the replaced params to each other: one tensor cannot fail it
        rows.append((row, check.inplace_doc(names) or _inplace_text(spec.error_doc(row), signature)))
    return rows


def error_groups(spec: OpSpec, signature: ApiSignature) -> list[ErrorGroup]:
    """Consecutive rows with one status share a cell (rowspan), as in the ops-nn docs."""
    groups = []
    for status, rows in itertools.groupby(_rows_for(spec, signature), key=lambda item: item[0].status):
        docs = [markdown.html_cell(text) for _, text in rows]
        groups.append(ErrorGroup(ident(status.value), status.code, docs))
    return groups


def _inplace_text(text: str, signature: ApiSignature) -> str:
    """Error texts name the main API's params; the in-place API calls them by its own name."""
    if not signature.inplace:
        return text
    inplace_name = next(p.name for p in signature.params if p.inplace)
    for name in signature.replaced:
        text = text.replace(name, inplace_name)
    for duplicate in (
        f"{inplace_name}、{inplace_name}",
        f"{inplace_name}或{inplace_name}",
        f"{inplace_name}与{inplace_name}",
    ):
        text = text.replace(duplicate, inplace_name)
    return text


@dataclass(frozen=True)
class FormulaBlock:
    title: Code | None  # e.g. "当isResult是True时："
    latex: Code
    lets: tuple[Code, ...] = ()  # "u = ..." of each local name (formula.let) the formula uses, in the spec's order


def _used_lets(expr: formula.Expr, lets: dict[str, formula.Expr]) -> list[str]:
    """The local names `expr` uses, directly or through another local name, in the spec's order."""
    used = set(formula.free_names(expr))
    for name in reversed(lets):  # a let uses only those before it
        if name in used:
            used.update(formula.free_names(lets[name]))
    return [name for name in lets if name in used]


def formula_blocks(spec: OpSpec, expr: formula.Expr, output: str | None = None) -> list[FormulaBlock]:
    """One block per combination of the mode parameters the formula uses (e.g. isResult True / False, or each
    value of an int64/string parameter with `values`); `output` (default: the first) is the left-hand side. A
    formula written with local names (formula.let) shows them, each block followed by the definitions it uses."""
    lets = let_definitions(spec)
    scope = [expr, *(lets[name] for name in _used_lets(expr, lets))]
    used = {name for part in scope for name in formula.free_names(part)}
    flags = {flag for part in scope for flag in formula.flags_used(part)}
    axes: list[tuple[str, tuple[bool | int | str, ...]]] = [(flag, (True, False)) for flag in sorted(flags)]
    axes += [(p.name, tuple(p.values)) for p in spec.params if p.values is not None and p.name in used]
    # The spec's TeX symbols are escaped for the math block; the printer builds the rest from the IR.
    symbols = {name: markdown.math(latex) for name, latex in latex_symbols(spec).items()}
    output = output or spec.formula.main_output
    lhs = symbols.get(output, output)
    sum_prefix = ""
    if output in spec.formula.reduce:  # a per-channel sum: over the elements i of channel c
        lhs, sum_prefix = f"{lhs}_{{c}}", "\\sum_{i \\in c} "

    def block(title: Code | None, mode: dict[str, bool | int | str]) -> FormulaBlock:
        def fixed(part: formula.Expr) -> formula.Expr:
            return formula.fold_constants(formula.substitute(part, mode)) if mode else part

        shown = fixed(expr)
        local = {name: fixed(definition) for name, definition in lets.items()}
        definitions = tuple(
            code(
                f"{formula.to_latex(formula.Name(name, formula.SymbolKind.TENSOR), symbols)} = "
                f"{formula.to_latex(local[name], symbols)}"
            )
            for name in _used_lets(shown, local)
        )
        latex = formula.to_latex(shown, symbols)
        return FormulaBlock(title, code(f"{lhs} = {sum_prefix}{_grouped(latex, sum_prefix)}"), definitions)

    if not axes:
        return [block(None, {})]
    blocks = []
    for values in itertools.product(*(axis_values for _, axis_values in axes)):
        mode = dict(zip((name for name, _ in axes), values, strict=True))
        title = "，".join(
            f'{name}是"{value}"' if isinstance(value, str) else f"{name}是{value}" for name, value in mode.items()
        )
        blocks.append(block(code(f"当{title}时："), mode))
    return blocks


def _grouped(latex: str, sum_prefix: str) -> str:
    """The summand in parentheses under a sum sign, else as it is."""
    return f"\\left({latex}\\right)" if sum_prefix else latex


def _products(spec: OpSpec, label: str) -> list[tuple[Code, Code]]:
    return [(code(getattr(get_soc(s.soc), label)), Code("√" if s.supported else "×")) for s in spec.socs]


def _constraints(spec: OpSpec, api_names: list[str], operator: OperatorPlan) -> list[Code]:
    lines = []
    first = spec.tensor_inputs[0]
    cast = [d for d in first.dtypes if spec.result_dtype(d) is not d]
    if cast:
        names, target = "、".join(d.value for d in cast), spec.result_dtype(cast[0]).value
        lines.append(
            code(f"- {markdown.text(first.name)}为{names}时，先转换为{target}再计算，结果的数据类型为{target}。")
        )
    truncated = list(dict.fromkeys(v.storage for v in operator.kernel.variants if v.truncates))
    for dtype in truncated:
        compute = next(v.compute for v in operator.kernel.variants if v.storage is dtype)
        name = markdown.text(spec.tensor_inputs[0].name)
        lines.append(code(f"- {name}为{dtype.value}时，在{compute.value}中计算，结果向零截断为{dtype.value}。"))
    lines.extend(_aicpu_integer_constraints(spec))
    complexes = [d.value for d in spec.routing.aicpu if d.is_complex]
    if complexes:
        name = markdown.text(spec.tensor_inputs[0].name)
        lines.append(
            code(
                f"- {name}为{'、'.join(complexes)}时，由AICPU kernel按复数定义计算（std::complex<double>，"
                "结果的实部与虚部各舍入一次）；复数结果只能写入复数类型的输出。"
            )
        )
    if spec.constraints.deterministic:
        lines.append(Code("- 确定性计算："))
        lines.extend(code(f"    - {name}默认确定性实现。") for name in api_names)
    lines.extend(code("- " + " ".join(markdown.text(note).splitlines())) for note in spec.constraints.notes)
    for param in spec.tensor_inputs:
        of = param.shape.channel_of
        if of is not None:
            lines.append(
                code(
                    f"- 通道广播：{param.name}不按broadcast关系与{of}广播，而是按{of}的第1维（通道）取值："
                    f"{of}中第1维下标为c的元素使用{param.name}展平后的第c个元素"
                    f"（{param.name}只有1个元素时全部使用该元素）；{of}不足2维时只有1个通道。"
                )
            )
    compared = spec.api.compared_aten
    if spec.golden.differs_from_torch and compared:
        lines.append(code(f"- 与PyTorch（torch.ops.aten.{markdown.text(compared)}）的差异："))
        lines.extend(
            code("    - " + " ".join(markdown.text(d.note).splitlines())) for d in spec.golden.differs_from_torch
        )
    return lines


# Scalars reach the kernels as float attributes: integers are exact up to 2**24 in magnitude.
_FLOAT_EXACT_BITS = 24


def _aicpu_integer_constraints(spec: OpSpec) -> list[Code]:
    """Integer dtypes the AICPU kernel computes in the integer itself: wrapping, and where a scalar may round."""
    routed = [d for d in spec.routing.aicpu if d.is_integral]
    if not routed:
        return []
    first = spec.tensor_inputs[0]
    promoted = [first.name, *first.dtype.promote_with]
    name = markdown.text(f"{'与'.join(promoted)}推导后的数据类型" if len(promoted) > 1 else first.name)
    names = "、".join(d.value for d in routed)
    lines = [code(f"- {name}为{names}时，由AICPU kernel在该整数类型中计算，溢出按位宽回绕（与PyTorch一致）。")]
    as_tensors = {t.param for t in spec.opdef.inputs or []}  # those arrive as tensors of the dtype itself
    scalars = [markdown.text(p.name) for p in spec.params if p.kind is ParamKind.SCALAR and p.name not in as_tensors]
    wide = [d.value for d in routed if d.itemsize * 8 > _FLOAT_EXACT_BITS]
    if scalars and wide:
        lines.append(
            code(
                f"- {name}为{'、'.join(wide)}时，{'、'.join(scalars)}以FLOAT属性传入kernel："
                f"绝对值大于2^{_FLOAT_EXACT_BITS}的整数可能被舍入。"
            )
        )
    return lines


def _number(value: float) -> Code:
    return Code(f"{value:.3g}")


def _precision(operator: OperatorPlan) -> dict | None:
    """The 精度 section: the plan's measured figures per dtype (numbers only: no spec text but the standard)."""
    rows = operator.precision
    if not rows:
        return None
    lo, hi = operator.spec.golden.value_range
    table = []
    for row in rows:
        tolerance = operator.spec.golden.tolerance[row.dtype]
        standard = tolerance.standard or f"rtol={tolerance.rtol:g}, atol={tolerance.atol:g}"
        table.append(
            {
                "output": ident(row.output),
                "dtype": ident(row.dtype.value),
                "abs": _number(row.max_abs_error),
                "rel": _number(row.max_rel_error),
                "ulp": _number(row.max_ulp_error),
                "specials": Code(str(row.special_mismatches)),
                "standard": markdown.cell(standard),
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


def _api_context(spec: OpSpec, signature: ApiSignature, schedule: Schedule) -> dict:
    return {
        "name": ident(signature.name),
        "get_workspace_name": ident(signature.get_workspace_name),
        "phase_one": code(signature.phase_one_prototype()),
        "phase_two": code(signature.phase_two_prototype()),
        "params": param_rows(spec, signature, schedule),
        "errors": error_groups(spec, signature),
    }


def render_docs(operator: OperatorPlan, example_program: str, example_path: str) -> dict[str, str]:
    spec, spec_name = operator.spec, operator.source
    sigs = list(operator.signatures)
    names = [s.name for s in sigs]
    doc_file = f"docs/{spec.api.doc_stem}.md"
    common = {
        "function": code(" ".join(markdown.text(spec.operator.function).splitlines())),
        # every computed output's formula in turn (the blocks of one output, then the next)
        "formulas": [
            block for name, expr in parsed_formulas(spec).items() for block in formula_blocks(spec, expr, name)
        ],
        "var_doc": markdown.text(spec.formula.var_doc) if spec.formula.var_doc else None,
    }
    api_doc = render(
        "op/docs/aclnn_api.md.j2",
        doc_file,
        spec_name,
        title=code(spec.api.doc_stem),
        products=_products(spec, "api_doc_label"),
        apis=[_api_context(spec, s, operator.schedule) for s in sigs],
        api_names=[ident(n) for n in names],
        constraints=_constraints(spec, names, operator),
        precision=_precision(operator),
        example_program=code(example_program),
        fence=_fence(example_program),
        **common,
    )
    readme_rows = param_rows(spec, sigs[0], operator.schedule)
    readme = render(
        "op/README.md.j2",
        "README.md",
        spec_name,
        op_type=ident(spec.operator.type),
        products=_products(spec, "readme_label"),
        params=readme_rows,
        constraints=_constraints(spec, names, operator),
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
