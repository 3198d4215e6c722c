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


def test_focus_outside_or_missing_and_a_budget_that_is_no_number_are_clear_errors(tmp_path):
    for argument, said in [("?focus=nope.py", "no such focus file: nope.py"),
                           ("?focus=/etc/passwd", "outside the repository"),
                           ("?tokens=abc", "tokens must be a whole number, not 'abc'")]:
        result = llm("fragments", "show", f"repomap:{FIXTURES / 'repo'}{argument}", tmp_path=tmp_path)
        assert result.returncode != 0 and said in result.stderr, (argument, result.stderr)
        assert "Traceback" not in result.stderr and "invalid literal" not in result.stderr
