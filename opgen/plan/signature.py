"""The C signature of each aclnn API an operator exposes (main + optional in-place variant).

One model feeds the docs' 函数原型, the public header, the op_api implementation, the calling example
and the Python bindings, so the argument order and C types are stated once.
"""

from __future__ import annotations

from dataclasses import dataclass

from opgen.spec.model import Direction, OpSpec, Param, ParamKind, snake_case


@dataclass(frozen=True)
class CParam:
    name: str
    ctype: str  # base type without pointer stars, e.g. "const aclTensor"
    stars: str  # "", "*" or "**"
    param: Param | None  # None for the phase-one outputs workspaceSize/executor
    direction: Direction
    inplace: bool = False  # the in-place tensor (input and output at once)

    def declaration(self, type_width: int) -> str:
        return f"{self.ctype:<{type_width - len(self.stars)}}{self.stars}{self.name}"


@dataclass(frozen=True)
class ApiSignature:
    name: str  # e.g. aclnnLeakyRelu
    params: tuple[CParam, ...]  # phase-one parameters in order, workspaceSize and executor last
    inplace: bool
    replaced: tuple[str, ...] = ()  # main-API params the in-place param stands for

    @property
    def snake(self) -> str:
        """The API's name after aclnn in snake case (aclnnLeakyRelu -> leaky_relu), e.g. its op_api test's file."""
        return snake_case(self.name.removeprefix("aclnn"))

    @property
    def get_workspace_name(self) -> str:
        return f"{self.name}GetWorkspaceSize"

    @property
    def user_params(self) -> tuple[CParam, ...]:
        return tuple(p for p in self.params if p.param is not None)

    def parameter_list(self, separator: str) -> str:
        """The phase-one parameters as the header and source declare them: `const aclTensor *self`."""
        return separator.join(f"{p.ctype} {p.stars}{p.name}" for p in self.params)

    def phase_one_lines(self) -> list[str]:
        width = max(len(p.ctype) + 1 + len(p.stars) for p in self.params)
        return [p.declaration(width) for p in self.params]

    def phase_one_prototype(self, indent: str = "  ") -> str:
        lines = self.phase_one_lines()
        body = (",\n" + indent).join(lines)
        return f"aclnnStatus {self.get_workspace_name}(\n{indent}{body})"

    def phase_two_prototype(self, indent: str = "  ") -> str:
        params = [
            CParam("workspace", "void", "*", None, Direction.INPUT),
            CParam("workspaceSize", "uint64_t", "", None, Direction.INPUT),
            CParam("executor", "aclOpExecutor", "*", None, Direction.INPUT),
            CParam("stream", "aclrtStream", "", None, Direction.INPUT),
        ]
        width = max(len(p.ctype) + 1 + len(p.stars) for p in params)
        body = (",\n" + indent).join(p.declaration(width) for p in params)
        return f"aclnnStatus {self.name}(\n{indent}{body})"


_PHASE_ONE_OUTPUTS = (
    CParam("workspaceSize", "uint64_t", "*", None, Direction.OUTPUT),
    CParam("executor", "aclOpExecutor", "**", None, Direction.OUTPUT),
)


# The C type of each parameter kind when the spec does not spell it (`ctype`).
_DEFAULT_CTYPES = {
    ParamKind.SCALAR: "const aclScalar*",
    ParamKind.BOOL: "bool",
    ParamKind.INT64: "int64_t",
    ParamKind.DOUBLE: "double",
    ParamKind.STRING: "const char*",
}


def _split(ctype: str) -> tuple[str, str]:
    """'const aclTensor*' -> ('const aclTensor', '*')."""
    base = ctype.rstrip("*")
    return base, ctype[len(base) :]


def _c_param(param: Param) -> CParam:
    if param.ctype is not None:
        ctype = param.ctype
    elif param.kind is ParamKind.TENSOR:
        ctype = "const aclTensor*" if param.direction is Direction.INPUT else "aclTensor*"
    else:
        ctype = _DEFAULT_CTYPES[param.kind]
    base, stars = _split(ctype)
    return CParam(param.name, base, stars, param, param.direction)


def main_signature(spec: OpSpec) -> ApiSignature:
    params = tuple(_c_param(p) for p in spec.params) + _PHASE_ONE_OUTPUTS
    return ApiSignature(spec.api.name, params, inplace=False)


def inplace_signature(spec: OpSpec) -> ApiSignature | None:
    variant = spec.api.inplace
    if variant is None:
        return None
    first = spec.param(variant.replaces[0])
    params: list[CParam] = []
    for param in spec.params:
        if param.name == first.name:
            base, stars = _split(variant.ctype or "aclTensor*")
            params.append(CParam(variant.param, base, stars, first, Direction.OUTPUT, inplace=True))
        elif param.name not in variant.replaces:
            params.append(_c_param(param))
    return ApiSignature(
        variant.name, tuple(params) + _PHASE_ONE_OUTPUTS, inplace=True, replaced=tuple(variant.replaces)
    )


def signatures(spec: OpSpec) -> list[ApiSignature]:
    extra = inplace_signature(spec)
    return [main_signature(spec)] + ([extra] if extra else [])
