"""Ruby: classes, modules and their methods (a `class << self` block's methods are its class's);
`require` and `require_relative`."""

from __future__ import annotations

from codelens.languages.model import CLASS, FUNCTION, Conventions, Grammar, GraphRule, LanguageRow

RULE = GraphRule(
    "ruby", (("call", ""),), (), ("superclass",), "ruby", self_words=("self",), implicit_self=True,
    noise=("require", "require_relative", "attr_accessor", "attr_reader", "attr_writer",
           "include", "extend", "private", "public", "protected", "raise"),
    assigned=(("assignment", "left", "right"),),
    library_methods=("to_s", "to_str", "to_sym", "to_i", "to_a", "to_h", "inspect", "respond_to?",
                     "nil?", "dup", "clone", "class", "is_a?", "kind_of?", "hash", "eql?", "send",
                     "freeze", "tap", "each", "map", "select", "empty?", "size", "length",
                     "include?", "key?", "merge", "call", "join", "split", "first", "last", "body",
                     "close", "read", "write", "delete", "fetch", "keys", "values", "to_proc",
                     "new"),
)


def test_id(path: str, owner: str, name: str) -> str:
    """`CartTest#test_adds_item` (minitest's `-n`, and how it reports a failure)."""
    return f"{owner}#{name}" if owner else f"{path}#{name}"


LANGUAGE = LanguageRow(
    "ruby", (".rb", ".rake", ".gemspec"), Grammar("tree-sitter-ruby", "tree_sitter_ruby"),
    file_names=("rakefile", "gemfile"), interpreters=("ruby",),
    definitions=(("class", CLASS), ("module", CLASS), ("method", FUNCTION), ("singleton_method", FUNCTION),
                 ("assignment", CLASS)),
    # `Correctable = Module.new do def to_s ... end`, `Point = Struct.new(:x, :y) { def dist ... }`: a type built
    # by a call's block, named by its constant (`Err = Class.new(StandardError)` defines nothing: a statement)
    instance_bodies=(("assignment", "body_statement"), ("assignment", "block_body")),
    # `class << self ... end` names nothing: its methods are the enclosing class's own
    # `included do ... end`, `class_methods do ... end` (a Rails concern): a call's block holds methods too
    # `begin ... rescue LoadError ... end` around a gem's optional part (sidekiq's ActiveJob adapter)
    # `if defined?(ActionMailer) ... class Devise::Mailer ... end`: a class defined where its dependency is loaded
    containers=("body_statement", "singleton_class", "call", "do_block", "begin", "if", "unless", "elsif", "then",
                "else"),
    doc_prefixes=("#",),
    # a class whose body holds only types and constants names them (grape's `module Grape; class Router; class
    # GreedyRoute` in router/greedy_route.rb: `Grape.Router` reopened there, not a second chunk of the file)
    namespaces=("module", "class"),
    test_suffixes=("_spec.rb", "_test.rb"),
    test_dirs=("spec", "step_definitions"), test_roots=("features",), imports=(), graph=RULE,  # RSpec's, Cucumber's
    # a constant is a name that starts upper-case, assigned
    conventions=Conventions(test_id=test_id, throws=("raise", "fail"),
                            constant=r"^\s*(?P<name>[A-Z][A-Z0-9_]*)\s*=(?!=)",
                            describing=("to_s", "inspect"), comparing=("==", "eql?", "hash", "<=>"),
                            constructors=("initialize",)),
)
