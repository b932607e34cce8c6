"""Lua: functions (`function M.f()`, `function M:m()`, `M.f = function() ... end`, `local f = function`);
modules by `require`."""

from __future__ import annotations

from codelens.languages.model import FUNCTION, Conventions, Grammar, GraphRule, LanguageRow
from codelens.languages.shared import INNER_DEFINITIONS_OVER, jest_style

RULE = GraphRule(
    "lua", (("function_call", "name"),), (), (), "lua", self_words=("self",),
    noise=("require", "print", "pairs", "ipairs", "type", "tostring", "tonumber", "error", "assert",
           "setmetatable", "getmetatable", "pcall", "select", "rawget", "rawset", "unpack"),
)

LANGUAGE = LanguageRow(
    "lua", (".lua",), Grammar("tree-sitter-lua", "tree_sitter_lua"), interpreters=("lua", "luajit"),
    # `M.find_files = function(opts) ... end` and `local run = function(cmd) ... end` are functions too
    definitions=(("function_declaration", FUNCTION), ("assignment_statement", FUNCTION),
                 ("variable_declaration", FUNCTION), ("field", FUNCTION), ("return_statement", FUNCTION)),
    # `local conditions = { hidden = function() ... end }`: a table of functions is a class of them; so is
    # the one a module returns (`return { format = function(self, ctx) ... end }`), by the file's name
    instance_bodies=(("variable_declaration", "table_constructor"), ("assignment_statement", "table_constructor"),
                     ("return_statement", "table_constructor")),
    # a top-level `do ... end` (its locals kept to it) and `if lfs_ok then ... else ... end` (a feature's two
    # versions): the functions in them are the module's (luarocks' fs/lua.lua held forty in `<module>` windows)
    containers=("do_statement", "if_statement", "elseif_statement", "else_statement", "block"),
    doc_prefixes=("--",), head_doc=True, test_suffixes=("_spec.lua", "_test.lua"), graph=RULE,
    test_dirs=("spec",),  # busted's default root, helpers and fixtures too (`spec/cl_failing_support.lua`)
    # a long function holds chunks of its own: a module that returns its factory (busted's `return
    # function(busted) ... end`, every `busted.*` function inside)
    inner_definitions_over=INNER_DEFINITIONS_OVER,
    # busted's `describe`/`it` names, as Jest's; Lua has no constants but its `<const>` locals (5.4)
    conventions=Conventions(test_id=jest_style, throws=("error",),
                            constant=r"^\s*local\s+(?P<name>\w+)\s*<const>"),
)
