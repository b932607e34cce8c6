"""The definitions of the code files in languages other than Python, indexed for the resolver:
by file and name, by family and name (top-level, methods, members of a type), by qualified class
name; which chunk owns each line; and what each file's imports make visible.

Internal to `codelens.graph.syntax_edges`. Built once per graph from the chunks and each file's
`FileSyntax`; the lookups (`syntax_lookup`) and the edges read these tables, and only the edges
add to one (`bases`, as inherits edges are found).
"""

from __future__ import annotations

import posixpath
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from codelens.chunk import Chunk
from codelens.graph.syntax_modules import ModuleFiles, go_modules_of
from codelens.graph.syntax_records import FileSyntax, ImportRecord
from codelens.languages import GraphRule

MAX_IMPORTED_FILES = 40  # a package import's edges (a Go package folder, `import a.b.*`)


@dataclass
class SyntaxFile:
    """One file's facts and what its imports make visible."""

    path: str
    language: str
    rule: GraphRule
    syntax: FileSyntax
    owners: list[str] = field(default_factory=list)  # line -> the chunk id owning it ("" beyond the chunks)
    named: dict[str, list[tuple[tuple[str, ...], str, ImportRecord]]] = field(default_factory=dict)
    aliases: dict[str, tuple[tuple[str, ...], ImportRecord]] = field(default_factory=dict)
    visible_files: list[str] = field(default_factory=list)  # wildcard imports, then the package's files


class SyntaxIndex:
    """The tables of one graph's non-Python definitions, and its files' imports bound."""

    def __init__(self, files: dict[str, SyntaxFile], chunks: Sequence[Chunk], sources: Mapping[str, str],
                 repository_labels: Sequence[str]) -> None:
        self.files = files
        self.labels = frozenset(repository_labels)
        self.modules: dict[str, ModuleFiles] = {}
        go_modules = go_modules_of(sources)
        by_family: dict[str, list[str]] = defaultdict(list)
        for path, one in files.items():
            by_family[one.rule.family].append(path)
        for family, paths in by_family.items():
            self.modules[family] = ModuleFiles(paths, go_modules)  # go.mod's roots: the "go" locator reads them
        self.packages: dict[tuple[str, str], list[str]] = defaultdict(list)  # (family, package) -> its files
        for path, one in files.items():
            if one.syntax.package:
                self.packages[(one.rule.family, one.syntax.package)].append(path)
        for family, modules in self.modules.items():  # codebases indexed without their go.mod
            go_imports = [r.module for one in files.values() if one.rule.family == family and one.rule.imports == "go"
                          for r in one.syntax.imports]
            if go_imports:
                modules.learn_go_roots(go_imports)
        self.file_modules: dict[tuple[str, str], list[str]] = defaultdict(list)  # (family, module name) -> files
        for path, one in files.items():
            if one.rule.file_modules:
                self.file_modules[(one.rule.family, file_module_name(path))].append(path)
        self.in_file: dict[str, dict[str, list[Chunk]]] = defaultdict(lambda: defaultdict(list))
        self.top_level: dict[str, dict[str, list[Chunk]]] = defaultdict(lambda: defaultdict(list))
        self.members: dict[str, dict[tuple[str, str], list[Chunk]]] = defaultdict(lambda: defaultdict(list))
        self.methods: dict[str, dict[str, list[Chunk]]] = defaultdict(lambda: defaultdict(list))
        self.class_members: dict[str, list[str]] = defaultdict(list)  # class chunk id -> its members' ids
        self.classes: dict[tuple[str, str], list[Chunk]] = defaultdict(list)  # (family, qualified name) -> classes
        self.chunk_of: dict[str, Chunk] = {}
        self.module_chunk: dict[str, str] = {}
        self._index(chunks)
        for one in files.values():
            self._bind_imports(one)
        self.bases: dict[str, list[str]] = {}

    def _index(self, chunks: Sequence[Chunk]) -> None:
        spans: dict[str, list[Chunk]] = defaultdict(list)
        module_parts: dict[str, list[Chunk]] = defaultdict(list)
        for chunk in chunks:
            self.chunk_of[chunk.chunk_id] = chunk
            if chunk.kind == "module":
                self.module_chunk.setdefault(chunk.path, chunk.chunk_id)
                module_parts[chunk.path].append(chunk)
                continue
            family = self.files[chunk.path].rule.family
            if chunk.kind == "class":
                self.classes[(family, chunk.symbol)].append(chunk)
            spans[chunk.path].append(chunk)
            name = plain_name(chunk)
            self.in_file[chunk.path][name].append(chunk)
            owner = owner_of(chunk)
            if owner:
                self.class_members[f"{chunk.path}::{owner}"].append(chunk.chunk_id)
                self.members[family][(owner.rpartition(".")[2], name)].append(chunk)
                self.methods[family][name].append(chunk)
            else:
                self.top_level[family][name].append(chunk)
        for path, one in self.files.items():
            last = max((c.end_line for c in [*spans[path], *module_parts[path]]), default=0)
            owners = [""] * (last + 2)
            for part in module_parts[path]:  # a long <module> comes in parts: each owns its own statements
                for start, end in part.line_spans or ((part.start_line, part.end_line),):
                    owners[start:end + 1] = [part.chunk_id] * (end - start + 1)
            for chunk in sorted(spans[path], key=lambda c: c.start_line - c.end_line):  # widest first
                owners[chunk.start_line:chunk.end_line + 1] = [chunk.chunk_id] * (chunk.end_line - chunk.start_line + 1)
            one.owners = owners

    def _bind_imports(self, one: SyntaxFile) -> None:
        modules = self.modules[one.rule.family]
        for record in one.syntax.imports:
            found = self.locate(one, record)
            if record.alias:
                one.aliases[record.alias] = (found, record)
            if record.wildcard:
                one.visible_files.extend(found)
            for name, local in record.names:
                one.named.setdefault(local, []).append((found, name, record))
                if one.rule.imports_name_modules:  # Rust: `use crate::routing` binds the module routing
                    module = modules.locate(one.rule.imports, ImportRecord(record.line, f"{record.module}::{name}"),
                                            one.path)
                    if module:
                        one.aliases[local] = (module, record)
        if one.rule.imports_reach_through:  # what an included header includes is visible too
            one.visible_files.extend(self._included(one, modules))
        if one.rule.package_scope:
            folder = posixpath.dirname(one.path)
            one.visible_files.extend(p for p in modules.folder_files(folder) if p != one.path)
            one.visible_files.extend(p for p in self.packages.get((one.rule.family, one.syntax.package), ())
                                     if p != one.path and posixpath.dirname(p) != folder)

    def locate(self, one: SyntaxFile, record: ImportRecord) -> tuple[str, ...]:
        """The files an import means: a declared package's files (Java, Kotlin, Scala, C#, PHP), else by path."""
        if one.rule.packages:
            declared = self.packages.get((one.rule.family, record.module.replace("\\", ".").strip(".")))
            if declared:
                return tuple(declared)
        modules = self.modules[one.rule.family]
        if one.rule.modules_by_definition:
            defined = self._defining_files(one, record)
            if defined or not record.names:
                return defined or modules.locate(one.rule.imports, record, one.path)
            # `alias MyApp.Repo` names the module Repo of MyApp: its own file, by the path convention
            return tuple(dict.fromkeys(path for name, _ in record.names for path in modules.locate(
                one.rule.imports, ImportRecord(record.line, f"{record.module}.{name}".lstrip(".")), one.path)))
        found = modules.locate(one.rule.imports, record, one.path)
        if found or not record.names:
            return found
        return self._defining_files(one, record)

    def _defining_files(self, one: SyntaxFile, record: ImportRecord) -> tuple[str, ...]:
        """The files whose definitions name the module: Elixir's `alias MyApp.Repo` (the names' modules),
        `import MyApp.Util` (the module itself)."""
        qualified = [f"{record.module}.{name}" if record.module else name for name, _ in record.names] or [
            record.module]
        return tuple(dict.fromkeys(c.path for name in qualified for c in self.classes.get((one.rule.family, name), [])))

    def _included(self, one: SyntaxFile, modules: ModuleFiles) -> list[str]:
        """Files included through included headers, breadth first, up to MAX_IMPORTED_FILES."""
        seen = {one.path, *one.visible_files}
        queue, found = list(one.visible_files), []
        while queue and len(found) < MAX_IMPORTED_FILES:
            header = self.files.get(queue.pop(0))
            for record in header.syntax.imports if header is not None else ():
                for path in modules.locate(header.rule.imports, record, header.path):
                    if path not in seen:
                        seen.add(path)
                        found.append(path)
                        queue.append(path)
        return found

    def owner(self, one: SyntaxFile, line: int) -> str:
        """The chunk a line is in: the innermost definition, else the <module> chunk, else the file."""
        owner = one.owners[line] if line < len(one.owners) else ""
        return owner or self.module_chunk.get(one.path, one.path)


def file_module_name(path: str) -> str:
    """The name a file module is called by: its file's stem (`Модули/НастройкиOpm.os`), or for a 1C
    configuration's `CommonModules/Налоги/Ext/Module.bsl`, the folder the module describes."""
    parts = path.split("/")
    return parts[-3] if len(parts) >= 3 and parts[-2] == "Ext" else parts[-1].rsplit(".", 1)[0]


def plain_name(chunk: Chunk) -> str:
    """A definition's name as code calls it: `write#2` (the second `write` of a file) -> `write`."""
    return chunk.name.partition("#")[0]


def owner_of(member: Chunk) -> str:
    """`A.B.m` -> `A.B`; "" for a top-level definition."""
    return member.symbol.rpartition(".")[0]


def external_module(record: ImportRecord) -> str:
    """An import's module as an external target's name: `<stdio.h>` -> `stdio.h`."""
    return record.module.strip("<>")
