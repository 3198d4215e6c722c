"""The package's modules import one another in one direction only: no cycle, lazy imports
inside functions included (those under TYPE_CHECKING aside, which never run)."""

import ast
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import repomap

PACKAGE = Path(repomap.__file__).parent
MODULES = {path.stem for path in PACKAGE.glob("*.py")} - {"__init__"}


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return isinstance(test, ast.Name) and test.id == "TYPE_CHECKING" or \
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"


def _imported(node: ast.AST) -> set[str]:
    """The package's modules an import names ("repomap": the package itself)."""
    if isinstance(node, ast.Import):
        parts = [alias.name.split(".") for alias in node.names]
        return {p[1] if len(p) > 1 else "repomap" for p in parts if p[0] == "repomap"}
    if not isinstance(node, ast.ImportFrom):
        return set()
    module = node.module or ""
    if node.level == 0:
        if module.split(".")[0] != "repomap":
            return set()
        module = module.partition(".")[2]
    if module:
        return {module.split(".")[0]}
    return {alias.name if alias.name in MODULES else "repomap" for alias in node.names}


def _imports(tree: ast.AST) -> set[str]:
    """Every module of the package `tree` imports, at any depth, outside TYPE_CHECKING blocks."""
    found: set[str] = set()
    pending = [tree]
    while pending:
        node = pending.pop()
        found |= _imported(node)
        children = node.orelse if isinstance(node, ast.If) and _type_checking(node) else ast.iter_child_nodes(node)
        pending.extend(children)
    return found


def import_graph() -> dict[str, set[str]]:
    """Per module of the package ("repomap": its __init__), the package's modules it imports."""
    graph = {}
    for path in PACKAGE.glob("*.py"):
        name = "repomap" if path.stem == "__init__" else path.stem
        graph[name] = _imports(ast.parse(path.read_text(encoding="utf-8"))) - {name}
    return graph


def test_the_modules_import_one_another_without_a_cycle():
    sorter = TopologicalSorter(import_graph())
    try:
        sorter.prepare()
    except CycleError as error:
        raise AssertionError(f"an import cycle: {' -> '.join(reversed(error.args[1]))}") from None


def test_the_array_helpers_import_nothing_of_the_package():
    assert import_graph()["arrays"] == set()


def test_a_cycle_is_found_through_an_import_inside_a_function():
    """The check itself: a lazy import that closes a cycle is one, one under TYPE_CHECKING is not."""
    lazy = ast.parse("if TYPE_CHECKING:\n    from . import api\n\ndef f():\n    from .graph import Edges\n")
    assert _imports(lazy) == {"graph"}
    assert _imports(ast.parse("import repomap.words\nfrom repomap import __version__, tags\n")) == \
        {"words", "repomap", "tags"}
