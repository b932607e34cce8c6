"""What one file's syntax tree says, in a language other than Python: call sites (the callee's
name and its receiver), instantiations, base classes, declared types and imports, each with its line.

Internal to `codelens.graph.syntax_edges`. One walk over the tree per file, steered by the
language's `GraphRule` (`codelens.languages.GRAPH_RULES`): one query finds every node the rule
reads, and each goes to its reader: `syntax_calls` for calls, instantiations and bases,
`syntax_declared` for declared types, `syntax_imports` for imports. This module is the walk: the
parse, the query, the order of the nodes, what the enclosing node says (a Go method's receiver, a
package declaration, Elixir's definition heads), and the records it fills (`syntax_records`).
"""

from __future__ import annotations

from functools import cache

from tree_sitter import Language, Query, QueryCursor, Tree
from tree_sitter import Node as SyntaxNode

from codelens.graph.syntax_calls import IDENTIFIERS, MEMBERS, SEPARATORS, base_sites, call_site, construct_site
from codelens.graph.syntax_declared import add_declared, assigned_variable, typed_variable
from codelens.graph.syntax_imports import READERS
from codelens.graph.syntax_records import FileSyntax, Site, text_of
from codelens.ingest.grammars import GrammarUnavailable, new_parser
from codelens.ingest.syntax_names import is_attribute
from codelens.languages import Grammar, GraphRule


def parse_file(text: str, grammar: Grammar) -> Tree | None:
    """The file's syntax tree; None when the grammar cannot be loaded (the chunker reports that)."""
    try:
        parser = new_parser(grammar)  # a parser per file: threads may index
    except GrammarUnavailable:
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
    types |= set(rule.implementers)
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
    attribute_end = -1  # Elixir: the end of the `@spec ...` the nodes are in
    for node in nodes:
        kind = node.type
        if node.start_byte in heads and kind in calls:
            continue
        if rule.attribute_operator and kind in calls and node.start_byte < attribute_end:
            continue
        if rule.attribute_operator and kind in calls and is_attribute(node.parent, rule.attribute_operator):
            attribute_end = node.parent.end_byte
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
            _add(found, call_site(node, calls[kind], rule, own), rule)
        elif kind in constructs:
            _add(found, construct_site(node, constructs[kind], rule, own), rule)
        if (kind in bases and not any(c.type in bases for c in node.named_children)) or kind in rule.implementers:
            found.sites.extend(base_sites(node))  # a base node holding others (TypeScript's heritage) leaves it to them
        for name_field, type_field in typed.get(kind, ()):
            add_declared(found, typed_variable(node, name_field, type_field, rule))
        for name_field, value_field in assigned.get(kind, ()):
            add_declared(found, assigned_variable(node, name_field, value_field, rule, calls, constructs))
    return found


def _by_type(specs: tuple[tuple[str, str, str], ...]) -> dict[str, list[tuple[str, str]]]:
    grouped: dict[str, list[tuple[str, str]]] = {}
    for node_type, name_field, other in specs:
        grouped.setdefault(node_type, []).append((name_field, other))
    return grouped


def _add(found: FileSyntax, site: Site | None, rule: GraphRule) -> None:
    if site is not None and not (site.receiver == "" and site.name in rule.noise):
        found.sites.append(site)


def _receiver_name(method: SyntaxNode) -> str:
    """Go: `func (s *Server) Start()` -> "s"."""
    receiver = method.child_by_field_name("receiver")
    for parameter in receiver.named_children if receiver is not None else ():
        name = parameter.child_by_field_name("name")
        if name is not None:
            return text_of(name)
    return ""


def _package_name(node: SyntaxNode) -> str:
    """`package com.acme.pay;`, `namespace Monolog\\Handler;` -> `com.acme.pay`, `Monolog.Handler`."""
    named = node.child_by_field_name("name") or next(
        (c for c in node.named_children if c.type in IDENTIFIERS or c.type in MEMBERS
         or c.type in ("package_identifier", "namespace_name", "qualified_identifier")), None)
    return SEPARATORS.sub(".", text_of(named)).strip(".") if named is not None else ""
