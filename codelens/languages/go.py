"""Go: functions, methods under their receiver's type, struct, interface and documented named types; a
package is its folder (its files see each other's names), imported by its module path (go.mod)."""

from __future__ import annotations

import posixpath

from codelens.languages.model import CLASS, FUNCTION, Conventions, Grammar, GraphRule, LanguageRow
from codelens.languages.shared import LINE_DOCS

_NOISE = ("append", "cap", "clear", "close", "complex", "copy", "delete", "imag", "len", "make", "max", "min",
          "new", "panic", "print", "println", "real", "recover", "string", "int", "int8", "int16", "int32",
          "int64", "uint", "uint8", "uint16", "uint32", "uint64", "uintptr", "float32", "float64", "byte",
          "rune", "bool", "error", "any")

RULE = GraphRule(
    "go", (("call_expression", "function"),), (("composite_literal", "type"),), (), "go",
    self_words=(), package_scope=True, receiver_of="method_declaration", noise=_NOISE,
    library_methods=("Error", "String", "Close", "Read", "Write", "Set", "Get", "Add", "Del",
                     "Header", "Run", "Len", "Lock", "Unlock", "RLock", "RUnlock", "Done", "Err",
                     "Value", "Wait", "Load", "Store", "Reset", "Flush", "Next", "Scan", "Bytes"),
    typed=(("parameter_declaration", "name", "type"), ("field_declaration", "name", "type"),
           ("var_spec", "name", "type")),
    assigned=(("short_var_declaration", "left", "right"), ("var_spec", "name", "value")),
)


def _standard(top: str) -> bool:
    return "." not in top.split("/")[0]  # third-party Go paths start with a domain


def test_id(path: str, owner: str, name: str) -> str:
    """`./internal/store -run ^TestSave$` reads as `internal/store.TestSave`: the package's folder and
    the test function (a Go test belongs to its package, never to a type)."""
    folder = posixpath.dirname(path) or "."
    return f"{folder}.{name}"


LANGUAGE = LanguageRow(
    "go", (".go",), Grammar("tree-sitter-go", "tree_sitter_go"),
    # a `type` declaration is a class when it declares a struct or an interface, or another type its doc
    # comment describes or the file gives methods (the chunker checks)
    # and a `var` declaration is a function when it declares one name with a function literal (echo's
    # `var methodNotAllowedHandler = func(c Context) error {...}`)
    definitions=(("function_declaration", FUNCTION), ("method_declaration", FUNCTION),
                 ("type_declaration", CLASS), ("type_spec", CLASS), ("var_declaration", FUNCTION)),
    containers=("type_declaration",),  # a grouped `type ( ... )`: each struct or interface in it
    # a `/* ... */` block directly above a definition is its doc as well (echo's `RateLimiterWithConfig`)
    preamble=("package_clause",), doc_prefixes=(*LINE_DOCS, "/*"),
    test_suffixes=("_test.go", "_mock.go", "_mocks.go"),
    # a hand-written mock is test support, in a `_mock.go` file or a `mocks/` package (afero's `gcs_mocks.go`
    # ranked beside the code it fakes); mockgen's are generated (`DO NOT EDIT`)
    test_dirs=("testdata", "mocks"),
    # stringer's `kind_string.go` carries its DO NOT EDIT mark; a hand-written `flag_string.go` (urfave/cli) is code
    generated_suffixes=(".pb.go", ".pb.gw.go", "_gen.go"),
    imports=("import_declaration",), is_standard_import=_standard, graph=RULE,
    typed_constants=("type_declaration", "const_declaration"),
    conventions=Conventions(test_id=test_id, throws=("panic",),
                            constant=r"^\s*const\s+(?P<name>\w+)",
                            # an interface, and a function type (`type BuildVarsFunc func(map[string]string)
                            # map[string]string`: a callback's signature, what other code implements)
                            bodiless=True, contract=r"\s*(?:type\s+)?\w+(?:\[[^\]]*\])?\s+(?:interface|func)\b",
                            describing=("String", "GoString", "Error", "Format"),
                            # Go names a getter for what it returns (`DriverName()`, not `GetDriverName()`): any
                            # method whose body only returns a field (`return db.driverName`) or stores one
                            getter=r"\w"),
)
