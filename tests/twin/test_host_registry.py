"""op_host emulation: the OpDef registry, platform figures per SoC, the fixture's tiling run through
IMPL_OP_OPTILING, BEGIN_TILING_DATA_DEF serialisation and IMPL_OP_INFERSHAPE."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest
from support.programs import run_program

from opgen.spec.socs import SOCS, get_soc
from opgen.twin.compiler import compile_program

FIXTURES = Path(__file__).parent / "fixtures"
PROGRAMS = FIXTURES / "programs"
LIB_API_WORKSPACE = 16 * 1024 * 1024
ACL_FLOAT, ACL_FLOAT16, ACL_BF16 = 0, 1, 27


@pytest.fixture(scope="module")
def probe(tmp_path_factory) -> Path:
    binary = tmp_path_factory.mktemp("host_probe") / "host_probe"
    compile_program([PROGRAMS / "host_probe.cpp"], binary, ops_dirs=[FIXTURES])
    return binary


def test_opdef_registry_describes_the_fixture(probe):
    registry = json.loads(run_program(probe, "opdefs", check=True).stdout)
    op = registry["AddScalarDemo"]
    assert [p["name"] for p in op["inputs"]] == ["x"] and [p["name"] for p in op["outputs"]] == ["y"]
    for param in op["inputs"] + op["outputs"]:
        assert param["param_type"] == "REQUIRED"
        assert param["dtypes"] == ["DT_FLOAT", "DT_FLOAT16", "DT_BF16"]
        assert param["formats"] == ["ND"] * 3 and param["unknown_shape_formats"] == ["ND"] * 3
    assert op["attrs"] == [
        {"name": "scale", "attr_type": "OPTIONAL", "kind": "Float", "default": 1.0},
        {"name": "bias", "attr_type": "OPTIONAL", "kind": "Float", "default": 0.0},
    ]
    assert sorted(op["aicore_configs"]) == ["ascend910_93", "ascend910b", "ascend950"]
    config = op["aicore_configs"]["ascend910b"]["cfg"]
    assert config["dynamicCompileStatic.flag"] == "true" and config["dynamicFormat.flag"] == "false"


@pytest.mark.parametrize("soc", [soc.name for soc in SOCS])
def test_platform_figures_follow_the_twin_soc(probe, soc):
    figures = dict(
        line.split(" ", 1) for line in run_program(probe, "platform", check=True, OPGEN_SOC=soc).stdout.splitlines()
    )
    expected = get_soc(soc)
    assert int(figures["aiv"]) == expected.vector_cores
    assert int(figures["ub"]) == expected.ub_usable_bytes
    assert int(figures["lib_workspace"]) == LIB_API_WORKSPACE
    split = expected.arch in ("arch22", "arch35")
    assert int(figures["aic"]) == (expected.vector_cores // 2 if split else expected.vector_cores)
    arch = {"ascend910b": 2201, "ascend910_93": 2201, "ascend950": 3510, "ascend910": 1001}.get(soc)
    if arch is not None:
        assert int(figures["npu_arch"]) == arch


def _expected_tiling(soc_name: str, dtype: int, count: int) -> tuple[int, tuple]:
    """The split the fixture's tiling documents: 32-byte blocks over min(cores, blocks, bytes/4096)
    cores, the first (blocks % cores) cores one block more; tiles of whole 256-byte repeats from UB
    divided by the live bytes per element (2 double-buffered queues, + a float buffer for bf16)."""
    soc = get_soc(soc_name)
    size = 4 if dtype == ACL_FLOAT else 2
    per_block = 32 // size
    blocks = -(-count // per_block)
    cores = max(1, min(soc.vector_cores, blocks, max(1, count * size // 4096)))
    per_element = 4 * size + (4 if dtype == ACL_BF16 else 0)
    repeat = 256 // size
    tile = soc.ub_usable_bytes // per_element // repeat * repeat
    base = blocks // cores
    return cores, (count, blocks % cores, (base + 1) * per_block, base * per_block, tile, 2.0, 0.5)


@pytest.mark.parametrize(
    "soc,dtype,count",
    [
        ("ascend910b", ACL_FLOAT, 100_000),
        ("ascend910b", ACL_FLOAT16, 1000),
        ("ascend910b", ACL_BF16, 77_777),
        ("ascend910_93", ACL_FLOAT, 5),
        ("ascend950", ACL_FLOAT16, 1_000_000),
        ("ascend950", ACL_BF16, 4096),
    ],
)
def test_fixture_tiling_uses_platform_figures_and_attrs(probe, soc, dtype, count):
    out = run_program(probe, "tiling", str(dtype), str(count), check=True, OPGEN_SOC=soc).stdout
    assert out.splitlines()[0].startswith("status 0 ")
    launch = next(line for line in out.splitlines() if " aicore " in line)
    fields = dict(item.split("=", 1) for item in launch.split()[3:])
    cores, tiling = _expected_tiling(soc, dtype, count)
    assert fields["kernel"] == "add_scalar_demo"
    assert int(fields["blockDim"]) == cores
    assert int(fields["tilingKey"]) == {ACL_FLOAT: 0, ACL_FLOAT16: 1, ACL_BF16: 2}[dtype]
    assert int(fields["workspace"]) == LIB_API_WORKSPACE
    assert struct.unpack("<5q2f", bytes.fromhex(fields["tiling"])) == tiling


def test_tiling_data_def_serialises_packed_fields(probe):
    values = dict(line.split(" ", 1) for line in run_program(probe, "tilingdata", check=True).stdout.splitlines())
    expected = struct.pack("<qIf3IHH", 0x0102030405060708, 77, 1.5, 10, 20, 30, 5, 9)
    assert int(values["size"]) == len(expected) == 32
    assert bytes(int(b) for b in values["bytes"].split()) == expected
    assert values["get"] == "72623859790382856 77 1.5 30 9"
    # A copy serialises its own fields.
    assert bytes(int(b) for b in values["copy_bytes"].split()) == struct.pack(
        "<qIf3IHH", 0x0102030405060708, 78, 1.5, 10, 20, 30, 5, 9
    )
    assert values["save"] == "1" and values["save_small"] == "0"
    assert values["misaligned_save"] == "0 field large"
    assert values["factory"] == "ProbeTiling"


def test_infer_shape_runs_the_registered_function(probe):
    assert run_program(probe, "infershape", check=True).stdout.strip() == "infer 0 [3,5,7]"
