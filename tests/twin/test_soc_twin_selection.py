"""The twin's SoC models: the generated C++ table matches opgen/spec/socs.py, selection order (SetSoc > env
OPGEN_SOC > `opgen cc --soc` > default), and the per-SoC API/dtype rules."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.programs import run_program

from opgen.spec.socs import DEFAULT_SOC, SOCS
from opgen.twin import soc_table
from opgen.twin.compiler import compile_program

KERNELS = Path(__file__).parent / "kernels"


@pytest.fixture(scope="module")
def probes(tmp_path_factory) -> dict[str, Path]:
    directory = tmp_path_factory.mktemp("soc_probe")
    built = {}
    for soc in (DEFAULT_SOC, "ascend950"):
        built[soc] = directory / f"soc_probe_{soc}"
        compile_program([KERNELS / "soc_probe.cpp"], built[soc], soc=soc, ops_dirs=[])
    return built


def test_committed_table_is_in_sync_with_socs_py():
    assert soc_table.INC_PATH.read_text(encoding="utf-8") == soc_table.render(), (
        "run `python -m opgen.twin.soc_table` after changing opgen/spec/socs.py"
    )


def test_cpp_table_rows_match_socs_py(probes):
    lines = run_program(probes[DEFAULT_SOC], "table").stdout.splitlines()
    expected = [
        f"{s.name} {s.arch} {s.vector_cores} {s.ub_physical_bytes} {s.ub_usable_bytes} "
        f"{int(s.bf16_vector_arith)} {int(s.bf16_supported)} {int(s.figures_certain)}"
        for s in SOCS
    ]
    assert lines == expected


def test_selection_order(probes):
    assert run_program(probes[DEFAULT_SOC], "current").stdout.splitlines() == ["ascend910b"]
    assert run_program(probes["ascend950"], "current").stdout.splitlines() == ["ascend950"]  # opgen cc --soc
    assert run_program(probes["ascend950"], "current", OPGEN_SOC="kirin9020").stdout.splitlines() == ["kirin9020"]
    kirinx90 = next(s for s in SOCS if s.name == "kirinx90")
    out = run_program(probes["ascend950"], "current", "kirinx90", OPGEN_SOC="kirin9020").stdout.splitlines()
    assert out == ["kirin9020", f"kirinx90 {kirinx90.vector_cores} {kirinx90.ub_usable_bytes}"]


def test_unknown_soc_in_env_is_an_error(probes):
    result = run_program(probes[DEFAULT_SOC], "current", OPGEN_SOC="ascend123")
    assert result.returncode == 3
    assert result.stderr.startswith("opgen-twin: error: UNKNOWN_SOC: kernel=- core=- api=OPGEN_SOC soc=ascend123")


def expected_rules(soc) -> dict[str, str]:
    """From the Ascend C API reference: no bf16 arithmetic on A2/A3 (950 adds it); bf16 data only where the chip has
    bf16; LeakyRelu half/float on A2/A3/950/Kirin; DataCopyPad absent on the older training/inference parts;
    Div takes no integers."""
    legacy = soc.arch in ("arch12", "arch20")

    def verdict(ok: bool) -> str:
        return "ok" if ok else "DTYPE_UNSUPPORTED"

    return {
        "Exp<bf16>": verdict(soc.bf16_vector_arith),
        "Add<bf16>": verdict(soc.bf16_vector_arith),
        "LeakyRelu<half>": verdict(not legacy),
        "Cast<float->bf16>": verdict(soc.bf16_supported),
        "Duplicate<bf16>": verdict(soc.bf16_supported),
        "DataCopyPad<half>": verdict(soc.data_copy_pad),  # the table opgen registers kernels by agrees
        "Div<int32>": verdict(False),
    }


@pytest.mark.parametrize("soc", SOCS, ids=[s.name for s in SOCS])
def test_api_dtype_rules_per_soc(probes, soc):
    result = run_program(probes[DEFAULT_SOC], "rules", OPGEN_SOC=soc.name)
    assert result.returncode == 0, result.stderr
    found = dict(line.split(" ", 1) for line in result.stdout.splitlines())
    assert found == expected_rules(soc)
