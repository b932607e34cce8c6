"""What a name means from a file, in a language other than Python: its own definition, what its
imports and its package make visible (through re-exports), a class's members through its bases, the
one definition of that name in the family; and a name as an external target.

Internal to `codelens.graph.syntax_edges`, which decides in what order to ask (the object itself,
the file, its imports, a unique name) and reads the answers; this module answers one question at a
time from the tables of `syntax_index`.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable

from codelens.chunk import Chunk
from codelens.graph.syntax_index import SyntaxFile, SyntaxIndex, external_module, owner_of, plain_name

BY_NAME = "name"  # Edge.via of a call resolved by a unique name only: uncertain
_PRIVATE = re.compile(r"(?<![\w.])(private|fileprivate)\b")
_MAX_BASE_DEPTH = 4
_MAX_REEXPORTS = 3  # hops through modules that re-export a name (lib.rs -> routing/mod.rs -> ...)


class NameLookup:
    """Lookups over one graph's `SyntaxIndex`."""

    def __init__(self, index: SyntaxIndex) -> None:
        self.index = index

    def other_overload(self, chunk_id: str) -> str:
        """The first other definition of the same name beside a chunk (`Cart.add#2` for `Cart.add`), if any."""
        chunk = self.index.chunk_of.get(chunk_id)
        if chunk is None:
            return ""
        owner = owner_of(chunk)
        siblings = [c for c in self.index.in_file[chunk.path].get(plain_name(chunk), ())
                    if c.chunk_id != chunk_id and owner_of(c) == owner]
        return siblings[0].chunk_id if siblings else ""

    def own_class(self, one: SyntaxFile, caller: Chunk | None) -> Chunk | None:
        owner = class_of(caller)
        if not owner:
            return None
        found = self.index.chunk_of.get(f"{one.path}::{owner}")
        if found is not None and found.kind == "class":
            return found
        return self.visible(one, owner.rpartition(".")[2], classes=True)

    def visible(self, one: SyntaxFile, name: str, *, classes: bool) -> Chunk | None:
        """The definition a plain name means in this file: its own, then what its imports and its
        package make visible."""
        found = _pick(self.index.in_file[one.path].get(name, ()), classes, top_level=True)
        if found is not None:
            return found
        members = one.rule.imports_members  # Elixir, Perl: a module's functions are its definition's members
        for files, original, _ in one.named.get(name, ()):
            found = self.in_files(files, original, classes=classes, members=members) or self._reexported(
                files, original, classes)
            if found is not None:
                return found
        return self.in_files(one.visible_files, name, classes=classes, members=members)

    def _reexported(self, files: Iterable[str], name: str, classes: bool, depth: int = _MAX_REEXPORTS) -> Chunk | None:
        """A name a module re-exports: Rust's `pub use self::routing::Router` in lib.rs, TypeScript's
        `export { x } from "./x"` and `export * from "./y"`, followed a few hops."""
        for path in files:
            module = self.index.files.get(path)
            if module is None or depth <= 0:
                continue
            for inner, original, _ in module.named.get(name, ()):
                found = self.in_files(inner, original, classes=classes) or self._reexported(inner, original, classes,
                                                                                             depth - 1)
                if found is not None:
                    return found
            wildcards = [p for r in module.syntax.imports if r.wildcard and module.rule.wildcards_reexport
                         for p in self.index.locate(module, r)]
            found = self.in_files(wildcards, name, classes=classes) or self._reexported(wildcards, name, classes,
                                                                                       depth - 1)
            if found is not None:
                return found
        return None

    def in_files(self, files: Iterable[str], name: str, *, classes: bool, members: bool = False) -> Chunk | None:
        for path in files:
            found = _pick(self.index.in_file.get(path, {}).get(name, ()), classes, top_level=not members)
            if found is not None:
                return found
        return None

    def unique(self, one: SyntaxFile, name: str, *, classes: bool, methods: bool = False,
               methods_only: bool = False) -> Chunk | None:
        """The one definition of the name in the family (the caller's repository first); None when
        there is none or several. Top-level functions and classes; methods when asked."""
        family = one.rule.family
        candidates = [] if methods_only else [c for c in self.index.top_level[family].get(name, ())
                                              if not classes or c.kind == "class"]
        if not candidates and (methods or methods_only) and not classes:
            # a method, never a nested type (`PathMonitor.Result` is no `Result`), nor another file's private one
            candidates = [c for c in self.index.methods[family].get(name, ())
                          if c.kind != "class" and not (c.path != one.path and _PRIVATE.search(c.signature))]
        production = [c for c in candidates if not c.is_test]
        candidates = production or candidates
        if self.index.labels and len(candidates) > 1:
            mine = self._label(one.path)
            candidates = [c for c in candidates if self._label(c.path) == mine] or candidates
        return candidates[0] if len(candidates) == 1 else None

    def _label(self, path: str) -> str:
        head = path.split("/", 1)[0]
        return head if head in self.index.labels else ""

    def own_member(self, one: SyntaxFile, caller: Chunk | None, name: str, *, skip_own: bool) -> Chunk | None:
        """A method of the caller's class (or its bases'): `this.name()`. The caller's own file first
        (C++'s `Cart::add` beside `Cart::recount`), then the class's file and its members elsewhere."""
        owner = class_of(caller)
        if not owner:
            return None
        if not skip_own and f"{one.path}::{owner}.{name}" in self.index.chunk_of:
            return self.index.chunk_of[f"{one.path}::{owner}.{name}"]
        own = self.own_class(one, caller)
        if own is None:  # a type this file cannot see: its members by name
            return None if skip_own else self._member_named(one, owner, name)
        seen: set[str] = set()
        queue = [own.chunk_id]
        for _ in range(_MAX_BASE_DEPTH + 1):
            following = []
            for class_id in queue:
                if class_id in seen:
                    continue
                seen.add(class_id)
                if not (skip_own and class_id == own.chunk_id):
                    found = self.member_of(self.index.chunk_of[class_id], name)
                    if found is not None:
                        return found
                following.extend(self.index.bases.get(class_id, ()))
            queue = following
        return None

    def _member_named(self, one: SyntaxFile, owner: str, name: str) -> Chunk | None:
        """`owner.name` defined anywhere in the family: the same file, the same folder, else the only one."""
        short = owner.rpartition(".")[2]
        candidates = self.index.members[one.rule.family].get((short, name), [])
        if not candidates:
            return None
        here = [c for c in candidates if c.path == one.path]
        folder = posixpath.dirname(one.path)
        near = [c for c in candidates if posixpath.dirname(c.path) == folder]
        if here or near:  # overloads in one file share the first; a package's files hold one type
            return (here or near)[0]
        return candidates[0] if len(candidates) == 1 else None

    def member_of(self, owner: Chunk, name: str) -> Chunk | None:
        """A member of a class chunk: in its file, then wherever else its type has members."""
        direct = f"{owner.path}::{owner.symbol}.{name}"
        if direct in self.index.chunk_of:
            return self.index.chunk_of[direct]
        if owner.kind != "class":
            return None
        candidates = self.index.members[self.index.files[owner.path].rule.family].get((plain_name(owner), name), [])
        folder = posixpath.dirname(owner.path)
        near = [c for c in candidates if posixpath.dirname(c.path) == folder]  # Go's package, C#'s partial class
        # elsewhere, only where no class of that name is declared: C++'s `Cart::add` in src/cart.cpp, never
        # another folder's own `ZodNumber` (zod's v3 beside v4)
        far = [c for c in candidates if c not in near
               and not any(k.kind == "class" for k in self.index.in_file[c.path].get(plain_name(owner), ()))]
        for kept in (near, far):
            if len(kept) == 1:
                return kept[0]
        for base in self.index.bases.get(owner.chunk_id, ())[:_MAX_BASE_DEPTH]:
            found = self.index.chunk_of.get(f"{base.partition('::')[0]}::{self.index.chunk_of[base].symbol}.{name}")
            if found is not None:
                return found
        return None

    def external_name(self, one: SyntaxFile, name: str) -> str:
        """`useState` imported from react -> `react.useState`; otherwise the name as written."""
        for _, original, record in one.named.get(name, ()):
            return f"{external_module(record)}{record.separator}{original}" if record.module else original
        return name


def _pick(chunks: Iterable[Chunk], classes: bool, *, top_level: bool) -> Chunk | None:
    for chunk in chunks:
        if (not classes or chunk.kind == "class") and not (top_level and owner_of(chunk) and chunk.kind != "class"):
            return chunk
    return None


def class_of(caller: Chunk | None) -> str:
    """The qualified name of the class a chunk is written in (its own, for a class)."""
    if caller is None or caller.kind == "module":
        return ""
    if caller.kind == "class":
        return caller.symbol
    return owner_of(caller)
