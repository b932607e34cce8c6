"""tree-sitter fallback parser: files that 3.11's `ast` rejects (3.12 syntax, errors).

Produces the same `ParsedModule` as the `ast` path, so chunk ids and metadata follow
one contract whichever parser read the file.
"""

from __future__ import annotations

from codelens.chunk import Definition, ParsedModule
from codelens.ingest.grammars import PYTHON_GRAMMAR, shared_parser
from codelens.ingest.lines import definition_within, source_lines, spans_within

_DEF_TYPES = {"function_definition": "function", "class_definition": "class"}
_SKIP_MODULE_TYPES = {
    "import_statement", "import_from_statement", "future_import_statement",
    "function_definition", "class_definition", "decorated_definition", "comment",
    "pass_statement",
}
_MAX_DEPTH = 200


def _parser():
    return shared_parser(PYTHON_GRAMMAR)


def parse_with_tree_sitter(text: str) -> ParsedModule | None:
    source = text.encode("utf-8", errors="replace")
    try:
        root = _parser().parse(source).root_node
    except (ValueError, RuntimeError):
        return None
    definitions: list[Definition] = []
    spans: list[tuple[int, int]] = []
    imports: list[tuple[int, int]] = []
    docstring = ""
    for index, node in enumerate(root.named_children):
        if node.type in ("function_definition", "class_definition", "decorated_definition"):
            continue
        if node.type in ("import_statement", "import_from_statement", "future_import_statement"):
            imports.append((node.start_point[0] + 1, node.end_point[0] + 1))
        if node.type not in _SKIP_MODULE_TYPES and not node.type.startswith("ERROR"):
            if index == 0 and _string_literal(node):
                docstring = _clean_docstring(_text(node, source))
            spans.append((node.start_point[0] + 1, node.end_point[0] + 1))
    for node in _nested_def_nodes(root):
        definition = _definition(node, source, 0)
        if definition is not None:
            definitions.append(definition)
    # tree-sitter ends a node on the row after a line continuation that ends the file
    # (`x = 1\n\\\n`): no line number may pass the file's last line
    last = max(1, len(source_lines(text.rstrip("\r\n"))))
    return ParsedModule(definitions=[definition_within(d, last) for d in definitions],
                        module_spans=spans_within(spans, last), docstring=docstring,
                        import_spans=spans_within(imports, last))


def _definition(node, source: bytes, depth: int) -> Definition | None:
    if depth > _MAX_DEPTH:
        return None
    decorators: tuple[str, ...] = ()
    outer = node
    if node.type == "decorated_definition":
        decorators = tuple(
            " ".join(_text(child, source).lstrip("@").split())
            for child in node.named_children if child.type == "decorator"
        )
        node = node.child_by_field_name("definition")
        if node is None:
            return None
    kind = _DEF_TYPES.get(node.type)
    name_node = node.child_by_field_name("name")
    if kind is None or name_node is None:
        return None
    body = node.child_by_field_name("body")
    header_end = body.start_byte if body is not None else node.end_byte
    signature = " ".join(source[node.start_byte:header_end].decode("utf-8", "replace").split())
    children = []
    if body is not None:
        for child in _nested_def_nodes(body):
            nested = _definition(child, source, depth + 1)
            if nested is not None:
                children.append(nested)
    return Definition(
        kind=kind,
        name=_text(name_node, source),
        start_line=outer.start_point[0] + 1,
        end_line=outer.end_point[0] + 1,
        signature=signature,
        docstring=_body_docstring(body, source),
        decorators=decorators,
        children=children,
    )


def _nested_def_nodes(body):
    """Defs in a body, looking through if/try/with/for blocks but not into other defs."""
    stack = list(reversed(body.named_children))
    while stack:
        node = stack.pop()
        if node.type in ("function_definition", "class_definition", "decorated_definition"):
            yield node
        elif node.type.endswith(("_statement", "_clause", "block")) and node.type != "expression_statement":
            stack.extend(reversed(node.named_children))


def _body_docstring(body, source: bytes) -> str:
    if body is None or not body.named_children:
        return ""
    first = body.named_children[0]
    return _clean_docstring(_text(first, source)) if _string_literal(first) else ""


def _string_literal(node) -> bool:
    return node.type == "expression_statement" and bool(node.named_children) and (
        node.named_children[0].type == "string"
    )


def _clean_docstring(literal: str) -> str:
    import inspect

    stripped = literal.strip()
    for prefix in ("r", "u", "R", "U"):
        if stripped.startswith(prefix):
            stripped = stripped[1:]
    for quote in ('"""', "'''", '"', "'"):
        if stripped.startswith(quote) and stripped.endswith(quote) and len(stripped) >= 2 * len(quote):
            stripped = stripped[len(quote):-len(quote)]
            break
    return inspect.cleandoc(stripped)


def _text(node, source: bytes) -> str:
    return source[node.start_byte:node.end_byte].decode("utf-8", errors="replace")
