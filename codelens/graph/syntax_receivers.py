"""The type of a receiver in a language other than Python: which class `repo` in `repo.save()`
holds, through the types declared where the caller sees them (its own chunk, the chunks around it,
the file), a class's fields (`this.repo`), and chains of them (`c.Request.Header`).

Internal to `codelens.graph.syntax_edges`. Apart from the lookups it asks (`syntax_lookup`): this
module keeps the table of declared types and follows it; a type outside the codebase comes back as
its external name (`testing.T`), a library's call as what it returns (`net/http/httptest.NewRecorder()`).
"""

from __future__ import annotations

from collections import defaultdict

from codelens.chunk import Chunk
from codelens.graph.syntax_index import SyntaxFile, SyntaxIndex, external_module, plain_name
from codelens.graph.syntax_lookup import BY_NAME, NameLookup
from codelens.graph.syntax_records import SELF, Declared

_CONSTRUCTORS = frozenset({"constructor", "__construct", "init", "initialize", "new"})


class ReceiverTypes:
    """The declared types of one graph's files, by the chunk (or file) that declares them."""

    def __init__(self, index: SyntaxIndex, lookup: NameLookup) -> None:
        self.index = index
        self.lookup = lookup
        self.types: dict[str, dict[str, Declared]] = defaultdict(dict)  # chunk id (or file) -> name -> type
        for one in index.files.values():
            for declared in one.syntax.declared:
                known = self.types[index.owner(one, declared.line)]
                if declared.name not in known or (declared.explicit and not known[declared.name].explicit):
                    known[declared.name] = declared

    def receiver_type(self, one: SyntaxFile, caller: Chunk | None, receiver: str) -> tuple[Chunk | None, str, str]:
        """The class a receiver's value is an instance of, through declared types and fields
        (`repo.save()`, `this.repo.save()`, `c.Request.Header.Set()`): (class chunk, via, "");
        (None, "", type name) for a type outside the codebase; (None, "", "") when unknown."""
        parts = receiver.split(".")
        if parts[0] == SELF:
            current = self.lookup.own_class(one, caller)
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
            current, step_via, outside = self._type_class(self.index.files[current.path], declared)
            if current is None:
                return None, "", outside
            via = via or step_via
        return current, via, ""

    def _local_type(self, one: SyntaxFile, caller: Chunk | None, name: str) -> Declared | None:
        """A name's declared type where the caller sees it: its own chunk, the chunks around it, the
        file; then, where a bare name may be a field (Java, C#, Kotlin), its class's fields."""
        scopes = [caller.chunk_id] if caller is not None else []
        if caller is not None and caller.kind != "module":
            symbol = caller.symbol
            while "." in symbol:  # a function nested in a function sees its names (a class's fields: below)
                symbol = symbol.rpartition(".")[0]
                around = self.index.chunk_of.get(f"{caller.path}::{symbol}")
                if around is not None and around.kind != "class":
                    scopes.append(around.chunk_id)
        scopes += [self.index.module_chunk.get(one.path, ""), one.path]
        for scope in scopes:
            found = self.types.get(scope, {}).get(name)
            if found is not None:
                return found
        own = self.lookup.own_class(one, caller) if one.rule.implicit_self else None
        return self._field_type(own, name) if own is not None else None

    def _field_type(self, owner: Chunk, name: str) -> Declared | None:
        """A field's type: declared in the class's body, set on the object itself in a member
        (`this.repo = new Repo()`), or a constructor's parameter property (`constructor(private repo: Repo)`)."""
        found = self.types.get(owner.chunk_id, {}).get(name)
        if found is not None:
            return found
        for member_id in self.index.class_members.get(owner.chunk_id, ()):
            known = self.types.get(member_id, {})
            found = known.get(f"{SELF}.{name}")
            if found is None and plain_name(self.index.chunk_of[member_id]) in _CONSTRUCTORS:
                found = known.get(name)
            if found is not None:
                return found
        return None

    def _type_class(self, one: SyntaxFile, declared: Declared) -> tuple[Chunk | None, str, str]:
        """The class chunk a declared type names: (chunk, via, ""), (None, "", external name), or all empty."""
        if declared.called:
            return None, "", self._library_call(one, declared)
        if declared.qualifier:
            head = declared.qualifier.partition(".")[0]
            if head in one.aliases:
                files, record = one.aliases[head]
                found = self.lookup.in_files(files, declared.type_name, classes=True)
                if found is not None:
                    return found, "", ""
                return None, "", "" if files else f"{external_module(record)}.{declared.type_name}"
        found = self.lookup.visible(one, declared.type_name, classes=True)
        if found is not None:
            return found, "", ""
        found = self.lookup.unique(one, declared.type_name, classes=True)
        if found is not None:
            return found, BY_NAME, ""
        if not declared.explicit:
            return None, "", ""
        qualifier = f"{self.lookup.external_name(one, declared.qualifier)}." if declared.qualifier else ""
        return None, "", qualifier + self.lookup.external_name(one, declared.type_name)

    def _library_call(self, one: SyntaxFile, declared: Declared) -> str:
        """`httptest.NewRecorder()` with httptest a library's package, or a name nothing in the codebase
        defines (`fetch()`): what its value is called as an external (`net/http/httptest.NewRecorder()`);
        "" when the callee may be the codebase's own (its return type is not known)."""
        head = declared.qualifier.partition(".")[0]
        if head in one.aliases and not one.aliases[head][0]:
            return f"{external_module(one.aliases[head][1])}.{declared.type_name}()"
        if declared.qualifier or declared.type_name in self.index.top_level[one.rule.family] \
                or declared.type_name in self.index.methods[one.rule.family] or head in one.named:
            return ""
        return f"{declared.type_name}()"
