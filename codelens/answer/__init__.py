"""answer: an answer in words from the found code, with every citation checked.

`llm` is the OpenAI-compatible chat client (configuration, streaming, errors); `context`
packs the hits and their graph neighbours into a token budget; `citations` finds and
checks every path, line and symbol the answer cites against the index; `ask` is the prompt
and the whole exchange (draft, check, one retry, marks).
"""
