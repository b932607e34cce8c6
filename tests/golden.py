"""Golden files for chunker output: `python -m tests.golden` rewrites them after a
deliberate change; review the diff before committing."""

from __future__ import annotations

import json
from pathlib import Path

from codelens.ingest.chunker import chunk_file

FIXTURES = Path(__file__).parent / "fixtures" / "chunker"
GOLDEN = Path(__file__).parent / "fixtures" / "chunker_golden"


def describe(path: Path) -> dict:
    result = chunk_file(path.name, path.read_text(encoding="utf-8"))
    return {
        "warning": result.warning,
        "chunks": [
            {
                "chunk_id": c.chunk_id, "kind": c.kind, "start_line": c.start_line,
                "end_line": c.end_line, "parent": c.parent, "decorators": list(c.decorators),
                "has_docstring": c.has_docstring, "signature": c.signature, "is_test": c.is_test,
            }
            for c in result.chunks
        ],
    }


def main() -> None:
    GOLDEN.mkdir(exist_ok=True)
    for path in sorted(FIXTURES.glob("*.py")):
        target = GOLDEN / f"{path.stem}.json"
        target.write_text(json.dumps(describe(path), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"wrote {target}")


if __name__ == "__main__":
    main()
