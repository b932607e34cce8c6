"""Retrievers, fusion and the word bridge on tiny corpora with exact expected ranks."""

from __future__ import annotations

from itertools import pairwise
from typing import ClassVar

import numpy as np
import pytest

from codelens.chunk import CODE_KINDS, FILE_KINDS
from codelens.search.bridge import WordBridge, bridge_vocabulary, pseudo_english
from codelens.search.dense import ChromaDenseRetriever, MatrixDenseRetriever
from codelens.search.english import EnglishVectors, EnsembleDense
from codelens.search.filters import ChunkScope, SearchFilters, mixed_scope
from codelens.search.fusion import ABOVE_CODE, convex_fusion
from codelens.search.glossary import compound_at, glossary_words
from codelens.search.lexical import LONG_QUESTION_TERMS, LexicalIndex, LexicalRetriever
from codelens.search.pipeline import HybridPipeline, shipped_pipeline
from codelens.search.query import Candidate, LegResult, Query, top_n
from codelens.search.ranking import ranking_stages
from codelens.search.ranking_symbols import RankingIndex
from codelens.search.searcher import Searcher
from tests.conftest import make_chunk

CHUNKS = [
    make_chunk("app/auth.py::hash_password",
           "def hash_password(password):\n    salt = new_salt()\n    return sha(password)\n"),
    make_chunk("app/auth.py::login", "def login(user, password):\n    ok = check(user, password)\n    return ok\n"),
    make_chunk("app/db.py::connect", "def connect(url):\n    engine = make(url)\n    return engine\n"),
    make_chunk("app/models.py::User.__repr__", "def __repr__(self):\n    return self.name\n", kind="method"),
]
IDS = [c.chunk_id for c in CHUNKS]
# Orthonormal "meanings": each chunk its own axis, so dense scores are exact.
VECTORS = np.eye(4, dtype=np.float32)


def _unit(*weights: float) -> np.ndarray:
    vector = np.array(weights, dtype=np.float32)
    return vector / np.linalg.norm(vector)


def test_top_n_is_best_first_with_stable_ties() -> None:
    assert list(top_n(np.array([0.1, 0.9, 0.5, 0.9]), 3)) == [1, 3, 2]
    assert list(top_n(np.array([0.3]), 5)) == [0]


def test_dense_retriever_ranks_by_cosine() -> None:
    result = MatrixDenseRetriever(IDS, VECTORS).retrieve(Query("q", _unit(0.2, 0.1, 0.9, 0.0)), 3)
    assert [c.chunk_id for c in result.candidates] == ["app/db.py::connect", IDS[0], IDS[1]]
    assert result.candidates[0].score == pytest.approx(0.9 / np.sqrt(0.86), rel=1e-5)


def test_lexical_retriever_weight_is_the_share_of_known_terms() -> None:
    retriever = LexicalRetriever(LexicalIndex.from_chunks(CHUNKS))
    english = retriever.retrieve(Query.from_text("hash password"), 5)
    assert [c.chunk_id for c in english.candidates] == [IDS[0], IDS[1]]
    assert english.weight == 1.0
    russian = retriever.retrieve(Query.from_text("как хешируется пароль"), 5)
    assert russian.candidates == () and russian.weight == 0.0
    mixed = retriever.retrieve(Query.from_text("где вызывается login"), 5)
    assert [c.chunk_id for c in mixed.candidates] == [IDS[1]]
    assert mixed.weight == pytest.approx(1 / 2)  # вызывается, login


def test_a_question_word_reaches_the_short_form_the_code_writes_and_back() -> None:
    chunks = [
        make_chunk("net/proxy.rb::proxy_from_env", "def proxy_from_env(url)\n  uri = ENV.fetch(url)\nend\n"),
        make_chunk("net/proxy.rb::proxy_for", "def proxy_for(url)\n  manual_proxy(url)\nend\n"),
        make_chunk("app/database.py::open_database", "def open_database(url):\n    return connect(url)\n"),
    ]
    retriever = LexicalRetriever(LexicalIndex.from_chunks(chunks))
    long_word = retriever.retrieve(Query.from_text("proxy from environment variables"), 5)
    assert long_word.candidates[0].chunk_id == "net/proxy.rb::proxy_from_env"
    short_word = retriever.retrieve(Query.from_text("which db is opened"), 5)
    assert [c.chunk_id for c in short_word.candidates] == ["app/database.py::open_database"]
    weighted, _ = retriever.query_terms(Query.from_text("proxy from environment variables"))
    assert weighted["env"] == 1.0 and "environ" not in weighted  # the long word is no term of this code
    both = LexicalRetriever(LexicalIndex.from_chunks([*chunks, make_chunk("app/api.py::users", "def users(db):\n")]))
    weighted, _ = both.query_terms(Query.from_text("open the database"))
    assert weighted["databas"] == 1.0 and weighted["db"] == 0.5  # the code writes the word too: a second spelling


def test_convex_fusion_normalises_each_leg_and_keeps_leg_scores() -> None:
    dense = LegResult("dense", (Candidate("a", 0.9), Candidate("b", 0.8), Candidate("c", 0.7)))
    lexical = LegResult("lexical", (Candidate("c", 8.0), Candidate("a", 4.0)), weight=0.6)
    fused = convex_fusion([dense, lexical])
    # a: 1 + 0.6 x 0; c: 0 + 0.6 x 1; b: 0.5 (not in the lexical list)
    assert [(f.chunk_id, round(f.score, 6)) for f in fused] == [("a", 1.0), ("c", 0.6), ("b", 0.5)]
    assert fused[1].leg_scores == {"dense": 0.7, "lexical": 8.0}


def test_hybrid_pipeline_lifts_an_exact_identifier_match() -> None:
    lexical = LexicalIndex.from_chunks(CHUNKS)
    dense = MatrixDenseRetriever(IDS, VECTORS)
    # Dense slightly prefers connect; the question names login exactly.
    query = Query.from_text("login", _unit(0.0, 0.5, 0.55, 0.1))
    dense_only = HybridPipeline((dense,), lambda results: convex_fusion(results)).search(query, 2)
    assert [f.chunk_id for f in dense_only] == ["app/db.py::connect", "app/auth.py::login"]
    hybrid = shipped_pipeline(dense, lexical).search(query, 2)
    assert [f.chunk_id for f in hybrid] == ["app/auth.py::login", "app/db.py::connect"]
    assert hybrid[0].leg_scores["dense"] == pytest.approx(0.5 / np.linalg.norm([0.5, 0.55, 0.1]), rel=1e-5)


def test_the_first_hits_do_not_depend_on_how_many_are_asked() -> None:
    """Fusion normalises each leg over its candidates: legs asked for more candidates moved the first
    places (two questions in three of the semble sets had another top 5 at k=50 than at k=10). The
    first places are now the same for any k; a deeper search only adds hits after them."""
    rng = np.random.default_rng(7)
    words = ["token", "session", "cache", "route", "parse", "render", "store", "queue"]
    chunks = [make_chunk(f"app/m{i}.py::f{i}", f"def f{i}():\n    return {' '.join(rng.choice(words, 6))}\n")
              for i in range(400)]
    ids = [c.chunk_id for c in chunks]
    vectors = rng.normal(size=(len(chunks), 16)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    pipeline = shipped_pipeline(MatrixDenseRetriever(ids, vectors), LexicalIndex.from_chunks(chunks))
    query = Query.from_text("session cache token", _unit(*rng.normal(size=16)))
    few, many = pipeline.search(query, 10), pipeline.search(query, 150)
    assert [f.chunk_id for f in many[:10]] == [f.chunk_id for f in few]
    assert len(many) == 150 and len({f.chunk_id for f in many}) == 150
    assert all(a.score >= b.score for a, b in pairwise(many))
    # asked for its depth, a search reads that many candidates per leg (a task's context reads deeper)
    deep = pipeline.search(query, 10, depth=600)
    assert [f.chunk_id for f in deep] != [f.chunk_id for f in few]


def test_lexical_filter_applies_before_the_cut() -> None:
    retriever = LexicalRetriever(LexicalIndex.from_chunks(CHUNKS), accept=lambda chunk_id: "login" not in chunk_id)
    assert [c.chunk_id for c in retriever.retrieve(Query.from_text("password"), 5).candidates] == [IDS[0]]


class _FakeWordEmbedder:
    """Words map to fixed unit vectors: 'пароль' sits next to 'password', 'salt' is a near miss."""

    table: ClassVar[dict[str, np.ndarray]] = {
        "password": _unit(1, 0, 0), "salt": _unit(0.9, 0.44, 0), "connect": _unit(0, 0, 1),
        "пароль": _unit(0.99, 0.14, 0), "облако": _unit(0, 1, 0), "stream": _unit(0.5, 0, 0.86),
    }

    def __call__(self, words):
        return np.stack([self.table.get(w, _unit(0, 1, 1)) for w in words])


def test_word_bridge_keeps_neighbours_relative_to_the_best_match() -> None:
    embed = _FakeWordEmbedder()
    words = ["connect", "password", "salt"]
    bridge = WordBridge(words, embed(words), embed, per_word=2, margin=0.02, floor=0.8)
    assert set(bridge.translate(["пароль"])) == {"password"}  # salt is too far below the best
    loose = WordBridge(words, embed(words), embed, per_word=2, margin=0.2, floor=0.8)
    assert set(loose.translate(["пароль"])) == {"password", "salt"}
    assert bridge.translate(["облако"]) == {}  # best match under the floor: no guess
    assert bridge.translate(["password"]) == {}  # only words in another script are bridged


def test_word_bridge_cache_evicts_the_least_recently_asked_word() -> None:
    """A full cache drops its oldest word, not every word (a server's next questions would all
    wait for e5 again)."""
    fake = _FakeWordEmbedder()
    embedded: list[str] = []

    def embed(words):
        embedded.extend(words)
        return fake(words)

    words = ["connect", "password", "salt"]
    bridge = WordBridge(words, fake(words), embed, floor=0.8, cache_words=2)
    bridge.translate(["пароль"])
    bridge.translate(["облако"])
    bridge.translate(["пароль"])  # asked again: now the newest
    assert embedded == ["пароль", "облако"]
    assert set(bridge.translate(["соль"])) == {"salt"}  # a third word (the glossary's): облако, the oldest, leaves
    assert set(bridge.translate(["пароль"])) == {"password"} and embedded == ["пароль", "облако", "соль"]
    bridge.translate(["облако"])
    assert embedded == ["пароль", "облако", "соль", "облако"]


def test_glossary_gives_the_usual_english_words_of_programming_russian() -> None:
    assert glossary_words("потокового") == ("stream", "streaming")  # the longest key wins: потоково
    assert glossary_words("Поток") == glossary_words("потоков") == ("stream", "thread")  # «пул потоков»
    assert glossary_words("ответственность") == ("responsibility",)  # not «ответ»
    assert glossary_words("приём") == glossary_words("прием") == ("receive",)  # ё as е
    assert glossary_words("именно") == ()  # an everyday word that only begins like «имен»
    assert glossary_words("облако") == ()
    assert glossary_words("подписка") == ("subscription", "subscribe")  # not «подпись», a signature
    assert glossary_words("подписи") == ("signature", "sign")
    assert glossary_words("получатель") == ("recipient", "receiver")  # not «получить», get
    assert glossary_words("входит") == ()  # «входит в» (is part of), not a login
    assert glossary_words("столбцов") == glossary_words("колонки") == ("column",)
    assert glossary_words("конвейеры") == ("pipeline",)
    assert glossary_words("эффективность") == ("efficient", "performance")  # not «эффект», an effect
    assert glossary_words("перехватчики") == ("interceptor", "intercept")
    assert glossary_words("подкоманда") == ("subcommand", "command") and glossary_words("подклассы")[0] == "subclass"
    assert glossary_words("подстроку") == ()  # e5's neighbours serve it better (bench/RESULTS.md, session 31)
    # 1C's verbs and nouns (СобратьПакет, ПакетУстановлен, ВывестиСправку, Каталог)
    assert glossary_words("собрать") == ("build", "assemble") and glossary_words("установленных")[0] == "install"
    assert glossary_words("вывести") == ("print", "output") and "folder" in glossary_words("каталога")
    assert glossary_words("находится") == () and glossary_words("собственно") == ()  # «где находится»: where is
    assert glossary_words("настраивается")[0] == "config"  # «где настраивается ...», not only «настроить»
    # text layout and a store's life, which e5 crossed as `adopt`, `probe`, `sending` (jsoup, pinia, Polly)
    assert glossary_words("отступом")[0] == "indent" and glossary_words("пробелы")[0] == "whitespace"
    # nouns e5 crossed wrong (подсветки -> light, фона -> font, смещение -> modifier, режиме -> region)
    assert glossary_words("подсветки") == ("highlight",) and glossary_words("фона") == ("background",)
    assert glossary_words("смещение") == ("offset",) and glossary_words("режиме") == ("mode",)
    assert glossary_words("фоновый") == ("background",) and glossary_words("фонд") == ("fund",)  # the longest key
    assert glossary_words("полезные") == () and glossary_words("целиком") == ()  # not a field, not an integer
    assert glossary_words("сбрасывается") == ("reset", "flush") and glossary_words("стора") == ("store",)
    assert glossary_words("сторонний") == ("external", "third")  # not a store
    assert glossary_words("повторяющиеся")[0] == "duplicate" and glossary_words("повторно")[0] == "retry"
    assert glossary_words("скользящем") == ("sliding", "rolling") and glossary_words("запасной")[0] == "fallback"


def test_a_compound_crosses_as_one_thing() -> None:
    """«база данных» is a database: «данных» alone (data) met every `UserData` class before the datasource."""
    assert compound_at(["где", "база", "данных"], 1) == (2, ("database", "db"))
    assert compound_at(["базы", "данных"], 0)[1] == ("database", "db")  # any form of «база»
    assert compound_at(["база", "кода"], 0) is None and compound_at(["база"], 0) is None
    assert compound_at(["сборка", "мусора"], 0)[1][0] == "gc"  # not a build
    assert compound_at(["ленивая", "загрузка"], 0)[1] == ("lazy", "load")  # not an upload
    assert compound_at(["из", "буфера", "обмена"], 1)[1] == ("clipboard",)  # not a buffer
    embed = _FakeWordEmbedder()
    words = ["database", "data", "base", "user", "settings"]
    crossed = WordBridge(words, embed(words), embed, floor=0.8).cross(Query.from_text("где настроена база данных"))
    assert set(crossed.bridged["база"]) == {"database"} and "данных" not in crossed.bridged
    assert crossed.pseudo_english == "settings database"
    # without the glossary, no compounds either: each word crosses on its own
    plain = WordBridge(words, embed(words), embed, floor=0.8, glossary=False).cross(Query.from_text("база данных"))
    assert "данных" in plain.bridged


def test_word_bridge_adds_the_glossary_words_the_code_uses() -> None:
    embed = _FakeWordEmbedder()
    words = ["connect", "password", "salt", "stream"]
    bridge = WordBridge(words, embed(words), embed, floor=0.8)
    # «потоковый»: e5 finds nothing close; the glossary's stream is in the code, thread is not
    assert set(bridge.translate(["потоковый"])) == {"stream"}
    assert bridge.nearest("потоковый") == "stream"
    # the glossary's word comes first, e5's neighbour stays
    assert bridge.nearest("пароль") == "password" and set(bridge.translate(["пароль"])) == {"password"}
    plain = WordBridge(words, embed(words), embed, floor=0.8, glossary=False)
    assert plain.translate(["потоковый"]) == {}


def test_pseudo_english_keeps_one_code_word_per_russian_word() -> None:
    embed = _FakeWordEmbedder()
    words = ["connect", "password", "salt"]
    bridge = WordBridge(words, embed(words), embed, per_word=2, margin=0.2, floor=0.8)
    # «пароль» has two neighbours within the margin: only the nearest goes in; «как» is question
    # glue; «облако» has no neighbour; identifiers stay as written
    assert pseudo_english("как проверить пароль `user_id` облако", bridge) == "password user_id"
    assert pseudo_english("облако `user_id`", bridge) == ""  # no Russian word crossed: nothing to ask


def test_ensemble_sends_a_russian_question_to_the_second_model_through_the_bridge() -> None:
    embed = _FakeWordEmbedder()
    bridge = WordBridge(["password"], embed(["password"]), embed, floor=0.8)
    asked: list[str] = []
    primary = MatrixDenseRetriever(IDS, VECTORS)
    second = np.eye(4, dtype=np.float32)[[1, 0, 2, 3]]

    def embed_second(text: str) -> np.ndarray:
        asked.append(text)
        return _unit(1, 0, 0, 0)

    ensemble = EnsembleDense(primary, IDS, second, embed_second, bridge=bridge, russian_e5_weight=0.85)
    result = ensemble.retrieve(Query.from_text("пароль", _unit(0.6, 0.8, 0, 0)), 2)
    assert asked == ["password"]
    # login: 0.85 x 0.8 + 0.15 x 1 = 0.83; hash_password: 0.85 x 0.6 + 0.15 x 0 = 0.51
    assert [(c.chunk_id, round(c.score, 4)) for c in result.candidates] == [(IDS[1], 0.83), (IDS[0], 0.51)]
    alone = ensemble.retrieve(Query.from_text("облако", _unit(0.6, 0.8, 0, 0)), 2)
    assert asked == ["password"] and [c.score for c in alone.candidates] == pytest.approx([0.8, 0.6])


def test_bridged_words_reach_the_lexical_leg() -> None:
    embed = _FakeWordEmbedder()
    words = bridge_vocabulary(CHUNKS)
    assert {"password", "connect", "salt", "def"} <= set(words) and "the" not in words
    bridge = WordBridge(words, embed(words), embed, floor=0.8)
    result = LexicalRetriever(LexicalIndex.from_chunks(CHUNKS), bridge).retrieve(Query.from_text("пароль"), 5)
    assert [c.chunk_id for c in result.candidates] == [IDS[0], IDS[1]]
    assert result.weight > 0


def test_bridge_vocabulary_leaves_out_blobs_that_are_not_names() -> None:
    """A minified blob is one huge "word": embedding it would take minutes, and no question means it."""
    blob = make_chunk("app/data.py::<module>", "DATA = '" + "ab" * 5000 + "'\nsettings_loader = 1\n", kind="module")
    words = bridge_vocabulary([blob])
    assert "settings" in words and "loader" in words
    assert all(len(word) <= 40 for word in words)


def test_searcher_is_hybrid_and_relevance_stays_the_cosine(mini_searcher, embedder) -> None:
    searcher = mini_searcher
    hits = searcher.search("hash_password", k=3)
    assert hits[0].chunk_id == "pkg/auth.py::hash_password"
    vector = embedder.embed_queries(["hash_password"])[0]
    dense = dict(searcher.store.nearest(vector, 20))
    assert hits[0].relevance == pytest.approx(round(dense[hits[0].chunk_id] * 100, 1), abs=0.11)
    assert [h.rank for h in hits] == [1, 2, 3]


def test_searcher_filters_apply_to_lexical_hits_too(mini_searcher) -> None:
    searcher = mini_searcher
    assert all(not h.chunk.is_test for h in searcher.search("test hash password", k=10))
    only_methods = searcher.search("hash_password", k=5, filters=SearchFilters(kinds=("method",)))
    assert only_methods and all(h.chunk.kind == "method" for h in only_methods)


def test_dense_leg_filters_what_it_fetched_and_is_exact_when_too_few_pass(demo_searcher, embedder) -> None:
    """The searcher filters the nearest ids itself; under a filter that few chunks pass (classes)
    the leg takes the exact cosine over the filtered vectors. Both give what a filtered ChromaDB
    query gives: over the demo's code and files, the n nearest code chunks and the files' chunks
    at least as near as the n-th of them, with the code's range as the scale."""
    searcher = demo_searcher
    vector = embedder.embed_queries(["user account model"])[0]
    for filters, n in ((SearchFilters(), 20), (SearchFilters(kinds=("class",)), 50)):
        scope = ChunkScope(filters, searcher.chunks)
        leg = ChromaDenseRetriever(searcher.store, scope).retrieve(Query("q", vector), n)
        kinds = filters.kinds or CODE_KINDS
        expected = searcher.store.nearest(vector, n, kinds=kinds, include_tests=filters.include_tests)
        if not filters.kinds:
            assert scope.mixed and leg.scale == pytest.approx((expected[-1][1], expected[0][1]))
            files = searcher.store.nearest(vector, n, kinds=FILE_KINDS, include_tests=filters.include_tests)
            expected = sorted([*expected, *(f for f in files if f[1] >= expected[-1][1])], key=lambda e: -e[1])
        assert sum(searcher.chunks[c.chunk_id].is_code for c in leg.candidates) == n
        assert [c.chunk_id for c in leg.candidates] == [chunk_id for chunk_id, _ in expected]
        assert [c.score for c in leg.candidates] == pytest.approx([similarity for _, similarity in expected])


def test_searcher_bridges_a_russian_word_to_the_code(mini_searcher) -> None:
    searcher = mini_searcher
    assert searcher.bridge is not None
    assert "password" in searcher.bridge.translate(["пароль"]) or "password" in searcher.bridge.translate(["пароля"])
    hits = searcher.search("хеширование пароля", k=3)
    assert "pkg/auth.py::hash_password" in [h.chunk_id for h in hits]


def test_ensemble_dense_adds_the_second_model_for_english_only() -> None:
    primary = MatrixDenseRetriever(IDS, VECTORS)
    second = np.eye(4, dtype=np.float32)[[1, 0, 2, 3]]  # the second model swaps the first two meanings
    ensemble = EnsembleDense(primary, IDS, second, lambda text: _unit(1, 0, 0, 0), e5_weight=0.7)
    english = ensemble.retrieve(Query.from_text("hash it", _unit(0.6, 0.8, 0, 0)), 2)
    # hash_password: 0.7 x 0.6 + 0.3 x 0 = 0.42; login: 0.7 x 0.8 + 0.3 x 1 = 0.86
    assert [(c.chunk_id, round(c.score, 4)) for c in english.candidates] == [(IDS[1], 0.86), (IDS[0], 0.42)]
    assert english.candidates[0].cosine == pytest.approx(0.8)
    russian = ensemble.retrieve(Query.from_text("хеширование", _unit(0.8, 0.6, 0, 0)), 2)
    assert [c.chunk_id for c in russian.candidates] == [IDS[0], IDS[1]]


def test_index_carries_minilm_vectors_and_the_searcher_uses_them(mini_index, embedder) -> None:
    from pathlib import Path

    from codelens.search.english import load_english_vectors

    chunk_ids, hashes, vectors, kind = load_english_vectors(Path(mini_index.db_path))
    assert kind.name == "all-MiniLM-L6-v2"  # the default English model
    assert len(chunk_ids) == len(hashes) == vectors.shape[0] and vectors.shape[1] == 384
    searcher = Searcher(mini_index, embedder=embedder)
    hits = searcher.search("where is the database connection url configured", k=3)
    assert hits[0].chunk.path == "pkg/storage.py"
    assert all(0 <= h.relevance <= 100 for h in hits)


def test_short_english_questions_lean_on_the_dense_ensemble() -> None:
    retriever = LexicalRetriever(LexicalIndex.from_chunks(CHUNKS), english_scale=0.5)
    assert retriever.retrieve(Query.from_text("hash password"), 5).weight == pytest.approx(0.5)
    long_question = "password hash salt login user check connect url engine make new sha"
    assert len(set(Query.from_text(long_question).terms)) > LONG_QUESTION_TERMS
    assert retriever.retrieve(Query.from_text(long_question), 5).weight == pytest.approx(1.0)
    assert retriever.retrieve(Query.from_text("где вызывается login"), 5).weight == pytest.approx(0.5)


class _CountingEmbedder(_FakeWordEmbedder):
    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def __call__(self, words):
        self.calls.append(list(words))
        return super().__call__(words)


def test_a_question_is_crossed_once_for_every_leg_and_stage() -> None:
    """The pipeline asks the bridge once; the lexical and English legs and the path stage read the
    crossed query (before, each asked the bridge itself)."""
    embed = _CountingEmbedder()
    words = bridge_vocabulary(CHUNKS)
    bridge = WordBridge(words, _FakeWordEmbedder()(words), embed, floor=0.8)
    english = EnglishVectors(tuple(IDS), np.eye(4, dtype=np.float32), lambda text: _unit(1, 0, 0, 0))
    index = RankingIndex.build({c.chunk_id: c for c in CHUNKS})
    stages = ranking_stages(index, ["path", "symbol"], bridge=bridge)
    pipeline = shipped_pipeline(MatrixDenseRetriever(IDS, VECTORS), LexicalIndex.from_chunks(CHUNKS),
                                bridge=bridge, english=english, stages=stages)
    fused = pipeline.search(Query.from_text("как хешируется пароль", _unit(0.9, 0.1, 0, 0)), 3)
    assert fused[0].chunk_id == IDS[0]
    assert embed.calls == [["хешируется", "пароль"]]
    crossed = bridge.cross(Query.from_text("как хешируется пароль"))
    assert crossed.russian and crossed.language == "ru" and crossed.pseudo_english == "hash password"
    assert set(crossed.bridged) == {"хешируется", "пароль"}  # the glossary's hash, e5's password
    assert embed.calls == [["хешируется", "пароль"]]  # the bridge keeps its words


def test_query_knows_its_language_and_identifiers() -> None:
    assert Query.from_text("Session.send").identifier == "Session.send"
    assert Query.from_text("how does ClientSession pool").code_identifiers == ("ClientSession",)
    assert Query.from_text("how routes work").identifier is None
    assert Query.from_text("how routes work").language == "en"


def test_every_leg_takes_its_n_best_inside_the_filter() -> None:
    """A filter that the best chunks overall fail: each leg still returns the n best that pass."""
    only_db = ChunkScope(SearchFilters(path_prefix="app/db"), {c.chunk_id: c for c in CHUNKS})
    assert list(only_db.mask(IDS)) == [False, False, True, False]
    query = Query.from_text("password connect", _unit(0.9, 0.3, 0.1, 0))
    dense = MatrixDenseRetriever(IDS, VECTORS, only_db).retrieve(query, 1)
    assert [c.chunk_id for c in dense.candidates] == [IDS[2]]
    lexical = LexicalRetriever(LexicalIndex.from_chunks(CHUNKS), accept=only_db).retrieve(query, 1)
    assert [c.chunk_id for c in lexical.candidates] == [IDS[2]]
    ensemble = EnsembleDense(MatrixDenseRetriever(IDS, VECTORS, only_db), IDS, VECTORS,
                             lambda text: _unit(0, 0, 1, 0), accept=only_db).retrieve(query, 2)
    assert [c.chunk_id for c in ensemble.candidates] == [IDS[2]]
    assert list(top_n(np.array([0.9, 0.1, 0.5, 0.7]), 2, np.array([False, True, True, False]))) == [2, 1]


def test_code_is_ranked_alone_and_files_land_on_its_scale() -> None:
    """Beside documents and configuration, every leg keeps the n best code chunks and the scale
    they had in an index of code alone; a file's chunk is kept when it reaches the n-th code
    score, and fusion places it on the code's scale (above 1 when it beats all code)."""
    readme = make_chunk("README.md::Setup > Database", "Set DATABASE_URL to the connection string.", kind="doc")
    compose = make_chunk("docker-compose.yaml::services.db", "db:\n  image: postgres\n", kind="config")
    chunks = [*CHUNKS, readme, compose]
    ids = [c.chunk_id for c in chunks]
    scope = ChunkScope(SearchFilters(), {c.chunk_id: c for c in chunks})
    assert scope.mixed
    vectors = np.eye(6, dtype=np.float32)
    query = Query.from_text("database connection", _unit(0.5, 0.1, 0.6, 0.2, 0.7, 0.05))
    code_alone = MatrixDenseRetriever(IDS, vectors[:4, :], None).retrieve(query, 2)
    mixed = MatrixDenseRetriever(ids, vectors, scope).retrieve(query, 2)
    assert [c.chunk_id for c in code_alone.candidates] == [IDS[2], IDS[0]]
    # compose (0.05) is below the 2nd code chunk: left out; the README (0.7) beats all code
    assert [c.chunk_id for c in mixed.candidates] == [readme.chunk_id, IDS[2], IDS[0]]
    assert mixed.scale == pytest.approx((code_alone.candidates[-1].score, code_alone.candidates[0].score))
    fused = {f.chunk_id: f.score for f in convex_fusion([mixed])}
    assert fused[IDS[2]] == pytest.approx(1.0) and fused[IDS[0]] == pytest.approx(0.0)
    assert 1.0 + ABOVE_CODE < (0.7 - 0.5) / (0.6 - 0.5)  # the README is held to the cap
    assert fused[readme.chunk_id] == pytest.approx(1.0 + ABOVE_CODE)
    # a scope of one population (a kind filter) is ranked as before
    only_docs = ChunkScope(SearchFilters(kinds=("doc", "config")), {c.chunk_id: c for c in chunks})
    docs = MatrixDenseRetriever(ids, vectors, only_docs).retrieve(query, 1)
    assert not only_docs.mixed and docs.scale is None and [c.chunk_id for c in docs.candidates] == [readme.chunk_id]


def test_code_too_little_for_a_leg_is_no_scale_and_a_schema_is_code() -> None:
    """A leg ranks code first only when the scope has code enough to fill it: one script beside documents
    would keep every document below it out of the leg (pagila: two shell scripts beside its schema,
    bench/RESULTS.md). A `.sql` file's table, view or function is code, its statement runs are not."""
    script = make_chunk("scripts/load.sh::<module>", "psql -f data.sql\n", kind="module")
    docs = [make_chunk(f"docs/page{n}.md::Part {n}", f"Part {n} of the guide.", kind="doc") for n in range(3)]
    chunks = [script, *docs]
    ids = [c.chunk_id for c in chunks]
    scope = ChunkScope(SearchFilters(), {c.chunk_id: c for c in chunks})
    assert scope.mixed and scope.code_count == 1
    query = Query.from_text("the guide", _unit(0.1, 0.9, 0.5, 0.3))
    found = MatrixDenseRetriever(ids, np.eye(4, dtype=np.float32), scope).retrieve(query, 2)
    assert [c.chunk_id for c in found.candidates] == [docs[0].chunk_id, docs[1].chunk_id] and found.scale is None
    assert mixed_scope(scope, 1) is scope and mixed_scope(scope, 2) is None
    table = make_chunk("db/schema.sql::public.users", "CREATE TABLE users (id int);", kind="text")
    runs = make_chunk("db/schema.sql::<statements>", "GRANT ALL ON users TO app;", kind="text")
    schema = ChunkScope(SearchFilters(), {c.chunk_id: c for c in (table, runs)})
    assert schema.is_code(table.chunk_id) and not schema.is_code(runs.chunk_id) and schema.code_count == 1


def test_bridge_vocabulary_takes_code_headings_and_configuration_without_comments() -> None:
    """Russian words cross to the code's words, to a document's headings (not its prose) and to
    configuration lines (not their comments)."""
    code = make_chunk("app/db.py::connect", "def connect(url):\n    engine = make(url)\n")
    readme = make_chunk("README.md::Deployment", "Everybody should remember the firewall.", kind="doc")
    compose = make_chunk("docker-compose.yaml::services.postgres",
                         "# explanatory commentary here\npostgres:\n  ports: [5432]\n", kind="config")
    words = set(bridge_vocabulary([code, readme, compose]))
    assert {"connect", "engine", "deployment", "postgres", "ports", "services"} <= words
    assert not words & {"everybody", "remember", "firewall", "explanatory", "commentary"}
