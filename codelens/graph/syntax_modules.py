"""Which files of the codebase an import means, in a language other than Python: `ModuleFiles`
maps an `ImportRecord` to files by the language's import style.

Internal to `codelens.graph.syntax_edges`. TypeScript/JavaScript relative paths, Go package
folders (through go.mod, else learned from the codebase's own imports), Java/Kotlin/Scala/C#/PHP
packages by folder suffix, Rust `crate::`/`self::`/`super::` module files, C/C++ include files
(with the sources beside a header), Ruby requires, Lua modules, Dart libraries. An empty answer
means the module is outside the codebase (an external target).
"""

from __future__ import annotations

import posixpath
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from pathlib import PurePosixPath

from codelens.graph.syntax_records import ImportRecord

_JS_SUFFIXES = (".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts")
_C_SOURCES = (".c", ".cc", ".cpp", ".cxx", ".c++", ".m", ".mm")


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
        headers = self._by_path(module.strip("<>"), importer, beside=not system)
        return [*headers, *(s for h in headers for s in self._implementations(h))]

    def _by_path(self, module: str, importer: str, beside: bool = True) -> list[str]:
        """A file named by its path: beside the importer, else the file that ends so nearest to it
        (a shell's `source "$ROOT/lib/utils.bash"`, C's `#include "uv/tree.h"`)."""
        local = posixpath.normpath(posixpath.join(_folder(importer), module))
        if beside and local in self.files:
            return [local]
        ending = [f for f in self.files if f == module or f.endswith("/" + module)]
        return sorted(ending, key=lambda f: (-_shared_prefix(f, importer), f))[:1]

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


    def _swift(self, module: str, importer: str) -> list[str]:
        """`import Store`: a module is its target's folder (SwiftPM's `Sources/Store/`), subfolders and all;
        the SDK's (`Foundation`, `UIKit`) are no folder of the codebase."""
        inside = [f for f in self.by_folder if module in f.split("/")]
        return [path for folder in sorted(inside) for path in self.folder_files(folder)]

    def _elixir(self, module: str, importer: str) -> list[str]:
        """`MyApp.ShoppingCart` -> `my_app/shopping_cart.ex` (Mix's convention), under any folder; a module
        defined elsewhere is found by its `defmodule` first (`syntax_index.SyntaxIndex.locate`)."""
        base = "/".join(_snake(part) for part in module.split("."))
        for name in (f"{base}.ex", f"{base}.exs"):
            found = sorted(f for f in self.files if f == name or f.endswith(f"/{name}"))
            if found:
                return found[:1]
        return []

    def _by_module_path(self, module: str, importer: str, separator: str, suffix: str) -> list[str]:
        """`Shop.Item` -> `Shop/Item.hs` (Haskell), `Shop::Item` -> `Shop/Item.pm` (Perl), under any folder
        (`src/`, `lib/`); the nearest to the importer when several end so."""
        name = module.replace(separator, "/") + suffix
        found = [f for f in self.files if f == name or f.endswith(f"/{name}")]
        return sorted(found, key=lambda f: (-_shared_prefix(f, importer), f))[:1]


def _snake(part: str) -> str:
    """`ShoppingCart` -> `shopping_cart`, `HTTPClient` -> `http_client` (how Mix names a module's file)."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", part).lower()


def _package_locator(separator: str) -> Callable[[ModuleFiles, str, str], list[str]]:
    return lambda files, module, importer: files._package(module, importer, separator=separator)


_LOCATORS: Mapping[str, Callable[[ModuleFiles, str, str], list[str]]] = {
    "js": ModuleFiles._js, "go": ModuleFiles._go, "java": _package_locator("."), "kotlin": _package_locator("."),
    "scala": _package_locator("."), "csharp": _package_locator("."), "php": ModuleFiles._php,
    "rust": ModuleFiles._rust, "include": ModuleFiles._include, "ruby": ModuleFiles._ruby, "lua": ModuleFiles._lua,
    "dart": ModuleFiles._dart, "swift": ModuleFiles._swift, "elixir": ModuleFiles._elixir,
    "haskell": lambda files, module, importer: files._by_module_path(module, importer, ".", ".hs"),
    "perl": lambda files, module, importer: files._by_module_path(module, importer, "::", ".pm"),
    "shell": ModuleFiles._by_path,
    # `@import("router.zig")`: a file, beside the importer; `@import("std")`, a build's named module: a library
    "zig": lambda files, module, importer: files._by_path(module, importer) if module.endswith(".zig") else [],
}


def locator_styles() -> frozenset[str]:
    """The import styles a locator is written for (what `GraphRule.imports` may name)."""
    return frozenset(_LOCATORS)


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
