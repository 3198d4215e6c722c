"""The README's pictures: `repomap graph` of a real repository in headless Chromium, with its
best-ranked file chosen. Writes docs/graph-NAME.png (1280x800).

    python bench/graph_screenshot.py flask               # flask 3.1.0 (PyPI sdist)
    python bench/graph_screenshot.py django --top 200    # Django 5.2 (PyPI sdist)
    python bench/graph_screenshot.py linux-fs --top 200  # fs/ of Linux 6.1 (Debian linux-source-6.1)
    python bench/graph_screenshot.py django --root /tmp/corp/Django-5.2   # a copy already here
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from browser import Browser  # noqa: E402
from speed import django, kernel, sdist  # noqa: E402

CORPORA = {"flask": lambda: sdist("flask", "3.1.0"), "django": django, "linux-fs": lambda: kernel() / "fs"}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("name", choices=CORPORA)
    parser.add_argument("--root", type=Path, help="the repository, if not fetched into bench/.corpora")
    parser.add_argument("--top", default="60")
    args = parser.parse_args()
    page = Path(tempfile.mkdtemp()) / "graph.html"
    root = args.root or CORPORA[args.name]()
    subprocess.run([sys.executable, "-m", "repomap", "graph", str(root), "--top", args.top, "--output", str(page)],
                   check=True)
    browser = Browser(1280, 800)
    try:
        browser.open(page.as_uri(), "document.querySelectorAll('circle.node').length > 0")
        browser.evaluate("document.querySelector('circle.node').dispatchEvent(new MouseEvent('click'))")
        out = HERE.parent / "docs" / f"graph-{args.name}.png"
        out.write_bytes(browser.screenshot())
        print(f"wrote {out} ({page.stat().st_size} bytes of page)")
    finally:
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
