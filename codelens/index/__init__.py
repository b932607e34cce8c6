"""index: an index folder on disk and the run that builds it.

`layout` names every path in an index folder (open it to see what an index is made of);
`store` is the only module that imports chromadb; `metadata` is `index_metadata.json` (a
fixed contract); `manifest` holds the content hashes that make runs incremental;
`embed_cache` keeps vectors by text hash so nothing is embedded twice and killed runs resume;
`folder` is the writer's lock, build-aside and atomic swap; `sidecar` is the Sidecar record a leg
declares and what every sidecar builder is handed; `registry` holds the sidecars search/sidecars.py
registers; `embedding` embeds a run's passages; `build` is a run in one screen, as named stages
(`stages`) over a run record whose decisions `plan` makes once, reading the index it builds on
once (`previous`), with one `progress` for the whole run (the bar, the time left, the file
`stats` reads while it runs) around `progress_stages`, its pure core (what each stage weighs, the
share done, the time left); `steps` is what every writer of a folder does; `test_vectors` adds the
test chunks' vectors after the complete index; `update` applies a few changed files in seconds (its
e5 vectors in `delta`); `watch` follows a folder and runs updates; `freshness` says whether a hit's
file changed since.
"""
