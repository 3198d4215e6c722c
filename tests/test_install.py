"""A wheel built from this checkout carries its queries and templates."""

import os
import subprocess
import sys
import zipfile

import pytest

from conftest import FIXTURES


@pytest.mark.long
def test_wheel_runs_from_another_directory(wheel, tmp_path):
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
