"""Safe YAML loading that keeps a line/column mark for every value and mapping key.

Built on PyYAML's composer (node graph with marks) rather than its constructors, so that duplicate keys,
merge keys and any non-standard tag (`!!python/object`, `!custom`) become diagnostics instead of
silently winning, being merged or being constructed.

Hostile input is bounded before it can cost much: the text's size (MAX_SPEC_BYTES), the nesting of
collections (MAX_NESTING, checked while composing, since PyYAML's composer recurses), aliases (none:
an alias bomb would expand exponentially), integers (64 bits) and the characters of every string
(printable Unicode text, tab and newline: spec text ends up in C++, Python and Markdown).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import yaml
from yaml.composer import Composer
from yaml.constructor import SafeConstructor
from yaml.resolver import Resolver

from opgen.spec.diagnostics import Diagnostic, FieldPath, Location, SpecError

_STD = "tag:yaml.org,2002:"
_SCALAR_TAGS = {_STD + t for t in ("str", "int", "float", "bool", "null")}
_TEXT_TAGS = {_STD + "timestamp"}  # kept as text: a date in a spec is just a string

MAX_SPEC_BYTES = 1 << 20  # 1 MiB; the real specs are a few KiB
MAX_NESTING = 64  # nested collections (mappings and sequences), the document's own mapping included
MAX_NODES = 100_000  # values, keys and collections: bounds the (pure Python) composing time to seconds
MAX_INT_DIGITS = 25  # an int literal with more digits is out of range without being converted
INT_LIMIT = 1 << 63  # |int| must stay below: every integer of a spec fits int64 (most far less)
MAX_ALIAS_REPORTS = 20


def text_problem(text: str) -> str | None:
    """Why `text` cannot be spec text, or None: it must be printable Unicode, spaces, tabs and newlines."""
    if text.isprintable():
        return None
    for char in text:
        if char in "\t\n" or char.isprintable():
            continue
        code = f"U+{ord(char):04X}"
        category = unicodedata.category(char)
        if category == "Zs":  # no-break and ideographic spaces are text
            continue
        if category == "Cs":
            return f"lone surrogate {code} is not valid Unicode text"
        if category == "Cc":
            return f"control character {code} is not allowed in spec text (only tab and newline are)"
        name = unicodedata.name(char, "unassigned")
        return f"invisible or unprintable character {code} ({name}) is not allowed in spec text"
    return None


def too_large(file: str, size: int, unit: str = "bytes") -> SpecError:
    message = f"spec file too large ({size} {unit}; the limit is {MAX_SPEC_BYTES} bytes)"
    return SpecError([Diagnostic(Location(file, 1, 1), (), message, "too-large")])


class _TooBig(Exception):
    """The composer stopped at `mark`: the document nests too deep or holds too many nodes."""

    def __init__(self, mark: yaml.Mark, message: str, kind: str):
        super().__init__(message)
        self.mark = mark
        self.message = message
        self.kind = kind


class _PurePythonParser(yaml.reader.Reader, yaml.scanner.Scanner, yaml.parser.Parser):
    def __init__(self, stream: str) -> None:
        yaml.reader.Reader.__init__(self, stream)
        yaml.scanner.Scanner.__init__(self)
        yaml.parser.Parser.__init__(self)


# The characters YAML refuses (PyYAML's reader checks them; libyaml would report byte offsets, not characters).
_NOT_YAML = yaml.reader.Reader.NON_PRINTABLE


class _SpecComposer(Composer, SafeConstructor, Resolver):
    """A safe loader's composer, in Python, that bounds nesting and composes no alias (each is recorded
    instead); the parser it reads events from is the subclass's."""

    def __init__(self) -> None:
        SafeConstructor.__init__(self)
        Resolver.__init__(self)
        Composer.__init__(self)
        self.nesting = 0
        self.nodes = 0
        self.aliases: list[yaml.AliasEvent] = []

    def compose_node(self, parent: yaml.Node | None, index: object) -> yaml.Node:
        self.nodes += 1
        if self.nodes > MAX_NODES:
            message = f"the spec holds more than {MAX_NODES} YAML values"
            raise _TooBig(self.peek_event().start_mark, message, "too-large")
        if self.check_event(yaml.AliasEvent):
            event = self.get_event()
            self.aliases.append(event)
            # A stand-in, so that the anchored value is never shared (and never expanded) through the alias.
            return yaml.ScalarNode(_STD + "null", "", event.start_mark, event.end_mark)
        if not self.check_event(yaml.SequenceStartEvent, yaml.MappingStartEvent):
            return super().compose_node(parent, index)
        self.nesting += 1
        try:
            if self.nesting > MAX_NESTING:
                message = f"the YAML is nested more than {MAX_NESTING} levels deep"
                raise _TooBig(self.peek_event().start_mark, message, "too-deep")
            return super().compose_node(parent, index)
        finally:
            self.nesting -= 1


class _PureSpecLoader(_SpecComposer, _PurePythonParser):
    """Parser events from PyYAML's pure-Python reader, scanner and parser: no limits or words of their own."""

    def __init__(self, text: str) -> None:
        _PurePythonParser.__init__(self, text)
        _SpecComposer.__init__(self)


try:  # libyaml scans and parses ~8x faster than PyYAML's pure-Python reader, scanner and parser
    from yaml._yaml import CParser

    class _FastSpecLoader(_SpecComposer, CParser):
        """Parser events from libyaml. Its own limits and messages differ between versions (the one in PyYAML
        6.0.4 stops deep nesting with its own words before the composer sees it), so a document it refuses is
        read again by _PureSpecLoader, whose diagnostics do not depend on the libyaml a user has."""

        def __init__(self, text: str) -> None:
            bad = _NOT_YAML.search(text)
            if bad is not None:
                raise yaml.reader.ReaderError(
                    "<spec>", bad.start(), ord(bad.group()), "unicode", "special characters are not allowed"
                )
            CParser.__init__(self, text)
            _SpecComposer.__init__(self)

    _LOADERS: tuple[Callable[[str], _SpecComposer], ...] = (_FastSpecLoader, _PureSpecLoader)
except ImportError:  # PyYAML built without libyaml
    _LOADERS = (_PureSpecLoader,)


@dataclass
class SourceDocument:
    """Plain Python data (dict/list/scalars) plus where each piece came from."""

    file: str
    data: Any
    value_locations: dict[FieldPath, Location] = field(default_factory=dict)
    key_locations: dict[FieldPath, Location] = field(default_factory=dict)

    def location_of(self, path: FieldPath, *, prefer_key: bool = False) -> Location:
        """Location of the deepest existing prefix of `path` (Pydantic paths may point past the data)."""
        for end in range(len(path), -1, -1):
            prefix = tuple(path[:end])
            # A problem with a whole mapping (e.g. a key missing from it) is shown at the key that opens it.
            if (prefer_key or isinstance(self._value_at(prefix), dict)) and prefix in self.key_locations:
                return self.key_locations[prefix]
            if prefix in self.value_locations:
                return self.value_locations[prefix]
        return Location(self.file, 1, 1)

    def _value_at(self, path: FieldPath) -> Any:
        node = self.data
        for part in path:
            try:
                node = node[part]
            except (KeyError, IndexError, TypeError):
                return None
        return node


class _Builder:
    def __init__(self, file: str, loader: _SpecComposer):
        self.file = file
        self.loader = loader
        self.doc = SourceDocument(file, None)
        self.errors: list[Diagnostic] = []

    def location(self, node: yaml.Node) -> Location:
        return Location(self.file, node.start_mark.line + 1, node.start_mark.column + 1)

    def error(self, node: yaml.Node, path: FieldPath, message: str, kind: str) -> None:
        self.errors.append(Diagnostic(self.location(node), path, message, kind))

    def build(self, node: yaml.Node, path: FieldPath) -> Any:
        self.doc.value_locations[path] = self.location(node)
        if isinstance(node, yaml.ScalarNode):
            return self.scalar(node, path)
        if isinstance(node, yaml.SequenceNode):
            if node.tag != _STD + "seq":
                self.error(node, path, f"unsafe or unknown YAML tag '{node.tag}' is not allowed", "unsafe-tag")
                return None
            return [self.build(item, path + (i,)) for i, item in enumerate(node.value)]
        if isinstance(node, yaml.MappingNode):
            return self.mapping(node, path)
        raise AssertionError(f"unexpected YAML node {node!r}")

    def scalar(self, node: yaml.ScalarNode, path: FieldPath) -> Any:
        if node.tag in _TEXT_TAGS:
            return self.text(node, path, node.value)
        if node.tag not in _SCALAR_TAGS:
            self.error(node, path, f"unsafe or unknown YAML tag '{node.tag}' is not allowed", "unsafe-tag")
            return None
        if node.tag == _STD + "int" and sum(c.isdigit() for c in node.value) > MAX_INT_DIGITS:
            self.error(node, path, f"integer out of range: {_excerpt(node.value)}", "out-of-range")
            return None
        try:
            value = self.loader.construct_object(node, deep=True)
        except (ValueError, ArithmeticError):  # e.g. '0x_' or '0b_', which YAML 1.1 resolves as integers
            self.error(node, path, f"'{_excerpt(node.value)}' is not a valid number", "type")
            return None
        if isinstance(value, str):
            return self.text(node, path, value)
        if isinstance(value, int) and not isinstance(value, bool) and not -INT_LIMIT < value < INT_LIMIT:
            self.error(node, path, f"integer out of range: {_excerpt(node.value)}", "out-of-range")
            return None
        return value

    def text(self, node: yaml.Node, path: FieldPath, value: str) -> str | None:
        problem = text_problem(value)
        if problem is not None:
            self.error(node, path, problem, "bad-character")
            return None
        return value

    def mapping(self, node: yaml.MappingNode, path: FieldPath) -> dict[str, Any]:
        if node.tag != _STD + "map":
            self.error(node, path, f"unsafe or unknown YAML tag '{node.tag}' is not allowed", "unsafe-tag")
            return {}
        result: dict[str, Any] = {}
        for key_node, value_node in node.value:
            if key_node.tag == _STD + "merge":
                self.error(key_node, path, "YAML merge keys ('<<') are not supported; write the keys out", "merge-key")
                continue
            if not isinstance(key_node, yaml.ScalarNode) or key_node.tag not in _SCALAR_TAGS:
                self.error(key_node, path, "mapping keys must be plain scalars", "type")
                continue
            key = str(key_node.value)
            child = path + (key,)
            problem = text_problem(key)
            if problem is not None:
                self.error(key_node, path, problem, "bad-character")
                continue
            if key in result:
                first = self.doc.key_locations[child]
                self.error(
                    key_node,
                    child,
                    f"duplicate key '{key}' (first defined at line {first.line})",
                    "duplicate-key",
                )
                continue
            self.doc.key_locations[child] = self.location(key_node)
            result[key] = self.build(value_node, child)
        return result


def _excerpt(text: str, limit: int = 24) -> str:
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


def _line_column(text: str, position: int) -> tuple[int, int]:
    line = text.count("\n", 0, position) + 1
    return line, position - (text.rfind("\n", 0, position) + 1) + 1


def _alias_diagnostics(file: str, aliases: list[yaml.AliasEvent]) -> list[Diagnostic]:
    problems = []
    for event in aliases[:MAX_ALIAS_REPORTS]:
        location = Location(file, event.start_mark.line + 1, event.start_mark.column + 1)
        message = f"YAML aliases ('*{event.anchor}') are not supported; write the value out"
        problems.append(Diagnostic(location, (), message, "alias"))
    if len(aliases) > MAX_ALIAS_REPORTS:
        mark = aliases[MAX_ALIAS_REPORTS].start_mark
        message = f"{len(aliases) - MAX_ALIAS_REPORTS} more YAML aliases are not listed"
        problems.append(Diagnostic(Location(file, mark.line + 1, mark.column + 1), (), message, "alias"))
    return problems


def _reader_error(exc: yaml.reader.ReaderError, text: str, file: str) -> SpecError:
    """A character YAML does not accept at all (raw control characters, surrogates), at its position."""
    line, column = _line_column(text, exc.position) if isinstance(exc.position, int) else (1, 1)
    char = chr(exc.character) if isinstance(exc.character, int) else "\ufffd"
    message = text_problem(char) or f"invalid YAML: {exc.reason}"
    return SpecError([Diagnostic(Location(file, line, column), (), message, "bad-character")])


def load_yaml(text: str, file: str) -> SourceDocument:
    """Parse one YAML document; raise SpecError listing every structural problem found."""
    documents = load_yaml_documents(text, file)
    if len(documents) > 1:
        location = documents[1].location_of(())
        raise SpecError([Diagnostic(location, (), "expected one YAML document, found more ('---')", "yaml-syntax")])
    return documents[0]


def _syntax_error(exc: yaml.YAMLError, file: str) -> SpecError:
    if isinstance(exc, yaml.MarkedYAMLError):
        mark = exc.problem_mark or exc.context_mark
        line, column = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        message = f"invalid YAML: {exc.problem or exc.context}"
        return SpecError([Diagnostic(Location(file, line, column), (), message, "yaml-syntax")])
    return SpecError([Diagnostic(Location(file, 1, 1), (), f"invalid YAML: {exc}", "yaml-syntax")])


def _compose(text: str, file: str) -> tuple[list[yaml.Node], _SpecComposer]:
    """The stream's document nodes and the loader that composed them, or a SpecError.

    A document the fast loader refuses is read again by the pure-Python one: where that one stops too (a
    limit of opgen's, or a syntax error), its diagnostic stands; where it reads the document, the fast
    loader's refusal does (libyaml checks a few things, such as escapes, more strictly)."""
    refusal: yaml.YAMLError | None = None
    for loader_class in _LOADERS:
        try:
            loader = loader_class(text)  # the reader checks every character up front
        except yaml.reader.ReaderError as exc:
            raise _reader_error(exc, text, file) from None
        nodes: list[yaml.Node] = []
        try:
            while loader.check_node():
                nodes.append(loader.get_node())
        except _TooBig as exc:
            location = Location(file, exc.mark.line + 1, exc.mark.column + 1)
            problems = [Diagnostic(location, (), exc.message, exc.kind)] + _alias_diagnostics(file, loader.aliases)
            raise SpecError(problems) from None
        except yaml.reader.ReaderError as exc:
            raise _reader_error(exc, text, file) from None
        except yaml.YAMLError as exc:
            refusal = exc
            continue
        finally:
            loader.dispose()
        if refusal is not None:
            break
        return nodes, loader
    assert refusal is not None
    raise _syntax_error(refusal, file) from None


def load_yaml_documents(text: str, file: str) -> list[SourceDocument]:
    """Parse every YAML document of a stream (`---` separated); raise SpecError listing every structural problem.

    The limits hold for the whole stream: its size, its number of values, each document's nesting.
    """
    if len(text) > MAX_SPEC_BYTES:
        raise too_large(file, len(text), "characters")
    nodes, loader = _compose(text, file)
    if not nodes:
        raise SpecError([Diagnostic(Location(file, 1, 1), (), "the spec is empty", "empty")])
    documents, problems = [], _alias_diagnostics(file, loader.aliases)
    for node in nodes:
        builder = _Builder(file, loader)
        builder.doc.data = builder.build(node, ())
        problems += builder.errors
        documents.append(builder.doc)
    if problems:
        raise SpecError(problems)
    return documents
