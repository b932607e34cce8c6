"""What one file's syntax tree says, in a language other than Python: call sites (the callee's
name and its receiver), instantiations, base classes and imports, each with its line.

Internal to `codelens.graph.syntax_edges`. One walk over the tree per file, steered by the
language's `GraphRule` (`codelens.languages.GRAPH_RULES`): no query per language, only node
types and field names. A receiver is kept as written when it is a name or a dotted name
(`fmt`, `Foo`, `this.repo`); `SELF` when it is the object itself (`this`, `self`, `$this`, a Go
method's receiver), `SUPER` for `super`/`parent`/`base`, `COMPLEX` for anything else (a call
chain, an index): the resolver reads those as "no type known".
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass, field
from functools import cache

from tree_sitter import Language, Parser
from tree_sitter import Node as SyntaxNode

from codelens.graph.syntax_imports import READERS, ImportRecord, text_of
from codelens.languages import Grammar, GraphRule

SELF = "<self>"
SUPER = "<super>"
COMPLEX = "<expr>"
SUPER_WORDS = frozenset({"super", "parent", "base"})

_IDENTIFIERS = frozenset({
    "identifier", "type_identifier", "field_identifier", "property_identifier", "simple_identifier", "constant",
    "name", "package_identifier", "namespace_identifier", "shorthand_property_identifier",
    "private_property_identifier", "primitive_type", "predefined_type",
})
# Callee expressions that name something: a member (`a.b`, `a::b`, `a->b`) or a generic (`f::<T>`, `Do<int>`)
_MEMBERS = frozenset({
    "member_expression", "selector_expression", "field_expression", "scoped_identifier", "qualified_identifier",
    "member_access_expression", "navigation_expression", "field_access", "qualified_type", "scoped_type_identifier",
    "user_type", "qualified_name", "nested_identifier", "stable_identifier", "stable_type_identifier",
    "scope_resolution", "navigation_suffix",
})
_GENERICS = frozenset({"generic_function", "template_function", "generic_name", "generic_type", "template_type"})
_NAME_FIELDS = ("name", "field", "property", "suffix", "method")
_RECEIVER_FIELDS = ("object", "receiver", "scope")
_RECEIVER = re.compile(r"^[$@]{0,2}[A-Za-z_][\w$]*(?:(?:\.|::|\\|->|\?\.)[A-Za-z_][\w$]*)*$")
_SEPARATORS = re.compile(r"::|\\|->|\?\.")
_MAX_DEPTH = 12


@dataclass(frozen=True)
class Site:
    kind: str  # "calls", "new" (an instantiation) or "inherits"
    name: str  # the callee's, the class's or the base's last name
    receiver: str  # "", SELF, SUPER, COMPLEX, or a (dotted) name
    line: int


@dataclass
class FileSyntax:
    sites: list[Site] = field(default_factory=list)
    imports: list[ImportRecord] = field(default_factory=list)


@cache
def _language(module: str, function: str) -> Language:
    return Language(getattr(importlib.import_module(module), function)())


def parse_file(text: str, grammar: Grammar) -> SyntaxNode | None:
    """The file's syntax tree; None when the grammar cannot be loaded (the chunker reports that)."""
    try:
        parser = Parser(_language(grammar.module, grammar.function))  # a parser per file: threads may index
    except (ImportError, AttributeError, ValueError, TypeError, OSError):
        return None
    return parser.parse(text.encode("utf-8", "surrogatepass")).root_node


def read_syntax(root: SyntaxNode, rule: GraphRule) -> FileSyntax:
    """Every call, instantiation, base class and import of a file, in tree order."""
    found = FileSyntax()
    calls, constructs, bases = dict(rule.calls), dict(rule.constructs), frozenset(rule.bases)
    reader, import_types = READERS.get(rule.imports, (None, frozenset()))
    stack: list[tuple[SyntaxNode, str]] = [(root, "")]
    while stack:
        node, own = stack.pop()
        kind = node.type
        if reader is not None and kind in import_types:
            found.imports.extend(reader(node))
        if kind in calls:
            _add(found, _call_site(node, calls[kind], rule, own), rule)
        elif kind in constructs:
            _add(found, _construct_site(node, constructs[kind], rule, own), rule)
        if kind in bases or (kind == "impl_item" and rule.family == "rust"):
            found.sites.extend(_base_sites(node))
        if kind == rule.receiver_of:
            own = _receiver_name(node)
        stack.extend((child, own) for child in reversed(node.named_children))
    return found


def _add(found: FileSyntax, site: Site | None, rule: GraphRule) -> None:
    if site is not None and not (site.receiver == "" and site.name in rule.noise):
        found.sites.append(site)


def _line(node: SyntaxNode) -> int:
    return node.start_point[0] + 1


def _call_site(node: SyntaxNode, where: str, rule: GraphRule, own: str) -> Site | None:
    if where == "":  # the call node holds the name and the receiver (Java, Ruby, PHP members)
        name = next((n for f in _NAME_FIELDS if (n := node.child_by_field_name(f)) is not None), None)
        receiver = next((r for f in _RECEIVER_FIELDS if (r := node.child_by_field_name(f)) is not None), None)
        if name is None or name.type not in _IDENTIFIERS:
            return None
        return Site("calls", text_of(name), _receiver(text_of(receiver), rule, own), _line(node))
    callee = _first_named(node) if where == "first" else node.child_by_field_name(where)
    return _named_site("calls", callee, node, rule, own)


def _construct_site(node: SyntaxNode, where: str, rule: GraphRule, own: str) -> Site | None:
    target = _first_named(node) if where == "first" else node.child_by_field_name(where)
    return _named_site("new", target, node, rule, own)


def _named_site(kind: str, callee: SyntaxNode | None, node: SyntaxNode, rule: GraphRule, own: str) -> Site | None:
    if callee is None or not (callee.type in _IDENTIFIERS or callee.type in _MEMBERS or callee.type in _GENERICS):
        return None  # a lambda, an index, a parenthesised expression: nothing to name
    name = name_node(callee)
    if name is None:
        return None
    receiver = ""
    if name.start_byte > callee.start_byte:
        source = callee.text or b""
        receiver = source[: name.start_byte - callee.start_byte].decode("utf-8", "replace")
    return Site(kind, text_of(name), _receiver(receiver, rule, own), _line(node))


def name_node(node: SyntaxNode, depth: int = 0) -> SyntaxNode | None:
    """The identifier an expression ends in: `a.b.c` -> c, `std::max<int>` -> max, `Foo<T>` -> Foo."""
    if node.type in _IDENTIFIERS:
        return node
    if depth > _MAX_DEPTH:
        return None
    for name_field in _NAME_FIELDS:
        child = node.child_by_field_name(name_field)
        if child is not None:
            return name_node(child, depth + 1)
    named = [c for c in node.named_children if not _is_arguments(c)]
    if not named:
        return None
    return name_node(named[0] if node.type in _GENERICS else named[-1], depth + 1)


def _is_arguments(node: SyntaxNode) -> bool:
    return "argument" in node.type or "parameter" in node.type or node.type == "call_suffix"


def _first_named(node: SyntaxNode) -> SyntaxNode | None:
    return node.named_children[0] if node.named_children else None


def _receiver(text: str, rule: GraphRule, own: str) -> str:
    """What a call's receiver text says about its type: see the module's docstring."""
    text = text.strip().rstrip(".:->?!\\&").strip()
    if not text:
        return ""
    if text in rule.self_words or (own and text == own):
        return SELF
    if text in SUPER_WORDS:
        return SUPER
    if not _RECEIVER.match(text):
        return COMPLEX
    return _SEPARATORS.sub(".", text)


def _receiver_name(method: SyntaxNode) -> str:
    """Go: `func (s *Server) Start()` -> "s"."""
    receiver = method.child_by_field_name("receiver")
    for parameter in receiver.named_children if receiver is not None else ():
        name = parameter.child_by_field_name("name")
        if name is not None:
            return text_of(name)
    return ""


def _base_sites(node: SyntaxNode) -> list[Site]:
    if node.type == "impl_item":  # Rust: `impl Trait for Type` is Type inheriting Trait
        trait = node.child_by_field_name("trait")
        found = name_node(trait) if trait is not None else None
        return [Site("inherits", text_of(found), "", _line(node))] if found is not None else []
    return [Site("inherits", text_of(name), "", _line(name)) for name in _base_names(node, 0)]


def _base_names(node: SyntaxNode, depth: int) -> list[SyntaxNode]:
    names: list[SyntaxNode] = []
    for child in node.named_children:
        if _is_arguments(child) or depth > _MAX_DEPTH or child.type == "access_specifier":
            continue
        if child.type in _IDENTIFIERS:
            names.append(child)
        elif child.type in _MEMBERS or child.type in _GENERICS:
            found = name_node(child)
            names.extend([found] if found is not None else [])
        else:
            names.extend(_base_names(child, depth + 1))
    return names
