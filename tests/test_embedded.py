"""Code inside another format: Vue and Svelte components' scripts, Jupyter notebooks' code
cells. The map, search and retrieve all point into the file itself: its lines, and for a
notebook the source view every reader of it sees (notebooks.source_of), never its JSON."""

import json
import shutil
from pathlib import Path

import pytest

from conftest import run, run_process

CART_TS = """<script setup lang="ts" generic="T extends Item<number>">
import CartItem from './CartItem.vue'

/** The sum of the prices. */
export function cartTotal(items: T[]): number {
  return items.reduce((sum, item) => sum + item.price, 0)
}
</script>

<template>
  <!-- <script>function commentedOut() {}</script> -->
  <CartItem v-for="item in items" :item="item" />
</template>
"""
CART_ITEM_JS = """<template>
  <li>{{ formatPrice(item.price) }}</li>
</template>

<script>
export default { props: ['item'] }

// Cents as a price.
function formatPrice(cents) {
  return (cents / 100).toFixed(2)
}
</script>

<style>
li { color: red }
</style>
"""
COUNTER = """<script lang="ts">
  let count = 0
  function incrementBy(step: number) {
    count += step
  }
</script>

<button on:click={() => incrementBy(1)}>{count}</button>
<CartItem item={count} />
"""


def notebook(language: str | None, cells: list[tuple[str, str]]) -> str:
    metadata = {"kernelspec": {"language": language, "name": language}} if language else {}
    return json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": metadata, "cells": [
        {"cell_type": kind, "metadata": {}, "source": source.splitlines(keepends=True),
         **({"outputs": [], "execution_count": None} if kind == "code" else {})} for kind, source in cells]}, indent=1)


LOAD_CELL = 'def load_prices(path):\n    """Reads the price list."""\n    return open(path).read()'
PRICES = notebook("python", [("markdown", "# Prices"), ("code", "%matplotlib inline\nimport os\n!ls"),
                             ("code", LOAD_CELL), ("code", "%%bash\necho not python")])


@pytest.fixture
def shop(tmp_path) -> Path:
    root = tmp_path / "shop"
    for rel, text in {"src/Cart.vue": CART_TS, "src/CartItem.vue": CART_ITEM_JS, "src/Counter.svelte": COUNTER,
                      "notebooks/prices.ipynb": PRICES}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def symbols(root: Path) -> dict[str, dict]:
    result = run("map", root, "--format", "json", "--tokens", "4000")
    assert result.returncode == 0, result.stderr
    return {s["id"]: s for f in json.loads(result.stdout)["files"] for s in f["symbols"]}


def retrieved(root: Path, target: str) -> tuple[str, str]:
    """The header line and the text `retrieve` prints for a target."""
    result = run("retrieve", target, root)
    assert result.returncode == 0, result.stderr
    header, text = result.stdout.split("\n", 1)
    return header, text


def test_the_map_shows_component_scripts_and_notebook_cells_at_their_lines(shop):
    found = symbols(shop)
    assert {i: (s["kind"], s["line"], s["end_line"], s["signature"]) for i, s in found.items()} == {
        "src/Cart.vue::Cart#class": ("class", 1, 13, '<script setup lang="ts" generic="T extends Item<number>">'),
        "src/Cart.vue::Cart.cartTotal#method": ("method", 5, 7, "export function cartTotal(items: T[]): number {"),
        "src/CartItem.vue::CartItem#class": ("class", 1, 16, "<template>"),
        "src/CartItem.vue::CartItem.formatPrice#method": ("method", 9, 11, "function formatPrice(cents) {"),
        "src/Counter.svelte::Counter#class": ("class", 1, 9, '<script lang="ts">'),
        "src/Counter.svelte::Counter.incrementBy#method": ("method", 3, 5, "function incrementBy(step: number) {"),
        "notebooks/prices.ipynb::load_prices#function": ("function", 11, 13, "def load_prices(path):"),
    }


def test_retrieve_cuts_the_definition_out_of_the_component_file(shop):
    assert retrieved(shop, "src/Cart.vue::Cart.cartTotal") == (
        "==> src/Cart.vue::Cart.cartTotal#method lines 4-7 <==",
        "/** The sum of the prices. */\nexport function cartTotal(items: T[]): number {\n"
        "  return items.reduce((sum, item) => sum + item.price, 0)\n}\n")
    assert retrieved(shop, "src/CartItem.vue:10") == (
        "==> src/CartItem.vue::CartItem.formatPrice#method lines 8-11 <==",
        "// Cents as a price.\nfunction formatPrice(cents) {\n  return (cents / 100).toFixed(2)\n}\n")
    assert retrieved(shop, "src/Counter.svelte::Counter.incrementBy")[1] == \
        "  function incrementBy(step: number) {\n    count += step\n  }\n"
    assert retrieved(shop, "src/CartItem.vue::CartItem")[1] == CART_ITEM_JS


def test_retrieve_gives_a_notebook_cell_as_source_not_json(shop):
    assert retrieved(shop, "notebooks/prices.ipynb::load_prices") == (
        "==> notebooks/prices.ipynb::load_prices#function lines 11-13 <==", LOAD_CELL + "\n")
    assert retrieved(shop, "notebooks/prices.ipynb:12")[1] == LOAD_CELL + "\n"


def test_search_finds_definitions_in_components_and_notebooks(shop):
    for query, expected in [("cart total", "src/Cart.vue::Cart.cartTotal#method"),
                            ("format price", "src/CartItem.vue::CartItem.formatPrice#method"),
                            ("increment by", "src/Counter.svelte::Counter.incrementBy#method"),
                            ("load prices", "notebooks/prices.ipynb::load_prices#function")]:
        result = run("search", query, shop)
        assert result.returncode == 0, result.stderr
        assert result.stdout.split(" ", 1)[0] == expected, result.stdout


def test_components_the_markup_uses_are_references_to_them(shop):
    """<CartItem> in a template links the files, as a call would; a commented-out tag does not."""
    result = run("refs", "src/CartItem.vue::CartItem", shop)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[1:] == ["src/Cart.vue:12 src/Cart.vue::Cart#class",
                                              "src/Counter.svelte:9 src/Counter.svelte::Counter#class"]


def test_ipython_magics_are_no_syntax_error(shop):
    result = run("index", shop)
    assert result.returncode == 0, result.stderr
    assert "syntax errors" not in result.stderr
    assert "languages: vue 2, notebook 1, svelte 1" in result.stdout


def test_a_notebook_that_is_not_json_is_skipped_with_a_note(shop):
    (shop / "notebooks" / "broken.ipynb").write_text('{"cells": [')
    (shop / "notebooks" / "list.ipynb").write_text("[1, 2]")
    result = run("map", shop)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert "1 not a notebook (JSONDecodeError), 1 not a notebook (no cells)" in result.stderr
    assert "load_prices" in result.stdout


def test_a_notebook_of_another_kernel_is_tagged_in_its_language(tmp_path):
    from repomap import tags

    if tags.language_for("a.jl") != "julia":
        pytest.skip("Julia is not a language repomap tags")
    (tmp_path / "fit.ipynb").write_text(notebook("julia", [("code", "function fit(x)\n    x + 1\nend")]))
    assert retrieved(tmp_path, "fit.ipynb::fit")[1] == "function fit(x)\n    x + 1\nend\n"


def test_a_notebook_in_a_language_repomap_does_not_tag_is_listed_without_definitions(tmp_path):
    (tmp_path / "q.ipynb").write_text(notebook("befunge", [("code", "v>@")]))
    (tmp_path / "a.py").write_text("def f():\n    pass\n")
    result = run("index", tmp_path)
    assert result.returncode == 0, result.stderr
    assert "2 files" in result.stdout and "1 symbols" in result.stdout


def test_index_names_the_languages_whose_query_is_broken(tmp_path):
    """A copy of the package with a broken Go query: the summary says which language, and how
    many of its files it left untagged."""
    import repomap
    from repomap.resources import resource_dir

    package = tmp_path / "package"
    shutil.copytree(Path(repomap.__file__).parent, package / "repomap")
    queries = package / "repomap" / "queries"  # inside the package where installed, else beside it
    if not queries.is_dir():
        queries = package / "queries"
        shutil.copytree(resource_dir("queries"), queries)
        shutil.copytree(resource_dir("templates"), package / "templates")
    (queries / "go.scm").write_text("(((")
    repo = tmp_path / "repo"
    repo.mkdir()
    for name in ("a", "b"):
        (repo / f"{name}.go").write_text(f"package a\nfunc {name.upper()}() {{}}\n")
    (repo / "c.py").write_text("def f():\n    pass\n")
    result = run_process("index", repo, cwd=tmp_path, env={"PYTHONPATH": str(package)})  # not the checkout's own
    assert result.returncode == 0, result.stderr
    assert "no tags for go" in result.stderr
    assert "no working query for: go (2 files untagged)" in result.stdout.splitlines()
