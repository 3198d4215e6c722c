"""The Aider drop-in: AiderRepoMap keeps Aider's contract, and `repomap aider` starts the real
Aider (aider-chat, installed by the `aider` extra) with repomap's map in place of its own."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from uv import find_uv_bin

from conftest import git, git_init, run
from repomap import RepoMap
from repomap.aider_drop_in import AiderRepoMap
from repomap.tokens import count_tokens

PREFIX = "Files of the {other}repository:\n"


class Recorder:
    """Aider's InputOutput, as far as the map uses it."""

    def __init__(self):
        self.said = []

    def tool_output(self, text):
        self.said.append(("output", text))

    def tool_error(self, text):
        self.said.append(("error", text))


def _files(root: Path) -> set[str]:
    return {str(p) for p in root.rglob("*") if p.is_file()}


def test_constructor_and_attributes_are_aiders(shop):
    io = Recorder()
    drop_in = AiderRepoMap(512, str(shop), None, io, PREFIX, False, 32000, map_mul_no_files=2, refresh="files")
    assert (drop_in.max_map_tokens, drop_in.map_mul_no_files, drop_in.refresh) == (512, 2, "files")
    assert (drop_in.max_context_window, drop_in.repo_content_prefix) == (32000, PREFIX)


def test_chat_files_keep_the_budget_and_the_map_leaves_them_out(shop):
    drop_in = AiderRepoMap(200, shop, repo_content_prefix=PREFIX, max_context_window=32000)
    cart = str(shop / "shop/cart.py")
    text = drop_in.get_repo_map({cart}, _files(shop) - {cart})
    expected = RepoMap(shop).build(focus=[cart], tokens=200).text
    assert text == "Files of the other repository:\n" + expected
    assert "shop/cart.py" not in expected


def test_an_empty_chat_gets_the_larger_budget_within_the_window(shop):
    files = _files(shop)
    wide = AiderRepoMap(100, shop, max_context_window=4096 + 300, map_mul_no_files=8)
    assert wide.get_repo_map(set(), files) == RepoMap(shop).build(tokens=300).text  # min(800, 300)
    no_window = AiderRepoMap(100, shop, max_context_window=None)
    assert no_window.get_repo_map(set(), files) == RepoMap(shop).build(tokens=100).text


def test_the_settings_file_applies_and_aiders_budget_wins(shop):
    (shop / ".repomap.toml").write_text('tokens = 50\nexclude = ["web"]\n')
    text = AiderRepoMap(400, shop).get_repo_map({str(shop / "shop/cart.py")}, _files(shop))
    assert "web/" not in text and "svc/main.go" in text
    assert text == RepoMap(shop).build(focus=[str(shop / "shop/cart.py")], tokens=400).text


def test_token_count_counts_in_the_settings_encoding(shop):
    """What Aider's verbose line reports of the map is counted as the map was fitted."""
    text = "Größenänderung der Übersichtskarte: 令牌预算 🙂 " * 20
    assert count_tokens(text, "o200k_base") != count_tokens(text)
    assert AiderRepoMap(400, shop).token_count(text) == count_tokens(text)
    (shop / ".repomap.toml").write_text('encoding = "o200k_base"\n')
    assert AiderRepoMap(400, shop).token_count(text) == count_tokens(text, "o200k_base")


def test_no_map_without_budget_or_other_files(shop):
    assert AiderRepoMap(0, shop).get_repo_map(set(), _files(shop)) is None
    assert AiderRepoMap(512, shop).get_repo_map(set(), set()) is None


@pytest.mark.parametrize("refresh, slow_map, after_edit", [
    ("manual", None, "old"), ("always", None, "new"), ("files", None, "old"),
    ("auto", float("inf"), "new"),  # no map is slow: each is made again
    ("auto", 0.0, "old")])  # every map is slow: one is reused for the same files
def test_refresh_modes(shop, refresh, slow_map, after_edit):
    drop_in = AiderRepoMap(400, shop, refresh=refresh)
    if slow_map is not None:  # how long a map takes decides "auto": the test says, not the machine
        drop_in.slow_map = slow_map
    files = _files(shop)
    before = drop_in.get_repo_map(set(), files)
    (shop / "shop/money.py").write_text("def brand_new_helper(amount, currency):\n    return amount\n")
    after = drop_in.get_repo_map(set(), files)
    assert (after == before) == (after_edit == "old")
    assert ("brand_new_helper" in after) == (after_edit == "new")
    forced = drop_in.get_repo_map(set(), files, force_refresh=True)
    assert "brand_new_helper" in forced


def test_a_broken_settings_file_turns_the_map_off_with_a_message(shop):
    (shop / ".repomap.toml").write_text("tokens = 'many'\n")
    io = Recorder()
    drop_in = AiderRepoMap(400, shop, io=io)
    assert drop_in.max_map_tokens == 0 and drop_in.get_repo_map(set(), _files(shop)) is None
    (kind, message), = io.said
    assert kind == "error" and message.startswith("repomap: ") and "tokens" in message
    assert message.endswith("; the repository map is off")


def test_without_aider_installed_the_command_says_how_to_get_it(shop):
    result = run("aider", "--show-repo-map", cwd=shop)
    assert result.returncode == 2
    assert result.stderr.strip() == ("repomap: error: `repomap aider` needs Aider in the same environment: "
                                     "pip install 'repomap[aider]'")


# --- the real Aider, in a virtual environment of its own: aider-chat pins exact versions
# (openai 2.x) that the llm extra of the test environment cannot share.

@pytest.fixture(scope="session")
def aider_bin(wheel, tmp_path_factory) -> Path:
    """The environment is made once a session, by uv (the test extra installs it): pip spends
    most of this test's time unpacking Aider's dependencies, uv a small part of it."""
    where = tmp_path_factory.mktemp("aider")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where / "venv")], check=True)
    installed = subprocess.run([find_uv_bin(), "pip", "install", "-q", "--python", str(where / "venv/bin/python"),
                                f"repomap[aider] @ {wheel.as_uri()}"], capture_output=True, text=True,
                               env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})  # not a checkout's
    assert installed.returncode == 0, installed.stderr[-2000:]
    return where / "venv/bin"


def _aider(bin_dir: Path, repo: Path, *args: str) -> str:
    """Aider's --show-repo-map (no model call), offline and writing nothing into the repository."""
    home = repo.parent / "home"
    (home / ".aider/caches").mkdir(parents=True, exist_ok=True)
    prices = next(bin_dir.parent.glob("lib/python*/site-packages/litellm/model_prices_and_context_window_backup.json"))
    shutil.copy(prices, home / ".aider/caches/model_prices_and_context_window.json")  # else Aider downloads it
    env = {**os.environ, "HOME": str(home), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    env.pop("OPENAI_API_KEY", None)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # the first run's compiled modules serve the second
    result = subprocess.run([str(bin_dir / "repomap"), "aider", "--show-repo-map", "--model", "gpt-4o",
                             "--no-check-update", "--analytics-disable", "--no-gitignore", "--no-show-model-warnings",
                             "--no-pretty", "--chat-history-file", str(home / "chat.md"),
                             "--input-history-file", str(home / "input"), *args],
                            cwd=repo, capture_output=True, text=True, env=env, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "HTTPSConnectionPool" not in result.stdout  # it did not try the network
    assert git(repo, "status", "--porcelain", "--ignored").stdout == ""
    return result.stdout


@pytest.fixture
def git_shop(shop) -> Path:
    git_init(shop)
    git(shop, "commit", "-qm", "shop")
    return shop


AIDER_PREFIX = ("Here are summaries of some files present in my git repository.\n"
                "Do not propose changes to these files, treat them as *read-only*.\n"
                "If you need to edit any of these files, ask me to *add them to the chat* first.\n")


@pytest.mark.long
def test_real_aider_shows_repomaps_map(aider_bin, git_shop):
    shown = _aider(aider_bin, git_shop, "--map-tokens", "300")
    # No files in the chat: Aider's multiplier, 8 x 300, within gpt-4o's window.
    assert AIDER_PREFIX + run("map", git_shop, "--tokens", "2400").stdout in shown  # the wheel's code, run here
    assert "│" not in shown  # Aider's own map marks lines of context so
    in_chat = _aider(aider_bin, git_shop, "--map-tokens", "300", "shop/cart.py")
    # A file in the chat: Aider's own budget, and the map leaves the file out.
    assert AIDER_PREFIX + run("map", git_shop, "--tokens", "300", "--focus", "shop/cart.py").stdout in in_chat
