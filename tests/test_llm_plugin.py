"""The `llm` fragment loader, loaded by llm's own plugin manager in real llm processes."""

import os
import subprocess
import sys

from conftest import FIXTURES

LLM = [sys.executable, "-c", "import sys; from llm.cli import cli; sys.exit(cli())"]


def llm(*args, tmp_path):
    env = {**os.environ, "LLM_USER_PATH": str(tmp_path)}
    return subprocess.run([*LLM, *args], capture_output=True, text=True, env=env, timeout=120)


def test_loader_is_registered(tmp_path):
    result = llm("fragments", "loaders", tmp_path=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "repomap:" in result.stdout


def test_fragment_is_the_map(tmp_path):
    result = llm("fragments", "show", f"repomap:{FIXTURES / 'repo'}?tokens=60", tmp_path=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("web/api.ts:\n  export class CartClient {")


def test_bad_path_is_a_clear_error(tmp_path):
    result = llm("fragments", "show", f"repomap:{tmp_path / 'missing'}", tmp_path=tmp_path)
    assert result.returncode != 0
    assert "no such directory" in result.stderr and "Traceback" not in result.stderr
