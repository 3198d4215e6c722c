"""Whole maps of the fixture repository, compared with reviewed golden files."""

import json
import os
import shutil
from pathlib import Path

import pytest

from conftest import git_init, run

GOLDEN = Path(__file__).parent / "golden"
CASES = {
    "plain.txt": ["--tokens", "400"],
    "plain.md": ["--tokens", "400", "--format", "markdown"],
    "plain.json": ["--tokens", "400", "--format", "json"],
    "small.txt": ["--tokens", "120"],
    "focus-cart.txt": ["--tokens", "150", "--focus", "shop/cart.py"],
    "query-serve.txt": ["--tokens", "60", "--query", "the Serve handler should use NewStore"],
    "hide-secondary.txt": ["--tokens", "2000", "--hide-secondary", "--exclude", "web"],
}


def check_golden(name: str, actual: str) -> None:
    path = GOLDEN / name
    if os.environ.get("REPOMAP_REGEN"):
        path.parent.mkdir(exist_ok=True)
        path.write_text(actual)
    assert actual == path.read_text()


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_map(shop, name):
    result = run("map", shop, *CASES[name], cwd=shop)
    assert result.returncode == 0, result.stderr
    check_golden(name, result.stdout)


def test_git_work_tree_gives_the_same_map(shop):
    walked = run("map", shop, "--tokens", "400").stdout
    git_init(shop)
    assert run("map", shop, "--tokens", "400").stdout == walked


def test_json_is_valid_and_describes_symbols(shop):
    data = json.loads(run("map", shop, "--format", "json", "--tokens", "4000").stdout)
    paths = [f["path"] for f in data["files"]]
    assert "shop/cart.py" in paths and "docs/guide.md" in paths
    cart = next(f for f in data["files"] if f["path"] == "shop/cart.py")
    total = next(s for s in cart["symbols"] if s["name"] == "total")
    assert total == {"id": "shop/cart.py::Cart.total#method", "name": "total", "kind": "method", "line": 19, "end_line": 24,
                     "signature": "def total(\nself,\ndiscount: float = 0.0,\n) -> float:"}


def test_focus_files_are_left_out_and_pull_in_what_they_use(shop):
    text = run("map", shop, "--tokens", "100", "--focus", "shop/cart.py").stdout
    assert "shop/cart.py" not in text
    assert text.startswith("shop/item.py:") or text.startswith("shop/money.py:")


def test_mentioned_identifier_enters_a_small_map(shop):
    plain = run("map", shop, "--tokens", "40").stdout
    assert "_round_half_even" not in plain
    text = run("map", shop, "--tokens", "40", "--mention-ident", "_round_half_even").stdout
    assert "_round_half_even" in text


def test_mentioned_file_by_basename(shop):
    text = run("map", shop, "--tokens", "40", "--mention-file", "main.go").stdout
    assert text.startswith("svc/main.go:")


def test_query_from_stdin(shop):
    text = run("map", shop, "--tokens", "40", "--query", "-", stdin="format_money is wrong for JPY").stdout
    assert "def format_money" in text


def test_template_of_ones_own(shop, tmp_path):
    template = tmp_path / "mine.j2"
    template.write_text("{% for f in files %}{{ f.path }} {{ f.symbols | length }}\n{% endfor %}")
    result = run("map", shop, "--tokens", "4000", "--template", template)
    assert result.returncode == 0
    assert "shop/cart.py 6\n" in result.stdout


def test_markdown_headings_are_sections(shop):
    text = run("map", shop, "--tokens", "4000", "--include", "*.md").stdout
    assert text == "docs/guide.md:\n  # Shop guide\n  ⋮\n  ## Carts\n  ⋮\n  ## Serving\n  ⋮\n"


def test_rst_and_asciidoc_sections_are_mapped_searched_and_retrieved(tmp_path):
    tags_dir = Path(__file__).parent / "fixtures" / "tags"
    shutil.copy(tags_dir / "rst" / "guide.rst", tmp_path)
    shutil.copy(tags_dir / "asciidoc" / "guide.adoc", tmp_path)
    text = run("map", tmp_path, "--tokens", "4000").stdout
    assert text == (
        "guide.adoc:\n  = User Guide\n  ⋮\n  == Installation\n  ⋮\n  === From source\n  ⋮\n"
        "  == Usage ==\n  ⋮\n  === Options & flags\n  ⋮\n"
        "guide.rst:\n  ==========\n  User Guide\n  ==========\n  ⋮\n  Installation\n  ============\n  ⋮\n"
        "  From source\n  -----------\n  ⋮\n  Usage\n  =====\n  ⋮\n  Options & flags\n  ---------------\n  ⋮\n")
    found = run("search", "options flags", tmp_path, "--format", "json")
    ids = [hit["id"] for hit in json.loads(found.stdout)["results"]]
    assert {"guide.rst::user-guide.usage.options-flags#section",
            "guide.adoc::user-guide.usage.options-flags#section"} <= set(ids[:2])
    section = run("retrieve", "guide.adoc::user-guide.installation.from-source#section", tmp_path)
    assert section.stdout.endswith("=== From source\n\nBuild it.\n\n----\n== not a heading, inside a listing block\n----\n\n")


def _shown_files(text: str) -> list[str]:
    """The files a text map shows, in its order."""
    return [line[:-1] for line in text.splitlines() if line and not line.startswith(" ")]


def test_prose_ranks_below_code_unless_the_task_names_it(shop):
    assert _shown_files(run("map", shop, "--tokens", "400").stdout)[-1] == "docs/guide.md"
    assert _shown_files(run("map", shop, "--tokens", "400", "--query", "explain serving in guide.md").stdout)[0] == \
        "docs/guide.md"
    # A heading is not an identifier: a task that says "carts" does not pull the guide up.
    assert "docs/guide.md" not in _shown_files(run("map", shop, "--tokens", "200", "--query", "carts").stdout)[:3]


def _tree_with_a_dominant_file(root: Path) -> None:
    """core.py defines 40 functions every other file calls; five small files define two each."""
    (root / "core.py").write_text("".join(f"def helper_{i}(value, option=None):\n    return value\n\n\n"
                                          for i in range(40)))
    for k in range(5):
        calls = "\n".join(f"    helper_{i}(x)" for i in range(40))
        (root / f"feature_{k}.py").write_text(
            "from core import *\n\n\n"
            f"def run_{k}(x):\n{calls}\n\n\ndef stop_{k}(x):\n    return run_{k}(x)\n")
    (root / "History.md").write_text("# History\n\n" + "".join(
        f"## 1.{i}.0 / 2024-01-{i + 1:02d}\n\n  * Fix thing {i}\n\n" for i in range(30, 0, -1)))


def test_breadth_before_depth_and_changelogs_show_their_newest_sections(tmp_path):
    _tree_with_a_dominant_file(tmp_path)
    # Ranked alone, core.py's helpers would fill 300 tokens; past its share (4 definitions at
    # this budget) they wait for the other files, and the changelog offers its newest sections.
    features = "".join(f"feature_{k}.py:\n  def run_{k}(x):\n  ⋮\n  def stop_{k}(x):\n  ⋮\n" for k in range(5))
    history = ("History.md:\n  # History\n  ⋮\n  ## 1.30.0 / 2024-01-31\n  ⋮\n"
               "  ## 1.29.0 / 2024-01-30\n  ⋮\n  ## 1.28.0 / 2024-01-29\n  ⋮ 27 more\n")
    helpers = "".join(f"  def helper_{i}(value, option=None):\n  ⋮\n" for i in range(4))
    assert run("map", tmp_path, "--tokens", "300").stdout == \
        "core.py:\n" + helpers[:-len("  ⋮\n")] + "  ⋮ 36 more\n" + features + history
    # A task that names the changelog: it leads, still with its newest versions only.
    named = run("map", tmp_path, "--tokens", "300", "--query", "release notes in History.md").stdout
    assert named.startswith(history + "core.py:\n")


def test_no_file_takes_half_of_a_large_map_while_others_wait(tmp_path):
    """A file of a hundred long signatures that every other file uses ranks first; at 4,096
    tokens its share (64 definitions there) would be more than half of the map. It is 32
    definitions at most, and the files waiting behind it get the room."""
    from repomap.tokens import count_tokens

    params = ", ".join(f"argument_number_{k}=None" for k in range(4))
    _core_used_by_features(tmp_path, f"def core_helper_{{i}}(value, {params}):\n", helpers=100, features=24, steps=10)
    text = run("map", tmp_path, "--tokens", "4096").stdout
    sections = dict(zip(_shown_files(text), _sections(text)))
    assert _shown_files(text)[0] == "core.py"
    assert sections["core.py"].endswith("  ⋮ 68 more\n")
    assert count_tokens(sections["core.py"]) <= count_tokens(text) / 2
    assert len(sections) == 17


def test_a_file_of_long_signatures_takes_at_most_half_of_the_map(tmp_path):
    """Sixteen definitions (the share at 1,024 tokens) of signatures eight lines long are
    almost the whole map; counted in tokens, the file's share is narrowed to half, and the
    files that use it get the rest."""
    from repomap.tokens import count_tokens

    params = "".join(f"    argument_number_{k}: int | None = None,\n" for k in range(5))
    _core_used_by_features(tmp_path, f"def core_helper_{{i}}(\n    value,\n{params}) -> int:\n", helpers=40, features=12, steps=6)
    text = run("map", tmp_path, "--tokens", "1024").stdout
    sections = dict(zip(_shown_files(text), _sections(text)))

    def section(shown: int) -> str:
        helpers = "  ⋮\n".join(f"  def core_helper_{i}(\n      value,\n" + params.replace("    ", "      ") + "  ) -> int:\n"
                               for i in range(shown))
        return f"core.py:\n{helpers}  ⋮ {40 - shown} more\n"

    assert sections["core.py"] == section(6)
    assert count_tokens(section(6)) <= 512 < count_tokens(section(7))  # the most that fit in half
    assert list(sections) == ["core.py", "feature_0.py", "feature_1.py", "feature_10.py", "feature_11.py", "feature_2.py"]


def _core_used_by_features(root: Path, header: str, helpers: int, features: int, steps: int) -> None:
    """core.py of `helpers` functions (`header` formatted with each one's number `i`), and
    feature files each of whose steps calls one of them: core.py ranks first."""
    (root / "core.py").write_text("".join(header.format(i=i) + "    return value\n\n\n" for i in range(helpers)))
    for k in range(features):
        body = "".join(f"def feature_{k}_step_{j}(value, option=None):\n    return core_helper_{j}(value)\n\n\n"
                       for j in range(steps))
        (root / f"feature_{k}.py").write_text(f"from core import *\n\n\n{body}")


def _sections(text: str) -> list[str]:
    """A text map's files' sections, in order."""
    parts: list[str] = []
    for line in text.splitlines(keepends=True):
        if line[:1].strip():
            parts.append(line)
        else:
            parts[-1] += line
    return parts


def test_a_file_of_type_aliases_is_mapped_and_linked(tmp_path):
    (tmp_path / "typing_aliases.py").write_text(
        "import typing as t\n\nResponseValue = t.Union[str, bytes]\nHeaderValue = t.Union[str, list]\n")
    (tmp_path / "app.py").write_text(
        "from typing_aliases import ResponseValue\n\n\ndef respond(value: ResponseValue) -> ResponseValue:\n"
        "    return value\n")
    text = run("map", tmp_path, "--tokens", "200").stdout
    assert text.startswith("typing_aliases.py:\n  ResponseValue = t.Union[str, bytes]\n")
    refs = run("refs", "typing_aliases.py::ResponseValue", tmp_path).stdout
    assert "app.py:4" in refs


def test_a_mirror_folder_ranks_as_secondary(tmp_path):
    """deno_dist/ copies src/ (hono's layout): the copies rank below every original."""
    for root in ("src", "deno_dist"):
        (tmp_path / root).mkdir()
        for i in range(4):
            uses = "".join(f"import {{ part{j} }} from './part{j}'\n" for j in range(4) if j != i)
            calls = "".join(f"  part{j}()\n" for j in range(4) if j != i)
            (tmp_path / root / f"part{i}.ts").write_text(f"{uses}\nexport function part{i}() {{\n{calls}}}\n")
    (tmp_path / "src" / "app.test.ts").write_text("import { part0 } from './part0'\n\ntest('a', () => part0())\n")
    shown = _shown_files(run("map", tmp_path, "--tokens", "2000").stdout)
    assert shown[:4] == [f"src/part{i}.ts" for i in range(4)]
    assert all(path.startswith("deno_dist/") for path in shown[4:])
    hits = json.loads(run("search", "part2", tmp_path, "--format", "json").stdout)["results"]
    assert hits[0]["id"] == "src/part2.ts::part2#function"


def test_the_map_shows_the_files_search_finds_for_the_task(shop):
    """Search's first two files for the task (item.py's parse_item, cart.py's add_line) are in
    a 100-token map; ranked by the graph alone, cart.py gave way to svc/store.go."""
    hits = json.loads(run("search", "parse an item line", shop, "--format", "json").stdout)["results"]
    first_files = list(dict.fromkeys(hit["id"].split("::")[0] for hit in hits))[:2]
    assert first_files == ["shop/item.py", "shop/cart.py"]
    shown = _shown_files(run("map", shop, "--query", "parse an item line", "--tokens", "100").stdout)
    assert set(first_files) <= set(shown)


def test_a_definition_repeated_byte_for_byte_is_shown_once(tmp_path):
    """gin's layout: one `type any = interface{}` shim per package, each used by its package;
    the map shows the shim once, under the file that ranks best (with most users), and
    gives the room to other definitions."""
    uses = {"binding": 3, "render": 2, "internal/json": 1}
    for package, users in uses.items():
        folder = tmp_path / package
        folder.mkdir(parents=True)
        name = package.rsplit("/", 1)[-1]
        (folder / "any.go").write_text(f"package {name}\n\ntype any = interface{{}}\n")
        for k in range(users):
            (folder / f"use{k}.go").write_text(
                f"package {name}\n\nfunc Use{k}(value any) any {{\n\treturn value\n}}\n")
    text = run("map", tmp_path, "--tokens", "2000").stdout
    assert text.count("type any = interface{}") == 1
    assert "binding/any.go:\n  type any = interface{}\n" in text
    assert "render/any.go" not in text and "internal/json/any.go" not in text
    assert all(f"func Use{k}(value any) any {{" in text for k in range(3))


@pytest.mark.parametrize("marker", ["git", "settings"])
def test_a_map_from_a_subfolder_is_the_repository_around_it(shop, marker):
    """From inside a repository, `repomap map` maps the git work tree's root (else the folder
    of .repomap.toml), says so in the summary on stderr, and equals the map of that root; a
    PATH still wins."""
    if marker == "git":
        git_init(shop)
    else:
        (shop / ".repomap.toml").write_text("tokens = 700\n")
    inside = shop / "shop"
    whole = run("map", shop)
    found = run("map", cwd=inside)
    assert found.returncode == 0, found.stderr
    said = "git" if marker == "git" else ".repomap.toml"
    assert found.stdout == whole.stdout and found.stderr.splitlines()[-1].endswith(f" · root {shop} ({said})")
    assert run("map", ".", cwd=inside).stdout != whole.stdout  # the folder named, not the repository
