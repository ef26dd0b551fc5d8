"""Hostile specs: every one must give a `file:line:col` diagnostic and exit 1 from `opgen check`, never a
Python traceback and never a hang.

Like tests/spec/test_malformed_specs.py, each case mutates a real spec by textual edits and finds the expected
line (and, where the diagnostic points at a value, the column) from a marker in the mutated text.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tracemalloc
from dataclasses import dataclass
from pathlib import Path

import pytest
from timing import deadline

from opgen.cli import main
from opgen.spec import loader

SPECS = Path(__file__).resolve().parents[2] / "specs"
ROOT = SPECS.parent


@dataclass(frozen=True)
class Case:
    id: str
    edits: tuple[tuple[str, str], ...]  # (old, new): each replaces the first occurrence of old
    marker: str  # text where the diagnostic must point (its first character gives line and column)
    fragment: str  # must appear in the diagnostic's message
    column: bool = True  # also check the column (the marker is the value or key the diagnostic names)
    spec: str = "leaky_relu_grad.yaml"
    occurrence: int = 1
    offset: int = 0  # the diagnostic's column is this far right of the marker's


def edit(old: str, new: str) -> tuple[tuple[str, str], ...]:
    return ((old, new),)


def mutate(case: Case) -> str:
    text = (SPECS / case.spec).read_text(encoding="utf-8")
    for old, new in case.edits:
        assert old in text, f"case {case.id}: {old!r} no longer occurs in {case.spec}"
        text = text.replace(old, new, 1)
    return text


def position(text: str, marker: str, occurrence: int = 1) -> tuple[int, int]:
    index = -1
    for _ in range(occurrence):
        index = text.index(marker, index + 1)
    line = text.count("\n", 0, index) + 1
    column = index - (text.rfind("\n", 0, index) + 1) + 1
    return line, column


def run_check(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, name: str) -> tuple[int, str]:
    spec_dir = tmp_path / "specs"
    spec_dir.mkdir(exist_ok=True)
    (spec_dir / name).write_text(text, encoding="utf-8", errors="surrogatepass", newline="")
    forward = SPECS / "leaky_relu.yaml"  # the forward spec leaky_relu_grad's derivative_of reads
    if name != forward.name:
        shutil.copy(forward, spec_dir / forward.name)
    code = main(["check", str(spec_dir)])
    return code, capsys.readouterr().err


def assert_reported(err: str, name: str, line: int, fragment: str, column: int | None = None) -> None:
    """A diagnostic `<path>/<name>:line:col: ...` holding `fragment` (however the CLI shows the path)."""
    assert "Traceback" not in err
    where = f"{name}:{line}:" + (f"{column}:" if column is not None else "")
    pattern = rf"(.*/)?{re.escape(where)}" + (" " if column is not None else r"\d+: ")
    hits = [row for row in err.splitlines() if re.match(pattern, row) and fragment in row]
    assert hits, f"no diagnostic at {where} containing {fragment!r}; got:\n{err[:5000]}"


@pytest.fixture(autouse=True)
def _private_build_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A build cache of this test's own: nothing cached elsewhere can answer for the spec under test."""
    monkeypatch.setenv("OPGEN_CACHE_DIR", str(tmp_path / "cache"))


SPEC_TEXT = (SPECS / "leaky_relu_grad.yaml").read_text(encoding="utf-8")
NUMBER_400_DIGITS = "1" + "0" * 400
RELATED = "  category: activation\n"

CASES = [
    # 1. aliases (an alias bomb is in test_alias_bomb_does_not_hang)
    Case(
        "alias",
        edit(
            "  - {soc: ascend950, supported: true}\n  - {soc: ascend910_93, supported: true}",
            "  - &s {soc: ascend950, supported: true}\n  - *s",
        ),
        "*s",
        "YAML aliases",
    ),
    # 2. deep nesting
    Case(
        "deep-flow-sequence",
        edit(RELATED, "  category: " + "[" * 10_000 + "]" * 10_000 + "\n"),
        "  category: [",
        "nested more than 64 levels deep",
        column=False,
    ),
    Case(
        "deep-flow-mapping",
        edit(RELATED, "  category: " + "{a: " * 10_000 + "1" + "}" * 10_000 + "\n"),
        "  category: {",
        "nested more than 64 levels deep",
        column=False,
    ),
    Case(
        "deep-block-sequence",
        edit(RELATED, "  category:\n    " + "- " * 10_000 + "x\n"),
        "- - -",
        "nested more than 64 levels deep",
        column=False,
    ),
    # 4. control characters, surrogates and invisible characters
    Case("nul-escape", edit(RELATED, RELATED + '  related: "see\\0this"\n'), '"see\\0', "control character U+0000"),
    Case("raw-control", edit(RELATED, RELATED + "  related: see\x01this\n"), "\x01", "U+0001"),
    Case("escape-c1-control", edit(RELATED, RELATED + '  related: "x\\x85y"\n'), '"x\\x85', "U+0085"),
    Case("escape-esc", edit(RELATED, RELATED + '  related: "x\\ey"\n'), '"x\\e', "U+001B"),
    Case("carriage-return-escape", edit(RELATED, RELATED + '  related: "x\\ry"\n'), '"x\\r', "U+000D"),
    # libyaml refuses the escape itself, at its code (PyYAML's own parser let it through to the text check)
    Case("lone-surrogate", edit(RELATED, RELATED + '  related: "x\\ud800y"\n'), "d800y", "Unicode"),
    Case("bidi-override", edit(RELATED, RELATED + '  related: "x\\u202ey"\n'), '"x\\u202e', "U+202E"),
    Case(
        "nul-in-list-item", edit("    notes: [selfIsResult", '    notes: ["a\\0b", selfIsResult'), '"a\\0b"', "U+0000"
    ),
    Case("nul-in-key", edit("  category: activation", '  "cate\\0gory": activation'), '"cate\\0gory"', "U+0000"),
    # 5. numbers out of range
    Case(
        "int-10**400-example-shape",
        edit("gradOutput: {shape: [4]", f"gradOutput: {{shape: [{NUMBER_400_DIGITS}]"),
        NUMBER_400_DIGITS,
        "out of range",
    ),
    Case(
        "int-5000-digits-rank",
        edit("    rank: [0, 8]\n", "    rank: [0, " + "9" * 5000 + "]\n"),
        "9999",
        "out of range",
    ),
    Case(
        "int-10**400-golden-shape",
        edit("  value_range: [-10, 10]\n", f"  value_range: [-10, 10]\n  shapes: [[4], [{NUMBER_400_DIGITS}]]\n"),
        NUMBER_400_DIGITS,
        "out of range",
    ),
    Case(
        "int-10**400-code",
        edit("    code: 161001\n", f"    code: {NUMBER_400_DIGITS}\n"),
        NUMBER_400_DIGITS,
        "out of range",
    ),
    Case(
        "int-10**400-scalar",
        edit("scalars: {negativeSlope: 0.01", f"scalars: {{negativeSlope: {NUMBER_400_DIGITS}"),
        NUMBER_400_DIGITS,
        "out of range",
    ),
    Case("malformed-hex-int", edit("    code: 161001\n", "    code: 0x_\n"), "0x_", "not a valid number"),
    Case("malformed-binary-int", edit("    code: 161001\n", "    code: 0b_\n"), "0b_", "not a valid number"),
    Case(
        "example-dim-over-int32",
        edit("gradOutput: {shape: [4]", "gradOutput: {shape: [2147483648]"),
        "2147483648",
        "less than or equal to 2147483647",
    ),
    Case(
        "golden-shape-too-many-elements",
        edit("  value_range: [-10, 10]\n", "  value_range: [-10, 10]\n  shapes: [[4], [4096, 4096, 2]]\n"),
        "[4096, 4096, 2]",
        "elements",
    ),
    Case("rtol-inf", edit("rtol: 1.0e-3", "rtol: .inf"), ".inf", "finite"),
    Case("rtol-float-overflow", edit("rtol: 1.0e-3", "rtol: 1.0e+400"), "1.0e+400", "finite"),
    Case("rtol-inf-text", edit("rtol: 1.0e-3", "rtol: inf"), "inf, atol", "finite"),
    Case("atol-nan", edit("atol: 1.0e-3", "atol: .nan"), ".nan", "finite"),
    Case("max-fail-ratio-nan", edit("max_fail_ratio: 1.0e-3", "max_fail_ratio: .nan"), ".nan", "finite"),
    Case("value-range-inf", edit("  value_range: [-10, 10]", "  value_range: [-.inf, 10]"), "-.inf", "finite"),
    Case("value-range-nan", edit("  value_range: [-10, 10]", "  value_range: [-10, .nan]"), ".nan", "finite"),
    # 6. shapes: negative dims, too many dims, ranks outside the parameter's range
    Case(
        "negative-example-shape",
        edit("gradOutput: {shape: [4]", "gradOutput: {shape: [-2, -2]"),
        "-2, -2",
        "greater than or equal to 0",
    ),
    Case(
        "negative-golden-shape",
        edit("  value_range: [-10, 10]\n", "  value_range: [-10, 10]\n  shapes: [[4], [3, -1]]\n"),
        "-1]]",
        "greater than or equal to 0",
    ),
    Case(
        "example-rank-9",
        edit(
            "gradOutput: {shape: [4], dtype: FLOAT, data: [2, 3, 4, 5]}",
            "gradOutput: {shape: [1, 1, 1, 1, 1, 1, 1, 1, 4], dtype: FLOAT, data: [2, 3, 4, 5]}",
        ),
        "[1, 1, 1",
        "at most 8",
    ),
    Case(
        "golden-rank-9",
        edit("  value_range: [-10, 10]\n", "  value_range: [-10, 10]\n  shapes: [[4], [1, 1, 1, 1, 1, 1, 1, 1, 4]]\n"),
        "[1, 1, 1",
        "at most 8",
    ),
    Case(
        "example-rank-below-param-range",
        (
            ("    rank: [0, 8]\n", "    rank: [1, 8]\n"),
            (
                "gradOutput: {shape: [4], dtype: FLOAT, data: [2, 3, 4, 5]}",
                "gradOutput: {shape: [], dtype: FLOAT, data: [2]}",
            ),
        ),
        "[], dtype",
        "rank 0",
    ),
    Case(
        "example-rank-above-param-range",
        (
            ("    rank: [0, 8]\n", "    rank: [0, 1]\n"),
            (
                "gradOutput: {shape: [4], dtype: FLOAT, data: [2, 3, 4, 5]}",
                "gradOutput: {shape: [2, 2], dtype: FLOAT, data: [2, 3, 4, 5]}",
            ),
        ),
        "[2, 2], dtype",
        "rank 2",
    ),
    Case(
        "golden-rank-outside-param-range",
        (
            ("    rank: [0, 8]\n", "    rank: [0, 2]\n"),
            ("  value_range: [-10, 10]\n", "  value_range: [-10, 10]\n  shapes: [[4], [2, 2, 2]]\n"),
        ),
        "[2, 2, 2]",
        "rank 3",
    ),
    Case(
        "example-inputs-do-not-broadcast",
        edit(
            "gradOutput: {shape: [4], dtype: FLOAT, data: [2, 3, 4, 5]}",
            "gradOutput: {shape: [5], dtype: FLOAT, data: [2, 3, 4, 5, 6]}",
        ),
        "[1, 2, 3, 4]}",
        "does not broadcast",
        offset=-len("[4], dtype: FLOAT, data: "),  # at self's shape
    ),
    Case(
        "example-output-shape-differs",
        edit(
            "out: {shape: [4], dtype: FLOAT, data: [0, 0, 0, 0]}",
            "out: {shape: [2, 2], dtype: FLOAT, data: [0, 0, 0, 0]}",
        ),
        "[2, 2], dtype",
        "must be [4]",
    ),
    # 7./8. formulas
    Case(
        "formula-superscript",
        edit("gradOutput * negativeSlope)", "self*²)"),
        "expr: where",
        "unexpected character '²' (at column 34",
        column=False,
    ),
    Case(
        "formula-100k-terms",
        edit(
            "expr: where(self > 0, gradOutput, gradOutput * negativeSlope)", "expr: " + " + ".join(["self"] * 100_000)
        ),
        "self + self",
        "at most 4096 characters",
    ),
    Case(
        "formula-too-deep",
        edit("expr: where(self > 0, gradOutput, gradOutput * negativeSlope)", "expr: self" + "+self" * 700),
        "expr: self",
        "operations deep",
        column=False,
    ),
    Case(
        "condition-too-deep",
        edit(
            "reject_if: selfIsResult and negativeSlope < 0",
            "reject_if: selfIsResult and negativeSlope" + "+0" * 700 + " < 0",
        ),
        "reject_if:",
        "operations deep",
        column=False,
    ),
    # 9. names a formula cannot refer to (each renames a parameter everywhere)
    *[
        Case(
            f"param-named-{word}",
            ((old, word),) * SPEC_TEXT.count(old),
            f"name: {word}\n",
            f"'{word}' is a formula {what}",
            offset=len("name: "),
        )
        for old, word, what in [
            ("negativeSlope", "pi", "constant"),
            ("negativeSlope", "e", "constant"),
            ("negativeSlope", "inf", "constant"),
            ("negativeSlope", "nan", "constant"),
            ("selfIsResult", "and", "keyword"),
            ("selfIsResult", "or", "keyword"),
            ("selfIsResult", "not", "keyword"),
        ]
    ],
    Case(
        "param-named-true",
        edit("  - name: selfIsResult\n", "  - name: 'true'\n"),
        "'true'",
        "'true' is a formula keyword",
    ),
    Case(
        "var-named-pi",
        edit("  vars: {x: selfOrResult}", "  vars: {pi: selfOrResult}"),
        "pi: selfOrResult",
        "'pi' is a formula constant",
        spec="elu_grad_v2.yaml",
    ),
    # 10. doc_name must be a safe file stem
    *[
        Case(
            f"doc-name-{i}",
            edit("  aten: leaky_relu_backward\n", f"  aten: leaky_relu_backward\n  doc_name: {value}\n"),
            value,
            "not a safe file name",
        )
        for i, value in enumerate(["'x/'", "'../x'", "'..'", "'.hidden'", "'a/../b'", "'a b'", "'a\\b'", "''"])
    ],
    # 11. aten names are lowercase identifiers
    *[
        Case(
            f"aten-{i}",
            edit("  aten: leaky_relu_backward", f"  aten: {value}"),
            f"aten: {value}",
            "not an aten op name",
            offset=len("aten: "),
        )
        for i, value in enumerate(["leaky relu", "'x; import os'", "LeakyReluBackward", "'leaky_relu.out'", "'1x'"])
    ],
    Case(
        "inplace-aten",
        edit("    aten: leaky_relu_\n", "    aten: 'leaky_relu_; rm -rf'\n"),
        "'leaky_relu_;",
        "not an aten op name",
        spec="leaky_relu.yaml",
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_hostile_spec_gets_a_diagnostic(case: Case, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = mutate(case)
    code, err = run_check(tmp_path, capsys, text, case.spec)
    line, column = position(text, case.marker, case.occurrence)
    assert code == 1, err
    assert_reported(err, case.spec, line, case.fragment, column + case.offset if case.column else None)


# ---------------------------------------------------------------------------------------------- hangs


def alias_bomb(levels: int = 12) -> str:
    rows = ["lol:", "  - &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    rows += [f"  - &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, levels)]
    return SPEC_TEXT + "\n".join(rows) + "\n"


def test_alias_bomb_does_not_hang(tmp_path: Path) -> None:
    """10**12 nodes once expanded: rejected at the first alias, in a subprocess so a regression cannot hang."""
    spec_dir = tmp_path / "specs"
    spec_dir.mkdir()
    text = alias_bomb()
    (spec_dir / "leaky_relu_grad.yaml").write_text(text, encoding="utf-8")
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from opgen.cli import main; sys.exit(main(sys.argv[1:]))",
            "check",
            str(spec_dir),
        ],
        capture_output=True,
        text=True,
        timeout=20,
        cwd=ROOT,
        env={**os.environ, "OPGEN_CACHE_DIR": str(tmp_path / "cache")},
    )
    assert result.returncode == 1, result.stderr
    line, column = position(text, "*a0")
    assert_reported(result.stderr, "leaky_relu_grad.yaml", line, "YAML aliases", column)


def test_alias_bomb_is_rejected_by_the_loader_itself() -> None:
    with deadline(5), pytest.raises(loader.SpecError) as info:
        loader.load_spec_text(alias_bomb(levels=40), "specs/bomb.yaml")
    assert all(d.kind == "alias" for d in info.value.diagnostics)
    assert len(info.value.diagnostics) <= 21  # capped, with a summary


# ---------------------------------------------------------------------------------------------- size


def test_oversized_spec_is_rejected_at_line_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = SPEC_TEXT + "# " + "x" * (1 << 20) + "\n"
    code, err = run_check(tmp_path, capsys, text, "leaky_relu_grad.yaml")
    assert code == 1
    assert_reported(err, "leaky_relu_grad.yaml", 1, "spec file too large", 1)


def sparse_spec(path: Path, size: int) -> Path:
    """The real spec followed by NUL bytes up to `size` (a sparse file: no disk space used)."""
    path.write_text(SPEC_TEXT, encoding="utf-8")
    with path.open("r+b") as handle:
        handle.truncate(size)
    return path


def test_huge_spec_file_is_rejected_at_line_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec_dir = tmp_path / "specs"
    spec_dir.mkdir()
    sparse_spec(spec_dir / "leaky_relu_grad.yaml", 1 << 26)
    assert main(["check", str(spec_dir)]) == 1
    assert_reported(capsys.readouterr().err, "leaky_relu_grad.yaml", 1, "spec file too large", 1)


def test_the_loader_reads_no_more_than_the_limit(tmp_path: Path) -> None:
    path = sparse_spec(tmp_path / "huge.yaml", 1 << 28)
    tracemalloc.start()
    try:
        with pytest.raises(loader.SpecError, match="spec file too large") as info:
            loader.load_spec(path, "specs/huge.yaml")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 16 << 20, f"{peak} bytes allocated: the whole file was read"
    assert str(info.value).startswith("specs/huge.yaml:1:1: ")


def test_oversized_spec_text_is_rejected_by_the_loader() -> None:
    with pytest.raises(loader.SpecError, match="spec file too large"):
        loader.load_spec_text(SPEC_TEXT + "#" * (1 << 20), "specs/big.yaml")


# ---------------------------------------------------------------------------------------------- last resort


def test_unexpected_exception_becomes_an_internal_error_diagnostic(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def boom(*args: object) -> list[object]:
        raise RuntimeError("boom")

    monkeypatch.setattr(loader, "check_spec", boom)
    code, err = run_check(tmp_path, capsys, SPEC_TEXT, "leaky_relu_grad.yaml")
    assert code == 1
    assert_reported(err, "leaky_relu_grad.yaml", 1, "internal error while checking this spec: RuntimeError: boom", 1)


# ---------------------------------------------------------------------------------------------- still accepted


ACCEPTED = [
    # 12. the precision standard is free text: quotes and a trailing backslash are fine for check
    edit('standard: "FLOAT attribute: exact but for the scalar rounded to float"', "standard: 'say \"hi\" \\'"),
    edit(
        'standard: "FLOAT attribute: exact but for the scalar rounded to float"',
        'standard: "tab\\there, 全角\u3000空格"',
    ),
    # formula function names are not reserved: a name is a call only when '(' follows (aclnnClamp has min and
    # max; C++ and Python may still reserve a name, e.g. exp is a libm function)
    # (the forward spec keeps the name: derivative_of maps it)
    (("negativeSlope", "where"),) * SPEC_TEXT.count("negativeSlope")
    + (("result_flag: selfIsResult}", "result_flag: selfIsResult, params: {negativeSlope: where}}"),),
    # special values where they are meant: example data and scalars, golden scalar values
    edit("data: [2, 3, 4, 5]", "data: [.inf, -.inf, .nan, -0.0]"),
    edit("negativeSlope: [0.01, 0.0, 0.2, 2.0, -0.3]", "negativeSlope: [0.01, .inf, .nan]"),
    # an anchor nobody refers to is harmless
    edit("  - {soc: ascend950, supported: true}", "  - &s {soc: ascend950, supported: true}"),
]


@pytest.mark.parametrize("edits", ACCEPTED, ids=range(len(ACCEPTED)))
def test_legitimate_specs_are_still_accepted(
    edits: tuple[tuple[str, str], ...], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = mutate(Case("accepted", edits, "", ""))
    code, err = run_check(tmp_path, capsys, text, "leaky_relu_grad.yaml")
    assert code == 0, err


def test_crlf_line_endings_are_accepted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, err = run_check(tmp_path, capsys, SPEC_TEXT.replace("\n", "\r\n"), "leaky_relu_grad.yaml")
    assert code == 0, err


def test_doc_name_with_ampersand_is_accepted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = (SPECS / "leaky_relu.yaml").read_text(encoding="utf-8")
    assert "doc_name: aclnnLeakyRelu&aclnnInplaceLeakyRelu" in text
    code, err = run_check(tmp_path, capsys, text, "leaky_relu.yaml")
    assert code == 0, err


def test_a_yaml_stream_keeps_file_lines_and_its_limits() -> None:
    from opgen.spec.diagnostics import SpecError
    from opgen.spec.yaml_source import MAX_NODES, load_yaml, load_yaml_documents

    documents = load_yaml_documents("a: 1\n---\nb:\n  c: 2\n", "two.yaml")
    assert [d.data for d in documents] == [{"a": 1}, {"b": {"c": 2}}]
    assert documents[1].location_of(("b", "c")).line == 4  # lines count from the top of the file
    with pytest.raises(SpecError, match="expected one YAML document"):
        load_yaml("a: 1\n---\nb: 2\n", "two.yaml")
    half = "\n".join(f"k{i}: {i}" for i in range(MAX_NODES // 4 + 1))
    with pytest.raises(SpecError, match="more than"):  # the node limit is the stream's, not each document's
        load_yaml_documents(f"{half}\n---\n{half}\n", "big.yaml")
    with pytest.raises(SpecError, match="YAML aliases"):
        load_yaml_documents("a: &x 1\n---\nb: *x\n", "alias.yaml")
