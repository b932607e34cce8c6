"""The languages CodeLens reads as code: one row each (extensions, grammar, node types).

Pure data and pure functions of a path: the chunker (`ingest/syntax.py`), the code graph, test
and generated-file detection and highlighting read this table; nothing here imports a grammar.
Python keeps its `ast` path (`ingest/chunker.py`); its row says what the other readers need.
Adding a language is a row here (and, where its grammar needs one, a small rule in the chunker).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath

FUNCTION = "function"  # a method when it sits in a class (or under its type: Go receiver, Rust impl)
CLASS = "class"  # classes, interfaces, structs, traits, enums, objects, modules (Ruby): what holds members


@dataclass(frozen=True)
class Grammar:
    """Where a tree-sitter grammar comes from: the wheel to install and the function that returns it."""

    package: str  # the PyPI distribution (`tree-sitter-go`): what an error tells the user to install
    module: str  # the import name (`tree_sitter_go`)
    function: str = "language"  # `tree_sitter_typescript.language_tsx`


@dataclass(frozen=True)
class LanguageRow:
    """One language: how its files are recognised and what its syntax tree's node types mean."""

    name: str  # the `language` a hit carries and `--lang` takes: python, typescript, go...
    extensions: tuple[str, ...]  # lower-case suffixes with the dot
    grammar: Grammar | None  # None: read by Python's ast (python) or by the plain-text chunker
    file_names: tuple[str, ...] = ()  # exact lower-case file names (`rakefile`)
    grammar_by_suffix: tuple[tuple[str, Grammar], ...] = ()  # `.tsx` -> the TSX grammar
    # node type -> FUNCTION or CLASS: the definitions that become chunks (a CLASS holds members)
    definitions: tuple[tuple[str, str], ...] = ()
    # node types looked through for definitions: bodies, namespaces, packages, `export`, templates
    containers: tuple[str, ...] = ()
    # node types whose definitions go under a type they name, and are no chunk themselves:
    # Rust's `impl`, Swift's `extension` (the chunker reads the type's name)
    owners: tuple[str, ...] = ()
    # top-level node types that are no <module> statement: package clauses, `<?php`
    preamble: tuple[str, ...] = ()
    # a run of lines directly above a definition that start with one of these is its doc comment
    doc_prefixes: tuple[str, ...] = ()
    lead_prefixes: tuple[str, ...] = ()  # lines above a definition that belong to it: Rust's `#[derive]`
    comments: tuple[str, ...] = ("comment",)  # node types of comments (never a <module> statement)
    # test code: file names ending so (case-sensitive), folders named so (lower-case, any depth)
    test_suffixes: tuple[str, ...] = ()
    test_dirs: tuple[str, ...] = ()
    generated_suffixes: tuple[str, ...] = ()  # `.pb.go`: written by a tool, never read
    calls: tuple[str, ...] = ()  # node types of calls (the code graph)
    imports: tuple[str, ...] = ()  # node types of imports (the code graph; never a <module> statement)
    # a single-file component (Vue, Svelte): only its `<script>` blocks are code, read by the grammar
    # where they stand in the file; the markup around them is its `<template>` text piece
    sfc: bool = False

    def kind_of(self, node_type: str) -> str | None:
        return dict(self.definitions).get(node_type)


PYTHON = "python"

_C_STYLE_DOCS = ("/**", "/*!", "///", "*", "*/")  # Javadoc, JSDoc, KDoc, Doxygen, `///`
_LINE_DOCS = ("//",)  # Go, C, C++: a `//` run above a definition documents it
_JS_TESTS = (".test.ts", ".spec.ts", ".test.tsx", ".spec.tsx", ".test.js", ".spec.js", ".test.jsx",
             ".spec.jsx", ".test.mjs", ".spec.mjs", ".test.cjs", ".spec.cjs", ".e2e.ts")
_JS_TEST_DIRS = ("__tests__", "__mocks__", "spec", "e2e", "cypress")
_JS_CLASSES = (("class_declaration", CLASS), ("abstract_class_declaration", CLASS),
               ("interface_declaration", CLASS), ("enum_declaration", CLASS),
               # `type Options = {...}` over several lines is an interface by another syntax (the chunker checks)
               ("type_alias_declaration", CLASS))
_JS_FUNCTIONS = (("function_declaration", FUNCTION), ("generator_function_declaration", FUNCTION),
                 ("method_definition", FUNCTION), ("method_signature", FUNCTION),
                 ("abstract_method_signature", FUNCTION), ("function_signature", FUNCTION),
                 # `const f = () => ...` and `handler = (e) => ...`: the chunker keeps only function values
                 ("lexical_declaration", FUNCTION), ("variable_declaration", FUNCTION),
                 ("public_field_definition", FUNCTION), ("field_definition", FUNCTION),
                 # `res.status = function status(code) {...}`: the chunker keeps only function values
                 ("expression_statement", FUNCTION))
_JS_CONTAINERS = ("export_statement", "class_body", "interface_body", "object_type", "internal_module",
                  "module", "statement_block", "ambient_declaration", "expression_statement")
_JS_CALLS = ("call_expression", "new_expression")
_JS_IMPORTS = ("import_statement",)
_TS = Grammar("tree-sitter-typescript", "tree_sitter_typescript", "language_typescript")
_TSX = Grammar("tree-sitter-typescript", "tree_sitter_typescript", "language_tsx")
_C_DEFINITIONS = (("function_definition", FUNCTION), ("struct_specifier", CLASS), ("union_specifier", CLASS),
                  ("enum_specifier", CLASS), ("type_definition", CLASS))
_C_CONTAINERS = ("preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif", "linkage_specification",
                 "declaration_list", "declaration")
# A component's script: JavaScript's definitions, and its options object (`export default {...}`,
# `defineComponent({...})`) a class named after the file whose `data()`, `methods: {...}`, `computed: {...}`
# functions are its methods (the chunker checks the object and the function values)
_SFC_DEFINITIONS = (*_JS_CLASSES, *_JS_FUNCTIONS, ("export_statement", CLASS), ("pair", FUNCTION))
_SFC_CONTAINERS = (*_JS_CONTAINERS, "object", "pair", "call_expression", "arguments")
_SFC_TESTS = (".spec.vue", ".test.vue", ".spec.svelte", ".test.svelte")
_C_TESTS = ("_test.c", "_test.cc", "_test.cpp", "_unittest.cc", "_unittest.cpp", "_tests.cpp", "Test.cpp")

LANGUAGES: tuple[LanguageRow, ...] = (
    LanguageRow(PYTHON, (".py",), None, calls=("call",), imports=("import_statement", "import_from_statement"),
                doc_prefixes=("#",), generated_suffixes=("_pb2.py", "_pb2_grpc.py")),  # protoc's Python
    LanguageRow(
        "typescript", (".ts", ".mts", ".cts", ".tsx"), _TS, grammar_by_suffix=((".tsx", _TSX),),
        definitions=_JS_CLASSES + _JS_FUNCTIONS, containers=_JS_CONTAINERS, doc_prefixes=_C_STYLE_DOCS,
        test_suffixes=_JS_TESTS, test_dirs=_JS_TEST_DIRS, calls=_JS_CALLS, imports=_JS_IMPORTS,
    ),
    LanguageRow(
        "javascript", (".js", ".mjs", ".cjs", ".jsx"), Grammar("tree-sitter-javascript", "tree_sitter_javascript"),
        definitions=_JS_CLASSES + _JS_FUNCTIONS, containers=_JS_CONTAINERS, doc_prefixes=_C_STYLE_DOCS,
        test_suffixes=_JS_TESTS, test_dirs=_JS_TEST_DIRS, calls=_JS_CALLS, imports=_JS_IMPORTS,
    ),
    LanguageRow(
        "go", (".go",), Grammar("tree-sitter-go", "tree_sitter_go"),
        # a `type` declaration is a class when it declares a struct or an interface (the chunker checks)
        definitions=(("function_declaration", FUNCTION), ("method_declaration", FUNCTION),
                     ("type_declaration", CLASS)),
        preamble=("package_clause",), doc_prefixes=_LINE_DOCS, test_suffixes=("_test.go",),
        test_dirs=("testdata",), generated_suffixes=(".pb.go", ".pb.gw.go", "_gen.go", "_string.go"),
        calls=("call_expression",), imports=("import_declaration",),
    ),
    LanguageRow(
        "java", (".java",), Grammar("tree-sitter-java", "tree_sitter_java"),
        definitions=(("class_declaration", CLASS), ("interface_declaration", CLASS), ("enum_declaration", CLASS),
                     ("record_declaration", CLASS), ("annotation_type_declaration", CLASS),
                     ("method_declaration", FUNCTION), ("constructor_declaration", FUNCTION),
                     ("compact_constructor_declaration", FUNCTION)),
        containers=("class_body", "interface_body", "enum_body", "enum_body_declarations",
                    "annotation_type_body"),
        preamble=("package_declaration",), comments=("line_comment", "block_comment"),
        doc_prefixes=_C_STYLE_DOCS, test_suffixes=("Test.java", "Tests.java", "IT.java", "TestCase.java"),
        calls=("method_invocation", "object_creation_expression"), imports=("import_declaration",),
    ),
    LanguageRow(
        "kotlin", (".kt", ".kts"), Grammar("tree-sitter-kotlin", "tree_sitter_kotlin"),
        definitions=(("class_declaration", CLASS), ("object_declaration", CLASS), ("companion_object", CLASS),
                     ("function_declaration", FUNCTION), ("secondary_constructor", FUNCTION)),
        containers=("class_body", "enum_class_body"),
        preamble=("package_header",), comments=("line_comment", "block_comment"),
        doc_prefixes=_C_STYLE_DOCS, test_suffixes=("Test.kt", "Tests.kt", "Spec.kt"),
        calls=("call_expression",), imports=("import", "import_header"),
    ),
    LanguageRow(
        "csharp", (".cs",), Grammar("tree-sitter-c-sharp", "tree_sitter_c_sharp"),
        definitions=(("class_declaration", CLASS), ("struct_declaration", CLASS), ("interface_declaration", CLASS),
                     ("enum_declaration", CLASS), ("record_declaration", CLASS),
                     ("method_declaration", FUNCTION), ("constructor_declaration", FUNCTION),
                     ("destructor_declaration", FUNCTION), ("operator_declaration", FUNCTION),
                     ("local_function_statement", FUNCTION)),
        containers=("namespace_declaration", "file_scoped_namespace_declaration", "declaration_list"),
        doc_prefixes=("///", *_C_STYLE_DOCS), test_suffixes=("Tests.cs", "Test.cs"),
        calls=("invocation_expression", "object_creation_expression"), imports=("using_directive",),
    ),
    LanguageRow(
        "rust", (".rs",), Grammar("tree-sitter-rust", "tree_sitter_rust"),
        definitions=(("function_item", FUNCTION), ("function_signature_item", FUNCTION), ("struct_item", CLASS),
                     ("enum_item", CLASS), ("union_item", CLASS), ("trait_item", CLASS),
                     ("macro_definition", FUNCTION)),
        containers=("mod_item", "declaration_list"), owners=("impl_item",),
        preamble=("attribute_item", "inner_attribute_item"), lead_prefixes=("#[",),
        comments=("line_comment", "block_comment"), doc_prefixes=("///", "//!", "/**", "*", "*/"),
        test_dirs=("benches",), calls=("call_expression", "macro_invocation"), imports=("use_declaration",),
    ),
    LanguageRow(
        "c", (".c", ".h"), Grammar("tree-sitter-c", "tree_sitter_c"),
        # a `.h` may be C or C++: the C++ grammar reads both, so headers are parsed with it
        grammar_by_suffix=((".h", Grammar("tree-sitter-cpp", "tree_sitter_cpp")),),
        definitions=(*_C_DEFINITIONS, ("class_specifier", CLASS)),
        containers=(*_C_CONTAINERS, "namespace_definition", "template_declaration", "field_declaration_list"),
        doc_prefixes=_LINE_DOCS + _C_STYLE_DOCS + ("/*",), test_suffixes=_C_TESTS,
        calls=("call_expression",), imports=("preproc_include",),
    ),
    LanguageRow(
        "cpp", (".cpp", ".cc", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".h++", ".ipp", ".tpp", ".inl"),
        Grammar("tree-sitter-cpp", "tree_sitter_cpp"),
        definitions=(*_C_DEFINITIONS, ("class_specifier", CLASS)),
        containers=(*_C_CONTAINERS, "namespace_definition", "template_declaration", "field_declaration_list"),
        doc_prefixes=_LINE_DOCS + _C_STYLE_DOCS + ("/*",), test_suffixes=_C_TESTS,
        calls=("call_expression",), imports=("preproc_include", "using_declaration"),
    ),
    LanguageRow(
        "ruby", (".rb", ".rake", ".gemspec"), Grammar("tree-sitter-ruby", "tree_sitter_ruby"),
        file_names=("rakefile", "gemfile"),
        definitions=(("class", CLASS), ("module", CLASS), ("singleton_class", CLASS), ("method", FUNCTION),
                     ("singleton_method", FUNCTION)),
        containers=("body_statement",), doc_prefixes=("#",), test_suffixes=("_spec.rb", "_test.rb"),
        test_dirs=("spec",), calls=("call",), imports=(),
    ),
    LanguageRow(
        "php", (".php",), Grammar("tree-sitter-php", "tree_sitter_php", "language_php"),
        definitions=(("class_declaration", CLASS), ("interface_declaration", CLASS), ("trait_declaration", CLASS),
                     ("enum_declaration", CLASS), ("function_definition", FUNCTION),
                     ("method_declaration", FUNCTION)),
        containers=("namespace_definition", "compound_statement", "declaration_list", "enum_declaration_list"),
        preamble=("php_tag", "text", "namespace_definition", "declare_statement"),
        doc_prefixes=(*_C_STYLE_DOCS, "//", "#"),
        test_suffixes=("Test.php",), calls=("function_call_expression", "member_call_expression",
                                             "scoped_call_expression", "object_creation_expression"),
        imports=("namespace_use_declaration",),
    ),
    LanguageRow(
        "swift", (".swift",), Grammar("tree-sitter-swift", "tree_sitter_swift"),
        definitions=(("class_declaration", CLASS), ("protocol_declaration", CLASS),
                     ("function_declaration", FUNCTION), ("init_declaration", FUNCTION),
                     ("deinit_declaration", FUNCTION), ("protocol_function_declaration", FUNCTION),
                     ("subscript_declaration", FUNCTION)),
        containers=("class_body", "protocol_body", "enum_class_body"),
        doc_prefixes=_C_STYLE_DOCS, comments=("comment", "multiline_comment"),
        test_suffixes=("Tests.swift", "Test.swift"), calls=("call_expression",), imports=("import_declaration",),
    ),
    LanguageRow(
        "scala", (".scala", ".sc"), Grammar("tree-sitter-scala", "tree_sitter_scala"),
        definitions=(("class_definition", CLASS), ("object_definition", CLASS), ("trait_definition", CLASS),
                     ("enum_definition", CLASS), ("function_definition", FUNCTION),
                     ("function_declaration", FUNCTION)),
        containers=("template_body", "package_object", "enum_body"),
        preamble=("package_clause",), comments=("comment", "block_comment"), doc_prefixes=_C_STYLE_DOCS,
        test_suffixes=("Spec.scala", "Test.scala", "Suite.scala", "Tests.scala"),
        calls=("call_expression",), imports=("import_declaration",),
    ),
    LanguageRow(
        "dart", (".dart",), Grammar("tree-sitter-dart", "tree_sitter_dart"),
        # a Dart function is its signature and the function_body beside it (the chunker joins them)
        definitions=(("class_definition", CLASS), ("mixin_declaration", CLASS), ("extension_declaration", CLASS),
                     ("enum_declaration", CLASS), ("function_signature", FUNCTION), ("method_signature", FUNCTION)),
        containers=("class_body", "extension_body", "enum_body"), preamble=("function_body",),
        comments=("comment", "documentation_comment"), doc_prefixes=("///", *_C_STYLE_DOCS),
        test_suffixes=("_test.dart",), generated_suffixes=(".g.dart", ".freezed.dart", ".pb.dart"),
        imports=("import_or_export",),
    ),
    LanguageRow(
        "elixir", (".ex", ".exs"), Grammar("tree-sitter-elixir", "tree_sitter_elixir"),
        # `defmodule`, `def` are calls: the chunker reads the called name (`syntax._ELIXIR_DEFINITIONS`)
        definitions=(("call", FUNCTION),), containers=("do_block",), doc_prefixes=("#",),
        test_suffixes=("_test.exs",), calls=("call",),
    ),
    LanguageRow(
        "haskell", (".hs",), Grammar("tree-sitter-haskell", "tree_sitter_haskell"),
        # a function is its type signature and its equations, siblings the chunker joins
        definitions=(("signature", FUNCTION), ("function", FUNCTION), ("data_type", CLASS), ("newtype", CLASS),
                     ("class", CLASS), ("instance", CLASS)),
        containers=("declarations", "class_declarations", "instance_declarations"),
        preamble=("header",), comments=("comment", "haddock"), doc_prefixes=("--",),
        test_suffixes=("Spec.hs", "Test.hs"), calls=("apply",), imports=("imports",),
    ),
    LanguageRow(
        "lua", (".lua",), Grammar("tree-sitter-lua", "tree_sitter_lua"),
        definitions=(("function_declaration", FUNCTION),),
        doc_prefixes=("--",), test_suffixes=("_spec.lua", "_test.lua"), calls=("function_call",),
    ),
    LanguageRow(
        # 1C:Enterprise modules (`.bsl`) and OneScript (`.os`): procedures and functions, Russian or English
        # keywords; a module is its file (`CommonModules/ОбщегоНазначения/Ext/Module.bsl`). `#Область`
        # regions and `&НаСервере` annotations are preprocessor nodes: no statements; an annotation
        # belongs to the definition below it
        "bsl", (".bsl", ".os"), Grammar("tree-sitter-bsl", "tree_sitter_bsl"),
        definitions=(("procedure_definition", FUNCTION), ("function_definition", FUNCTION)),
        preamble=("preprocessor",), comments=("line_comment",), doc_prefixes=("//",), lead_prefixes=("&",),
        calls=("method_call",),
    ),
    LanguageRow(
        # Object Pascal / Delphi: a unit's `interface` and `implementation` are looked through; a type
        # declaring a class, record or interface is a class (its members' declarations are its outline),
        # `procedure TFoo.Bar` in the implementation is a method of TFoo
        "pascal", (".pas", ".dpr", ".dpk", ".lpr"), Grammar("tree-sitter-pascal", "tree_sitter_pascal"),
        definitions=(("declType", CLASS), ("defProc", FUNCTION)),
        containers=("unit", "program", "library", "interface", "implementation", "declTypes"),
        preamble=("kUnit", "kProgram", "kLibrary", "moduleName", "kInterface", "kImplementation", "kType",
                  "kEnd", "kEndDot", "pp"),
        doc_prefixes=("//", "{", "(*"), test_suffixes=("Test.pas", "Tests.pas"), test_dirs=("dunit", "dunitx"),
        calls=("exprCall",), imports=("declUses",),
    ),
    LanguageRow(
        "vue", (".vue",), _TS, sfc=True, definitions=_SFC_DEFINITIONS, containers=_SFC_CONTAINERS,
        doc_prefixes=_C_STYLE_DOCS, test_suffixes=_SFC_TESTS, test_dirs=_JS_TEST_DIRS, calls=_JS_CALLS,
        imports=_JS_IMPORTS,
    ),
    LanguageRow(
        "svelte", (".svelte",), _TS, sfc=True, definitions=_SFC_DEFINITIONS, containers=_SFC_CONTAINERS,
        doc_prefixes=_C_STYLE_DOCS, test_suffixes=_SFC_TESTS, test_dirs=_JS_TEST_DIRS, calls=_JS_CALLS,
        imports=_JS_IMPORTS,
    ),
)

_BY_SUFFIX = {suffix: row for row in LANGUAGES for suffix in row.extensions}
_BY_FILE_NAME = {name: row for row in LANGUAGES for name in row.file_names}
_BY_NAME = {row.name: row for row in LANGUAGES}


def language_row(rel_path: str) -> LanguageRow | None:
    """The row of a code file, by its name or suffix; None for anything that is not code."""
    name = rel_path.rsplit("/", 1)[-1].lower()  # string work, not PurePosixPath: every hit asks (Chunk.language)
    dot = name.rfind(".")
    suffix = name[dot:] if 0 < dot < len(name) - 1 else ""  # what PurePosixPath.suffix says
    return _BY_FILE_NAME.get(name) or _BY_SUFFIX.get(suffix)


def language_of(rel_path: str) -> str | None:
    """`web/src/api/client.ts` -> "typescript"; None for documents, configuration and the rest."""
    row = language_row(rel_path)
    return row.name if row is not None else None


def row_named(name: str) -> LanguageRow | None:
    return _BY_NAME.get(name.lower())


def language_names() -> tuple[str, ...]:
    return tuple(row.name for row in LANGUAGES)


def grammar_for(rel_path: str) -> Grammar | None:
    """The grammar a file is parsed with (`.tsx` has its own), None without one."""
    row = language_row(rel_path)
    if row is None:
        return None
    suffix = PurePosixPath(rel_path.lower()).suffix
    return dict(row.grammar_by_suffix).get(suffix, row.grammar)


def is_language_test_path(rel_path: str) -> bool:
    """Test code by its language's conventions (`*_test.go`, `*.spec.ts`, `__tests__/`, `*Test.java`);
    Python's own rules are `ingest/chunker.is_test_path`'s."""
    row = language_row(rel_path)
    if row is None or row.name == PYTHON:
        return False
    path = PurePosixPath(rel_path)
    if path.name.endswith(row.test_suffixes):
        return True
    folders = [part.lower() for part in path.parts[:-1]]
    # C#'s `Dapper.Tests/` and Swift's `Tests/`: a test project's folder
    return any(part in row.test_dirs or part in ("test", "tests") or part.endswith((".tests", ".test"))
               for part in folders)


def is_generated_path(rel_path: str) -> bool:
    """Written by a tool, by its name: `*.pb.go`, `*.min.js`, `*.g.dart`."""
    name = PurePosixPath(rel_path).name.lower()
    row = language_row(rel_path)
    return ".min." in name or name.endswith(".g.dart") or (
        row is not None and name.endswith(tuple(s.lower() for s in row.generated_suffixes)))


# ------------------------------------------------------------------ the code graph's rules
# What the code graph (`codelens/graph/syntax_edges.py`) reads from each language's syntax tree,
# beside the rows above: where a call's callee is, which nodes build an instance or name base
# classes, how imports read, and how a method names its own object. Keyed by the row's name.


@dataclass(frozen=True)
class GraphRule:
    """How one language's calls, instantiations, base classes and imports look in its tree."""

    family: str  # languages that call each other by plain name share one (typescript and javascript: "js")
    # call node type -> where the callee is: a field holding the callee expression; "" the call node itself
    # holds the name and receiver fields (Java's method_invocation); "first" its first named child (Kotlin, Swift)
    calls: tuple[tuple[str, str], ...]
    constructs: tuple[tuple[str, str], ...] = ()  # `new Foo()`: node type -> field ("first": first named child)
    bases: tuple[str, ...] = ()  # node types whose type names are the base classes and interfaces
    imports: str = ""  # how its import declarations read (a reader in graph/syntax_imports.py)
    self_words: tuple[str, ...] = ("this",)  # a receiver that means the enclosing class's own object
    implicit_self: bool = False  # a bare call may be a method of the enclosing class (Java, C#, Kotlin...)
    package_scope: bool = False  # a folder's files see each other's names without importing them (Go, Java...)
    receiver_of: str = ""  # Go: the method node whose receiver parameter names its own object
    noise: tuple[str, ...] = ()  # callee names that are builtins or keywords, never recorded
    # receivers that are the language's own objects (`console`, `System`): a call on one is external,
    # never matched to the codebase by its method's name
    builtins: tuple[str, ...] = ()
    # method names every object or collection of the language has (`toString`, `to_s`, `is_some`): a call of
    # one on a receiver of unknown type is never matched to the codebase by its name alone
    library_methods: tuple[str, ...] = ()
    # the nodes that name a file's package or namespace (`package com.acme.pay;`): its imports and
    # its package's other files are found by it, wherever the folders are
    packages: tuple[str, ...] = ()
    # calls that define rather than call (Elixir's `def run(x)`): the call they hold is a head, never a call
    definers: tuple[str, ...] = ()
    # what gives a variable, parameter or field its type: (node type, field of the name, field of the type);
    # "" reads the node's children (Kotlin's nodes have no fields)
    typed: tuple[tuple[str, str, str], ...] = ()
    # (node type, field of the name, field of the value): `x := &Server{}`, `const r = new Repo()`
    assigned: tuple[tuple[str, str, str], ...] = ()


_JS_CALLS = (("call_expression", "function"),)
_JS_NEW = (("new_expression", "constructor"),)
_JS_BASES = ("extends_clause", "implements_clause", "extends_type_clause")
_JS_BUILTINS = ("console", "Math", "JSON", "Object", "Array", "Promise", "Reflect", "Symbol", "Number", "String",
                "Date", "window", "document", "process", "Buffer", "globalThis", "Error", "Map", "Set")
_JVM_BUILTINS = ("System", "String", "Math", "Objects", "Arrays", "Collections", "List", "Map", "Set", "Optional",
                 "Integer", "Long", "Boolean", "Double", "Character", "Thread", "Stream", "Collectors")
_C_CALLS = (("call_expression", "function"),)
_JS_METHODS = ("toString", "valueOf", "hasOwnProperty", "then", "catch", "finally", "map", "filter", "forEach",
               "reduce", "push", "pop", "shift", "slice", "splice", "join", "split", "has", "get", "set", "delete",
               "add", "clear", "keys", "values", "entries", "includes", "indexOf", "call", "apply", "bind", "trim",
               "some", "every", "find", "concat", "replace", "match", "test", "next", "return", "throw", "emit", "on")
_JVM_METHODS = ("toString", "equals", "hashCode", "getClass", "clone", "compareTo", "iterator", "hasNext", "next",
                "size", "get", "put", "add", "remove", "contains", "isEmpty", "length", "close", "apply", "map",
                "flatMap", "filter", "forEach", "let", "also", "run", "use", "append", "toList", "first", "last")
_JS_TYPED = (("required_parameter", "pattern", "type"), ("optional_parameter", "pattern", "type"),
             ("public_field_definition", "name", "type"), ("variable_declarator", "name", "type"))
_JS_ASSIGNED = (("variable_declarator", "name", "value"), ("public_field_definition", "name", "value"),
                ("field_definition", "property", "value"), ("assignment_expression", "left", "right"))
_C_TYPED = (("declaration", "declarator", "type"), ("parameter_declaration", "declarator", "type"),
            ("field_declaration", "declarator", "type"))
_GO_NOISE = ("append", "cap", "clear", "close", "complex", "copy", "delete", "imag", "len", "make", "max", "min",
             "new", "panic", "print", "println", "real", "recover", "string", "int", "int8", "int16", "int32",
             "int64", "uint", "uint8", "uint16", "uint32", "uint64", "uintptr", "float32", "float64", "byte",
             "rune", "bool", "error", "any")

# C and C++ share one rule: a `.h` file may hold either, and C++'s constructs never occur in C
_C_RULE = GraphRule("c", _C_CALLS, (("new_expression", "type"),), ("base_class_clause",), "include",
                    implicit_self=True, typed=_C_TYPED, assigned=(("init_declarator", "declarator", "value"),),
                    noise=("sizeof", "defined", "static_cast", "dynamic_cast", "reinterpret_cast", "const_cast"))

_BSL_NOISE = (  # the global context's functions (Russian and English): never the codebase's
    "Сообщить", "СтрШаблон", "ТипЗнч", "Тип", "ЗначениеЗаполнено", "Строка", "Число", "Булево", "Дата", "Формат",
    "НСтр", "СтрДлина", "СтрНайти", "СтрЗаменить", "СтрРазделить", "СтрСоединить", "СтрНачинаетсяС",
    "СтрЗаканчиваетсяНа", "Лев", "Прав", "Сред", "ВРег", "НРег", "СокрЛ", "СокрП", "СокрЛП", "Мин", "Макс", "Окр",
    "ТекущаяДата", "ТекущаяДатаСеанса", "Вычислить", "Выполнить", "ПредопределенноеЗначение", "ОписаниеОшибки",
    "ИнформацияОбОшибке", "ПодробноеПредставлениеОшибки", "КраткоеПредставлениеОшибки", "НайтиФайлы",
    "УдалитьФайлы", "КопироватьФайл", "ПереместитьФайл", "СоздатьКаталог", "ОбъединитьПути", "ТекущийКаталог",
    "ПолучитьПеременнуюСреды", "УстановитьПеременнуюСреды", "ЗапуститьПриложение", "Приостановить",
    "Message", "StrTemplate", "TypeOf", "Type", "ValueIsFilled", "String", "Number", "Boolean", "Date", "Format",
    "NStr", "StrLen", "StrFind", "StrReplace", "StrSplit", "StrConcat", "Left", "Right", "Mid", "Upper", "Lower",
    "TrimL", "TrimR", "TrimAll", "Min", "Max", "Round", "CurrentDate", "Eval", "Execute", "ErrorDescription",
    "ErrorInfo", "FindFiles", "DeleteFiles", "CopyFile", "MoveFile", "CreateDirectory", "CombinePath",
)
_PASCAL_NOISE = ("WriteLn", "Write", "ReadLn", "Read", "Inc", "Dec", "Length", "SetLength", "Low", "High", "Ord", "Chr",
                 "Assigned", "FreeAndNil", "Format", "IntToStr", "StrToInt", "StrToIntDef", "FloatToStr", "Exit",
                 "Copy", "Pos", "Trim", "UpperCase", "LowerCase", "SameText", "SizeOf", "Move", "FillChar", "Include",
                 "Exclude", "Succ", "Pred", "Abs", "Round", "Trunc", "Sqr", "Sqrt", "Random", "Halt", "Assert",
                 "inherited")

GRAPH_RULES: dict[str, GraphRule] = {
    "c": _C_RULE,
    "cpp": _C_RULE,
    "typescript": GraphRule("js", _JS_CALLS, _JS_NEW, _JS_BASES, "js", noise=("require", "import", "super"),
                             builtins=_JS_BUILTINS, typed=_JS_TYPED, assigned=_JS_ASSIGNED,
                             library_methods=_JS_METHODS),
    "javascript": GraphRule("js", _JS_CALLS, _JS_NEW, _JS_BASES, "js", noise=("require", "import", "super"),
                             builtins=_JS_BUILTINS, typed=_JS_TYPED, assigned=_JS_ASSIGNED,
                             library_methods=_JS_METHODS),
    # a component's script (its markup blanked, ingest/syntax_source.py) calls as JavaScript does
    "vue": GraphRule("js", _JS_CALLS, _JS_NEW, _JS_BASES, "js", noise=("require", "import", "super"),
                     builtins=_JS_BUILTINS, typed=_JS_TYPED, assigned=_JS_ASSIGNED, library_methods=_JS_METHODS),
    "svelte": GraphRule("js", _JS_CALLS, _JS_NEW, _JS_BASES, "js", noise=("require", "import", "super"),
                        builtins=_JS_BUILTINS, typed=_JS_TYPED, assigned=_JS_ASSIGNED, library_methods=_JS_METHODS),
    "go": GraphRule("go", (("call_expression", "function"),), (("composite_literal", "type"),), (), "go",
                    self_words=(), package_scope=True, receiver_of="method_declaration", noise=_GO_NOISE,
                    library_methods=("Error", "String", "Close", "Read", "Write", "Set", "Get", "Add", "Del",
                                     "Header", "Run", "Len", "Lock", "Unlock", "RLock", "RUnlock", "Done", "Err",
                                     "Value", "Wait", "Load", "Store", "Reset", "Flush", "Next", "Scan", "Bytes"),
                    typed=(("parameter_declaration", "name", "type"), ("field_declaration", "name", "type"),
                           ("var_spec", "name", "type")),
                    assigned=(("short_var_declaration", "left", "right"), ("var_spec", "name", "value"))),
    "java": GraphRule("jvm", (("method_invocation", ""),), (("object_creation_expression", "type"),),
                      ("superclass", "super_interfaces", "extends_interfaces"), "java", implicit_self=True,
                      package_scope=True, builtins=_JVM_BUILTINS, library_methods=_JVM_METHODS,
                      packages=("package_declaration",),
                      typed=(("local_variable_declaration", "declarator", "type"),
                             ("field_declaration", "declarator", "type"), ("formal_parameter", "name", "type")),
                      assigned=(("variable_declarator", "name", "value"),)),
    "kotlin": GraphRule("jvm", (("call_expression", "first"),), (), ("delegation_specifiers",), "kotlin",
                        implicit_self=True, package_scope=True, builtins=_JVM_BUILTINS, library_methods=_JVM_METHODS,
                        packages=("package_header",),
                        typed=(("variable_declaration", "", ""), ("class_parameter", "", ""), ("parameter", "", "")),
                        assigned=(("property_declaration", "", ""),)),
    "scala": GraphRule("jvm", (("call_expression", "function"),), (("instance_expression", "first"),),
                       ("extends_clause",), "scala", implicit_self=True, package_scope=True,
                       library_methods=(*_JVM_METHODS, "fold", "getOrElse", "isDefined", "foldLeft", "foldRight"),
                       packages=("package_clause",),
                       typed=(("val_definition", "pattern", "type"), ("var_definition", "pattern", "type"),
                              ("class_parameter", "name", "type"), ("parameter", "name", "type")),
                       assigned=(("val_definition", "pattern", "value"), ("var_definition", "pattern", "value"))),
    "csharp": GraphRule("csharp", (("invocation_expression", "function"),),
                        (("object_creation_expression", "type"),), ("base_list",), "csharp",
                        implicit_self=True, package_scope=True, noise=("nameof", "typeof", "sizeof"),
                        packages=("namespace_declaration", "file_scoped_namespace_declaration"),
                        library_methods=("ToString", "Equals", "GetHashCode", "GetType", "Dispose", "ContainsKey",
                                         "TryGetValue", "Add", "Remove", "Contains", "Clear", "GetEnumerator",
                                         "MoveNext", "Invoke", "Select", "Where", "ToList", "ToArray", "Count", "Any",
                                         "First", "FirstOrDefault", "Single", "Append", "Close", "Read", "Write"),
                        builtins=("Console", "Math", "String", "Task", "Enumerable", "Convert", "Array", "Type",
                                  "Activator", "Expression", "Interlocked", "Volatile", "GC"),
                        typed=(("variable_declaration", "", "type"), ("parameter", "name", "type"),
                               ("property_declaration", "name", "type")),
                        assigned=(("variable_declarator", "name", ""),)),
    "rust": GraphRule("rust", (("call_expression", "function"),), (("struct_expression", "name"),), (), "rust",
                      self_words=("self", "Self"), noise=("Some", "Ok", "Err", "Box"),
                      library_methods=("clone", "to_string", "to_owned", "into", "from", "fmt", "as_ref", "as_mut",
                                       "is_some", "is_none", "is_ok", "is_err", "unwrap", "expect", "iter", "into_iter",
                                       "len", "is_empty", "push", "get", "insert", "remove", "contains", "map",
                                       "field", "finish", "debug_struct", "write_str", "borrow", "next", "collect",
                                       "ok", "err", "take", "as_str", "extend", "poll", "call"),
                      typed=(("parameter", "pattern", "type"), ("let_declaration", "pattern", "type"),
                             ("field_declaration", "name", "type")),
                      assigned=(("let_declaration", "pattern", "value"),)),
    "ruby": GraphRule("ruby", (("call", ""),), (), ("superclass",), "ruby", self_words=("self",),
                      implicit_self=True,
                      noise=("require", "require_relative", "attr_accessor", "attr_reader", "attr_writer",
                             "include", "extend", "private", "public", "protected", "raise"),
                      assigned=(("assignment", "left", "right"),),
                      library_methods=("to_s", "to_str", "to_sym", "to_i", "to_a", "to_h", "inspect", "respond_to?",
                                       "nil?", "dup", "clone", "class", "is_a?", "kind_of?", "hash", "eql?", "send",
                                       "freeze", "tap", "each", "map", "select", "empty?", "size", "length",
                                       "include?", "key?", "merge", "call", "join", "split", "first", "last", "body",
                                       "close", "read", "write", "delete", "fetch", "keys", "values", "to_proc",
                                       "new")),
    "php": GraphRule("php", (("function_call_expression", "function"), ("member_call_expression", ""),
                             ("scoped_call_expression", ""), ("nullsafe_member_call_expression", "")),
                     (("object_creation_expression", "first"),), ("base_clause", "class_interface_clause"), "php",
                     self_words=("$this", "self", "static"), package_scope=True, packages=("namespace_definition",),
                     typed=(("simple_parameter", "name", "type"), ("property_promotion_parameter", "name", "type"),
                            ("property_declaration", "", "type")),
                     assigned=(("assignment_expression", "left", "right"),)),
    "lua": GraphRule("lua", (("function_call", "name"),), (), (), "lua", self_words=("self",),
                     noise=("require", "print", "pairs", "ipairs", "type", "tostring", "tonumber", "error", "assert",
                            "setmetatable", "getmetatable", "pcall", "select", "rawget", "rawset", "unpack")),
    "dart": GraphRule("dart", (("selector", "previous"),), (("new_expression", "first"),),
                      ("superclass", "interfaces", "mixins"), "dart", implicit_self=True,
                      typed=(("formal_parameter", "name", ""),), library_methods=(*_JS_METHODS, "toList", "length"),
                      noise=("print", "assert", "identical")),
    "elixir": GraphRule("elixir", (("call", "target"),), (), (), "elixir", self_words=("__MODULE__",),
                        implicit_self=True,
                        definers=("def", "defp", "defmacro", "defmacrop", "defguard", "defguardp", "defdelegate",
                                  "defmodule", "defprotocol", "defimpl", "defstruct", "defexception"),
                        noise=("def", "defp", "defmacro", "defmacrop", "defguard", "defguardp", "defdelegate",
                               "defmodule", "defprotocol", "defimpl", "defstruct", "defexception", "alias", "import",
                               "require", "use", "if", "unless", "case", "cond", "with", "for", "fn", "quote",
                               "unquote", "raise", "receive", "try", "send", "spawn", "is_nil", "is_binary",
                               "is_atom", "is_list", "is_map", "is_integer", "is_function", "elem", "put_elem",
                               "length", "map_size", "to_string", "inspect", "__MODULE__", "super", "throw")),
    # 1C: a procedure calls another of its module by name, a common module's as `Модуль.Процедура()`; the
    # grammar keeps no receiver on the call, so a call outside its file is matched by a unique name (uncertain)
    "bsl": GraphRule("bsl", (("method_call", ""),), (), (), "", self_words=("ЭтотОбъект", "ThisObject"),
                     noise=_BSL_NOISE),
    # Delphi: `Foo(x)`, `Obj.Bar(x)`, `Self.Baz`, `TThing.Create(x)` (a constructor is its class's method);
    # a call without parentheses (`Result.Save;`) is no call node in the grammar, and no edge
    "pascal": GraphRule("pascal", (("exprCall", "entity"),), (), (), "", self_words=("Self",), implicit_self=True,
                        noise=_PASCAL_NOISE, library_methods=("Free", "Create", "Destroy", "Add", "Clear", "Delete",
                                                              "IndexOf", "Assign", "ToString", "Count")),
    "swift": GraphRule("swift", (("call_expression", "first"),), (), ("inheritance_specifier",), "swift",
                       self_words=("self", "Self"), implicit_self=True, package_scope=True,
                       library_methods=("map", "filter", "append", "contains", "first", "last", "description",
                                        "compactMap", "flatMap", "forEach", "reduce", "removeAll", "insert", "remove",
                                        "resume", "cancel", "sorted", "joined", "dataTask", "downloadTask",
                                        "uploadTask", "async", "sync")),
}


def graph_rule(language: str | None) -> GraphRule | None:
    """The code graph's rule for a language (None: the graph reads no edges from its files)."""
    return GRAPH_RULES.get(language) if language else None
