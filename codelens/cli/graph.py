"""The code-graph commands: `callers`, `callees`, `deps`, `map` (wired into codelens.cli.main).

`ID_OR_NAME` is a chunk id (`gymhero/security.py::verify_password`), a qualified name
(`UserCRUDRepository.authenticate_user`), a plain name (`verify_password`), a dotted name
(`gymhero.security.verify_password`) or a file path (then imports stand in for calls).
"""

from __future__ import annotations

import argparse
import json

from codelens.cli.common import add_location_arguments, settings_of
from codelens.graph.codemap import DEFAULT_MAP_CHARS, code_map, code_map_data
from codelens.graph.model import CodeGraph
from codelens.graph.query import (
    Neighbour,
    UnknownSymbol,
    callees,
    callers,
    dependencies,
    neighbour_detail,
    no_call_graph,
    node_dict,
    node_heading,
    resolve_node,
    use_kinds,
)
from codelens.graph.store import load_graph
from codelens.index.manifest import files_beside_code


def add_graph_commands(commands: argparse._SubParsersAction) -> None:
    for name, help_text in (("callers", "who calls a function, method or class (who imports a file)"),
                            ("callees", "what a function, method or class calls (what a file imports)")):
        parser = commands.add_parser(name, help=help_text, description=help_text[0].upper() + help_text[1:] + ".")
        _add_target(parser)
    deps = commands.add_parser("deps", help="what depends on a symbol and what it depends on, transitively",
                               description="Upstream (callers of callers...) and downstream (callees of "
                                           "callees..., base classes) dependencies up to --depth.")
    _add_target(deps)
    deps.add_argument("--depth", type=_positive, default=2, help="how many steps each way (default 2)")
    deps.add_argument("--external", action="store_true", help="also list library and builtin calls")
    code_map_parser = commands.add_parser("map", help="a ~2,000-character map of the codebase",
                                          description="Packages, modules, main classes and functions.")
    code_map_parser.add_argument("--chars", type=_positive, default=DEFAULT_MAP_CHARS,
                                 help=f"length budget (default {DEFAULT_MAP_CHARS})")
    code_map_parser.add_argument("--repo", default=None, metavar="NAME",
                                 help="map one repository of a workspace (`codelens stats` lists them)")
    _add_output(code_map_parser)


def _add_target(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("target", metavar="ID_OR_NAME", help="chunk id, qualified or plain name, or file path")
    parser.add_argument("--include-tests", action="store_true", help="also list test code")
    _add_output(parser)


def _add_output(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print JSON")
    add_location_arguments(parser)


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be 1 or more")
    return value


def _graph(args: argparse.Namespace) -> CodeGraph:
    return load_graph(settings_of(args).index_dir)


def _resolve(graph: CodeGraph, args: argparse.Namespace) -> str:
    """The node args.target means; a chunk id (or path) of a document or configuration file is
    said to be one (from the chunk catalog, read only then) rather than "no function named"."""
    try:
        return resolve_node(graph, args.target)
    except UnknownSymbol:
        from codelens.index.progressive import load_catalog

        try:
            chunks = {e.chunk.chunk_id: e.chunk for e in load_catalog(settings_of(args).index_dir)}
        except (OSError, ValueError, KeyError, TypeError):  # no catalog: the graph's own message
            chunks = {}
        why = no_call_graph(args.target, chunks)
        if why is None:
            raise
        raise UnknownSymbol(why) from None


def cmd_callers(args: argparse.Namespace) -> int:
    graph = _graph(args)
    node_id = _resolve(graph, args)
    found = callers(graph, node_id, include_tests=args.include_tests)
    return _print_neighbours(graph, node_id, found, "callers", args.json)


def cmd_callees(args: argparse.Namespace) -> int:
    graph = _graph(args)
    node_id = _resolve(graph, args)
    found = [n for n in callees(graph, node_id) if args.include_tests or not n.node.is_test]
    return _print_neighbours(graph, node_id, found, "callees", args.json)


def _print_neighbours(graph: CodeGraph, node_id: str, found: list[Neighbour], role: str, as_json: bool) -> int:
    internal = [n for n in found if not n.node.is_external]
    external = [n for n in found if n.node.is_external]
    if as_json:
        print(json.dumps({"node": node_dict(graph.nodes[node_id]), role: [n.to_dict() for n in internal],
                          "external": [n.node.symbol for n in external]}, ensure_ascii=False, indent=2))
        return 0
    print(node_heading(graph, node_id))
    verb = {"callers": "called by", "callees": "calls"}[role]
    if use_kinds(graph.nodes[node_id]) == ("imports",):
        verb = {"callers": "imported by", "callees": "imports"}[role]
    print(f"{verb} {len(internal)}:" if internal else f"{verb}: nothing in the codebase")
    for neighbour in internal:
        print(f"  {neighbour.node.node_id}{neighbour_detail(neighbour)}")
    if external:
        print(f"external ({len(external)}): " + ", ".join(n.node.symbol for n in external))
    return 0


def cmd_deps(args: argparse.Namespace) -> int:
    graph = _graph(args)
    node_id = _resolve(graph, args)
    options = {"include_tests": args.include_tests, "include_external": args.external}
    upstream = dependencies(graph, node_id, args.depth, upstream=True, **options)
    downstream = dependencies(graph, node_id, args.depth, upstream=False, **options)
    if args.json:
        steps = {name: [{**node_dict(graph.nodes[s.node_id]), "depth": s.depth, "from": s.parent} for s in found]
                 for name, found in (("upstream", upstream), ("downstream", downstream))}
        print(json.dumps({"node": node_dict(graph.nodes[node_id]), "depth": args.depth, **steps},
                         ensure_ascii=False, indent=2))
        return 0
    print(node_heading(graph, node_id))
    for title, arrow, found in (("upstream (what depends on it)", "<-", upstream),
                                ("downstream (what it depends on)", "->", downstream)):
        print(f"{title}, depth {args.depth}: {len(found) or 'nothing'}")
        children: dict[str, list[str]] = {}
        for step in found:
            children.setdefault(step.parent, []).append(step.node_id)
        _print_tree(node_id, children, arrow, 1)
    return 0


def _print_tree(parent: str, children: dict[str, list[str]], arrow: str, level: int) -> None:
    for child in children.get(parent, []):
        print(f"{'  ' * level}{arrow} {child}")
        _print_tree(child, children, arrow, level + 1)


def cmd_map(args: argparse.Namespace) -> int:
    graph = _graph(args)
    index_dir = settings_of(args).index_dir
    files = files_beside_code(index_dir)
    if args.repo:
        from codelens.graph.codemap import repository_part

        graph, files = repository_part(graph, files, index_dir, args.repo)
    if args.json:
        print(json.dumps(code_map_data(graph, args.chars, files), ensure_ascii=False, indent=2))
    else:
        print(code_map(graph, args.chars, files))
    return 0


GRAPH_COMMANDS = {"callers": cmd_callers, "callees": cmd_callees, "deps": cmd_deps, "map": cmd_map}
