"""One Settings object: defaults, overridden by environment variables, then by CLI flags.

Nothing is read at import time: `Settings.from_env()` reads the environment when called.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, replace
from pathlib import Path

DEFAULT_MODEL = "multilingual-e5-small"
# Characters of embedded text per chunk (ingest/embed_text.py). Embedding time grows with text length
# (measured: e5 ~33 texts/s at 50 tokens, ~6/s at 235, ~2/s at 465 on 2 cores); the first measurements
# (bench/RESULTS.md) used ~600 characters. 700 keeps a little more code after the header. Not yet
# swept with bench/retrieval.py: a candidate to tune. Here, not in ingest/, so that importing the
# settings (the CLI's fast path does) imports nothing else.
DEFAULT_TEXT_BUDGET = 700
DEFAULT_DB = "./chroma_db"
DEMO_ZIP_NAME = "codebase_python.zip"
COLLECTION_NAME = "codelens"  # the ChromaDB collection inside an embedded index folder
_COLLECTION_NAME = re.compile(r"[A-Za-z0-9._-]{1,64}")


def default_source(cwd: Path | None = None) -> Path | None:
    """`./codebase_python.zip` when present, else the demo beside the checkout, else None."""
    cwd = cwd or Path.cwd()
    project_root = Path(__file__).resolve().parent.parent
    for candidate in (
        cwd / DEMO_ZIP_NAME,
        project_root / DEMO_ZIP_NAME,
        project_root.parent / "shared" / DEMO_ZIP_NAME,
    ):
        if candidate.is_file():
            return candidate
    return None


@dataclass(frozen=True)
class Settings:
    db_path: Path = Path(DEFAULT_DB)
    # The embedding model asked for (--model / CODELENS_MODEL); "": the index's own model when
    # searching, the default when building.
    model: str = ""
    # A named index beside the default one: <db>/collections/NAME ("" is the --db folder itself).
    collection: str = ""
    # A `chroma run` server for the vectors; the rest of the index stays in the index folder.
    chroma_url: str = ""
    batch_size: int = 32
    # Characters of embedded text per chunk (header first, then code; see codelens/ingest/embed_text.py).
    embed_code_chars: int = DEFAULT_TEXT_BUDGET
    max_file_bytes: int = 1_000_000
    show_progress: bool = True
    # --ray ADDRESS|auto: embedding batches go to Ray actors (codelens/index/distributed.py); "" is local.
    ray_address: str = ""
    ray_worker_cpus: int = 0  # CPUs per Ray actor; 0: one actor per node, using all its CPUs
    # A cold build swaps in a searchable partial index first and adds dense vectors in batches.
    progressive: bool = True
    progressive_min_chunks: int = 100  # fewer vectors to embed than this: one build, no partial index first
    # The English leg's second model (codelens/models/registry.py) for an index run: "minilm"
    # (fast) or "mpnet"; "": the one the index already has, else minilm.
    english_model: str = ""
    # The project (repository or folder) the index was found for from the working directory
    # (codelens/locations.py); None when --db, CODELENS_DB or ./chroma_db named the index.
    project: Path | None = None

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None) -> Settings:
        env = os.environ if environ is None else environ
        settings = cls()
        if env.get("CODELENS_DB"):
            settings = replace(settings, db_path=Path(env["CODELENS_DB"]))
        if env.get("CODELENS_MODEL"):
            settings = replace(settings, model=env["CODELENS_MODEL"])
        if env.get("CODELENS_COLLECTION"):
            settings = replace(settings, collection=valid_collection_name(env["CODELENS_COLLECTION"]))
        if env.get("CODELENS_CHROMA_URL"):
            settings = replace(settings, chroma_url=env["CODELENS_CHROMA_URL"])
        if env.get("CODELENS_ENGLISH_MODEL"):
            settings = replace(settings, english_model=env["CODELENS_ENGLISH_MODEL"])
        if env.get("CODELENS_PROGRESSIVE", "").strip() in ("0", "false", "no"):
            settings = replace(settings, progressive=False)
        return settings

    @property
    def build_model(self) -> str:
        """The model an index run embeds with."""
        return self.model or DEFAULT_MODEL

    @property
    def index_dir(self) -> Path:
        """The folder of the index these settings name: --db, or a named collection in it."""
        if not self.collection:
            return self.db_path
        return self.db_path / "collections" / self.collection

    def with_overrides(self, **overrides: object) -> Settings:
        """Apply the CLI flags that were given (None means 'not given')."""
        given = {key: value for key, value in overrides.items() if value is not None}
        if "db_path" in given:
            given["db_path"] = Path(given["db_path"])
        if given.get("collection"):
            given["collection"] = valid_collection_name(str(given["collection"]))
        return replace(self, **given)


def valid_collection_name(name: str) -> str:
    """Collection names become folder names: letters, digits, '.', '_' and '-' only."""
    from codelens.errors import BadInput

    if not _COLLECTION_NAME.fullmatch(name) or name in (".", ".."):
        raise BadInput(f"collection name {name!r}: use 1-64 letters, digits, '.', '_' or '-'")
    return name
