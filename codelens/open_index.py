"""An open index: what every edge (the app, the CLI, evaluation, the MCP server) works with.

One object holds the Searcher (chunks, legs, models), the code graph and the chunk catalog
of one index, opened once; searches, evaluation runs and answers in words go through it, so
no edge sets them up on its own.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cached_property

from codelens.answer.ask import Answer, answer_question
from codelens.answer.context import ChunkCatalog, Neighbours
from codelens.answer.llm import ChatModel, TokenCallback
from codelens.answer.pack import Candidate, Packed, context_rules
from codelens.answer.task_context import (
    ALL_PARTS,
    DEFAULT_BUDGET,
    ContextLinks,
    ContextParts,
    context_candidates,
    task_context,
    task_lookups,
)
from codelens.answer.token_count import DEFAULT_TOKENIZER, counter_for
from codelens.chunk import Chunk
from codelens.evaluation import Question, run_evaluation
from codelens.graph.model import CodeGraph
from codelens.graph.query import neighbour_lookup
from codelens.graph.store import GraphNotFound, load_graph, open_stored_graph
from codelens.index.metadata import IndexStats
from codelens.models import Embedder
from codelens.search.filters import SearchFilters
from codelens.search.searcher import Hit, Searcher
from codelens.settings import Settings


class OpenIndex:
    """The index of `settings.index_dir`, opened: IndexNotFound, ModelMismatch or DatabaseError
    when it cannot be."""

    def __init__(self, settings: Settings, embedder: Embedder | None = None) -> None:
        self.settings = settings
        self.searcher = Searcher(settings, embedder=embedder)

    @property
    def stats(self) -> IndexStats:
        return self.searcher.stats

    @property
    def model(self) -> str:
        return self.searcher.model

    @property
    def workspace(self):
        """The repositories of the index (codelens/workspace.py): one, or those of a workspace."""
        return self.searcher.workspace

    @property
    def chunks(self) -> dict[str, Chunk]:
        return self.searcher.chunks

    def search(self, query: str, k: int = 5, filters: SearchFilters | None = None,
               depth: int | None = None) -> list[Hit]:
        return self.searcher.search(query, k=k, filters=filters, depth=depth)

    def warm_up(self) -> None:
        """The models (one English and one Russian question), the chunk catalog and the graph, now."""
        self.searcher.warm_up()
        _ = self.catalog, self.graph

    def refresh(self) -> bool:
        """Reopen what an index run swapped in since we opened it (a long-lived server's check)."""
        if not self.searcher.refresh():
            return False
        for cached in ("graph", "catalog", "links"):
            self.__dict__.pop(cached, None)
        return True

    @cached_property
    def graph(self) -> CodeGraph | None:
        """The code graph, or None for an index built before graphs existed."""
        try:
            return load_graph(self.settings.index_dir)
        except GraphNotFound:
            return None

    @cached_property
    def catalog(self) -> ChunkCatalog:
        """Every chunk of the index: what citations are checked against."""
        return ChunkCatalog(self.searcher.chunks.values())

    @cached_property
    def links(self) -> ContextLinks:
        """Stage B of task context over this index: the graph and the links found by name. The graph
        loaded when this process holds it (serve, MCP and the app load it warming up), else read edge by
        edge from its file: a fresh `codelens context` walks a few dozen nodes of it."""
        if "graph" in self.__dict__:
            return ContextLinks(self.catalog, self.graph, self.searcher.workspace.repo_of)
        try:
            graph = open_stored_graph(self.settings.index_dir)
        except GraphNotFound:
            graph = None
        return ContextLinks(self.catalog, graph, self.searcher.workspace.repo_of)

    def context(self, task: str, budget: int = DEFAULT_BUDGET, filters: SearchFilters | None = None,
                tokenizer: str = DEFAULT_TOKENIZER, line_numbers: bool = False,
                parts: ContextParts = ALL_PARTS) -> Packed:
        """The packed context of a task (answer/task_context.py), counted in `tokenizer`'s tokens (one of
        answer/token_count.TOKENIZERS), every line numbered when asked."""
        return task_context(task, self.search, self.links,
                            counter_for(tokenizer), budget, filters, task_lookups(self.searcher, filters), parts,
                            context_rules(line_numbers))

    def context_candidates(self, task: str, filters: SearchFilters | None = None,
                           parts: ContextParts = ALL_PARTS) -> list[Candidate]:
        """What `context` packs, before the packer: the seeds and the walk (bench/swebench.py ranks them)."""
        return context_candidates(task, self.search, self.links, filters,
                                  task_lookups(self.searcher, filters), parts)

    def neighbours(self) -> Neighbours | None:
        return neighbour_lookup(self.graph) if self.graph is not None else None

    def evaluate(self, questions: Sequence[Question], k: int = 5,
                 on_progress: Callable[[int, int], None] | None = None) -> dict:
        """Every question through the same search; the results.json object."""
        return run_evaluation(questions, lambda query, n: [h.to_dict() for h in self.search(query, n)],
                              self.model, k, on_progress=on_progress)

    def answer(self, question: str, hits: Sequence[Hit], client: ChatModel, budget_tokens: int,
               on_token: TokenCallback | None = None, on_retry: Callable[[], None] | None = None) -> Answer:
        """An answer in words from the hits and their graph neighbours, citations checked."""
        return answer_question(question, hits, client, self.catalog, neighbours=self.neighbours(),
                               budget_tokens=budget_tokens, on_token=on_token, on_retry=on_retry)
