"""Perl: subs, under the package that a `package Foo::Bar;` statement (up to the next one) or a
`package Foo { ... }` block names; `use Foo::Bar` is the file `Foo/Bar.pm`."""

from __future__ import annotations

from codelens.languages.model import FUNCTION, Conventions, Grammar, GraphRule, LanguageRow

# the builtins a Perl sub calls by name, without parentheses or with
_BUILTINS = ("print", "printf", "say", "die", "warn", "push", "pop", "shift", "unshift", "splice", "keys", "values",
             "each", "delete", "exists", "defined", "scalar", "ref", "bless", "join", "split", "map", "grep",
             "sort", "reverse", "length", "substr", "index", "sprintf", "lc", "uc", "open", "close", "chomp",
             "wantarray", "local", "return", "eval", "sprintf", "abs", "int", "time", "sleep")

RULE = GraphRule(
    "perl", (("function_call_expression", "function"), ("ambiguous_function_call_expression", "function"),
             ("method_call_expression", "")),
    (), (), "perl", self_words=("$self", "$class", "__PACKAGE__"), noise=_BUILTINS,
    # UNIVERSAL's methods, and the copy and text every CPAN object has (HTTP::Request, URI): never matched by name
    library_methods=("new", "can", "isa", "DOES", "VERSION", "clone", "as_string"), name_nodes=("function", "method"),
    imports_members=True,
)


def test_id(path: str, owner: str, name: str) -> str:
    """`t/cart.t` (prove runs a test file; its `subtest` names are its parts): the file, then the subtest."""
    return f"{path} - {name}" if name else path


LANGUAGE = LanguageRow(
    "perl", (".pl", ".pm", ".t"), Grammar("tree-sitter-perl", "tree_sitter_perl"), interpreters=("perl",),
    definitions=(("subroutine_declaration_statement", FUNCTION),),
    owners=("package_statement",),  # `package Foo { ... }`: its subs are Foo's
    scope_statements=("package_statement",),  # `package Foo;`: the subs after it are Foo's
    imports=("use_statement", "require_expression"), doc_prefixes=("#",), comments=("comment", "pod"),
    test_suffixes=(".t",), graph=RULE,
    conventions=Conventions(test_id=test_id, throws=("die", "croak", "confess"),
                            constant=r"^\s*use\s+constant\s+(?P<name>\w+)\s*=>"),
)
