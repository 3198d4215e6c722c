"""Search returns ranked metadata for names and for plain-language questions."""

import json

from conftest import run
from test_retrieve import repo  # noqa: F401  (fixture)


def ids(result):
    return [line.split()[0] for line in result.stdout.splitlines()]


def test_natural_language_question(repo):  # noqa: F811
    result = run("search", "where do we retry the failed connection", "--root", repo)
    assert ids(result)[0] == "svc.py::retry_connection#function"
    first = result.stdout.splitlines()[0]
    assert "svc.py:15-17" in first and "def retry_connection(host, attempts=3):" in first


def test_filters_and_limit(repo):  # noqa: F811
    assert ids(run("search", "connect", "--root", repo, "--kind", "method")) == ["svc.py::Client.connect#method"]
    assert set(ids(run("search", "connect", "--root", repo, "--path", "other.py"))) == {"other.py::connect#function"}
    assert len(ids(run("search", "connect", "--root", repo, "--limit", "1"))) == 1


def test_json_results(repo):  # noqa: F811
    data = json.loads(run("search", "open a connection", "--root", repo, "--json").stdout)
    top = data["results"][0]
    assert top["id"] == "svc.py::Client.connect#method" and top["doc"] == "Open a connection."
    assert set(data["_meta"]) == {"tokens", "file_tokens", "tokens_saved", "ms"}
