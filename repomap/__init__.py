"""repomap: ranked, token-budgeted maps of source repositories for coding agents."""

__version__ = "0.1.0"

from .api import MapResult, RepoMap, RepoMapError  # noqa: E402

__all__ = ["MapResult", "RepoMap", "RepoMapError", "__version__"]
