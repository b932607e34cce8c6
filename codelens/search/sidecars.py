"""THE list of sidecars every index holds, in build order, composed here, above both index/ and
the legs: each leg (and the code graph) declares its `Sidecar` beside its builder, and importing
this module registers the list with index/registry.py, where the index run, the progressive run,
the incremental update, the test vectors and the health checks read it.

Whatever may build or update an index imports this module: the CLI (cli/main.py), the searcher
(so serve, MCP, the app and the tests' conftest, which all import it, and their watchers) and the
benchmarks (_common). Add a leg's sidecar here."""

from __future__ import annotations

from codelens.graph.store import GRAPH_SIDECAR
from codelens.index.registry import SIDECARS
from codelens.index.sidecar import Sidecar
from codelens.search.bridge import BRIDGE_SIDECAR
from codelens.search.dense_vectors import DENSE_SIDECAR
from codelens.search.english import ENGLISH_SIDECAR
from codelens.search.file_vectors import FILE_VECTORS_SIDECAR
from codelens.search.lexical import LEXICAL_SIDECAR
from codelens.search.static_leg import STATIC_SIDECAR

SHIPPED_SIDECARS: tuple[Sidecar, ...] = (GRAPH_SIDECAR, LEXICAL_SIDECAR, BRIDGE_SIDECAR, ENGLISH_SIDECAR,
                                         FILE_VECTORS_SIDECAR, DENSE_SIDECAR)

# The partial index's own leg: the complete build replaces it with e5's vectors.
PARTIAL_ONLY_SIDECARS: tuple[Sidecar, ...] = (STATIC_SIDECAR,)

# At import, on purpose: every process that indexes or searches imports this module before it
# needs the list, and none has to remember a call (the registry says what to import if it is empty).
SIDECARS.register(SHIPPED_SIDECARS, PARTIAL_ONLY_SIDECARS)
