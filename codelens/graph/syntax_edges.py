"""The code graph's edges for every language with a graph rule other than Python: calls,
instantiations (a class is "called" where it is built, as in Python), inherits and imports.

`add_syntax_edges(chunks, sources, languages, sink)` reads each file's syntax tree once
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

from collections.abc import Mapping, Sequence

from codelens.chunk import Chunk
from codelens.graph.scopes import EdgeSink
from codelens.graph.syntax_index import MAX_IMPORTED_FILES, SyntaxFile, SyntaxIndex, external_module
from codelens.graph.syntax_lookup import BY_NAME, NameLookup, class_of
from codelens.graph.syntax_receivers import ReceiverTypes
from codelens.graph.syntax_records import COMPLEX, SELF, SUPER, Site
from codelens.graph.syntax_sites import parse_file, read_syntax
from codelens.ingest.formats import code_language
from codelens.ingest.syntax_source import parser_bytes
from codelens.languages import LanguageRow, grammar_of, graph_rule, row_named

EXTERNAL_PREFIX = "ext:"


def code_languages(sources: Mapping[str, str]) -> dict[str, str]:
    """Each code file's language, by its name or, a script with no extension, by its `#!` line."""
    return {path: language for path, text in sources.items() if (language := code_language(path, text))}


def add_syntax_edges(chunks: Sequence[Chunk], sources: Mapping[str, str], languages: Mapping[str, str],
                     sink: EdgeSink, repository_labels: Sequence[str] = ()) -> None:
    """Calls, inherits and imports edges of every code file in a language with a graph rule (never Python)
    into sink; `languages`: each file's, code_languages(sources)."""
    files = _read_files(sources, languages)
    if not files:
        return
    resolver = _Resolver(files, [c for c in chunks if c.path in files], sources, repository_labels)
    resolver.add_edges(sink)


def _read_files(sources: Mapping[str, str], languages: Mapping[str, str]) -> dict[str, SyntaxFile]:
    files = {}
    for path in sorted(p for p in sources if graph_rule(languages.get(p)) is not None):
        language = languages[path]
        row, rule = row_named(language), graph_rule(language)
        grammar = grammar_of(row, path) if row is not None else None
        if rule is None or grammar is None or row is None:
            continue
        try:
            tree = parse_file(_script_text(row, sources[path]), grammar)
            if tree is not None:
                files[path] = SyntaxFile(path, language, rule, read_syntax(tree, rule))
        except RecursionError:  # absurdly deep code: its nodes stay, its edges are skipped
            continue
    return files


def _script_text(row: LanguageRow, text: str) -> str:
    """What the grammar reads of a file, the chunker's bytes (`LanguageRow.parser_bytes`: a Vue or Svelte
    component's scripts alone, C's bare macros and Rust's item macros blanked), same lines: every site is
    on its chunk's lines."""
    if row.parser_bytes is None:
        return text
    return parser_bytes(row, text.encode("utf-8", "surrogatepass")).decode("utf-8", "surrogatepass")


class _Resolver:
    def __init__(self, files: dict[str, SyntaxFile], chunks: Sequence[Chunk], sources: Mapping[str, str],
                 repository_labels: Sequence[str]) -> None:
        self.index = SyntaxIndex(files, chunks, sources, repository_labels)
        self.lookup = NameLookup(self.index)
        self.receivers = ReceiverTypes(self.index, self.lookup)

    def add_edges(self, sink: EdgeSink) -> None:
        for one in self.index.files.values():  # base classes first: calls on `this` look through them
            for site in one.syntax.sites:
                if site.kind == "inherits":
                    self._add_base(one, site, sink)
        for one in self.index.files.values():
            for site in one.syntax.sites:
                if site.kind != "inherits":
                    owner = self.index.owner(one, site.line)
                    target, via = self._call_target(one, site)
                    if target == owner:  # `convert(a)` calling `convert(a, b)`: an overload, more often than not
                        target = self.lookup.other_overload(owner) or target
                    if target and not (via == BY_NAME and target == owner):  # a name matching its own caller
                        sink.add(owner, target, "calls", site.line, via=via)
            self._add_imports(one, sink)

    def _add_base(self, one: SyntaxFile, site: Site, sink: EdgeSink) -> None:
        owner = self.index.owner(one, site.line)
        implementer = self.lookup.visible(one, site.receiver, classes=True) if site.receiver else None
        owner = implementer.chunk_id if implementer is not None else owner  # Rust: the impl's type inherits
        found = self.lookup.visible(one, site.name, classes=True)
        via = ""
        if found is None:
            found, via = self.lookup.unique(one, site.name, classes=True), BY_NAME
        if found is not None and found.chunk_id != owner:
            sink.add(owner, found.chunk_id, "inherits", site.line, via=via)
            self.index.bases.setdefault(owner, []).append(found.chunk_id)
        elif found is None:
            sink.add(owner, EXTERNAL_PREFIX + self.lookup.external_name(one, site.name), "inherits", site.line)

    def _add_imports(self, one: SyntaxFile, sink: EdgeSink) -> None:
        for record in one.syntax.imports:
            found = self.index.locate(one, record)
            if record.names and not record.wildcard:
                defining = [p for name, _ in record.names for p in found if name in self.index.in_file.get(p, {})]
                found = tuple(dict.fromkeys(defining)) or (found if len(found) == 1 else ())
            for target in found[:MAX_IMPORTED_FILES]:
                if target != one.path:
                    sink.add(one.path, target, "imports", record.line)
            if found or not record.module:
                continue
            if record.names and not record.wildcard:  # `import java.util.List` -> ext:java.util.List
                for name, _ in record.names:
                    sink.add(one.path, f"{EXTERNAL_PREFIX}{external_module(record)}{record.separator}{name}", "imports",
                             record.line)
            else:
                sink.add(one.path, EXTERNAL_PREFIX + external_module(record), "imports", record.line)

    # ------------------------------------------------------------ resolution

    def _call_target(self, one: SyntaxFile, site: Site) -> tuple[str, str]:
        """(target node id, via): a chunk id, or an `ext:` name; ("", "") to drop."""
        caller = self.index.chunk_of.get(self.index.owner(one, site.line))
        if site.receiver in (SELF, SUPER):
            found = self.lookup.own_member(one, caller, site.name, skip_own=site.receiver == SUPER)
            if found is not None:
                return found.chunk_id, ""
            return self._by_name_or_external(one, site, f"{class_of(caller) or 'this'}.{site.name}")
        if site.receiver == "":
            return self._bare(one, caller, site)
        return self._on_receiver(one, caller, site)

    def _bare(self, one: SyntaxFile, caller: Chunk | None, site: Site) -> tuple[str, str]:
        if one.rule.implicit_self and site.kind == "calls":
            found = self.lookup.own_member(one, caller, site.name, skip_own=False)
            if found is not None:
                return found.chunk_id, ""
        found = self.lookup.visible(one, site.name, classes=site.kind == "new")
        if found is not None:
            return found.chunk_id, ""
        if site.kind == "calls" and caller is not None and site.name in self.receivers.types.get(caller.chunk_id, {}):
            return EXTERNAL_PREFIX + site.name, ""  # a parameter or variable holding a function: `request()`
        return self._by_name_or_external(one, site, self.lookup.external_name(one, site.name))

    def _on_receiver(self, one: SyntaxFile, caller: Chunk | None, site: Site) -> tuple[str, str]:
        head, _, rest = site.receiver.partition(".")
        defined_here = self.index.chunk_of.get(f"{one.path}::{site.receiver}.{site.name}")
        if defined_here is not None:  # `M.helper()` beside `function M.helper`; `app.handle()` beside `app.handle =`
            return defined_here.chunk_id, ""
        module_files = self.index.file_modules.get((one.rule.family, head), ()) if not rest else ()
        if module_files:  # 1C's common module: `Налоги.СНалогом()`
            found = self.lookup.in_files(module_files, site.name, classes=False)
            if found is not None:
                return found.chunk_id, ""
        if site.receiver != COMPLEX and head in one.aliases:  # a module: `pkg.Func()`, `x.go()` (`* as x`)
            files, record = one.aliases[head]
            name = rest.rpartition(".")[2] if rest else ""
            found = self.lookup.in_files(files, name or site.name, classes=site.kind == "new" or bool(name))
            if found is not None and name:  # `pkg.Type.Method()`
                found = self.lookup.member_of(found, site.name)
            elif found is None and not name:  # a module that returns a table: Lua's `function M.log`
                members = [c for path in files for c in self.index.in_file.get(path, {}).get(site.name, ())]
                found = members[0] if len(members) == 1 else None
            if found is not None:
                return found.chunk_id, ""
            if not files:  # `fmt.Println`, `path.join`: the module's name stands for the alias
                return f"{EXTERNAL_PREFIX}{external_module(record)}.{rest + '.' if rest else ''}{site.name}", ""
        if site.receiver != COMPLEX:
            typed, via, outside = self.receivers.receiver_type(one, caller, site.receiver)
            if typed is not None:
                member = self.lookup.member_of(typed, site.name)
                if member is not None:
                    return member.chunk_id, via
                if site.name == "new":
                    return typed.chunk_id, via
                return f"{EXTERNAL_PREFIX}{typed.symbol}.{site.name}", ""  # inherited from outside the code
            if outside:  # a variable of a library's type: `t *testing.T` -> ext:testing.T.Run
                return f"{EXTERNAL_PREFIX}{outside}.{site.name}", ""
        qualified = self._qualified_class(one, site.receiver) if site.receiver != COMPLEX else None
        if qualified is not None:  # `MyApp.Repo.insert()`, `Repo.insert()` with `alias MyApp.Repo`: that module's
            member = self.lookup.member_of(qualified, site.name)
            if member is not None:
                return member.chunk_id, ""
        if site.receiver != COMPLEX and not head.startswith(SELF):  # a class's own (static) member: `Ledger.record`
            type_name = site.receiver.rpartition(".")[2]
            found, via = self.lookup.visible(one, type_name, classes=True), ""
            if found is None and type_name[:1].isupper() and one.rule.capitalised_types:
                found, via = self.lookup.unique(one, type_name, classes=True), BY_NAME
                if found is None and head not in one.aliases:  # a library's type (`String::new`): outside the code
                    return EXTERNAL_PREFIX + self.lookup.external_name(one, site.receiver) + f".{site.name}", ""
            if found is not None:
                member = self.lookup.member_of(found, site.name)
                if member is not None:
                    return member.chunk_id, via
                # Ruby's `Foo.new`, Rust's `Foo::new` without a `new` of its own; an enum's variant `Enum::Struct {..}`
                if site.name == "new" or site.kind == "new":
                    return found.chunk_id, via
        described = site.name if site.receiver == COMPLEX else f"{site.receiver}.{site.name}"
        imported = one.named.get(head, []) if site.receiver != COMPLEX else []
        if imported:  # `List.of` with java.util.List imported
            described = f"{self.lookup.external_name(one, head)}.{rest + '.' if rest else ''}{site.name}"
        if head in one.rule.builtins or (imported and not any(files for files, _, _ in imported)):
            return EXTERNAL_PREFIX + described, ""  # a library's object: `import { z } from "zod"`; z.bigint()
        return self._by_name_or_external(one, site, described)

    def _qualified_class(self, one: SyntaxFile, receiver: str) -> Chunk | None:
        """The one class whose qualified name a dotted receiver spells (through a named import of its head)."""
        head, _, rest = receiver.partition(".")
        spelled = [receiver] if rest else []  # a plain `Strings` must be visible: the static branch's job
        spelled += [".".join(filter(None, [record.module, original, rest])) for _, original, record in
                    one.named.get(head, ()) if record.module]
        for name in spelled:
            found = self.index.classes.get((one.rule.family, name), [])
            if len(found) == 1:
                return found[0]
        return None

    def _by_name_or_external(self, one: SyntaxFile, site: Site, described: str) -> tuple[str, str]:
        if site.kind == "new":
            found = self.lookup.unique(one, site.name, classes=True)
        elif site.receiver:  # a method of an object whose type is unknown: only a method can be meant,
            # and never one every object of the language has (`toString`, `to_s`): the library's, most likely
            # (where a file is a module, its procedures are what an object's methods are: OneScript's classes)
            found = None if site.name in one.rule.library_methods else self.lookup.unique(
                one, site.name, classes=False, methods_only=not one.rule.file_modules)
        elif site.name in one.rule.library_methods and one.rule.implicit_self:  # Ruby's `respond_to? :x`
            found = None
        else:
            found = self.lookup.unique(one, site.name, classes=False, methods=one.rule.implicit_self)
        if found is not None:
            return found.chunk_id, BY_NAME
        return EXTERNAL_PREFIX + described, ""
