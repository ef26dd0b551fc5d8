"""`opgen cc`'s object cache keys hold only what an object depends on: adding an operator package compiles
only its units (and the registration shim), a moved checkout reuses every object, a cached build is quiet.
Assertions are on the build result's compiled/cached units, never on timings."""

from __future__ import annotations

import io
import shutil
import subprocess
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from opgen.twin import TWIN_DIR, compiler, unity
from opgen.twin.build_graph import Unit, compile_units
from opgen.twin.compiler import Options, Plan, compile_program, main
from opgen.twin.progress import Progress

pytestmark = pytest.mark.cxx


def _make_package(ops_dir: Path, name: str, value: int, extra_kernel_source: str = "") -> list[Path]:
    """A small operator package named `name` (unique symbols: the cache has never seen its units)."""
    root = ops_dir / name
    api = f"aclnnProbe{name.title().replace('_', '')}"
    files = {
        f"op_api/aclnn_{name}.h": f"#pragma once\nint {api}(int x);\n",
        f"op_api/aclnn_{name}.cpp": f'#include "aclnn_{name}.h"\nint {api}(int x) {{ return x + {value}; }}\n',
        f"op_host/{name}_tiling.cpp": (f'#include <string>\nstd::string {name}_tiling_name() {{ return "{name}"; }}\n'),
        f"op_kernel/{name}.cpp": (
            '#include "kernel_operator.h"\n'
            f'extern "C" __global__ __aicore__ void {name}(GM_ADDR x) {{ (void)x; }}\n' + extra_kernel_source
        ),
    }
    for relative, text in files.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text)
    return sorted(root / relative for relative in files if relative.endswith(".cpp"))


def _program(directory: Path, names: list[str]) -> Path:
    includes = "".join(f'#include "aclnnop/aclnn_{name}.h"\n' for name in names)
    calls = " + ".join(f"aclnnProbe{name.title().replace('_', '')}(1)" for name in names)
    source = directory / "main.cpp"
    source.write_text(
        f'#include <cstdio>\n#include "opgen_twin/kernel_registry.h"\n{includes}'
        f'int main() {{ std::printf("%d %d\\n", {calls}, opgen_twin::HasKernel("{names[-1]}")); return 0; }}\n'
    )
    return source


def test_adding_a_package_compiles_only_its_units_and_the_shim(tmp_path):
    ops = tmp_path / "ops"
    first_name, second_name = f"pa_{uuid.uuid4().hex[:8]}", f"pb_{uuid.uuid4().hex[:8]}"
    _make_package(ops, first_name, 10)
    source = _program(tmp_path, [first_name])
    out = tmp_path / "prog"
    first = compile_program([source], out, ops_dirs=[ops])
    assert first.kernels == [first_name]
    assert subprocess.run([str(out)], capture_output=True, text=True, check=True).stdout == "11 1\n"

    added = _make_package(ops, second_name, 20)
    # A package the program does not include is neither compiled nor registered; the user's object stays.
    second = compile_program([source], out, ops_dirs=[ops])
    assert second.kernels == [first_name]
    assert second.compiled == [], "a package the program does not use is not compiled"
    assert sorted(second.cached) == sorted(first.compiled + first.cached)

    # The program includes the new package's aclnnop header now: its units, the shim and the program compile.
    _program(tmp_path, [first_name, second_name])
    third = compile_program([source], out, ops_dirs=[ops])
    assert third.kernels == sorted([first_name, second_name])
    shims = [path for path in third.compiled if path.name.startswith("register_")]
    assert len(shims) == 1, third.compiled
    assert sorted(third.compiled) == sorted([source, *added, *shims]), "the new package's units, the shim"
    assert len(third.cached) == len(second.cached) - 2  # all but the old shim and the program
    assert subprocess.run([str(out)], capture_output=True, text=True, check=True).stdout == "32 1\n"

    fourth = compile_program([source], out, ops_dirs=[ops])
    assert fourth.compiled == [] and not fourth.linked, "a no-op build neither compiles nor links"


def test_a_moved_checkout_reuses_every_object(tmp_path, monkeypatch):
    name = f"pm_{uuid.uuid4().hex[:8]}"
    ops = tmp_path / "old" / "ops"
    _make_package(ops, name, 5)
    source = _program(tmp_path, [name])
    compile_program([source], tmp_path / "prog", ops_dirs=[ops])

    # The twin and the packages at another path, copied without their mtimes (like a fresh clone).
    moved = tmp_path / "new" / "twin"
    shutil.copytree(TWIN_DIR / "include", moved / "include", copy_function=shutil.copy)
    shutil.copytree(TWIN_DIR / "src", moved / "src", copy_function=shutil.copy)
    shutil.copytree(ops, tmp_path / "new" / "ops", copy_function=shutil.copy)
    monkeypatch.setattr(compiler, "TWIN_DIR", moved)
    monkeypatch.setattr(compiler, "INCLUDE_DIR", moved / "include")
    monkeypatch.setattr(compiler, "SOURCE_DIR", moved / "src")
    result = compile_program([source], tmp_path / "prog2", ops_dirs=[tmp_path / "new" / "ops"])
    assert result.compiled == [], "nothing is recompiled after a move"
    assert any(str(path).startswith(str(moved)) for path in result.cached)
    assert subprocess.run([str(tmp_path / "prog2")], capture_output=True, text=True, check=True).stdout == "6 1\n"


def test_a_unit_that_clashes_with_the_precompiled_header_still_builds(tmp_path):
    name = f"pc_{uuid.uuid4().hex[:8]}"
    ops = tmp_path / "ops"
    # ::tm is <ctime>'s: fine in a unit that does not include it, a clash with the force-included headers.
    clash = f"struct tm {{ int x; }};\nint {name}_tm() {{ tm t{{41}}; return t.x + 1; }}\n"
    (ops / name / "op_host").mkdir(parents=True)
    (ops / name / "op_host" / f"{name}_clash.cpp").write_text(clash)
    _make_package(ops, name, 1)
    source = _program(tmp_path, [name])
    first = compile_program([source], tmp_path / "prog", ops_dirs=[ops])
    assert any(path.name == f"{name}_clash.cpp" for path in first.compiled)
    assert compile_program([source], tmp_path / "prog", ops_dirs=[ops]).compiled == []


def test_units_that_define_macros_first_do_not_get_the_precompiled_header(tmp_path):
    name = f"pd_{uuid.uuid4().hex[:8]}"
    ops = tmp_path / "ops"
    _make_package(ops, name, 1)
    defining = ops / name / "op_host" / f"{name}_defines.cpp"
    defining.write_text("// a comment\n#define _GLIBCXX_ASSERTIONS 1\n#include <vector>\nint F() { return 1; }\n")
    plan = Plan(Options(ops_dirs=[ops], cache_dir=tmp_path / "cache"))
    by_source = {unit.source: unit for unit in plan.units()}
    assert by_source[defining].pch is False
    assert by_source[ops.resolve() / name / "op_api" / f"aclnn_{name}.cpp"].pch is True


def test_a_cached_build_prints_nothing(tmp_path, capfd):
    name = f"pq_{uuid.uuid4().hex[:8]}"
    ops = tmp_path / "ops"
    _make_package(ops, name, 1)
    source = _program(tmp_path, [name])
    argv = [str(source), "-o", str(tmp_path / "prog"), "--ops-dir", str(ops)]
    assert main(argv) == 0
    capfd.readouterr()
    assert main(argv) == 0
    assert capfd.readouterr().err == ""


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_lines_and_in_place_updates():
    plain = io.StringIO()
    progress = Progress(3, delay=0.0, stream=plain)
    for name in ("a.cpp", "b.cpp", "c.cpp"):
        progress.advance(name)
    progress.finish()
    lines = [line for line in plain.getvalue().splitlines() if "/3 (" in line]
    assert lines == [f"opgen cc: compiling {i}/3 ({name}.cpp)" for i, name in ((1, "a"), (2, "b"), (3, "c"))]

    tty = _Tty()
    progress = Progress(2, delay=0.0, stream=tty)
    progress.advance("a.cpp")
    progress.advance("b.cpp")
    progress.finish()
    assert "\n" not in tty.getvalue() and "\r\x1b[Kopgen cc: compiling 2/2 (b.cpp)" in tty.getvalue()
    assert tty.getvalue().endswith("\r\x1b[K"), "the line is cleared at the end"

    quiet = io.StringIO()
    progress = Progress(2, delay=60.0, stream=quiet)
    progress.advance("a.cpp")
    progress.finish()
    assert quiet.getvalue() == "", "nothing during the first seconds"


def test_unity_chunks_keep_same_named_file_local_definitions_apart(tmp_path):
    sources = []
    for index in range(8):
        source = tmp_path / f"s{index}.cpp"
        helper = "LogError" if index in (0, 4) else f"Helper{index}"
        source.write_text(
            f"namespace twin {{\nnamespace {{\nvoid {helper}() {{}}\n}}  // namespace\n}}  // namespace twin\n"
        )
        sources.append(source)
    chunks = unity.chunks(sources, size=4)
    assert sorted(path for chunk in chunks for path in chunk) == sources
    assert not any(sources[0] in chunk and sources[4] in chunk for chunk in chunks)
    assert unity.defined_names(sources[0].read_text()) == {"twin::{anonymous}::LogError"}


def test_a_unity_unit_that_fails_is_compiled_source_by_source(tmp_path):
    # The definitions are indented, so the scan misses the clash and only the compiler finds it.
    stamp = uuid.uuid4().hex[:8]
    members = []
    for letter in "ab":
        source = tmp_path / f"{letter}.cpp"
        source.write_text(
            f"namespace {{\n  int Dup() {{ return 1; }}\n}}  // namespace\nint {letter}_{stamp}() {{ return Dup(); }}\n"
        )
        members.append(source)
    plan = Plan(Options(ops_dirs=[]))
    context = compiler._context(plan)
    flags = plan.runtime_flags()
    combined = unity.write_unity_source(tmp_path / "unity", members, tmp_path)
    chunk = Unit(
        combined,
        flags + unity.flags(tmp_path),
        True,
        [Unit(m, flags, True) for m in members],
        unity.failed_marker(combined),
    )

    first = compile_units(context, [chunk], jobs=2)
    assert [outcome.unit.source for outcome in first] == members and all(o.obj for o in first)
    assert not any(outcome.from_cache for outcome in first)
    assert unity.failed_marker(combined).exists()
    second = compile_units(context, [chunk], jobs=2)
    assert [outcome.unit.source for outcome in second] == members and all(o.from_cache for o in second)


def test_checkouts_sharing_a_cache_write_the_same_unity_source(tmp_path):
    """Two checkouts of the same twin sources, building at once with one cache: each must compile its own
    sources. A unity source naming one checkout's files under a name both use let the other compile (and
    link) objects of foreign sources, e.g. without a function only its own checkout had."""
    cache = tmp_path / "cache"
    written = []
    for checkout in ("one", "two"):
        root = tmp_path / checkout / "twin"
        members = [root / "src" / "acl" / "a.cpp", root / "src" / "log" / "b.cpp"]
        for member in members:
            member.parent.mkdir(parents=True, exist_ok=True)
            member.write_text(f"int {member.stem}_{checkout}() {{ return 1; }}\n")
        path = unity.write_unity_source(cache / "unity", members, root)
        written.append((path, path.read_text()))
    (first_path, first_text), (second_path, second_text) = written
    assert first_path == second_path and first_text == second_text
    assert str(tmp_path) not in first_text
    # each checkout's flags resolve the includes to its own files
    for checkout in ("one", "two"):
        root = tmp_path / checkout / "twin"
        command = [compiler.compiler(), "-E", *unity.flags(root), str(first_path)]
        preprocessed = subprocess.run(command, capture_output=True, text=True, check=True).stdout
        assert f"a_{checkout}()" in preprocessed and f"b_{checkout}()" in preprocessed


@pytest.mark.slow
def test_every_twin_source_compiles_on_its_own():
    """The fast build force-includes the standard headers and combines the twin's sources, which would hide
    a missing #include: each source must also compile alone, as any other build system would compile it."""
    plan = Plan(Options(ops_dirs=[]))
    flags = plan.runtime_flags()

    def syntax_check(source: Path) -> tuple[Path, subprocess.CompletedProcess]:
        command = [compiler.compiler(), *flags, "-fsyntax-only", str(source)]
        return source, subprocess.run(command, capture_output=True, text=True)

    with ThreadPoolExecutor(max_workers=compiler.DEFAULT_JOBS) as pool:
        results = list(pool.map(syntax_check, compiler.twin_sources()))
    failed = [f"{source.relative_to(TWIN_DIR)}:\n{proc.stderr[-1500:]}" for source, proc in results if proc.returncode]
    assert not failed, "\n".join(failed)


FAULT_PROGRAM = r"""
#include <cstdio>
#include "aclnnop/aclnn_{name}.h"
int main() {{ std::printf("%d %d\n", FAULT, aclnnProbe{api}(FAULT)); return 0; }}
"""


def test_a_new_user_define_or_warning_compiles_only_the_users_sources(tmp_path):
    """Issue 17: `opgen cc prog.cpp -DFAULT=1`, then `-DFAULT=2`, rebuilt the twin and every package."""
    name = f"pf_{uuid.uuid4().hex[:8]}"
    ops = tmp_path / "ops"
    _make_package(ops, name, 100)
    source = tmp_path / "fault.cpp"
    source.write_text(FAULT_PROGRAM.format(name=name, api=name.title().replace("_", "")))
    (tmp_path / "user_inc").mkdir()
    (tmp_path / "user_inc" / "user_forced.h").write_text("#define USER_FORCED 1\n")
    out = tmp_path / "prog"
    first = compile_program([source], out, ops_dirs=[ops], flags=["-DFAULT=1"])
    assert subprocess.run([str(out)], capture_output=True, text=True, check=True).stdout == "1 101\n"
    assert any("twin" in str(path) for path in first.compiled + first.cached)

    # Never-seen macros, warnings, include dirs and forced includes: the user's flags, the user's unit only.
    fresh = uuid.uuid4().hex[:8]
    user_flags = ["-DFAULT=2", f"-DUSER_{fresh}", f"-UOTHER_{fresh}", "-Wshadow", "-Wno-unused-parameter"]
    user_flags += ["-I", str(tmp_path / "user_inc"), "-include", "user_forced.h", "-w", "-pedantic"]
    second = compile_program([source], out, ops_dirs=[ops], flags=user_flags)
    assert second.compiled == [source], "only the user's source may be compiled"
    assert sorted(second.cached) == sorted(path for path in first.compiled + first.cached if path != source)
    assert subprocess.run([str(out)], capture_output=True, text=True, check=True).stdout == "2 102\n"


def test_packages_get_wall_wextra_and_ops_flag_reaches_the_packages_only(tmp_path):
    name = f"pw_{uuid.uuid4().hex[:8]}"
    ops = tmp_path / "ops"
    shadowing = "int Shadowing(int x) { { int x = 2; return x; } }\n"
    sources = _make_package(ops, name, 1, "static int Unused() { int unused = 0; return 1; }\n" + shadowing)
    kernel = [path for path in sources if path.parent.name == "op_kernel"]
    source = _program(tmp_path, [name])
    argv = [str(source), "-o", str(tmp_path / "prog"), "--ops-dir", str(ops)]
    # -Wall -Wextra always (one object whoever builds the package: a program, the binding, the test suite)
    plain, _ = compiler.compile_objects(compiler.parse_args(argv))
    assert "unused" in plain.warnings[kernel[0].resolve()] and "shadows" not in plain.warnings[kernel[0].resolve()]
    assert not any(text for path, text in plain.warnings.items() if "opgen/twin/src" in str(path))
    shadow, _ = compiler.compile_objects(compiler.parse_args([*argv, "--ops-flag=-Wshadow"]))
    assert "shadows" in shadow.warnings[kernel[0].resolve()]
    assert not any(text for path, text in shadow.warnings.items() if "opgen/twin/src" in str(path))
    quiet, _ = compiler.compile_objects(compiler.parse_args([*argv, "-Wshadow"]))
    assert "shadows" not in quiet.warnings[kernel[0].resolve()], "-Wshadow of the user does not reach the packages"
