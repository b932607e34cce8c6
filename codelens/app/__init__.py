"""app: what the Streamlit page (`app.py`) needs beyond the library, none of it importing Streamlit.

`warm` opens and warms the index in a background thread while the page renders; `ui` computes
what the tabs show (the questions file that fits the index, the evaluation table, example
queries); `highlight` renders result cards (code with real line numbers and the query's words
marked); `self_demo` is the demo every checkout has (CodeLens's own source when the GymHero zip
is nowhere), which `index.py` falls back to as well.
"""
