"""Load spec/*.yaml, validate them against spec/schema.json and report every error with file:line."""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import jsonschema
import yaml

from . import checks


class Node(dict):
    """A YAML mapping that remembers the file and line it came from."""
    file: str = "?"
    line: int = 0


class SpecError(Exception):
    """All errors found while loading, each 'file:line: message'."""

    def __init__(self, errors: list[str]):
        super().__init__("\n".join(errors))
        self.errors = errors


def _make_loader(filename: str):
    class LineLoader(yaml.SafeLoader):
        pass

    def construct_mapping(loader, node, deep=False):
        loader.flatten_mapping(node)
        result = Node()
        result.file = filename
        result.line = node.start_mark.line + 1
        for key_node, value_node in node.value:
            key = loader.construct_object(key_node, deep=True)
            if key in result:
                raise yaml.MarkedYAMLError(problem=f"duplicate key '{key}'", problem_mark=key_node.start_mark)
            result[key] = loader.construct_object(value_node, deep=True)
        return result

    LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, construct_mapping)
    return LineLoader


def parse_yaml(text: str, filename: str):
    """Parse one YAML document; mappings become Node with file and line."""
    try:
        return yaml.load(text, Loader=_make_loader(filename))  # noqa: S506 - SafeLoader subclass
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else 0
        raise SpecError([f"{filename}:{line}: YAML error: {exc.problem}"]) from None


def _line_of(doc, path) -> int:
    """The line of the deepest mapping on a jsonschema error path."""
    line = getattr(doc, "line", 0)
    node = doc
    for key in path:
        try:
            node = node[key]
        except (KeyError, IndexError, TypeError):
            break
        line = getattr(node, "line", line)
    return line


def _where(path) -> str:
    return "/".join(str(p) for p in path) or "<top>"


def validate(doc, kind: str, filename: str, schema: dict) -> list[str]:
    """Schema errors of one file as 'file:line: at <path>: message', in document order."""
    validator = jsonschema.Draft202012Validator({"$ref": f"#/$defs/{kind}", "$defs": schema["$defs"]})
    errors = []
    for err in sorted(validator.iter_errors(doc), key=lambda e: (_line_of(doc, e.absolute_path), list(map(str, e.absolute_path)))):
        errors.append(f"{filename}:{_line_of(doc, err.absolute_path)}: at {_where(err.absolute_path)}: {err.message}")
    return errors


@dataclass
class RawSpec:
    """The validated documents: types, constants and one document per family file."""
    types: Node
    constants: Node
    family_files: list  # of (relative filename, Node)
    openshmem_extra: Node | None = None  # spec/openshmem_extra.yaml: shmem.h routines no family makes


def load_spec(spec_dir: Path, root: Path | None = None) -> RawSpec:
    """Read and validate every file of spec_dir; raise SpecError listing all problems."""
    root = root or spec_dir.parent
    schema = json.loads((spec_dir / "schema.json").read_text())
    schema["$defs"]["check"] = checks.schema()  # the kinds are defined once, in checks.py
    errors: list[str] = []
    docs = {}
    for path in sorted(spec_dir.glob("*.yaml")):
        rel = str(path.relative_to(root))
        kind = {"types.yaml": "types_file", "constants.yaml": "constants_file",
                "openshmem_extra.yaml": "openshmem_extra_file"}.get(path.name, "family_file")
        try:
            doc = parse_yaml(path.read_text(), rel)
        except SpecError as exc:
            errors += exc.errors
            continue
        if doc is None:
            errors.append(f"{rel}:1: empty file")
            continue
        errors += validate(doc, kind, rel, schema)
        docs[path.name] = (rel, doc)
    for required in ("types.yaml", "constants.yaml"):
        if required not in docs and not any(e.startswith(f"spec/{required}") for e in errors):
            errors.append(f"{spec_dir.name}/{required}:0: missing file")
    if errors:
        raise SpecError(errors)
    special = ("types.yaml", "constants.yaml", "openshmem_extra.yaml")
    families = [docs[n] for n in sorted(docs) if n not in special]
    extra = docs["openshmem_extra.yaml"][1] if "openshmem_extra.yaml" in docs else None
    return RawSpec(types=docs["types.yaml"][1], constants=docs["constants.yaml"][1], family_files=families,
                   openshmem_extra=extra)
