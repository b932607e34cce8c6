"""C#: classes, structs, interfaces, enums, records and their members, in namespaces."""

from __future__ import annotations

from codelens.languages.model import (
    CAPITALISED_GETTER_NAMES,
    CLASS,
    CLASS_NAMED,
    FUNCTION,
    Conventions,
    Grammar,
    GraphRule,
    LanguageRow,
    class_and_method,
)
from codelens.languages.shared import C_STYLE_DOCS, first_branches

RULE = GraphRule(
    "csharp", (("invocation_expression", "function"),), (("object_creation_expression", "type"),), ("base_list",),
    "csharp", implicit_self=True, package_scope=True, noise=("nameof", "typeof", "sizeof"),
    packages=("namespace_declaration", "file_scoped_namespace_declaration"),
    library_methods=("ToString", "Equals", "GetHashCode", "GetType", "Dispose", "ContainsKey",
                     "TryGetValue", "Add", "Remove", "Contains", "Clear", "GetEnumerator",
                     "MoveNext", "Invoke", "Select", "Where", "ToList", "ToArray", "Count", "Any",
                     "First", "FirstOrDefault", "Single", "Append", "Close", "Read", "Write"),
    builtins=("Console", "Math", "String", "Task", "Enumerable", "Convert", "Array", "Type",
              "Activator", "Expression", "Interlocked", "Volatile", "GC"),
    typed=(("variable_declaration", "", "type"), ("parameter", "name", "type"),
           ("property_declaration", "name", "type")),
    assigned=(("variable_declarator", "name", ""),),
)

LANGUAGE = LanguageRow(
    "csharp", (".cs",), Grammar("tree-sitter-c-sharp", "tree_sitter_c_sharp"),
    definitions=(("class_declaration", CLASS), ("struct_declaration", CLASS), ("interface_declaration", CLASS),
                 ("enum_declaration", CLASS), ("record_declaration", CLASS),
                 ("method_declaration", FUNCTION), ("constructor_declaration", FUNCTION),
                 ("destructor_declaration", FUNCTION), ("operator_declaration", FUNCTION),
                 ("conversion_operator_declaration", FUNCTION), ("local_function_statement", FUNCTION),
                 # a property or indexer that computes (an auto-property is a field of its class)
                 ("property_declaration", FUNCTION), ("indexer_declaration", FUNCTION)),
    containers=("namespace_declaration", "declaration_list",
                "preproc_if", "preproc_else", "preproc_elif"),  # `#if NET5_0` around members
    # a class that holds only types names them: Dapper's `partial class SqlMapper { public interface ITypeMap
    # {...} }` in SqlMapper.ITypeMap.cs, one of some twenty files each a whole-file chunk named SqlMapper
    namespaces=("class_declaration",),
    # `namespace MediatR.Internal;` names the file's package, as Java's `package`: no piece of its own (MediatR: 101
    # of its 104 module pieces were that one line, and one took a top-5 place)
    preamble=("file_scoped_namespace_declaration",),
    # a file the grammar cannot read whole is read again with every conditional at its first branch (serilog's
    # `#if FEATURE_DEFAULT_INTERFACE` default bodies in ILogger, `#if FEATURE_SPAN` signatures over one body)
    recover_bytes=first_branches,
    doc_prefixes=("///", *C_STYLE_DOCS), test_suffixes=("Tests.cs", "Test.cs"),
    imports=("using_directive",), standard_libraries=("System", "Microsoft"), graph=RULE,
    # `CartTests.AddsItem` (dotnet test --filter)
    conventions=Conventions(getter=CAPITALISED_GETTER_NAMES, test_id=class_and_method("."), throws=("throw",),
                            constant=r"^\s*(?:(?:public|private|protected|internal)\s+)?const\s+\w+\s+(?P<name>\w+)",
                            bodiless=True,
                            contract=r"\s*(?:(?:public|protected|private|internal|partial|unsafe|new)\s+)*interface\s",
                            describing=("ToString",), comparing=("Equals", "GetHashCode", "CompareTo", "Clone"),
                            constructors=(CLASS_NAMED,)),
)
