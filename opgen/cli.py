"""The `opgen` command line: check, build, schema, functions, new, test, cc.

Each command imports what it needs when it runs (the generator's layers, numpy, pydantic, the YAML loader
take most of a second to import): `opgen --version` and `opgen cc` start without them
(tests/test_cli.py counts the modules `opgen --version` imports).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from opgen import __version__

if TYPE_CHECKING:
    from opgen.build import BuildResult
    from opgen.spec.diagnostics import SpecError


def _report(exc: SpecError) -> int:
    for diagnostic in exc.diagnostics:
        print(diagnostic, file=sys.stderr)
    count = len(exc.diagnostics)
    print(f"opgen: {count} error{'s' if count != 1 else ''}", file=sys.stderr)
    return 1


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'s' if count != 1 else ''}"


def cmd_check(args: argparse.Namespace) -> int:
    from opgen.build import check_report
    from opgen.spec.diagnostics import SpecError

    try:
        operators, warnings = check_report(*args.specs, jobs=args.jobs)
    except SpecError as exc:
        return _report(exc)
    for warning in warnings:
        print(warning, file=sys.stderr)
    if not operators:
        return _error(f"no specs (*.yaml, *.yml) in {', '.join(map(str, args.specs))}")
    if not args.quiet:
        print(f"opgen: {_plural(len(operators), 'spec')} OK")
    return 0


def _error(message: object) -> int:
    print(f"opgen: error: {message}", file=sys.stderr)
    return 1


def _selected(result: BuildResult, only: list[str]) -> tuple[dict[str, bytes], frozenset[str]] | str:
    """The files of the operators `--only` names (and the shared artifacts), and the packages left alone."""
    unknown = sorted(set(only) - set(result.operators))
    if unknown:
        return f"--only: no operator {', '.join(unknown)} among the specs (operators: {', '.join(result.operators)})"
    others = frozenset(result.operators) - set(only)
    files = {rel: data for rel, data in result.files.items() if rel.split("/")[0] not in others}
    return files, others


def cmd_build(args: argparse.Namespace) -> int:
    from opgen.build import build_tree
    from opgen.build_cache import BuildCache
    from opgen.output_tree import OutputTreeError, diff_tree, write_tree
    from opgen.spec.diagnostics import SpecError

    out = Path(args.output)
    started = time.perf_counter()
    try:
        result = build_tree(*args.specs, jobs=args.jobs, cache=BuildCache(enabled=not args.no_cache))
    except SpecError as exc:
        return _report(exc)
    if not result.operators:
        # Building nothing would remove every generated package: refused even with --force (delete OUT instead).
        where = ", ".join(map(str, args.specs))
        return _error(f"no specs (*.yaml, *.yml) in {where}; refusing to build (nothing would be generated)")
    files, retain = result.files, frozenset[str]()
    if args.only:
        selected = _selected(result, args.only)
        if isinstance(selected, str):
            return _error(selected)
        files, retain = selected
    try:
        # What the last build saw of OUT, kept beside the build cache, spares reading unchanged outputs.
        record_dir = result.cache.output_records if result.cache else None
        if args.check:
            diff = diff_tree(files, out, retain=retain, digests=result.digests, record_dir=record_dir)
        else:
            diff = write_tree(
                files, out, force=args.force, retain=retain, digests=result.digests, record_dir=record_dir
            )
    except OutputTreeError as exc:
        return _error(exc)
    except OSError as exc:  # anything output_tree did not name already
        return _error(f"{exc.strerror or exc}: {exc.filename or out}")
    if args.check:
        if diff.clean:
            if not args.quiet:
                print(f"opgen: {out} is up to date ({_plural(len(files), 'file')})")
            return 0
        print(f"opgen: {out} is out of date; `opgen build` would change:", file=sys.stderr)
        for line in diff.lines():
            print(f"  {line}", file=sys.stderr)
        if diff.blocked:
            print("opgen: `opgen build` stops at blocked paths; `opgen build --force` takes them over", file=sys.stderr)
        return 1
    if not args.quiet:
        for line in diff.lines():
            print(line)
        changed = len(diff.added) + len(diff.changed) + len(diff.removed)
        counts = f"{_plural(len(files), 'file')}, {changed} changed"
        summary = f"opgen: {_plural(len(result.operators), 'spec')} -> {out} ({counts})"
        if args.verbose:
            summary += f" in {time.perf_counter() - started:.2f} s, {result.cached} from the build cache"
        print(summary)
    return 0


def cmd_schema(args: argparse.Namespace) -> int:
    import json

    from opgen.spec.model import OpSpec  # only this command needs the schema

    schema = OpSpec.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "opgen operator spec"
    print(json.dumps(schema, ensure_ascii=False, indent=2, sort_keys=True))
    return 0


def cmd_new(args: argparse.Namespace) -> int:
    from opgen.spec_skeleton import SkeletonError, render_skeleton, write_skeleton

    try:
        folder = None if args.output == "-" else Path(args.output)
        text = render_skeleton(args.op_type, aten_name=args.aten, api_name=args.api, folder=folder)
        if args.output == "-":
            sys.stdout.write(text)
            return 0
        path = Path(args.output) / f"{text.split('dir: ', 1)[1].split(chr(10), 1)[0]}.yaml"
        write_skeleton(path, text, force=args.force)
    except SkeletonError as exc:
        return _error(exc)
    if not args.quiet:
        print(f"opgen: wrote {path}; fill in its TODOs, then `opgen check {args.output}`")
    return 0


def cmd_functions(args: argparse.Namespace) -> int:
    from opgen.formula.function_reference import render_function_reference

    print(render_function_reference(), end="")
    return 0


def cmd_test(args: argparse.Namespace) -> int:
    """pytest on one operator's tests, in the opgen checkout (the working directory or one above it)."""
    import subprocess

    root = next((d for d in (Path.cwd(), *Path.cwd().parents) if (d / "tests" / "conftest.py").is_file()), None)
    if root is None or not (root / "specs").is_dir():
        return _error("opgen test runs the tests of an opgen checkout: run it inside one (tests/, specs/)")
    missing = [op for op in args.operators if not (root / "generated" / op).is_dir()]
    if missing:
        return _error(f"no generated package {', '.join(missing)} in {root / 'generated'} (run `opgen build specs/`)")
    command = [sys.executable, "-m", "pytest", "-q", "tests", *(f"generated/{op}" for op in args.operators)]
    command += [arg for op in args.operators for arg in ("--operator", op)]
    command += args.pytest_args
    print("opgen:", " ".join(command[1:]), file=sys.stderr)
    return subprocess.run(command, cwd=root).returncode


def _common(command: argparse.ArgumentParser) -> None:
    command.add_argument("-j", "--jobs", type=int, metavar="N", help="worker processes (default: all cores)")
    loudness = command.add_mutually_exclusive_group()
    loudness.add_argument("-q", "--quiet", action="store_true", help="print only errors")
    loudness.add_argument("-v", "--verbose", action="store_true", help="also print time and cache use")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="opgen", description="Ascend operator packages from YAML specs.")
    parser.add_argument("--version", action="version", version=f"opgen {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    check = sub.add_parser("check", help="validate specs (folders of *.yaml, or spec files)")
    check.add_argument("specs", metavar="SPEC", nargs="+", type=Path, help="a folder of specs or a spec file")
    _common(check)
    check.set_defaults(func=cmd_check)
    build = sub.add_parser("build", help="generate operator packages from specs (folders of *.yaml, or spec files)")
    build.add_argument("specs", metavar="SPEC", nargs="+", type=Path, help="a folder of specs or a spec file")
    _common(build)
    build.add_argument(
        "--only",
        action="append",
        metavar="OP",
        help="write only this operator's package (operator.dir; repeatable) and the shared artifacts",
    )
    build.add_argument("--no-cache", action="store_true", help="rebuild every operator (the cache is not read)")
    build.add_argument("-o", "--output", default="generated", metavar="OUT", help="output directory (generated/)")
    build.add_argument("--check", action="store_true", help="change nothing; exit 1 listing files that would change")
    build.add_argument(
        "--force",
        action="store_true",
        help="take over files in OUT that opgen did not make but that are in the way (they are overwritten)",
    )
    build.set_defaults(func=cmd_build)
    schema = sub.add_parser("schema", help="print the JSON Schema of the spec format")
    schema.set_defaults(func=cmd_schema)
    new = sub.add_parser("new", help="write a commented spec skeleton for a new operator (from its aten schema)")
    new.add_argument("op_type", metavar="OpType", help="the CANN OpType, e.g. HardSwish")
    new.add_argument("--aten", help="the aten counterpart (default: the API name in snake case; '' for none)")
    new.add_argument("--api", help="the aclnn API (default: aclnn<OpType>, ...Grad -> ...Backward)")
    new.add_argument("-o", "--output", default="specs", metavar="DIR", help="spec folder (default specs/; - prints)")
    new.add_argument("--force", action="store_true", help="overwrite an existing spec file")
    new.add_argument("-q", "--quiet", action="store_true", help="print only errors")
    new.set_defaults(func=cmd_new)
    functions = sub.add_parser(
        "functions", help="print the reference of the formula functions (docs/formula-functions.md)"
    )
    functions.set_defaults(func=cmd_functions)
    test = sub.add_parser(
        "test",
        help="run one operator's tests: golden, C++ unit test programs, binding and per-operator checks (pytest)",
        description="Runs `python -m pytest tests generated/OP --operator OP [PYTEST_ARGS]` in the opgen checkout: "
        "the tests under generated/OP and every test parametrized with the operator (its operator.dir, or the file "
        "stem of an operator it holds). Extra arguments go to pytest (e.g. -n 0, -x, --collect-only).",
    )
    test.add_argument("operators", metavar="OP", nargs="+", help="an operator's dir (generated/OP), e.g. leaky_relu")
    test.set_defaults(func=cmd_test, pytest_args=[])
    sub.add_parser("cc", help="compile and link a C++ program against the CPU twin (see `opgen cc --help`)")
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "cc":
        # g++ flags (-O2, -DX=1, -o) would confuse argparse; the compiler wrapper parses its own arguments.
        from opgen.twin.compiler import main as cc_main

        return cc_main(argv[1:])
    parser = _parser()
    args, rest = parser.parse_known_args(argv)
    if rest and args.command != "test":
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    args.pytest_args = rest if args.command == "test" else []
    try:
        return args.func(args)
    except FileNotFoundError as exc:
        print(f"opgen: error: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:
        from opgen.output_tree import UnsafePathError  # imported by any command that can raise it

        if not isinstance(exc, UnsafePathError):
            raise
        print(f"opgen: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
