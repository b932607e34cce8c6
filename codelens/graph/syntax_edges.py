"""The code graph's edges for every language with a graph rule other than Python: calls,
instantiations (a class is "called" where it is built, as in Python), inherits and imports.

`add_syntax_edges(chunks, sources, sink)` reads each file's syntax tree once
(`syntax_sites.read_syntax`), attributes each site to the innermost chunk whose lines hold it
(the file's `<module>` chunk, else the file itself, at top level) and resolves its target in order:

1. the object itself (`this.x()`, `self.x`, a Go method's receiver, and a bare call in a language
   where that means `this`): a method of the enclosing class (in the same file, then the class's
   other files: Go's methods beside the type, C#'s partial classes), then of its base classes;
2. a definition of that name in the same file;
3. through the file's imports (`syntax_imports`: a named import, a module alias such as Go's
   package or `import * as x`, a wildcard import or `#include`), and the files of the same folder
   where the language shares a package's names without imports (Go, Java, Kotlin, Scala, C#, PHP,
   Swift);
4. a unique name among the definitions of the same family of languages (in a workspace, the
   caller's own repository first): kept, but marked uncertain (`via="name"`).

What stays unresolved becomes a named external target (`ext:fmt.Println`, `ext:console.log`,
`ext:react.useState` through its import), as Python's calls do; builtins and keywords that the
rule lists as noise (Go's `len`, `make`; `require`) are dropped. A method call on a variable whose
type is unknown (`repo.save()`) resolves only by a unique method name, and is marked uncertain.
"""

from __future__ import annotations

import posixpath
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from codelens.chunk import Chunk
from codelens.graph.scopes import EdgeSink
from codelens.graph.syntax_modules import ModuleFiles, go_modules_of
from codelens.graph.syntax_records import COMPLEX, SELF, SUPER, Declared, FileSyntax, ImportRecord, Site
from codelens.graph.syntax_sites import parse_file, read_syntax
from codelens.languages import GraphRule, grammar_for, graph_rule, language_of

EXTERNAL_PREFIX = "ext:"
BY_NAME = "name"  # Edge.via of a call resolved by a unique name only: uncertain
_CONSTRUCTORS = frozenset({"constructor", "__construct", "init", "initialize", "new"})
_PRIVATE = re.compile(r"(?<![\w.])(private|fileprivate)\b")
MAX_IMPORTED_FILES = 40  # a package import's edges (a Go package folder, `import a.b.*`)
_MAX_BASE_DEPTH = 4
_MAX_REEXPORTS = 3  # hops through modules that re-export a name (lib.rs -> routing/mod.rs -> ...)


@dataclass
class _File:
    """One file's facts and what its imports make visible."""

    path: str
    language: str
    rule: GraphRule
    syntax: FileSyntax
    owners: list[str] = field(default_factory=list)  # line -> the chunk id owning it ("" beyond the chunks)
    named: dict[str, list[tuple[tuple[str, ...], str, ImportRecord]]] = field(default_factory=dict)
    aliases: dict[str, tuple[tuple[str, ...], ImportRecord]] = field(default_factory=dict)
    visible_files: list[str] = field(default_factory=list)  # wildcard imports, then the package's files


def syntax_paths(sources: Mapping[str, str]) -> list[str]:
    """The files whose edges this module reads: code in a language with a graph rule (never Python)."""
    return sorted(path for path in sources if graph_rule(language_of(path)) is not None)


def add_syntax_edges(chunks: Sequence[Chunk], sources: Mapping[str, str], sink: EdgeSink,
                     repository_labels: Sequence[str] = ()) -> None:
    """Calls, inherits and imports edges of every non-Python code file into sink."""
    files = _read_files(sources)
    if not files:
        return
    resolver = _Resolver(files, [c for c in chunks if c.path in files], sources, repository_labels)
    resolver.add_edges(sink)


def _read_files(sources: Mapping[str, str]) -> dict[str, _File]:
    files = {}
    for path in syntax_paths(sources):
        language = language_of(path)
        rule, grammar = graph_rule(language), grammar_for(path)
        if rule is None or grammar is None or language is None:
            continue
        try:
            tree = parse_file(sources[path], grammar)
            if tree is not None:
                files[path] = _File(path, language, rule, read_syntax(tree, rule))
        except RecursionError:  # absurdly deep code: its nodes stay, its edges are skipped
            continue
    return files


def _plain_name(chunk: Chunk) -> str:
    """A definition's name as code calls it: `write#2` (the second `write` of a file) -> `write`."""
    return chunk.name.partition("#")[0]


def _owner_of(member: Chunk) -> str:
    """`A.B.m` -> `A.B`; "" for a top-level definition."""
    return member.symbol.rpartition(".")[0]


class _Resolver:
    def __init__(self, files: dict[str, _File], chunks: Sequence[Chunk], sources: Mapping[str, str],
                 repository_labels: Sequence[str]) -> None:
        self.files = files
        self.labels = frozenset(repository_labels)
        self.modules: dict[str, ModuleFiles] = {}
        go_modules = go_modules_of(sources)
        by_family: dict[str, list[str]] = defaultdict(list)
        for path, one in files.items():
            by_family[one.rule.family].append(path)
        for family, paths in by_family.items():
            self.modules[family] = ModuleFiles(paths, go_modules if family == "go" else None)
        self.packages: dict[tuple[str, str], list[str]] = defaultdict(list)  # (family, package) -> its files
        for path, one in files.items():
            if one.syntax.package:
                self.packages[(one.rule.family, one.syntax.package)].append(path)
        if "go" in self.modules:
            self.modules["go"].learn_go_roots(r.module for one in files.values() if one.rule.family == "go"
                                              for r in one.syntax.imports)
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
        self.types: dict[str, dict[str, Declared]] = defaultdict(dict)  # chunk id (or file) -> name -> type
        for one in files.values():
            for declared in one.syntax.declared:
                known = self.types[self._owner(one, declared.line)]
                if declared.name not in known or (declared.explicit and not known[declared.name].explicit):
                    known[declared.name] = declared

    # ------------------------------------------------------------ indexes

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
            name = _plain_name(chunk)
            self.in_file[chunk.path][name].append(chunk)
            owner = _owner_of(chunk)
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

    def _bind_imports(self, one: _File) -> None:
        modules = self.modules[one.rule.family]
        for record in one.syntax.imports:
            found = self._locate(one, record)
            if record.alias:
                one.aliases[record.alias] = (found, record)
            if record.wildcard:
                one.visible_files.extend(found)
            for name, local in record.names:
                one.named.setdefault(local, []).append((found, name, record))
                if one.rule.imports == "rust":  # `use crate::routing` binds the module routing
                    module = modules.locate("rust", ImportRecord(record.line, f"{record.module}::{name}"), one.path)
                    if module:
                        one.aliases[local] = (module, record)
        if one.rule.imports == "include":  # what an included header includes is visible too
            one.visible_files.extend(self._included(one, modules))
        if one.rule.package_scope:
            folder = posixpath.dirname(one.path)
            one.visible_files.extend(p for p in modules.folder_files(folder) if p != one.path)
            one.visible_files.extend(p for p in self.packages.get((one.rule.family, one.syntax.package), ())
                                     if p != one.path and posixpath.dirname(p) != folder)

    def _locate(self, one: _File, record: ImportRecord) -> tuple[str, ...]:
        """The files an import means: a declared package's files (Java, Kotlin, Scala, C#, PHP), else by path."""
        if one.rule.packages:
            declared = self.packages.get((one.rule.family, record.module.replace("\\", ".").strip(".")))
            if declared:
                return tuple(declared)
        found = self.modules[one.rule.family].locate(one.rule.imports, record, one.path)
        if found or not record.names:
            return found
        # a module named by its definition rather than its file: Elixir's `alias MyApp.Repo`
        qualified = [f"{record.module}.{name}" if record.module else name for name, _ in record.names]
        return tuple(dict.fromkeys(c.path for name in qualified for c in self.classes.get((one.rule.family, name), [])))

    def _included(self, one: _File, modules: ModuleFiles) -> list[str]:
        """Files included through included headers, breadth first, up to MAX_IMPORTED_FILES."""
        seen = {one.path, *one.visible_files}
        queue, found = list(one.visible_files), []
        while queue and len(found) < MAX_IMPORTED_FILES:
            header = self.files.get(queue.pop(0))
            for record in header.syntax.imports if header is not None else ():
                for path in modules.locate("include", record, header.path):
                    if path not in seen:
                        seen.add(path)
                        found.append(path)
                        queue.append(path)
        return found

    # ------------------------------------------------------------ edges

    def add_edges(self, sink: EdgeSink) -> None:
        for one in self.files.values():  # base classes first: calls on `this` look through them
            for site in one.syntax.sites:
                if site.kind == "inherits":
                    self._add_base(one, site, sink)
        for one in self.files.values():
            for site in one.syntax.sites:
                if site.kind != "inherits":
                    owner = self._owner(one, site.line)
                    target, via = self._call_target(one, site)
                    if target == owner:  # `convert(a)` calling `convert(a, b)`: an overload, more often than not
                        target = self._other_overload(owner) or target
                    if target and not (via == BY_NAME and target == owner):  # a name matching its own caller
                        sink.add(owner, target, "calls", site.line, via=via)
            self._add_imports(one, sink)

    def _other_overload(self, chunk_id: str) -> str:
        """The first other definition of the same name beside a chunk (`Cart.add#2` for `Cart.add`), if any."""
        chunk = self.chunk_of.get(chunk_id)
        if chunk is None:
            return ""
        owner = _owner_of(chunk)
        siblings = [c for c in self.in_file[chunk.path].get(_plain_name(chunk), ())
                    if c.chunk_id != chunk_id and _owner_of(c) == owner]
        return siblings[0].chunk_id if siblings else ""

    def _owner(self, one: _File, line: int) -> str:
        owner = one.owners[line] if line < len(one.owners) else ""
        return owner or self.module_chunk.get(one.path, one.path)

    def _add_base(self, one: _File, site: Site, sink: EdgeSink) -> None:
        owner = self._owner(one, site.line)
        implementer = self._visible(one, site.receiver, classes=True) if site.receiver else None
        owner = implementer.chunk_id if implementer is not None else owner  # Rust: the impl's type inherits
        found = self._visible(one, site.name, classes=True)
        via = ""
        if found is None:
            found, via = self._unique(one, site.name, classes=True), BY_NAME
        if found is not None and found.chunk_id != owner:
            sink.add(owner, found.chunk_id, "inherits", site.line, via=via)
            self.bases.setdefault(owner, []).append(found.chunk_id)
        elif found is None:
            sink.add(owner, EXTERNAL_PREFIX + self._external_name(one, site.name), "inherits", site.line)

    def _add_imports(self, one: _File, sink: EdgeSink) -> None:
        for record in one.syntax.imports:
            found = self._locate(one, record)
            if record.names and not record.wildcard:
                defining = [p for name, _ in record.names for p in found if name in self.in_file.get(p, {})]
                found = tuple(dict.fromkeys(defining)) or (found if len(found) == 1 else ())
            for target in found[:MAX_IMPORTED_FILES]:
                if target != one.path:
                    sink.add(one.path, target, "imports", record.line)
            if found or not record.module:
                continue
            if record.names and not record.wildcard:  # `import java.util.List` -> ext:java.util.List
                for name, _ in record.names:
                    sink.add(one.path, f"{EXTERNAL_PREFIX}{_module_name(record)}{record.separator}{name}", "imports",
                             record.line)
            else:
                sink.add(one.path, EXTERNAL_PREFIX + _module_name(record), "imports", record.line)

    # ------------------------------------------------------------ resolution

    def _call_target(self, one: _File, site: Site) -> tuple[str, str]:
        """(target node id, via): a chunk id, or an `ext:` name; ("", "") to drop."""
        caller = self.chunk_of.get(self._owner(one, site.line))
        if site.receiver in (SELF, SUPER):
            found = self._own_member(one, caller, site.name, skip_own=site.receiver == SUPER)
            if found is not None:
                return found.chunk_id, ""
            return self._by_name_or_external(one, site, f"{_class_of(caller) or 'this'}.{site.name}")
        if site.receiver == "":
            return self._bare(one, caller, site)
        return self._on_receiver(one, caller, site)

    def _bare(self, one: _File, caller: Chunk | None, site: Site) -> tuple[str, str]:
        if one.rule.implicit_self and site.kind == "calls":
            found = self._own_member(one, caller, site.name, skip_own=False)
            if found is not None:
                return found.chunk_id, ""
        found = self._visible(one, site.name, classes=site.kind == "new")
        if found is not None:
            return found.chunk_id, ""
        if site.kind == "calls" and caller is not None and site.name in self.types.get(caller.chunk_id, {}):
            return EXTERNAL_PREFIX + site.name, ""  # a parameter or variable holding a function: `request()`
        return self._by_name_or_external(one, site, self._external_name(one, site.name))

    def _on_receiver(self, one: _File, caller: Chunk | None, site: Site) -> tuple[str, str]:
        head, _, rest = site.receiver.partition(".")
        defined_here = self.chunk_of.get(f"{one.path}::{site.receiver}.{site.name}")
        if defined_here is not None:  # `M.helper()` beside `function M.helper`; `app.handle()` beside `app.handle =`
            return defined_here.chunk_id, ""
        if site.receiver != COMPLEX and head in one.aliases:  # a module: `pkg.Func()`, `x.go()` (`* as x`)
            files, record = one.aliases[head]
            name = rest.rpartition(".")[2] if rest else ""
            found = self._in_files(files, name or site.name, classes=site.kind == "new" or bool(name))
            if found is not None and name:  # `pkg.Type.Method()`
                found = self._member_of(found, site.name)
            elif found is None and not name:  # a module that returns a table: Lua's `function M.log`
                members = [c for path in files for c in self.in_file.get(path, {}).get(site.name, ())]
                found = members[0] if len(members) == 1 else None
            if found is not None:
                return found.chunk_id, ""
            if not files:  # `fmt.Println`, `path.join`: the module's name stands for the alias
                return f"{EXTERNAL_PREFIX}{_module_name(record)}.{rest + '.' if rest else ''}{site.name}", ""
        if site.receiver != COMPLEX:
            typed, via, outside = self._receiver_type(one, caller, site.receiver)
            if typed is not None:
                member = self._member_of(typed, site.name)
                if member is not None:
                    return member.chunk_id, via
                if site.name == "new":
                    return typed.chunk_id, via
                return f"{EXTERNAL_PREFIX}{typed.symbol}.{site.name}", ""  # inherited from outside the code
            if outside:  # a variable of a library's type: `t *testing.T` -> ext:testing.T.Run
                return f"{EXTERNAL_PREFIX}{outside}.{site.name}", ""
        qualified = self._qualified_class(one, site.receiver) if site.receiver != COMPLEX else None
        if qualified is not None:  # `MyApp.Repo.insert()`, `Repo.insert()` with `alias MyApp.Repo`: that module's
            member = self._member_of(qualified, site.name)
            if member is not None:
                return member.chunk_id, ""
        if site.receiver != COMPLEX and not head.startswith(SELF):  # a class's own (static) member: `Ledger.record`
            type_name = site.receiver.rpartition(".")[2]
            found, via = self._visible(one, type_name, classes=True), ""
            if found is None and type_name[:1].isupper():
                found, via = self._unique(one, type_name, classes=True), BY_NAME
                if found is None and head not in one.aliases:  # a library's type (`String::new`): outside the code
                    return EXTERNAL_PREFIX + self._external_name(one, site.receiver) + f".{site.name}", ""
            if found is not None:
                member = self._member_of(found, site.name)
                if member is not None:
                    return member.chunk_id, via
                # Ruby's `Foo.new`, Rust's `Foo::new` without a `new` of its own; an enum's variant `Enum::Struct {..}`
                if site.name == "new" or site.kind == "new":
                    return found.chunk_id, via
        described = site.name if site.receiver == COMPLEX else f"{site.receiver}.{site.name}"
        imported = one.named.get(head, []) if site.receiver != COMPLEX else []
        if imported:  # `List.of` with java.util.List imported
            described = f"{self._external_name(one, head)}.{rest + '.' if rest else ''}{site.name}"
        if head in one.rule.builtins or (imported and not any(files for files, _, _ in imported)):
            return EXTERNAL_PREFIX + described, ""  # a library's object: `import { z } from "zod"`; z.bigint()
        return self._by_name_or_external(one, site, described)

    def _qualified_class(self, one: _File, receiver: str) -> Chunk | None:
        """The one class whose qualified name a dotted receiver spells (through a named import of its head)."""
        head, _, rest = receiver.partition(".")
        spelled = [receiver] if rest else []  # a plain `Strings` must be visible: the static branch's job
        spelled += [".".join(filter(None, [record.module, original, rest])) for _, original, record in
                    one.named.get(head, ()) if record.module]
        for name in spelled:
            found = self.classes.get((one.rule.family, name), [])
            if len(found) == 1:
                return found[0]
        return None

    # ------------------------------------------------------------ declared types

    def _receiver_type(self, one: _File, caller: Chunk | None, receiver: str) -> tuple[Chunk | None, str, str]:
        """The class a receiver's value is an instance of, through declared types and fields
        (`repo.save()`, `this.repo.save()`, `c.Request.Header.Set()`): (class chunk, via, "");
        (None, "", type name) for a type outside the codebase; (None, "", "") when unknown."""
        parts = receiver.split(".")
        if parts[0] == SELF:
            current = self._own_class(one, caller)
            via = ""
        else:
            declared = self._local_type(one, caller, parts[0])
            if declared is None:
                return None, "", ""
            current, via, outside = self._type_class(one, declared)
            if current is None:
                return None, "", outside
        for part in parts[1:]:
            if current is None:
                return None, "", ""
            declared = self._field_type(current, part)
            if declared is None:
                return None, "", ""
            current, step_via, outside = self._type_class(self.files[current.path], declared)
            if current is None:
                return None, "", outside
            via = via or step_via
        return current, via, ""

    def _local_type(self, one: _File, caller: Chunk | None, name: str) -> Declared | None:
        """A name's declared type where the caller sees it: its own chunk, the chunks around it, the
        file; then, where a bare name may be a field (Java, C#, Kotlin), its class's fields."""
        scopes = [caller.chunk_id] if caller is not None else []
        if caller is not None and caller.kind != "module":
            symbol = caller.symbol
            while "." in symbol:  # a function nested in a function sees its names (a class's fields: below)
                symbol = symbol.rpartition(".")[0]
                around = self.chunk_of.get(f"{caller.path}::{symbol}")
                if around is not None and around.kind != "class":
                    scopes.append(around.chunk_id)
        scopes += [self.module_chunk.get(one.path, ""), one.path]
        for scope in scopes:
            found = self.types.get(scope, {}).get(name)
            if found is not None:
                return found
        own = self._own_class(one, caller) if one.rule.implicit_self else None
        return self._field_type(own, name) if own is not None else None

    def _field_type(self, owner: Chunk, name: str) -> Declared | None:
        """A field's type: declared in the class's body, set on the object itself in a member
        (`this.repo = new Repo()`), or a constructor's parameter property (`constructor(private repo: Repo)`)."""
        found = self.types.get(owner.chunk_id, {}).get(name)
        if found is not None:
            return found
        for member_id in self.class_members.get(owner.chunk_id, ()):
            known = self.types.get(member_id, {})
            found = known.get(f"{SELF}.{name}")
            if found is None and _plain_name(self.chunk_of[member_id]) in _CONSTRUCTORS:
                found = known.get(name)
            if found is not None:
                return found
        return None

    def _type_class(self, one: _File, declared: Declared) -> tuple[Chunk | None, str, str]:
        """The class chunk a declared type names: (chunk, via, ""), (None, "", external name), or all empty."""
        if declared.called:
            return None, "", self._library_call(one, declared)
        if declared.qualifier:
            head = declared.qualifier.partition(".")[0]
            if head in one.aliases:
                files, record = one.aliases[head]
                found = self._in_files(files, declared.type_name, classes=True)
                if found is not None:
                    return found, "", ""
                return None, "", "" if files else f"{_module_name(record)}.{declared.type_name}"
        found = self._visible(one, declared.type_name, classes=True)
        if found is not None:
            return found, "", ""
        found = self._unique(one, declared.type_name, classes=True)
        if found is not None:
            return found, BY_NAME, ""
        if not declared.explicit:
            return None, "", ""
        qualifier = f"{self._external_name(one, declared.qualifier)}." if declared.qualifier else ""
        return None, "", qualifier + self._external_name(one, declared.type_name)

    def _library_call(self, one: _File, declared: Declared) -> str:
        """`httptest.NewRecorder()` with httptest a library's package, or a name nothing in the codebase
        defines (`fetch()`): what its value is called as an external (`net/http/httptest.NewRecorder()`);
        "" when the callee may be the codebase's own (its return type is not known)."""
        head = declared.qualifier.partition(".")[0]
        if head in one.aliases and not one.aliases[head][0]:
            return f"{_module_name(one.aliases[head][1])}.{declared.type_name}()"
        if declared.qualifier or declared.type_name in self.top_level[one.rule.family] \
                or declared.type_name in self.methods[one.rule.family] or head in one.named:
            return ""
        return f"{declared.type_name}()"

    def _own_class(self, one: _File, caller: Chunk | None) -> Chunk | None:
        owner = _class_of(caller)
        if not owner:
            return None
        found = self.chunk_of.get(f"{one.path}::{owner}")
        if found is not None and found.kind == "class":
            return found
        return self._visible(one, owner.rpartition(".")[2], classes=True)

    def _by_name_or_external(self, one: _File, site: Site, described: str) -> tuple[str, str]:
        if site.kind == "new":
            found = self._unique(one, site.name, classes=True)
        elif site.receiver:  # a method of an object whose type is unknown: only a method can be meant,
            # and never one every object of the language has (`toString`, `to_s`): the library's, most likely
            found = None if site.name in one.rule.library_methods else self._unique(one, site.name, classes=False,
                                                                                   methods_only=True)
        elif site.name in one.rule.library_methods and one.rule.implicit_self:  # Ruby's `respond_to? :x`
            found = None
        else:
            found = self._unique(one, site.name, classes=False, methods=one.rule.implicit_self)
        if found is not None:
            return found.chunk_id, BY_NAME
        return EXTERNAL_PREFIX + described, ""

    def _visible(self, one: _File, name: str, *, classes: bool) -> Chunk | None:
        """The definition a plain name means in this file: its own, then what its imports and its
        package make visible."""
        found = _pick(self.in_file[one.path].get(name, ()), classes, top_level=True)
        if found is not None:
            return found
        for files, original, _ in one.named.get(name, ()):
            found = self._in_files(files, original, classes=classes) or self._reexported(files, original, classes)
            if found is not None:
                return found
        return self._in_files(one.visible_files, name, classes=classes)

    def _reexported(self, files: Iterable[str], name: str, classes: bool, depth: int = _MAX_REEXPORTS) -> Chunk | None:
        """A name a module re-exports: Rust's `pub use self::routing::Router` in lib.rs, TypeScript's
        `export { x } from "./x"` and `export * from "./y"`, followed a few hops."""
        for path in files:
            module = self.files.get(path)
            if module is None or depth <= 0:
                continue
            for inner, original, _ in module.named.get(name, ()):
                found = self._in_files(inner, original, classes=classes) or self._reexported(inner, original, classes,
                                                                                              depth - 1)
                if found is not None:
                    return found
            wildcards = [p for r in module.syntax.imports if r.wildcard and module.rule.imports in ("rust", "js")
                         for p in self._locate(module, r)]
            found = self._in_files(wildcards, name, classes=classes) or self._reexported(wildcards, name, classes,
                                                                                        depth - 1)
            if found is not None:
                return found
        return None

    def _in_files(self, files: Iterable[str], name: str, *, classes: bool) -> Chunk | None:
        for path in files:
            found = _pick(self.in_file.get(path, {}).get(name, ()), classes, top_level=True)
            if found is not None:
                return found
        return None

    def _unique(self, one: _File, name: str, *, classes: bool, methods: bool = False,
                methods_only: bool = False) -> Chunk | None:
        """The one definition of the name in the family (the caller's repository first); None when
        there is none or several. Top-level functions and classes; methods when asked."""
        family = one.rule.family
        candidates = [] if methods_only else [c for c in self.top_level[family].get(name, ())
                                              if not classes or c.kind == "class"]
        if not candidates and (methods or methods_only) and not classes:
            # a method, never a nested type (`PathMonitor.Result` is no `Result`), nor another file's private one
            candidates = [c for c in self.methods[family].get(name, ())
                          if c.kind != "class" and not (c.path != one.path and _PRIVATE.search(c.signature))]
        production = [c for c in candidates if not c.is_test]
        candidates = production or candidates
        if self.labels and len(candidates) > 1:
            mine = self._label(one.path)
            candidates = [c for c in candidates if self._label(c.path) == mine] or candidates
        return candidates[0] if len(candidates) == 1 else None

    def _label(self, path: str) -> str:
        head = path.split("/", 1)[0]
        return head if head in self.labels else ""

    def _own_member(self, one: _File, caller: Chunk | None, name: str, *, skip_own: bool) -> Chunk | None:
        """A method of the caller's class (or its bases'): `this.name()`. The caller's own file first
        (C++'s `Cart::add` beside `Cart::recount`), then the class's file and its members elsewhere."""
        owner = _class_of(caller)
        if not owner:
            return None
        if not skip_own and f"{one.path}::{owner}.{name}" in self.chunk_of:
            return self.chunk_of[f"{one.path}::{owner}.{name}"]
        own = self._own_class(one, caller)
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
                    found = self._member_of(self.chunk_of[class_id], name)
                    if found is not None:
                        return found
                following.extend(self.bases.get(class_id, ()))
            queue = following
        return None

    def _member_named(self, one: _File, owner: str, name: str) -> Chunk | None:
        """`owner.name` defined anywhere in the family: the same file, the same folder, else the only one."""
        short = owner.rpartition(".")[2]
        candidates = self.members[one.rule.family].get((short, name), [])
        if not candidates:
            return None
        here = [c for c in candidates if c.path == one.path]
        folder = posixpath.dirname(one.path)
        near = [c for c in candidates if posixpath.dirname(c.path) == folder]
        if here or near:  # overloads in one file share the first; a package's files hold one type
            return (here or near)[0]
        return candidates[0] if len(candidates) == 1 else None

    def _member_of(self, owner: Chunk, name: str) -> Chunk | None:
        """A member of a class chunk: in its file, then wherever else its type has members."""
        direct = f"{owner.path}::{owner.symbol}.{name}"
        if direct in self.chunk_of:
            return self.chunk_of[direct]
        if owner.kind != "class":
            return None
        candidates = self.members[self.files[owner.path].rule.family].get((_plain_name(owner), name), [])
        folder = posixpath.dirname(owner.path)
        near = [c for c in candidates if posixpath.dirname(c.path) == folder]  # Go's package, C#'s partial class
        # elsewhere, only where no class of that name is declared: C++'s `Cart::add` in src/cart.cpp, never
        # another folder's own `ZodNumber` (zod's v3 beside v4)
        far = [c for c in candidates if c not in near
               and not any(k.kind == "class" for k in self.in_file[c.path].get(_plain_name(owner), ()))]
        for kept in (near, far):
            if len(kept) == 1:
                return kept[0]
        for base in self.bases.get(owner.chunk_id, ())[:_MAX_BASE_DEPTH]:
            found = self.chunk_of.get(f"{base.partition('::')[0]}::{self.chunk_of[base].symbol}.{name}")
            if found is not None:
                return found
        return None

    def _external_name(self, one: _File, name: str) -> str:
        """`useState` imported from react -> `react.useState`; otherwise the name as written."""
        for _, original, record in one.named.get(name, ()):
            return f"{_module_name(record)}{record.separator}{original}" if record.module else original
        return name


def _pick(chunks: Iterable[Chunk], classes: bool, *, top_level: bool) -> Chunk | None:
    for chunk in chunks:
        if (not classes or chunk.kind == "class") and not (top_level and _owner_of(chunk) and chunk.kind != "class"):
            return chunk
    return None


def _class_of(caller: Chunk | None) -> str:
    """The qualified name of the class a chunk is written in (its own, for a class)."""
    if caller is None or caller.kind == "module":
        return ""
    if caller.kind == "class":
        return caller.symbol
    return _owner_of(caller)


def _module_name(record: ImportRecord) -> str:
    """An import's module as an external target's name: `<stdio.h>` -> `stdio.h`."""
    return record.module.strip("<>")
