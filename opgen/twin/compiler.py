"""`opgen cc`: compile and link a C++ program against the CPU twin and generated operator packages.

In the spirit of mpicc/nvcc: `opgen cc SOURCES... -o OUT [--soc NAME] [--ops-dir DIR] [g++ flags]`
compiles the user's sources, every .cpp of the twin runtime (`opgen/twin/src/**`), and for each operator
package in the ops dirs that the sources include a header of (`includes`; all if they include none; `--ops`
adds) its `op_api/*.cpp`, `op_host/**/*.cpp`, `op_kernel/*.cpp` and `op_kernel/aicpu/*.cpp`, plus a
generated shim that registers every `extern "C" __global__ __aicore__` kernel of those packages with the
twin's kernel registry; then links them (skipped when the output is already that link).
The user's flags reach the user's sources; the twin and the packages take only those that change their
objects (`cc_flags` states the rule), so a new -D or -W compiles the user's sources alone.

This module plans the build (packages, flags, generated files) and links; `build_graph` compiles the units
in parallel (`-j`, default: every core) through the content-addressed object cache (`object_cache`: keys
hold only what an object depends on, with location-independent paths, so adding an operator compiles only
its units and a moved checkout reuses everything), with a precompiled header of the standard library
(`pch`, OPGEN_CC_PCH=0 turns it off) for the twin's and the packages' units and the twin's sources
compiled as a few unity units (`unity`, OPGEN_CC_UNITY=0), and reports progress on stderr once a build
takes more than 2 s (`progress`). The cache lives in $OPGEN_CACHE_DIR or ~/.cache/opgen/cc and is never
pruned; delete it freely. `benchmarks/compile_bench.py` measures cold, warm, add-one-operator and
moved-checkout builds; the choice against ninja and ccache is recorded in `build_graph`.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from opgen.spec.socs import DEFAULT_SOC, SOC_BY_NAME
from opgen.twin import INCLUDE_DIR, SOURCE_DIR, TWIN_DIR, includes, unity
from opgen.twin import pch as pch_module
from opgen.twin.build_graph import BuildContext, Unit, UnitOutcome, compile_units
from opgen.twin.cc_flags import INCLUDE_FLAGS, PREPROCESSOR_VALUE_FLAGS, library_flags, pairs
from opgen.twin.object_cache import CACHE_FORMAT, FileHashes, ObjectCache, PathMap, sha256, write_if_changed
from opgen.twin.pch import PchBuilder
from opgen.twin.progress import Progress

__all__ = [
    "BuildResult",
    "CcError",
    "Options",
    "Plan",
    "Unit",
    "UnitOutcome",
    "build",
    "compile_objects",
    "compile_program",
    "compiler",
    "find_kernel_entries",
    "main",
    "parse_args",
]

CXX_SUFFIXES = {".cpp", ".cc", ".cxx", ".c++", ".C"}
# Without a -O of the user's: the user's sources compile quickly, the library (the twin and the packages) runs
# fast. The library's level is the opgen_ops binding's and the test suite's, so they and `opgen cc` share
# every object of the cache.
DEFAULT_USER_OPT = "-O1"
DEFAULT_LIBRARY_OPT = "-O2"
# The packages are always compiled with these, so whatever builds them (a program, the binding, the test
# suite, which checks that generated sources have no warnings) makes the same objects and sees their warnings.
PACKAGE_WARNINGS = ["-Wall", "-Wextra"]
LINK_INPUT_SUFFIXES = {".o", ".a", ".so"}


def _cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


DEFAULT_JOBS = _cores()

USAGE = """\
usage: opgen cc SOURCES... -o OUT [--soc NAME] [--ops-dir DIR|none]... [--ops OP|all]... [--twin-lib LIB]
                [-j N] [-v] [--ops-flag FLAG]... [g++ flags]
       opgen cc --print-flags [--soc NAME] [--ops-dir DIR|none]...
       opgen cc --print-sources [--ops-dir DIR|none]...
Compiles and links a C++ program against the opgen CPU twin (Ascend C kernel API, ACL/aclnn runtime) and
the operator packages in the ops dirs (default: ./generated if it exists) that it uses: those whose headers
its sources include (e.g. aclnnop/aclnn_leaky_relu.h), all of them if it includes none.
--ops OP (a package's folder name; repeatable, or comma-separated) compiles that package too; --ops all: every
package in the ops dirs.
Flags -D -U -I -O -W -g -f -m -std= pass to the compiler; -L -l -shared -Wl, pass to the linker.
Without -O, your sources are compiled at -O1 and the twin and the packages at -O2 (as the opgen_ops binding
and the test suite build them, so all share one object cache); the packages always get -Wall -Wextra.
The twin and the packages (the library) are compiled once per SoC and per set of the flags below that reach
them, and reused whatever else you pass:
  your sources only:  -D -U -I -iquote -isystem -idirafter -include -imacros -Wp, (preprocessor) and
                      -W... -w -pedantic -fdiagnostics-... -fmax-errors= (diagnostics)
  every unit:         everything else: -O -g -f... (-fsanitize=, ...) -m... -std= -pthread -Wa, (code and ABI),
                      and -D/-U of reserved names (_GLIBCXX_DEBUG, _GLIBCXX_USE_CXX11_ABI, _FILE_OFFSET_BITS, ...:
                      they configure the standard library both sides share)
  the packages only:  --ops-flag FLAG (e.g. --ops-flag=-Wall to see the packages' warnings)
--twin-lib LIB links against LIB, a shared library already holding the twin and the packages of the ops dirs
(e.g. `opgen cc anchor.cpp -shared -o LIB`), instead of compiling them: only SOURCES are compiled (LIB keeps
the flags it was built with), and the packages --ops names (e.g. one package's library over a twin-only LIB).
"""


class CcError(Exception):
    """A usage or build error, reported as one line."""


@dataclass
class Options:
    sources: list[Path] = field(default_factory=list)
    link_inputs: list[Path] = field(default_factory=list)
    output: Path | None = None
    soc: str = DEFAULT_SOC
    ops_dirs: list[Path] | None = None  # None: the default (./generated if present)
    compile_flags: list[str] = field(default_factory=list)
    link_flags: list[str] = field(default_factory=list)
    jobs: int = DEFAULT_JOBS
    verbose: bool = False
    print_flags: bool = False
    print_sources: bool = False
    cache_dir: Path | None = None
    twin_lib: Path | None = None  # a prebuilt library with the twin and the packages: link, do not compile them
    ops_flags: list[str] = field(default_factory=list)  # --ops-flag: for the packages' sources only
    # --ops: packages compiled besides those the sources include ("all": every one); see `Plan.selected`
    ops: list[str] = field(default_factory=list)


@dataclass
class OperatorPackage:
    root: Path
    sources: list[Path]
    kernel_sources: list[Path]
    aclnn_headers: list[Path]

    def include_flags(self) -> list[str]:
        flags = []
        for sub in ("op_api", "op_host", "op_kernel"):
            if (self.root / sub).is_dir():
                flags += ["-I", str(self.root / sub)]
        return flags


@dataclass
class BuildResult:
    output: Path | None
    compiled: list[Path] = field(default_factory=list)  # units compiled this time
    cached: list[Path] = field(default_factory=list)  # units taken from the cache
    kernels: list[str] = field(default_factory=list)  # kernels registered by the shim
    linked: bool = True  # False: the output already was this link
    # The compiler's output (warnings) per source, cached or not; a unity unit's under each member source.
    warnings: dict[Path, str] = field(default_factory=dict)


# --------------------------------------------------------------------------- argument parsing

_COMPILE_PREFIXES = ("-D", "-U", "-I", "-O", "-W", "-g", "-f", "-m", "-std=", "-isystem", "-include")
_LINK_PREFIXES = ("-L", "-l", "-Wl,")
_LINK_EXACT = {"-shared", "-static", "-rdynamic", "-pthread"}
_TAKES_VALUE = {"-L", "-l", *PREPROCESSOR_VALUE_FLAGS}


def parse_args(argv: list[str]) -> Options:
    options = Options()
    ops_dirs: list[Path] = []
    ops_dirs_given = False
    i = 0

    def value(flag: str) -> str:
        nonlocal i
        if i + 1 >= len(argv):
            raise CcError(f"{flag} needs a value")
        i += 1
        return argv[i]

    while i < len(argv):
        arg = argv[i]
        if arg in ("-h", "--help"):
            raise CcError(USAGE.rstrip())
        elif arg == "-o":
            options.output = Path(value(arg))
        elif arg.startswith("-o") and len(arg) > 2:
            options.output = Path(arg[2:])
        elif arg == "--soc" or arg.startswith("--soc="):
            options.soc = arg.split("=", 1)[1] if "=" in arg else value(arg)
        elif arg == "--ops-dir" or arg.startswith("--ops-dir="):
            ops_dirs_given = True
            text = arg.split("=", 1)[1] if "=" in arg else value(arg)
            if text != "none":
                ops_dirs.append(Path(text))
        elif arg == "-j" or (arg.startswith("-j") and arg[2:].isdigit()):
            text = arg[2:] if len(arg) > 2 else value(arg)
            options.jobs = max(1, int(text))
        elif arg in ("-c", "-E", "-S"):
            raise CcError(f"{arg}: opgen cc always links a program; use --print-flags to compile separately")
        elif arg in ("-v", "--verbose"):
            options.verbose = True
        elif arg == "--print-flags":
            options.print_flags = True
        elif arg == "--print-sources":
            options.print_sources = True
        elif arg == "--twin-lib" or arg.startswith("--twin-lib="):
            options.twin_lib = Path(arg.split("=", 1)[1] if "=" in arg else value(arg))
        elif arg == "--ops" or arg.startswith("--ops="):
            text = arg.split("=", 1)[1] if "=" in arg else value(arg)
            options.ops += [name for name in text.split(",") if name]
        elif arg == "--ops-flag" or arg.startswith("--ops-flag="):
            options.ops_flags.append(arg.split("=", 1)[1] if "=" in arg else value(arg))
        elif arg == "--cache-dir" or arg.startswith("--cache-dir="):
            options.cache_dir = Path(arg.split("=", 1)[1] if "=" in arg else value(arg))
        elif arg in _TAKES_VALUE:
            target = options.link_flags if arg in ("-L", "-l") else options.compile_flags
            target += [arg, value(arg)]
        elif arg in _LINK_EXACT:
            options.link_flags.append(arg)
            if arg == "-pthread":
                options.compile_flags.append(arg)
        elif arg.startswith(_LINK_PREFIXES):
            options.link_flags.append(arg)
        elif arg.startswith(_COMPILE_PREFIXES):
            options.compile_flags.append(arg)
            if arg.startswith(("-O", "-g", "-f", "-m")):
                options.link_flags.append(arg)  # e.g. -fsanitize=, -flto, -m32 matter at link time too
        elif arg.startswith("-"):
            options.compile_flags.append(arg)
            options.link_flags.append(arg)
        else:
            path = Path(arg)
            if path.suffix in CXX_SUFFIXES:
                options.sources.append(path)
            elif path.suffix in LINK_INPUT_SUFFIXES:
                options.link_inputs.append(path)
            else:
                raise CcError(f"{arg}: not a C++ source ({', '.join(sorted(CXX_SUFFIXES))}) or object/library")
        i += 1
    options.ops_dirs = ops_dirs if ops_dirs_given else None
    if options.soc not in SOC_BY_NAME:
        raise CcError(f"--soc {options.soc}: unknown SoC (known: {', '.join(SOC_BY_NAME)})")
    if options.twin_lib is not None and not options.twin_lib.is_file():
        raise CcError(f"--twin-lib {options.twin_lib}: no such library")
    if not (options.print_flags or options.print_sources):
        if not options.sources and not options.link_inputs:
            raise CcError("no input files")
        if options.output is None:
            raise CcError("-o OUT is required")
    return options


# --------------------------------------------------------------------------- operator packages

_KERNEL_ENTRY = re.compile(r'extern\s+"C"\s+((?:(?:__global__|__aicore__)\s+)+)void\s+(\w+)\s*\(([^)]*)\)')
_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)


def default_ops_dirs() -> list[Path]:
    generated = Path.cwd() / "generated"
    return [generated] if generated.is_dir() else []


def _is_package(path: Path) -> bool:
    return any((path / sub).is_dir() for sub in ("op_api", "op_host", "op_kernel"))


def find_packages(ops_dir: Path, depth: int = 3) -> list[Path]:
    """Operator package roots under `ops_dir` (itself, its children, or deeper category folders)."""
    if not ops_dir.is_dir():
        raise CcError(f"--ops-dir {ops_dir}: not a directory")
    if _is_package(ops_dir):
        return [ops_dir]
    found: list[Path] = []
    if depth > 0:
        for child in sorted(p for p in ops_dir.iterdir() if p.is_dir() and not p.name.startswith(".")):
            if _is_package(child):
                found.append(child)
            else:
                found += find_packages(child, depth - 1) if any(child.iterdir()) else []
    return found


def load_package(root: Path) -> OperatorPackage:
    root = root.resolve()
    sources: list[Path] = []
    kernel_sources: list[Path] = []
    if (root / "op_api").is_dir():
        sources += sorted((root / "op_api").glob("*.cpp"))
    if (root / "op_host").is_dir():
        sources += sorted((root / "op_host").rglob("*.cpp"))
    if (root / "op_kernel").is_dir():
        kernel_sources = sorted((root / "op_kernel").glob("*.cpp"))
        sources += kernel_sources
        sources += sorted((root / "op_kernel" / "aicpu").glob("*.cpp"))
    headers = sorted((root / "op_api").glob("aclnn_*.h")) if (root / "op_api").is_dir() else []
    return OperatorPackage(root=root, sources=sources, kernel_sources=kernel_sources, aclnn_headers=headers)


def find_kernel_entries(source_text: str) -> list[tuple[str, int]]:
    """(name, number of GM_ADDR parameters) of each `extern "C" __global__ __aicore__ void NAME(...)`."""
    entries = []
    for match in _KERNEL_ENTRY.finditer(_COMMENT.sub("", source_text)):
        qualifiers = match.group(1).split()
        if "__global__" not in qualifiers or "__aicore__" not in qualifiers:
            continue
        params = match.group(3).strip()
        count = 0 if params in ("", "void") else len([p for p in params.split(",") if p.strip()])
        entries.append((match.group(2), count))
    return entries


def render_registration_shim(kernels: list[tuple[str, int]]) -> str:
    lines = [
        "// Generated by opgen cc: registers the operator kernels with the twin's kernel registry.",
        "#include <cstdint>",
        '#include "opgen_twin/kernel_registry.h"',
        "",
    ]
    for name, count in kernels:
        params = ", ".join(["uint8_t*"] * count)
        lines.append(f'extern "C" void {name}({params});')
    lines += ["", "namespace {", ""]
    for name, count in kernels:
        args = ", ".join(f"args[{i}]" for i in range(count))
        unused = "" if count else "  (void)args;\n"
        lines.append(f"void Thunk_{name}(uint8_t* const* args) {{\n{unused}  {name}({args});\n}}")
    lines += ["", "struct Registration {", "  Registration() {"]
    for name, count in kernels:
        lines.append(f'    opgen_twin::RegisterKernel("{name}", &Thunk_{name}, {count});')
    lines += ["  }", "};", "", "const Registration kRegistration;", "", "}  // namespace", ""]
    return "\n".join(lines)


# --------------------------------------------------------------------------- cache


def cache_root(options: Options) -> Path:
    if options.cache_dir is not None:
        return options.cache_dir
    env = os.environ.get("OPGEN_CACHE_DIR")
    return Path(env) if env else Path.home() / ".cache" / "opgen" / "cc"


_COMPILER_IDENTITY: dict[str, str] = {}


def compiler() -> str:
    return os.environ.get("CXX", "g++")


def compiler_identity() -> str:
    cxx = compiler()
    if cxx not in _COMPILER_IDENTITY:
        try:
            version = subprocess.run([cxx, "--version"], capture_output=True, text=True, check=True).stdout
            machine = subprocess.run([cxx, "-dumpmachine"], capture_output=True, text=True, check=True).stdout
        except (OSError, subprocess.CalledProcessError) as error:
            raise CcError(f"cannot run the compiler {cxx!r}: {error}") from error
        _COMPILER_IDENTITY[cxx] = f"{cxx}\n{version}\n{machine}"
    return _COMPILER_IDENTITY[cxx]


def twin_sources() -> list[Path]:
    return sorted(SOURCE_DIR.rglob("*.cpp"))


class Plan:
    """What to compile with which flags, derived from the options."""

    def __init__(self, options: Options):
        self.options = options
        # The user's flags that reach the twin and the packages too (`cc_flags`); the rest stay on SOURCES.
        self.library_flags = library_flags(options.compile_flags)
        self.cache_dir = cache_root(options).resolve()  # one spelling, for the path placeholders
        ops_dirs = options.ops_dirs if options.ops_dirs is not None else default_ops_dirs()
        roots: list[Path] = []
        for ops_dir in ops_dirs:
            roots += find_packages(ops_dir)
        # Every package of the ops dirs: their headers are visible to the user's sources (aclnnop/, -I)
        # whichever are compiled, so the flags (and the user's objects) do not depend on the selection.
        self.all_packages = [load_package(root) for root in roots]
        self.packages = self.selected()  # those compiled (and registered)
        self.kernels = self._collect_kernels()
        self.aclnnop_dir = self._write_aclnnop_headers()
        self.shim = self._write_shim()
        self.soc_unit = self._write_soc_default()

    def selected(self) -> list[OperatorPackage]:
        """The packages to compile: those the sources include a header of (all if they include none) and
        those --ops names; with --twin-lib (whose library holds the packages) only those --ops names."""
        by_name: dict[str, list[OperatorPackage]] = {}
        for package in self.all_packages:
            by_name.setdefault(package.root.name, []).append(package)
        wanted = set(self.options.ops)
        if "all" in wanted:
            return list(self.all_packages)
        unknown = sorted(wanted - set(by_name))
        if unknown:
            known = ", ".join(sorted(by_name)) or "none"
            raise CcError(f"--ops {', '.join(unknown)}: no such package in the ops dirs (packages: {known})")
        named = {package.root for name in wanted for package in by_name[name]}
        if self.options.twin_lib is not None:
            return [package for package in self.all_packages if package.root in named]
        headers = {header.name: package.root for package in self.all_packages for header in package.aclnn_headers}
        include_dirs: list[Path] = []
        forced: list[Path] = []  # -include FILE: scanned as a source
        for group in pairs(self.options.compile_flags):
            for flag in INCLUDE_FLAGS:
                if group[0] == flag and len(group) == 2:
                    value = group[1]
                elif group[0].startswith(flag) and len(group[0]) > len(flag):
                    value = group[0][len(flag) :]
                else:
                    continue
                (forced if flag in ("-include", "-imacros") else include_dirs).append(Path(value))
                break
        for package in self.all_packages:
            include_dirs += [package.root / sub for sub in ("op_api", "op_host", "op_kernel")]
        roots = [package.root for package in self.all_packages]
        scanned = [*self.options.sources, *forced]
        used = set(includes.needed_packages(scanned, roots, headers, include_dirs))
        if not used and not named:
            return list(self.all_packages)  # a program that includes no package header: a library of them all
        return [package for package in self.all_packages if package.root in used | named]

    def _collect_kernels(self) -> list[tuple[str, int]]:
        kernels: dict[str, tuple[int, Path]] = {}
        for package in self.packages:
            for source in package.kernel_sources:
                for name, count in find_kernel_entries(source.read_text(encoding="utf-8", errors="replace")):
                    if name in kernels and kernels[name][1] != source:
                        raise CcError(f"kernel {name} is defined in both {kernels[name][1]} and {source}")
                    kernels[name] = (count, source)
        return [(name, count) for name, (count, _) in sorted(kernels.items())]

    def _write_aclnnop_headers(self) -> Path | None:
        headers: dict[str, Path] = {}
        for package in self.all_packages:
            for header in package.aclnn_headers:
                if header.name in headers:
                    raise CcError(f"aclnnop/{header.name} is provided by both {headers[header.name]} and {header}")
                headers[header.name] = header
        if not headers:
            return None
        key = sha256(*(str(path) for path in sorted(headers.values())))[:16]
        root = self.cache_dir / "aclnnop" / key
        for name, header in headers.items():
            write_if_changed(root / "aclnnop" / name, f'// Generated by opgen cc.\n#include "{header}"\n')
        return root

    def _write_shim(self) -> Path | None:
        if not self.kernels:
            return None
        text = render_registration_shim(self.kernels)
        path = self.cache_dir / "shims" / f"register_{sha256(text)[:16]}.cpp"
        write_if_changed(path, text)
        return path

    def _write_soc_default(self) -> Path:
        # The runtime reads the compile-time default SoC from this symbol, so that its objects are shared
        # between SoCs in the cache; user and operator sources also get -DOPGEN_TWIN_SOC.
        text = (
            "// Generated by opgen cc: the compile-time default SoC of the twin.\n"
            f'extern "C" const char* const opgen_twin_default_soc = "{self.options.soc}";\n'
        )
        path = self.cache_dir / "socs" / f"default_soc_{self.options.soc}.cpp"
        write_if_changed(path, text)
        return path

    # Flags ---------------------------------------------------------------

    def base_flags(self, with_soc: bool = True, library: bool = False) -> list[str]:
        flags = ["-std=c++17", "-fPIC"]
        levels = [flag for flag in self.options.compile_flags if flag.startswith("-O")]
        if not library and not levels:
            flags.append(DEFAULT_USER_OPT)
        if with_soc:
            flags.append(f'-DOPGEN_TWIN_SOC="{self.options.soc}"')
        if library:
            # One spelling whether the level is the default or the user's own (the last of theirs), so that
            # `-O2` given or not makes the same objects (and the same direct keys).
            flags.append(levels[-1] if levels else DEFAULT_LIBRARY_OPT)
        return flags

    def twin_include_flags(self, aclnnop: bool = True) -> list[str]:
        flags = ["-isystem", str(INCLUDE_DIR)]
        if aclnnop and self.aclnnop_dir is not None:
            flags += ["-I", str(self.aclnnop_dir)]
        return flags

    def user_flags(self) -> list[str]:
        """Flags for the user's own sources: user flags, every package's dirs, the twin."""
        flags = self.base_flags() + self.options.compile_flags
        for package in self.all_packages:
            flags += package.include_flags()
        return flags + self.twin_include_flags()

    def _library_code_flags(self) -> list[str]:
        return [flag for flag in self.library_flags if not flag.startswith("-O")]  # the level: `base_flags`

    def package_flags(self, package: OperatorPackage) -> list[str]:
        extra = [flag for flag in self.options.ops_flags if flag not in PACKAGE_WARNINGS]
        flags = self.base_flags(library=True) + self._library_code_flags() + PACKAGE_WARNINGS + extra
        return flags + package.include_flags() + self.twin_include_flags()

    def runtime_flags(self) -> list[str]:
        # The twin's own sources include no aclnnop/ header, so the aclnnop dir (which changes with the
        # packages) stays off; they take no --ops-flag.
        flags = self.base_flags(with_soc=False, library=True) + self._library_code_flags()
        return flags + self.twin_include_flags(aclnnop=False)

    def units(self) -> list[Unit]:
        """User sources (never with the precompiled header), package sources, the twin, the shims; with
        --twin-lib no twin (the library has it) and only the packages --ops names."""
        if self.options.twin_lib is not None:
            return self._user_and_package_units() + self._generated_units()
        return self._user_and_package_units() + self._twin_units() + self._generated_units()

    def build_units(self) -> list[Unit]:
        """`units()` with the twin's sources combined into a few unity units (see `unity`)."""
        if self.options.twin_lib is not None:
            return self.units()
        twin = self._twin_units()
        if unity.enabled() and len(twin) > 1:
            by_source = {unit.source: unit for unit in twin}
            twin = []
            for chunk in unity.chunks(sorted(by_source)):
                members = [by_source[source] for source in chunk]
                if len(members) == 1:
                    twin += members
                    continue
                source = unity.write_unity_source(self.cache_dir / "unity", chunk, TWIN_DIR)
                flags = self.runtime_flags() + unity.flags(TWIN_DIR)
                pch = all(member.pch for member in members)
                twin.append(Unit(source, flags, pch, members, unity.failed_marker(source)))
        return self._user_and_package_units() + twin + self._generated_units()

    def _user_units(self) -> list[Unit]:
        return [Unit(source, self.user_flags()) for source in self.options.sources]

    def _user_and_package_units(self) -> list[Unit]:
        units = self._user_units()
        for package in self.packages:
            flags = self.package_flags(package)
            units += [Unit(source, flags, pch=pch_module.suits(source)) for source in package.sources]
        return units

    def _twin_units(self) -> list[Unit]:
        runtime = self.runtime_flags()
        return [Unit(source, runtime, pch=pch_module.suits(source)) for source in twin_sources()]

    def _generated_units(self) -> list[Unit]:
        runtime = self.runtime_flags()
        return ([Unit(self.shim, runtime)] if self.shim is not None else []) + [Unit(self.soc_unit, runtime)]

    def path_roots(self) -> list[tuple[Path, str]]:
        """Directories that cache keys and __FILE__ name by placeholder, so they may move."""
        roots = [(TWIN_DIR, "@twin"), (self.cache_dir, "@cache")]
        if self.aclnnop_dir is not None:
            roots.append((self.aclnnop_dir, "@aclnnop"))
        seen: dict[str, int] = {}
        for package in self.all_packages:
            count = seen[package.root.name] = seen.get(package.root.name, 0) + 1
            roots.append((package.root, f"@pkg:{package.root.name}" + (f"#{count}" if count > 1 else "")))
        return roots


def _context(plan: Plan) -> BuildContext:
    # With -g the debug info names the real files: keys then hold real paths (nothing is normalised).
    debug = any(flag.startswith("-g") and flag != "-g0" for flag in plan.options.compile_flags)
    path_map = PathMap(plan.path_roots(), enabled=not debug)
    cache = ObjectCache(plan.cache_dir, path_map, FileHashes([plan.cache_dir], path_map))
    identity = compiler_identity()
    builder = PchBuilder(cache, compiler(), identity) if pch_module.enabled() else None
    work = plan.cache_dir / "work"
    work.mkdir(parents=True, exist_ok=True)
    return BuildContext(cache, compiler(), identity, path_map, builder, work, keep_lines=debug)


def _link(options: Options, objects: list[Path], cache_dir: Path) -> bool:
    """Links unless the output is already the result of this very link; True if it linked."""
    assert options.output is not None
    output = options.output.resolve()
    command = [compiler(), *map(str, objects), *map(str, options.link_inputs), "-o", str(options.output)]
    linked_inputs = list(options.link_inputs)
    if options.twin_lib is not None:
        # The program's own SoC default (a unit of this link) takes precedence over the library's.
        twin_lib = options.twin_lib.resolve()
        command += [str(twin_lib), f"-Wl,-rpath,{twin_lib.parent}"]
        linked_inputs.append(twin_lib)
    command += options.link_flags
    inputs = []
    for path in linked_inputs:
        try:
            stat = path.stat()
            inputs.append(f"{path.resolve()}:{stat.st_mtime_ns}:{stat.st_size}")
        except OSError:
            inputs.append(str(path))
    key = sha256(CACHE_FORMAT, "link", compiler_identity(), *command, *inputs)
    record = cache_dir / "links" / f"{sha256(str(output))[:32]}.json"

    def output_stamp() -> list[int] | None:
        try:
            stat = output.stat()
        except OSError:
            return None
        return [stat.st_mtime_ns, stat.st_size, stat.st_ino]

    try:
        previous = json.loads(record.read_text(encoding="utf-8"))
        if previous.get("key") == key and previous.get("output") == output_stamp() and output_stamp():
            return False
    except (OSError, ValueError, AttributeError):
        pass
    output.parent.mkdir(parents=True, exist_ok=True)
    linked = subprocess.run(command, capture_output=True, text=True)
    if linked.stderr:
        sys.stderr.write(linked.stderr)
    if linked.returncode != 0:
        raise CcError("linking failed")
    write_if_changed(record, json.dumps({"key": key, "output": output_stamp()}))
    return True


def compile_objects(options: Options) -> tuple[BuildResult, list[Path]]:
    """Compiles (or finds in the cache) every unit of the build, without linking: the result (with each
    source's warnings) and the objects in link order. Raises CcError if a unit does not compile."""
    plan = Plan(options)
    context = _context(plan)
    units = plan.build_units()
    result = BuildResult(output=options.output, kernels=[name for name, _ in plan.kernels])
    outcomes = compile_units(context, units, options.jobs, progress=lambda total: Progress(total))
    failed = False
    objects: list[Path] = []
    for outcome in outcomes:
        if outcome.stderr:
            sys.stderr.write(outcome.stderr)
        if outcome.obj is None:
            failed = True
            continue
        objects.append(outcome.obj)
        # A unity unit stands for its member sources.
        sources = [member.source for member in outcome.unit.members] or [outcome.unit.source]
        for source in sources:
            result.warnings[source] = outcome.stderr
        (result.cached if outcome.from_cache else result.compiled).extend(sources)
        if options.verbose:
            state = "cached" if outcome.from_cache else "compiled"
            for source in sources:
                print(f"opgen cc: {state} {source}", file=sys.stderr)
    if failed:
        raise CcError("compilation failed")
    return result, objects


def build(options: Options) -> BuildResult:
    result, objects = compile_objects(options)
    result.linked = _link(options, objects, cache_root(options).resolve())
    if options.verbose:
        print(
            f"opgen cc: {len(result.compiled)} compiled, {len(result.cached)} cached -> {options.output}",
            file=sys.stderr,
        )
    return result


def compile_program(
    sources: list[Path | str],
    output: Path | str,
    *,
    soc: str = DEFAULT_SOC,
    ops_dirs: list[Path | str] | None = None,
    flags: list[str] | None = None,
    cache_dir: Path | str | None = None,
    jobs: int | None = None,
    twin_lib: Path | str | None = None,
) -> BuildResult:
    """Python entry point of `opgen cc` (used by tests and bindings). `ops_dirs=None` means the default
    (./generated if present); `[]` means none. Raises CcError on failure (g++ output goes to stderr)."""
    argv = [str(source) for source in sources] + ["-o", str(output), "--soc", soc, *(flags or [])]
    if twin_lib is not None:
        argv += ["--twin-lib", str(twin_lib)]
    if ops_dirs is not None:
        argv += [arg for ops_dir in ops_dirs for arg in ("--ops-dir", str(ops_dir))] or ["--ops-dir", "none"]
    options = parse_args(argv)
    options.jobs = jobs if jobs is not None else DEFAULT_JOBS
    if cache_dir is not None:
        options.cache_dir = Path(cache_dir)
    return build(options)


def main(argv: list[str]) -> int:
    if any(arg in ("-h", "--help") for arg in argv):
        print(USAGE.rstrip())
        return 0
    try:
        options = parse_args(argv)
        if options.print_flags or options.print_sources:
            plan = Plan(options)
            if options.print_flags:
                print(" ".join(shlex.quote(flag) for flag in plan.user_flags()))
            if options.print_sources:
                for unit in plan.units():
                    if unit.source not in options.sources:
                        print(unit.source)
            return 0
        build(options)
        return 0
    except CcError as error:
        print(f"opgen cc: error: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
