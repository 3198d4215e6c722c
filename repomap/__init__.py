"""repomap: ranked, token-budgeted maps of source repositories for coding agents."""

__version__ = "0.1.0"

from .answers import MapResult  # noqa: E402
from .api import RepoMap  # noqa: E402
from .errors import ConfigError, NotFound, Refused, RepoMapError  # noqa: E402

__all__ = ["ConfigError", "MapResult", "NotFound", "Refused", "RepoMap", "RepoMapError", "__version__"]
