"""The package's import circles and upward imports, as tests/test_layers.py reads them (ast, nothing
imported): `python bench/imports.py` prints each circle's modules and each upward arrow with its line."""

from __future__ import annotations

from _common import PROJECT_ROOT, print_table  # noqa: F401  (puts the project on sys.path)

from tests.test_layers import LAYERS, arrows, circles, layer_of, upward_arrows


def main() -> None:
    found = arrows()
    groups = circles(found)
    upward = upward_arrows(found)
    print(f"{len(found)} imports between {len({a.source for a in found})} modules of codelens/\n")
    print(f"import circles: {len(groups)}")
    for group in groups:
        print("  " + " <-> ".join(group))
    print(f"\nupward imports: {len(upward)}")
    if upward:
        print_table(
            ["from", "line", "to", "layers"],
            [[a.source, a.line, a.target,
              f"{LAYERS[layer_of(a.source)][0]} -> {LAYERS[layer_of(a.target)][0]}"] for a in upward],
        )


if __name__ == "__main__":
    main()
