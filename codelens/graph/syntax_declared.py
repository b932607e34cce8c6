"""The declared types of a syntax tree in a language other than Python: which variable, parameter
or field holds which type (`repo: UserRepo`, `x := &Server{}`, `this.repo = new Repo()`), as
`Declared` records the resolver reads a receiver's type from.

Internal to `codelens.graph.syntax_sites`. A type is read where it is written, else from the value
given (an instantiation, or a call whose callee names it); a library's function call is kept as such
(`called`), for an external name.
"""

from __future__ import annotations

from tree_sitter import Node as SyntaxNode

from codelens.graph.syntax_calls import IDENTIFIERS, MEMBERS, RECEIVER, SEPARATORS, call_site, construct_site, name_node
from codelens.graph.syntax_records import COMPLEX, SELF, SUPER, Declared, FileSyntax, Site, line_of, text_of
from codelens.languages import GraphRule

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


def typed_variable(node: SyntaxNode, name_field: str, type_field: str, rule: GraphRule) -> Declared | None:
    name = _declared_name(node, name_field, rule)
    type_node = node.child_by_field_name(type_field) if type_field else _first_of(node, _TYPES)
    qualifier, type_name = _type_name(type_node) if type_node is not None else ("", "")
    if name and (type_name or "parameter" in node.type):  # a parameter of no class type: still a local name
        return Declared(line_of(node), name, qualifier, type_name, True)
    return None


def assigned_variable(node: SyntaxNode, name_field: str, value_field: str, rule: GraphRule,
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
        site = construct_site(value, constructs[value.type], rule, "")
    elif value.type in calls:  # `Foo()` (Kotlin, Scala, Swift), `Foo::new()`, `Foo.new`
        site = call_site(value, calls[value.type], rule, "")
        if site is not None and site.name in ("new", "New", "default") and RECEIVER.match(site.receiver or "-"):
            site = Site("new", site.receiver.rpartition(".")[2], site.receiver.rpartition(".")[0], site.line)
        elif site is not None and not (site.receiver == "" and site.name[:1].isupper()):
            # what a function returns is not known, but a library's function returns a library's type
            return Declared(line_of(node), name, site.receiver, site.name, False, called=True) \
                if site.receiver not in (COMPLEX, SELF, SUPER) and not site.receiver.startswith(SELF) else None
    else:
        return None
    return Declared(line_of(node), name, site.receiver, site.name, False) if site is not None else None


def add_declared(found: FileSyntax, declared: Declared | None) -> None:
    if declared is not None and declared.type_name not in _UNTYPED:
        found.declared.append(declared)


def _declared_name(node: SyntaxNode, name_field: str, rule: GraphRule) -> str:
    """The variable a declaration names: through declarators (`*p`, `&r`, `p = ...`), `$` dropped;
    a field set on the object itself (`this.repo`) as `<self>.repo`."""
    target = node.child_by_field_name(name_field) if name_field else _first_of(node, _DECLARATORS)
    if target is None and not name_field:
        target = next((c for c in node.named_children if c.type in IDENTIFIERS), None)
    for _ in range(6):
        if target is None or target.type in IDENTIFIERS or target.type == "variable_name":
            break
        inner = target.child_by_field_name("declarator") or target.child_by_field_name("name")
        if inner is None and target.type in _DECLARATORS:
            inner = next((c for c in target.named_children if c.type in IDENTIFIERS), None)
        if inner is None and target.type in MEMBERS:
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
    qualifier = SEPARATORS.sub(".", before.strip().rstrip(".:\\").strip())
    return (qualifier if RECEIVER.match(qualifier or "-") else ""), text_of(name)


def _first_of(node: SyntaxNode, types: frozenset[str] | tuple[str, ...]) -> SyntaxNode | None:
    for child in node.named_children:
        if child.type in types:
            return child
        if child.type in _DECLARATORS and types is _TYPES:  # Kotlin: the type sits in variable_declaration
            found = _first_of(child, types)
            if found is not None:
                return found
    return None
