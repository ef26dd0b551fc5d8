"""`opgen cc`: building against the twin and operator packages, the object cache, flags, errors."""

from __future__ import annotations

import ctypes
import os
import shlex
import subprocess
import uuid
from pathlib import Path

import pytest

from opgen.twin import INCLUDE_DIR, compiler
from opgen.twin.compiler import CcError, compile_program, find_kernel_entries, main

KERNELS = Path(__file__).parent / "kernels"
OPS_FIXTURE = KERNELS / "ops_fixture"

MAIN_WITH_OPERATOR = r"""
#include <cstdio>
#include "aclnnop/aclnn_my_add.h"
#include "opgen_twin/kernel_registry.h"

int main() {
  float x[64], y[64], z[64];
  for (int i = 0; i < 64; ++i) { x[i] = static_cast<float>(i); y[i] = 2.0f * static_cast<float>(i); }
  const int rc = aclnnMyAdd(x, y, 0.5f, z, 64, 2);
  std::printf("rc=%d z0=%g z1=%g z63=%g\n", rc, z[0], z[1], z[63]);
  std::printf("has my_add=%d my_fill=%d\n", opgen_twin::HasKernel("my_add"), opgen_twin::HasKernel("my_fill"));
  std::printf("double=%g\n", aclnnMyAddDouble(1.0, 2.0, 3.0));
  return 0;
}
"""


def _unique_source(directory: Path, body: str, header: str = "") -> Path:
    """A source whose preprocessed text is new to the cache (the string survives preprocessing)."""
    source = directory / "main.cpp"
    stamp = f'static const char* kStamp = "{uuid.uuid4()}";\n'
    source.write_text(header + stamp + body + "\nint UseStamp() { return kStamp[0]; }\n")
    return source


def test_second_build_hits_the_cache_and_a_changed_header_rebuilds(tmp_path):
    (tmp_path / "helper.h").write_text("inline int Helper() { return 1; }\n")
    source = _unique_source(tmp_path, '#include "helper.h"\nint main() { return Helper() - 1; }\n')
    out = tmp_path / "prog"
    first = compile_program([source], out, ops_dirs=[])
    assert source in first.compiled
    assert subprocess.run([str(out)]).returncode == 0

    second = compile_program([source], out, ops_dirs=[])
    assert second.compiled == [], "nothing changed, nothing may be recompiled"
    assert source in second.cached

    # A comment-only edit leaves the preprocessed unit unchanged: still no recompilation.
    (tmp_path / "helper.h").write_text("// reformatted\ninline int Helper() { return 1; }\n")
    assert compile_program([source], out, ops_dirs=[]).compiled == []

    (tmp_path / "helper.h").write_text("inline int Helper() { return 3; }\n")
    third = compile_program([source], out, ops_dirs=[])
    assert third.compiled == [source], "only the unit including the header is rebuilt"
    assert subprocess.run([str(out)]).returncode == 2


def test_operator_package_kernels_are_registered(tmp_path):
    source = _unique_source(tmp_path, MAIN_WITH_OPERATOR)
    out = tmp_path / "prog"
    result = compile_program([source], out, ops_dirs=[OPS_FIXTURE])
    assert result.kernels == ["my_add", "my_fill"]  # the commented-out entry is ignored
    compiled_or_cached = {p.name for p in result.compiled + result.cached}
    assert {"aclnn_my_add.cpp", "my_add_tiling.cpp", "my_add.cpp", "my_add_aicpu.cpp"} <= compiled_or_cached
    run = subprocess.run([str(out)], capture_output=True, text=True, check=True)
    # z = x + 0.5 * y with y = 2x: z = 2x.
    assert run.stdout.splitlines() == ["rc=0 z0=0 z1=2 z63=126", "has my_add=1 my_fill=1", "double=7"]


def test_default_ops_dir_is_generated_in_cwd(tmp_path, monkeypatch):
    (tmp_path / "generated").symlink_to(OPS_FIXTURE, target_is_directory=True)
    source = _unique_source(tmp_path, MAIN_WITH_OPERATOR)
    monkeypatch.chdir(tmp_path)
    assert main([str(source), "-o", str(tmp_path / "prog")]) == 0
    run = subprocess.run([str(tmp_path / "prog")], capture_output=True, text=True, check=True)
    assert run.stdout.startswith("rc=0 z0=0 z1=2")


def test_ops_dir_none_links_no_kernels(tmp_path):
    body = (
        '#include <cstdio>\n#include "opgen_twin/kernel_registry.h"\n'
        'int main() { std::printf("%d\\n", opgen_twin::HasKernel("my_add")); return 0; }\n'
    )
    source = _unique_source(tmp_path, body)
    result = compile_program([source], tmp_path / "prog", ops_dirs=[])
    assert result.kernels == []
    assert subprocess.run([str(tmp_path / "prog")], capture_output=True, text=True).stdout == "0\n"


def test_shared_library_for_python(tmp_path):
    body = r"""
#include "tikicpulib.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void twice(GM_ADDR x) {
  GlobalTensor<float> g;
  g.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(x), 1);
  g.SetValue(0, g.GetValue(0) * 2.0f);
}
extern "C" float RunTwice(float value) {
  float* x = static_cast<float*>(GmAlloc(sizeof(float)));
  *x = value;
  ICPU_RUN_KF(twice, 1, reinterpret_cast<uint8_t*>(x));
  const float result = *x;
  GmFree(x);
  return result;
}
"""
    source = _unique_source(tmp_path, body)
    library = tmp_path / "libtwice.so"
    compile_program([source], library, ops_dirs=[], flags=["-shared"])
    handle = ctypes.CDLL(str(library))
    handle.RunTwice.restype = ctypes.c_float
    handle.RunTwice.argtypes = [ctypes.c_float]
    assert handle.RunTwice(21.0) == 42.0


def test_compiler_errors_are_shown_and_fail(tmp_path, capfd):
    source = tmp_path / "broken.cpp"
    source.write_text("int main() { return undefined_name; }\n")
    assert main([str(source), "-o", str(tmp_path / "prog"), "--ops-dir", "none"]) == 1
    err = capfd.readouterr().err
    assert "broken.cpp" in err and "undefined_name" in err and "error" in err
    assert "opgen cc: error: compilation failed" in err


def test_usage_errors(capfd):
    assert main(["x.cpp", "-o", "x", "--soc", "ascend123"]) == 1
    assert "unknown SoC" in capfd.readouterr().err
    assert main(["x.cpp"]) == 1
    assert "-o OUT is required" in capfd.readouterr().err
    with pytest.raises(CcError):
        compiler.parse_args(["notes.txt", "-o", "x"])


def test_print_flags(capfd):
    assert main(["--print-flags", "--soc", "ascend950", "--ops-dir", str(OPS_FIXTURE), "-DMY_FLAG=1"]) == 0
    flags = shlex.split(capfd.readouterr().out)
    assert flags[:3] == ["-std=c++17", "-fPIC", "-O1"]
    assert '-DOPGEN_TWIN_SOC="ascend950"' in flags and "-DMY_FLAG=1" in flags
    assert flags[flags.index("-isystem") + 1] == str(INCLUDE_DIR)
    for sub in ("op_api", "op_host", "op_kernel"):
        assert str((OPS_FIXTURE / "my_add" / sub).resolve()) in flags


def test_flag_routing():
    options = compiler.parse_args(
        [
            "a.cpp",
            "lib.a",
            "-o",
            "out",
            "-O2",
            "-DX=1",
            "-I",
            "inc",
            "-Wall",
            "-L/opt",
            "-lm",
            "-shared",
            "-g",
            "-Wl,-rpath,/x",
            "--ops-dir",
            "none",
            "-j",
            "3",
        ]
    )
    assert options.sources == [Path("a.cpp")] and options.link_inputs == [Path("lib.a")]
    assert options.compile_flags == ["-O2", "-DX=1", "-I", "inc", "-Wall", "-g"]
    assert options.link_flags == ["-O2", "-L/opt", "-lm", "-shared", "-g", "-Wl,-rpath,/x"]
    assert options.ops_dirs == [] and options.jobs == 3


def test_user_flags_reach_the_users_sources_and_code_flags_every_unit(tmp_path):
    user_only = ["-DFAULT=2", "-D", "MODE", "-UOTHER", "-I", "inc", "-Iinc2", "-iquote", "q", "-idirafter", "late"]
    user_only += ["-include", "forced.h", "-imacros", "m.h", "-isystem", "sys", "-Wp,-DHIDDEN", "-Wall", "-Werror"]
    user_only += ["-w", "-pedantic", "-fdiagnostics-color=always", "-fmax-errors=3", "-D_my_macro"]
    every = ["-O2", "-g", "-fsanitize=address", "-fno-omit-frame-pointer", "-march=x86-64-v2", "-std=c++20"]
    every += ["-D_GLIBCXX_DEBUG", "-U", "_FORTIFY_SOURCE", "-D__STDC_FORMAT_MACROS=1", "-pthread", "-Wa,--noexecstack"]
    argv = ["a.cpp", "-o", "out", "--ops-dir", str(OPS_FIXTURE), "--cache-dir", str(tmp_path), "--ops-flag=-Wextra"]
    options = compiler.parse_args([*argv, *user_only, *every, "--ops-flag", "-DPKG_ONLY"])
    assert options.compile_flags == [*user_only, *every]
    plan = compiler.Plan(options)
    assert plan.library_flags == every
    # "-I" and "-isystem" also name the twin's and the packages' own include dirs
    distinct = set(user_only) - {"-I", "-isystem"}

    def run_of(flags: list[str], run: list[str]) -> bool:
        return any(flags[index : index + len(run)] == run for index in range(len(flags)))

    twin, package = plan.runtime_flags(), plan.package_flags(plan.packages[0])
    # the level is spelled at one place of the library's flags (given or the default -O2: the same objects)
    code = [flag for flag in every if flag != "-O2"]
    assert twin.count("-O2") == 1 and package.count("-O2") == 1
    assert run_of(twin, code) and not distinct & set(twin) and "-Wextra" not in twin and "-DPKG_ONLY" not in twin
    # (-Wall: the packages' own, see PACKAGE_WARNINGS)
    assert run_of(package, [*code, "-Wall", "-Wextra", "-DPKG_ONLY"]) and not (distinct - {"-Wall"}) & set(package)
    user = plan.user_flags()
    assert run_of(user, user_only + every) and "-DPKG_ONLY" not in user and "-Wextra" not in user


def test_kernel_entry_scanner():
    text = """
    extern "C" __global__ __aicore__ void a(GM_ADDR x, GM_ADDR y) {}
    extern "C" __aicore__ __global__ void b(GM_ADDR x) {}
    extern "C" __global__ __aicore__ void c() {}
    /* extern "C" __global__ __aicore__ void hidden(GM_ADDR x) {} */
    extern "C" __aicore__ void not_a_kernel(GM_ADDR x) {}
    """
    assert find_kernel_entries(text) == [("a", 2), ("b", 1), ("c", 0)]


def test_headers_are_warning_free_without_isystem(tmp_path):
    # opgen cc includes the twin with -isystem; here the headers are ordinary user headers.
    cxx = os.environ.get("CXX", "g++")
    common = [cxx, "-std=c++17", "-Wall", "-Wextra", "-Werror", "-I", str(INCLUDE_DIR)]
    subprocess.run(
        [*common, "-O1", "-c", str(KERNELS / "classic_kernels.cpp"), "-o", str(tmp_path / "c.o")],
        check=True,
        timeout=300,
    )
    subprocess.run(
        [*common, "-O1", "-c", str(KERNELS / "api_harness.cpp"), "-o", str(tmp_path / "h.o")], check=True, timeout=300
    )


SOC_OF_PROGRAM = r"""
#include <cstdio>
#include "opgen_twin/soc.h"
int main() { std::printf("%s\n", opgen_twin::CurrentSoc().name); return 0; }
"""


def test_twin_lib_links_a_program_against_a_prebuilt_library(tmp_path):
    (tmp_path / "lib").mkdir()
    anchor = _unique_source(tmp_path / "lib", "")
    library = tmp_path / "libtwin.so"
    compile_program([anchor], library, ops_dirs=[OPS_FIXTURE], flags=["-shared"])
    source = _unique_source(tmp_path, MAIN_WITH_OPERATOR)
    out = tmp_path / "prog"
    result = main([str(source), "-o", str(out), "--ops-dir", str(OPS_FIXTURE), "--twin-lib", str(library), "-v"])
    assert result == 0
    run = subprocess.run([str(out)], capture_output=True, text=True, check=True)
    # the kernels come registered from the library: z = x + 0.5 * y with y = 2x
    assert run.stdout.splitlines() == ["rc=0 z0=0 z1=2 z63=126", "has my_add=1 my_fill=1", "double=7"]
    # only the program's own units were compiled or looked up: no twin or package source
    built = compile_program([source], out, ops_dirs=[OPS_FIXTURE], twin_lib=library)
    assert source in built.cached and not built.compiled
    assert all("opgen/twin/src" not in str(path) and "ops_fixture" not in str(path) for path in built.cached)


def test_twin_lib_program_keeps_its_own_soc(tmp_path):
    (tmp_path / "lib").mkdir()
    anchor = _unique_source(tmp_path / "lib", "")
    library = tmp_path / "libtwin.so"
    compile_program([anchor], library, ops_dirs=[], flags=["-shared"], soc="ascend910b")
    source = tmp_path / "soc.cpp"
    source.write_text(SOC_OF_PROGRAM)
    out = tmp_path / "prog"
    compile_program([source], out, ops_dirs=[], soc="ascend950", twin_lib=library)
    assert subprocess.run([str(out)], capture_output=True, text=True, check=True).stdout == "ascend950\n"
    picked = {**os.environ, "OPGEN_SOC": "ascend910_93"}
    assert subprocess.run([str(out)], capture_output=True, text=True, check=True, env=picked).stdout == "ascend910_93\n"


def test_twin_lib_must_exist(tmp_path, capfd):
    source = tmp_path / "main.cpp"
    source.write_text("int main() { return 0; }\n")
    assert main([str(source), "-o", str(tmp_path / "prog"), "--twin-lib", str(tmp_path / "missing.so")]) == 1
    assert "--twin-lib" in capfd.readouterr().err


def test_warnings_are_recorded_per_source_and_survive_the_cache(tmp_path):
    noisy = _unique_source(tmp_path, "int main() { int unused = 0; return 0; }\n")
    (tmp_path / "q").mkdir()
    quiet = _unique_source(tmp_path / "q", "int Quiet() { return 0; }\n")
    options = compiler.parse_args([str(noisy), str(quiet), "-o", str(tmp_path / "prog"), "--ops-dir", "none", "-Wall"])
    first, objects = compiler.compile_objects(options)
    assert objects and not (tmp_path / "prog").exists(), "compile_objects does not link"
    again, _ = compiler.compile_objects(options)
    for result in (first, again):
        assert "unused" in result.warnings[noisy] and result.warnings[quiet] == ""
    assert noisy in again.cached


GENERATED = Path(__file__).resolve().parents[2] / "generated"


def _compiled_packages(tmp_path: Path, *extra: str) -> list[str]:
    argv = [str(tmp_path / "main.cpp"), "-o", "out", "--ops-dir", str(GENERATED), "--cache-dir", str(tmp_path)]
    plan = compiler.Plan(compiler.parse_args([*argv, *extra]))
    return [package.root.name for package in plan.packages]


def test_a_program_compiles_the_packages_it_includes(tmp_path):
    """`opgen cc` compiles the packages whose headers the program includes (through its own headers too, and a
    package's headers by relative path), not every package of the ops dir; --ops adds one, or all."""
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "mine.h").write_text('#pragma once\n#include "aclnn_elu.h"  // found on the packages\' -I\n')
    (tmp_path / "main.cpp").write_text(
        '#include <vector>\n#include "acl/acl.h"\n#include "aclnnop/aclnn_leaky_relu.h"\n#include "mine.h"\n'
        f'#include "{GENERATED}/gelu/op_host/gelu_tiling.h"\nint main() {{ return 0; }}\n'
    )
    assert _compiled_packages(tmp_path, "-I", str(tmp_path / "inc")) == ["elu", "gelu", "leaky_relu"]
    assert _compiled_packages(tmp_path, f"-I{tmp_path / 'inc'}", "--ops", "relu,selu") == [
        "elu",
        "gelu",
        "leaky_relu",
        "relu",
        "selu",
    ]
    assert _compiled_packages(tmp_path) == ["gelu", "leaky_relu"], "mine.h is not found without -I"
    every = sorted(path.name for path in GENERATED.iterdir() if (path / "op_api").is_dir())
    assert _compiled_packages(tmp_path, "--ops=all") == every
    (tmp_path / "main.cpp").write_text('#include "acl/acl.h"\nint main() { return 0; }\n')
    assert _compiled_packages(tmp_path) == every, "a program that includes no package's header: all of them"
    with pytest.raises(CcError, match="--ops no_such_op: no such package"):
        _compiled_packages(tmp_path, "--ops", "no_such_op")
