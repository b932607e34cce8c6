"""tabs: the page's parts that draw with Streamlit, which page.py calls in order: one module per
tab (`search` with the result `cards` it shows, `evaluation` for Precision@5, `index`, `context`
for a task's context) and `resources`, what the page caches across reruns (the model, the warming
index, the watcher). With page.py, the only modules of the package that import streamlit.
"""
