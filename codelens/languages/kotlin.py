"""Kotlin: classes, objects, companion objects, functions (`fun Foo.bar()` under Foo); what its grammar cannot
read (Kotlin 2.1's `when` guards, annotated accessors, names it takes for keywords) rewritten before it parses."""

from __future__ import annotations

import re

from codelens.languages.java import JVM_STANDARD
from codelens.languages.model import CLASS, FUNCTION, Conventions, Grammar, GraphRule, LanguageRow, class_and_method
from codelens.languages.shared import (
    C_STYLE_DOCS,
    JVM_BUILTINS,
    JVM_METHODS,
    NAME_OR_CLOSE,
    blank,
    semicolons_before,
    spaces,
)

RULE = GraphRule(
    "jvm", (("call_expression", "first"),), (), ("delegation_specifiers",), "kotlin",
    implicit_self=True, package_scope=True, builtins=JVM_BUILTINS, library_methods=JVM_METHODS,
    packages=("package_header",),
    typed=(("variable_declaration", "", ""), ("class_parameter", "", ""), ("parameter", "", "")),
    assigned=(("property_declaration", "", ""),),
)

# What tree-sitter-kotlin 1.1.0 cannot read; each costs a whole file (its definitions recovered as one ERROR):
# a guard in a `when` entry (Kotlin 2.1: `is Foo if x > 0 ->`), its condition maybe over lines in parentheses
_GUARD = re.compile(rb"(?<=\S)[ \t]+if\b[ \t]*")
_ARROW = re.compile(rb"[ \t\r\n]*->")
# an annotated accessor (`@OptIn(X::class) get() = ...`, `@InternalAPI set(value) {`)
_ACCESSOR_ANNOTATION = re.compile(
    rb"@[\w.:]+(?![\w.:])(?:\((?:[^()\n]|\([^()\n]*\))*\))?(?=\s*(?:(?:private|protected|internal|public)\s+)?[gs]et\s*\()")
# a statement that starts with a name the grammar takes for a keyword of the line above: `where?.let {...}` (a type
# constraint), `set = set or bit` after `val bit = 1 shl id` (its setter; so is a call, Javalin's `get("/users") {
# ... }`: an accessor's parentheses are empty or name its value), `in1.close()` (`in`, then 1); a `;` in its
# indentation ends that line
_KEYWORD_NAMED = re.compile(rb"^[ \t]*([ \t])(?:where\b(?!\s+@?\w+\s*:)|[gs]et(?=[ \t]*(?:=[^=]|[+\-*/]=|\.|\?\.|\[))"
                            rb"|get(?=[ \t]*\((?![ \t]*\)))|set(?=[ \t]*\((?![ \t]*\w+[ \t]*[):]))|(?:in|as)\d)", re.M)

# a line of annotations at the top level (`@Serializable`, `@OptIn(X::class) @Dsl`): above `data class`, `enum
# class`, `expect object`, a marked constructor or another annotated class further down, the grammar reads the
# class as an expression and loses it whole, with no error. Blanked, every class is read; the lines stay the
# definition's (LANGUAGE's lead_prefixes), so a KDoc above them is still its doc
_ANNOTATION = rb"@[\w.:]+(?:\((?:[^()\r\n]|\((?:[^()\r\n]|\([^()\r\n]*\))*\))*\))?"
_TOP_LEVEL_ANNOTATIONS = re.compile(rb"^" + _ANNOTATION + rb"(?:[ \t]+" + _ANNOTATION + rb")*[ \t]*\r?$", re.M)


# a class's primary constructor marked on the line below its name (ktfmt's layout: `public class Options\n
# private constructor(` in moshi's JsonReader, `class Repo\n@Inject constructor(`): the grammar lost the whole
# enclosing class to one ERROR
_HEADER = re.compile(rb"(\bclass[ \t]+[A-Za-z_]\w*(?:<[^>\r\n]*>)?)(\r?\n)([ \t]*)((?:" + _ANNOTATION
                     + rb"[ \t]+|(?:private|protected|internal|public|actual|expect)[ \t]+)*constructor[ \t]*\()")


# a statement that starts with a local named as a modifier (okhttp's `open = isOpen` in Http2Stream): the grammar
# reads the modifier of a declaration and loses the class from there; its last letter is made `_` for the grammar
_MODIFIER_NAMED = re.compile(rb"^[ \t]*(?:open|final|sealed|abstract|override|inline|external|dynamic|suspend|"
                             rb"lateinit|tailrec|infix|vararg|internal)(?=[ \t]*(?:=[^=]|[+\-*/]=|\.(?!\.)|\?\.|\[))",
                             re.M)


# Kotlin 2.2's multi-dollar string (`$$"ImageRequest$Builder"`, a `$` in it no template): its dollars blanked,
# an ordinary string is left
_MULTI_DOLLAR = re.compile(rb'(?<![\w$])\$\$+(?=")')


def _constructor_on_header(match: re.Match[bytes]) -> bytes:
    """`class Options\n  private constructor(` -> `class Options constructor(\n` and spaces: the constructor moved up
    to its class's line (its modifiers and annotations dropped, the class's alone matter), the line break after
    its `(`; the same length and lines, whatever the indentation (okio's `actual open class ByteString\ninternal
    actual constructor(` has none)."""
    header, newline, indent, constructor = match.groups()
    moved = b" constructor("
    room = len(indent) + len(constructor) - len(moved)
    return header + moved + newline + b" " * room if room >= 0 else match.group(0)


def readable_bytes(source: bytes) -> bytes:
    """The bytes the grammar parses: when guards, accessors' annotations, the top level's lines of annotations and
    multi-dollar strings' dollars blanked, a class's delegation to a name before its body (`Scope by delegate {`)
    blanked, a primary constructor marked below its class's name moved up to it, a local
    named as a modifier renamed where a statement starts with it (`open = isOpen`), a
    `;` before a statement that starts with a name the grammar reads as a keyword (`where`, `get`, `set`, `in1`), a
    type list's trailing comma blanked: the same length and lines, every name kept."""
    if b"if" in source and b"->" in source:
        source = _without_guards(source)
    if b"et" in source and b"@" in source:
        source = _ACCESSOR_ANNOTATION.sub(blank, source)
    if b"\n@" in source or source.startswith(b"@"):
        source = _TOP_LEVEL_ANNOTATIONS.sub(blank, source)
    if b"constructor" in source:
        source = _HEADER.sub(_constructor_on_header, source)
    if b'$$"' in source:
        source = _MULTI_DOLLAR.sub(blank, source)
    if b" by " in source:
        source = _CLASS_DELEGATION.sub(_without_delegation, source)
    source = _MODIFIER_NAMED.sub(lambda m: m.group(0)[:-1] + b"_", source)
    if b">" in source:  # `fun <T, R,> f()`: a type list's trailing comma (ktlint's style) broke the rest of the file
        source = _TRAILING_COMMA_IN_TYPES.sub(b" ", source)
    return semicolons_before(source, _KEYWORD_NAMED, NAME_OR_CLOSE)  # where the line above ends a statement


# a comma before a type list's `>` (mockk's `inline fun <reified T : (A1) -> R, R, A1,\n> invoke(...)`: the grammar
# read the rest of its 5,527-line file as one error); a lambda's `a, b, ->` keeps meaning the same without it
_TRAILING_COMMA_IN_TYPES = re.compile(rb",(?=\s*>)")


# `) : CoroutineScope by delegate {`: a supertype delegated to a name, then the class's body (the grammar reads
# `delegate { ... }` as a call with a trailing lambda, and the class's members were lost in it); not a property's
# `val x by lazy {` (a line that declares a `val` or `var`)
_CLASS_DELEGATION = re.compile(rb"^(?P<head>[^\n]*:[^\n]*)\bby[ \t]+[A-Za-z_][\w.]*(?=[ \t]*\{)", re.MULTILINE)


def _without_delegation(match: re.Match[bytes]) -> bytes:
    head = match.group("head")
    if re.search(rb"\b(?:val|var)\b", head):
        return match.group(0)
    return head + spaces(match.group(0)[len(head):])


def _without_guards(source: bytes) -> bytes:
    """`is Foo if (a &&\n b) ->` -> `is Foo` and spaces: an `if` after something on its line whose
    condition ends at `->`, on its line or, parenthesised, on a later one (ordinary code has `if (x)`
    then a value or a block, never an arrow)."""
    out = bytearray(source)
    for match in _GUARD.finditer(source):
        start = match.end()
        line_end = source.find(b"\n", start)
        arrow = source.find(b"->", start, line_end if line_end >= 0 else len(source))
        if arrow > start and b"{" not in source[start:arrow]:
            end = arrow - 1
        elif source[start:start + 1] == b"(":
            end = _closing(source, start)
        else:
            continue
        if end < 0 or not _ARROW.match(source, end + 1):
            continue
        out[match.start():end + 1] = spaces(source[match.start():end + 1])
    return bytes(out)


def _closing(source: bytes, opening: int) -> int:
    """The offset of the parenthesis that closes the one at `opening`, or -1."""
    depth = 0
    for offset in range(opening, min(len(source), opening + 2000)):
        byte = source[offset]
        if byte == 0x28:
            depth += 1
        elif byte == 0x29:
            depth -= 1
            if depth == 0:
                return offset
    return -1


LANGUAGE = LanguageRow(
    "kotlin", (".kt", ".kts"), Grammar("tree-sitter-kotlin", "tree_sitter_kotlin"),
    definitions=(("class_declaration", CLASS), ("object_declaration", CLASS), ("companion_object", CLASS),
                 ("function_declaration", FUNCTION), ("secondary_constructor", FUNCTION),
                 # `val P = plugin {...}` (lambda_values); `val N = object : Comparator<Int> {...}`: a class
                 ("property_declaration", FUNCTION)),
    instance_bodies=(("property_declaration", "class_body"),), lambda_values=("property_declaration",),
    containers=("class_body", "enum_class_body"),
    preamble=("package_header",), comments=("line_comment", "block_comment"), lead_prefixes=("@",),
    doc_prefixes=C_STYLE_DOCS, test_suffixes=("Test.kt", "Tests.kt", "Spec.kt"),
    imports=("import", "import_header"), receiver_before_name=True, keyword_named=("secondary_constructor",),
    standard_libraries=(*JVM_STANDARD, "kotlin", "kotlinx"), reversed_domains=True, graph=RULE,
    parser_bytes=readable_bytes,
    conventions=Conventions(test_id=class_and_method("#"), throws=("throw",),
                            constant=r"^\s*(?:(?:private|internal|public)\s+)?const\s+val\s+(?P<name>\w+)",
                            bodiless=True,
                            # an interface, and a multiplatform `expect class` (each platform's `actual` one implements)
                            contract=r"\s*(?:(?:public|private|internal|protected|sealed|expect|actual|fun)\s+)*interface\s"
                                     r"|\s*(?:(?:public|private|internal|protected)\s+)*expect\s+(?:\w+\s+)*(?:class|object)\b",
                            describing=("toString",), comparing=("equals", "hashCode", "compareTo"),
                            constructors=("constructor",)),
)
