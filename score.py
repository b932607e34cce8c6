"""Score predictions: `python score.py --predictions results.json --questions eval_questions.json [--json]`."""

from codelens.cli.score import main

if __name__ == "__main__":
    raise SystemExit(main())
