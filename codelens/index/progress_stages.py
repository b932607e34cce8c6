"""The pure core of an index run's progress, no I/O: what each stage weighs, the share done and the
time left.

A run's stages (`run_stages`: files to chunk, chunks to embed and store, the bridge's words, each
times its estimated seconds per unit), the share done (`share_done`) and the time left
(`seconds_left`: the elapsed time scaled by the estimated work left, so a busy machine slows every
stage alike and only the ratios of the costs matter). The tracker around it is progress.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Protocol

SCANNING = "reading the index"
CHUNKING = "chunking"
SEARCHABLE = "searchable index"  # a progressive run's first swap, then its word bridge
EMBEDDING = "embedding e5"
STORING = "storing"
BUILDING_SIDECARS = "sidecars"
PUBLISH = "publish"
TESTS = "test vectors"  # the test chunks' vectors, after the complete index
TESTS_SWAP = "swap"  # its last step: under the writer's lock, into a copy of the folder, swapped in

EXACT, BOUND, GUESS = "exact", "bound", "guess"  # how a stage's units were counted

# Estimated seconds per unit on the reference machine (2 shared cores, int8 e5 and MiniLM; bench/RESULTS.md:
# pydantic's 2,397 chunks took e5 54 s, MiniLM 26 s, the bridge's 3,371 words 6 s, chunking about 2.4 s;
# the graph 0.5-1.5 s and BM25 about 1 s per 1,000 chunks). Only their ratios matter (seconds_left).
CHUNK_FILE_S = 0.005
E5_CHUNK_S = 0.0225
STORE_CHUNK_S = 0.002  # a ChromaDB upsert
COPY_CHUNK_S = 0.0005  # the build folder starts as a copy of the index it builds on
CATALOG_CHUNK_S = 0.0002
PUBLISH_S = 0.3  # metadata written, the folder swapped in

MIN_SHARE = 0.01  # below it the time left is noise


@dataclass(frozen=True)
class WorkCost:
    """What building a sidecar costs, declared beside it (`Sidecar.cost`)."""

    label: str = ""  # its step as the progress shows it ("code graph"); "": the sidecar's name
    unit_s: float = 0.0  # estimated seconds per unit
    unit: str = "chunk"
    per_chunk: float = 1.0  # units per chunk (the bridge: words)
    new_only: bool = False  # only for chunks whose text is new this run (vectors: the rest are reused); a guess


UNWEIGHED = WorkCost()  # a sidecar that declares no cost: its step weighs nothing


class Weighed(Protocol):
    """A sidecar as the progress weighs it (index/sidecar.Sidecar)."""

    @property
    def name(self) -> str: ...
    @property
    def cost(self) -> WorkCost: ...
    @property
    def in_partial(self) -> bool: ...
    @property
    def after_partial(self) -> bool: ...
    @property
    def chunk_vectors(self) -> bool: ...


@dataclass(frozen=True)
class Stage:
    """One stage of a run (or one step of it): its work in units and what a unit costs."""

    phase: str
    step: str = ""  # shown after the phase: "sidecars: English vectors"
    key: str = ""  # what announces the step (step_begins): a sidecar's name
    unit: str = ""  # file, chunk, word
    units: int | None = 0  # None: not counted yet (a cold run before chunking)
    unit_s: float = 0.0
    fixed_s: float = 0.0
    counted: str = EXACT  # EXACT, BOUND (an upper bound: cached texts come off) or GUESS
    done: int = 0

    @property
    def label(self) -> str:
        return f"{self.phase}: {self.step}" if self.step else self.phase

    @property
    def seconds(self) -> float | None:
        """Its estimated seconds, None while its work is not counted."""
        return None if self.units is None else self.fixed_s + self.units * self.unit_s


@dataclass(frozen=True)
class RunWork:
    """What an index run has to do, as far as it is counted yet (plan.expected_stages)."""

    files: int | None = None  # files to chunk
    chunks: int | None = None  # every chunk of the source
    to_store: int | None = None  # chunks whose vectors the run stores: each may need its e5 vector
    held: int = 0  # chunks of the index it builds on (the build folder starts as its copy)
    deferred: int = 0  # test chunks whose vectors follow the complete index
    progressive: bool = False  # a searchable partial index first
    rebuild: frozenset[str] | None = None  # the sidecars it builds (None: every one)


def sidecar_stage(phase: str, sidecar: Weighed, chunks: int | None, new: int | None) -> Stage:
    """A sidecar's step: its units per chunk of the index (or per new chunk), a guess when only new ones count."""
    cost = sidecar.cost
    base = new if cost.new_only else chunks
    return Stage(phase, cost.label or sidecar.name, sidecar.name, cost.unit,
                 None if base is None else round(base * cost.per_chunk), cost.unit_s,
                 counted=GUESS if cost.new_only else EXACT)


def run_stages(work: RunWork, sidecars: Sequence[Weighed], partial_only: Sequence[Weighed] = ()) -> list[Stage]:
    """Every stage a run with this work goes through, in order, each weighed (stages.py's order).
    `partial_only`: the sidecars only a partial index holds (registry.SIDECARS.partial_only)."""
    chunks, new = work.chunks, work.to_store
    stages = [Stage(SCANNING), Stage(CHUNKING, unit="file", units=work.files, unit_s=CHUNK_FILE_S)]
    if work.progressive:  # catalog, the cheap sidecars, the first swap; then the late ones (the static leg first)
        stages += [Stage(SEARCHABLE, unit="chunk", units=chunks, unit_s=CATALOG_CHUNK_S),
                   *(sidecar_stage(SEARCHABLE, s, chunks, new) for s in sidecars if s.in_partial),
                   Stage(SEARCHABLE, "publish", "publish", fixed_s=PUBLISH_S),
                   *(sidecar_stage(SEARCHABLE, s, chunks, new) for s in partial_only),
                   *(sidecar_stage(SEARCHABLE, s, chunks, new) for s in sidecars if s.after_partial)]
    stages += [Stage(EMBEDDING, unit="chunk", units=new, unit_s=E5_CHUNK_S, counted=BOUND),
               Stage(STORING, unit="chunk", units=new, unit_s=STORE_CHUNK_S, fixed_s=work.held * COPY_CHUNK_S)]
    for sidecar in sidecars:  # a progressive run's complete build copies what its partial index holds
        stage = sidecar_stage(BUILDING_SIDECARS, sidecar, chunks, new)
        built = (work.rebuild is None or sidecar.name in work.rebuild) and not (
            work.progressive and (sidecar.in_partial or sidecar.after_partial))
        stages.append(stage if built else replace(stage, units=0))
    stages.append(Stage(PUBLISH, fixed_s=PUBLISH_S))
    if work.deferred:
        stages += [Stage(TESTS, "e5", unit="chunk", units=work.deferred, unit_s=E5_CHUNK_S, counted=BOUND),
                   *(sidecar_stage(TESTS, s, chunks, work.deferred) for s in sidecars if s.chunk_vectors),
                   Stage(TESTS, "swap", TESTS_SWAP, unit="chunk", units=work.deferred, unit_s=STORE_CHUNK_S,
                         fixed_s=(chunks or 0) * COPY_CHUNK_S + PUBLISH_S)]
    return stages


def share_done(stages: Sequence[Stage], cursor: int) -> float | None:
    """The share of the run's estimated seconds done: every stage before the cursor, and the part of
    the cursor's own that its count says. None while a stage is not counted yet."""
    weights = [stage.seconds for stage in stages]
    if not stages or any(weight is None for weight in weights) or sum(weights) <= 0:
        return None
    current = stages[cursor]
    part = min(current.done / current.units, 1.0) if current.units else 0.0
    return (sum(weights[:cursor]) + part * weights[cursor]) / sum(weights)


def seconds_left(elapsed_s: float, share: float | None) -> float | None:
    """The time left if the rest goes as the part done went: elapsed x (1 - share) / share."""
    if share is None or share < MIN_SHARE:
        return None
    return elapsed_s * (1.0 - share) / share


def with_embedding(stage: Stage, given: int, missing: int) -> Stage:
    """The stage about to embed `missing` of `given` texts (the rest are cached): a guessed count
    gives way to what is embedded, an upper bound loses the cached texts; an exact count (files,
    chunks stored) stays."""
    if stage.counted == EXACT:
        return stage
    if stage.counted == GUESS or stage.units is None:
        return replace(stage, units=stage.done + missing, counted=BOUND)
    return replace(stage, units=max(stage.done + missing, stage.units - (given - missing)))


def clock_text(seconds: float | None) -> str:
    """02:11, or 1:02:05 past an hour; --:-- when not known."""
    if seconds is None:
        return "--:--"
    hours, rest = divmod(round(seconds), 3600)
    minutes, whole = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{whole:02d}" if hours else f"{minutes:02d}:{whole:02d}"
