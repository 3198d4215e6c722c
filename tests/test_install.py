"""A wheel built from this checkout carries its queries and templates."""

import os
import subprocess
import sys
import zipfile
from pathlib import Path

from conftest import FIXTURES

CHECKOUT = Path(__file__).resolve().parents[1]


def test_wheel_runs_from_another_directory(tmp_path):
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                    "-w", str(tmp_path / "dist"), str(CHECKOUT)], check=True, capture_output=True)
    wheel = next((tmp_path / "dist").glob("repomap-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    assert "repomap/queries/python.scm" in names and "repomap/templates/text.j2" in names
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    env = {**os.environ, "PYTHONPATH": str(site)}
    code = "import repomap, sys; print(repomap.__file__); sys.exit(__import__('repomap.cli').cli.main(sys.argv[1:]))"
    result = subprocess.run([sys.executable, "-c", code, "map", str(FIXTURES / "repo"), "--tokens", "60"],
                            cwd=tmp_path, env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(str(site / "repomap"))
    assert "class CartClient" in result.stdout
