"""Ranking rules, each shown on a small repository made for it."""

from repomap import RepoMap


def write(root, files):
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return RepoMap(root, use_cache=False)


CORE = {
    "app.py": "from net import Client\n\ndef main():\n    Client().send()\n    helper()\n\ndef helper():\n    pass\n",
    "net.py": "class Client:\n    def send(self):\n        pass\n",
    "pool.py": "def retry_connection(host):\n    pass\n",
}


def test_query_sub_words_pull_a_file_into_a_small_map(tmp_path):
    repo = write(tmp_path, CORE)
    assert "pool.py" not in repo.build(tokens=20).text
    assert repo.build(tokens=20, query="add backoff to the connection retries").text.startswith("pool.py:")


def test_tests_rank_below_the_code_they_test(tmp_path):
    files = dict(CORE)
    files["tests/test_app.py"] = "from app import main\n\ndef test_main():\n    main()\n"
    ranked = write(tmp_path, files).build(tokens=4000).ranked_files
    assert ranked.index("tests/test_app.py") > ranked.index("net.py")


def test_a_folder_hidden_from_the_build_ranks_like_examples(tmp_path):
    """Go leaves folders starting with an underscore out of the build: chi's `_examples/`."""
    files = dict(CORE)
    files["_examples/demo.py"] = ("from net import Client\nfrom app import main\n\n"
                                  "def demo():\n    Client().send()\n    main()\n")
    ranked = write(tmp_path, files).build(tokens=4000).ranked_files
    assert ranked.index("_examples/demo.py") > ranked.index("pool.py")


def test_a_stub_of_a_name_gets_less_than_the_real_definition(tmp_path):
    """The kernel's tools/ holds two-line stand-ins for `struct device`; the real one is long."""
    real = "class Engine:\n" + "".join(f"    def step{i}(self):\n        return {i}\n\n" for i in range(20))
    files = {"lib/engine.py": real, "compat/engine.py": "class Engine:\n    pass\n"}
    files.update({f"user{i}.py": f"def run{i}():\n    return Engine()\n" for i in range(4)})
    ranked = write(tmp_path, files).build(tokens=4000).ranked_files
    assert ranked[0] == "lib/engine.py" and ranked.index("compat/engine.py") > ranked.index("lib/engine.py")


def test_calls_of_a_common_method_name_do_not_make_it_central(tmp_path):
    files = {f"user{i}.py": f"def use{i}(d):\n    return d.get('k') or d.get('j')\n" for i in range(8)}
    files["box.py"] = "class Box:\n    def get(self, key):\n        pass\n"
    files["core.py"] = "class Engine:\n    pass\n"
    files.update({f"caller{i}.py": f"from core import Engine\n\ndef run{i}():\n    Engine()\n" for i in range(2)})
    ranked = write(tmp_path, files).build(tokens=4000).ranked
    names = [r.tag.name for r in ranked]
    assert names.index("Engine") < names.index("get")


def test_mentioned_identifier_and_focus(tmp_path):
    repo = write(tmp_path, CORE)
    assert repo.build(tokens=20, mention_idents={"helper"}).text.startswith("app.py:")
    focused = repo.build(tokens=30, focus=["app.py"]).text
    assert "app.py" not in focused and focused.startswith("net.py:")


def test_the_file_search_finds_first_leads_the_map(tmp_path):
    """A file that matches the task by its body leads the map, ahead of a central file whose
    names share the task's words (by the graph and the names alone, models.py came first)."""
    files = {"models.py": "class Column:\n    pass\n\nclass Table:\n    pass\n\ndef column_type(column):\n    pass\n"}
    for n in range(6):
        files[f"use{n}.py"] = "from models import Column, Table, column_type\n\n" \
                              f"def build{n}():\n    return Table(Column(), column_type(None))\n"
    files["loader.py"] = ("def load_rows(path):\n    if path is None:\n"
                          "        raise ValueError('informative error: unknown datatype in the mapping')\n"
                          "    return path  # an unknown datatype failed silently\n")
    repo = write(tmp_path, files)
    task = "Raise an informative error for an unknown datatype in a column mapping"
    assert repo.search(task)[0].tag.path == "loader.py"
    assert repo.build(tokens=30, query=task).text.startswith("loader.py:")


def test_the_definitions_search_finds_follow_their_files_lead(tmp_path):
    """After a found file's best definition (by the graph: a class every file uses), the
    definition search found in it comes next, ahead of the graph's other central names (the
    map showed Column and Table, and at 40 tokens column_type, but not validate)."""
    files = {"models.py": "class Column:\n    pass\n\nclass Table:\n    pass\n\ndef column_type(column):\n    pass\n\n"
                          "def validate(rows):\n"
                          "    raise ValueError('informative error: unknown datatype in the mapping')\n"}
    for n in range(6):
        files[f"use{n}.py"] = "from models import Column, Table, column_type\n\n" \
                              f"def build{n}():\n    return Table(Column(), column_type(None))\n"
    repo = write(tmp_path, files)
    task = "Raise an informative error for an unknown datatype in a mapping"
    assert repo.search(task)[0].tag.id == "models.py::validate#function"
    assert repo.build(tokens=30, query=task).text == "models.py:\n  class Column:\n  ⋮\n  def validate(rows):\n  ⋮\n"
