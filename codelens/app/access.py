"""The page's gate on a network address: the team token first, then anything else.

Plain functions (no streamlit here: only page.py and tabs/ import it): where the page's token comes
from and whether what the visitor typed is it. `streamlit run` takes no flags of ours, so the
token comes from the environment: the file CODELENS_TOKEN_FILE names (not readable by other
users), else CODELENS_TOKEN. The page remembers a visitor who typed it in that visitor's session
(server-side state), never the token itself.
"""

from __future__ import annotations

from collections.abc import Mapping

from codelens.settings import environment_value
from codelens.tokens import TOKEN_FILE_VARIABLE, TOKEN_VARIABLE, TokenError, load_token, same_token

UNLOCKED_KEY = "codelens_team_token_ok"  # st.session_state: this visitor has given the token
HOW_TO_OPEN = ('make a token with python -c "import secrets; print(secrets.token_urlsafe(32))" > token && '
               f"chmod 600 token, then start the page with {TOKEN_FILE_VARIABLE}=token (or {TOKEN_VARIABLE}) "
               "in its environment and give the token to the team")


def page_token(environ: Mapping[str, str] | None = None) -> str:
    """The token an exposed page asks for; TokenError (saying how to make one) when none is configured."""
    token = load_token(environment_value("token_file", environ), environ)
    if token is None:
        raise TokenError(f"this page is reachable from the network, so it opens only with a team token: {HOW_TO_OPEN}")
    return token


def unlocks(given: str, expected: str) -> bool:
    """Whether the typed token is the page's (constant time; surrounding spaces from a paste forgiven)."""
    return same_token(given.strip(), expected)
