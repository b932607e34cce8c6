"""Elixir: `defmodule`, `def`, `defp`, `defmacro`... are calls: the definition is named by the call's
first argument; `alias`, `import`, `require`, `use` name modules."""

from __future__ import annotations

from codelens.languages.model import CLASS, FUNCTION, Conventions, Grammar, GraphRule, LanguageRow

DEFINING_CALLS = (
    ("defmodule", CLASS), ("defprotocol", CLASS), ("defimpl", CLASS),
    ("def", FUNCTION), ("defp", FUNCTION), ("defmacro", FUNCTION), ("defmacrop", FUNCTION), ("defguard", FUNCTION),
    ("defguardp", FUNCTION),
    ("defdelegate", FUNCTION),
    # a behaviour's callback, its `@doc` the contract's words (oban's `@callback backoff(Job.t())`: "the number of
    # seconds to wait before retrying a failed job", in no chunk while it was a line of the module's)
    ("@callback", FUNCTION), ("@macrocallback", FUNCTION),
)

RULE = GraphRule(
    "elixir", (("call", "target"),), (), (), "elixir", self_words=("__MODULE__",), implicit_self=True,
    definers=("def", "defp", "defmacro", "defmacrop", "defguard", "defguardp", "defdelegate",
              "defmodule", "defprotocol", "defimpl", "defstruct", "defexception"),
    noise=("def", "defp", "defmacro", "defmacrop", "defguard", "defguardp", "defdelegate",
           "defmodule", "defprotocol", "defimpl", "defstruct", "defexception", "alias", "import",
           "require", "use", "if", "unless", "case", "cond", "with", "for", "fn", "quote",
           "unquote", "raise", "receive", "try", "send", "spawn", "is_nil", "is_binary",
           "is_atom", "is_list", "is_map", "is_integer", "is_function", "elem", "put_elem",
           "length", "map_size", "to_string", "inspect", "__MODULE__", "super", "throw"),
    modules_by_definition=True, imports_members=True, attribute_operator="@",
)


def test_id(path: str, owner: str, name: str) -> str:
    """`test "adds an item"` in `CartTest`: ExUnit reports `test adds an item (CartTest)`."""
    return f"test {name} ({owner})" if owner else f"{path}: test {name}"


LANGUAGE = LanguageRow(
    "elixir", (".ex", ".exs"), Grammar("tree-sitter-elixir", "tree_sitter_elixir"), interpreters=("elixir",),
    # `defmodule`, `def` are calls, `@callback` an attribute: the chunker reads the called name (DEFINING_CALLS)
    definitions=(("call", FUNCTION), ("unary_operator", FUNCTION)), containers=("do_block", "else_block"),
    conditional_calls=("if", "unless"),
    doc_prefixes=("#",),
    doc_attributes=("doc", "typedoc"), class_doc_attribute="moduledoc", clauses=True,
    test_suffixes=("_test.exs",), defining_calls=DEFINING_CALLS, graph=RULE,
    # a module attribute (`@timeout 5_000`) is Elixir's compile-time constant
    conventions=Conventions(test_id=test_id, throws=("raise", "throw", "exit"), delegating=r"\s*defdelegate\b",
                            declared_by=r"^\s*@(?:macro)?callback\b",
                            constant=r"^\s*@(?!doc\b|moduledoc\b|spec\b|impl\b|callback\b|type\b)(?P<name>[a-z_]\w*)\s+\S"),
)
