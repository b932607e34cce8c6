"""The names of definitions in the languages of `codelens.languages`: what a definition node is
called and which type it belongs to, language by language.

Internal to `codelens.ingest.syntax_walk`. The walk is the same for every language; what differs is
where a definition keeps its name: a Go method's receiver, a C declarator chain, Kotlin's
`fun Foo.bar()`, JavaScript's `const f = () => ...` and `Foo.prototype.bar = function`, Elixir's
`def` calls, Haskell's equations after their signature. Those rules live here, apart from the walk.
"""

from __future__ import annotations

import re

from codelens.languages import LanguageRow
from codelens.languages.model import CLASS, FUNCTION

_IDENTIFIER_TYPES = frozenset({
    "identifier", "type_identifier", "simple_identifier", "constant", "name", "property_identifier",
    "field_identifier", "word",
})
_FUNCTION_VALUES = frozenset({"arrow_function", "function_expression", "function", "generator_function"})
_EQUATIONS = frozenset({"function", "bind"})  # Haskell: `size (x:xs) = ...`, a value's `rate = 0.2`
_PASCAL_CLASSES = frozenset({"declClass", "declIntf", "declHelper"})  # records are declClass too
# what a declaration's anonymous class is found through: its declarator, `new X() {...}`, a call on
# it (`new X() {...}.nullSafe()`), Scala's `new X {...}` on its own line, Kotlin's `object : X {...}`,
# TypeScript's `{...} as const`; never an argument, a lambda or an array (that class is theirs)
_INSTANCE_PATH = frozenset({"variable_declarator", "variable_declaration", "object_creation_expression",
                            "assignment_expression", "class",  # `module.exports = class App {...}`
                            "method_invocation", "instance_expression", "indented_block", "object_literal",
                            "as_expression", "satisfies_expression", "parenthesized_expression",
                            "assignment_statement", "expression_list",  # Lua's `local M = {...}`
                            "call", "do_block", "block"})  # Ruby's `Point = Struct.new(:x) do ... end`
_GENERIC_CALL = re.compile(r"[\w.]+\s*<[\w\s.,<>?*]*>\s*\{")  # Kotlin's `TaskInitializer<Ctx> {`
_GTEST = re.compile(r"TEST|TEST_[FP]|TYPED_TEST(?:_P)?")
_NO_BODY = frozenset({"default_method_clause", "delete_method_clause"})
_VALUE_WRAPPERS = frozenset({"as_expression", "satisfies_expression", "parenthesized_expression",
                             "non_null_expression", "await_expression"})


class DefinitionNames:
    """One file's definition names: the row and the source bytes every rule reads."""

    def __init__(self, row: LanguageRow, source: bytes, component: str = "") -> None:
        self.row = row
        self.source = source
        self.component = component  # a Vue or Svelte file's name: what its options object is called
        self.instances: dict[str, frozenset[str]] = {}  # declaration node type -> the body types it may hold
        for declaration, body in row.instance_bodies:
            self.instances[declaration] = self.instances.get(declaration, frozenset()) | {body}
        self.bodied = dict(row.bodied)
        self.attribute_operator = row.graph.attribute_operator if row.graph is not None else ""
        self._instance_bodies: dict[int, object] = {}  # node id -> its anonymous class's body or None
        self._receivers: frozenset[str] | None = None  # Go: the types the file's methods are declared on

    def text(self, node) -> str:
        return self.source[node.start_byte:node.end_byte].decode("utf-8", errors="replace")

    def name(self, node) -> tuple[str, str] | None:
        """(name, owner type) of a definition node, None when it is no definition after all
        (`const x = 1`, a Go type alias, a struct named without a body)."""
        kind = node.type
        if self.row.defining_calls:
            return self._elixir_name(node)
        if kind in self.bodied and node.child_by_field_name(self.bodied[kind]) is None and not _closure_called(
                node.child_by_field_name("value")):
            return None  # Swift: a stored property is a statement, a computed one (or one a closure makes) a function
        if kind in self.row.inline_tests:  # Zig: `test "adds a price" {...}`, `test Cart {...}`
            named = _first_of(node, frozenset({"string", "identifier"}))
            return ("test " + self.text(named).strip('"') if named is not None else "test"), ""
        if self.row.type_values and self.row.kind_of(kind) == CLASS:  # Zig: `const Server = struct {...}`
            return self._declared_name(node) if self.instance_body(node) is not None else None
        if kind in self.row.named_inside:  # Dart's method_signature: the name is in the signature inside
            inner = node.named_children[0] if node.named_children else None
            return self._dart_name(inner) if inner is not None else None
        if kind == "type_synonym":  # Haskell's `type Popper = IO ByteString`: a type when its Haddock describes it
            name = node.child_by_field_name("name")
            return (self.text(name), "") if name is not None and self._documented(node) else None
        if kind in self.row.equations:  # Haskell: a signature, an equation (an operator's infix one too)
            return (equation, "") if (equation := self._haskell_name(node)) else None
        if kind in ("lexical_declaration", "variable_declaration"):
            return self._function_variable(node)
        if kind == "assignment_statement":  # Lua: `M.find_files = function(opts) ... end`
            return self._assigned_function(node)
        if kind == "return_statement":  # Lua: the module's table of functions, `return { format = function ...}`,
            # or the one function it is (busted's `return function(busted) ... end`, a factory of what it defines)
            returned = _first_of(node, frozenset({"expression_list"}))
            function = returned is not None and len(returned.named_children) == 1 and (
                returned.named_children[0].type == "function_definition")
            return (self.component, "") if self.component and (function or self.instance_body(node) is not None) \
                else None
        if kind == "type_alias_declaration":  # TypeScript: a one-line alias is a <module> statement
            name = node.child_by_field_name("name")
            return (self.text(name), "") if name is not None and node.end_point[0] - node.start_point[0] >= 2 else None
        if kind == "expression_statement":
            return self._function_statement(node)
        if kind in ("public_field_definition", "field_definition"):
            value = node.child_by_field_name("value")
            name = node.child_by_field_name("name") or node.child_by_field_name("property")
            return (self.text(name), "") if value is not None and value.type in _FUNCTION_VALUES and name else None
        if kind == "var_declaration":  # Go: `var notFoundHandler = func(c Context) error {...}`
            spec = node.named_children[0] if len(node.named_children) == 1 else None
            value = spec.child_by_field_name("value") if spec is not None and spec.type == "var_spec" else None
            functions = [c for c in value.named_children if c.type == "func_literal"] if value is not None else []
            name = spec.child_by_field_name("name") if functions and len(value.named_children) == 1 else None
            return (self.text(name), "") if name is not None else None
        if kind in ("type_declaration", "type_spec"):  # Go: a struct, an interface or a named type (below), one
            # per declaration or each of a grouped `type ( A struct {...}; B interface {...} )` (a container then)
            if kind == "type_spec":  # one spec alone is its declaration's
                grouped = sum(c.type == "type_spec" for c in node.parent.named_children) > 1
                specs = [node] if grouped else []
            else:
                specs = [c for c in node.named_children if c.type == "type_spec"]
            shape = specs[0].child_by_field_name("type") if len(specs) == 1 else None
            if shape is None:
                return None
            # any other named type (`type WalkFunc func(...)`, `type HeaderRouter map[...]...`) its doc
            # comment describes or the file gives methods: their owner, not a line of the file's <module>
            name = self.text(specs[0].child_by_field_name("name"))
            if shape.type not in ("struct_type", "interface_type") and not (
                    self._documented(node) or name in self._go_receivers(node)):
                return None
            return name, ""
        if kind == "destructor_declaration":  # C#'s finalizer `~LiteDatabase()`, not one more constructor (`#5`)
            name = node.child_by_field_name("name")
            return ("~" + self.text(name), "") if name is not None else None
        if kind == "type_definition":  # C: `typedef struct {...} name;`
            shape = node.child_by_field_name("type")
            declarator = node.child_by_field_name("declarator")
            if shape is None or shape.child_by_field_name("body") is None or declarator is None:
                return None
            return self.text(declarator), ""
        if kind in ("struct_specifier", "union_specifier", "enum_specifier", "class_specifier"):
            name = node.child_by_field_name("name")
            if name is None or node.child_by_field_name("body") is None:
                return None
            return _split_owner(_strip_templates(self.text(name)), "")
        if kind == "export_statement":  # a component's `export default {...}` or `defineComponent({...})`
            if self.row.sfc:
                return (self.component, "") if _options_object(node) is not None else None
            return self._default_function(node)
        if kind == "field":  # Lua: `hidden = function() ... end` in a table
            name, value = node.child_by_field_name("name"), node.child_by_field_name("value")
            return (self.text(name), "") if name is not None and value is not None and (
                value.type == "function_definition") else None
        if kind == "pair":  # `removeTag: function (tag) {...}` in a component's `methods`, or an object of them
            key, value = node.child_by_field_name("key"), node.child_by_field_name("value")
            return (self.text(key), "") if key is not None and value is not None and (
                _is_function_value(value) or self.instance_body(node) is not None) else None
        if kind == "defProc":  # Pascal: `procedure TList<T>.Add(...)`: the name is in its header
            header = node.child_by_field_name("header")
            name = header.child_by_field_name("name") if header is not None else None
            return _split_owner(_strip_templates(self.text(name)), "") if name is not None else None
        if kind == "declType":  # Pascal: `TFoo = class ... end`; `TId = Integer;` and `TFoo = class;` are statements
            shape, name = node.child_by_field_name("type"), node.child_by_field_name("name")
            if shape is None or name is None or shape.type not in _PASCAL_CLASSES or (
                    shape.end_point[0] == shape.start_point[0]):
                return None
            return _strip_templates(self.text(name)), ""
        if kind in ("property_declaration", "indexer_declaration") and (
                node.child_by_field_name("accessors") is not None or _arrow_valued(node)):  # C#
            return self._computed_property(node)
        if kind == "operator_declaration" and node.child_by_field_name("operator") is not None:  # C#, as C++ names
            return "operator" + self.text(node.child_by_field_name("operator")), ""  # `operator+`
        if kind == "conversion_operator_declaration":  # C#: `implicit operator JToken(bool value)`
            shape = node.child_by_field_name("type")
            return ("operator " + self.text(shape) if shape is not None else "operator"), ""
        if kind == "method_declaration" and node.child_by_field_name("receiver") is not None:
            return self._go_method(node)
        if kind in self.instances:
            return self._declared_name(node) if self.instance_body(node) is not None or self.is_lambda_value(node) \
                else None
        if kind == "given_definition" and node.child_by_field_name("name") is None:
            # Scala 3's anonymous `given Ordering[Price] with {...}`: the name the compiler gives it
            shape = node.child_by_field_name("return_type")
            return ("given_" + "_".join(re.findall(r"\w+", self.text(shape))), "") if shape is not None else None
        if kind == "subscript_declaration":  # Swift: `subscript(key: String) -> JSON` is no `JSON`
            return "subscript", ""
        if kind == "companion_object":
            name = _first_of(node, _IDENTIFIER_TYPES)
            return (self.text(name) if name else "Companion"), ""
        name = node.child_by_field_name("name")
        if kind == "function_definition" and any(c.type in _NO_BODY for c in node.children):
            return None  # C++'s `WriteOptions() = default;`, `= delete;`: no code, a line of its class
        if name is None and node.child_by_field_name("declarator") is not None:
            return self._declarator_name(node)
        if name is None:
            name = _first_of(node, _IDENTIFIER_TYPES)
        if name is None and kind in self.row.keyword_named and node.children:
            # `constructor(...)`, `deinit {...}`: the keyword, past modifiers (`protected constructor()`)
            return next((c.type for c in node.children if not c.is_named), node.children[0].type), ""
        if name is None:
            return None
        return _split_owner(self.text(name), self._receiver_type(node, name))

    def instance_body(self, node):
        """The body of the anonymous class a declaration's value makes, when it holds a function
        (`X = new Comparator<>() {...}`, an enum constant's own body, `const api = { get() {...} }`),
        else None."""
        if not self.row.type_values and node.type not in self.instances:
            return None
        if node.id not in self._instance_bodies:
            self._instance_bodies[node.id] = self._type_body(node) if self.row.type_values \
                else self._find_instance_body(node, self.instances[node.type])
        return self._instance_bodies[node.id]

    def _type_body(self, node):
        """Where a value makes a type (Zig): the body of the type a constant declares, fields alone or
        functions, or of the type a function returns (`fn List(T: type) type { return struct {...}; }`)."""
        if self.row.kind_of(node.type) == CLASS:
            return _first_of(node, frozenset(self.row.type_values))
        body = node.child_by_field_name("body") if self.row.kind_of(node.type) == FUNCTION else None
        for statement in body.named_children if body is not None else ():
            returned = _first_of(statement, frozenset({"return_expression"}))
            value = returned.named_children[0] if returned is not None and returned.named_children else None
            if value is not None and value.type in self.row.type_values:
                return value
        return None

    def _find_instance_body(self, node, wanted: frozenset[str]):
        # (a node, whether it is a value handed on: an argument of a call or an object's property)
        stack = [(child, node.type == "pair") for child in node.named_children]
        while stack:
            current, handed = stack.pop()
            if current.type in wanted:
                functions = [member for member in current.named_children if self._is_function(member)]
                if handed:  # a class of its own when a function is more than a line: trpc's `input: { serialize:
                    # (obj) => obj, ... }` and swr's `mergeObjects({ isPaused: () => false, ... })` are settings
                    functions = [f for f in functions if f.end_point[0] > f.start_point[0]]
                return current if functions else None
            if current.type in _INSTANCE_PATH:
                stack.extend((child, handed) for child in current.named_children)
            elif current.type in ("call_expression", "function_call"):  # Lua's `local Job = setmetatable({...}, mt)`
                stack.extend((body, handed) for body in _returned_class_bodies(current))
                # `module.exports = Any.extend({ validate() {...} })`, `defineStore('cart', { actions: {...} })`;
                # not a property's descriptor (`Object.defineProperty(o, 'size', { get() {...} })`: one function)
                arguments, called = current.child_by_field_name("arguments"), current.child_by_field_name("function")
                if arguments is not None and arguments.type == "arguments" and (
                        called is None or self.text(called) not in _DEFINE_PROPERTY):
                    # the first argument looked at first: the class's table before its metatable
                    stack.extend((argument, True) for argument in reversed(arguments.named_children))
        return None

    def _is_function(self, node) -> bool:
        return self.row.kind_of(node.type) == FUNCTION and self.name(node) is not None

    def is_lambda_value(self, node) -> bool:
        """`val plugin = createClientPlugin("X") { ... }` over three lines or more: a function by its name; so is
        `val HTTP = TaskInitializer<Ctx> { ... }` (the grammar reads `<` and `>` as comparisons around the
        lambda), a property computed by a getter's block (`val value: T get() { ... }`) or once by a delegate's
        (ktorm's `val totalRecordsInAllPages: Int by lazy { ... }`, the count query's code). Scala's `implicit val
        booleanRead: Read[Boolean] = reads { ... }` (a call ending in a block or cases: scopt's value parsers,
        http4s' `HttpRoutes.of[IO] { case ... }`) and `val f: A => B = { x => ... }` alike."""
        if node.type not in self.row.lambda_values or node.end_point[0] - node.start_point[0] < 2:
            return False
        value = node.child_by_field_name("value")
        if value is not None and value.type == "indented_block" and len(value.named_children) == 1:
            value = value.named_children[0]  # `=` ending its line: the value below, indented
        if value is not None and ((value.type == "call_expression" and value.named_children
                                   and value.named_children[-1].type in ("block", "case_block"))
                                  or value.type == "lambda_expression"
                                  or (value.type == "block" and any(c.type == "lambda_expression"
                                                                    for c in value.named_children))):
            return True
        return any(
            (child.type == "call_expression" and any(c.type == "annotated_lambda" for c in child.named_children))
            or (child.type == "binary_expression" and child.named_children
                and child.named_children[-1].type == "lambda_literal"
                and _GENERIC_CALL.match(self.text(child)) is not None)
            or (child.type == "getter" and any(c.type == "block" for c in _descendants(child, 2)))
            or (child.type == "property_delegate" and any(
                c.type == "call_expression" and any(a.type == "annotated_lambda" for a in c.named_children)
                for c in child.named_children))
            for child in node.named_children)

    def _declared_name(self, node) -> tuple[str, str] | None:
        """The name a declaration declares: one declarator's, a pattern's, an enum constant's."""
        declarators = [c for c in node.named_children if c.type in ("variable_declarator", "variable_declaration")]
        if len(declarators) > 1:
            return None
        holder = declarators[0] if declarators else node
        name = holder.child_by_field_name("name") or holder.child_by_field_name("pattern") or _first_of(
            holder, _IDENTIFIER_TYPES)
        return (self.text(name), "") if name is not None and name.type in _IDENTIFIER_TYPES else None

    def last_part(self, node):
        """The last sibling a definition spans: Dart's function_body after its signature; Haskell's
        equations (`size [] = 0`, `size (x:xs) = ...`, a value's `rate = 0.2`) after its type signature and
        the first one, past the pragmas between them (`{-# INLINABLE size #-}`)."""
        if node.type in self.row.body_beside:
            body = node.next_named_sibling
            return body if body is not None and body.type == "function_body" else node
        if self.row.clauses and not self.is_attribute(node) and (
                dict(self.row.defining_calls).get(self.called_word(node)) == FUNCTION):
            return self._last_clause(node)
        if node.type in self.row.overloads:
            return self._last_overload(node)
        if self.row.typed_constants and node.type == self.row.typed_constants[0]:
            return self._typed_constants(node) or node
        if node.type in self.row.equations:
            name, last = self._haskell_name(node), node
            sibling = node.next_named_sibling
            while sibling is not None and (sibling.type in ("haddock", "pragma", "comment", "cpp") or (
                    sibling.type in _EQUATIONS and self._haskell_name(sibling) == name)):
                if sibling.type in _EQUATIONS or (sibling.type == "cpp" and re.search(
                        rf"^{re.escape(name)}\s", self.text(sibling), re.M)):  # `#else` and its other equations
                    last = sibling
                sibling = sibling.next_named_sibling
            return last
        return node

    def _typed_constants(self, node):
        """The constants declared right after a type, past comments, whose first is of that type (Go's enum:
        `type Level int` then `const ( Debug Level = iota; Info ... )`), else None."""
        specs = [c for c in node.named_children if c.type == "type_spec"]
        name = specs[0].child_by_field_name("name") if len(specs) == 1 else None
        values = node.next_named_sibling
        while values is not None and values.type in self.row.comments:
            values = values.next_named_sibling
        if name is None or values is None or values.type != self.row.typed_constants[1]:
            return None
        first = next((c for c in values.named_children if c.type == "const_spec"), None)
        typed = first.child_by_field_name("type") if first is not None else None
        return values if typed is not None and self.text(typed) == self.text(name) else None

    def _last_overload(self, node):
        """TypeScript: the implementation after a run of overload signatures of its name (siblings, or each the
        declaration of an `export` sibling), past the comments between them; the node itself when none follows
        (an interface's or a `.d.ts` file's signatures declare)."""
        name = node.child_by_field_name("name")
        if name is None:
            return node
        wrapped = node.parent is not None and node.parent.type == "export_statement"
        sibling = (node.parent if wrapped else node).next_named_sibling
        while sibling is not None:
            if sibling.type in self.row.comments:
                sibling = sibling.next_named_sibling
                continue
            inner = sibling.child_by_field_name("declaration") if wrapped and sibling.type == "export_statement" \
                else None if wrapped else sibling
            other = inner.child_by_field_name("name") if inner is not None else None
            if other is None or self.text(other) != self.text(name) or self.row.kind_of(inner.type) is None:
                return node
            if inner.type not in self.row.overloads:
                return inner  # the implementation
            sibling = sibling.next_named_sibling
        return node

    def _dart_name(self, signature) -> tuple[str, str] | None:
        """A Dart member by its signature: a named or factory constructor by its own name (`factory
        MediaType.parse(...)` is `parse`, `IOWebSocket._(...)` is `_`; an unnamed one by its class's), an
        operator as `operator==` (dart-lang/http's factories and `==` were no chunks, its named constructors
        all the class's name)."""
        if signature.type == "operator_signature":
            operator = _first_of(signature, frozenset({"binary_operator"}))
            return ("operator" + self.text(operator) if operator is not None else "operator"), ""
        if signature.type in ("constructor_signature", "factory_constructor_signature",
                              "constant_constructor_signature", "redirecting_factory_constructor_signature"):
            names = [c for c in signature.named_children if c.type == "identifier"]
            return (self.text(names[-1]), "") if names else None
        name = signature.child_by_field_name("name")
        return (self.text(name), "") if name is not None else None

    def _haskell_name(self, node) -> str:
        """A signature's or an equation's name; an operator's in parentheses, as its signature writes it:
        `Cart [] .+. other = other` is `(.+.)`'s equation, ``a `divides` b = ...`` is `divides`'s."""
        name = node.child_by_field_name("name")
        if name is not None:
            return self.text(name)
        infix = _first_of(node, frozenset({"infix"}))
        operator = infix.child_by_field_name("operator") if infix is not None else None
        if operator is None:
            return ""
        return f"({self.text(operator)})" if operator.type == "operator" else self.text(operator).strip("`")

    def _last_clause(self, node):
        """Elixir: the last of a function's clauses (`def handle_info({:timeout, ...}, s)`, `def handle_info(:stop,
        s)`...), consecutive definitions of its name, past the attributes and comments between them."""
        name, last = self._elixir_name(node), node
        sibling = node.next_named_sibling
        words = {word for word, made in self.row.defining_calls if made == FUNCTION}
        while sibling is not None:
            if sibling.type in self.row.comments or self.is_attribute(sibling):
                sibling = sibling.next_named_sibling
                continue
            if self.row.kind_of(sibling.type) is None or self.called_word(sibling) not in words or (
                    self._elixir_name(sibling) != name):
                break
            last, sibling = sibling, sibling.next_named_sibling
        return last

    def is_attribute(self, node) -> bool:
        """Elixir's `@doc "..."`, `@spec f(x) :: t`, `@impl true`: a compile-time attribute."""
        return is_attribute(node, self.attribute_operator)

    def called_word(self, node) -> str:
        """The word a call calls (Elixir's `def`, `defmodule`): whether it defines, and what; an attribute's
        with its `@` (`@callback`)."""
        if self.is_attribute(node):
            inner = node.named_children[0] if node.named_children else None
            return "@" + self.called_word(inner) if inner is not None and inner.type == "call" else ""
        target = node.child_by_field_name("target")
        return self.text(target) if target is not None and target.type == "identifier" else ""

    def _elixir_name(self, node) -> tuple[str, str] | None:
        """`defmodule Plug.Conn do`, `def send(conn, body) do`, `def helper(x) when x > 0, do:`, `@callback
        backoff(Job.t()) :: pos_integer()`, `@callback prepare_for_draining(state) :: {:noreply, [t], state}
        when t: term` (broadway's: the type's own `when` around its `::`)."""
        if self.is_attribute(node):
            node = node.named_children[0]
        arguments = next((c for c in node.named_children if c.type == "arguments"), None)
        head = arguments.named_children[0] if arguments is not None and arguments.named_children else None
        for _ in range(3):  # a guard: `f(x) when ...`; a typespec `f(x) :: t`, and a `when` around that
            if head is None or head.type != "binary_operator":
                break
            head = head.child_by_field_name("left")
        if head is not None and head.type == "call":
            head = head.child_by_field_name("target")
        if head is None or head.type not in ("identifier", "alias"):
            return None
        if self.called_word(node) == "defimpl":  # `defimpl String.Chars, for: Postgrex.Query`: the module
            return self._implementation_name(arguments, self.text(head)), ""  # Elixir makes of the pair
        return self.text(head), ""

    def _implementation_name(self, arguments, protocol: str) -> str:
        """`String.Chars.Postgrex.Query`, as Elixir names a protocol's implementation for a type; the protocol
        alone where `for:` is left to the module around it (four `DBConnection.Query` in postgrex were one name)."""
        keywords = _first_of(arguments, frozenset({"keywords"}))
        for pair in keywords.named_children if keywords is not None else ():
            key, value = pair.child_by_field_name("key"), pair.child_by_field_name("value")
            if key is not None and value is not None and self.text(key).rstrip(": ") == "for" and (
                    value.type == "alias"):
                return f"{protocol}.{self.text(value)}"
        return protocol

    def _function_variable(self, node) -> tuple[str, str] | None:
        """`const fetchUser = async (id) => ...`: a function by another syntax."""
        declarators = [c for c in node.named_children if c.type == "variable_declarator"]
        if not declarators and (assignment := _first_of(node, frozenset({"assignment_statement"}))) is not None:
            return self._assigned_function(assignment, node)  # Lua: `local run = function(cmd) ... end`
        if len(declarators) != 1:
            return None
        value = declarators[0].child_by_field_name("value")
        name = declarators[0].child_by_field_name("name")
        if value is None or name is None or name.type != "identifier" or not (
                _is_function_value(value) or self.instance_body(node) is not None):  # `const api = {get() {...}}`
            return None
        return self.text(name), ""

    def _assigned_function(self, node, declaration=None) -> tuple[str, str] | None:
        """Lua's `M.find_files = function(opts) ... end`: a function by the one name it is assigned to (a
        function of M, as `function M.find_files(opts)` is), and so is one a call wraps (`M.show =
        vim.schedule_wrap(function(actions, cb) ... end)`: oil.nvim's, in two nameless `<module>` parts);
        `local conditions = { hidden = function() ... end }`, a table of functions, is a class of them."""
        names = _first_of(node, frozenset({"variable_list"}))
        values = _first_of(node, frozenset({"expression_list"}))
        if names is None or values is None or len(names.named_children) != 1 or len(values.named_children) != 1:
            return None
        value = values.named_children[0]
        if value.type != "function_definition" and not _wrapped_function(value) and (
                self.instance_body(declaration or node) is None):
            return None
        return _split_owner(self.text(names.named_children[0]), "")

    def _function_statement(self, node) -> tuple[str, str] | None:
        """JavaScript's `res.status = function status(code) {...}`, `Foo.prototype.bar = () => ...`,
        `module.exports = function createApplication() {...}`, `req.get = req.header = function header(name)
        {...}`: a function (of its object); a call handed
        one named function (`_function_argument`) defines that."""
        assignment = node.named_children[0] if node.named_children else None
        if assignment is not None and assignment.type == "call_expression":
            return self._defined_property(assignment) or self._function_argument(assignment)
        if assignment is None or assignment.type != "assignment_expression":
            return None
        left, right = assignment.child_by_field_name("left"), assignment.child_by_field_name("right")
        while right is not None and right.type == "assignment_expression":  # `req.get = req.header = function`
            right = right.child_by_field_name("right")  # one function by its first name, the one it is used by
        if left is None or right is None:
            return None
        if right.type not in _FUNCTION_VALUES:
            return self._assigned_instance(node, left, right)
        name, owner = self._assigned_to(left)
        own = right.child_by_field_name("name")
        if (name, owner) == ("exports", ""):  # what the module exports: by its own name, else by the module's
            return (self.text(own) if own is not None else self.component or name), ""
        return name, owner

    def _assigned_to(self, left) -> tuple[str, str]:
        """(name, owner) of what a JavaScript assignment sets: `Foo.prototype.bar` -> (bar, Foo), `exports.bar`
        and `module.exports.bar` -> (bar, ""): the module's own; `module.exports` and `exports` -> (exports, "")."""
        name, owner = _split_owner(self.text(left).replace(".prototype", ""), "")
        return name, "" if owner in ("module", "exports", "module.exports") else owner

    def _assigned_instance(self, node, left, right) -> tuple[str, str] | None:
        """`module.exports = class Application extends Emitter {...}`, `module.exports = { get host() {...} }`,
        `Cart.prototype = { add() {...} }`: a class of the functions it holds, by the class's own name, else
        by what it is assigned to, the module's by the file's name (what an importer calls it)."""
        if self.instance_body(node) is None:
            return None
        own = right.child_by_field_name("name") if right.type == "class" else None
        if own is not None:
            return self.text(own), ""
        name, owner = self._assigned_to(left)
        return (self.component or name, "") if (name, owner) == ("exports", "") else (name, owner)

    def _default_function(self, node) -> tuple[str, str] | None:
        """`export default function (config) {...}`, `export default supported && function httpAdapter(config)
        {...}`, `export default supported && (async (config) => {...})`: the module's function, by its own
        name or else by the file's (what an importer calls it)."""
        value = node.child_by_field_name("value")
        while value is not None and value.type not in _FUNCTION_VALUES:  # down to the function, one child a step
            if value.type in ("binary_expression", "ternary_expression"):  # `supported && function ...`
                value = next((c for c in reversed(value.named_children)
                              if c.type in _FUNCTION_VALUES or c.type in _VALUE_WRAPPERS), None)
            elif value.type in _VALUE_WRAPPERS and value.named_children:
                value = value.named_children[0]
            else:
                return None
        if value is None or not self.component:
            return None
        own = value.child_by_field_name("name")
        return (self.text(own) if own is not None else self.component), ""

    def _defined_property(self, call) -> tuple[str, str] | None:
        """`Object.defineProperty(winston, 'level', { get() {...}, set(v) {...} })`: a property its functions
        compute, of the object it is defined on (`Foo.prototype`'s is Foo's)."""
        function, arguments = call.child_by_field_name("function"), call.child_by_field_name("arguments")
        if function is None or self.text(function) not in _DEFINE_PROPERTY or arguments is None:
            return None
        target, key, descriptor = (list(arguments.named_children) + [None] * 3)[:3]
        if key is None or key.type != "string" or descriptor is None or descriptor.type != "object":
            return None
        if not any(c.type == "method_definition" or (c.type == "pair" and _is_function_value(c.child_by_field_name(
                "value"))) for c in descriptor.named_children):
            return None
        name, owner = self.text(key).strip("'\"`"), self.text(target).replace(".prototype", "")
        if not _IDENTIFIER.match(name):
            return None
        return name, "" if owner in ("module", "exports", "module.exports") else owner

    def _function_argument(self, call) -> tuple[str, str] | None:
        """`defineGetter(req, 'host', function host() {...})`, `app.use(function logger(req, res) {...})`:
        a call handed one named function defines it; an anonymous one (`it('adds', () => ...)`) does not."""
        arguments = call.child_by_field_name("arguments")
        named = [a.child_by_field_name("name") for a in (arguments.named_children if arguments else [])
                 if a.type in ("function_expression", "function", "generator_function")]
        named = [n for n in named if n is not None]
        return (self.text(named[0]), "") if len(named) == 1 else None

    def _computed_property(self, node) -> tuple[str, str] | None:
        """A C# property or indexer that computes over lines (a `get` or `set` with a body, `=>` and an expression
        below): a function of its class, an indexer named `this[]`. An auto-property (`{ get; set; }`, maybe
        `= 3`) is a field of it, and so is a one-line `public string[] FieldNames => fieldNames;` (Dapper's
        took a top-3 place from the code that maps the columns)."""
        accessors = node.child_by_field_name("accessors")
        bodies = [a for a in (accessors.named_children if accessors else ()) if a.child_by_field_name("body")]
        if node.start_point[0] == node.end_point[0] or not (bodies or _arrow_valued(node)):
            return None
        if node.type == "indexer_declaration":
            return "this[]", ""
        name = node.child_by_field_name("name")
        return (self.text(name), "") if name is not None else None

    def _documented(self, node) -> bool:
        """A comment ends on the line above the node: a comment node beside it (Go's `// WalkFunc is ...`, a `/* */`
        block), or a line of its language's doc comments where the comment is no sibling (Haskell's Haddock above a
        file's first declaration stands outside them)."""
        above = node.prev_named_sibling
        if above is not None and above.type == "comment" and above.end_point[0] == node.start_point[0] - 1:
            return True
        start = self.source.rfind(b"\n", 0, node.start_byte)
        above = self.source.rfind(b"\n", 0, max(start, 0)) if start > 0 else -1
        line = self.source[above + 1:start].decode("utf-8", errors="replace").strip() if start > 0 else ""
        return bool(line) and line.startswith(self.row.doc_prefixes)

    def _go_receivers(self, node) -> frozenset[str]:
        """The types the file's methods are declared on (read once per file)."""
        if self._receivers is None:
            self._receivers = frozenset(owner for c in file_root(node).named_children if c.type == "method_declaration"
                                        and (named := self._go_method(c)) is not None and (owner := named[1]))
        return self._receivers

    def _go_method(self, node) -> tuple[str, str] | None:
        receiver = node.child_by_field_name("receiver")
        name = node.child_by_field_name("name")
        types = [n for n in _descendants(receiver, 6) if n.type == "type_identifier"]
        if name is None:
            return None
        return self.text(name), self.text(types[0]) if types else ""

    def _declarator_name(self, node) -> tuple[str, str] | None:
        """C and C++: the name sits at the end of a chain of declarators (`*`, `&`, `f(...)`)."""
        current = node
        for _ in range(16):
            if current.type == "operator_cast":  # its own declarator is its `() const`
                break
            inner = current.child_by_field_name("declarator")
            if inner is None and current.type == "reference_declarator" and current.named_child_count:
                inner = current.named_children[-1]  # C++'s `T &f()`: the grammar gives `&`'s declarator no field
            if inner is None:
                break
            current = inner
        cast = current if current.type == "operator_cast" else (
            current.named_children[-1] if current.type == "qualified_identifier" and current.named_children else None)
        if cast is not None and cast.type == "operator_cast":
            # a conversion operator (`xml_node::operator bool() const`) is named by its type's last name, in its
            # class when written outside it: `xml_node.operator bool`, not `xml_node.operator bool() const`
            converted = cast.child_by_field_name("type")
            written = _strip_templates(self.text(converted)).rsplit("::", 1)[-1] if converted is not None else ""
            owner = _strip_templates(self.text(current.named_children[0])) if current is not cast else ""
            return " ".join(f"operator {written}".split()), owner.replace("::", ".")
        if current.type == "qualified_identifier" and b"::" not in current.text and (
                named := current.child_by_field_name("name")) is not None:
            # `static ATTRIBUTE_NOINLINE FileDescriptor OpenObjectFile(...)`: the macro read as the type, the type as a
            # scope with its `::` missing (glog); the function is the name
            current = named
        if current.type not in ("identifier", "field_identifier", "qualified_identifier", "destructor_name",
                                "operator_name", "type_identifier", "template_function"):  # `find<char>`
            return None
        shape = node.child_by_field_name("type")
        if shape is not None and current.type == "identifier" and (
                cast := re.fullmatch(r"(.+)::\s*operator", self.text(shape))) is not None:
            # `Result::operator bool() const {...}` outside its class: the grammar reads `Result::operator` as
            # the type and `bool` as the name
            return _split_owner(f"{_strip_templates(cast.group(1))}::operator {self.text(current)}", "")
        if _GTEST.fullmatch(self.text(current)) and shape is None:
            # GoogleTest's `TEST_F(ServerTest, GetMethod200) {...}`: the test of its suite (--gtest_filter's name)
            parameters = current.parent.child_by_field_name("parameters") if current.parent is not None else None
            named = [self.text(p) for p in parameters.named_children] if parameters is not None else []
            if len(named) == 2 and all(re.fullmatch(r"\w+", n) for n in named):
                return named[1], named[0]
        # one line, single spaces: a chunk id never holds a line break (`operator new`, a macro left in)
        return _split_owner(" ".join(_strip_templates(self.text(current)).split()), "")

    def _receiver_type(self, node, name) -> str:
        """Kotlin's `fun Foo.bar()`: the type named before the function's name."""
        if node.type != "function_declaration" or not self.row.receiver_before_name:
            return ""
        for child in node.named_children:
            if child.start_byte >= name.start_byte:
                break
            if child.type in ("user_type", "nullable_type"):
                return _strip_templates(self.text(child)).rstrip("?")
        return ""

    def is_owner(self, node) -> bool:
        if node.type in self.row.owners or self._extension_block(node):
            return True
        # Swift: `extension Foo { ... }` is a class_declaration that starts with `extension`
        return node.type == "class_declaration" and node.child_count > 0 and node.children[0].type == "extension"

    def namespace(self, node) -> str | None:
        """The name of a namespace that defines nothing but types and constants (`module Rack::Auth` around `class
        Basic`), `Rack.Auth`, and registers them in a line (roda's `register_plugin(:halt, Halt)` in `module
        RodaPlugins`, once per plugin file: a whole-file chunk of each); None for a node that is none, a module with
        methods or statements of its own. One its doc comment describes is a definition all the same (the walk
        decides: syntax_walk's `_described`)."""
        if node.type not in self.row.namespaces:
            return None
        name, body = node.child_by_field_name("name"), node.child_by_field_name("body")
        members = [c for c in body.named_children if c.type not in self.row.comments] if body is not None else []
        if name is None or not any(self.row.kind_of(c.type) == CLASS for c in members) or not all(
                c.type in self.row.namespaces or self.row.kind_of(c.type) == CLASS or _constant_set(c)
                or registering_call(c) for c in members):
            return None
        return self.text(name).replace("::", ".")

    def _blanket_trait(self, node) -> str | None:
        """Rust's blanket `impl<S, T: Iterator<Item = S>> ProgressIterator for T`: its methods are the trait's
        (`ProgressIterator.progress_with`), not a type parameter's (`T.progress_with`, in two files of indicatif)."""
        if node.type != "impl_item":
            return None
        trait, shape, parameters = (node.child_by_field_name(f) for f in ("trait", "type", "type_parameters"))
        if trait is None or shape is None or parameters is None:
            return None
        # each parameter's name: a type_identifier itself, or the first child of a `type_parameter` (`T: Iterator`)
        named = (p if p.type == "type_identifier" else next(iter(p.named_children), None)
                 for p in parameters.named_children)
        declared = {self.text(n) for n in named if n is not None and n.type == "type_identifier"}
        return _strip_templates(self.text(trait)).split("::")[-1] if self.text(shape) in declared else None

    def _extension_block(self, node) -> bool:
        """C# 14's `extension(IRestClient client) { ... }`, which the grammar reads as a constructor named
        `extension`: its members are its static class's (RestSharp's `BuildUri` was one chunk `extension`)."""
        if node.type != "constructor_declaration":
            return False
        name = node.child_by_field_name("name")
        return name is not None and self.text(name) == "extension"

    def owner_name(self, node) -> str:
        if self._extension_block(node):
            return ""
        patterns = node.child_by_field_name("patterns") if node.type == "instance" else None
        named = next((n for n in _descendants(patterns, 4) if n.type == "name"), None) if patterns else None
        if named is not None:
            return self.text(named)  # Haskell: `instance ToJSON a => ToJSON (Maybe a)` is Maybe's
        if (blanket := self._blanket_trait(node)) is not None:
            return blanket
        shape = (node.child_by_field_name("type") or node.child_by_field_name("name") or _receiver_type(node)
                 or _first_of(node, frozenset({"user_type", "type_identifier"}))
                 or _first_of(node, frozenset({"identifier"})))  # Objective-C's `@implementation Cart`
        if shape is None:
            return ""
        while shape.type in ("reference_type", "pointer_type") and shape.child_by_field_name("type") is not None:
            shape = shape.child_by_field_name("type")  # Rust's `impl<'a, S: Sink> Sink for &'a mut S`: S's
        # Scala 3's `extension [T](parse0: => P[T])`: a by-name receiver is its type's
        return _strip_templates(self.text(shape)).split("::")[-1].strip().removeprefix("=>").strip()


def _closure_called(value) -> bool:
    """Swift's `static let defaultUserAgent: HTTPHeader = { ... }()`: a value a closure of lines computes once."""
    return (value is not None and value.type == "call_expression" and value.named_children
            and value.named_children[0].type == "lambda_literal" and value.end_point[0] > value.start_point[0])


_DEFINE_PROPERTY = frozenset({"Object.defineProperty", "Reflect.defineProperty"})
_IDENTIFIER = re.compile(r"^[A-Za-z_$][\w$]*$")


def file_root(node):
    """The tree's root node above a node."""
    while node.parent is not None:
        node = node.parent
    return node


def _arrow_valued(node) -> bool:
    value = node.child_by_field_name("value")
    return value is not None and value.type == "arrow_expression_clause"


def is_attribute(node, operator: str) -> bool:
    """A compile-time attribute, the unary `operator` its language writes one with (Elixir's `@spec total(x) ::
    t`, `GraphRule.attribute_operator`); never one where the language has none ("")."""
    return bool(operator) and node is not None and node.type == "unary_operator" and node.child_count > 0 and (
        node.children[0].text == operator.encode())


def _options_object(export):
    """The object a component exports: `export default {...}`, `export default defineComponent({...})`."""
    value = export.child_by_field_name("value")
    if value is not None and value.type == "call_expression":
        arguments = value.child_by_field_name("arguments")
        value = arguments.named_children[0] if arguments is not None and arguments.named_children else None
    return value if value is not None and value.type == "object" else None


def _is_function_value(value) -> bool:
    """`() => ...`, `function () {...}`, and a call handed one: `forwardRef((props) => ...)`,
    zod's `$constructor("$ZodString", (inst, def) => {...})`: what the constant is, is that function; or one called
    at once (mobx's `let globalState = (function () {...})()`): the code that makes the constant."""
    value = _unwrapped(value)
    if value.type in _FUNCTION_VALUES:
        return True
    if value.type != "call_expression":
        return False
    if _called_at_once(value) is not None:  # `(function () {...})()`: what it makes
        return True
    arguments = value.child_by_field_name("arguments")
    return arguments is not None and any(_unwrapped(a).type in _FUNCTION_VALUES for a in arguments.named_children)


def _returned_class_bodies(call) -> list:
    """The bodies of the classes a function called at once declares (h3's `const H3 = /* @__PURE__ */ (() => {
    class H3 extends H3Core {...}; return H3 })()`): the constant is that class, its methods its own."""
    function = _called_at_once(call)
    body = function.child_by_field_name("body") if function is not None else None
    classes = [c for c in body.named_children if c.type == "class_declaration"] if body is not None else []
    return [b for c in classes if (b := c.child_by_field_name("body")) is not None]


def _called_at_once(call):
    """The function a call expression calls where it is written (`(() => {...})()`), else None."""
    called = call.child_by_field_name("function")
    function = _unwrapped(called) if called is not None else None
    return function if function is not None and function.type in _FUNCTION_VALUES else None


def _unwrapped(value):
    """A value past its casts and parentheses (mobx's `assign(function flow(...) {...} as any, annotation)`)."""
    while value.type in _VALUE_WRAPPERS and value.named_children:
        value = value.named_children[0]
    return value


def _wrapped_function(value) -> bool:
    """Lua's call handed one function of lines (`vim.schedule_wrap(function() ... end)`, a debounce, a memo):
    the function the call returns, in effect."""
    arguments = value.child_by_field_name("arguments") if value.type == "function_call" else None
    functions = [a for a in arguments.named_children if a.type == "function_definition"] if arguments else []
    return len(functions) == 1 and functions[0].end_point[0] - functions[0].start_point[0] >= 2


def registering_call(node) -> bool:
    """Ruby's one-line call of names, symbols and strings in a namespace (`register_plugin(:halt, Halt)`,
    `autoload :Basic, "rack/auth/basic"`): it records its types, it does nothing of its own."""
    if node.type != "call" or node.start_point[0] != node.end_point[0] or node.child_by_field_name("block"):
        return False
    arguments = node.child_by_field_name("arguments")
    return arguments is not None and all(a.type in _REGISTERED for a in arguments.named_children)


_REGISTERED = frozenset({"simple_symbol", "constant", "scope_resolution", "string"})


def _constant_set(node) -> bool:
    """Ruby's `CommandLineOptionError = Class.new(StandardError)`: a constant a namespace holds."""
    left = node.child_by_field_name("left") if node.type == "assignment" else None
    return left is not None and left.type == "constant"


def _split_owner(name: str, owner: str) -> tuple[str, str]:
    """`Foo::bar` -> (bar, Foo); `Foo.bar` (Lua, Kotlin) likewise; a plain name keeps its owner, and so do an
    operator (Haskell's `(.&&.)`, Scala's `:::`) and a computed key (`[Symbol.iterator]`, got's
    `[Symbol.for('...custom')]`)."""
    if (name.startswith("(") and name.endswith(")")) or (name.startswith("[") and name.endswith("]")) or (
            not re.search(r"\w", name)):  # Scala's `:::` and `::`, operators of colons
        return name, owner
    for separator in ("::", ":", "."):
        if separator in name:
            head, _, tail = name.rpartition(separator)
            return tail.strip(), ".".join(part for part in head.replace("::", ".").split(".") if part)
    return name.strip(), owner


def _strip_templates(text: str) -> str:
    """`Wrapper<T>` -> `Wrapper`; `formatter<T, Char>::parse` -> `formatter::parse`."""
    if "operator" in text:  # `operator<`, `Foo::operator[]`: the brackets are the name
        return text.strip()
    if "#" in text:  # a directive inside a specialization's arguments (`#if FMT_MSC_VERSION >= 1910`)
        text = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))
    out, depth = [], 0
    for char in text:
        if char in "<[":
            depth += 1
        elif char in ">]" and depth:
            depth -= 1
        elif depth == 0:
            out.append(char)
    return "".join(out).strip().lstrip("*&").strip()


def _receiver_type(node):
    """The type of an owner's first parameter: Scala 3's `extension (c: Cart)` (and `(xs: List[T])`)."""
    parameters = node.child_by_field_name("parameters")
    first = parameters.named_children[0] if parameters is not None and parameters.named_children else None
    return first.child_by_field_name("type") if first is not None else None


def _first_of(node, types: frozenset[str]):
    return next((c for c in node.named_children if c.type in types), None)


def _descendants(node, depth: int):
    stack = [(node, 0)]
    while stack:
        current, level = stack.pop()
        yield current
        if level < depth:
            stack.extend((child, level + 1) for child in reversed(current.named_children))
