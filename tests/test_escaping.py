"""What the repository names is printed, never obeyed: a file name or a line of source cannot
pose as a map's own lines or drive the terminal (control characters and line breaks are shown
as backslash escapes), and cannot end the graph page's script. Ordinary names print as they are."""

import json
import re
import xml.dom.minidom

import pytest

from conftest import run

FAKE = "x.py:\n  def injected_fake_signature(password):\n  ⋮\nzz.py"
TITLE = "t\x1b]0;pwned\x07\x1b[31m.py"
PLAIN = "café ü.py"
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]")  # all but tab and newline


@pytest.fixture
def hostile(tmp_path):
    root = tmp_path / "hostile"
    root.mkdir()
    (root / FAKE).write_text("def real():\n    return helper()\n")
    (root / TITLE).write_text("def helper():\n    return real()\n\ndef painted(a='\x1b[31m\u2028'):\n    return 1\n")
    (root / PLAIN).write_text("def plain():\n    return helper() + real()\n")
    return root


def out(*args):
    result = run(*args)
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    assert not RAW.search(result.stdout), repr(result.stdout)
    return result.stdout


def test_text_map_shows_each_name_on_its_own_header_line(hostile):
    text = out("map", hostile, "--no-cache")
    headers = [line for line in text.splitlines() if line and not line.startswith(" ")]
    assert sorted(headers) == sorted([r"x.py:\n  def injected_fake_signature(password):\n  ⋮\nzz.py:",
                                      r"t\x1b]0;pwned\x07\x1b[31m.py:", f"{PLAIN}:"])
    assert not any(line.startswith("  def injected") for line in text.splitlines())
    assert r"  def painted(a='\x1b[31m\u2028'):" in text.splitlines()


def test_markdown_map_headings(hostile):
    text = out("map", hostile, "--no-cache", "--format", "markdown")
    headings = [line for line in text.splitlines() if line.startswith("### ")]
    assert len(headings) == 3 and f"### {PLAIN}" in headings
    assert not any(line.startswith("  def injected") for line in text.splitlines())


def test_json_map_keeps_names_exact(hostile):
    files = json.loads(out("map", hostile, "--no-cache", "--format", "json"))["files"]
    assert sorted(f["path"] for f in files) == sorted([FAKE, TITLE, PLAIN])
    signatures = [s["signature"] for f in files for s in f["symbols"]]
    assert "def painted(a='\x1b[31m\u2028'):" in signatures


def test_search_refs_and_retrieve_headers(hostile):
    search = out("search", "helper real", hostile, "--no-cache", "--limit", "10").splitlines()
    assert len(search) == 3, search  # helper, real, plain: one line each
    assert all(re.fullmatch(r".+::\w+#function lines 1-2 def \w+\(\):", line) for line in search), search
    assert json.loads(out("search", "painted", hostile, "--no-cache", "--format", "json"))["results"][0]["path"] == TITLE
    refs = out("refs", "real", hostile, "--no-cache").splitlines()
    assert refs[0] == r"x.py:\n  def injected_fake_signature(password):\n  ⋮\nzz.py::real#function 2 references"
    assert len(refs) == 3, refs
    retrieved = out("retrieve", "real", hostile, "--no-cache").splitlines()
    assert retrieved[:2] == [r"==> x.py:\n  def injected_fake_signature(password):\n  ⋮\nzz.py::real#function lines 1-2 <==",
                             "def real():"]


@pytest.mark.parametrize("fmt", ["graphml", "gexf"])
def test_graph_xml_is_well_formed(hostile, fmt):
    xml.dom.minidom.parseString(out("graph", hostile, "--no-cache", "--format", fmt).encode())


def test_graph_json_keeps_names_exact(hostile):
    graph = json.loads(out("graph", hostile, "--no-cache", "--format", "json"))
    assert sorted(node["id"] for node in graph["nodes"]) == sorted([FAKE, TITLE, PLAIN])


def test_graph_page_script_data_holds_no_markup(tmp_path):
    root = tmp_path / "page"
    root.mkdir()
    (root / "a<!--<script>]]>.py").write_text("def f(x='</script><!--<script>&amp;', y=\"\\\"';alert(1)//\"):\n"
                                             "    return g()\n")
    (root / "b.py").write_text("def g():\n    return f()\n")
    page = out("graph", root, "--no-cache", "--format", "html")
    data = re.search(r"^const data = (.*);$", page, re.MULTILINE).group(1)
    assert not set("<>&") & set(data), data
    assert "a\\u003c!--\\u003cscript\\u003e]]\\u003e.py" in data and "\\u0026amp;" in data
    nodes = {node["path"]: node for node in json.loads(data)["nodes"]}
    assert nodes["a<!--<script>]]>.py"]["signatures"] == "def f(x='</script><!--<script>&amp;', y=\"\\\"';alert(1)//\"):"
    assert page.count("<script>") == 1 and page.count("</script>") == 1


# --- a user's template: bounded work, and any failure a one-line error -------------------

@pytest.mark.parametrize("template, says", [
    ("{% for f in files %}{{ f | list }}{% endfor %}", "the template failed: TypeError"),
    ("{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}", "ranges run past"),
    ("{{ 'x' * 3000000000 }}", "builds too much"),
    ("{{ [0] * 3000000000 }}", "builds too much"),
    ("{{ 7 ** 1000000000 }}", "builds too much"),
    ("{% macro m() %}{{ m() }}{% endmacro %}{{ m() }}", "the template failed: RecursionError"),
])
def test_a_template_that_fails_or_asks_too_much_is_a_clear_error(shop, tmp_path, template, says):
    path = tmp_path / "user.j2"
    path.write_text(template)
    result = run("map", shop, "--template", path)  # minutes, or all memory, when unbounded
    assert result.returncode == 2 and result.stdout == "", result.stderr
    assert result.stderr.startswith("repomap: error: ") and says in result.stderr, result.stderr
    assert len(result.stderr.splitlines()) == 1


def test_a_template_may_still_count_repeat_and_loop(shop, tmp_path):
    path = tmp_path / "user.j2"
    path.write_text("{{ [1] * 2 }} {{ 2 ** 10 }} {{ 3 * 'ab' }} {% for i in range(3) %}{{ i }}{% endfor %}"
                    " {{ files | length }}\n")
    result = run("map", shop, "--template", path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("[1, 1] 1024 ababab 012 ")
