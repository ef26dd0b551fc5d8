"""The aten schema table (opgen/spec/aten.py): parsed without torch, in sync with the pinned torch, and the
variants it reports (functional, in-place, out overload and its argument names) are the ones torch really runs."""

from __future__ import annotations

import pytest

from opgen.spec import aten
from opgen.spec.aten import AtenSchema, SchemaSyntaxError, aten_op, parse_schema


def test_every_line_of_the_table_parses():
    names = aten.known_names()
    assert "gelu" in names and "leaky_relu_backward" in names
    for name in names:
        for schema in aten.schemas(name):
            assert isinstance(schema, AtenSchema) and schema.name == name


def test_parser_reads_what_torch_reads():
    torch = pytest.importorskip("torch")
    for schema in torch._C._jit_get_all_schemas():
        if not schema.name.startswith("aten::"):
            continue
        ours = parse_schema(str(schema))
        assert ours.qualified == schema.name + (f".{schema.overload_name}" if schema.overload_name else "")
        assert [a.name for a in ours.args] == [a.name for a in schema.arguments], str(schema)
        assert [a.kwarg_only for a in ours.args] == [a.kwarg_only for a in schema.arguments], str(schema)
        written = [bool(a.alias_info and a.alias_info.is_write) for a in schema.arguments]
        assert [a.mutated for a in ours.args] == written, str(schema)
        assert len(ours.returns) == len(schema.returns), str(schema)


def test_table_matches_the_installed_torch_when_it_is_the_pinned_one():
    torch = pytest.importorskip("torch")
    if torch.__version__.split("+")[0] != aten.torch_version():
        pytest.skip(f"table is from torch {aten.torch_version()}, installed {torch.__version__}")
    assert aten.DATA_FILE.read_text(encoding="utf-8") == aten.render_data_file()


@pytest.mark.parametrize(
    "text",
    [
        "aten::f(Tensor self",  # unbalanced
        "f(Tensor self) -> Tensor",  # no namespace
        "aten::f(Tensor) -> Tensor",  # an argument without a name
        "aten::f(Tensor self)",  # no return
    ],
)
def test_malformed_schemas_are_refused(text):
    with pytest.raises(SchemaSyntaxError):
        parse_schema(text)


def test_strings_with_escaped_quotes_and_nested_types():
    schema = parse_schema(r'aten::f(Dict(str, t)(a!) self, str a="\"\'\\", *, int[2] k=[1, 2]) -> (Tensor x, Tensor)')
    assert [(a.name, a.type, a.mutated, a.kwarg_only) for a in schema.args] == [
        ("self", "Dict(str, t)", True, False),
        ("a", "str", False, False),
        ("k", "int[2]", False, True),
    ]
    assert schema.args[2].default == "[1, 2]"
    assert [r.name for r in schema.returns] == ["x", None]


def test_unknown_names_have_no_op():
    assert aten_op("no_such_activation") is None


# The ops of the activation family whose variants differ (issue 11: selu and mish_backward have no out overload,
# backward ops write `grad_input`, log_sigmoid_forward returns two tensors); each claim is run on torch below.
FAMILY = ["selu", "mish_backward", "gelu_backward", "log_sigmoid_forward", "leaky_relu", "hardtanh_backward", "celu"]


@pytest.mark.parametrize("name", FAMILY)
def test_reported_variants_are_what_torch_runs(name):
    torch = pytest.importorskip("torch")
    op = aten_op(name)
    assert op is not None and op.functional is not None
    packet = getattr(torch.ops.aten, name)
    inputs = []
    for arg in op.functional.positional:
        if arg.is_tensor:
            inputs.append(torch.linspace(-2, 2, 6))
        elif arg.default is not None:
            break
        elif arg.type == "Scalar":
            inputs.append(0.5)
        elif arg.type == "bool":
            inputs.append(False)
        else:
            pytest.fail(f"{name}: unexpected required argument {arg}")
    expected = packet(*inputs)
    expected = expected if isinstance(expected, tuple) else (expected,)
    assert len(expected) == op.returns

    if op.out is None:
        overloads = set(packet.overloads()) - {"default"}
        assert not any(getattr(packet, o)._schema.is_mutable for o in overloads), overloads
    else:
        outs = {arg.name: torch.empty(0) for arg in op.out.out_args}
        getattr(packet, op.out.overload)(*inputs, **outs)
        # torch writes the tensors we named; the first holds the functional result
        assert torch.equal(next(iter(outs.values())), expected[0])

    inplace = getattr(torch.ops.aten, name + "_", None)
    assert (op.inplace is not None) == (inplace is not None and "default" in inplace.overloads())
