"""The jinja2 templates a map is rendered with: repomap's own (templates/), and a user's,
which runs sandboxed and bounded."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from .errors import RepoMapError, json_text, visible
from .resources import resource_dir

if TYPE_CHECKING:  # jinja2 is imported when a template is first compiled: a stored map needs none
    import jinja2

# What one render of a user's template may build: the numbers its `range`s yield, all told, and
# the length of a text, list or number it makes with `*` or `**`. A map's own data is far less.
TEMPLATE_STEPS = 1_000_000


def load_template(fmt: str, template: Path | None) -> jinja2.Template:
    return _compiled(fmt, template.read_text(encoding="utf-8") if template is not None else None)


def check_template(fmt: str, template: Path) -> None:
    """RepoMapError where a user's template cannot be read or compiled."""
    try:
        load_template(fmt, template)
    except Exception as exc:
        raise RepoMapError(f"bad template: {exc}") from None


def packaged_template(name: str) -> jinja2.Template:
    """One of the templates repomap ships (templates/NAME)."""
    return _environment(sandboxed=False).get_template(name)


@lru_cache(maxsize=8)
def _compiled(fmt: str, text: str | None) -> jinja2.Template:
    """A template compiled once per process (compiling costs more than rendering a map). A
    user's template runs sandboxed: it may read what it is given, not reach Python's insides."""
    if text is not None:
        return _environment(sandboxed=True).from_string(text)
    return packaged_template(f"{fmt}.j2")


def bounded_range() -> Callable[..., range]:
    """`range` for one render of a user's template: nested loops must not run for hours."""
    left = TEMPLATE_STEPS

    def bounded(*args: int) -> range:
        nonlocal left
        numbers = range(*args)
        left -= len(numbers)
        if left < 0:
            raise RepoMapError(f"the template's ranges run past {TEMPLATE_STEPS:,} numbers")
        return numbers
    return bounded


def _sandbox() -> type[jinja2.Environment]:
    """jinja2's sandbox, with `*` and `**` refused where they would build more than TEMPLATE_STEPS."""
    from jinja2.sandbox import SandboxedEnvironment

    class Sandbox(SandboxedEnvironment):
        intercepted_binops = frozenset({"*", "**"})

        def call_binop(self, context, operator: str, left, right):
            if operator == "*" and isinstance(right, (str, list, tuple)):
                left, right = right, left
            if operator == "*" and isinstance(left, (str, list, tuple)) and isinstance(right, int):
                too_big = len(left) * right > TEMPLATE_STEPS
            else:
                too_big = operator == "**" and isinstance(right, int) and abs(right) > 64 and left not in (-1, 0, 1)
            if too_big:
                raise RepoMapError(f"the template's {operator!r} builds too much (at most {TEMPLATE_STEPS:,} items, "
                                   "exponents at most 64)")
            return super().call_binop(context, operator, left, right)
    return Sandbox


@lru_cache(maxsize=2)
def _environment(sandboxed: bool) -> jinja2.Environment:
    import jinja2

    env = (_sandbox() if sandboxed else jinja2.Environment)(
        loader=jinja2.FileSystemLoader(str(resource_dir("templates"))),
        trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined, autoescape=False)
    env.filters["json"] = json_text
    env.filters["visible"] = visible  # a name as it may be printed: see errors.visible
    env.filters["fence"] = _fence
    return env


def _fence(lines: list[str]) -> str:
    """A Markdown code fence longer than any run of backticks inside it."""
    ticks = 3
    for line in lines:
        run = 0
        for char in line:
            run = run + 1 if char == "`" else 0
            ticks = max(ticks, run + 1)
    return "`" * ticks
