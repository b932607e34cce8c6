"""Haskell: a function is its type signature and its equations (siblings the chunker joins); data
types, newtypes, classes and instances; a module `Shop.Cart` is the file `Shop/Cart.hs`."""

from __future__ import annotations

from codelens.languages.model import CLASS, FUNCTION, Conventions, Grammar, GraphRule, LanguageRow

# the Prelude's functions: never the codebase's
_PRELUDE = ("print", "putStrLn", "putStr", "show", "read", "return", "pure", "fmap", "map", "filter", "foldr",
            "foldl", "sum", "product", "length", "null", "head", "tail", "fst", "snd", "id", "const", "not",
            "error", "undefined", "maybe", "either", "concat", "concatMap", "zip", "zipWith", "reverse", "elem",
            "lookup", "mapM_", "mapM", "sequence", "when", "unless", "otherwise", "fromIntegral", "toInteger",
            "max", "min", "div", "mod", "seq", "flip", "uncurry", "curry", "take", "drop", "replicate", "lines",
            "unlines", "words", "unwords", "Just", "Nothing", "Left", "Right", "True", "False")

# `f x y` is `apply (apply f x) y`: the callee is the innermost function; `M.lookup k m` a qualified one
RULE = GraphRule("haskell", (("apply", "function"),), (), (), "haskell", self_words=(), noise=_PRELUDE,
                 name_nodes=("variable", "constructor"), member_nodes=("qualified",))


def test_id(path: str, owner: str, name: str) -> str:
    """`Cart/total adds the prices` (hspec's `--match`: the `describe` and `it` names, joined by `/`)."""
    return f"{owner}/{name}" if owner else name


LANGUAGE = LanguageRow(
    "haskell", (".hs",), Grammar("tree-sitter-haskell", "tree_sitter_haskell"),
    # a function is its type signature and its equations, siblings the chunker joins
    # (a value, `rate = 0.2`, is a `bind`)
    definitions=(("signature", FUNCTION), ("function", FUNCTION), ("bind", FUNCTION), ("data_type", CLASS),
                 ("newtype", CLASS), ("class", CLASS),
                 # `type Popper = IO ByteString` under its Haddock (an undocumented synonym is a line of <module>)
                 ("type_synonym", CLASS)),
    containers=("declarations", "class_declarations", "instance_declarations"),
    # `instance Show Identifier where show i = ...`: its equations are the type's (`Identifier.show`), as a
    # Rust impl's functions are; the class it implements is in their code
    owners=("instance",),
    # a `{-# LANGUAGE CPP #-}` pragma is no statement: the module's Haddock above its header is its doc
    preamble=("header",), comments=("comment", "haddock", "pragma"), doc_prefixes=("--",), doc_marks=("-- |",),
    test_suffixes=("Spec.hs", "Test.hs"), imports=("imports",), equations=("signature", "function", "bind"),
    graph=RULE,
    # a top-level binding is a constant by nature; the convention that says so is an upper-case-free name
    # with a type and no arguments, which no line pattern tells from a function: none is claimed
    conventions=Conventions(test_id=test_id, throws=("error", "throwIO", "throw")),
)
