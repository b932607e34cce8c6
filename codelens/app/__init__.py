"""app: the Streamlit page (`page.py`, a script Streamlit runs: `codelens app`, or the checkout's
`app.py`), its tabs (`tabs/`, one module per tab, which the page calls in order: with the page,
the only modules that import Streamlit) and what they need beyond the library, none of which
imports Streamlit.

`warm` opens and warms the index in a background thread while the page renders; `ui` computes
what the tabs show (the questions file that fits the index, the evaluation table, example
queries); `highlight` renders result cards (code with real line numbers and the query's words
marked); `self_demo` is the demo every checkout has (CodeLens's own source when the GymHero zip
is nowhere), which `index.py` falls back to as well.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

PAGE = "page.py"


def page_file() -> Path:
    """The page's script as package data (Streamlit runs a file, so it must be one on disk: an
    installed CodeLens is a folder in site-packages, never a zip)."""
    return Path(str(resources.files(__name__) / PAGE))
