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

from tree_sitter import Language, Parser, Query, QueryCursor, Tree
from tree_sitter import Node as SyntaxNode

from codelens.graph.syntax_imports import READERS, ImportRecord, text_of
from codelens.languages import Grammar, GraphRule

SELF = "<self>"
SUPER = "<super>"
COMPLEX = "<expr>"
SUPER_WORDS = frozenset({"super", "parent", "base"})

_IDENTIFIERS = frozenset({
    "identifier", "type_identifier", "field_identifier", "property_identifier", "simple_identifier", "constant",
    "alias", "name", "package_identifier", "namespace_identifier", "shorthand_property_identifier",
    "private_property_identifier", "primitive_type", "predefined_type",
})
# Callee expressions that name something: a member (`a.b`, `a::b`, `a->b`) or a generic (`f::<T>`, `Do<int>`)
_MEMBERS = frozenset({
    "member_expression", "selector_expression", "field_expression", "scoped_identifier", "qualified_identifier",
    "member_access_expression", "navigation_expression", "field_access", "qualified_type", "scoped_type_identifier",
    "user_type", "qualified_name", "nested_identifier", "stable_identifier", "stable_type_identifier",
    "scope_resolution", "navigation_suffix", "dot_index_expression", "method_index_expression", "dot",
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
    receiver: str  # "", SELF, SUPER, COMPLEX, or a (dotted) name; for Rust's `impl Trait for Type`, Type
    line: int


@dataclass(frozen=True)
class Declared:
    """A variable, parameter or field and the type it holds: `repo: UserRepo`, `x := &Server{}`."""

    line: int
    name: str  # `repo`; `<self>.repo` for a field set through the object itself (`this.repo = ...`)
    qualifier: str  # the type's package or module as written (`store` in `*store.DB`), or ""
    type_name: str
    explicit: bool  # declared (`Repo repo`), not read from the value it is given
    called: bool = False  # the value a call returns (`w := httptest.NewRecorder()`): type_name is the callee's


@dataclass
class FileSyntax:
    sites: list[Site] = field(default_factory=list)
    imports: list[ImportRecord] = field(default_factory=list)
    declared: list[Declared] = field(default_factory=list)
    package: str = ""  # the declared package or namespace, dotted (`com.acme.pay`, `Monolog.Handler`)


@cache
def _language(module: str, function: str) -> Language:
    return Language(getattr(importlib.import_module(module), function)())


def parse_file(text: str, grammar: Grammar) -> Tree | None:
    """The file's syntax tree; None when the grammar cannot be loaded (the chunker reports that)."""
    try:
        parser = Parser(_language(grammar.module, grammar.function))  # a parser per file: threads may index
    except (ImportError, AttributeError, ValueError, TypeError, OSError):
        return None
    return parser.parse(text.encode("utf-8", "surrogatepass"))


@cache
def _query(language: Language, node_types: tuple[str, ...]) -> Query | None:
    """One query capturing every node the rule reads: tree-sitter finds them in C, so Python
    touches a few thousand nodes of a file rather than every one of its hundreds of thousands."""
    known = [t for t in node_types if language.id_for_node_kind(t, True)]  # a grammar without such a node
    return Query(language, "[" + " ".join(f"({t})" for t in known) + "] @node") if known else None


def _wanted(rule: GraphRule) -> tuple[str, ...]:
    reader_types = READERS.get(rule.imports, (None, frozenset()))[1]
    types = {*dict(rule.calls), *dict(rule.constructs), *rule.bases, *reader_types,
             *(t for t, _, _ in rule.typed), *(t for t, _, _ in rule.assigned)}
    types |= {rule.receiver_of} if rule.receiver_of else set()
    types |= {"impl_item"} if rule.family == "rust" else set()
    types |= set(rule.packages)
    return tuple(sorted(types))


def read_syntax(tree: Tree, rule: GraphRule) -> FileSyntax:
    """Every call, instantiation, base class, import and declared type of a file, in source order."""
    found = FileSyntax()
    query = _query(tree.language, _wanted(rule))
    if query is None:
        return found
    nodes = QueryCursor(query).captures(tree.root_node).get("node", [])
    nodes.sort(key=lambda n: (n.start_byte, -n.end_byte))
    calls, constructs, bases = dict(rule.calls), dict(rule.constructs), frozenset(rule.bases)
    typed, assigned = _by_type(rule.typed), _by_type(rule.assigned)
    reader, import_types = READERS.get(rule.imports, (None, frozenset()))
    receivers: list[tuple[int, str]] = []  # (end byte, name) of the Go methods around the node
    heads: set[int] = set()  # Elixir: the start of `run(x)` in `def run(x)`, a definition's head
    for node in nodes:
        kind = node.type
        if node.start_byte in heads and kind in calls:
            continue
        if rule.definers and text_of(node.child_by_field_name("target")) in rule.definers:
            arguments = next((c for c in node.named_children if c.type == "arguments"), None)
            head = arguments.named_children[0] if arguments is not None and arguments.named_children else None
            heads |= {head.start_byte} if head is not None else set()
        while receivers and receivers[-1][0] <= node.start_byte:
            receivers.pop()
        own = receivers[-1][1] if receivers else ""
        if kind == rule.receiver_of:
            receivers.append((node.end_byte, _receiver_name(node)))
        if kind in rule.packages and (not found.package or kind == "package_clause"):
            found.package = ".".join(filter(None, [found.package, _package_name(node)]))  # Scala chains clauses
        if reader is not None and kind in import_types:
            found.imports.extend(reader(node))
        if kind in calls:
            _add(found, _call_site(node, calls[kind], rule, own), rule)
        elif kind in constructs:
            _add(found, _construct_site(node, constructs[kind], rule, own), rule)
        if kind in bases or (kind == "impl_item" and rule.family == "rust"):
            found.sites.extend(_base_sites(node))
        for name_field, type_field in typed.get(kind, ()):
            _add_declared(found, _typed(node, name_field, type_field, rule))
        for name_field, value_field in assigned.get(kind, ()):
            _add_declared(found, _assigned(node, name_field, value_field, rule, calls, constructs))
    return found


def _by_type(specs: tuple[tuple[str, str, str], ...]) -> dict[str, list[tuple[str, str]]]:
    grouped: dict[str, list[tuple[str, str]]] = {}
    for node_type, name_field, other in specs:
        grouped.setdefault(node_type, []).append((name_field, other))
    return grouped


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
    if where == "previous":
        return _selector_call(node, rule, own)
    callee = _first_named(node) if where == "first" else node.child_by_field_name(where)
    return _named_site("calls", callee, node, rule, own)


def _selector_call(node: SyntaxNode, rule: GraphRule, own: str) -> Site | None:
    """Dart has no call node: `repo.save(x)` is `repo`, a `.save` selector, then a selector holding the
    arguments. The callee is what comes just before the arguments; the receiver, all before that."""
    if not any(c.type == "argument_part" for c in node.named_children):
        return None
    previous, parent = node.prev_named_sibling, node.parent
    if previous is None or parent is None:
        return None
    if previous.type in _IDENTIFIERS:
        return Site("calls", text_of(previous), "", _line(node))
    if previous.type != "selector" or not any("assignable_selector" in c.type for c in previous.named_children):
        return None
    name = name_node(previous)
    first = parent.named_children[0]
    source = parent.text or b""
    receiver = source[first.start_byte - parent.start_byte: previous.start_byte - parent.start_byte]
    return Site("calls", text_of(name), _receiver(receiver.decode("utf-8", "replace"), rule, own), _line(node)) \
        if name is not None else None


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
    head, _, rest = _SEPARATORS.sub(".", text).partition(".")
    if head in rule.self_words or (own and head == own):  # `this.repo`: a field of the object itself
        return f"{SELF}.{rest}"
    return f"{head.lstrip('$')}.{rest}" if rest else head.lstrip("$")


def _receiver_name(method: SyntaxNode) -> str:
    """Go: `func (s *Server) Start()` -> "s"."""
    receiver = method.child_by_field_name("receiver")
    for parameter in receiver.named_children if receiver is not None else ():
        name = parameter.child_by_field_name("name")
        if name is not None:
            return text_of(name)
    return ""


def _base_sites(node: SyntaxNode) -> list[Site]:
    if node.type == "impl_item":  # Rust: `impl Trait for Type` is Type inheriting Trait (the receiver: Type)
        trait, implementer = node.child_by_field_name("trait"), node.child_by_field_name("type")
        found = name_node(trait) if trait is not None else None
        typed = name_node(implementer) if implementer is not None else None
        return [Site("inherits", text_of(found), text_of(typed), _line(node))] if found is not None else []
    return [Site("inherits", text_of(name), "", _line(name)) for name in _base_names(node, 0)]


def _base_names(node: SyntaxNode, depth: int) -> list[SyntaxNode]:
    names: list[SyntaxNode] = []
    for child in node.named_children:
        if _is_arguments(child) or depth > _MAX_DEPTH or child.type == "access_specifier":
            continue
        if child.type in _IDENTIFIERS:
            qualifier = child.next_sibling is not None and child.next_sibling.type == "."  # Dart's `util.Base`
            names.extend([] if qualifier else [child])
        elif child.type in _MEMBERS or child.type in _GENERICS:
            found = name_node(child)
            names.extend([found] if found is not None else [])
        else:
            names.extend(_base_names(child, depth + 1))
    return names


# ------------------------------------------------------------------ declared types

_UNTYPED = frozenset({"var", "val", "let", "auto", "dynamic", "any", "unknown", "object", "Object", "void", "_"})
_TYPES = frozenset({"user_type", "nullable_type", "type_identifier", "named_type", "generic_type", "qualified_type",
                    "pointer_type", "type_annotation", "reference_type", "scoped_type_identifier", "optional_type",
                    "generic_name", "qualified_name", "template_type", "array_type"})
_NO_TYPE = frozenset({"primitive_type", "predefined_type", "implicit_type", "placeholder_type_specifier",
                      "union_type", "intersection_type", "function_type", "literal_type", "sized_type_specifier"})
_DECLARATORS = ("variable_declarator", "variable_declaration", "property_element", "init_declarator")
_WRAPPERS = frozenset({"unary_expression", "pointer_expression", "parenthesized_expression", "await_expression",
                       "expression_list", "reference_expression", "non_null_expression", "as_expression",
                       "try_expression"})


def _typed(node: SyntaxNode, name_field: str, type_field: str, rule: GraphRule) -> Declared | None:
    name = _declared_name(node, name_field, rule)
    type_node = node.child_by_field_name(type_field) if type_field else _first_of(node, _TYPES)
    qualifier, type_name = _type_name(type_node) if type_node is not None else ("", "")
    if name and (type_name or "parameter" in node.type):  # a parameter of no class type: still a local name
        return Declared(_line(node), name, qualifier, type_name, True)
    return None


def _assigned(node: SyntaxNode, name_field: str, value_field: str, rule: GraphRule,
              calls: dict[str, str], constructs: dict[str, str]) -> Declared | None:
    name = _declared_name(node, name_field, rule)
    value = node.child_by_field_name(value_field) if value_field else (
        node.named_children[-1] if node.named_children else None)
    for _ in range(4):  # `&Server{}`, `(new Foo())`, `await make()`, `a, b := x, y`
        if value is None or value.type not in _WRAPPERS:
            break
        value = value.named_children[-1 if value.type != "expression_list" else 0] if value.named_children else None
    if not name or value is None:
        return None
    if value.type in constructs:
        site = _construct_site(value, constructs[value.type], rule, "")
    elif value.type in calls:  # `Foo()` (Kotlin, Scala, Swift), `Foo::new()`, `Foo.new`
        site = _call_site(value, calls[value.type], rule, "")
        if site is not None and site.name in ("new", "New", "default") and _RECEIVER.match(site.receiver or "-"):
            site = Site("new", site.receiver.rpartition(".")[2], site.receiver.rpartition(".")[0], site.line)
        elif site is not None and not (site.receiver == "" and site.name[:1].isupper()):
            # what a function returns is not known, but a library's function returns a library's type
            return Declared(_line(node), name, site.receiver, site.name, False, called=True) \
                if site.receiver not in (COMPLEX, SELF, SUPER) and not site.receiver.startswith(SELF) else None
    else:
        return None
    return Declared(_line(node), name, site.receiver, site.name, False) if site is not None else None


def _add_declared(found: FileSyntax, declared: Declared | None) -> None:
    if declared is not None and declared.type_name not in _UNTYPED:
        found.declared.append(declared)


def _declared_name(node: SyntaxNode, name_field: str, rule: GraphRule) -> str:
    """The variable a declaration names: through declarators (`*p`, `&r`, `p = ...`), `$` dropped;
    a field set on the object itself (`this.repo`) as `<self>.repo`."""
    target = node.child_by_field_name(name_field) if name_field else _first_of(node, _DECLARATORS)
    if target is None and not name_field:
        target = next((c for c in node.named_children if c.type in _IDENTIFIERS), None)
    for _ in range(6):
        if target is None or target.type in _IDENTIFIERS or target.type == "variable_name":
            break
        inner = target.child_by_field_name("declarator") or target.child_by_field_name("name")
        if inner is None and target.type in _DECLARATORS:
            inner = next((c for c in target.named_children if c.type in _IDENTIFIERS), None)
        if inner is None and target.type in _MEMBERS:
            head = text_of(target).replace("->", ".").split(".")
            return f"{SELF}.{head[-1]}" if len(head) == 2 and head[0] in rule.self_words else ""
        listed = target.type.endswith("declarator") or target.type in ("expression_list", "pattern_list")
        target = inner or (target.named_children[0] if listed and target.named_children else None)
    return text_of(target).lstrip("$") if target is not None else ""


def _type_name(node: SyntaxNode) -> tuple[str, str]:
    """(qualifier, name) of a type: `*store.DB` -> ("store", "DB"); `List<Foo>` -> ("", "List")."""
    for _ in range(4):
        if node.type in _NO_TYPE:
            return "", ""
        if node.type in ("type_annotation", "nullable_type", "pointer_type", "reference_type", "optional_type",
                         "array_type", "named_type") and node.named_children:
            node = node.named_children[-1] if node.type != "array_type" else node.named_children[0]
        else:
            break
    name = name_node(node)
    if name is None or name.type in _NO_TYPE:
        return "", ""
    before = (node.text or b"")[: max(0, name.start_byte - node.start_byte)].decode("utf-8", "replace")
    qualifier = _SEPARATORS.sub(".", before.strip().rstrip(".:\\").strip())
    return (qualifier if _RECEIVER.match(qualifier or "-") else ""), text_of(name)


def _first_of(node: SyntaxNode, types: frozenset[str] | tuple[str, ...]) -> SyntaxNode | None:
    for child in node.named_children:
        if child.type in types:
            return child
        if child.type in _DECLARATORS and types is _TYPES:  # Kotlin: the type sits in variable_declaration
            found = _first_of(child, types)
            if found is not None:
                return found
    return None


def _package_name(node: SyntaxNode) -> str:
    """`package com.acme.pay;`, `namespace Monolog\\Handler;` -> `com.acme.pay`, `Monolog.Handler`."""
    named = node.child_by_field_name("name") or next(
        (c for c in node.named_children if c.type in _IDENTIFIERS or c.type in _MEMBERS
         or c.type in ("package_identifier", "namespace_name", "qualified_identifier")), None)
    return _SEPARATORS.sub(".", text_of(named)).strip(".") if named is not None else ""
