"""The short forms code writes for long words, both ways: a question says "environment variables" where
the code says `proxy_from_env`, or "DB settings" where it says `database`. The keyword leg adds a
question word's other forms (a short form is the same word), so the name matches without the model's
help. Russian questions get the same through the English words the word bridge and the glossary give
them. The whole-file words (`file-words`) take none: measured, no gain.

Each group is one meaning; every word in it reaches the others. Only forms whose meaning in code is
settled are listed (`res` is a response in every web framework; `re` is not listed: a regular expression
in Python, a prefix elsewhere)."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from functools import cache

from codelens.search.terms import index_term

KNOWN_WEIGHT = 0.5  # a form's weight beside its word when the code writes the word too (bench/RESULTS.md)

_GROUPS = (
    "environment env", "configuration config cfg conf", "database db", "directory dir",
    "authentication auth", "authorization auth authz", "context ctx", "message msg", "request req",
    "response res resp", "arguments args arg", "parameters params param", "initialize init",
    "temporary tmp temp", "buffer buf", "length len", "connection conn", "address addr",
    "allocate alloc", "implementation impl", "attribute attr attrs", "element elem", "pointer ptr",
    "reference ref", "source src", "destination dst dest", "specification spec", "utilities utils util",
    "package pkg", "repository repo", "manager mgr", "server srv", "variable var vars", "previous prev",
    "current cur curr", "maximum max", "minimum min", "command cmd", "certificate cert",
    "password passwd pwd", "description desc", "information info", "statistics stats",
    "synchronous sync", "asynchronous async", "object obj", "character char", "integer int",
    "boolean bool", "callback cb", "options opts opt", "sequence seq", "iterator iter",
    "expression expr", "statement stmt", "transaction txn tx", "generate gen", "calculate calc",
    "execute exec", "number num", "index idx", "count cnt", "function func fn", "error err",
    "string str", "value val", "document doc", "library lib", "miscellaneous misc", "format fmt",
)


@cache
def _forms() -> Mapping[str, tuple[str, ...]]:
    """Each word's index term -> the index terms of the other words of its groups."""
    forms: dict[str, dict[str, None]] = {}
    for group in _GROUPS:
        terms = [index_term(word) for word in group.split()]
        for term in terms:
            forms.setdefault(term, {}).update(dict.fromkeys(t for t in terms if t != term))
    return {term: tuple(others) for term, others in forms.items()}


def other_forms(term: str) -> tuple[str, ...]:
    """The index terms of `term`'s other forms (`environ` -> `env`), none for most words."""
    return _forms().get(term, ())


def with_other_forms(weighted: Mapping[str, float], terms: Iterable[str],
                     vocabulary: Collection[str]) -> dict[str, float]:
    """`weighted` (query terms -> weights) with the other forms the index knows of each of them and of
    `terms` (the question's own terms, known to the index or not): at the word's weight where the code never
    writes the word itself ("environment" reaching `env`), at KNOWN_WEIGHT of it where it does (the form
    is a second spelling beside a word that already matched: a FastAPI app's `db` in every endpoint)."""
    out = dict(weighted)
    for term, weight in [*((t, 1.0) for t in terms), *weighted.items()]:
        share = weight * KNOWN_WEIGHT if term in vocabulary else weight
        for form in other_forms(term):
            if form in vocabulary:
                out[form] = max(out.get(form, 0.0), share)
    return out
