"""The counters a context budget is counted in: o200k and cl100k from bpe-openai's wheel (the token
ids known from tiktoken, and our count cross-checked against the package's public encoder), e5's own
SentencePiece; the choice checked; and the packer within its budget in each of them."""

from __future__ import annotations

import bpe_openai
import pytest

from codelens.answer.pack import ASK_RULES, Candidate, context_rules, pack
from codelens.answer.token_count import (
    BYTE_ESTIMATE,
    COUNTER_NAMES,
    DEFAULT_TOKENIZER,
    TOKENIZERS,
    check_tokenizer,
    counter_for,
)
from codelens.errors import BadInput
from tests.conftest import PROJECT_ROOT
from tests.test_pack import HELPER, MIDDLE, TOP, big_class

TEXTS = ["hello world", "Hello, world!", "def foo(x):\n    return x + 1\n", "как создаётся JWT-токен?",
         "emoji 🎉 and\ttabs\r\nCRLF", "    lots    of   spaces\n\n\n", "中文字符", "",
         "<|endoftext|> in a tokenizer's source", "".join(f"def f{i}(v):\n    return v * {i}\n\n" for i in range(300))]


@pytest.mark.parametrize(("choice", "ids"), [("o200k", [24912, 2375]), ("cl100k", [15339, 1917])])
def test_the_wheel_s_encodings_are_openai_s(choice: str, ids: list[int]) -> None:
    """tiktoken's ids of "hello world" (o200k_base [24912, 2375], cl100k_base [15339, 1917]): the ranks
    in the wheel are the real ones, and our counter says 2."""
    encoding = bpe_openai.get_encoding(COUNTER_NAMES[choice])
    assert encoding.encode_ordinary("hello world") == ids
    assert counter_for(choice).count("hello world") == 2


@pytest.mark.parametrize("choice", ["o200k", "cl100k"])
def test_the_count_is_the_public_encoder_s_length(choice: str) -> None:
    counter, encoding = counter_for(choice), bpe_openai.get_encoding(COUNTER_NAMES[choice])
    for text in TEXTS:
        assert counter.count(text) == len(encoding.encode_ordinary(text)), text


def test_known_counts_and_where_the_encodings_differ() -> None:
    o200k, cl100k, e5 = counter_for("o200k"), counter_for("cl100k"), counter_for("e5")
    assert (o200k.count("Hello, world!"), cl100k.count("Hello, world!")) == (4, 4)
    assert (o200k.count("def foo(x):\n    return x + 1\n"), cl100k.count("def foo(x):\n    return x + 1\n")) == (11, 11)
    assert (o200k.count("как создаётся JWT-токен?"), cl100k.count("как создаётся JWT-токен?")) == (8, 13)
    # on real code (the package's own) e5's SentencePiece cuts finer: a budget in it holds less code
    code = "\n".join(path.read_text(encoding="utf-8") for path in sorted((PROJECT_ROOT / "codelens").rglob("*.py")))
    assert e5.count(code) > 1.2 * o200k.count(code) and o200k.count(code) < BYTE_ESTIMATE.count(code)


def test_texts_the_public_encoder_refuses_are_counted() -> None:
    """A whole file can be over 200k tokens or a million characters (the wrapper's `encode` refuses
    both); a lone surrogate (a file read with surrogateescape) counts as one character."""
    counter = counter_for("o200k")
    assert counter.count("x = 1\n" * 300_000) == 300_000 * counter.count("x = 1\n") == 1_500_000
    assert counter.count("a\udc80b") == counter.count("a?b")


def test_every_choice_reports_its_name_and_others_are_refused() -> None:
    assert DEFAULT_TOKENIZER == "o200k" and set(TOKENIZERS) == set(COUNTER_NAMES) == {"o200k", "cl100k", "e5"}
    for choice in TOKENIZERS:
        assert counter_for(choice).name == COUNTER_NAMES[choice] and counter_for(choice) is counter_for(choice)
    for wrong in ("gpt2", "O200K", "", None, 5):
        with pytest.raises(BadInput, match=r"no tokenizer .* give o200k, cl100k or e5"):
            check_tokenizer(wrong)
    with pytest.raises(BadInput, match="no tokenizer 'p50k'"):
        counter_for("p50k")


@pytest.mark.parametrize("choice", TOKENIZERS)
@pytest.mark.parametrize("budget", [1, 20, 35, 60, 90, 150, 400, 5000])
def test_the_packer_stays_within_the_budget_in_each_tokenizer(choice: str, budget: int) -> None:
    counter = counter_for(choice)
    cls, members = big_class()
    candidates = [Candidate(cls, "seed", 0, 1.0, members=members), Candidate(TOP, "seed", 0, 0.8),
                  Candidate(MIDDLE, "callee", 1), Candidate(HELPER, "callee", 2),
                  *(Candidate(m, "callee", 1) for m in members[:10])]
    for rules in (context_rules(), context_rules(line_numbers=True), ASK_RULES):
        packed = pack(candidates, budget, counter, rules)
        assert packed.tokens <= budget and packed.tokenizer == COUNTER_NAMES[choice]
        assert all(p.tokens == counter.count(p.text) for p in packed.pieces)
    if budget >= 400:
        assert pack(candidates, budget, counter).pieces  # something fits a real budget


def test_numbered_lines_cost_tokens() -> None:
    """What numbering every line costs (why it is off by default): a fifth more in o200k on these short lines."""
    counter = counter_for("o200k")
    cls, _ = big_class()
    plain = pack([Candidate(cls, "seed", 0, 1.0)], 10_000, counter, context_rules()).tokens
    numbered = pack([Candidate(cls, "seed", 0, 1.0)], 10_000, counter, context_rules(line_numbers=True)).tokens
    assert numbered > 1.15 * plain
