"""One settings file for every front end: the CLI, the Python API, the MCP server and the
llm loader read the repository's .repomap.toml; what a caller says explicitly wins."""

import json
import re

import pytest

from conftest import run
from repomap import RepoMap
from test_llm_plugin import llm
from test_mcp import session_run


def _settled(shop):
    (shop / ".repomap.toml").write_text('exclude = ["web"]\ntokens = 120\n')
    return shop


def test_the_api_reads_the_settings_and_arguments_win(shop):
    _settled(shop)
    text = RepoMap(shop, use_cache=False).build().text
    assert "web/" not in text and "shop/cart.py:" in text
    assert RepoMap(shop, use_cache=False).options.tokens == 120
    assert "web/api.ts:" in RepoMap(shop, use_cache=False, exclude=[], tokens=2000).build().text
    assert "web/api.ts:" in RepoMap(shop, use_cache=False, settings=False, tokens=2000).build().text


def test_the_cli_reads_the_settings(shop):
    _settled(shop)
    assert "web/" not in run("map", shop).stdout
    assert "web/api.ts:" in run("map", shop, "--exclude", "nothing", "--tokens", "2000").stdout


def test_the_mcp_server_reads_the_settings(shop):
    _settled(shop)

    async def body(session):
        return await session.call_tool("repo_map", {}), await session.call_tool("repo_map", {"tokens": 2000})

    default, larger = session_run(body, shop)
    default, larger = json.loads(default.content[0].text), json.loads(larger.content[0].text)
    assert "web/" not in default["map"] and "web/" not in larger["map"]
    assert len(larger["map"]) > len(default["map"])


def test_the_llm_loader_reads_the_settings_and_its_parameters(shop, tmp_path):
    _settled(shop)
    shown = llm("fragments", "show", f"repomap:{shop}", tmp_path=tmp_path)
    assert shown.returncode == 0 and "web/" not in shown.stdout and "shop/cart.py:" in shown.stdout
    asked = llm("fragments", "show", f"repomap:{shop}?query=format money&tokens=40", tmp_path=tmp_path)
    assert asked.returncode == 0 and asked.stdout.startswith("shop/money.py:"), asked.stdout
    focused = llm("fragments", "show", f"repomap:{shop}?focus=shop/money.py&tokens=400", tmp_path=tmp_path)
    assert focused.returncode == 0 and "shop/money.py" not in focused.stdout
    wrong = llm("fragments", "show", f"repomap:{shop}?tokns=80", tmp_path=tmp_path)
    assert wrong.returncode != 0 and "unknown parameter tokns" in wrong.stderr and "Traceback" not in wrong.stderr


def test_a_tool_table_in_repomap_toml_says_where_its_settings_go(shop):
    (shop / ".repomap.toml").write_text("[tool.repomap]\ntokens = 2048\n")
    result = run("map", shop, "--no-cache")
    assert result.returncode == 2 and "its settings stand at its top level" in result.stderr, result.stderr


def test_a_bad_value_in_the_settings_file_names_the_file_and_the_key(shop):
    from repomap import RepoMapError

    for text, said in [('format = "xml"', "setting 'format' in .repomap.toml must be one of text, markdown, json, "
                                          "not 'xml'"),
                       ('output = "../x.md"', "setting 'output' in .repomap.toml: refused: '../x.md' is not a path"),
                       ("tokens = 2.5", "setting 'tokens' in .repomap.toml must be a whole number")]:
        (shop / ".repomap.toml").write_text(text + "\n")
        for command in ("map", "write"):
            result = run(command, shop, "--no-cache")
            assert result.returncode == 2 and said in result.stderr and result.stdout == "", (command, result.stderr)
        with pytest.raises(RepoMapError, match=re.escape(said)):
            RepoMap(shop, use_cache=False)
    (shop / ".repomap.toml").unlink()
    (shop / "pyproject.toml").write_text('[tool.repomap]\nformat = "xml"\n')
    assert "setting 'format' in pyproject.toml [tool.repomap] must be one of" in run("map", shop, "--no-cache").stderr
