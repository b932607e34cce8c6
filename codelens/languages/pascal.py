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


# a string with its quotes doubled inside (`'''--min'' must be set'`, `''''`): the grammar reads a string that
# starts with `''` as an empty one and loses the rest of the file
_STRING = re.compile(rb"'(?:[^'\r\n]|'')*'")


def readable_bytes(source: bytes) -> bytes:
    """The bytes the grammar parses: a program's `uses Foo in 'Foo.pas'` read as plain `uses` (its `in '...'`
    parts blanked), and the doubled quotes inside strings as two other characters (the same length)."""
    source = _USES.sub(lambda uses: _IN_FILE.sub(blank, uses.group(0)), source)
    if b"''" not in source:
        return source
    return _STRING.sub(lambda string: b"'" + string.group(0)[1:-1].replace(b"''", b"__") + b"'", source)


LANGUAGE = LanguageRow(
    "pascal", (".pas", ".dpr", ".dpk", ".lpr"), Grammar("tree-sitter-pascal", "tree_sitter_pascal"),
    definitions=(("declType", CLASS), ("defProc", FUNCTION)),
    containers=("unit", "program", "library", "interface", "implementation", "declTypes"),
    preamble=("kUnit", "kProgram", "kLibrary", "moduleName", "kInterface", "kImplementation", "kType",
              "kEnd", "kEndDot", "pp"),
    doc_prefixes=("//", "{", "(*"), test_suffixes=("Test.pas", "Tests.pas"), test_dirs=("dunit", "dunitx"),
    imports=("declUses",), parser_bytes=readable_bytes, graph=RULE,
    # `TCartTest.TestAdd` (DUnit/DUnitX name a test by its fixture class and method)
    conventions=Conventions(test_id=class_and_method("."), throws=("raise",),
                            # a `const` section's `TaxRate = 0.2;` (a literal value: `TCart = class` is a type)
                            constant=r"(?i)^\s*(?:const\s+)?(?P<name>[a-z_]\w*)\s*(?::\s*[\w.]+\s*)?=\s*[-+\d'$#(\[]"),
)
