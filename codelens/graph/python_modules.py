"""Which file a Python import means: `import a.b` searched under the codebase's roots (the root,
every folder that is not a package, each repository of a workspace), and the dotted name Python
imports a file by.

Internal to `codelens.graph`. The second pass asks it (`resolve` follows imports, `python_edges`
records them) and `model` names files by it; it knows paths only, never a syntax tree.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import PurePosixPath


def module_name(path: str) -> str:
    """`gymhero/crud/__init__.py` -> `gymhero.crud`; a folder `a/b/` -> `a.b`."""
    parts = list(PurePosixPath(path.rstrip("/")).parts)
    if parts and parts[-1].endswith(".py"):
        parts[-1] = parts[-1][:-3]
    if len(parts) > 1 and parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


class ModuleIndex:
    """Which file `import a.b` means: searched under the codebase root and under every
    folder that is not a package (where `src/` layouts and scripts put their imports). In a
    workspace (`repository_labels`: the top-level folders that are repositories of their own)
    each repository is a root of its own: an import is looked for in the importing file's
    repository first, then in the others (flask's `import click` finds click's code)."""

    def __init__(self, paths: Iterable[str], repository_labels: Iterable[str] = ()) -> None:
        self.files = frozenset(p for p in paths if p.endswith(".py"))
        self.folders = {str(parent) for p in self.files for parent in PurePosixPath(p).parents if str(parent) != "."}
        non_packages = [f for f in self.folders if f"{f}/__init__.py" not in self.files]
        self.labels = tuple(sorted(set(repository_labels)))
        by_depth = sorted(non_packages, key=lambda f: (f.count("/"), f))
        self._roots_of: dict[str, list[str]] = {
            label: [label, *(f for f in by_depth if f.startswith(f"{label}/"))] for label in self.labels}
        self._roots_of[""] = ["", *(f for f in by_depth if self.label_of(f) == "" and f not in self.labels)]
        self.roots = self._roots_of[""]
        self._root_sets = {label: frozenset(roots) for label, roots in self._roots_of.items()}
        self._found: dict[tuple[str, str], str | None] = {}

    def label_of(self, path: str) -> str:
        """The repository label a path is under ("" outside every repository, or with none)."""
        head = path.split("/", 1)[0]
        return head if head in self.labels and path != head else ""

    def locate(self, base: str) -> str | None:
        """`a/b` -> `a/b.py`, `a/b/__init__.py`, or the namespace folder `a/b/`."""
        for candidate in (f"{base}.py", f"{base}/__init__.py"):
            if candidate in self.files:
                return candidate
        return f"{base}/" if base in self.folders else None

    def find(self, dotted: str, importer: str = "") -> str | None:
        """The file `import dotted` in the file `importer` means (None: not in the codebase)."""
        label = self.label_of(importer)
        key = (dotted, label)
        if key not in self._found:
            found = self._search(dotted, self._roots_of[label])
            if found is None and self.labels:  # a package another repository of the workspace provides
                elsewhere = {hit for other in ("", *self.labels) if other != label
                             if (hit := self._search(dotted, self._roots_of[other]))}
                found = elsewhere.pop() if len(elsewhere) == 1 else None
            self._found[key] = found
        return self._found[key]

    def _search(self, dotted: str, roots: list[str]) -> str | None:
        relative = dotted.replace(".", "/")
        found: list[str] = []
        best_depth = -1
        for root in roots:
            depth = root.count("/") + 1 if root else 0
            if found and depth > best_depth:
                break
            hit = self.locate(f"{root}/{relative}" if root else relative)
            if hit:
                found.append(hit)
                best_depth = depth
        return found[0] if len(found) == 1 else None  # two equally near candidates: unknown

    def importable_name(self, path: str) -> str:
        """The dotted name Python imports path by: from its nearest folder that is not a
        package (`src/flask/app.py` -> `flask.app`, `gymhero/crud/user.py` -> `gymhero.crud.user`;
        in a workspace, within the file's repository: `flask/src/flask/app.py` -> `flask.app`)."""
        roots = self._root_sets[self.label_of(path)]
        parts = PurePosixPath(path.rstrip("/")).parts
        for cut in range(len(parts) - 1, 0, -1):
            if "/".join(parts[:cut]) in roots:
                return module_name("/".join(parts[cut:]))
        return module_name(path)

    def relative(self, path: str, level: int, module: str) -> str | None:
        """`from ..x import y` in `path`."""
        parts = list(PurePosixPath(path).parent.parts)
        if level - 1 > len(parts):
            return None
        parts = parts[: len(parts) - (level - 1)]
        parts.extend(module.split(".") if module else [])
        return self.locate("/".join(parts)) if parts else None

