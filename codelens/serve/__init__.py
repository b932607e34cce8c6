"""serve: `codelens serve`, a long-lived process that keeps one index and its models loaded.

`server` answers searches over HTTP on 127.0.0.1 (a token in the announcement file beside the
index guards it) and follows the indexed folder; `client` is the CLI's fast path to a running
server (the standard library only); `worker` is the one model thread that every search of
`serve` and of the MCP server runs on.
"""
