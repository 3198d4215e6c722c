"""Where the shipped queries/ and templates/ folders are, installed or in a checkout."""

from __future__ import annotations

from pathlib import Path

_HERE = Path(__file__).resolve().parent


def resource_dir(name: str) -> Path:
    """`name` inside the installed package, else beside the package in a source checkout."""
    for candidate in (_HERE / name, _HERE.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"repomap is missing its {name}/ folder (looked in {_HERE})")
