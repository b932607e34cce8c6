"""Imports in languages other than Python: what each declaration names.

Internal to `codelens.graph.syntax_sites`. A reader per import style (`GraphRule.imports`) turns
a declaration node into `ImportRecord`s: the module as written, the names it binds (with their
local aliases), the alias the module itself is bound to, and whether all its names become visible
(`import java.util.*`, `#include`, `use a::*`). `READERS` names each style's reader and the node
types it reads. Which files a record means is `syntax_modules`: reading a declaration and finding
its files are apart, as the syntax tree is gone by the time every file is known.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from tree_sitter import Node as SyntaxNode

from codelens.graph.syntax_records import ImportRecord, line_of, text_of

_GO_VERSION = re.compile(r"^v\d+$")


def _unquote(text: str) -> str:
    return text.strip().strip("\"'`<>")


# ------------------------------------------------------------------ readers


def _read_js(node: SyntaxNode) -> list[ImportRecord]:
    if node.type in ("import_statement", "export_statement"):
        source = node.child_by_field_name("source")
        if source is None:
            return []
        names: list[tuple[str, str]] = []
        alias = ""
        for clause in node.named_children:
            if clause.type == "import_clause":
                for part in clause.named_children:
                    if part.type == "identifier":  # a default import: looked up by its local name
                        names.append((text_of(part), text_of(part)))
                    elif part.type == "namespace_import":
                        alias = text_of(part.named_children[-1]) if part.named_children else ""
                    elif part.type == "named_imports":
                        names.extend(_specifiers(part, "import_specifier"))
            elif clause.type == "export_clause":
                names.extend(_specifiers(clause, "export_specifier"))
        every = node.type == "export_statement" and not names and not alias  # `export * from "./x"`
        return [ImportRecord(line_of(node), _unquote(text_of(source)), tuple(names), alias, wildcard=every)]
    if node.type == "variable_declarator":  # const x = require("./x"), const { a, b: c } = require("../y")
        value, target = node.child_by_field_name("value"), node.child_by_field_name("name")
        if value is not None and value.type == "member_expression" and target is not None:  # require("./u").f
            module = _required_module(value.child_by_field_name("object"))
            member = text_of(value.child_by_field_name("property"))
            return [ImportRecord(line_of(node), module, ((member, text_of(target)),))] if module and member else []
        module = _required_module(value)
        if module is None or target is None:
            return []
        if target.type == "identifier":
            return [ImportRecord(line_of(node), module, alias=text_of(target))]
        return [ImportRecord(line_of(node), module, tuple(_pattern_names(target)))]
    if node.type == "expression_statement":  # require("./side-effect")
        module = _required_module(node.named_children[0] if node.named_children else None)
        return [ImportRecord(line_of(node), module)] if module is not None else []
    return []


def _specifiers(node: SyntaxNode, kind: str) -> list[tuple[str, str]]:
    found = []
    for spec in node.named_children:
        if spec.type == kind:
            name = text_of(spec.child_by_field_name("name"))
            found.append((name, text_of(spec.child_by_field_name("alias")) or name))
    return found


def _required_module(call: SyntaxNode | None) -> str | None:
    if call is None or call.type != "call_expression" or text_of(call.child_by_field_name("function")) != "require":
        return None
    arguments = call.child_by_field_name("arguments")
    first = arguments.named_children[0] if arguments is not None and arguments.named_children else None
    return _unquote(text_of(first)) if first is not None and first.type == "string" else None


def _pattern_names(pattern: SyntaxNode) -> list[tuple[str, str]]:
    names = []
    for part in pattern.named_children:
        if part.type == "shorthand_property_identifier_pattern":
            names.append((text_of(part), text_of(part)))
        elif part.type == "pair_pattern":
            key, value = part.child_by_field_name("key"), part.child_by_field_name("value")
            if key is not None and value is not None and value.type == "identifier":
                names.append((text_of(key), text_of(value)))
    return names


def _read_go(node: SyntaxNode) -> list[ImportRecord]:
    if node.type != "import_spec":
        return []
    module = _unquote(text_of(node.child_by_field_name("path")))
    name = text_of(node.child_by_field_name("name"))
    if name == "_":
        return [ImportRecord(line_of(node), module, separator="/")]
    if name == ".":
        return [ImportRecord(line_of(node), module, wildcard=True, separator="/")]
    return [ImportRecord(line_of(node), module, alias=name or go_package_name(module), separator="/")]


def go_package_name(path: str) -> str:
    """`github.com/go-chi/chi/v5` -> `chi`: the last segment that is not a major version."""
    parts = [p for p in path.split("/") if p]
    while len(parts) > 1 and _GO_VERSION.match(parts[-1]):
        parts.pop()
    return parts[-1].removeprefix("go-").replace("-", "_") if parts else ""


def _read_java(node: SyntaxNode) -> list[ImportRecord]:
    if node.type != "import_declaration":
        return []
    path = next((c for c in node.named_children if c.type in ("scoped_identifier", "identifier")), None)
    dotted = text_of(path)
    if any(c.type == "asterisk" for c in node.named_children):
        return [ImportRecord(line_of(node), dotted, wildcard=True)]
    module, _, name = dotted.rpartition(".")
    return [ImportRecord(line_of(node), module, ((name, name),))]


def _read_kotlin(node: SyntaxNode) -> list[ImportRecord]:
    if node.type not in ("import", "import_header"):
        return []
    path = next((c for c in node.named_children if c.type in ("qualified_identifier", "identifier")), None)
    dotted = text_of(path)
    if text_of(node).rstrip().endswith("*"):
        return [ImportRecord(line_of(node), dotted, wildcard=True)]
    aliases = [c for c in node.named_children if c is not path and c.type in ("identifier", "import_alias")]
    module, _, name = dotted.rpartition(".")
    alias = text_of(aliases[-1]).removeprefix("as").strip() if aliases else name
    return [ImportRecord(line_of(node), module, ((name, alias),))]


def _read_scala(node: SyntaxNode) -> list[ImportRecord]:
    if node.type != "import_declaration":
        return []
    path = [text_of(c) for c in node.children_by_field_name("path") if c.is_named]
    module = ".".join(path)
    wildcard = any(c.type == "namespace_wildcard" for c in node.named_children)
    selectors = next((c for c in node.named_children if c.type == "namespace_selectors"), None)
    if wildcard:
        return [ImportRecord(line_of(node), module, wildcard=True)]
    if selectors is not None:
        names = []
        for part in selectors.named_children:
            if part.type == "identifier":
                names.append((text_of(part), text_of(part)))
            elif part.type in ("arrow_renamed_identifier", "as_renamed_identifier"):
                name = text_of(part.child_by_field_name("name"))
                names.append((name, text_of(part.child_by_field_name("alias")) or name))
            elif part.type == "namespace_wildcard":
                return [ImportRecord(line_of(node), module, tuple(names), wildcard=True)]
        return [ImportRecord(line_of(node), module, tuple(names))]
    parent, _, name = module.rpartition(".")
    return [ImportRecord(line_of(node), parent, ((name, name),))]


def _read_csharp(node: SyntaxNode) -> list[ImportRecord]:
    if node.type != "using_directive":
        return []
    names = [c for c in node.named_children if c.type in ("qualified_name", "identifier")]
    if not names:
        return []
    if node.child_by_field_name("name") is not None or len(names) > 1:  # using Alias = Some.Type;
        return [ImportRecord(line_of(node), text_of(names[-1]))]
    return [ImportRecord(line_of(node), text_of(names[0]), wildcard=True)]


def _read_rust(node: SyntaxNode) -> list[ImportRecord]:
    if node.type != "use_declaration":
        return []
    argument = node.child_by_field_name("argument")
    records = []
    for path, alias, wildcard in _use_paths(argument, []):
        if wildcard:
            records.append(ImportRecord(line_of(node), "::".join(path), wildcard=True, separator="::"))
        elif path:
            name = path[-1]
            records.append(ImportRecord(line_of(node), "::".join(path[:-1]), ((name, alias or name),),
                                        alias="", separator="::"))
    return records


def _use_paths(node: SyntaxNode | None, prefix: list[str]) -> Iterable[tuple[list[str], str, bool]]:
    """`crate::a::{b, c as d, e::*}` -> (["crate", "a", "b"], "", False), (..., "d", False), (..., "", True)."""
    if node is None:
        return
    if node.type in ("identifier", "crate", "self", "super", "scoped_identifier", "metavariable"):
        parts = [p for p in text_of(node).split("::") if p]
        if parts == ["self"] and prefix:  # `use a::b::{self}` binds b
            yield prefix, "", False
        else:
            yield prefix + parts, "", False
    elif node.type == "use_as_clause":
        for path, _, wildcard in _use_paths(node.child_by_field_name("path"), prefix):
            yield path, text_of(node.child_by_field_name("alias")), wildcard
    elif node.type == "use_wildcard":
        inner = node.named_children[0] if node.named_children else None
        yield prefix + [p for p in text_of(inner).split("::") if p], "", True
    elif node.type == "scoped_use_list":
        path = node.child_by_field_name("path")
        here = prefix + [p for p in text_of(path).split("::") if p]
        yield from _use_paths(node.child_by_field_name("list"), here)
    elif node.type == "use_list":
        for child in node.named_children:
            yield from _use_paths(child, prefix)


def _read_include(node: SyntaxNode) -> list[ImportRecord]:
    if node.type != "preproc_include":
        return []
    path = node.child_by_field_name("path")
    if path is None:
        return []
    written = text_of(path).strip()
    module = _unquote(written)
    return [ImportRecord(line_of(node), module if written.startswith('"') else f"<{module}>", wildcard=True,
                         separator="/")]


def _read_ruby(node: SyntaxNode) -> list[ImportRecord]:
    if node.type != "call" or node.child_by_field_name("receiver") is not None:
        return []
    method = text_of(node.child_by_field_name("method"))
    if method not in ("require", "require_relative", "load"):
        return []
    arguments = node.child_by_field_name("arguments")
    first = arguments.named_children[0] if arguments is not None and arguments.named_children else None
    if first is None or first.type != "string":
        return []
    module = _unquote(text_of(first))
    module = f"./{module}" if method == "require_relative" and not module.startswith(".") else module
    return [ImportRecord(line_of(node), module, wildcard=True, separator="/")]


def _read_php(node: SyntaxNode) -> list[ImportRecord]:
    if node.type != "namespace_use_declaration":
        return []
    group = node.child_by_field_name("body")
    prefix = next((text_of(c) for c in node.named_children if c.type == "namespace_name"), "") if group else ""
    records = []
    for clause in (group.named_children if group is not None else node.named_children):
        if clause.type != "namespace_use_clause":
            continue
        alias = text_of(clause.child_by_field_name("alias"))
        written = "\\".join(p for p in (prefix, text_of(clause.named_children[0]) if clause.named_children else "")
                            if p).lstrip("\\")
        module, _, name = written.rpartition("\\")
        records.append(ImportRecord(line_of(node), module, ((name, alias or name),), separator="\\"))
    return records


def _read_swift(node: SyntaxNode) -> list[ImportRecord]:
    """`import Store`: every public name of the module is visible."""
    if node.type != "import_declaration":
        return []
    return [ImportRecord(line_of(node), text_of(node.named_children[-1]) if node.named_children else "",
                         wildcard=True)]


def _read_lua(node: SyntaxNode) -> list[ImportRecord]:
    """`local util = require("app.util")`: the module bound to util."""
    if node.type != "assignment_statement":
        return []
    names = next((c for c in node.named_children if c.type == "variable_list"), None)
    values = next((c for c in node.named_children if c.type == "expression_list"), None)
    call = values.named_children[0] if values is not None and values.named_children else None
    if call is None or call.type != "function_call" or text_of(call.child_by_field_name("name")) != "require":
        return []
    arguments = call.child_by_field_name("arguments")
    first = arguments.named_children[0] if arguments is not None and arguments.named_children else None
    if first is None or first.type != "string":
        return []
    alias = text_of(names.named_children[0]) if names is not None and names.named_children else ""
    return [ImportRecord(line_of(node), _unquote(text_of(first)), alias=alias)]


def _read_elixir(node: SyntaxNode) -> list[ImportRecord]:
    """`alias MyApp.Repo` binds Repo; `import Enum` makes Enum's functions plain names."""
    kind = text_of(node.child_by_field_name("target"))
    if node.type != "call" or kind not in ("alias", "import", "require", "use"):
        return []
    arguments = next((c for c in node.named_children if c.type == "arguments"), None)
    first = arguments.named_children[0] if arguments is not None and arguments.named_children else None
    if first is None or first.type != "alias":
        return []
    module = text_of(first)
    if kind == "import":
        return [ImportRecord(line_of(node), module, wildcard=True)]
    parent, _, name = module.rpartition(".")
    return [ImportRecord(line_of(node), parent, ((name, name),))]


def _read_dart(node: SyntaxNode) -> list[ImportRecord]:
    """`import 'util.dart' as util;` binds util; without `as`, every name of the library is visible.
    `export 'src/cart.dart';` makes the library's names this one's: an import of it as well."""
    if node.type not in ("import_specification", "library_export"):
        return []
    uri = next((c for c in _descendants(node, 3) if c.type in ("string_literal", "uri")), None)
    alias = next((c for c in node.named_children if c.type == "identifier"), None)
    module = _unquote(text_of(uri))
    if not module or module.startswith("dart:"):
        return [ImportRecord(line_of(node), module)] if module else []
    return [ImportRecord(line_of(node), module, alias=text_of(alias), wildcard=alias is None, separator="/")]


def _read_haskell(node: SyntaxNode) -> list[ImportRecord]:
    """`import Shop.Item (price)` binds price; `import Shop.Cart` (or `hiding (...)`) makes every name
    visible; `import qualified Data.Map as M` binds the module to M alone."""
    module = node.child_by_field_name("module")
    if node.type != "import" or module is None:
        return []
    words = {c.type for c in node.children}
    alias = text_of(node.child_by_field_name("alias"))
    listed = node.child_by_field_name("names")
    names: list[tuple[str, str]] = []
    if listed is not None and "hiding" not in words:
        for item in listed.named_children:
            name = item.child_by_field_name("variable") or item.child_by_field_name("type")
            names.extend([(text_of(name), text_of(name))] if name is not None else [])
    qualified = "qualified" in words
    every = not qualified and not names
    return [ImportRecord(line_of(node), text_of(module), tuple(names), alias or (text_of(module) if qualified else ""),
                         wildcard=every)]


def _read_perl(node: SyntaxNode) -> list[ImportRecord]:
    """`use Shop::Item qw(price)` binds price; `use Shop::Cart;` and `require Shop::Cart;` make its names
    visible (what it exports is its own business); pragmas (`use strict`, lower-case) name no module;
    `use parent 'Shop::Base'` loads its base."""
    if node.type == "require_expression":
        word = next((c for c in node.named_children if c.type == "bareword"), None)
        return [ImportRecord(line_of(node), text_of(word), wildcard=True, separator="::")] if word is not None else []
    module = text_of(node.child_by_field_name("module"))
    if node.type != "use_statement" or not module:
        return []
    listed = [text_of(c) for c in _descendants(node, 3) if c.type == "string_content"]
    if module in ("parent", "base"):
        return [ImportRecord(line_of(node), name, separator="::") for name in listed if not name.startswith("-")]
    if module[0].islower():
        return []
    words = [word for text in listed for word in text.split()]
    names = tuple((word, word) for word in words if not word.startswith((":", "-")))
    return [ImportRecord(line_of(node), module, names, wildcard=not names, separator="::")]


_SHELL_EXPANSION = re.compile(r"^.*\$\{?\w+\}?")  # `$ASDF_DIR/lib/x.bash`: what comes after the variable


def _read_shell(node: SyntaxNode) -> list[ImportRecord]:
    """`source "$(dirname "$0")/lib/utils.bash"`, `. ./util.sh`: the file's path after what the shell
    computes (a command's output, a variable), its functions all visible."""
    name = node.child_by_field_name("name")
    if node.type != "command" or text_of(name) not in ("source", "."):
        return []
    argument = node.child_by_field_name("argument")
    written = text_of(argument).replace('"', "").replace("'", "") if argument is not None else ""
    path = _SHELL_EXPANSION.sub("", written.rsplit(")", 1)[-1].rsplit("}", 1)[-1]).lstrip("/")
    if not path or "$" in path or "`" in path:
        return []
    return [ImportRecord(line_of(node), path, wildcard=True, separator="/")]


def _read_zig(node: SyntaxNode) -> list[ImportRecord]:
    """`const Router = @import("router.zig").Router;` binds Router; `const url = @import("url.zig");`
    binds the file's struct to url."""
    declared = next((c for c in node.named_children if c.type == "identifier"), None)
    value = declared.next_named_sibling if declared is not None else None
    member = ""
    if value is not None and value.type == "field_expression":
        member = text_of(value.child_by_field_name("member"))
        value = value.child_by_field_name("object")
    if value is None or value.type != "builtin_function" or not text_of(value).startswith("@import"):
        return []
    arguments = next((c for c in value.named_children if c.type == "arguments"), None)
    first = arguments.named_children[0] if arguments is not None and arguments.named_children else None
    if first is None or first.type != "string":
        return []
    module, alias = _unquote(text_of(first)), text_of(declared)
    if member:
        return [ImportRecord(line_of(node), module, ((member, alias),), separator="/")]
    return [ImportRecord(line_of(node), module, alias=alias, separator="/")]


def _descendants(node: SyntaxNode, depth: int) -> Iterable[SyntaxNode]:
    for child in node.named_children:
        yield child
        if depth > 1:
            yield from _descendants(child, depth - 1)


ImportReader = Callable[[SyntaxNode], list[ImportRecord]]
# The style's reader and the node types it reads (anything else is never handed to it).
READERS: dict[str, tuple[ImportReader, frozenset[str]]] = {
    "js": (_read_js, frozenset({"import_statement", "export_statement", "variable_declarator",
                                "expression_statement"})),
    "go": (_read_go, frozenset({"import_spec"})),
    "java": (_read_java, frozenset({"import_declaration"})),
    "kotlin": (_read_kotlin, frozenset({"import", "import_header"})),
    "scala": (_read_scala, frozenset({"import_declaration"})),
    "csharp": (_read_csharp, frozenset({"using_directive"})),
    "rust": (_read_rust, frozenset({"use_declaration"})),
    "include": (_read_include, frozenset({"preproc_include"})),
    "ruby": (_read_ruby, frozenset({"call"})),
    "php": (_read_php, frozenset({"namespace_use_declaration"})),
    "swift": (_read_swift, frozenset({"import_declaration"})),
    "lua": (_read_lua, frozenset({"assignment_statement"})),
    "elixir": (_read_elixir, frozenset({"call"})),
    "dart": (_read_dart, frozenset({"import_specification", "library_export"})),
    "haskell": (_read_haskell, frozenset({"import"})),
    "perl": (_read_perl, frozenset({"use_statement", "require_expression"})),
    "shell": (_read_shell, frozenset({"command"})),
    "zig": (_read_zig, frozenset({"variable_declaration"})),
}
