"""`codelens context TASK` (the code a task needs, packed to a token budget) and `codelens impact`
(what a change touches and which tests to run). Wired into codelens.cli.main.

Input is checked before the index is opened (an empty task, a megabyte, binary bytes, a budget
out of range): each is a BadInput with the fix in its message, and nothing is written.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from codelens.cli.common import EXIT_CODES_HELP, add_common, settings_of
from codelens.errors import BadInput

_READ_LIMIT = 50_000_000  # what is read of stdin or a file before it is called too big (the checks say why)


def add_context_commands(commands: argparse._SubParsersAction) -> None:
    from codelens.answer.impact import DEFAULT_DEPTH
    from codelens.answer.task_context import DEFAULT_BUDGET
    from codelens.answer.token_count import DEFAULT_TOKENIZER, TOKENIZERS

    context = commands.add_parser(
        "context", help="the code a task needs (an issue, a bug report), packed to a token budget",
        description="Search finds the seeds of the task; the code graph adds what they call, the classes they "
                    "pass, the exceptions they raise, their callers, the tests that call them, the configuration "
                    "they read and the documents that name them; nearest first, each piece once, far ones as "
                    "signatures, within --budget tokens (counted in --tokenizer's: o200k by default, the BPE of "
                    "GPT-4o and later; cl100k that of GPT-4; e5 the search model's own). Each piece's header "
                    "says path:start-end; --line-numbers numbers every line of its code too.",
        epilog=EXIT_CODES_HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    context.add_argument("task", help="the task's text, `-` to read it from stdin, or @FILE")
    context.add_argument("--budget", type=int, default=DEFAULT_BUDGET,
                         help=f"tokens the pieces may take in all (default {DEFAULT_BUDGET})")
    context.add_argument("--tokenizer", default=DEFAULT_TOKENIZER, metavar="{" + ",".join(TOKENIZERS) + "}",
                         help=f"the tokens --budget is counted in (default {DEFAULT_TOKENIZER}); all offline")
    context.add_argument("--line-numbers", action="store_true",
                         help="number every line of code (default: the start line in each piece's header)")
    context.add_argument("--json", action="store_true",
                         help='print {"budget", "tokens", "pieces": [...], "tokenizer", "line_numbers"}')
    context.add_argument("--path", default="", help="seeds only from paths starting with this prefix")
    context.add_argument("--include-tests", action="store_true", help="seeds may be test code too")
    context.add_argument("--repo", action="append", default=None, metavar="NAME",
                         help="seeds only from this repository of a workspace (repeatable)")
    add_common(context)

    impact = commands.add_parser(
        "impact", help="what a change touches: changed definitions, their callers, the tests to run",
        description="The definitions a diff adds, changes or removes (the working tree against HEAD by default, "
                    "REV, A..B, --staged, or --diff FILE), who calls them to --depth, the tests that reach them "
                    "through the code graph, and the documents that name them. git runs read-only.",
        epilog=EXIT_CODES_HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    impact.add_argument("revision", nargs="?", default=None, metavar="REV | A..B",
                        help="diff the working tree against REV, or A against B (default: against HEAD)")
    impact.add_argument("--staged", action="store_true", help="the staged change (git diff --cached)")
    impact.add_argument("--diff", default=None, metavar="FILE", help="a unified diff in a file (`-`: stdin)")
    impact.add_argument("--depth", type=int, default=DEFAULT_DEPTH,
                        help=f"how many steps of callers (default {DEFAULT_DEPTH})")
    impact.add_argument("--repo", default=None, metavar="NAME",
                        help="the repository of a workspace the change is in (its paths are relative to it)")
    impact.add_argument("--json", action="store_true", help='print {"changed", "affected", "tests", "documents"}')
    add_common(impact)


# ------------------------------------------------------------------ context


def read_task(argument: str) -> str:
    """The task: the argument itself, stdin for `-`, a file's text for @FILE; BadInput when it is not text."""
    if argument == "-":
        return _text(sys.stdin.buffer.read(_READ_LIMIT + 1), "stdin")
    if argument.startswith("@") and len(argument) > 1:
        path = Path(argument[1:])
        try:
            with path.open("rb") as handle:
                return _text(handle.read(_READ_LIMIT + 1), str(path))
        except OSError as exc:
            raise BadInput(f"cannot read the task from {path}: {exc.strerror or exc} - check the path") from None
    return argument


def _text(data: bytes, where: str) -> str:
    if b"\x00" in data:
        raise BadInput(f"{where} is not text (it holds NUL bytes) - pass the issue's text")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise BadInput(f"{where} is not UTF-8 text - pass the issue's text") from None


def cmd_context(args: argparse.Namespace) -> int:
    from codelens.answer.task_context import check_budget, check_task, to_markdown
    from codelens.answer.token_count import check_tokenizer
    from codelens.index.collector import collector_paused
    from codelens.open_index import OpenIndex
    from codelens.search.filters import SearchFilters

    task = check_task(read_task(args.task))  # before the index opens: bad input costs nothing
    check_budget(args.budget)
    check_tokenizer(args.tokenizer)
    settings = settings_of(args)
    packed = _context_on_server(args, settings, task)
    if packed is None:  # in this process, once: it makes objects and no cycles, so no collector passes
        with collector_paused():
            index = OpenIndex(settings)
            repos = index.workspace.check_names(args.repo) if args.repo else ()
            filters = SearchFilters(path_prefix=args.path, include_tests=args.include_tests, repos=tuple(repos))
            packed = index.context(task, args.budget, filters, args.tokenizer, args.line_numbers).to_dict()
    if args.json:
        print(json.dumps(packed, ensure_ascii=False, indent=2))
    else:
        print(to_markdown(packed, task))
    return 0


def _context_on_server(args: argparse.Namespace, settings, task: str) -> dict | None:
    """The context from a running `codelens serve` of this index (warm: no model or index to load),
    or None when there is none, or when it counted in another tokenizer or numbered the lines
    otherwise than asked (a server older than those fields ignores them)."""
    from codelens.answer.token_count import COUNTER_NAMES
    from codelens.serve.client import find_server, remote_context

    address = find_server(settings.index_dir, settings.chroma_url)
    if address is None:
        return None
    packed = remote_context(address, {"task": task, "budget": args.budget, "path_prefix": args.path,
                                      "include_tests": args.include_tests, "repos": list(args.repo or ()),
                                      "model": args.model, "tokenizer": args.tokenizer,
                                      "line_numbers": args.line_numbers})
    if packed is None or packed.get("tokenizer") != COUNTER_NAMES[args.tokenizer] or \
            packed.get("line_numbers", True) != args.line_numbers:
        return None
    return packed


# ------------------------------------------------------------------ impact


def cmd_impact(args: argparse.Namespace) -> int:
    from codelens.answer.diff import git_diff, repository_label, repository_root
    from codelens.answer.impact import check_depth, impact_of, to_text
    from codelens.open_index import OpenIndex

    check_depth(args.depth)
    if args.diff is not None and (args.revision or args.staged):
        raise BadInput("--diff FILE takes the change from the file: leave out REV and --staged")
    diff_text = read_task(args.diff if args.diff == "-" else f"@{args.diff}") if args.diff is not None else None
    index = OpenIndex(settings_of(args))
    prefix = repository_label(index.workspace, args.repo)
    if diff_text is None:
        diff_text = git_diff(repository_root(index.stats.source, index.workspace, prefix), args.revision, args.staged)
    found = impact_of(diff_text, index.catalog, index.graph, index.links, args.depth, prefix)
    print(json.dumps(found.to_dict(), ensure_ascii=False, indent=2) if args.json else to_text(found))
    return 0


CONTEXT_COMMANDS = {"context": cmd_context, "impact": cmd_impact}
