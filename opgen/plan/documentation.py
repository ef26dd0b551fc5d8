"""What the operator README and aclnn API docs say, in the ops-nn format and language (Chinese), decided once.

Every row and sentence the docs state is derived here from the spec, the schedule and the plan's kernel and
precision: the parameter tables with their usage notes (使用说明), the formula blocks, the error table, the
product labels, the constraints (约束说明) and the precision standards. The docs emitter only lays them out.
Text from the spec is sanitised Markdown (`opgen.lang.markdown`) where it is mixed with generated text.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from opgen import formula
from opgen.lang import Code, code, markdown
from opgen.plan.kernel import KernelPlan
from opgen.plan.precision import PrecisionRow
from opgen.plan.schedules import Schedule
from opgen.plan.signature import ApiSignature
from opgen.spec.formula_binding import latex_symbols, let_definitions, parsed_formulas
from opgen.spec.model import ErrorRow, OpSpec, Param
from opgen.spec.socs import get_soc
from opgen.types import Direction, ParamKind

_CONTEXT = "../../../docs/zh/context"

# Scalars reach the kernels as float attributes: integers are exact up to 2**24 in magnitude.
_FLOAT_EXACT_BITS = 24


@dataclass(frozen=True)
class DocsParam:
    """One row of a parameter table (参数说明)."""

    name: str
    direction: str  # 输入, 输出 or 输入/输出 (the in-place tensor)
    description: Code  # one HTML table cell
    notes: tuple[str, ...]  # 使用说明 lines, each sanitised or generated
    dtypes: tuple[str, ...]  # as the aclnn docs name them
    formats: tuple[str, ...]
    rank: str | None  # e.g. "0-8"; None: not a tensor, or no rank stated
    non_contiguous: bool | None  # None: not a tensor, or one the API never touches (written: false)


@dataclass(frozen=True)
class DocsError:
    """One row of an API's error table, as that API names its parameters."""

    status: str  # e.g. ACLNN_ERR_PARAM_NULLPTR
    code: int
    text: str  # the row's doc text (spec prose)


@dataclass(frozen=True)
class DocsApi:
    """What one API's sections state (in the order of OperatorPlan.signatures)."""

    params: tuple[DocsParam, ...]
    errors: tuple[DocsError, ...]


@dataclass(frozen=True)
class FormulaBlock:
    title: Code | None  # e.g. "当isResult是True时："
    latex: Code
    lets: tuple[Code, ...] = ()  # "u = ..." of each local name (formula.let) the formula uses, in the spec's order


@dataclass(frozen=True)
class DocsProduct:
    """One SoC of the 产品支持情况 table."""

    api_doc_label: str
    readme_label: str
    supported: bool


@dataclass(frozen=True)
class DocsPrecision:
    """One row of the 精度 table: the plan's measured figures and the golden standard they are held to."""

    row: PrecisionRow
    standard: str  # golden.tolerance's standard, else its rtol/atol


@dataclass(frozen=True)
class DocsPlan:
    doc_stem: str  # docs/<doc_stem>.md
    var_doc: str | None  # formula.var_doc: what the formula's short names mean (spec prose)
    products: tuple[DocsProduct, ...]
    formulas: tuple[FormulaBlock, ...]  # every computed output's blocks in turn
    apis: tuple[DocsApi, ...]  # one per API signature
    constraints: tuple[Code, ...]  # the 约束说明 lines
    precision: tuple[DocsPrecision, ...]  # empty: no 精度 section
    value_range: tuple[float, float]  # golden.value_range, over which precision was measured


def _link(page: str) -> str:
    return f'<a href="{_CONTEXT}/{page}.md" target="_blank">{page}</a>'


def _join_names(names: Sequence[str], last: str = "与") -> str:
    return names[0] if len(names) == 1 else "、".join(names[:-1]) + last + names[-1]


def usage_notes(spec: OpSpec, param: Param, schedule: Schedule) -> list[str]:
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


def param_rows(spec: OpSpec, signature: ApiSignature, schedule: Schedule) -> tuple[DocsParam, ...]:
    """The API's own parameters (not workspaceSize and executor), as its 参数说明 table states them."""
    rows = []
    for cparam in signature.user_params:
        param = cparam.param
        assert param is not None
        if cparam.inplace:
            description = code(f"输入输出tensor，即公式中的{'与'.join(signature.replaced)}，计算结果原地写回。")
            notes = ["支持空Tensor。"] if param.empty_tensor else []
            direction = "输入/输出"
        else:
            description, notes = markdown.html_cell(param.description), usage_notes(spec, param, schedule)
            direction = "输入" if cparam.direction is Direction.INPUT else "输出"
        is_tensor = param.kind is ParamKind.TENSOR
        rows.append(
            DocsParam(
                name=cparam.name,
                direction=direction,
                description=description,
                notes=tuple(notes),
                dtypes=tuple(d.value for d in param.dtypes),
                formats=tuple(param.formats),
                rank=f"{param.rank[0]}-{param.rank[1]}" if is_tensor and param.rank else None,
                non_contiguous=param.non_contiguous if is_tensor and param.written else None,
            )
        )
    return tuple(rows)


def error_rows(spec: OpSpec, signature: ApiSignature) -> tuple[DocsError, ...]:
    """The rows an API can hit, with their doc text; for an in-place API, named as it names them."""
    return tuple(DocsError(row.status.value, row.status.code, text) for row, text in _rows_for(spec, signature))


def _rows_for(spec: OpSpec, signature: ApiSignature) -> list[tuple[ErrorRow, str]]:
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


def _used_lets(expr: formula.Expr, lets: dict[str, formula.Expr]) -> list[str]:
    """The local names `expr` uses, directly or through another local name, in the spec's order."""
    used = set(formula.free_names(expr))
    for name in reversed(lets):  # a let uses only those before it
        if name in used:
            used.update(formula.free_names(lets[name]))
    return [name for name in lets if name in used]


def formula_blocks(
    spec: OpSpec, schedule: Schedule, expr: formula.Expr, output: str | None = None
) -> list[FormulaBlock]:
    """One block per combination of the mode parameters the formula uses (e.g. isResult True / False, or each
    value of an int64/string parameter with `values`); `output` (default: the first) is the left-hand side. A
    formula written with local names (formula.let) shows them, each block followed by the definitions it uses.
    An output the schedule sums per channel is shown as that sum."""
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
    if schedule.sum_of(output) is not None:  # a per-channel sum: over the elements i of channel c
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


def constraints(spec: OpSpec, schedule: Schedule, kernel: KernelPlan, api_names: Sequence[str]) -> tuple[Code, ...]:
    """The 约束说明 lines."""
    lines = []
    first = spec.tensor_inputs[0]
    cast = [d for d in first.dtypes if spec.result_dtype(d) is not d]
    if cast:
        names, target = "、".join(d.value for d in cast), spec.result_dtype(cast[0]).value
        lines.append(
            code(f"- {markdown.text(first.name)}为{names}时，先转换为{target}再计算，结果的数据类型为{target}。")
        )
    # integer dtypes the kernel computes in a wider one and truncates back
    for storage in dict.fromkeys(v.storage for v in kernel.variants if v.truncates):
        compute = next(v.compute for v in kernel.variants if v.storage is storage)
        name = markdown.text(first.name)
        lines.append(code(f"- {name}为{storage.value}时，在{compute.value}中计算，结果向零截断为{storage.value}。"))
    lines.extend(_aicpu_integer_constraints(spec))
    complexes = [d.value for d in spec.routing.aicpu if d.is_complex]
    if complexes:
        name = markdown.text(first.name)
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
    lines.extend(code(f"- {line}") for line in schedule.constraint_notes())
    compared = spec.api.compared_aten
    if spec.golden.differs_from_torch and compared:
        lines.append(code(f"- 与PyTorch（torch.ops.aten.{markdown.text(compared)}）的差异："))
        lines.extend(
            code("    - " + " ".join(markdown.text(d.note).splitlines())) for d in spec.golden.differs_from_torch
        )
    return tuple(lines)


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


def _standard(spec: OpSpec, row: PrecisionRow) -> str:
    tolerance = spec.golden.tolerance[row.dtype]
    return tolerance.standard or f"rtol={tolerance.rtol:g}, atol={tolerance.atol:g}"


def docs_plan(
    spec: OpSpec,
    schedule: Schedule,
    apis: Sequence[ApiSignature],
    kernel: KernelPlan,
    precision: Sequence[PrecisionRow],
) -> DocsPlan:
    """`precision`: the plan's measured rows (empty: no 精度 section)."""
    lo, hi = spec.golden.value_range
    return DocsPlan(
        doc_stem=spec.api.doc_stem,
        var_doc=spec.formula.var_doc or None,
        products=tuple(
            DocsProduct(get_soc(s.soc).api_doc_label, get_soc(s.soc).readme_label, s.supported) for s in spec.socs
        ),
        # every computed output's formula in turn (the blocks of one output, then the next)
        formulas=tuple(
            block
            for name, expr in parsed_formulas(spec).items()
            for block in formula_blocks(spec, schedule, expr, name)
        ),
        apis=tuple(DocsApi(param_rows(spec, api, schedule), error_rows(spec, api)) for api in apis),
        constraints=constraints(spec, schedule, kernel, [api.name for api in apis]),
        precision=tuple(DocsPrecision(row, _standard(spec, row)) for row in precision),
        value_range=(lo, hi),
    )
