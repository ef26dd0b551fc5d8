"""The torch_npu integration: op-plugin YAML registrations and op_api adapters generated from the specs.

Expectations come from PyTorch itself (its registered aten schemas, and what its CPU kernels return) and from
opgen's C signatures; the adapters are compiled against the stub headers in stubs/ (a strict stand-in for
op-plugin and torch_npu) and run, to see which aclnn API they call with what, and what they allocate.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from opgen.build import plan_specs, spec_inputs
from opgen.emit.torch_npu import FUNCTIONS_YAML, adapter_path, render_torch_npu, torch_npu_fragment
from opgen.plan.operator import plan_operator
from opgen.plan.schedules import schedule_for
from opgen.plan.signature import ApiSignature, signatures
from opgen.spec.loader import load_spec_documents
from opgen.spec.model import Direction, OpSpec, ParamKind

torch = pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parents[2]
STUBS = Path(__file__).resolve().parent / "stubs"
CXX = shutil.which("g++")
STRICT = ["-std=c++17", "-Wall", "-Wextra", "-Werror", "-Wmissing-declarations"]

LOADED = [
    loaded
    for item in spec_inputs([ROOT / "specs"])
    for loaded in load_spec_documents(item.path, display_name=item.notice)
]
# torch_npu exposes aten ops: an operator without one gets no entry (tests/emit/test_spec_variants.py)
SPECS = [item.spec for item in LOADED if item.spec.api.aten]
SPEC_IDS = [spec.operator.dir for spec in SPECS]
PLANS = plan_specs(LOADED)
FILES = render_torch_npu([torch_npu_fragment(plan) for plan in PLANS])
# each operator's adapter file, by its aclnn API (operators of one directory share it)
ADAPTERS = {plan.main.name: adapter_path(plan) for plan in PLANS}

STUB_DTYPES = {torch.float16: "Half", torch.bfloat16: "BFloat16", torch.float32: "Float", torch.float64: "Double"}

needs_cxx = pytest.mark.skipif(CXX is None, reason="g++ not found")


# ---------------------------------------------------------------------------------------------- PyTorch facts


def aten_ops(spec: OpSpec) -> list[str]:
    ops = [spec.api.aten] if spec.api.aten else []
    if spec.api.inplace and spec.api.inplace.aten:
        ops.append(spec.api.inplace.aten)
    return ops


def torch_schemas(spec: OpSpec) -> list:
    """Every tensor overload PyTorch registers for the spec's aten ops (functional, out and in-place forms): those
    taking a tensor. TorchScript's scalar math under the same name (`tanh.float(float a) -> float`, `tanh.int`,
    `tanh.Scalar`, `tanh.complex`) is no kernel op-plugin registers."""
    return [
        s
        for op in aten_ops(spec)
        for s in torch._C._jit_get_schemas_for_operator(f"aten::{op}")
        if any(a.type.kind() == "TensorType" for a in s.arguments)
    ]


def key(schema) -> tuple[str, str]:
    return schema.name.split("::")[-1], schema.overload_name


def is_write(alias_info) -> bool:
    return alias_info is not None and alias_info.is_write


def cpp_name(schema) -> str:
    """The C++ kernel name of an overload: out overloads take `_out` (op-plugin and at::native alike)."""
    base = schema.name.split("::")[-1]
    return base + "_out" if any(a.is_out for a in schema.arguments) else base


# C++ types of aten's argument types in kernel signatures (at::native and op-plugin alike), by JIT type kind.
CPP_TYPES = {
    "NumberType": "at::Scalar",
    "FloatType": "double",
    "IntType": "int64_t",
    "SymIntType": "int64_t",
    "BoolType": "bool",
    "StringType": "c10::string_view",
    "ComplexType": "c10::complex<double>",
    "GeneratorType": "at::Generator",
    "ScalarTypeType": "at::ScalarType",
}
LIST_TYPES = {"IntType": "at::IntArrayRef", "SymIntType": "at::IntArrayRef", "TensorType": "at::TensorList"}
BY_REFERENCE = ("at::Scalar", "at::Tensor")  # passed as const&; the rest by value


def cpp_type(arg_type, written: bool = False) -> str:
    """The C++ parameter type of one aten argument type: every kind a user's aten op may have (float, int, Scalar,
    bool, str, lists, optionals of those, Generator), or a clear failure naming the type."""
    kind = arg_type.kind()
    if kind == "TensorType":
        return "at::Tensor&" if written else "const at::Tensor&"
    if kind == "OptionalType":
        inner = cpp_type(arg_type.getElementType()).removeprefix("const ").removesuffix("&")
        return f"const c10::optional<{inner}>&"
    if kind == "ListType":
        element = arg_type.getElementType()
        inner = element.kind()
        return LIST_TYPES.get(inner) or f"at::ArrayRef<{cpp_type(element).removeprefix('const ').removesuffix('&')}>"
    if kind not in CPP_TYPES:
        raise AssertionError(f"aten argument type {arg_type} ({kind}) has no C++ type in this test's table")
    ctype = CPP_TYPES[kind]
    return f"const {ctype}&" if ctype in BY_REFERENCE else ctype


def cpp_params(schema) -> list[str]:
    return [f"{cpp_type(arg.type, is_write(arg.alias_info))} {arg.name}" for arg in schema.arguments]


def cpp_return(schema) -> str:
    """at::Tensor(&), or a std::tuple of them for several returns (log_sigmoid_forward: output, buffer)."""
    types = ["at::Tensor&" if is_write(r.alias_info) else "at::Tensor" for r in schema.returns]
    return types[0] if len(types) == 1 else "std::tuple<" + ", ".join(types) + ">"


def declarations(schemas, namespace: str) -> str:
    lines = [f"namespace {namespace} {{"]
    for s in schemas:
        lines.append(f"{cpp_return(s)} {cpp_name(s)}({', '.join(cpp_params(s))});")
    return "\n".join(lines + ["}"]) + "\n"


def aclnn_declarations(sigs: list[ApiSignature]) -> str:
    """One recording stand-in per aclnn API, typed from opgen's C signature (aclTensor* output -> Tensor&)."""
    lines = ["#pragma once", "namespace aclnn_stub {"]
    for sig in sigs:
        params = []
        for c in sig.user_params:
            if c.ctype in ("bool", "int64_t", "double"):
                ctype = c.ctype
            elif c.ctype.endswith("char"):
                ctype = "const char*"
            elif c.ctype.endswith("aclScalar"):
                ctype = "const at::Scalar&"
            elif c.ctype.startswith("const "):
                ctype = "const at::Tensor&"
            else:
                ctype = "at::Tensor&"
            params.append(f"{ctype} {c.name}")
        values = ", ".join(f"describe({c.name})" for c in sig.user_params)
        lines.append(f"inline void {sig.name}(const char* names, {', '.join(params)}) {{")
        lines.append(f'  record("{sig.name}", names, {{{values}}});')
        lines.append("}")
    return "\n".join(lines + ["}  // namespace aclnn_stub"]) + "\n"


def write_declarations(directory: Path, extra_schemas=()) -> Path:
    """torch_npu_test/*.h for the stub headers: kernels declared from PyTorch's schemas, aclnn APIs from opgen."""
    schemas = [s for spec in SPECS for s in torch_schemas(spec)] + list(extra_schemas)
    inc = directory / "torch_npu_test"
    inc.mkdir(parents=True, exist_ok=True)
    head = '#pragma once\n#include "op_plugin/utils/op_api_common.h"\n'
    (inc / "op_api_declarations.h").write_text(head + declarations(schemas, "op_api"))
    (inc / "acl_op_declarations.h").write_text(head + declarations(schemas, "acl_op"))
    (inc / "aclnn_apis.h").write_text(aclnn_declarations([sig for spec in SPECS for sig in signatures(spec)]))
    return directory


def compile_cpp(sources: list[Path], include: Path, flags: list[str], output: Path | None = None) -> None:
    cmd = [CXX, *flags, f"-I{STUBS}", f"-I{include}", *map(str, sources)]
    cmd += ["-o", str(output)] if output else ["-fsyntax-only"]
    result = subprocess.run(cmd, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


# ---------------------------------------------------------------------------------------------- YAML


def yaml_doc() -> dict:
    return yaml.safe_load(FILES[FUNCTIONS_YAML])


def test_yaml_starts_with_the_generated_notice_and_parses():
    first = FILES[FUNCTIONS_YAML].splitlines()[0]
    assert first.startswith("# Generated by opgen from ") and "Do not edit" in first
    doc = yaml_doc()
    assert set(doc) <= {"all_version", "official", "custom"}
    assert all(re.fullmatch(r"v\d+\.\d+", v) for v in doc["all_version"])


@pytest.mark.parametrize("spec", SPECS, ids=SPEC_IDS)
def test_yaml_has_exactly_the_real_aten_schemas(spec):
    expected = {key(s): s for s in torch_schemas(spec)}
    assert expected, "the spec's aten ops must exist in PyTorch"
    entries = [e for e in yaml_doc()["official"] if e["func"].split("(")[0].split(".")[0] in aten_ops(spec)]
    parsed = [torch._C.parse_schema("aten::" + e["func"]) for e in entries]
    assert sorted(key(s) for s in parsed) == sorted(expected)  # one entry per functional/out/in-place overload
    for schema in parsed:
        real = expected[key(schema)]
        assert schema == real, f"{schema} != {real}"
        assert str(schema) == str(real)  # names, types, defaults, alias annotations, kwarg-only marker


def test_every_entry_names_an_aclnn_backend_with_known_versions():
    doc = yaml_doc()
    for entry in doc["official"] + doc.get("custom", []):
        assert entry["op_api"] == "all_version"
        assert set(entry) <= {"func", "op_api", "acl_op"}
    # An aclop fallback is only claimed for official aten ops (DO_COMPATIBILITY calls acl_op::<op>).
    assert all(e["acl_op"] == "all_version" for e in doc["official"])


# ---------------------------------------------------------------------------------------------- adapters


def adapter_functions(text: str) -> dict[str, tuple[str, str]]:
    """C++ function name -> (return type, body) of each function defined in an adapter."""
    found = {}
    for m in re.finditer(r"^(at::Tensor&?|std::tuple<[^>]*>) (\w+)\((.*?)\) \{\n(.*?)^\}", text, re.S | re.M):
        found[m.group(2)] = (m.group(1), m.group(4))
    return found


def exec_calls(body: str) -> list[list[str]]:
    return [[a.strip() for a in m.group(1).split(",")] for m in re.finditer(r"EXEC_NPU_CMD\((.*?)\);", body, re.S)]


@pytest.mark.parametrize("spec", SPECS, ids=SPEC_IDS)
def test_adapter_file_follows_op_plugin_naming(spec):
    camel = "".join(w.capitalize() for w in spec.api.aten.split("_"))
    path = ADAPTERS[spec.api.name]
    assert path == f"torch_npu/opapi/{camel}KernelNpuOpApi.cpp"
    text = FILES[path]
    assert text.startswith("// Generated by opgen from specs/" + spec.operator.dir + ".yaml")
    assert "namespace op_api {" in text and "using npu_preparation = at_npu::native::OpPreparation;" in text


@pytest.mark.parametrize("spec", SPECS, ids=SPEC_IDS)
def test_adapter_calls_the_aclnn_api_in_c_signature_order(spec):
    functions = adapter_functions(FILES[ADAPTERS[spec.api.name]])
    schemas = torch_schemas(spec)
    assert sorted(functions) == sorted(cpp_name(s) for s in schemas)
    main, *rest = signatures(spec)
    inplace = rest[0] if rest else None
    for schema in schemas:
        returns, body = functions[cpp_name(schema)]
        assert returns == cpp_return(schema)
        aten_names = [a.name for a in schema.arguments]
        written = [a.name for a in schema.arguments if is_write(a.alias_info)]
        # one tensor, or std::make_tuple / std::tie of several; a per-channel sum reshaped to its channel input's shape
        flat = {spec.param(p.shape.same_as).python for p in spec.outputs if p.name in spec.formula.reduce}
        flat = flat if not any(a.is_out for a in schema.arguments) else set()
        unshaped = body
        for name in flat:
            unshaped = unshaped.replace(f".reshape({name}.sizes())", "")
        returned = re.search(r"return (?:std::\w+\()?([\w, ]+?)\)?;\s*$", unshaped).group(1).split(", ")
        is_inplace = schema.name.endswith("_") and not any(a.is_out for a in schema.arguments)
        sig = inplace if is_inplace else main
        [call] = exec_calls(body)
        assert call[0] == sig.name
        expected = []
        outputs = iter(written or returned)  # the out / in-place tensors, else the allocated ones, in order
        for c in sig.user_params:
            if c.param.direction is Direction.OUTPUT or c.inplace:
                expected.append(next(outputs))
            else:
                assert c.param.python in aten_names  # aclnn inputs are aten arguments of the same name
                # a string reaches the API as a char* copy of aten's string_view; a sum's channel input flattened
                suffix = "_ptr" if c.param.kind is ParamKind.STRING else "_flat" if c.param.python in flat else ""
                expected.append(c.param.python + suffix)
        assert call[1:] == expected
        outputs_given = [
            n
            for c, n in zip(sig.user_params, expected, strict=True)
            if c.inplace or c.param.direction is Direction.OUTPUT
        ]
        assert returned == (written or outputs_given)
        if spec.api.aten:  # official op: fall back to op-plugin's aclop kernel of the same overload
            args = ", ".join(aten_names)
            assert re.sub(r"\s+", " ", f"DO_COMPATIBILITY({sig.name}, acl_op::{cpp_name(schema)}({args}));") in (
                re.sub(r"\s+", " ", body).replace("( ", "(")
            )


@pytest.mark.parametrize("spec", SPECS, ids=SPEC_IDS)
def test_adapter_allocation_follows_the_output_rules(spec):
    """The functional form allocates by the spec's shape rule and dtype rule, the out form resizes `out`."""
    functions = adapter_functions(FILES[ADAPTERS[spec.api.name]])
    out = spec.outputs[0]
    functional = re.sub(r"\s+", " ", functions[spec.api.aten][1])
    # aten::selu and aten::mish_backward have no out overload: no out form (tests/emit/test_aten_variants.py)
    out_form = re.sub(r"\s+", " ", functions[spec.api.aten + "_out"][1]) if spec.api.aten + "_out" in functions else ""
    names = [spec.param(n).python for n in out.shape.broadcast_result_of]
    fixed = schedule_for(spec).adapter_size(out.name)  # a half split's: the split tensor's sizes, or half of them
    if fixed is not None:
        assert f"auto output_size = {fixed};" in functional and (
            not out_form or f"auto output_size = {fixed};" in out_form
        )
        assert "apply_tensor_without_format(output_size," in functional
        assert not out_form or f"{out.python}.scalar_type(), output_size)" in out_form
    elif names:
        broadcast = f"op_infer::broadcast_ops_npu_output_size({', '.join(names)})"
        assert broadcast in functional and (not out_form or broadcast in out_form)
        if out.dtype.same_as:  # the output has one input's dtype (ThresholdBackward refuses mixed dtypes)
            assert f"output_dtype = {spec.param(out.dtype.same_as).python}.scalar_type()" in functional
        else:
            promoted = ", ".join(spec.param(n).python for n in spec.dtype_sources(out))
            assert f"at::native::result_type({promoted})" in functional
    else:
        source = spec.param(out.shape.same_as or spec.shape_sources(out)[0]).python
        assert f"npu_preparation::apply_tensor_without_format({source}" in functional
        assert not out_form or f"{source}.sizes()" in out_form
    assert not out_form or "npu_preparation::check_tensor(" in out_form


@needs_cxx
@pytest.mark.parametrize("spec", SPECS, ids=SPEC_IDS)
def test_adapter_compiles_strictly_against_the_stubs(spec, tmp_path):
    source = tmp_path / Path(ADAPTERS[spec.api.name]).name
    source.write_text(FILES[ADAPTERS[spec.api.name]])
    compile_cpp([source], write_declarations(tmp_path), STRICT)


# ---------------------------------------------------------------------------------------------- running them


def cases(spec: OpSpec) -> list[dict[str, tuple[tuple[int, ...], torch.dtype]]]:
    """Input tensors (by aten name) valid for the spec: equal shapes (a channel input: one value per channel) and
    dtypes, and where the output is a broadcast of inputs, broadcasting shapes with mixed dtypes (promotion)."""
    # a channel input (prelu's weight) holds one value per channel of the shape; a half split's full-size tensors
    # double it along dim (the dim parameter's default, as the calls leave it; without one, as aten's glu_backward
    # has none, the value host_value passes)
    dim = None
    if spec.split is not None:
        named = isinstance(spec.split.dim, str)
        default = spec.param(spec.split.dim).default if named else None
        dim = spec.split_dim({spec.split.dim: HOST_INT if default is None else default} if named else {})
    found = [{p.python: (spec.input_shape(p.name, (2, 3), dim=dim), torch.bfloat16) for p in spec.tensor_inputs}]
    broadcast = [spec.param(n).python for n in spec.outputs[0].shape.broadcast_result_of]
    if broadcast and not spec.outputs[0].dtype.same_as:  # mixed dtypes only where the spec promotes
        mixed = dict(found[0])
        shapes, dtypes = [(2, 1, 3), (4, 1), (3,)], [torch.float16, torch.bfloat16, torch.float32]
        for i, name in enumerate(broadcast):
            mixed[name] = (shapes[i % 3], dtypes[i % 3])
        found.append(mixed)
    return found


def unwritten_indices(spec: OpSpec) -> tuple[int, ...]:
    """Positions, among the API's outputs, of those it leaves unwritten (log_sigmoid_forward's buffer)."""
    outputs = [p for p in spec.params if p.direction is Direction.OUTPUT]
    return tuple(i for i, p in enumerate(outputs) if not p.written)


def reduced_likes(spec: OpSpec) -> dict[int, str]:
    """Positions, among the API's outputs, of per-channel sums (formula.reduce: aclnnPreluBackward's gradWeight),
    with the input whose shape each has: torch_npu returns it so (op-plugin's _prelu_kernel_backward), where
    PyTorch's CPU kernel returns the unreduced elementwise values."""
    outputs = [p for p in spec.params if p.direction is Direction.OUTPUT]
    return {i: spec.param(p.shape.same_as).python for i, p in enumerate(outputs) if p.name in spec.formula.reduce}


def describe(t: torch.Tensor) -> str:
    return "[" + ",".join(str(d) for d in t.shape) + "]:" + STUB_DTYPES[t.dtype]


HOST_INT = 1  # the value passed for an int argument without a default (glu_backward's dim)


def host_value(arg):
    """A value aten accepts for a non-tensor argument: its default where it has one ('none', 0, None), else 0.5
    for a number, 1 for an int, False for a bool."""
    kind = arg.type.kind()
    if arg.has_default_value() or kind == "OptionalType":
        return arg.default_value
    if kind in ("NumberType", "FloatType"):
        return 0.5
    if kind in ("IntType", "SymIntType"):
        return HOST_INT
    if kind == "BoolType":
        return False
    raise AssertionError(f"no test value for aten argument {arg.name} of type {arg.type} without a default")


def host_declaration(arg, value) -> str:
    """A C++ local holding `value` for the argument, typed as the kernel signature takes it."""
    ctype = cpp_type(arg.type).removeprefix("const ").removesuffix("&")
    if value is None:
        return f"{ctype} {arg.name} = c10::nullopt;"
    if isinstance(value, str):
        return f"{ctype} {arg.name}({json.dumps(value)});"
    if isinstance(value, bool):
        return f"{ctype} {arg.name} = {str(value).lower()};"
    if isinstance(value, (list, tuple)):
        return f"{ctype} {arg.name}({{{', '.join(map(str, value))}}});"
    return f"{ctype} {arg.name}({value!r});"


class Program:
    """One C++ program calling every adapter function: C++ statements and what PyTorch says should come out."""

    def __init__(self):
        self.lines: list[str] = []
        self.expected: dict[str, dict] = {}

    def call(
        self,
        label: str,
        schema,
        tensors: dict,
        fallback: bool = False,
        unwritten: tuple[int, ...] = (),
        reduced: dict[int, str] | None = None,
    ) -> bool:
        """Add a call of the adapter; False (nothing added) when PyTorch itself refuses these inputs (e.g.
        aten::heaviside with two dtypes), since such a call never reaches the adapter."""
        op = getattr(torch.ops.aten, schema.name.split("::")[-1])
        torch_args = []
        for arg in schema.arguments:
            kind = arg.type.kind()
            if kind == "TensorType" and not arg.is_out:
                shape, dtype = tensors[arg.name]
                torch_args.append(torch.rand(shape, dtype=torch.float32).to(dtype))
            elif kind != "TensorType":
                torch_args.append(host_value(arg))
        try:
            functional = op.default(*torch_args)
        except RuntimeError:
            return False
        several = isinstance(functional, tuple)  # log_sigmoid_forward: (output, buffer)
        functional = functional[0] if several else functional
        tensors_in = [a for a in torch_args if isinstance(a, torch.Tensor)]
        if len({t.dtype for t in tensors_in}) > 1 and functional.dtype != torch.result_type(*tensors_in[:2]):
            return False  # PyTorch's CPU kernel does not promote here (mish_backward): nothing to mirror
        # PyTorch's CPU kernels want out= in the result dtype (aclnn would cast into any castable one).
        out_dtype = functional.dtype if any(a.is_out for a in schema.arguments) else None
        decls, cpp_args, torch_kwargs, written, outs = [], [], {}, None, []
        inputs = iter(torch_args)
        for arg in schema.arguments:
            kind = arg.type.kind()
            if kind == "TensorType" and arg.is_out:
                written = written or arg.name
                outs.append(arg.name)
                decls.append(
                    f"at::Tensor {arg.name}(std::vector<int64_t>{{0}}, at::ScalarType::{STUB_DTYPES[out_dtype]});"
                )
                torch_kwargs[arg.name] = torch.empty(0, dtype=out_dtype)
                continue
            value = next(inputs)
            if kind == "TensorType":
                dims = ", ".join(map(str, value.shape))
                scalar_type = STUB_DTYPES[value.dtype]
                decls.append(f"at::Tensor {arg.name}(std::vector<int64_t>{{{dims}}}, at::ScalarType::{scalar_type});")
                written = arg.name if is_write(arg.alias_info) else written
            else:
                decls.append(host_declaration(arg, value))
            cpp_args.append(arg.name)
        cpp_args += [a.name for a in schema.arguments if a.is_out]
        call = f"op_api::{cpp_name(schema)}({', '.join(cpp_args)})"
        result = getattr(op, schema.overload_name or "default")(*torch_args, **torch_kwargs)
        if several:
            # Each returned tensor; the out form returns the very tensors it was given.
            decls.append(f"auto results = {call};")
            for i in range(len(result)):
                decls.append(f'std::printf("RESULT %s\\n", std::get<{i}>(results).describe().c_str());')
                if outs:
                    decls.append(f'std::printf("SAME %d\\n", static_cast<int>(&std::get<{i}>(results) == &{outs[i]}));')
            self.lines += [f'  std::printf("CASE {label}\\n");', "  {", *("    " + d for d in decls), "  }"]
            # An output the API never writes stays as torch_npu allocates or the caller gives it: empty here.
            results = [describe(r[:0].reshape(0)) if i in unwritten else describe(r) for i, r in enumerate(result)]
            for i, like in (reduced or {}).items():  # a per-channel sum has the shape of the input it sums for
                results[i] = describe(torch.empty(tensors[like][0], dtype=result[i].dtype))
            self.expected[label] = {"result": results, "written": written, "fallback": fallback}
            return True
        if written:
            decls.append(f"at::Tensor& result = {call};")
            decls.append(f'std::printf("SAME %d\\n", static_cast<int>(&result == &{written}));')
        else:
            decls.append(f"at::Tensor result = {call};")
        decls.append('std::printf("RESULT %s\\n", result.describe().c_str());')
        self.lines += [f'  std::printf("CASE {label}\\n");', "  {", *("    " + d for d in decls), "  }"]
        self.expected[label] = {"result": describe(result), "written": written, "fallback": fallback}
        return True

    def source(self, schemas) -> str:
        acl_op = []
        for s in schemas:  # the aclop kernels only say they were called (the driver builds with -w)
            written = next((a.name for a in s.arguments if is_write(a.alias_info)), None)
            body = f"return {written};" if written else "return at::Tensor();"
            if len(s.returns) > 1:  # a tuple: the out tensors, or default tensors
                writes = [a.name for a in s.arguments if is_write(a.alias_info)]
                body = f"return std::tie({', '.join(writes)});" if writes else "return {};"
            name = cpp_name(s)
            acl_op.append(
                f'{cpp_return(s)} {name}({", ".join(cpp_params(s))}) {{ std::printf("ACLOP {name}\\n"); {body} }}'
            )
        return "\n".join(
            [
                '#include "op_plugin/AclOpsInterface.h"',
                '#include "op_plugin/OpApiInterface.h"',
                "namespace acl_op {",
                *acl_op,
                "}  // namespace acl_op",
                "int main() {",
                *self.lines,
                "  return 0;",
                "}",
            ]
        )


def parse_run(stdout: str) -> dict[str, list[str]]:
    runs: dict[str, list[str]] = {}
    label = None
    for line in stdout.splitlines():
        if line.startswith("CASE "):
            label = line[5:]
            runs[label] = []
        else:
            runs[label].append(line)
    return runs


@pytest.fixture(scope="module")
def run_all(tmp_path_factory):
    """Build the adapters of every spec with one driver program and run it once."""
    if CXX is None:
        pytest.skip("g++ not found")
    tmp = tmp_path_factory.mktemp("torch_npu_run")
    program = Program()
    labels: dict[str, list[str]] = {}
    schemas = [s for spec in SPECS for s in torch_schemas(spec)]
    for spec in SPECS:
        labels[spec.api.name] = []
        for schema in torch_schemas(spec):
            for i, tensors in enumerate(cases(spec)):
                label = f"{schema.name}.{schema.overload_name or 'default'}#{i}"
                if program.call(label, schema, tensors, unwritten=unwritten_indices(spec), reduced=reduced_likes(spec)):
                    labels[spec.api.name].append(label)
            program.lines.append("  aclnn_stub::available = false;")
            label = f"{schema.name}.{schema.overload_name or 'default'}#fallback"
            fallback_case = cases(spec)[0]
            if program.call(label, schema, fallback_case, True, unwritten_indices(spec), reduced_likes(spec)):
                labels[spec.api.name].append(label)
            program.lines.append("  aclnn_stub::available = true;")
    sources = []
    for spec in SPECS:
        path = tmp / Path(ADAPTERS[spec.api.name]).name
        path.write_text(FILES[ADAPTERS[spec.api.name]])
        sources.append(path)
    driver = tmp / "driver.cpp"
    driver.write_text(program.source(schemas))
    exe = tmp / "driver"
    compile_cpp(sources + [driver], write_declarations(tmp), ["-std=c++17", "-O0", "-w"], exe)
    result = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return parse_run(result.stdout), program.expected, labels


@pytest.mark.parametrize("spec", SPECS, ids=SPEC_IDS)
def test_adapters_allocate_what_pytorch_returns_and_run_the_api(spec, run_all):
    runs, expected, labels = run_all
    main, *rest = signatures(spec)
    for label in labels[spec.api.name]:
        lines, want = runs[label], expected[label]
        schema_name = label.split("::")[1].split(".")[0]
        execs = [line for line in lines if line.startswith("EXEC ")]
        if want["fallback"]:
            # No aclnn API in this CANN: the aclop kernel of the same overload runs instead.
            assert execs == [] and lines[0].startswith("ACLOP "), lines
            assert lines[0].split()[1] in (schema_name, schema_name + "_out")
            continue
        assert len(execs) == 1, lines
        api = execs[0].split()[1]
        sig = rest[0] if rest and api == rest[0].name else main
        assert api == sig.name
        # The tensor handed to the API as its output is the one returned, with PyTorch's shape and dtype.
        values = execs[0].split("|")[2].split()
        results = [line.split()[1] for line in lines if line.startswith("RESULT ")]
        wanted = want["result"] if isinstance(want["result"], list) else [want["result"]]
        assert results == wanted, label
        out_indices = [i for i, c in enumerate(sig.user_params) if c.inplace or c.param.direction is Direction.OUTPUT]
        assert [values[i] for i in out_indices] == results
        if want["written"]:
            # out= and in-place forms return the tensors they were given
            assert lines.count("SAME 1") == len(results) and "SAME 0" not in lines


# ---------------------------------------------------------------------------------------------- custom ops


@needs_cxx
def test_spec_without_aten_op_becomes_a_torch_npu_custom_op(tmp_path):
    base = next(s for s in SPECS if s.api.inplace is not None)
    spec = base.model_copy(update={"api": base.api.model_copy(update={"aten": None, "inplace": None})})
    plan = plan_operator(spec, "specs/custom.yaml")
    files = render_torch_npu([torch_npu_fragment(plan)])
    doc = yaml.safe_load(files[FUNCTIONS_YAML])
    assert "official" not in doc
    [entry] = doc["custom"]  # functional form only, aclnn only (no aclop kernel to fall back to)
    assert entry == {"func": entry["func"], "op_api": "all_version"}
    schema = torch._C.parse_schema("npu::" + entry["func"])
    assert schema.name == f"npu::npu_{base.api.snake}"
    real = torch._C._jit_get_schemas_for_operator(f"aten::{base.api.aten}")[0]  # same arguments as aten's op
    assert [(a.name, str(a.type), a.default_value) for a in schema.arguments] == [
        (a.name, str(a.type), a.default_value) for a in real.arguments
    ]
    path = adapter_path(plan)
    assert path == f"torch_npu/opapi/Npu{''.join(w.capitalize() for w in base.api.aten.split('_'))}KernelNpuOpApi.cpp"
    text = files[path]
    assert "DO_COMPATIBILITY" not in text and "AclOpsInterface.h" not in text
    source = tmp_path / Path(path).name
    source.write_text(text)
    compile_cpp([source], write_declarations(tmp_path, [schema]), STRICT)


# ---------------------------------------------------------------------------------------------- any aten op


def _renamed(aten: str) -> OpSpec:
    """A shipped one-input spec standing for a user's spec of aten op `aten` (no in-place variant)."""
    base = next(s for s in SPECS if len(s.tensor_inputs) == 1 and len(s.outputs) == 1 and s.api.inplace is None)
    return base.model_copy(update={"api": base.api.model_copy(update={"aten": aten, "aten_form": None})})


@needs_cxx
def test_a_user_op_with_scalar_math_overloads_gets_its_tensor_overloads_only(tmp_path):
    """Before: a spec naming aten `tanh` failed 79 tests here with KeyError 'FloatType': torch lists TorchScript's
    `tanh.float(float a) -> float` (and .int, .Scalar, .complex) under the same name, which no kernel implements."""
    spec = _renamed("tanh")
    names = {key(s) for s in torch_schemas(spec)}
    assert names == {("tanh", ""), ("tanh", "out")}
    entries = yaml.safe_load(
        render_torch_npu([torch_npu_fragment(plan_operator(spec, "specs/t.yaml"))])[FUNCTIONS_YAML]
    )
    assert {
        (e["func"].split("(")[0].partition(".")[0], e["func"].split("(")[0].partition(".")[2])
        for e in entries["official"]
    } == names
    source = tmp_path / "decls.cpp"
    source.write_text('#include "torch_npu_test/op_api_declarations.h"\n')
    compile_cpp([source], write_declarations(tmp_path, torch_schemas(spec)), ["-std=c++17"])


# aten ops with every argument kind: float, int, Scalar, complex, bool, str, lists, optionals, Generator, SymInt
KINDS_OPS = ["tanh", "clamp", "rrelu_with_noise", "sum", "upsample_nearest2d", "native_dropout", "glu", "gelu", "std"]


@needs_cxx
def test_every_aten_argument_kind_has_a_cpp_type_and_a_test_value(tmp_path):
    schemas = [s for op in KINDS_OPS for s in torch._C._jit_get_schemas_for_operator(f"aten::{op}")]
    kinds = {a.type.kind() for s in schemas for a in s.arguments}
    assert {"FloatType", "IntType", "NumberType", "ComplexType", "ListType", "OptionalType", "StringType"} <= kinds
    lines = ['#include "torch_npu_test/op_api_declarations.h"', "void locals() {"]
    for schema in schemas:
        for index, arg in enumerate(a for a in schema.arguments if a.type.kind() != "TensorType"):
            if arg.has_default_value() or arg.type.kind() in ("NumberType", "FloatType", "IntType", "BoolType"):
                lines.append("  { " + host_declaration(arg, host_value(arg)) + f" (void){arg.name}; }}  // {index}")
    source = tmp_path / "kinds.cpp"
    source.write_text("\n".join([*lines, "}"]) + "\n")
    compile_cpp([source], write_declarations(tmp_path, schemas), ["-std=c++17"])


# ---------------------------------------------------------------------------------------------- torch_npu's own names

# torch_npu's own functions whose schema is known (op-plugin's docs: torch_npu.npu_softmax_cross_entropy_with_logits
# returns the loss alone); a generated entry of one of these names would register it a second time, or clash
TORCH_NPU_OWN = {
    "npu_softmax_cross_entropy_with_logits": "npu_softmax_cross_entropy_with_logits(Tensor self, Tensor labels) -> "
    "Tensor",
}


def test_no_generated_entry_takes_the_name_of_a_torch_npu_function():
    """Before: aclnnSoftmaxCrossEntropyWithLogits' entry was npu_softmax_cross_entropy_with_logits(Tensor features,
    Tensor labels) -> (Tensor loss, Tensor backprop), torch_npu's name with another schema."""
    doc = yaml.safe_load(FILES[FUNCTIONS_YAML])
    names = {torch._C.parse_schema("npu::" + e["func"]).name.removeprefix("npu::") for e in doc.get("custom", [])}
    assert names and not names & set(TORCH_NPU_OWN), names & set(TORCH_NPU_OWN)
    for own in TORCH_NPU_OWN.values():  # the facts above parse as schemas
        torch._C.parse_schema("npu::" + own)


def test_api_torch_npu_names_the_entry_and_the_adapter():
    """`api.torch_npu` names the op-plugin entry and its adapter file; the Python binding keeps the API's name."""
    [plan] = [p for p in PLANS if p.main.name == "aclnnSoftmaxCrossEntropyWithLogits"]
    spec = plan.spec
    assert spec.api.torch_npu == "npu_softmax_cross_entropy_with_logits_and_backprop"
    assert spec.api.binding_name == "softmax_cross_entropy_with_logits"
    doc = yaml.safe_load(FILES[FUNCTIONS_YAML])
    [entry] = [e for e in doc["custom"] if e["func"].startswith(spec.api.torch_npu + "(")]
    schema = torch._C.parse_schema("npu::" + entry["func"])
    assert [a.name for a in schema.arguments] == ["features", "labels"]
    assert [r.name for r in schema.returns] == ["loss", "backprop"]
    assert adapter_path(plan) == "torch_npu/opapi/NpuSoftmaxCrossEntropyWithLogitsAndBackpropKernelNpuOpApi.cpp"
