"""Settings kept in the repository: `.repomap.toml`, or `[tool.repomap]` in pyproject.toml.

Command-line flags win over them; a key we do not know is an error that names it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from .errors import ConfigError, RepoMapError
from .tokens import known

# Every setting's default, for every front end (CLI, API, MCP server, llm loader).
DEFAULTS = {
    "tokens": 1024,  # the map's budget: a prompt preamble that leaves most of a context for the task
    "encoding": "cl100k_base",  # what the budget and every token figure count in (tokens.ENCODINGS)
    "format": "text",
    "include": [],
    "exclude": [],
    "hide_secondary": False,
    "max_file_size": 1_000_000,  # bytes; larger source files are data or generated
    "parse_timeout": 10.0,  # seconds to tag one file before it is skipped
    "output": "REPOMAP.md",  # where `repomap write` puts the map
}
# The longest a file may take to tag: longer is no limit at all, and the system's timers
# (select, the time of day) overflow far beyond it.
MAX_PARSE_TIMEOUT = 86_400.0
FORMATS = ("text", "markdown", "json")  # of a map (templates/FORMAT.j2)
VIEW_FORMATS = ("text", "markdown")  # whose templates show of a file its path, language and lines alone (signatures.view)
ANSWER_FORMATS = ("text", "json")  # of a search, retrieve or refs answer
GRAPH_FORMATS = ("graphml", "gexf", "json", "dot", "html")  # of the ranked graph (export.py)
KEYS = {key: type(value) for key, value in DEFAULTS.items()}
_KINDS = {int: "a whole number", float: "a number", bool: "true or false", str: "a string", list: "a list of strings"}


@dataclass(frozen=True)
class Options:
    """What a RepoMap maps and how: its arguments, else the repository's settings, else DEFAULTS."""

    tokens: int
    encoding: str  # of tokens.ENCODINGS
    fmt: str
    template: Path | None
    include: tuple[str, ...]
    exclude: tuple[str, ...]
    hide_secondary: bool
    max_file_size: int
    parse_timeout: float
    ignore: bool  # honour .gitignore (and git's own list)


def options(root: Path, given: dict, settings: bool, template: Path | None, ignore: bool) -> Options:
    """The Options of a RepoMap on `root`: `given` (DEFAULTS' keys; None where left out) over
    the repository's settings file unless `settings` is false, over DEFAULTS."""
    chosen = {**DEFAULTS, **(load(root) if settings else {}),
              **{key: value for key, value in given.items() if value is not None}}
    budget(chosen["tokens"])
    if not 0 < chosen["parse_timeout"] <= MAX_PARSE_TIMEOUT:
        raise RepoMapError(f"the parse timeout must be more than 0 and at most {MAX_PARSE_TIMEOUT:g} seconds, "
                           f"not {chosen['parse_timeout']}")
    if template is not None and not template.is_file():
        raise RepoMapError(f"no such template file: {template}")
    if chosen["format"] not in FORMATS:
        raise RepoMapError(f"unknown format {chosen['format']!r} (choose from {', '.join(FORMATS)})")
    known(chosen["encoding"])
    return Options(chosen["tokens"], chosen["encoding"], chosen["format"], template, _patterns(chosen["include"]),
                   _patterns(chosen["exclude"]), chosen["hide_secondary"], chosen["max_file_size"],
                   chosen["parse_timeout"], ignore)


def budget(tokens: object) -> int:
    """`tokens` as a map's budget, checked alike wherever one is given (a RepoMap, a build);
    RepoMapError where it is no whole number of at least 1 (True is not 1, nor 2.5 two)."""
    if isinstance(tokens, bool) or not isinstance(tokens, int) or tokens < 1:
        raise RepoMapError(f"the token budget must be a whole number of at least 1, not {tokens!r}")
    return tokens


def _patterns(given: str | list[str] | tuple[str, ...]) -> tuple[str, ...]:
    return (given,) if isinstance(given, str) else tuple(given)  # one pattern, not its letters


def load(root: Path) -> dict:
    """The settings for the repository at `root` ({} when it has none). Only regular files
    are read: a link could lead outside the repository."""
    own = root / ".repomap.toml"
    if own.is_symlink() or (own.exists() and not own.is_file()):
        raise ConfigError(f"{own.name} is not a regular file (settings are read only from one in the repository)")
    if own.is_file():
        return _checked(_parsed(_read(own), own), own.name)
    pyproject = root / "pyproject.toml"
    if pyproject.is_file() and not pyproject.is_symlink():
        data = _read(pyproject)
        # A pyproject.toml that never names us holds no [tool.repomap], and is not ours to
        # parse: parsing it costs every map, and its errors are not ours (bench/RESULTS.md: config.load).
        tool = _parsed(data, pyproject).get("tool", {}) if b"repomap" in data else {}
        section = tool.get("repomap") if isinstance(tool, dict) else None
        if section is not None:
            if not isinstance(section, dict):
                raise ConfigError("[tool.repomap] in pyproject.toml must be a table of settings")
            return _checked(section, "pyproject.toml [tool.repomap]")
    return {}


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"cannot read {path.name}: {exc}") from None


def _parsed(data: bytes, path: Path) -> dict:
    import tomllib  # only where a settings file is: a map in a tree without one never needs it

    try:
        return tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read {path.name}: {exc}") from None
    except RecursionError:
        raise ConfigError(f"cannot read {path.name}: its values nest too deeply") from None


def _checked(settings: dict, where: str) -> dict:
    for key, value in settings.items():
        if key == "tool" and where == ".repomap.toml":
            raise ConfigError("unknown setting 'tool' in .repomap.toml: its settings stand at its top level "
                              "([tool.repomap] is for pyproject.toml)")
        if key not in KEYS:
            raise ConfigError(f"unknown setting {key!r} in {where} (known: {', '.join(sorted(KEYS))})")
        kind = KEYS[key]
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            settings[key] = value = float(value)
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)) or \
                (kind is list and not all(isinstance(v, str) for v in value)):
            raise ConfigError(f"setting {key!r} in {where} must be {_KINDS[kind]}")
        if kind in (int, float) and not (math.isfinite(value) and value > 0):
            raise ConfigError(f"setting {key!r} in {where} must be a finite number above 0, not {value}")
        if key == "parse_timeout" and value > MAX_PARSE_TIMEOUT:
            raise ConfigError(f"setting {key!r} in {where} must be at most {MAX_PARSE_TIMEOUT:g} seconds, not {value}")
        if key == "format" and value not in FORMATS:
            raise ConfigError(f"setting {key!r} in {where} must be one of {', '.join(FORMATS)}, not {value!r}")
        if key == "output":
            from .mapfile import inside  # only where a settings file names one

            try:
                inside(value)
            except RepoMapError as exc:
                raise ConfigError(f"setting {key!r} in {where}: {exc}") from None
    return dict(settings)
