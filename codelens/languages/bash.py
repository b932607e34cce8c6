"""Bash (and the POSIX shell and zsh scripts written like it): functions, `name() {...}` or
`function name {...}`; a script's top level is its <module> text; `source lib.sh` and `. ./lib.sh`
make a file's functions visible (a shell function is global once its file is read)."""

from __future__ import annotations

from codelens.languages.model import FUNCTION, Conventions, Grammar, GraphRule, LanguageRow

# what a script runs that is the shell's own or a system tool's, never a function of the codebase
_COMMANDS = ("echo", "printf", "local", "export", "declare", "typeset", "readonly", "return", "exit", "cd",
             "test", "[", "[[", "set", "unset", "shift", "read", "eval", "exec", "source", ".", "trap", "true",
             "false", "command", "builtin", "type", "wait", "kill", "printenv", "pwd", "pushd", "popd",
             "getopts", "let", "mapfile", "readarray", "alias", "unalias", "hash", "ulimit", "umask",
             "cat", "grep", "sed", "awk", "cut", "tr", "sort", "uniq", "head", "tail", "find", "xargs", "ls",
             "mkdir", "rm", "cp", "mv", "ln", "chmod", "touch", "basename", "dirname", "env", "wc", "tee",
             "date", "sleep", "uname", "which", "git", "curl", "wget", "tar")

RULE = GraphRule(
    # `install_plugin "$name"`: a command names what it runs; a function is called as a command
    "bash", (("command", ""),), (), (), "shell", self_words=(), noise=_COMMANDS, name_nodes=("command_name",),
)


def test_id(path: str, owner: str, name: str) -> str:
    """`test/install.bats -f 'installs a plugin'` (bats runs a file, `-f` filters its tests by name)."""
    return f"{path} -f '{name}'" if name else path


LANGUAGE = LanguageRow(
    "bash", (".sh", ".bash", ".zsh", ".ksh"), Grammar("tree-sitter-bash", "tree_sitter_bash"),
    file_names=(".bashrc", ".bash_profile", ".profile", ".zshrc"),
    interpreters=("bash", "sh", "zsh", "ksh", "dash", "ash"),
    definitions=(("function_definition", FUNCTION),),
    # `if [ -n "$ZSH_VERSION" ]; then f() {...} fi`: a function defined under a condition is still one
    containers=("if_statement", "elif_clause", "else_clause"),
    doc_prefixes=("#",), head_doc=True, test_suffixes=(".bats", "_test.sh", "_spec.sh"), bare_values=True, graph=RULE,
    conventions=Conventions(test_id=test_id, throws=("exit",),
                            constant=r"^\s*(?:readonly\s+|declare\s+-[a-zA-Z]*r[a-zA-Z]*\s+|export\s+)?"
                                     r"(?P<name>[A-Z][A-Z0-9_]*)=(?!\()"),
)
