"""Object Pascal / Delphi: a unit's `interface` and `implementation` are looked through; a type
declaring a class, record or interface is a class (its members' declarations are its outline),
`procedure TFoo.Bar` in the implementation is a method of TFoo."""

from __future__ import annotations

import re

from codelens.languages.model import CLASS, FUNCTION, Conventions, Grammar, GraphRule, LanguageRow, class_and_method
from codelens.languages.shared import blank

_NOISE = ("WriteLn", "Write", "ReadLn", "Read", "Inc", "Dec", "Length", "SetLength", "Low", "High", "Ord", "Chr",
          "Assigned", "FreeAndNil", "Format", "IntToStr", "StrToInt", "StrToIntDef", "FloatToStr", "Exit",
          "Copy", "Pos", "Trim", "UpperCase", "LowerCase", "SameText", "SizeOf", "Move", "FillChar", "Include",
          "Exclude", "Succ", "Pred", "Abs", "Round", "Trunc", "Sqr", "Sqrt", "Random", "Halt", "Assert",
          "inherited")

# `Foo(x)`, `Obj.Bar(x)`, `Self.Baz`, `TThing.Create(x)` (a constructor is its class's method);
# a call without parentheses (`Result.Save;`) is no call node in the grammar, and no edge
RULE = GraphRule("pascal", (("exprCall", "entity"),), (), (), "", self_words=("Self",), implicit_self=True,
                 noise=_NOISE, library_methods=("Free", "Create", "Destroy", "Add", "Clear", "Delete",
                                                "IndexOf", "Assign", "ToString", "Count"))

_USES = re.compile(rb"\buses\b[^;]*;", re.I)
_IN_FILE = re.compile(rb"[ \t\r\n]+in[ \t\r\n]+'[^'\r\n]*'", re.I)


def without_uses_paths(source: bytes) -> bytes:
    """A program's `uses Foo in 'Foo.pas'`: the `in '...'` parts blanked (the grammar reads plain `uses`)."""
    return _USES.sub(lambda uses: _IN_FILE.sub(blank, uses.group(0)), source)


LANGUAGE = LanguageRow(
    "pascal", (".pas", ".dpr", ".dpk", ".lpr"), Grammar("tree-sitter-pascal", "tree_sitter_pascal"),
    definitions=(("declType", CLASS), ("defProc", FUNCTION)),
    containers=("unit", "program", "library", "interface", "implementation", "declTypes"),
    preamble=("kUnit", "kProgram", "kLibrary", "moduleName", "kInterface", "kImplementation", "kType",
              "kEnd", "kEndDot", "pp"),
    doc_prefixes=("//", "{", "(*"), test_suffixes=("Test.pas", "Tests.pas"), test_dirs=("dunit", "dunitx"),
    imports=("declUses",), parser_bytes=without_uses_paths, graph=RULE,
    # `TCartTest.TestAdd` (DUnit/DUnitX name a test by its fixture class and method)
    conventions=Conventions(test_id=class_and_method("."), throws=("raise",),
                            # a `const` section's `TaxRate = 0.2;` (a literal value: `TCart = class` is a type)
                            constant=r"(?i)^\s*(?:const\s+)?(?P<name>[a-z_]\w*)\s*(?::\s*[\w.]+\s*)?=\s*[-+\d'$#(\[]"),
)
