"""The roles a file plays beside the code that implements the project, by its path, and the words of a
question that asks for such a file.

Tests exercise a mechanism and examples and benchmarks use it: they repeat its words and names. A change
log names what each release touched, in the words of every question about it; a licence has the words of plain
English ("source", "form", "copy", "submitted"). The UI's texts in some
language hold every word of a question in that language (a Russian question meets `messages_ru.properties`
first). Each ranks below the code unless the question asks for it (`ranking_order.CodeBeforeTests`).
"""

from __future__ import annotations

import re
from functools import lru_cache

from codelens.ingest.formats import file_format

# A path's roles, remembered: a search's ranking asks them of every fused candidate (hundreds for a
# pasted task), and a path's role never changes
_PATHS_KEPT = 65_536

TESTS, EXAMPLES, HISTORY, TRANSLATIONS, LEGAL = "tests", "examples", "history", "translations", "legal"

_ASKS = {
    # "tests for the router", «как тестируется сессия»
    TESTS: re.compile(r"\b(?:tests?|testing|tested|specs?|тест\w*)\b", re.IGNORECASE),
    # "an example of a REST server", «пример», "the router benchmark"
    EXAMPLES: re.compile(r"\b(?:examples?|samples?|snippets?|demos?|tutorials?|benchmark\w*|bench(?:es)?|"
                         r"пример\w*|демо\w*|бенчмарк\w*)\b", re.IGNORECASE),
    # "what changed in 2.0", «что нового в версии»
    HISTORY: re.compile(r"\b(?:chang\w*|release\w*|versions?|history|new|deprecat\w*|upgrad\w*|migrat\w*|breaking|"
                        r"изменени\w*|измени\w*|релиз\w*|верси\w*|истори\w*|обновлени\w*|нового|новое)\b",
                        re.IGNORECASE),
    # "the translation of the login form", «перевод», «текст ошибки»
    # (not «перевод строки», a line break)
    TRANSLATIONS: re.compile(r"\b(?:translat\w*|i18n|l10n|locali[sz]\w*|locales?|messages?|wording|"
                             r"перевод\w*(?!\s+строк)|переведен\w*|локализ\w*|сообщени\w*|надпис\w*|текст\w*)\b",
                             re.IGNORECASE),
    # "under which license", «какая лицензия», "who holds the copyright"
    LEGAL: re.compile(r"\b(?:licen[cs]\w*|copyright\w*|notice|warrant\w*|лиценз\w*|копирайт\w*|авторск\w*|"
                      r"прав\w* на)\b", re.IGNORECASE),
}

# the project's licence and notices: petclinic's LICENSE.txt ("Source form", "Object form", "submitted") ranked
# first for three questions about code; `LICENSE-MIT`, `COPYING`, `NOTICE`, `LICENSE.md`
_LEGAL_FILE = re.compile(r"^(?:licen[cs]e|copying|copyright|notice|unlicense)(?:[-_][\w-]*)?"
                         r"(?:\.(?:txt|md|markdown|rst|adoc))?$", re.IGNORECASE)  # never `license.rs`

# Folders of programs that use the code rather than implement it (chi's `_examples/rest/main.go`, Hono's
# `benchmarks/routers/`, Rust's `benches/`, pinia's and Nuxt's `playground/`, the documentation's compiled code
# samples: Polly's `src/Snippets/Docs/Retry.cs`)
_EXAMPLE_DIRS = frozenset({"example", "examples", "_examples", "sample", "samples", "demo", "demos",
                           "bench", "benchmark", "benchmarks", "benches", "playground", "playgrounds",
                           "snippet", "snippets",
                           "jmh",  # the JVM's benchmark source set (zio-json's `src/jmh/`, first for a UUID question)
                           "docs_src"})  # the FastAPI family's tutorial programs (fastapi, typer, sqlmodel)
# a folder named as one of them and what it shows: dio's `example_dart/`, `example_flutter_app/`, `examples-vue/`,
# `flutter_example/`
_EXAMPLE_NAMED = re.compile(r"(?:examples?|samples?|demos?)[_-][\w-]+|[\w-]+[_-](?:examples?|samples?|demos?)",
                            re.IGNORECASE)
_DOCS_DIRS = frozenset({"doc", "docs"})
# what a generator writes into the user's project (Rails' `lib/generators/devise/templates/controllers/...rb`, ERB
# the grammar half reads: devise's initializer template was first for two questions about its code)
_GENERATOR_TEMPLATE = re.compile(r"(?:^|/)generators?/(?:[^/]+/)*templates/")
# a benchmark program by its name, wherever it is: sidekiq's `bin/multi_queue_bench`, leveldb's `db_bench.cc`,
# `bench_parse.py`; never a module named for what it provides (`src/benchmark.rs`)
_BENCH_FILE = re.compile(r"[_-]bench(?:mark)?s?(?:[_.-]|$)|^bench(?:mark)?s?[_-]", re.IGNORECASE)
# `CHANGELOG.md`, `HISTORY.rst`; also a named part of one, a document (`change-archive.txt`, `CHANGES-2.x.md`)
_HISTORY_FILE = re.compile(r"^(?:(?:change_?log|changes|history|news|releases?|release[_-]notes|whatsnew)"
                           r"(?:\.(?:mdx?|markdown|rst|txt|adoc|org))?"
                           r"|(?:change_?log|changes?|history|release[_-]?notes)[-_][\w.-]+\.(?:mdx?|markdown|rst|txt|adoc|org)"
                           # an edition's own log: sidekiq's `Ent-Changes.md`, `Pro-Changes.md`
                           r"|\w+[-_](?:change_?log|changes|history)\.(?:mdx?|markdown|rst|txt|adoc|org))$",
                           re.IGNORECASE)
# a folder of them: towncrier's fragments, a release's notes each in a file (roda's `doc/release_notes/3.1.0.txt`:
# in the top 5 of 5 of 16 questions asked of it)
_HISTORY_DIRS = frozenset({"changelog", "changes", "changelog.d", "changelogs", "release_notes", "release-notes",
                           "releasenotes"})
# Spring's `messages_ru.properties`, `locales/ru.json`, `ru/LC_MESSAGES/app.po`, Laravel's `lang/ru/`,
# Android's `values-ru/strings.xml`, .NET's `Resources.ru.resx`
_TRANSLATION_DIRS = frozenset({"locales", "locale", "i18n", "l10n", "lang", "langs", "translations", "lc_messages"})
_TRANSLATION_FILE = re.compile(
    r"(?:^(?:messages|strings|translations?)(?:[_.-][a-z]{2}(?:[_-][a-z]{2,4})?)?"
    r"|[_.-](?:ru|en|de|fr|es|it|pt|zh|ja|ko|tr|fa|uk|pl|nl|ar)(?:[_-][a-z]{2})?)"
    r"\.(?:properties|json|ya?ml|po|pot|xml|resx|strings|arb|ftl|xlf|xliff)$"
    r"|(?:^|[_.-])lang[_.-][a-z]{2}(?:[_-][a-z]{2,4})?\.\w+$", re.IGNORECASE)  # PHPMailer's `phpmailer.lang-ru.php`


def asks_for(role: str, question: str) -> bool:
    """The question asks for files of that role (then they keep their score)."""
    return _ASKS[role].search(question) is not None


@lru_cache(maxsize=_PATHS_KEPT)
def is_example_path(path: str, code: bool = False) -> bool:
    """A file under an examples or benchmarks folder (`_examples/`, `samples/`, `benches/`, `example_dart/`), at any
    depth, or a benchmark program by its name (`db_bench.cc`, `bin/multi_queue_bench`); with `code`, code under the
    documentation's folder too, which builds or illustrates the docs (jansson's Sphinx extension
    `doc/ext/refcounting.py` first for "where is the reference count decremented", `doc/github_commits.c`); a
    generator's templates (`lib/generators/devise/templates/`)."""
    parts = path.split("/")
    return any(part.lower() in _EXAMPLE_DIRS or _EXAMPLE_NAMED.fullmatch(part) is not None
               or (code and part.lower() in _DOCS_DIRS) for part in parts[:-1]) or (
        _BENCH_FILE.search(parts[-1]) is not None) or _GENERATOR_TEMPLATE.search(path) is not None


@lru_cache(maxsize=_PATHS_KEPT)
def is_history_path(path: str) -> bool:
    """The project's change log (`CHANGELOG.md`, `CHANGES.rst`, `HISTORY.md`, towncrier's `changes/` fragments)."""
    parts = path.lower().split("/")
    return _HISTORY_FILE.match(parts[-1]) is not None or any(part in _HISTORY_DIRS for part in parts[:-1])


# The documentation translated: pinia's `docs/zh/`, `README.zh-CN.md`, `README_ja.md`. Not Russian (the
# language CodeLens is asked in) nor English (the original, where there is one); not `it`, `id`, `cs` either
# (Maven's `src/it/`, folders of ids, of C#)
_DOC_LANGUAGES = "zh|ja|ko|es|fr|de|pt|tr|fa|pl|nl|ar|vi|uk|cn|tw|jp|kr"
_DOC_LANGUAGE_DIR = re.compile(rf"^(?:{_DOC_LANGUAGES})(?:[_-][a-z]{{2,4}})?$")
_TRANSLATED_README = re.compile(rf"^readme[._-](?:{_DOC_LANGUAGES})(?:[_-][a-z]{{2,4}})?\.")
_DOCUMENT_FORMATS = frozenset({"markdown", "rst", "text"})  # formats.file_format's documents


@lru_cache(maxsize=_PATHS_KEPT)
def is_legal_path(path: str) -> bool:
    """The project's licence or notice (`LICENSE`, `LICENSE.txt`, `LICENSE-MIT`, `COPYING`, `NOTICE`)."""
    return _LEGAL_FILE.match(path.rsplit("/", 1)[-1]) is not None


@lru_cache(maxsize=_PATHS_KEPT)
def is_translation_path(path: str) -> bool:
    """A file of the UI's texts in some language: a message bundle, a locale's JSON or .po, Android's `values-ru/`;
    or the documentation translated (`docs/zh/`, `README.zh-CN.md`)."""
    parts = path.lower().split("/")
    if file_format(parts[-1]) in _DOCUMENT_FORMATS and (
            _TRANSLATED_README.match(parts[-1]) or any(_DOC_LANGUAGE_DIR.match(part) for part in parts[:-1])):
        return True
    return (parts[-1].endswith((".po", ".pot")) or _TRANSLATION_FILE.search(parts[-1]) is not None
            or any(part in _TRANSLATION_DIRS or part.startswith("values-") for part in parts[:-1]))
