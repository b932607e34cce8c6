"""`codelens context` and `codelens impact` on a real indexed project (tests/fixtures/context_project:
a shop whose checkout calls a gateway, builds a receipt, raises a declined-payment error, reads
settings and an environment variable, is tested and documented), in a real git repository; and
every kind of bad input, each a clear message and exit code with nothing written."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from codelens.answer.task_context import ranked
from codelens.answer.token_count import COUNTER_NAMES, TOKENIZERS, counter_for
from codelens.errors import EXIT_BAD_INPUT, BadInput
from codelens.index.build import build_index
from codelens.index.layout import IndexLayout
from codelens.open_index import OpenIndex
from codelens.search.filters import SearchFilters
from codelens.settings import Settings
from tests.conftest import FIXTURES, PROJECT_ROOT, run_cli, session_cache, settings_for

CHECKOUT = "shop/checkout.py::checkout"
GATEWAY = "shop/gateway.py::charge_card"
TASK = ("Checkout raises PaymentDeclined for a good card: the order is paid for with a card, "
        "retrying a few times, and every retry is declined.")
PIECE_FIELDS = ["chunk_id", "path", "repo", "start_line", "end_line", "role", "hops", "form", "tokens", "score",
                "text"]


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(repo), "-c", "user.email=t@example.com", "-c", "user.name=t", *args],
                          capture_output=True, text=True, check=True)
    return done.stdout


@pytest.fixture(scope="module")
def shop(tmp_path_factory, embedder) -> tuple[Path, Settings]:
    """The shop as a git repository with one commit, indexed (treat both as read-only)."""
    repo = tmp_path_factory.mktemp("shop") / "shop_repo"
    shutil.copytree(FIXTURES / "context_project", repo)
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    settings = settings_for(tmp_path_factory.mktemp("shop_db") / "db")
    with session_cache():
        build_index(repo, settings, embedder=embedder)
    return repo, settings


@pytest.fixture(scope="module")
def index(shop, embedder) -> OpenIndex:
    return OpenIndex(shop[1], embedder=embedder)


@pytest.fixture()
def changed_shop(shop, tmp_path) -> Path:
    """A clone of the shop repository to change (the index stays the base commit's)."""
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(shop[0]), str(clone)], check=True)
    return clone


# ------------------------------------------------------------------ context


def test_context_walks_from_the_seeds_to_every_kind_of_neighbour(index: OpenIndex) -> None:
    packed = index.context(TASK, budget=6000)
    roles = {piece.chunk.chunk_id: piece.role for piece in packed.pieces}
    assert roles[CHECKOUT] == "seed"
    assert {"seed", "test"} <= set(roles.values())
    tests = [cid for cid, role in roles.items() if role == "test"]
    assert "tests/test_checkout.py::test_checkout_declines_a_short_card" in tests
    assert "shop/errors.py::PaymentDeclined" in roles and "shop/models.py::Order" in roles
    assert len(roles) == len(packed.pieces)  # one piece per chunk id
    counter = counter_for()  # o200k
    assert packed.tokens <= 6000 and all(p.tokens == counter.count(p.text) for p in packed.pieces)
    assert packed.tokenizer == counter.name == "o200k_base" and not packed.line_numbers
    every = [p.chunk.chunk_id for p in packed.pieces]
    assert every.index(GATEWAY) < every.index(CHECKOUT)  # what is called comes first


def test_configuration_and_documents_the_seeds_read_and_are_named_in(index: OpenIndex) -> None:
    from codelens.answer.task_context import Seed, walk

    seeds = [Seed(index.catalog.get(CHECKOUT), 1.0, 1), Seed(index.catalog.get(GATEWAY), 0.8, 2)]
    reached = {(r.chunk.chunk_id, r.role) for r in walk(seeds, index.links)}
    assert ("shop/settings.py::<module>", "configuration") in reached  # MAX_RETRIES, PAYMENT_TIMEOUT
    assert ("config.yaml::payment", "configuration") in reached  # PAYMENT_API_KEY from os.environ
    assert ("docs/payments.md::Checking out", "document") in reached  # names `checkout`
    assert ("shop/api.py::handle_checkout_request", "caller") in reached
    assert ("shop/models.py::Receipt", "type") in reached
    assert ("shop/errors.py::PaymentDeclined", "exception") in reached  # raised, not a plain callee
    ship = [Seed(index.catalog.get("shop/shipping.py::ship"), 1.0, 1)]
    assert [(r.chunk.chunk_id, r.role) for r in walk(ship, index.links)] == [
        ("config.yaml::shipping", "configuration")]  # settings.shipping: the configuration key


def test_a_small_budget_keeps_the_nearest_and_never_overflows(index: OpenIndex) -> None:
    for budget in (100, 300, 800):
        packed = index.context(TASK, budget=budget)
        assert packed.tokens <= budget
        assert all(piece.hops <= 1 or piece.form == "signature" for piece in packed.pieces)
    small, large = index.context(TASK, budget=300), index.context(TASK, budget=6000)
    assert len(small.pieces) < len(large.pieces)


def test_context_cli_json_and_markdown(shop, tmp_path) -> None:
    db = str(shop[1].db_path)
    done = run_cli("-m", "codelens", "context", TASK, "--budget", "2000", "--json", "--db", db)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert list(answer)[:3] == ["budget", "tokens", "pieces"] and answer["budget"] == 2000
    assert answer["tokens"] == sum(p["tokens"] for p in answer["pieces"]) <= 2000
    assert all(list(p)[:11] == PIECE_FIELDS for p in answer["pieces"])
    assert {p["form"] for p in answer["pieces"]} <= {"full", "signature", "outline"}
    task_file = tmp_path / "issue.txt"
    task_file.write_text(TASK, encoding="utf-8")
    markdown = run_cli("-m", "codelens", "context", f"@{task_file}", "--db", db)
    assert markdown.returncode == 0, markdown.stderr
    assert "### shop/checkout.py:8-13 function `checkout` (seed" in markdown.stdout
    assert "tokens (o200k_base)" in markdown.stdout.splitlines()[-1]
    assert "\ndef checkout(" in markdown.stdout and " | def checkout(" not in markdown.stdout


def test_context_cli_counts_in_the_tokenizer_asked_and_numbers_lines_when_asked(shop) -> None:
    db = str(shop[1].db_path)
    for choice in TOKENIZERS:
        done = run_cli("-m", "codelens", "context", TASK, "--budget", "1500", "--tokenizer", choice, "--json",
                       "--db", db)
        assert done.returncode == 0, done.stderr
        answer = json.loads(done.stdout)
        counter = counter_for(choice)
        assert (answer["tokenizer"], answer["line_numbers"]) == (COUNTER_NAMES[choice], False)
        assert answer["pieces"] and all(p["tokens"] == counter.count(p["text"]) for p in answer["pieces"])
        assert answer["tokens"] <= 1500
    numbered = run_cli("-m", "codelens", "context", TASK, "--line-numbers", "--json", "--db", db)
    assert numbered.returncode == 0, numbered.stderr
    answer = json.loads(numbered.stdout)
    checkout = next(p for p in answer["pieces"] if p["chunk_id"] == CHECKOUT)
    assert answer["line_numbers"] is True and " 8 | def checkout(" in checkout["text"]
    assert checkout["text"].splitlines()[0].startswith("### shop/checkout.py:8-13 function `checkout`")


# ------------------------------------------------------------------ impact


def test_impact_of_a_working_tree_change(changed_shop: Path, shop) -> None:
    from codelens.answer.diff import git_diff
    from codelens.answer.impact import impact_of

    index = OpenIndex(shop[1])
    gateway = changed_shop / "shop" / "gateway.py"
    gateway.write_text(gateway.read_text().replace("PAYMENT_TIMEOUT > 0", "PAYMENT_TIMEOUT >= 0"))
    found = impact_of(git_diff(changed_shop), index.catalog, index.graph, index.links, depth=2)
    assert [c.chunk_id for c in found.changed] == [GATEWAY]
    assert [(a.chunk.chunk_id, a.hops, a.via) for a in found.affected][:1] == [(CHECKOUT, 1, GATEWAY)]
    assert {a.chunk.chunk_id for a in found.affected} == {CHECKOUT, "shop/checkout.py::checkout_all",
                                                          "shop/api.py::handle_checkout_request"}
    assert [(t.test_id, t.hops) for t in found.tests] == [
        ("tests/test_checkout.py::test_checkout_declines_a_short_card", 2)]
    deeper = impact_of(git_diff(changed_shop), index.catalog, index.graph, index.links, depth=3)
    assert "tests/test_api.py" in deeper.test_files


def test_a_diff_made_against_shifted_lines_lands_where_its_lines_are(index) -> None:
    """As `patch` does: a hunk whose lines sit 2 lines further down than it says lands on the
    function they are in; an import added at the top, in the file's module block."""
    from codelens.answer.diff import parse_diff
    from codelens.answer.diff_chunks import changed_chunks

    shifted = ("--- a/shop/gateway.py\n+++ b/shop/gateway.py\n@@ -1,2 +1,3 @@\n"
               ' """The card payment gateway client."""\n+import sys\n import os\n'
               "@@ -6,4 +7,4 @@\n"
               '     """Charge the card through the payment gateway; True when the money was taken."""\n'
               '     api_key = os.environ.get("PAYMENT_API_KEY", "")\n-    if not api_key or amount <= 0:\n'
               "+    if not api_key or amount < 0:\n         return False\n")
    found = [c.chunk_id for c in changed_chunks(parse_diff(shifted), index.catalog)]
    assert found == ["shop/gateway.py::<module>", GATEWAY]
    nowhere = shifted.replace("amount <= 0", "amount <= 1")  # a line the file does not have, anywhere
    with pytest.raises(BadInput, match="does not apply"):
        changed_chunks(parse_diff(nowhere), index.catalog)


def test_impact_cli_revisions_staged_and_diff_file(changed_shop: Path, shop, tmp_path) -> None:
    checkout = changed_shop / "shop" / "checkout.py"
    checkout.write_text(checkout.read_text().replace("range(MAX_RETRIES)", "range(MAX_RETRIES + 1)"))
    git(changed_shop, "commit", "-qam", "one more retry")
    db = ["--db", str(shop[1].db_path)]
    # The index was built from the base repository: git runs there, so diff it to the clone's commit by file.
    patch = tmp_path / "change.diff"
    patch.write_text(git(changed_shop, "diff", "HEAD~1", "HEAD"))
    done = run_cli("-m", "codelens", "impact", "--diff", str(patch), "--json", *db)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert list(answer) == ["changed", "affected", "tests", "documents"]
    assert answer["changed"] == [CHECKOUT]
    assert {"path": "tests/test_checkout.py", "test_id": "tests/test_checkout.py::test_checkout_declines_a_short_card",
            "hops": 1} in answer["tests"]
    assert any(d["chunk_id"] == "docs/payments.md::Checking out" for d in answer["documents"])
    base = shop[0]
    for nothing in (["HEAD"], ["--staged"]):  # the base repository is as indexed
        same = run_cli("-m", "codelens", "impact", *nothing, *db)
        assert same.returncode == 0 and same.stdout.startswith("nothing changed"), same.stderr
    empty = run_cli("-m", "codelens", "impact", "--staged", "--json", *db)
    assert json.loads(empty.stdout) == {"changed": [], "affected": [], "tests": [], "documents": []}
    assert git(base, "status", "--porcelain") == ""


def test_impact_of_a_commit_range_in_the_indexed_repository(shop, tmp_path, embedder) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(shop[0], repo)
    settings = settings_for(tmp_path / "db")
    with session_cache():
        build_index(repo, settings, embedder=embedder)
    errors = repo / "shop" / "errors.py"
    errors.write_text(errors.read_text().replace("was declined", "was refused"))
    git(repo, "commit", "-qam", "reword")
    done = run_cli("-m", "codelens", "impact", "HEAD~1..HEAD", "--json", "--db", str(settings.db_path))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["changed"] == ["shop/errors.py::PaymentDeclined.__init__"]


# ------------------------------------------------------------------ bad input


def test_bad_tasks_and_budgets_exit_with_the_reason_and_write_nothing(tmp_path) -> None:
    missing = tmp_path / "no_index_here"
    megabyte = tmp_path / "dump.txt"  # a file: one argument of a megabyte is more than exec takes
    megabyte.write_text("x" * 1_048_576)
    cases = [("", "the task is empty"), (f"@{megabyte}", "characters; the most is"),
             (TASK, "out of range", "--budget", "0"), (TASK, "out of range", "--budget", "10000000"),
             (TASK, "no tokenizer 'gpt2' - give o200k, cl100k or e5", "--tokenizer", "gpt2")]
    for task, said, *flags in cases:
        done = run_cli("-m", "codelens", "context", task, *flags, "--db", str(missing))
        assert done.returncode == EXIT_BAD_INPUT and said in done.stderr, (said, done.stderr)
    assert not missing.exists()


def test_binary_stdin_and_a_missing_task_file_are_refused(tmp_path) -> None:
    missing = tmp_path / "no_index_here"
    command = [sys.executable, "-m", "codelens", "context", "-", "--db", str(missing)]
    for data, said in ((b"\x89PNG\r\n\x1a\n\x00\x00", "stdin is not text"), (b"\xff\xfe\xfa", "not UTF-8")):
        done = subprocess.run(command, input=data, capture_output=True, cwd=PROJECT_ROOT, timeout=120)
        assert done.returncode == EXIT_BAD_INPUT and said in done.stderr.decode(), done.stderr
    gone = run_cli("-m", "codelens", "context", f"@{tmp_path / 'nope.txt'}", "--db", str(missing))
    assert gone.returncode == EXIT_BAD_INPUT and "cannot read the task" in gone.stderr
    assert not missing.exists()


def test_bad_revisions_diffs_and_depths(shop, tmp_path) -> None:
    db = ["--db", str(shop[1].db_path)]
    unknown = run_cli("-m", "codelens", "impact", "no-such-branch", *db)
    assert unknown.returncode == EXIT_BAD_INPUT and "bad revision" in unknown.stderr
    not_applying = tmp_path / "stale.diff"
    not_applying.write_text("--- a/shop/gateway.py\n+++ b/shop/gateway.py\n@@ -9,1 +9,1 @@\n"
                            "-    api_key = os.environ['SOMETHING_ELSE']\n+    api_key = ''\n")
    stale = run_cli("-m", "codelens", "impact", "--diff", str(not_applying), *db)
    assert stale.returncode == EXIT_BAD_INPUT and "does not apply to the index" in stale.stderr
    prose = tmp_path / "prose.diff"
    prose.write_text("please fix the checkout\n")
    assert "not a unified diff" in run_cli("-m", "codelens", "impact", "--diff", str(prose), *db).stderr
    depth = run_cli("-m", "codelens", "impact", "--depth", "0", *db)
    assert depth.returncode == EXIT_BAD_INPUT and "depth of 0" in depth.stderr
    both = run_cli("-m", "codelens", "impact", "HEAD", "--diff", str(prose), *db)
    assert both.returncode == EXIT_BAD_INPUT and "leave out REV" in both.stderr
    assert git(shop[0], "status", "--porcelain") == ""


# ------------------------------------------------------------------ MCP


def test_mcp_tools_context_and_impact(shop, changed_shop: Path) -> None:
    from codelens.mcp.tools import CodeLensTools, ServedIndex

    tools = CodeLensTools(ServedIndex(shop[1]))
    packed = tools.context(TASK, budget=1500)
    assert packed.data["tokens"] <= 1500 and packed.data["pieces"][0]["text"] in packed.text
    gateway = changed_shop / "shop" / "gateway.py"
    gateway.write_text(gateway.read_text().replace("amount <= 0", "amount < 0"))
    diff = git(changed_shop, "diff")
    found = tools.impact(diff=diff)
    assert found.data["changed"] == [GATEWAY] and "Tests to run" in found.text
    with pytest.raises(BadInput, match="not both"):
        tools.impact(diff=diff, revision="HEAD")
    with pytest.raises(BadInput, match="out of range"):
        tools.context(TASK, budget=0)
    in_e5 = tools.context(TASK, budget=1500, tokenizer="e5", line_numbers=True)
    assert in_e5.data["tokenizer"] == COUNTER_NAMES["e5"] and in_e5.data["line_numbers"] is True
    assert all(p["tokens"] == counter_for("e5").count(p["text"]) for p in in_e5.data["pieces"])
    with pytest.raises(BadInput, match="no tokenizer 'r50k'"):
        tools.context(TASK, tokenizer="r50k")


# ------------------------------------------------------------------ serve


def test_serve_answers_context_requests(shop, embedder) -> None:
    import http.client
    import threading

    from codelens.search.searcher import Searcher
    from codelens.serve.client import announcement_file
    from codelens.serve.server import ContextOfSearcher, _announce, _handler, _Server
    from codelens.serve.worker import ModelThread

    class Recording(ContextOfSearcher):
        """The server's context, remembering each task it was asked."""

        def __init__(self, searcher: Searcher) -> None:
            super().__init__(searcher)
            self.asked: list[str] = []
            self.old = False  # answer as a server older than `tokenizer` did: e5, every line numbered

        def payload(self, request: dict) -> dict:
            self.asked.append(request.get("task"))
            if not self.old:
                return super().payload(request)
            answer = super().payload({**request, "tokenizer": "e5", "line_numbers": True})
            del answer["line_numbers"]
            return answer

    models = ModelThread()
    searcher = models.call(Searcher, shop[1], embedder)
    context = Recording(searcher)
    models.call(context.warm_up)
    server = _Server(("127.0.0.1", 0), _handler(searcher, "secret", lambda model: None, models, context=context))
    threading.Thread(target=server.serve_forever, daemon=True).start()

    def post(body: dict) -> tuple[int, dict]:
        connection = http.client.HTTPConnection("127.0.0.1", server.server_address[1], timeout=60)
        try:
            connection.request("POST", "/context", json.dumps({**body, "token": "secret"}).encode())
            response = connection.getresponse()
            return response.status, json.loads(response.read())
        finally:
            connection.close()

    try:
        status, answer = post({"task": TASK, "budget": 1200})
        assert status == 200 and 0 < answer["tokens"] <= 1200 == answer["budget"]
        assert any(piece["chunk_id"] == CHECKOUT for piece in answer["pieces"])
        status, refused = post({"task": "", "budget": 1200})
        assert status == 422 and refused["exit_code"] == EXIT_BAD_INPUT and "empty" in refused["error"]
        assert post({"task": TASK, "budget": 10**7})[0] == 422
        assert answer["tokenizer"] == "o200k_base" and answer["line_numbers"] is False
        status, in_cl100k = post({"task": TASK, "budget": 1200, "tokenizer": "cl100k", "line_numbers": True})
        assert status == 200 and in_cl100k["tokenizer"] == "cl100k_base" and in_cl100k["line_numbers"] is True
        assert all(p["tokens"] == counter_for("cl100k").count(p["text"]) for p in in_cl100k["pieces"])
        for bad, said in (({"tokenizer": "gpt-4"}, "no tokenizer 'gpt-4'"), ({"tokenizer": None}, "no tokenizer"),
                          ({"line_numbers": "yes"}, "'line_numbers' must be true or false")):
            status, refused = post({"task": TASK, "budget": 1200, **bad})
            assert status == 422 and refused["exit_code"] == EXIT_BAD_INPUT and said in refused["error"], refused
        from codelens.serve.client import RemoteError, ServerAddress, remote_context

        address = ServerAddress(server.server_address[1], "secret", os.getpid(), "", "")
        assert remote_context(address, {"task": TASK, "budget": 1200}) == answer  # the CLI's fast path
        with pytest.raises(RemoteError, match="empty"):
            remote_context(address, {"task": " ", "budget": 1200})
        announced = announcement_file(shop[1].index_dir)
        _announce(announced, {"port": server.server_address[1], "token": "secret", "pid": os.getpid(),
                              "index_dir": str(Path(shop[1].index_dir).resolve()), "chroma_url": ""})
        try:  # the CLI asks the announced server (its answer is the server's, byte for byte)
            done = run_cli("-m", "codelens", "context", TASK, "--budget", "1200", "--json",
                           "--db", str(shop[1].db_path))
            context.old = True  # a server that ignores `tokenizer`: the CLI packs in-process instead
            asked = len(context.asked)
            fell_back = run_cli("-m", "codelens", "context", TASK, "--budget", "1200", "--json",
                                "--db", str(shop[1].db_path))
        finally:
            announced.unlink()
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout) == answer and context.asked[-1] == TASK
        assert fell_back.returncode == 0 and len(context.asked) == asked + 1, fell_back.stderr
        assert json.loads(fell_back.stdout) == answer  # counted in o200k here, as asked
    finally:
        server.shutdown()
        server.server_close()
        models.close()


# ------------------------------------------------------------------ the app


def test_app_tab_packs_a_pasted_task_with_a_token_meter(monkeypatch, shop) -> None:
    from tests.test_app import open_app

    app = open_app(monkeypatch, shop[1].db_path)
    assert any("Вставьте текст задачи" in info.value for info in app.info)
    app.text_area(key="task").input(TASK).run()
    assert not app.exception, [e.value for e in app.exception]
    whole = next(block.value for block in app.code if block.value.startswith("## Context for:"))
    assert "### shop/checkout.py:8-13 function `checkout` (seed" in whole
    tokens = int(whole.splitlines()[-1].split(" pieces, ")[1].split(" of ")[0].replace(",", ""))
    assert 0 < tokens <= 8000
    assert any(f"{tokens:,} из 8,000 токенов" in str(bar.proto.text) for bar in app.get("progress"))


def test_a_change_no_test_calls_lists_the_nearest_test_files_using_its_file(index: OpenIndex) -> None:
    from codelens.answer.impact import impact_of

    diff = ("--- a/shop/models.py\n+++ b/shop/models.py\n@@ -22,1 +22,1 @@\n"
            "-        self.paid = order.total\n+        self.paid = round(order.total, 2)\n")
    found = impact_of(diff, index.catalog, index.graph, index.links)
    assert [c.chunk_id for c in found.changed] == ["shop/models.py::Receipt.__init__"]
    assert [(t.path, t.test_id, t.hops) for t in found.tests] == [("tests/test_checkout.py", "", 1)]


def test_mcp_server_lists_and_runs_context_and_impact_over_stdio(shop, tmp_path) -> None:
    from tests.test_mcp import serving

    with serving(["--db", str(shop[1].db_path), "--no-watch"], tmp_path / "server.log") as client:
        tools = client.tools()
        assert {"context", "impact"} <= set(tools)
        assert tools["context"].annotations.read_only_hint and tools["context"].input_schema["required"] == ["task"]
        budget = tools["context"].input_schema["properties"]["budget"]
        assert (budget["minimum"], budget["maximum"], budget["default"]) == (100, 2_000_000, 8000)
        result = client.call("context", task=TASK, budget=1000)
        assert not result.is_error and 0 < result.structured_content["tokens"] <= 1000
        assert result.structured_content["tokenizer"] == "o200k_base"
        choice = tools["context"].input_schema["properties"]["tokenizer"]
        assert (choice["enum"], choice["default"]) == (list(TOKENIZERS), "o200k")
        in_e5 = client.call("context", task=TASK, budget=1000, tokenizer="e5", line_numbers=True)
        assert not in_e5.is_error and in_e5.structured_content["tokenizer"] == COUNTER_NAMES["e5"]
        assert in_e5.structured_content["line_numbers"] is True
        wrong = client.call("context", task=TASK, tokenizer="gpt2")
        assert wrong.is_error and "tokenizer" in wrong.content[0].text
        empty = client.call("impact", staged=True)
        assert not empty.is_error and empty.structured_content["changed"] == []
        refused = client.call("context", task="   ")
        assert refused.is_error and "empty" in refused.content[0].text


# ------------------------------------------------------------------ a workspace


def test_context_and_impact_cross_the_repositories_of_a_workspace(tmp_path, embedder) -> None:
    root = tmp_path / "work"
    shop, billing = root / "shop", root / "billing"
    (billing / "billing").mkdir(parents=True)
    (billing / "billing" / "__init__.py").write_text("")
    (billing / "billing" / "invoices.py").write_text(
        'def send_invoice(customer, amount):\n    """E-mail the invoice of a paid order."""\n'
        "    return f'{customer}: {amount:.2f}'\n")
    (shop / "tests").mkdir(parents=True)
    (shop / "checkout.py").write_text(
        "from billing.invoices import send_invoice\n\n\n"
        'def pay_order(customer, amount):\n    """Pay an order and send its invoice."""\n'
        "    return send_invoice(customer, amount)\n")
    (shop / "tests" / "test_checkout.py").write_text(
        "from checkout import pay_order\n\n\ndef test_pay_order():\n    assert pay_order('ann', 2)\n")
    for repo in (shop, billing):
        git(repo, "init", "-q")
        git(repo, "add", "-A")
        git(repo, "commit", "-qm", "base")
    settings = settings_for(tmp_path / "db")
    build_index(root, settings, embedder=embedder)
    index = OpenIndex(settings, embedder=embedder)
    packed = index.context("the invoice e-mail of a paid order shows the wrong amount", budget=2000)
    pieces = {p.chunk.chunk_id: p for p in packed.pieces}
    assert pieces["billing/billing/invoices.py::send_invoice"].repo == "billing"
    assert pieces["shop/checkout.py::pay_order"].repo == "shop"
    invoices = billing / "billing" / "invoices.py"
    invoices.write_text(invoices.read_text().replace(":.2f", ":.3f"))
    done = run_cli("-m", "codelens", "impact", "--repo", "billing", "--json", "--db", str(settings.db_path))
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["changed"] == ["billing/billing/invoices.py::send_invoice"]
    assert answer["affected"] == [{"chunk_id": "shop/checkout.py::pay_order", "path": "shop/checkout.py",
                                   "repo": "shop", "hops": 1, "via": "billing/billing/invoices.py::send_invoice"}]
    assert answer["tests"] == [{"path": "shop/tests/test_checkout.py",
                                "test_id": "shop/tests/test_checkout.py::test_pay_order", "hops": 2}]
    unnamed = run_cli("-m", "codelens", "impact", "--db", str(settings.db_path))
    assert unnamed.returncode == EXIT_BAD_INPUT and "--repo NAME (billing, shop)" in unnamed.stderr
    only_shop = run_cli("-m", "codelens", "context", "paid order invoice", "--repo", "shop", "--json",
                        "--db", str(settings.db_path))
    seeds = [p for p in json.loads(only_shop.stdout)["pieces"] if p["role"] == "seed"]
    assert seeds and {p["repo"] for p in seeds} == {"shop"}  # the filter is the seeds'; the walk crosses
    unknown = run_cli("-m", "codelens", "context", "invoice", "--repo", "nosuch", "--db", str(settings.db_path))
    assert unknown.returncode == EXIT_BAD_INPUT and "no repository 'nosuch'" in unknown.stderr


# ------------------------------------------------------------------ reading a task


ISSUE = '''Checkout fails with `PaymentDeclined` after `charge_card` retries

Calling checkout(order) on a good card raises. See line 12 of shop/gateway.py.

```python
>>> from shop import *
>>> def helper(x):
...     return x
>>> checkout(order)  # hangs_forever here
Traceback (most recent call last):
  File "<stdin>", line 1, in <module>
  File "/home/me/shop/shop/checkout.py", line 9, in checkout
    receipt = charge_card(order.card, order.total)
  File "/home/me/shop/shop/gateway.py", line 14, in charge_card
    raise PaymentDeclined(card)
shop.errors.PaymentDeclined: declined
```
'''


def test_a_task_is_read_into_its_parts() -> None:
    from codelens.answer.task_reading import Frame, read_task

    parts = read_task(ISSUE)
    assert parts.title.startswith("Checkout fails")
    assert "Traceback" not in parts.prose and "charge_card" in parts.prose
    assert len(parts.blocks) == 1
    assert parts.frames == (Frame("<stdin>", 1, "<module>"), Frame("/home/me/shop/shop/checkout.py", 9, "checkout"),
                            Frame("/home/me/shop/shop/gateway.py", 14, "charge_card"))
    assert parts.errors == ("PaymentDeclined: declined",)
    assert ("shop/gateway.py", 12) in parts.path_lines and "shop/gateway.py" in parts.paths
    names = {name.text: name for name in parts.names}
    assert names["PaymentDeclined"].quoted and names["PaymentDeclined"].in_title
    assert names["checkout"].called and names["charge_card"].in_code
    assert names["helper"].defined  # the reporter's own function, not the repository's
    assert "from" not in names and "import" not in names and "most" not in names
    assert "hangs_forever" not in names  # a comment in the reproducer


def test_frames_of_other_languages() -> None:
    from codelens.answer.task_reading import Frame, read_task

    java = read_task("NPE\n\tat com.acme.PayService.handle(PayService.java:42)\n\tat com.acme.Main.main(Main.java:7)")
    assert java.frames == (Frame("PayService.java", 42, "handle"), Frame("Main.java", 7, "main"))
    node = read_task("crash\n    at fetchUser (web/src/api/client.ts:31:9)\n    at main (web/src/index.ts:4:1)")
    assert node.frames[0] == Frame("web/src/api/client.ts", 31, "fetchUser")
    go = read_task("panic: nil map\n\ngoroutine 1 [running]:\nmain.(*Server).Start()\n"
                   "\t/src/cmd/server/main.go:58 +0x1d")
    assert go.frames == (Frame("src/cmd/server/main.go", 58),)


def test_the_title_is_searched_on_its_own_and_its_hits_are_evidence(index: OpenIndex) -> None:
    """A task's first line is what is wrong, in a line: searched alone (the task's search reads the body
    too), its hits count as the task's own search's do; a one-line task is searched once."""
    from codelens.answer.task_context import SEARCH_DEPTH, TITLE_HITS, context_candidates, task_lookups

    searched: list[tuple[str, int]] = []

    def search(text: str, k: int, scope: SearchFilters, depth: int):
        searched.append((text, k))
        assert depth == SEARCH_DEPTH * k  # read as deep as it was measured, whatever a question's depth is
        return index.search(text, k, scope, depth)

    task = ("Card payments are declined on every retry\n\nWe set up a shop with three items; at checkout the "
            "order total looks right, the card is valid, but the customer sees an error page.")
    candidates = context_candidates(task, search, index.links, None, task_lookups(index.searcher, None))
    assert [text for text, _ in searched] == [task, "Card payments are declined on every retry"]
    assert searched[1][1] == TITLE_HITS
    why = {c.chunk.chunk_id: c.note for c in candidates}
    first = index.search("Card payments are declined on every retry", TITLE_HITS)[0].chunk.chunk_id
    assert "the title's search hit 1" in why[first]
    searched.clear()
    context_candidates("Card payments are declined on every retry", search, index.links)
    assert len(searched) == 1


def test_a_traceback_frame_and_a_named_function_decide(index: OpenIndex) -> None:
    task = ("Orders fail on retry\n\nSomething is off when paying, the receipt is never built.\n\n```\n"
            'Traceback (most recent call last):\n  File "/srv/app/shop/gateway.py", line 3, in charge_card\n'
            "    raise PaymentDeclined(card)\n```\n")
    found = [c.chunk.chunk_id for c in ranked(index.context_candidates(task))]
    assert found[0] == GATEWAY
    named = [c.chunk.chunk_id for c in ranked(index.context_candidates("an empty list to `checkout_all` is wrong"))]
    assert named[0] == "shop/checkout.py::checkout_all"


DISPATCHING_PRINTER = (
    "class Printer:\n    def _print(self, expr):\n"
    "        return getattr(self, '_print_' + type(expr).__name__)(expr)\n\n"
    "    def _print_Add(self, expr):\n        return '+'\n\n    def _print_Mul(self, expr):\n        return '*'\n\n"
    "    def _print_Pow(self, expr):\n        return '**'\n")


def test_the_walk_takes_the_dispatched_method_the_task_bears_on(tmp_path) -> None:
    from codelens.answer.context import ChunkCatalog
    from codelens.answer.task_context import ContextLinks, Seed, walk
    from codelens.graph.model import build_graph
    from codelens.ingest.codebase import chunk_codebase

    (tmp_path / "pp").mkdir()
    (tmp_path / "pp" / "printer.py").write_text(DISPATCHING_PRINTER, encoding="utf-8")
    chunked = chunk_codebase(tmp_path, 1_000_000)
    links = ContextLinks(ChunkCatalog(chunked.chunks), build_graph(chunked.chunks, chunked.sources))
    assert links.dispatch_prefixes == ["_print_"]
    seed = [Seed(links.catalog.get("pp/printer.py::Printer._print"), 1.0, 1)]
    wanted = "pp/printer.py::Printer._print_Mul"
    reached = walk(seed, links, relevance=lambda chunk_id: 0.5 if chunk_id == wanted else 0.0)
    assert [(r.chunk.chunk_id, r.role) for r in reached] == [(wanted, "callee")]
    assert walk(seed, links) == []  # without the task's relevance a family of hundreds is not walked


def test_the_graph_read_edge_by_edge_answers_as_the_loaded_one(tmp_path, mini_index) -> None:
    """A fresh `codelens context` walks the graph file edge by edge (graph/store.StoredGraph): every
    node's edges, by kind and in order, and the dispatch family are the loaded CodeGraph's."""
    from codelens.graph.dispatch import DISPATCH
    from codelens.graph.model import build_graph
    from codelens.graph.store import load_graph, open_stored_graph, save_graph
    from codelens.ingest.codebase import chunk_codebase

    (tmp_path / "pp").mkdir()
    (tmp_path / "pp" / "printer.py").write_text(DISPATCHING_PRINTER, encoding="utf-8")
    chunked = chunk_codebase(tmp_path / "pp", 1_000_000)
    db = tmp_path / "db"
    IndexLayout(db).graph.parent.mkdir(parents=True)
    save_graph(build_graph(chunked.chunks, chunked.sources), IndexLayout(db).graph)
    for folder in (db, mini_index.index_dir):
        loaded, stored = load_graph(folder), open_stored_graph(folder)
        for node in {*loaded.nodes, "no such node"}:
            for kinds in ((), ("calls",), ("calls", "inherits"), ("contains",)):
                assert stored.out_edges(node, kinds) == loaded.out_edges(node, kinds)
                assert stored.in_edges(node, kinds) == loaded.in_edges(node, kinds)
        assert stored.edges_via(DISPATCH) == loaded.edges_via(DISPATCH)
    assert [e.target.rsplit(".", 1)[-1] for e in open_stored_graph(db).edges_via(DISPATCH)] == [
        "_print_Add", "_print_Mul", "_print_Pow"]
    index = OpenIndex(mini_index)
    assert index.links.graph is not None and "graph" not in index.__dict__  # the file, never loaded whole
    index.warm_up()
    index.__dict__.pop("links")
    assert index.links.graph is index.graph  # a process that holds the graph walks it


def test_files_first_then_the_definitions_inside_them(tmp_path) -> None:
    """A named file decides between two definitions the search ranks the other way, and a type the task
    names finds its method in the dispatch family."""
    from codelens.answer.context import ChunkCatalog
    from codelens.answer.localize import Localizer, Lookups
    from codelens.answer.task_context import ContextLinks, ranked, task_candidates
    from codelens.answer.task_reading import read_task
    from codelens.ingest.codebase import chunk_codebase

    (tmp_path / "pp").mkdir()
    (tmp_path / "pp" / "latex.py").write_text(
        "class LatexPrinter:\n    def _print_Mul(self, expr):\n        return '*'\n\n"
        "    def _print_Add(self, expr):\n        return '+'\n", encoding="utf-8")
    (tmp_path / "pp" / "str.py").write_text(
        "class StrPrinter:\n    def _print_Mul(self, expr):\n        return '*'\n\n"
        "    def _print_Add(self, expr):\n        return '+'\n", encoding="utf-8")
    catalog = ChunkCatalog(chunk_codebase(tmp_path, 1_000_000).chunks)
    str_add = catalog.get("pp/str.py::StrPrinter._print_Add")
    latex_mul = catalog.get("pp/latex.py::LatexPrinter._print_Mul")
    task = read_task("Mul prints wrong\n\nThe product `Mul(x, y)` comes out without brackets in pp/latex.py.")
    searched = Localizer(task, catalog, [str_add, latex_mul], Lookups(), files_first=False)
    assert searched.ranked(1)[0].chunk == str_add  # the search's order
    localized = Localizer(task, catalog, [str_add, latex_mul], Lookups(), dispatch_prefixes=["_print_"])
    assert localized.kept_files[0] == "pp/latex.py"
    assert [r.chunk for r in localized.ranked(2)] == [latex_mul, str_add]
    undispatched = Localizer(task, catalog, [str_add, latex_mul], Lookups())
    assert localized.ranked(1)[0].score > undispatched.ranked(1)[0].score  # `Mul` -> `_print_Mul`
    candidates = task_candidates([], ContextLinks(catalog, None), localizer=localized)
    skeleton = candidates[0]  # the best file's skeleton, first where the budget allows it
    assert skeleton.skeleton and skeleton.chunk.chunk_id == "pp/latex.py" and skeleton.relevance == 1.0
    assert [c.symbol for c in skeleton.members[:2]] == ["LatexPrinter", "LatexPrinter._print_Mul"]
    assert all(not c.skeleton for c in ranked(candidates))  # func@k reads definitions only
    assert not task_candidates([], ContextLinks(catalog, None), localizer=searched)[0].skeleton
    # between files the task gives the same evidence, the graph's hub (graph/hubs.py) goes first
    task = read_task("Printing is wrong\n\nSomething prints the wrong way.")
    even = Localizer(task, catalog, [str_add, latex_mul], Lookups(), files_first=True)
    hubbed = Localizer(task, catalog, [str_add, latex_mul], Lookups(hubs={"pp/latex.py": 1.0}))
    assert even.kept_files[0] == "pp/str.py" and hubbed.kept_files[0] == "pp/latex.py"
    assert hubbed.file_scores["pp/latex.py"] > even.file_scores["pp/latex.py"]


def localized(folder: Path, task: str):
    """A Localizer of `task` over the code of `folder`, with BM25 over its chunks and no search hits."""
    from codelens.answer.context import ChunkCatalog
    from codelens.answer.localize import Localizer, Lookups
    from codelens.answer.task_reading import read_task
    from codelens.ingest.codebase import chunk_codebase
    from codelens.search.lexical import LexicalIndex
    from codelens.search.terms import tokenize

    chunks = [c for c in chunk_codebase(folder, 1_000_000).chunks if c.is_code]
    words = LexicalIndex.build([c.chunk_id for c in chunks], [tokenize(f"{c.symbol} {c.code}") for c in chunks])
    return Localizer(read_task(task), ChunkCatalog(chunks), [], Lookups(chunk_words=words))


def test_the_title_alone_is_searched_for_what_is_wrong(tmp_path) -> None:
    """An issue's title says what is wrong in a line; its reproducer names the code it set up with."""
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "special.py").write_text(
        "class Identity:\n    def _entry(self, i, j):\n        '''The identity matrix's element.'''\n"
        "        return 1 if i == j else 0\n", encoding="utf-8")
    (tmp_path / "m" / "symbol.py").write_text(
        "class MatrixSymbol:\n    def transpose(self):\n        return self\n", encoding="utf-8")
    localizer = localized(tmp_path, "Sum of the elements of an identity matrix is zero\n\nI built one:\n\n"
                                    "```\nM = MatrixSymbol('M', n, n)\ne = (M.T * M).doit()\n```\n")
    entry = "m/special.py::Identity._entry"
    assert "the task's title" in localizer.why(entry) and localizer.relevance(entry) > 0


def test_the_code_that_holds_the_tasks_error_message_is_evidence(tmp_path) -> None:
    """`ValueError: Imaginary coordinates are not permitted.` points at the definition that raises it
    (the method, not the class that holds it); a message many definitions share points nowhere."""
    from codelens.answer.localize import message_fragments

    assert message_fragments('ValueError: Dimension of "exp(x)" is Dimension(1), but it should be 2') == [
        "Dimension of", "but it should be"]
    assert message_fragments("IndexError: Index out of range: a[2]") == ["Index out of range"]
    assert message_fragments("KeyError: 'x'") == []
    (tmp_path / "geo").mkdir()
    (tmp_path / "geo" / "point.py").write_text(
        "class Point:\n    def __new__(cls, *coords):\n"
        "        if any(c.is_imaginary for c in coords):\n"
        "            raise ValueError('Imaginary coordinates are not permitted.')\n"
        "        return object.__new__(cls)\n\n"
        "    def distance(self, other):\n        raise TypeError('not a point: %s' % other)\n", encoding="utf-8")
    (tmp_path / "geo" / "line.py").write_text(
        "def through(p, q):\n    raise TypeError('not a point: %s' % p)\n\n"
        "def parallel(p, q):\n    raise TypeError('not a point: %s' % q)\n\n"
        "def meet(p, q):\n    raise TypeError('not a point: %s' % q)\n\n"
        "def join(p, q):\n    raise TypeError('not a point: %s' % q)\n", encoding="utf-8")
    localizer = localized(tmp_path, "Point3D fails\n\n```\n>>> Point3D(1, 2, 3).evaluate()\n"
                                    "Traceback (most recent call last):\n"
                                    "ValueError: Imaginary coordinates are not permitted.\n```\n")
    assert localizer.why("geo/point.py::Point.__new__") == "holds the task's error message"
    assert localizer.relevance("geo/point.py::Point.__new__") == 1.0
    assert localizer.relevance("geo/point.py::Point") == 0.0  # the class holds the method's code: not counted twice
    common = localized(tmp_path, "Lines fail\n\nTypeError: not a point: Point(1, 2)\n")
    assert all(common.relevance(c.chunk_id) == 0.0
               for c in common.catalog.chunks.values())  # five definitions raise it: a common phrase
