"""What one chat turn costs: a RepoMap kept across turns, on a warm index (Django 5.2).

Each turn passes different chat files and mentions, as a chat loop does. Printed
side by side with the cold first call on the same machine. Run after bench/speed.py
has fetched the corpus, or it fetches it:  python bench/chat_turn.py
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from speed import django  # noqa: E402

from repomap import RepoMap  # noqa: E402

TURNS = [
    (["django/db/models/query.py"], "Why does QuerySet.filter lose the ordering after union?"),
    (["django/http/response.py"], "HttpResponse should set the charset from content_type"),
    ([], "Add a timeout to the cache backend's get_many in django/core/cache/backends/redis.py"),
    (["django/urls/resolvers.py", "django/urls/base.py"], "reverse() with a namespace fails for include()"),
    (["django/forms/fields.py"], "CharField strip should not apply to passwords"),
]


def main() -> int:
    root = django()
    repo = RepoMap(root, cache_dir=tempfile.mkdtemp(prefix="repomap-chat-"))
    started = time.perf_counter()
    repo.get_repo_map()
    first = time.perf_counter() - started
    times = []
    for round_ in range(4):
        for chat_files, message in TURNS:
            started = time.perf_counter()
            files, idents = repo.mentions(message)
            text = repo.get_repo_map(chat_files, mentioned_fnames=files, mentioned_idents=idents, max_tokens=1024)
            times.append(time.perf_counter() - started)
    print(f"django: {root}")
    print(f"  first call (cold index, builds it):  {first:.2f} s")
    print(f"  per turn afterwards ({len(times)} turns):  median {statistics.median(times):.2f} s, "
          f"max {max(times):.2f} s  (mentions + map, 1024 tokens)")
    print(f"  last map starts with: {text.splitlines()[0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
