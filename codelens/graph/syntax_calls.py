"""The call sites of a syntax tree in a language other than Python: a call's callee and receiver,
an instantiation's class, a class's bases, each with its line (`Site`).

Internal to `codelens.graph.syntax_sites`, which hands each node its rule names to these readers.
Only node types and field names are read, no query per language. A receiver is kept as written
when it is a name or a dotted name (`fmt`, `Foo`, `this.repo`); `SELF` when it is the object itself
(`this`, `self`, `$this`, a Go method's receiver), `SUPER` for `super`/`parent`/`base`, `COMPLEX`
for anything else (a call chain, an index): the resolver reads those as "no type known".
"""

from __future__ import annotations

import re

from tree_sitter import Node as SyntaxNode

from codelens.graph.syntax_records import COMPLEX, SELF, SUPER, Site, line_of, text_of
from codelens.languages import GraphRule

SUPER_WORDS = frozenset({"super", "parent", "base"})

IDENTIFIERS = frozenset({
    "identifier", "type_identifier", "field_identifier", "property_identifier", "simple_identifier", "constant",
    "alias", "name", "package_identifier", "namespace_identifier", "shorthand_property_identifier",
    "private_property_identifier", "primitive_type", "predefined_type",
})
# Callee expressions that name something: a member (`a.b`, `a::b`, `a->b`) or a generic (`f::<T>`, `Do<int>`)
MEMBERS = frozenset({
    "member_expression", "selector_expression", "field_expression", "scoped_identifier", "qualified_identifier",
    "member_access_expression", "navigation_expression", "field_access", "qualified_type", "scoped_type_identifier",
    "user_type", "qualified_name", "nested_identifier", "stable_identifier", "stable_type_identifier",
    "scope_resolution", "navigation_suffix", "dot_index_expression", "method_index_expression", "dot",
    "exprDot",  # Pascal's `Obj.Bar`
})
_GENERICS = frozenset({"generic_function", "template_function", "generic_name", "generic_type", "template_type"})
_NAME_FIELDS = ("name", "field", "property", "suffix", "method")
_RECEIVER_FIELDS = ("object", "receiver", "scope", "invocant")  # Perl's `$self->save`: invocant
RECEIVER = re.compile(r"^[$@]{0,2}[^\W\d][\w$]*(?:(?:\.|::|\\|->|\?\.)[^\W\d][\w$]*)*$")  # any script's letters
SEPARATORS = re.compile(r"::|\\|->|\?\.")
_MAX_DEPTH = 12


def call_site(node: SyntaxNode, where: str, rule: GraphRule, own: str) -> Site | None:
    if where == "":  # the call node holds the name and the receiver (Java, Ruby, PHP members)
        name = next((n for f in _NAME_FIELDS if (n := node.child_by_field_name(f)) is not None), None)
        receiver = next((r for f in _RECEIVER_FIELDS if (r := node.child_by_field_name(f)) is not None), None)
        if receiver is None and (before := node.prev_named_sibling) is not None and before.type in rule.receiver_before:
            receiver = before  # 1C's `Объект.Метод()`: the receiver sits beside the call
        if name is None or (name.type not in IDENTIFIERS and name.type not in rule.name_nodes):
            return None
        return Site("calls", text_of(name), _receiver(text_of(receiver), rule, own), line_of(node))
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
    if previous.type in IDENTIFIERS:
        return Site("calls", text_of(previous), "", line_of(node))
    if previous.type != "selector" or not any("assignable_selector" in c.type for c in previous.named_children):
        return None
    name = name_node(previous)
    first = parent.named_children[0]
    source = parent.text or b""
    receiver = source[first.start_byte - parent.start_byte: previous.start_byte - parent.start_byte]
    return Site("calls", text_of(name), _receiver(receiver.decode("utf-8", "replace"), rule, own), line_of(node)) \
        if name is not None else None


def construct_site(node: SyntaxNode, where: str, rule: GraphRule, own: str) -> Site | None:
    target = _first_named(node) if where == "first" else node.child_by_field_name(where)
    return _named_site("new", target, node, rule, own)


def _named_site(kind: str, callee: SyntaxNode | None, node: SyntaxNode, rule: GraphRule, own: str) -> Site | None:
    if callee is None or not (callee.type in IDENTIFIERS or callee.type in MEMBERS or callee.type in _GENERICS
                              or callee.type in rule.name_nodes or callee.type in rule.member_nodes):
        return None  # a lambda, an index, a parenthesised expression: nothing to name
    name = name_node(callee, names=frozenset(rule.name_nodes))
    if name is None:
        return None
    receiver = ""
    if name.start_byte > callee.start_byte:
        source = callee.text or b""
        receiver = source[: name.start_byte - callee.start_byte].decode("utf-8", "replace")
    written = text_of(name)
    if name.type in rule.name_nodes and not receiver and "::" in written:  # Perl's `Shop::Item::check(x)`
        receiver, _, written = written.rpartition("::")
    return Site(kind, written, _receiver(receiver, rule, own), line_of(node))


def name_node(node: SyntaxNode, depth: int = 0, names: frozenset[str] = frozenset()) -> SyntaxNode | None:
    """The identifier an expression ends in: `a.b.c` -> c, `std::max<int>` -> max, `Foo<T>` -> Foo;
    names: the language's own node types of a name (`GraphRule.name_nodes`)."""
    if node.type in IDENTIFIERS or node.type in names:
        return node
    if depth > _MAX_DEPTH:
        return None
    for name_field in _NAME_FIELDS:
        child = node.child_by_field_name(name_field)
        if child is not None:
            return name_node(child, depth + 1, names)
    named = [c for c in node.named_children if not _is_arguments(c)]
    if not named:
        return None
    return name_node(named[0] if node.type in _GENERICS else named[-1], depth + 1, names)


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
    if not RECEIVER.match(text):
        return COMPLEX
    head, _, rest = SEPARATORS.sub(".", text).partition(".")
    if head in rule.self_words or (own and head == own):  # `this.repo`: a field of the object itself
        return f"{SELF}.{rest}"
    return f"{head.lstrip('$')}.{rest}" if rest else head.lstrip("$")


def base_sites(node: SyntaxNode) -> list[Site]:
    if node.type == "impl_item":  # Rust: `impl Trait for Type` is Type inheriting Trait (the receiver: Type)
        trait, implementer = node.child_by_field_name("trait"), node.child_by_field_name("type")
        found = name_node(trait) if trait is not None else None
        typed = name_node(implementer) if implementer is not None else None
        return [Site("inherits", text_of(found), text_of(typed), line_of(node))] if found is not None else []
    return [Site("inherits", text_of(name), "", line_of(name)) for name in _base_names(node, 0)]


def _base_names(node: SyntaxNode, depth: int) -> list[SyntaxNode]:
    names: list[SyntaxNode] = []
    for child in node.named_children:
        # C++'s `public`; PHP's `{ B::x insteadof C; }` after a trait's `use B, C` (names of methods, not bases)
        if _is_arguments(child) or depth > _MAX_DEPTH or child.type in ("access_specifier", "use_list"):
            continue
        if child.type in IDENTIFIERS:
            qualifier = child.next_sibling is not None and child.next_sibling.type == "."  # Dart's `util.Base`
            names.extend([] if qualifier else [child])
        elif child.type in MEMBERS or child.type in _GENERICS:
            found = name_node(child)
            names.extend([found] if found is not None else [])
        else:
            names.extend(_base_names(child, depth + 1))
    return names
