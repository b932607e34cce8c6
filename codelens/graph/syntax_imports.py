"""Imports in languages other than Python: what each declaration names, and which files of the
codebase it means.

Internal to `codelens.graph.syntax_edges`. A reader per import style (`GraphRule.imports`) turns
a declaration node into `ImportRecord`s: the module as written, the names it binds (with their
local aliases), the alias the module itself is bound to, and whether all its names become visible
(`import java.util.*`, `#include`, `use a::*`). `ModuleFiles.locate` maps a record to files:
TypeScript/JavaScript relative paths, Go package folders, Java/Kotlin/Scala/C#/PHP packages by
folder suffix, Rust `crate::`/`self::`/`super::` module files, C/C++ include files, Ruby requires.
An empty answer means the module is outside the codebase (an external target).
"""

from __future__ import annotations

import posixpath
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath

from tree_sitter import Node as SyntaxNode

_JS_SUFFIXES = (".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts")
_C_SOURCES = (".c", ".cc", ".cpp", ".cxx", ".c++", ".m", ".mm")
_GO_VERSION = re.compile(r"^v\d+$")


@dataclass(frozen=True)
class ImportRecord:
    line: int
    module: str  # as written: "./api/client", "github.com/x/y", "com.acme.pay", "crate::routing", "uv.h"
    names: tuple[tuple[str, str], ...] = ()  # (name in the module, local name)
    alias: str = ""  # the local name bound to the module itself (`* as x`, a Go package, `use a::b`)
    wildcard: bool = False  # every top-level name of the module is visible (`.*`, `#include`, `use a::*`)
    separator: str = "."  # how the module's parts are joined, for external names


def text_of(node: SyntaxNode | None) -> str:
    return node.text.decode("utf-8", "replace") if node is not None and node.text is not None else ""


def _line(node: SyntaxNode) -> int:
    return node.start_point[0] + 1


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
        return [ImportRecord(_line(node), _unquote(text_of(source)), tuple(names), alias, wildcard=every)]
    if node.type == "variable_declarator":  # const x = require("./x"), const { a, b: c } = require("../y")
        value, target = node.child_by_field_name("value"), node.child_by_field_name("name")
        if value is not None and value.type == "member_expression" and target is not None:  # require("./u").f
            module = _required_module(value.child_by_field_name("object"))
            member = text_of(value.child_by_field_name("property"))
            return [ImportRecord(_line(node), module, ((member, text_of(target)),))] if module and member else []
        module = _required_module(value)
        if module is None or target is None:
            return []
        if target.type == "identifier":
            return [ImportRecord(_line(node), module, alias=text_of(target))]
        return [ImportRecord(_line(node), module, tuple(_pattern_names(target)))]
    if node.type == "expression_statement":  # require("./side-effect")
        module = _required_module(node.named_children[0] if node.named_children else None)
        return [ImportRecord(_line(node), module)] if module is not None else []
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
        return [ImportRecord(_line(node), module, separator="/")]
    if name == ".":
        return [ImportRecord(_line(node), module, wildcard=True, separator="/")]
    return [ImportRecord(_line(node), module, alias=name or go_package_name(module), separator="/")]


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
        return [ImportRecord(_line(node), dotted, wildcard=True)]
    module, _, name = dotted.rpartition(".")
    return [ImportRecord(_line(node), module, ((name, name),))]


def _read_kotlin(node: SyntaxNode) -> list[ImportRecord]:
    if node.type not in ("import", "import_header"):
        return []
    path = next((c for c in node.named_children if c.type in ("qualified_identifier", "identifier")), None)
    dotted = text_of(path)
    if text_of(node).rstrip().endswith("*"):
        return [ImportRecord(_line(node), dotted, wildcard=True)]
    aliases = [c for c in node.named_children if c is not path and c.type in ("identifier", "import_alias")]
    module, _, name = dotted.rpartition(".")
    alias = text_of(aliases[-1]).removeprefix("as").strip() if aliases else name
    return [ImportRecord(_line(node), module, ((name, alias),))]


def _read_scala(node: SyntaxNode) -> list[ImportRecord]:
    if node.type != "import_declaration":
        return []
    path = [text_of(c) for c in node.children_by_field_name("path") if c.is_named]
    module = ".".join(path)
    wildcard = any(c.type == "namespace_wildcard" for c in node.named_children)
    selectors = next((c for c in node.named_children if c.type == "namespace_selectors"), None)
    if wildcard:
        return [ImportRecord(_line(node), module, wildcard=True)]
    if selectors is not None:
        names = []
        for part in selectors.named_children:
            if part.type == "identifier":
                names.append((text_of(part), text_of(part)))
            elif part.type in ("arrow_renamed_identifier", "as_renamed_identifier"):
                name = text_of(part.child_by_field_name("name"))
                names.append((name, text_of(part.child_by_field_name("alias")) or name))
            elif part.type == "namespace_wildcard":
                return [ImportRecord(_line(node), module, tuple(names), wildcard=True)]
        return [ImportRecord(_line(node), module, tuple(names))]
    parent, _, name = module.rpartition(".")
    return [ImportRecord(_line(node), parent, ((name, name),))]


def _read_csharp(node: SyntaxNode) -> list[ImportRecord]:
    if node.type != "using_directive":
        return []
    names = [c for c in node.named_children if c.type in ("qualified_name", "identifier")]
    if not names:
        return []
    if node.child_by_field_name("name") is not None or len(names) > 1:  # using Alias = Some.Type;
        return [ImportRecord(_line(node), text_of(names[-1]))]
    return [ImportRecord(_line(node), text_of(names[0]), wildcard=True)]


def _read_rust(node: SyntaxNode) -> list[ImportRecord]:
    if node.type != "use_declaration":
        return []
    argument = node.child_by_field_name("argument")
    records = []
    for path, alias, wildcard in _use_paths(argument, []):
        if wildcard:
            records.append(ImportRecord(_line(node), "::".join(path), wildcard=True, separator="::"))
        elif path:
            name = path[-1]
            records.append(ImportRecord(_line(node), "::".join(path[:-1]), ((name, alias or name),),
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
    return [ImportRecord(_line(node), module if written.startswith('"') else f"<{module}>", wildcard=True,
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
    return [ImportRecord(_line(node), module, wildcard=True, separator="/")]


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
        records.append(ImportRecord(_line(node), module, ((name, alias or name),), separator="\\"))
    return records


def _read_swift(node: SyntaxNode) -> list[ImportRecord]:
    if node.type != "import_declaration":
        return []
    return [ImportRecord(_line(node), text_of(node.named_children[-1]) if node.named_children else "")]


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
    return [ImportRecord(_line(node), _unquote(text_of(first)), alias=alias)]


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
        return [ImportRecord(_line(node), module, wildcard=True)]
    parent, _, name = module.rpartition(".")
    return [ImportRecord(_line(node), parent, ((name, name),))]


def _read_dart(node: SyntaxNode) -> list[ImportRecord]:
    """`import 'util.dart' as util;` binds util; without `as`, every name of the library is visible."""
    if node.type != "import_specification":
        return []
    uri = next((c for c in _descendants(node, 3) if c.type in ("string_literal", "uri")), None)
    alias = next((c for c in node.named_children if c.type == "identifier"), None)
    module = _unquote(text_of(uri))
    if not module or module.startswith("dart:"):
        return [ImportRecord(_line(node), module)] if module else []
    return [ImportRecord(_line(node), module, alias=text_of(alias), wildcard=alias is None, separator="/")]


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
    "dart": (_read_dart, frozenset({"import_specification"})),
}


# ------------------------------------------------------------------ which files


class ModuleFiles:
    """The code files of one family of languages, and which of them an import record means."""

    def __init__(self, paths: Iterable[str], go_modules: Mapping[str, str] | None = None) -> None:
        self.files = frozenset(paths)
        self.by_folder: dict[str, list[str]] = defaultdict(list)
        for path in sorted(self.files):
            self.by_folder[_folder(path)].append(path)
        self.go_modules = dict(go_modules or {})  # module path -> the folder of its go.mod

    def locate(self, style: str, record: ImportRecord, importer: str) -> tuple[str, ...]:
        locate = _LOCATORS.get(style)
        return tuple(locate(self, record.module, importer)) if locate is not None and record.module else ()

    def folder_files(self, folder: str) -> list[str]:
        return self.by_folder.get(folder, [])

    def _js(self, module: str, importer: str) -> list[str]:
        if not module.startswith("."):
            return []
        base = posixpath.normpath(posixpath.join(_folder(importer), module))
        stem = re.sub(r"\.(js|jsx|mjs|cjs)$", "", base)  # TypeScript imports "./x.js" meaning x.ts
        candidates = [base, *(stem + s for s in _JS_SUFFIXES), *(f"{base}/index{s}" for s in _JS_SUFFIXES)]
        return next(([c] for c in candidates if c in self.files), [])

    def _go(self, module: str, importer: str) -> list[str]:
        for prefix, root in sorted(self.go_modules.items(), key=lambda item: -len(item[0])):
            if module == prefix or module.startswith(prefix + "/"):
                found = self.folder_files("/".join(filter(None, [root, module[len(prefix):].strip("/")])))
                if found:
                    return found
        folder = self._go_folder(module)
        return self.folder_files(folder) if folder is not None else []

    def _go_folder(self, module: str) -> str | None:
        """The folder a module path ends in (`example.com/shop/internal/store` -> `go/internal/store`): the
        most trailing segments shared; never for the standard library's paths (no domain: `fmt`)."""
        parts = module.split("/")
        if "." not in parts[0]:
            return None
        best, found = 0, None
        for folder in self.by_folder:
            shared = _shared_suffix(parts, folder.split("/")) if folder else 0
            if shared > best or (shared == best and found is not None and shared and len(folder) < len(found)):
                best, found = shared, folder
        return found if best else None

    def learn_go_roots(self, modules: Iterable[str]) -> None:
        """Where each module path's root is, from the codebase's own imports: `example.com/shop/internal/store`
        found in `go/internal/store` puts `example.com/shop` at `go` (a bare `import "example.com/shop"` then
        means the files of `go`), for codebases indexed without their go.mod."""
        votes: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
        for module in modules:
            folder = self._go_folder(module)
            if folder is None:
                continue
            shared = _shared_suffix(module.split("/"), folder.split("/"))
            prefix = "/".join(module.split("/")[:-shared])
            root = "/".join(folder.split("/")[:-shared])
            votes[prefix][root] += 1
        for prefix, roots in votes.items():
            if prefix and prefix not in self.go_modules:
                self.go_modules[prefix] = max(roots, key=lambda root: (roots[root], -len(root)))

    def _package(self, module: str, importer: str, *, min_parts: int = 2, separator: str = ".") -> list[str]:
        """A package by the folder its path ends with; a zip rooted inside the package tree (`src/Monolog`)
        drops leading parts, never below min_parts (`util` alone would match any folder named so)."""
        parts = [p for p in module.split(separator) if p]
        for keep in range(len(parts), min(min_parts, len(parts)) - 1, -1):
            suffix = "/".join(parts[len(parts) - keep:])
            matches = [f for f in self.by_folder if f == suffix or f.endswith("/" + suffix)] if suffix else [""]
            if matches:
                return [path for folder in sorted(matches) for path in self.folder_files(folder)]
        return []

    def _php(self, module: str, importer: str) -> list[str]:
        found = self._package(module, importer, separator="\\", min_parts=1)
        if found or "\\" in module:
            return found
        return self.folder_files("") if module else []  # `use Vendor\Logger`: the vendor's root folder

    def _rust(self, module: str, importer: str) -> list[str]:
        parts = [p for p in module.split("::") if p]
        folder = _rust_module_folder(importer)
        if parts and parts[0] == "crate":
            folder, parts = self._crate_root(importer), parts[1:]
        elif parts and parts[0] in ("self", "super"):
            while parts and parts[0] in ("self", "super"):
                folder = _folder(folder) if parts.pop(0) == "super" else folder
        else:
            folder = self._crate_root(importer)  # `use a::b` of a module at the crate root, else a crate
        if not parts:
            return [p for p in (f"{folder}/lib.rs", f"{folder}/main.rs", f"{folder}/mod.rs") if p in self.files][:1]
        base = "/".join(filter(None, [folder, *parts]))
        return next(([c] for c in (f"{base}.rs", f"{base}/mod.rs") if c in self.files), [])

    def _crate_root(self, importer: str) -> str:
        for parent in PurePosixPath(importer).parents:
            folder = "" if str(parent) == "." else str(parent)
            if any(f"{folder}/{name}".lstrip("/") in self.files for name in ("lib.rs", "main.rs")):
                return folder
        return _folder(importer)

    def _include(self, module: str, importer: str) -> list[str]:
        system = module.startswith("<")
        module = module.strip("<>")
        local = posixpath.normpath(posixpath.join(_folder(importer), module))
        if not system and local in self.files:
            headers = [local]
        else:
            ending = [f for f in self.files if f == module or f.endswith("/" + module)]
            headers = sorted(ending, key=lambda f: (-_shared_prefix(f, importer), f))[:1]
        return [*headers, *(s for h in headers for s in self._implementations(h))]

    def _implementations(self, header: str) -> list[str]:
        """`src/uv-common.h` -> `src/uv-common.c`: where what a header declares is defined."""
        stem = posixpath.splitext(header)[0]
        return [stem + suffix for suffix in _C_SOURCES if stem + suffix in self.files and stem + suffix != header]

    def _lua(self, module: str, importer: str) -> list[str]:
        """`require("app.util")` -> `app/util.lua` or `app/util/init.lua`, under any folder."""
        base = module.replace(".", "/")
        for name in (f"{base}.lua", f"{base}/init.lua"):
            found = sorted(f for f in self.files if f == name or f.endswith(f"/{name}"))
            if found:
                return found[:1]
        return []

    def _dart(self, module: str, importer: str) -> list[str]:
        """`util.dart` beside the importer; `package:app/src/repo.dart` under a `lib/` folder."""
        if module.startswith("package:"):
            rest = module.split("/", 1)[1] if "/" in module else ""
            return sorted(f for f in self.files if f == f"lib/{rest}" or f.endswith(f"/lib/{rest}"))[:1]
        local = posixpath.normpath(posixpath.join(_folder(importer), module))
        return [local] if local in self.files else []

    def _ruby(self, module: str, importer: str) -> list[str]:
        module = module.removesuffix(".rb")
        if module.startswith("."):
            local = posixpath.normpath(posixpath.join(_folder(importer), module)) + ".rb"
            return [local] if local in self.files else []
        return sorted(f for f in self.files if f == f"{module}.rb" or f.endswith(f"/{module}.rb"))[:1]


def _package_locator(separator: str) -> Callable[[ModuleFiles, str, str], list[str]]:
    return lambda files, module, importer: files._package(module, importer, separator=separator)


_LOCATORS: Mapping[str, Callable[[ModuleFiles, str, str], list[str]]] = {
    "js": ModuleFiles._js, "go": ModuleFiles._go, "java": _package_locator("."), "kotlin": _package_locator("."),
    "scala": _package_locator("."), "csharp": _package_locator("."), "php": ModuleFiles._php,
    "rust": ModuleFiles._rust, "include": ModuleFiles._include, "ruby": ModuleFiles._ruby, "lua": ModuleFiles._lua,
    "dart": ModuleFiles._dart,
}


def _folder(path: str) -> str:
    parent = posixpath.dirname(path)
    return "" if parent == "." else parent


def _rust_module_folder(path: str) -> str:
    """The folder a Rust file's child modules live in: `src/a/mod.rs`, `src/lib.rs` -> their folder;
    `src/a.rs` -> `src/a`."""
    name = PurePosixPath(path).name
    if name in ("mod.rs", "lib.rs", "main.rs"):
        return _folder(path)
    return path.removesuffix(".rs")


def _shared_suffix(left: list[str], right: list[str]) -> int:
    count = 0
    while count < min(len(left), len(right)) and left[-1 - count] == right[-1 - count]:
        count += 1
    return count


def _shared_prefix(left: str, right: str) -> int:
    return len(posixpath.commonprefix([left.split("/"), right.split("/")]))


def go_modules_of(sources: Mapping[str, str]) -> dict[str, str]:
    """Each `go.mod` that was read: its module path (how its packages are imported) -> its folder."""
    modules = {}
    for path, text in sources.items():
        if PurePosixPath(path).name == "go.mod" and (match := re.search(r"^module\s+(\S+)", text, re.MULTILINE)):
            modules[match.group(1).strip('"')] = _folder(path)
    return modules
