"""CodeLens search page: `streamlit run app.py` (index folder from CODELENS_DB, default ./chroma_db).

The page lives in the package (codelens/app/page.py, which an installed `codelens app` runs); this
entry runs it afresh on every rerun, as Streamlit runs a script. Only the page and its tabs
(codelens/app/tabs/) use streamlit.
"""

from __future__ import annotations

import runpy

from codelens.app import page_file

runpy.run_path(str(page_file()))
