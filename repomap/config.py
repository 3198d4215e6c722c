"""Settings kept in the repository: `.repomap.toml`, or `[tool.repomap]` in pyproject.toml.

Command-line flags win over them; a key we do not know is an error that names it.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

KEYS = {"tokens": int, "include": list, "exclude": list, "output": str, "format": str,
        "hide_secondary": bool, "max_file_size": int, "parse_timeout": float}


class ConfigError(Exception):
    pass


def load(root: Path) -> dict:
    """The settings for the repository at `root` ({} when it has none)."""
    own = root / ".repomap.toml"
    if own.is_file():
        return _checked(_read(own), own.name)
    pyproject = root / "pyproject.toml"
    if pyproject.is_file():
        section = _read(pyproject).get("tool", {}).get("repomap")
        if section is not None:
            return _checked(section, "pyproject.toml [tool.repomap]")
    return {}


def _read(path: Path) -> dict:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read {path.name}: {exc}") from None


def _checked(settings: dict, where: str) -> dict:
    for key, value in settings.items():
        if key not in KEYS:
            raise ConfigError(f"unknown setting {key!r} in {where} (known: {', '.join(sorted(KEYS))})")
        kind = KEYS[key]
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            settings[key] = value = float(value)
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)) or \
                (kind is list and not all(isinstance(v, str) for v in value)):
            raise ConfigError(f"setting {key!r} in {where} must be {'a list of strings' if kind is list else kind.__name__}")
    return dict(settings)
