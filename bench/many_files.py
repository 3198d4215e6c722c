"""Time and memory on trees of many tiny files: do they stay proportional to the file count?

Generates 10,000 and 100,000 three-line Python files (in a temporary folder) and maps
each tree cold and warm, in fresh processes:  python bench/many_files.py
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from speed import measure  # noqa: E402


def tree(count: int) -> Path:
    root = Path(tempfile.mkdtemp(prefix=f"repomap-many-{count}-"))
    for i in range(count):
        folder = root / f"pkg{i // 1000}"
        folder.mkdir(exist_ok=True)
        (folder / f"m{i}.py").write_text(f"def f{i}():\n    return f{(i * 7919) % count}()\n")
    return root


def main() -> int:
    rows = []
    for count in (10_000, 100_000):
        root = tree(count)
        cache_dir = tempfile.mkdtemp(prefix="repomap-many-cache-")
        command = [sys.executable, "-m", "repomap", "map", str(root), "--cache-dir", cache_dir]
        cold, warm = measure(command), measure(command)
        rows.append((count, cold, warm))
        shutil.rmtree(root)
        shutil.rmtree(cache_dir)
    for count, cold, warm in rows:
        print(f"{count:>7} files: cold {cold[0]:6.1f} s {cold[1]:6.0f} MB   warm {warm[0]:5.2f} s {warm[1]:6.0f} MB   "
              f"cold per 1,000 files {cold[0] / count * 1000:.2f} s")
    (small, s_cold, _), (large, l_cold, _) = rows
    print(f"10x the files: {l_cold[0] / s_cold[0]:.1f}x the cold time, {l_cold[1] / s_cold[1]:.1f}x the peak memory")
    return 0


if __name__ == "__main__":
    sys.exit(main())
