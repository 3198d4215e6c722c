"""A Jupyter notebook's source view: what repomap reads of a .ipynb file instead of its JSON.

The view is the notebook's code cells one after another, in jupytext's percent format: a
first line names the kernel's language, and each cell stands under a `# %% [cell N]` line
(N counts every cell from 1, Markdown too, as the notebook shows them) and a blank line, so
no header is taken for a doc comment of the code below it. Everything that reads a source
file reads the view (discover.read_source, scan.Sources, through `source_of`), so tags,
the map's line numbers, retrieve's byte offsets and the index's content hashes all point
into the same text, never into JSON.
"""

from __future__ import annotations

import re

SUFFIX = ".ipynb"

# Kernel language names (kernelspec.language, language_info.name) as repomap's languages.
_ALIASES = {"python3": "python", "ipython": "python", "ipython3": "python", "c++": "cpp", "c#": "csharp",
            "js": "javascript", "node": "javascript", "sh": "bash", "shell": "bash"}
_LINE_COMMENT = {"javascript": "//", "typescript": "//", "java": "//", "kotlin": "//", "scala": "//", "c": "//",
                 "cpp": "//", "csharp": "//", "go": "//", "rust": "//", "swift": "//", "lua": "--",
                 "haskell": "--"}
_NAME = re.compile(r"[\w+#.-]+")
_KERNEL_LINE = re.compile(rb"\S+ jupyter kernel: (\S+)\n")
# IPython's line magics and shell escapes (`%matplotlib inline`, `!pip install x`) are no
# Python: commented out, as jupytext does, so they do not make the cell a syntax error.
_MAGIC = re.compile(r"^([ \t]*)(?=[%!])", re.M)
# Cell magics whose body is still Python; any other (%%bash, %%html) makes the cell no Python.
_PYTHON_CELL_MAGICS = {"time", "timeit", "capture", "prun"}


def is_notebook(path: str) -> bool:
    return path.lower().endswith(SUFFIX)


def source_of(path: str, data: bytes) -> bytes:
    """What repomap reads of a file: its bytes, or a notebook's source view. ValueError
    (with why) where a notebook is not one: bad JSON, or no cells."""
    return view(data) if is_notebook(path) else data


def language(source_view: bytes) -> str:
    """The language a notebook's source view is in, as its first line names it."""
    match = _KERNEL_LINE.match(source_view)
    return match[1].decode() if match else "python"


def view(data: bytes) -> bytes:
    """A notebook's code cells under one header line each, after a line naming the kernel's
    language (Python where the notebook names none, as Jupyter assumes)."""
    import json  # only for a notebook: a map of a tree without one needs none

    try:
        notebook = json.loads(data)
    except ValueError as exc:  # bad JSON or not UTF-8
        raise ValueError(f"not a notebook ({exc.__class__.__name__})") from None
    if not isinstance(notebook, dict):
        raise ValueError("not a notebook (no cells)")
    worksheets = notebook.get("worksheets")  # nbformat 3 kept the cells in worksheets
    cells = notebook.get("cells", worksheets[0].get("cells") if isinstance(worksheets, list) and worksheets
                         and isinstance(worksheets[0], dict) else None)
    if not isinstance(cells, list):
        raise ValueError("not a notebook (no cells)")
    kernel = _kernel_language(notebook.get("metadata"))
    comment = _LINE_COMMENT.get(kernel, "#")
    parts = [f"{comment} jupyter kernel: {kernel}\n"]
    for number, cell in enumerate(cells, 1):
        if isinstance(cell, dict) and cell.get("cell_type") == "code":
            code = _text(cell.get("source", cell.get("input", "")))
            if kernel == "python":
                code = _without_magics(code)
            parts.append(f"\n{comment} %% [cell {number}]\n\n{code}" + ("" if code.endswith("\n") or not code else "\n"))
    return "".join(parts).encode("utf-8", "surrogatepass")


def _kernel_language(metadata: object) -> str:
    metadata = metadata if isinstance(metadata, dict) else {}
    for key, field in (("kernelspec", "language"), ("language_info", "name")):
        section = metadata.get(key)
        name = section.get(field) if isinstance(section, dict) else None
        if isinstance(name, str) and _NAME.fullmatch(name.strip()):
            name = name.strip().lower()
            return _ALIASES.get(name, name)
    return "python"


def _text(source: object) -> str:
    """A cell's source, which nbformat keeps as one string or a list of lines."""
    if isinstance(source, list):
        return "".join(part for part in source if isinstance(part, str))
    return source if isinstance(source, str) else ""


def _without_magics(code: str) -> str:
    if code.startswith("%%"):
        name = code[2:].split(None, 1)[0] if code[2:].strip() else ""
        if name not in _PYTHON_CELL_MAGICS:
            return re.sub(r"^(?!\Z)", "# ", code, flags=re.M)
    return _MAGIC.sub(r"\1# ", code)
