"""The README's picture: `repomap graph` of flask 3.1.0 (PyPI sdist) in headless Chromium,
with src/flask/app.py clicked. Writes docs/graph-flask.png.

    python bench/graph_screenshot.py
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from browser import Browser  # noqa: E402
from speed import sdist  # noqa: E402


def main() -> int:
    page = Path(tempfile.mkdtemp()) / "graph.html"
    subprocess.run([sys.executable, "-m", "repomap", "graph", str(sdist("flask", "3.1.0")), "--output", str(page), "--no-cache"],
                   check=True)
    browser = Browser(1280, 800)
    try:
        browser.open(page.as_uri(), "document.querySelectorAll('circle.node').length > 0")
        x, y = browser.evaluate("""(() => {
            const r = document.querySelector('circle.node[data-path="src/flask/app.py"]').getBoundingClientRect();
            return [r.x + r.width / 2, r.y + r.height / 2]; })()""")
        browser.click(x, y)
        out = HERE.parent / "docs" / "graph-flask.png"
        out.write_bytes(browser.screenshot())
        print(f"wrote {out}")
    finally:
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
