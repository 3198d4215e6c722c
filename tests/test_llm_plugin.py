"""The `llm` fragment loader, loaded by llm's own plugin manager: in a real llm process once,
then through llm's command line in this process."""

import os
import subprocess
import sys
import traceback

from conftest import FIXTURES


def llm(*args, tmp_path) -> subprocess.CompletedProcess:
    """llm's command as a user runs it, in this process: its output, its exit status, and a
    traceback on stderr where an error escaped it, as a process would print one."""
    from click.testing import CliRunner
    from llm.cli import cli

    result = CliRunner().invoke(cli, list(args), env={"LLM_USER_PATH": str(tmp_path)})
    stderr = result.stderr
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        stderr += "".join(traceback.format_exception(result.exception))
    return subprocess.CompletedProcess(["llm", *args], result.exit_code, result.stdout, stderr)


def test_loader_is_registered_in_a_real_llm_process(tmp_path):
    result = subprocess.run([sys.executable, "-c", "import sys; from llm.cli import cli; sys.exit(cli())",
                             "fragments", "loaders"], capture_output=True, text=True,
                            env={**os.environ, "LLM_USER_PATH": str(tmp_path)}, timeout=120)
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
