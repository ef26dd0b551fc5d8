"""Safe YAML loading that keeps a line/column mark for every value and mapping key.

Built on PyYAML's composer (node graph with marks) rather than its constructors, so that duplicate keys,
merge keys and any non-standard tag (`!!python/object`, `!custom`) become diagnostics instead of
silently winning, being merged or being constructed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import yaml

from opgen.spec.diagnostics import Diagnostic, FieldPath, Location, SpecError

_STD = "tag:yaml.org,2002:"
_SCALAR_TAGS = {_STD + t for t in ("str", "int", "float", "bool", "null")}
_TEXT_TAGS = {_STD + "timestamp"}  # kept as text: a date in a spec is just a string


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
    def __init__(self, file: str, loader: yaml.SafeLoader):
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
            return node.value
        if node.tag not in _SCALAR_TAGS:
            self.error(node, path, f"unsafe or unknown YAML tag '{node.tag}' is not allowed", "unsafe-tag")
            return None
        return self.loader.construct_object(node, deep=True)

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


def load_yaml(text: str, file: str) -> SourceDocument:
    """Parse one YAML document; raise SpecError listing every structural problem found."""
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, column = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        message = f"invalid YAML: {exc.problem or exc.context}"
        raise SpecError([Diagnostic(Location(file, line, column), (), message, "yaml-syntax")]) from None
    except yaml.YAMLError as exc:
        raise SpecError([Diagnostic(Location(file, 1, 1), (), f"invalid YAML: {exc}", "yaml-syntax")]) from None
    finally:
        loader.dispose()
    if node is None:
        raise SpecError([Diagnostic(Location(file, 1, 1), (), "the spec is empty", "empty")])
    builder = _Builder(file, loader)
    data = builder.build(node, ())
    if builder.errors:
        raise SpecError(builder.errors)
    builder.doc.data = data
    return builder.doc
