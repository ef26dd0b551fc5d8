"""The `opgen` command line: check, build, schema, cc."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from opgen import __version__
from opgen.build import build_tree, check_specs
from opgen.output_tree import OutputTreeError, UnsafePathError, diff_tree, write_tree
from opgen.spec.diagnostics import SpecError


def _report(exc: SpecError) -> int:
    for diagnostic in exc.diagnostics:
        print(diagnostic, file=sys.stderr)
    count = len(exc.diagnostics)
    print(f"opgen: {count} error{'s' if count != 1 else ''}", file=sys.stderr)
    return 1


def cmd_check(args: argparse.Namespace) -> int:
    try:
        loaded = check_specs(Path(args.spec_dir))
    except SpecError as exc:
        return _report(exc)
    print(f"opgen: {len(loaded)} spec{'s' if len(loaded) != 1 else ''} OK")
    return 0


def _error(message: object) -> int:
    print(f"opgen: error: {message}", file=sys.stderr)
    return 1


def cmd_build(args: argparse.Namespace) -> int:
    out = Path(args.output)
    try:
        result = build_tree(Path(args.spec_dir))
    except SpecError as exc:
        return _report(exc)
    if not result.specs:
        # Building nothing would remove every generated package: refused even with --force (delete OUT instead).
        return _error(f"no specs (*.yaml, *.yml) in {args.spec_dir}; refusing to build (nothing would be generated)")
    try:
        diff = diff_tree(result.files, out) if args.check else write_tree(result.files, out, force=args.force)
    except OutputTreeError as exc:
        return _error(exc)
    except OSError as exc:  # anything output_tree did not name already
        return _error(f"{exc.strerror or exc}: {exc.filename or out}")
    if args.check:
        if diff.clean:
            print(f"opgen: {out} is up to date ({len(result.files)} files)")
            return 0
        print(f"opgen: {out} is out of date; `opgen build {args.spec_dir}` would change:", file=sys.stderr)
        for line in diff.lines():
            print(f"  {line}", file=sys.stderr)
        if diff.blocked:
            print("opgen: `opgen build` stops at blocked paths; `opgen build --force` takes them over", file=sys.stderr)
        return 1
    for line in diff.lines():
        print(line)
    changed = len(diff.added) + len(diff.changed) + len(diff.removed)
    print(f"opgen: {len(result.specs)} specs -> {out} ({len(result.files)} files, {changed} changed)")
    return 0


def cmd_schema(args: argparse.Namespace) -> int:
    from opgen.spec.model import OpSpec  # only this command needs the schema

    schema = OpSpec.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "opgen operator spec"
    print(json.dumps(schema, ensure_ascii=False, indent=2, sort_keys=True))
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="opgen", description="Ascend operator packages from YAML specs.")
    parser.add_argument("--version", action="version", version=f"opgen {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    check = sub.add_parser("check", help="validate every spec in DIR")
    check.add_argument("spec_dir", metavar="DIR")
    check.set_defaults(func=cmd_check)
    build = sub.add_parser("build", help="generate operator packages from the specs in DIR")
    build.add_argument("spec_dir", metavar="DIR")
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
    sub.add_parser("cc", help="compile and link a C++ program against the CPU twin (see `opgen cc --help`)")
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "cc":
        # g++ flags (-O2, -DX=1, -o) would confuse argparse; the compiler wrapper parses its own arguments.
        from opgen.twin.compiler import main as cc_main

        return cc_main(argv[1:])
    args = _parser().parse_args(argv)
    try:
        return args.func(args)
    except (FileNotFoundError, UnsafePathError) as exc:
        print(f"opgen: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
