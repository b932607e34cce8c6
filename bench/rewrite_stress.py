"""How long each language's byte rewrites take on long adversarial lines: an indexed codebase is untrusted,
and a rewrite's regular expression that reads on from every place a match may start costs quadratic time
(session 31: C's attribute macros after a declarator, 10 s for one line of 8,000 of them).

Every `LanguageRow.parser_bytes` and `recover_bytes` is fed lines of one token repeated (`--repeat` times,
alone or after a declarator), and the slowest runs are printed with their bytes per second.
"""

from __future__ import annotations

import argparse
import time

from _common import print_table

from codelens.languages import LANGUAGES

TOKENS = (b"A_B ", b"C_D(x) ", b"x ", b"f(", b")", b"{", b"}", b";", b"\n", b"  get(", b"where ", b"when (x) ",
          b"if x ", b"'", b'"', b"''", b"<T>", b"in ", b"out ", b"@Ann ", b"#else\n", b"#if X\n", b"class ", b"=> ",
          b"|", b"//")
PREFIXES = (b"", b"class X {\n  fun f() ", b"int f() ")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=6000, help="tokens per line")
    parser.add_argument("--show", type=int, default=10, help="the slowest runs shown")
    args = parser.parse_args()
    runs = []
    for row in LANGUAGES:
        for rewrite in (row.parser_bytes, row.recover_bytes):
            if rewrite is None:
                continue
            for token in TOKENS:
                for prefix in PREFIXES:
                    source = prefix + token * args.repeat + b"\n"
                    started = time.perf_counter()
                    rewrite(source)
                    seconds = time.perf_counter() - started
                    runs.append((seconds, row.name, rewrite.__name__, repr(prefix + token)[:40], len(source)))
    runs.sort(reverse=True)
    print_table(["seconds", "language", "rewrite", "line", "MB/s"],
                [[f"{s:.3f}", name, rewrite, line, f"{size / max(s, 1e-9) / 1e6:.1f}"]
                 for s, name, rewrite, line, size in runs[: args.show]])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
