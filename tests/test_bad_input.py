"""Bad input gets one clear line and exit 2; messy files never stop a run and are counted."""

from conftest import run


def assert_clean_error(result, text):
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert text in result.stderr
    assert result.stdout == ""


def test_missing_directory(tmp_path):
    result = run("map", tmp_path / "nope")
    assert_clean_error(result, "no such directory")
    assert len(result.stderr.strip().splitlines()) == 1


def test_path_is_a_file(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    assert_clean_error(run("map", tmp_path / "a.py"), "not a directory")


def test_missing_focus_file(shop):
    assert_clean_error(run("map", shop, "--focus", "nope.py"), "no such focus file: nope.py")


def test_bad_budget(shop):
    assert_clean_error(run("map", shop, "--tokens", "0"), "must be at least 1")
    assert_clean_error(run("map", shop, "--tokens", "lots"), "not a whole number")


def test_bad_templates(shop, tmp_path):
    assert_clean_error(run("map", shop, "--template", tmp_path / "none.j2"), "no such template file")
    broken = tmp_path / "broken.j2"
    broken.write_text("{% for f in files %}")
    assert_clean_error(run("map", shop, "--template", broken), "bad template")


def test_messy_files_are_counted_and_do_not_stop_the_run(tmp_path):
    (tmp_path / "good.py").write_text("def good():\n    return helper()\n")
    (tmp_path / "blob.py").write_bytes(b"\x00\x01\x02binary" * 100)
    (tmp_path / "huge.py").write_text("x = 1\n" * 200_000)
    (tmp_path / "bundle.min.js").write_text("var a=" + "1+" * 3000 + "1;\n")
    (tmp_path / "latin.py").write_bytes("def caf\xe9_menu():\n    pass\n".encode("latin-1"))
    (tmp_path / "broken.py").write_text("def helper(:\n    pass\n\nclass Fine:\n    def ok(self):\n        pass\n")
    (tmp_path / "notes.txt").write_text("hello\n")
    result = run("map", tmp_path, "--tokens", "500")
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    for note in ("1 binary", "1 too large", "1 minified (long lines)", "1 not UTF-8 (tagged anyway)",
                 "with syntax errors (partial tags)", "1 not source code"):
        assert note in result.stderr
    assert "def good():" in result.stdout
    assert "class Fine:" in result.stdout  # partial tags from the file with a syntax error
    assert "menu():" in result.stdout  # tagged although not UTF-8


def test_max_file_size_is_configurable(tmp_path):
    (tmp_path / "a.py").write_text("def a():\n    pass\n" + "#" * 500 + "\n")
    result = run("map", tmp_path, "--max-file-size", "100")
    assert result.returncode == 1
    assert "1 too large" in result.stderr and "the map is empty" in result.stderr
    assert result.stdout == ""


def test_every_command_takes_the_repository_as_path_and_root_is_an_alias(shop, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    searched = run("search", "cart total", shop, cwd=elsewhere)
    assert searched.returncode == 0 and "shop/cart.py::" in searched.stdout
    assert run("search", "cart total", "--root", shop, cwd=elsewhere).stdout == searched.stdout
    retrieved = run("retrieve", "shop/money.py::format_money#function", "shop/cart.py::Cart#class", shop,
                    cwd=elsewhere)
    assert retrieved.returncode == 0 and retrieved.stdout.count("==> ") == 2
    assert run("refs", "shop/item.py::Item#class", shop, cwd=elsewhere).returncode == 0
    focused = run("map", "--focus", "shop/cart.py", shop, cwd=elsewhere)
    assert focused.returncode == 0 and "shop/item.py:" in focused.stdout
    clash = run("search", "cart", shop, "--root", elsewhere)
    assert clash.returncode == 2 and "two repositories" in clash.stderr


def test_options_are_spelt_out_and_choices_checked(shop):
    abbreviated = run("map", shop, "--token", "40")
    assert abbreviated.returncode == 2 and "unrecognized arguments: --token" in abbreviated.stderr
    assert abbreviated.stderr.startswith("repomap map: error:") and "did you mean --tokens?" in abbreviated.stderr
    assert "(see repomap map --help)" in abbreviated.stderr
    unknown = run("search", "cart", shop, "--bogus")
    assert unknown.stderr == "repomap search: error: unrecognized arguments: --bogus (see repomap search --help)\n"
    misspelt = run("search", "cart", shop, "--kind", "methd")
    assert misspelt.returncode == 2 and "invalid choice: 'methd'" in misspelt.stderr and "'method'" in misspelt.stderr
    for result in (abbreviated, misspelt):
        assert len(result.stderr.splitlines()) == 1


def test_every_command_asks_for_json_as_format_json(shop):
    """One name per concept: JSON output is `--format json` on every command that has it."""
    import json

    for command in (["map"], ["search", "cart"], ["retrieve", "shop/cart.py::Cart#class"],
                    ["refs", "shop/item.py::Item#class"], ["graph"]):
        result = run(*command, shop, "--format", "json")
        assert result.returncode == 0, (command, result.stderr)
        json.loads(result.stdout)
    assert_clean_error(run("search", "cart", shop, "--json"), "unrecognized arguments: --json")


def test_graph_has_no_token_budget(shop):
    assert_clean_error(run("graph", shop, "--tokens", "5"), "repomap graph: error: unrecognized arguments: --tokens 5")


def test_every_output_is_relative_to_the_repository_and_its_folders_are_made(shop, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    graph = run("graph", shop, "--format", "json", "--output", "out/graph.json", cwd=elsewhere)
    assert graph.returncode == 0, graph.stderr
    written = run("write", shop, "--output", "out/MAP.md", cwd=elsewhere)
    assert written.returncode == 0, written.stderr
    assert sorted(p.name for p in (shop / "out").iterdir()) == ["MAP.md", "graph.json"]
    assert list(elsewhere.iterdir()) == []


def test_an_empty_answer_says_why_and_exits_1(shop, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    for args, why in [(("map", empty), "the map is empty: no file it may show defines anything"),
                      (("map", shop, "--tokens", "3"), "the map is empty: a budget of 3 tokens holds none of the 9 files"),
                      (("search", "cart", empty), "no definition matches the query"),
                      (("search", "zzyzx", shop), "no definition matches the query")]:
        result = run(*args)
        assert (result.returncode, result.stdout) == (1, ""), args
        assert why in result.stderr.splitlines()[-1], (args, result.stderr)  # the last word: after the summary


def test_a_query_of_several_words_needs_no_quotes(shop):
    quoted = run("search", "format money", shop)
    assert quoted.returncode == 0 and "shop/money.py::format_money#function" in quoted.stdout
    assert run("search", "format", "money", shop).stdout == quoted.stdout
    assert run("search", "format", "money", cwd=shop).stdout == quoted.stdout
