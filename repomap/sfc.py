"""Single-file components (Vue's .vue, Svelte's .svelte): where their `<script>` blocks are
and in which language, and which components their markup uses.

The blocks are found by a regular expression, not the vue or svelte grammar: a script
element ends at the first `</script` (the HTML rule both compilers follow), so its end
needs no parse, and a regex costs a tagging worker no grammar to load. Comments, scripts
and styles are matched by one expression from left to right, as HTML reads them, so a
commented-out block is not taken for one and a `<!--` in a script is the script's.
"""

from __future__ import annotations

import re
from typing import NamedTuple

LANGUAGES = {"vue", "svelte"}

# The file's top-level blocks as HTML reads them, left to right: a comment, or a script or
# style element (its attributes may hold ">" inside quotes, as Vue's `generic="T extends A<B>"`).
_BLOCK = re.compile(rb"""<!--.*?(?:-->|\Z)|<(script|style)\b((?:[^>"']|"[^"]*"|'[^']*')*)>(.*?)(?:</\1\s*>|\Z)""",
                    re.S | re.I)
_LANG = re.compile(rb"""\blang\s*=\s*["']?([\w-]+)""", re.I)
_TYPE = re.compile(rb"""\btype\s*=\s*["']?([\w/+.-]+)""", re.I)
SCRIPT_LANGUAGES = {b"": "javascript", b"js": "javascript", b"jsx": "javascript", b"ts": "typescript",
                    b"tsx": "tsx"}
# Script types that hold code (Svelte's markup may also hold JSON-LD or templates in a <script>).
_CODE_TYPES = {b"", b"module", b"text/javascript", b"application/javascript", b"text/typescript"}
_PASCAL = re.compile(rb"<([A-Z][A-Za-z0-9_]*)")
_KEBAB = re.compile(rb"<([a-z][a-z0-9]*(?:-[a-z0-9]+)+)\b")  # Vue resolves <cart-item> to CartItem


class Script(NamedTuple):
    """The code of one `<script>` block: its bytes in the file, and the language they are in."""

    start_byte: int
    end_byte: int
    language: str


class Use(NamedTuple):
    """A component named by a tag of the markup, and where that name stands in the file."""

    name: str
    start_byte: int
    end_byte: int


def component_name(path: str) -> str:
    """The name Vue and Svelte give a component: its file's base name."""
    base = path[path.rfind("/") + 1:]
    return base[:base.rfind(".")] if "." in base else base


def scripts(source: bytes) -> list[Script]:
    """The script blocks of code in a language we tag, in file order."""
    found = []
    for match in _BLOCK.finditer(source):
        if match[1] is None or match[1].lower() != b"script":
            continue
        lang, kind = _LANG.search(match[2]), _TYPE.search(match[2])
        language = SCRIPT_LANGUAGES.get(lang[1].lower() if lang else b"")
        if language is not None and (kind[1].lower() if kind else b"") in _CODE_TYPES:
            found.append(Script(match.start(3), match.end(3), language))
    return found


def uses(source: bytes, language: str) -> list[Use]:
    """The components the markup's tags name (capitalised, or in Vue also kebab-case),
    outside comments, scripts and styles."""
    hidden = [m.span() for m in _BLOCK.finditer(source)]
    found = [Use(m[1].decode("utf-8", "replace"), m.start(1), m.end(1)) for m in _PASCAL.finditer(source)]
    if language == "vue":
        found += [Use(_pascal(m[1].decode("utf-8", "replace")), m.start(1), m.end(1)) for m in _KEBAB.finditer(source)]
    return [use for use in found if not any(start <= use.start_byte < end for start, end in hidden)]


def _pascal(kebab: str) -> str:
    return "".join(part.capitalize() for part in kebab.split("-"))
