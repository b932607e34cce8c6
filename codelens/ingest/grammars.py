"""The one place a tree-sitter grammar is loaded: a `Grammar` record (`codelens.languages`) to its
`Language`, built once per process, and parsers for it. The chunker (`ingest/syntax.py`), Python's
fallback parser (`ingest/treesitter.py`) and the code graph (`graph/syntax_sites.py`) all load here.
"""

from __future__ import annotations

import importlib
import warnings
from functools import cache

from tree_sitter import Language, Parser

from codelens.languages import Grammar

PYTHON_GRAMMAR = Grammar("tree-sitter-python", "tree_sitter_python")


class GrammarUnavailable(Exception):
    """A row's grammar wheel is missing or broken: the message names the language and the package."""


@cache
def load_language(grammar: Grammar) -> Language:
    """The grammar's `Language` (building it is the costly part); GrammarUnavailable naming the wheel."""
    try:
        module = importlib.import_module(grammar.module)
        made = getattr(module, grammar.function)()
        with warnings.catch_warnings():
            if isinstance(made, int):  # a wheel built before capsules (tree-sitter-zig 1.1.2, its newest)
                warnings.simplefilter("ignore", DeprecationWarning)
            return Language(made)
    except (ImportError, AttributeError, TypeError, ValueError, OSError) as exc:
        raise GrammarUnavailable(f"{grammar.module} could not be loaded ({exc}) - "
                                 f"pip install {grammar.package}") from exc


def new_parser(grammar: Grammar) -> Parser:
    """A parser of its own (a parser is not shared between threads); GrammarUnavailable as load_language."""
    return Parser(load_language(grammar))


@cache
def shared_parser(grammar: Grammar) -> Parser:
    """One parser per grammar for the process: the chunker's, which parses one file at a time."""
    return new_parser(grammar)
