import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import tempfile

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
# Every test run gets its own cache folder, for the CLI in subprocesses and the library alike.
CACHE_DIR = tempfile.mkdtemp(prefix="repomap-test-cache-")
os.environ["REPOMAP_CACHE_DIR"] = CACHE_DIR


def pytest_sessionfinish(session, exitstatus):
    """The run's cache folder goes with it (about 90 MB, the fixture corpora's indexes)."""
    shutil.rmtree(CACHE_DIR, ignore_errors=True)


def run(*args, cwd=None, stdin=None, env=None) -> subprocess.CompletedProcess:
    """The repomap command as a user runs it, in a subprocess."""
    full_env = {**os.environ, **(env or {})}
    full_env.pop("REPOMAP_DEBUG", None)
    return subprocess.run([sys.executable, "-m", "repomap", *map(str, args)], cwd=cwd, input=stdin,
                          capture_output=True, text=True, env=full_env, timeout=120)


@pytest.fixture(autouse=True)
def fresh_warnings():
    """Each test warns as a fresh process would: `errors.warn` prints a message once per process."""
    from repomap import errors

    errors._warned.clear()


@pytest.fixture
def shop(tmp_path) -> Path:
    """A copy of the small multi-language fixture repository, outside any git work tree."""
    target = tmp_path / "shop"
    shutil.copytree(FIXTURES / "repo", target)
    return target


def git(repo, *args):
    return subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", *args],
                          capture_output=True, text=True)


def git_init(path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    subprocess.run(["git", "-C", str(path), "add", "-A"], check=True)


def damage_column(path: Path, name: str, fill: bytes = b"\x7f") -> None:
    """Overwrite one column of a file of stored arrays (cache.Store.save_arrays) with large
    numbers (or `fill`), its header left intact: damage that only a check of the numbers finds."""
    whole = path.read_bytes()
    head = 24 + int.from_bytes(whole[16:24], "little")  # magic, header length, header
    _, dtype, length, offset = next(a for a in json.loads(whole[24:head])["arrays"] if a[0] == name)
    start = head + offset
    end = start + length * int(dtype[-1])
    path.write_bytes(whole[:start] + fill * (end - start) + whole[end:])


def age(root, seconds=3600):
    """Every folder and file of the tree as if last changed `seconds` ago: a listing is only
    trusted once its folder is older than a clock tick (discover.RACY_NS)."""
    for folder, names, files in os.walk(root):
        for path in [folder, *(os.path.join(folder, name) for name in files)]:
            then = os.stat(path).st_mtime_ns - seconds * 10**9
            os.utime(path, ns=(then, then))
