"""`python -m codelens ask`: search, then an answer in words from the found code (needs an LLM endpoint)."""

from __future__ import annotations

import argparse
import json
import sys

from codelens.cli.common import EXIT_CODES_HELP, add_common, hit_line, settings_of
from codelens.cli.search import hit_count
from codelens.search.limits import MAX_K


def add_ask_command(commands: argparse._SubParsersAction) -> None:
    from codelens.answer.llm import HOW_TO_ENABLE

    ask = commands.add_parser(
        "ask", help="answer a question in words from the found code (needs an LLM endpoint)",
        description="Search, then let an OpenAI-compatible LLM answer from the found code only; every cited "
                    "path:line and symbol is checked against the index.",
        epilog=f"{HOW_TO_ENABLE}\n\n{EXIT_CODES_HELP}",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ask.add_argument("question", help="question, Russian or English")
    ask.add_argument("-k", type=hit_count, default=5, help=f"search hits to answer from, 1 to {MAX_K} (default 5)")
    ask.add_argument("--json", action="store_true", help='print {"answer", "citations", "hits"} as JSON')
    ask.add_argument("--budget", type=int, default=None,
                     help="context tokens sent to the model (default 2500, env CODELENS_LLM_CONTEXT_TOKENS)")
    add_common(ask)


def cmd_ask(args: argparse.Namespace) -> int:
    from codelens.answer.llm import HOW_TO_ENABLE, ChatClient, LLMConfig
    from codelens.open_index import OpenIndex

    settings = settings_of(args)
    config = LLMConfig.from_settings(settings)  # first: half a configuration fails before any work
    index = OpenIndex(settings)
    hits = index.search(args.question, k=args.k)
    if config is None:
        return _print_hits_only(hits, args.json, HOW_TO_ENABLE)
    if not args.json:
        print("Sources:" if hits else "no results")
        print("\n".join(hit_line(hit.to_row()) for hit in hits) + "\n")
    stream = _AnswerStream() if not args.json and sys.stdout.isatty() else None
    answer = index.answer(args.question, hits, ChatClient(config), args.budget or config.context_tokens,
                          on_token=stream.token if stream else None, on_retry=stream.retry if stream else None)
    if args.json:
        print(json.dumps({**answer.to_dict(), "hits": [h.to_dict() for h in hits]}, ensure_ascii=False, indent=2))
        return 0
    if stream is None or stream.shown.strip() != answer.text:
        print("\n\nWith citations checked:\n" if stream else "Answer:\n", end="")
        print(answer.text)
    print("\nCitations:" if answer.citations else "")
    for citation in answer.citations:
        where = f"-> {citation.chunk_id}" if citation.verified else "NOT IN THE INDEX"
        print(f"  {citation.ref}  {where}")
    return 0


def _print_hits_only(hits: list, as_json: bool, how_to_enable: str) -> int:
    if as_json:
        print(json.dumps({"answer": "", "citations": [], "hits": [h.to_dict() for h in hits], "enabled": False,
                          "how_to_enable": how_to_enable}, ensure_ascii=False, indent=2))
        return 0
    print("\n".join(hit_line(hit.to_row()) for hit in hits) if hits else "no results")
    print(f"\nAnswers in words are off. {how_to_enable}")
    return 0


class _AnswerStream:
    """Prints the answer as it streams in; remembers what the last attempt showed."""

    def __init__(self) -> None:
        self.shown = ""

    def token(self, delta: str) -> None:
        if not self.shown:
            print("Answer:")
        self.shown += delta
        sys.stdout.write(delta)
        sys.stdout.flush()

    def retry(self) -> None:
        print("\n\n(some citations were not in the index - asking again)\n")
        self.shown = ""
