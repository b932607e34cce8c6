"""What several languages share: doc-comment styles, JavaScript's node types (TypeScript, Vue and
Svelte read it too), C's (C, C++ and Objective-C), the JVM's library, the component blanking."""

from __future__ import annotations

import re
import string

from codelens.languages.model import CLASS, FUNCTION, Conventions, Grammar, GraphRule

C_STYLE_DOCS = ("/**", "/*!", "//", "*", "*/")  # Javadoc, JSDoc, KDoc, Doxygen, `///` and `//` runs
LINE_DOCS = ("//",)  # Go, C, C++: a `//` run above a definition documents it

# ------------------------------------------------------------------ JavaScript and its kin
# `.test-d.ts`: a type test (tsd's, vitest's expectTypeOf), in `test-d/` or pinia's `test-dts/`
JS_TESTS = (".test.ts", ".spec.ts", ".test.tsx", ".spec.tsx", ".test.js", ".spec.js", ".test.jsx",
            ".spec.jsx", ".test.mjs", ".spec.mjs", ".test.cjs", ".spec.cjs", ".e2e.ts", ".test-d.ts", ".test-d.tsx")
JS_TEST_DIRS = ("__tests__", "__mocks__", "spec", "e2e", "cypress", "test-d", "test-dts")
JS_CLASSES = (("class_declaration", CLASS), ("abstract_class_declaration", CLASS),
              ("interface_declaration", CLASS), ("enum_declaration", CLASS),
              # `type Options = {...}` over several lines is an interface by another syntax (the chunker checks)
              ("type_alias_declaration", CLASS))
JS_FUNCTIONS = (("function_declaration", FUNCTION), ("generator_function_declaration", FUNCTION),
                ("method_definition", FUNCTION), ("method_signature", FUNCTION),
                ("abstract_method_signature", FUNCTION), ("function_signature", FUNCTION),
                # `const f = () => ...` and `handler = (e) => ...`: the chunker keeps only function values
                ("lexical_declaration", FUNCTION), ("variable_declaration", FUNCTION),
                ("public_field_definition", FUNCTION), ("field_definition", FUNCTION),
                # `res.status = function status(code) {...}`: the chunker keeps only function values
                ("expression_statement", FUNCTION),
                # `get: function (id) {...}` in an object of functions (JS_INSTANCES)
                ("pair", FUNCTION),
                # `export default function (config) {...}`: the module's function (the chunker checks)
                ("export_statement", FUNCTION))
# `const api = { get(id) {...}, put: (id, body) => ... }`: an object of functions is a class of them; so is
# one assigned (`module.exports = { get host() {...} }`, `Cart.prototype = {...}`), and a class expression
# (`module.exports = class Application extends Emitter {...}`, `const Cart = class {...}`)
JS_INSTANCES = (("lexical_declaration", "object"), ("variable_declaration", "object"),
                ("lexical_declaration", "class_body"), ("variable_declaration", "class_body"),
                ("expression_statement", "object"), ("expression_statement", "class_body"))
# and in a script, an object of functions inside one (joi's `rules: { email: { method() {...}, validate() {...} } }`):
# a component's `methods: {...}` and `computed: {...}` are the component's own (SFC_CONTAINERS)
JS_NESTED_INSTANCES = (*JS_INSTANCES, ("pair", "object"))
JS_CONTAINERS = ("export_statement", "class_body", "interface_body", "object_type", "internal_module",
                 "module", "statement_block", "ambient_declaration", "expression_statement")
JS_IMPORTS = ("import_statement",)
# a JavaScript or TypeScript function longer than this holds chunks of its own: a plugin or a hook written as one
# closure (immer's `enablePatches`, swr's `useSWRHandler`); a shorter one's inner helpers are its own text
INNER_DEFINITIONS_OVER = 150
TS = Grammar("tree-sitter-typescript", "tree_sitter_typescript", "language_typescript")
TSX = Grammar("tree-sitter-typescript", "tree_sitter_typescript", "language_tsx")

_JS_CALLS = (("call_expression", "function"),)
_JS_NEW = (("new_expression", "constructor"),)
# JavaScript's `class A extends B` has its base in the class_heritage itself; TypeScript's in clauses inside it
_JS_BASES = ("extends_clause", "implements_clause", "extends_type_clause", "class_heritage")
_JS_BUILTINS = ("console", "Math", "JSON", "Object", "Array", "Promise", "Reflect", "Symbol", "Number", "String",
                "Date", "window", "document", "process", "Buffer", "globalThis", "Error", "Map", "Set")
JS_METHODS = ("toString", "valueOf", "hasOwnProperty", "then", "catch", "finally", "map", "filter", "forEach",
              "reduce", "push", "pop", "shift", "slice", "splice", "join", "split", "has", "get", "set", "delete",
              "add", "clear", "keys", "values", "entries", "includes", "indexOf", "call", "apply", "bind", "trim",
              "some", "every", "find", "concat", "replace", "match", "test", "next", "return", "throw", "emit", "on")
_JS_TYPED = (("required_parameter", "pattern", "type"), ("optional_parameter", "pattern", "type"),
             ("public_field_definition", "name", "type"), ("variable_declarator", "name", "type"))
_JS_ASSIGNED = (("variable_declarator", "name", "value"), ("public_field_definition", "name", "value"),
                ("field_definition", "property", "value"), ("assignment_expression", "left", "right"))
JS_RULE = GraphRule("js", _JS_CALLS, _JS_NEW, _JS_BASES, "js", noise=("require", "import", "super"),
                    builtins=_JS_BUILTINS, typed=_JS_TYPED, assigned=_JS_ASSIGNED, library_methods=JS_METHODS,
                    wildcards_reexport=True)
_NODE_BUILTINS = frozenset({"fs", "path", "http", "https", "url", "util", "events", "stream", "crypto", "os",
                            "child_process", "assert", "buffer", "zlib", "querystring", "net", "tls", "readline"})


def is_node_builtin(top: str) -> bool:
    """`node:fs`, `path`: Node's own modules, no package's."""
    return top.startswith("node:") or top in _NODE_BUILTINS


def jest_style(path: str, owner: str, name: str) -> str:
    """`src/a.test.ts > Cart > adds an item`: the file, its `describe` blocks, the test (Jest, Vitest)."""
    return " > ".join(part for part in (path, owner, name) if part)


JS_CONVENTIONS = Conventions(test_id=jest_style, throws=("throw",),
                             constant=r"^\s*(?:export\s+)?const\s+(?P<name>[A-Z][A-Z0-9_]*)\b",
                             bodiless=True,  # TypeScript's overload signatures and abstract methods
                             contract=r"\s*(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:type\s+\w+[^=]*=|interface\s+\w+)",
                             describing=("toString", "toJSON"),
                             accessor=r"(?:(?:public|private|protected|static|override)\s+)*(?:get|set)\s+[\w#$]",
                             constructors=("constructor",))

# ------------------------------------------------------------------ C and its kin
C_DEFINITIONS = (("function_definition", FUNCTION), ("struct_specifier", CLASS), ("union_specifier", CLASS),
                 ("enum_specifier", CLASS), ("type_definition", CLASS))
C_CONTAINERS = ("preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif", "linkage_specification",
                "declaration_list", "declaration")
C_TESTS = ("_test.c", "_test.cc", "_test.cpp", "_unittest.cc", "_unittest.cpp", "_tests.cpp", "Test.cpp")
C_DOCS = LINE_DOCS + C_STYLE_DOCS + ("/*",)
_C_TYPED = (("declaration", "declarator", "type"), ("parameter_declaration", "declarator", "type"),
            ("field_declaration", "declarator", "type"))
# C and C++ share one rule: a `.h` file may hold either, and C++'s constructs never occur in C
C_RULE = GraphRule("c", (("call_expression", "function"),), (("new_expression", "type"),), ("base_class_clause",),
                   "include", implicit_self=True, typed=_C_TYPED,
                   assigned=(("init_declarator", "declarator", "value"),),
                   noise=("sizeof", "defined", "static_cast", "dynamic_cast", "reinterpret_cast", "const_cast"),
                   imports_reach_through=True)
# `#define MAX_SIZE 64`, `static const int LIMIT = 3;`, `constexpr size_t kLimit = 3;`; never an include
# guard's `#define TAX_H` (no value) or a macro with arguments
C_CONSTANT = r"^\s*(?:#define\s+|(?:static\s+)?const(?:expr)?\s+[\w:<>]+\s+)(?P<name>[A-Za-z_]\w*)(?=[ \t]+\S)"

_BARE_MACRO = re.compile(rb"^[ \t]*[A-Z][A-Z0-9_]{2,}[ \t]*$", re.M)
# a macro that opens a block: `SPDLOG_TRY {` (a `try` where exceptions are on)
_BLOCK_MACRO = re.compile(rb"^[ \t]*[A-Z][A-Z0-9]*_[A-Z0-9_]*(?=[ \t]*\{)", re.M)
# `FMT_EXPORT template <...>`, `UV_EXTERN int uv_run(...)`, `FMT_CONSTEXPR auto f()`: macros before a declaration
_IF_MACRO = re.compile(rb"(?<=\bif )[ \t]*[A-Z][A-Z0-9]*_[A-Z0-9_]*(?=[ \t]*\()")  # `if FMT_CONSTEXPR20 (...)`
# a declaration's leading macros, after its template header on the same line too (CLI11's `template <class CharT>
# CLI11_INLINE void App::parse_char_t(`)
_PREFIX_MACROS = re.compile(rb"^([ \t]*(?:template[ \t]*<[^<>\r\n]*>[ \t]*)?)((?:[A-Z][A-Z0-9]*_[A-Z0-9_]*[ \t]+)+)"
                            rb"(?=[A-Za-z_~])", re.M)
# an export macro that wraps a definition's return type: `CJSON_PUBLIC(cJSON *) cJSON_Parse(const char *v)`,
# `LUALIB_API(int) luaL_ref(...)`: the grammar reads a call and loses the definition; the type is kept
_TYPE_MACRO = re.compile(rb"^((?:[ \t]*(?:static|extern|inline)[ \t]+)*[ \t]*)"
                         rb"([A-Z][A-Z0-9]*_[A-Z0-9_]*\()([^()\r\n]+)\)(?=[ \t]+[*&]*[ \t]*[A-Za-z_]\w*[ \t]*\()", re.M)


# attribute macros after a declarator, before its `;` or body: `- (void)f:(id)x AF_API_AVAILABLE(ios(10), macosx(10));`,
# `- (instancetype)init NS_DESIGNATED_INITIALIZER;`, `size() const FMT_NOEXCEPT {`; eight at most, so a line of
# thousands of them (untrusted input) costs linear time, not quadratic (each place a match may start reads on)
_SUFFIX_MACROS = re.compile(
    rb"(?<=[)\w\]])(?:[ \t]+[A-Z][A-Z0-9]*_[A-Z0-9_]*(?:\((?:[^()\r\n]|\((?:[^()\r\n]|\([^()\r\n]*\))*\))*\))?){1,8}"
    rb"(?=[ \t]*(?:;|\{|\r?\n[ \t]*\{))"
    # or on a line of their own, the body's `{` after them: leveldb's `void DeleteFileInternal(...)\n
    # EXCLUSIVE_LOCKS_REQUIRED(mutex_) {` (a thread-safety annotation); never before a `;`, where the line may be
    # the statement after an `if (x)`
    rb"|(?<=\))[ \t]*\r?\n[ \t]*[A-Z][A-Z0-9]*_[A-Z0-9_]*(?:\((?:[^()\r\n]|\([^()\r\n]*\))*\))?(?=[ \t]*\{)")
# an export macro between `class`/`struct`/`union` and the name of a definition: `class SPDLOG_API sink {`,
# `class FMT_API file final : public base`, leveldb's `class LOCKABLE Mutex {` (capitals there, a name after them,
# are a macro); the grammar reads the macro as the name and the rest as a function
_CLASS_MACROS = re.compile(
    rb"\b(?:class|struct|union)((?:[ \t]+[A-Z][A-Z0-9_]{2,}(?:\([^()\r\n]*\))?){1,4})"
    rb"(?=[ \t]+[A-Za-z_]\w*[ \t]*(?:final\b|:(?!:)|\{|\r?$))", re.M)
# an export macro between a definition's return type and its name: `void SPDLOG_INLINE thread_pool::worker_loop_()`,
# `std::string SPDLOG_INLINE getenv(...)`, `int ZEXPORT deflate(...)`; the grammar reads the macro as the name.
# A line's first 300 bytes are looked at, so a long line costs no more than a short one
_INFIX_MACRO = re.compile(rb"^([^\r\n]{1,300}?[ \t])([A-Z][A-Z0-9]*_[A-Z0-9_]*)"
                          rb"(?=(?:[ \t]+|[ \t]*\r?\n[ \t]*)[*&]*[~A-Za-z_][\w:~<>,]*[ \t]*\()", re.M)
_TYPE_WORD = re.compile(rb"[\w:<>,*&]+")
# words before a type that are no type: before them alone, the capitals are the type (`static YYPTRDIFF_T yystrlen(`)
_STORAGE_WORDS = frozenset((b"static", b"inline", b"extern", b"const", b"volatile", b"register", b"virtual",
                            b"constexpr", b"consteval", b"explicit", b"friend", b"unsigned", b"signed", b"__inline"))
_NO_DECLARATOR = (b"return", b"case", b"else", b"goto", b"throw", b"sizeof", b"co_return", b"co_yield", b"delete",
                  b"typedef", b"struct", b"enum", b"union", b"class")


def spaces(text: bytes) -> bytes:
    """The bytes as spaces, their line breaks kept: what a rewrite hides from a grammar keeps every offset."""
    return re.sub(rb"[^\r\n]", b" ", text)


def blank(match: re.Match[bytes]) -> bytes:
    """The matched bytes as spaces, its line breaks kept."""
    return spaces(match.group(0))


# the bytes a name, a number, a bracket or a string ends with: what ends a statement or a member on its line
NAME_OR_CLOSE = frozenset((string.ascii_letters + string.digits + "_)]}\"'").encode())


def semicolons_before(source: bytes, lines: re.Pattern[bytes], ends: frozenset[int],
                      not_after: tuple[bytes, ...] = ()) -> bytes:
    """A `;` in place of the indentation's last byte (group 1 of each match of `lines`) where the last
    byte before it that is no space is in `ends` (and what it ends is none of `not_after`): ends the
    statement above for a grammar that would read the line as its continuation; the same length."""
    out = bytearray(source)
    for match in lines.finditer(source):
        before = _code_before(source, match.start())
        if before >= 0 and source[before] in ends and not source.endswith(not_after, 0, before + 1):
            out[match.start(1)] = 0x3B  # ;
    return bytes(out)


def _code_before(source: bytes, start: int, directives: bool = False) -> int:
    """The offset of the last byte before `start` that is code: past spaces, line breaks, `/* ... */` blocks and
    `//` comments (a member's doc between it and the line: immer's `): Curried` above `/** ... */` above
    `<Recipe extends AnyFunc>(`), and, with `directives`, past C's preprocessor lines; -1 at the file's start."""
    before = start - 1
    while before >= 0:
        while before >= 0 and source[before] in b" \t\r\n":
            before -= 1
        if source.endswith(b"*/", 0, before + 1) and (opening := source.rfind(b"/*", 0, before - 1)) >= 0:
            before = opening - 1
            continue
        line_start = source.rfind(b"\n", 0, before + 1) + 1
        comment = source.find(b"//", line_start, before + 1)
        if comment >= 0 and (comment == line_start or source[comment - 1] in b" \t"):
            before = comment - 1
            continue
        if directives and source[line_start:before + 1].lstrip().startswith(b"#"):
            before = line_start - 1
            continue
        return before
    return before


# `FMT_PRAGMA_CLANG(diagnostic error "-Wreturn-stack-address")`: a macro called on a line of its own, no `;`
_CALL_MACRO = re.compile(rb"^[ \t]*[A-Z][A-Z0-9_]{2,}\([^;{}\r\n]*\)[ \t]*\r?$", re.M)
_STATEMENT_ENDS = (b";", b"{", b"}", b"*/")


def _line_before(source: bytes, start: int) -> bytes | None:
    """The last non-blank line before the line starting at `start`, stripped; None at the file's start."""
    end = start
    while end > 0:
        begin = source.rfind(b"\n", 0, end - 1) + 1
        line = source[begin:end].strip()
        if line:
            return line
        end = begin
    return None


def _blank_macros_of_class(match: re.Match[bytes]) -> bytes:
    """`class SPDLOG_API sink` -> `class            sink`: the keyword kept, its export macros blanked."""
    keyword_end = match.start(1) - match.start()
    return match.group(0)[:keyword_end] + spaces(match.group(1))


def _blank_call(match: re.Match[bytes]) -> bytes:
    """A macro call standing where a statement or declaration could end: before it a line that ends
    one (or a directive, or nothing), its parentheses balanced. Never a call that closes or continues
    an expression over lines (`    CHECK(b))`, an argument of the line above)."""
    text = match.group(0)
    if text.count(b"(") != text.count(b")"):
        return text
    previous = _line_before(match.string, match.start())
    if previous is None or previous.startswith((b"#", b"//")) or previous.endswith(_STATEMENT_ENDS):
        return blank(match)
    return text


def _blank_infix(match: re.Match[bytes]) -> bytes:
    """The macro blanked where the words before it are a type (`void`, `const std::string &`), not a statement."""
    words = match.group(1).split()
    if (not words or words[0] in _NO_DECLARATOR or not all(_TYPE_WORD.fullmatch(w) for w in words)
            or all(w in _STORAGE_WORDS for w in words)):
        return match.group(0)
    return match.group(1) + spaces(match.group(2))


def without_bare_macros(source: bytes) -> bytes:
    """C and C++: a line that is only a macro's name (`FMT_BEGIN_NAMESPACE`, `FMT_END_EXPORT`) or a macro
    called with no `;` (`FMT_PRAGMA_CLANG(...)`) reads to the grammar as the start of a declaration and
    swallows what follows; blanked, the definitions after it parse. So are macros that open a
    declaration's line or a block (`SPDLOG_TRY {`), a class's export macro (`class SPDLOG_API sink {`), one
    between a definition's type and its name (`void SPDLOG_INLINE thread_pool::post_log(`) and one wrapping its
    type (`CJSON_PUBLIC(cJSON *) cJSON_Parse(`)."""
    source = _TYPE_MACRO.sub(_unwrapped_type, source)  # before a call on a line of its own is read in it
    source = _BARE_MACRO.sub(blank, source)
    source = _BLOCK_MACRO.sub(blank, source)
    source = _CALL_MACRO.sub(_blank_call, source)
    source = _IF_MACRO.sub(blank, source)
    source = _SUFFIX_MACROS.sub(_blank_suffix, source)
    source = _CLASS_MACROS.sub(_blank_macros_of_class, source)
    source = _PREFIX_MACROS.sub(lambda m: m.group(1) + spaces(m.group(2)), source)
    return _INFIX_MACRO.sub(_blank_infix, source)


def _unwrapped_type(match: re.Match[bytes]) -> bytes:
    """`CJSON_PUBLIC(cJSON *) name(` -> `             cJSON *  name(`: the type the macro wraps, the same length."""
    return match.group(1) + spaces(match.group(2)) + match.group(3) + b" "


_DIRECTIVE = re.compile(rb"^[ \t]*#[ \t]*(if|ifdef|ifndef|elif|elifdef|elifndef|else|endif)\b", re.M)


def first_branches_in_bodies(source: bytes) -> bytes:
    """Inside a function's body, a conditional's `#elif`/`#else` branches blanked to its `#endif` (libuv's
    `uv_available_parallelism`: a `return` per platform, and the grammar, reading every branch as one run
    of statements, lost the whole function to `<module>` text). The first branch stands for them all; the
    others stay in the function's chunk, read from the file. Outside function bodies (the top level, a
    namespace's or a class's braces) every branch is kept: a platform's own definition is a chunk there.
    A body's directive lines are blanked too: an `#ifdef` inside a condition (zlib's `if (\n#ifdef GUNZIP\n
    ... ||\n#endif\n ...) {`) lost `inflate()` and twelve functions after it; and so are a conditional's
    lines in the midst of a statement anywhere (after a `:` or `,`, not after a `;` or a brace: leveldb's
    `Limiter(int n)\n  :\n#if !defined(NDEBUG)\n  max_(n),\n#endif\n  allowed_(n) {` lost every class of
    its file after it), each branch kept.
    C's, C++'s and Objective-C's `recover_bytes`: the chunker's second reading of a file with errors."""
    return _first_branches(source, everywhere=False)


def first_branches(source: bytes) -> bytes:
    """Every conditional at its first branch, its directive lines blanked: C#'s `recover_bytes`, where a
    conditional splits a declaration (serilog's `ILogger ForContext(...)\n#if FEATURE_DEFAULT_INTERFACE\n{ ... }\n
    #else\n;\n#endif`, a default body where the runtime has them; two signatures over one body in
    PropertyBinder) and the grammar lost the whole interface or class. A second reading only, kept where fewer
    lines fall under ERROR: a platform's own definition in an `#else` is a chunk wherever the file parses."""
    return _first_branches(source, everywhere=True)


def _first_branches(source: bytes, everywhere: bool) -> bytes:
    """Both readings; `everywhere`: every conditional keeps its first branch only, not those in bodies alone."""
    if _DIRECTIVE.search(source) is None:
        return source
    out = bytearray(source)
    braces: list[bool] = []  # the braces open at this point: each a body's (after `)`) or one's inside it
    inside: list[int] = []  # each open conditional: _IN_BODY, _MID_STATEMENT or 0
    blanking_from, blanking_level, position = -1, 0, 0
    for match in _DIRECTIVE.finditer(source):
        if blanking_from < 0:
            _braces(source, position, match.start(), braces)
        line_end = source.find(b"\n", match.end())
        position = len(source) if line_end < 0 else line_end
        word = match.group(1)
        if word.startswith(b"if"):
            inside.append(_IN_BODY if everywhere or (braces and braces[-1]) else
                          _MID_STATEMENT if _mid_statement(source, match.start()) else 0)
        elif not inside:
            continue
        if inside[-1] and blanking_from < 0:  # the directive's own line: `#ifdef` in an expression's midst
            _blank_span(out, match.start(), position)
        if word == b"endif":
            inside.pop()
            if blanking_from >= 0 and len(inside) == blanking_level:
                _blank_span(out, blanking_from, position)  # the other branches and the `#endif` line
                blanking_from = -1
        elif word.startswith(b"el") and blanking_from < 0 and inside[-1] == _IN_BODY:  # its first #elif/#else
            blanking_from, blanking_level = match.start(), len(inside) - 1
    return bytes(out)


_IN_BODY, _MID_STATEMENT = 2, 1


def _mid_statement(source: bytes, start: int) -> bool:
    """The code before the line at `start` (past blank lines, comments and other directives) goes on: it ends
    in none of `;`, `{`, `}` (a constructor's initializer list, an argument list, a condition)."""
    before = _code_before(source, start, directives=True)
    return before >= 0 and source[before] not in b";{}"


def _braces(source: bytes, start: int, end: int, braces: list[bool]) -> None:
    """Pushes each `{` of source[start:end] (True: a body, after `)`, or any brace inside one) and pops each
    `}`; strings, characters and comments skipped."""
    i, last = start, 0  # last: the previous significant byte
    while i < end:
        byte = source[i]
        if byte in (0x22, 0x27):  # " '
            i = _string_end(source, i, end)
            last = byte
        elif byte == 0x2F and i + 1 < end and source[i + 1] in (0x2F, 0x2A):  # // /*
            close = source.find(b"\n" if source[i + 1] == 0x2F else b"*/", i + 2, end)
            i = end if close < 0 else close + 1
        elif byte == 0x7B:
            braces.append(bool(braces and braces[-1]) or last in (0x29, 0x3D))  # `) {`, `= {` and in a body
        elif byte == 0x7D and braces:
            braces.pop()
        if byte not in b" \t\r\n":
            last = byte
        i += 1


def _string_end(source: bytes, start: int, end: int) -> int:
    quote, i = source[start], start + 1
    while i < end and source[i] != quote and source[i] != 0x0A:
        i += 2 if source[i] == 0x5C else 1  # a backslash escapes the next byte
    return i


def _blank_span(out: bytearray, start: int, end: int) -> None:
    out[start:end] = spaces(bytes(out[start:end]))


def _blank_suffix(match: re.Match[bytes]) -> bytes:
    """Attribute macros after a declarator; never a value (`return UV_EINVAL;`, `p = (void*) CMSG_DATA(c);`),
    a type (`typedef NS_ENUM(NSInteger, State) {`), a directive's text, or a function named in capitals after its
    type, no parameter list before it on its line (httplib's `inline std::string SHA_256(const std::string &s) {`)."""
    line = match.string[match.string.rfind(b"\n", 0, match.start()) + 1:match.start()]
    if line.lstrip().startswith(b"#") or b"=" in line or line.rstrip().endswith(_NO_DECLARATOR):
        return match.group(0)
    if b")" not in line and b"\n" not in match.group(0) and match.group(0).rstrip().endswith(b")"):
        return match.group(0)
    return blank(match)


# ------------------------------------------------------------------ the JVM
JVM_BUILTINS = ("System", "String", "Math", "Objects", "Arrays", "Collections", "List", "Map", "Set", "Optional",
                "Integer", "Long", "Boolean", "Double", "Character", "Thread", "Stream", "Collectors")
JVM_METHODS = ("toString", "equals", "hashCode", "getClass", "clone", "compareTo", "iterator", "hasNext", "next",
               "size", "get", "put", "add", "remove", "contains", "isEmpty", "length", "close", "apply", "map",
               "flatMap", "filter", "forEach", "let", "also", "run", "use", "append", "toList", "first", "last")

# ------------------------------------------------------------------ single-file components
SFC_DEFINITIONS = (*JS_CLASSES, *JS_FUNCTIONS, ("export_statement", CLASS))
SFC_CONTAINERS = (*JS_CONTAINERS, "object", "pair", "call_expression", "arguments")
SFC_TESTS = (".spec.vue", ".test.vue", ".spec.svelte", ".test.svelte")
_SCRIPT = re.compile(rb"<script\b[^>]*>(.*?)</script\s*>", re.S | re.I)


def only_scripts(source: bytes) -> bytes:
    """A component's `<script>` blocks where they stand, everything else blanked (line breaks kept)."""
    kept = bytearray(spaces(source))
    for script in _SCRIPT.finditer(source):
        kept[script.start(1):script.end(1)] = script.group(1)
    return bytes(kept)
