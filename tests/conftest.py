import contextlib
import gc
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import traceback
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
CHECKOUT = Path(__file__).resolve().parents[1]
# The tests' scratch files (tmp_path, the cache folder, their subprocesses' temporary files)
# go to memory where Linux offers it (/dev/shm) with room for them: the suite makes and
# removes hundreds of thousands of files (a tree wider than 2^16 files, the real Aider's
# environment), which a disk makes slow and its speed uneven from run to run. A container's
# /dev/shm is often too small (Docker's holds 64 MB): then the usual temporary folder.
SCRATCH_ROOM = 4 << 30  # bytes free: room for the suite's scratch files at their most, and a margin


def _in_memory() -> bool:
    try:
        room = os.statvfs("/dev/shm")
    except OSError:
        return False
    return os.access("/dev/shm", os.W_OK) and room.f_bavail * room.f_frsize >= SCRATCH_ROOM


if "TMPDIR" not in os.environ and _in_memory():
    os.environ["TMPDIR"] = "/dev/shm"
    tempfile.tempdir = None  # read TMPDIR again
# Every test run, and each of its workers (pytest-xdist), gets its own cache folder, for the CLI
# and the library alike.
CACHE_DIR = tempfile.mkdtemp(prefix="repomap-test-cache-")
os.environ["REPOMAP_CACHE_DIR"] = CACHE_DIR


def pytest_sessionfinish(session, exitstatus):
    """The run's cache folder goes with it (about 90 MB, the fixture corpora's indexes)."""
    shutil.rmtree(CACHE_DIR, ignore_errors=True)


def pytest_configure(config):
    config.addinivalue_line("markers", "long: run first: one of the few longest tests, or one sharing their "
                                       "session fixtures (the wheel)")


def pytest_collection_modifyitems(items):
    """The longest tests first: started last, one would keep a worker (pytest-xdist) busy
    after the others have run out of tests to take. Tests run first start in one worker,
    which then makes their session fixtures once."""
    items.sort(key=lambda item: item.get_closest_marker("long") is None)


def run(*args, cwd=None, stdin=None, env=None) -> subprocess.CompletedProcess:
    """The repomap command as a user runs it, in this process: `cli.main` with the arguments,
    folder, environment and standard input given, its output on file descriptors 1 and 2 (so
    a forked child's is caught too) and its exit status as the script's. A run starts as a
    fresh process would (no warning given yet) and leaves this one as it found it. What is
    read as Python starts (PYTHONHASHSEED, PYTHONPATH, TMPDIR once read) needs `run_process`."""
    from repomap import cli, errors

    with _process_state(cwd, env), _captured(1) as out, _captured(2) as err:
        errors.forget_warnings()
        sys.stdin = io.TextIOWrapper(io.BytesIO((stdin or "").encode()), encoding="utf-8")
        sys.stdout = _stream(1, sys.__stdout__, line_buffering=False)
        sys.stderr = _stream(2, sys.__stderr__, line_buffering=True)
        code = _exit_status(lambda: cli.main([str(arg) for arg in args]))
        sys.stdout.flush()
        sys.stderr.flush()
    return subprocess.CompletedProcess(["repomap", *map(str, args)], code, _text(out), _text(err))


def run_process(*args, cwd=None, stdin=None, env=None) -> subprocess.CompletedProcess:
    """The repomap command in a process of its own (`python -m repomap`): for what only a
    process shows (its exit, its forked children, what it reads as it starts)."""
    full_env = {**os.environ, **(env or {})}
    full_env.pop("REPOMAP_DEBUG", None)
    return subprocess.run([sys.executable, "-m", "repomap", *map(str, args)], cwd=cwd, input=stdin,
                          capture_output=True, text=True, env=full_env, timeout=120)


def _stream(fd: int, model, line_buffering: bool) -> io.TextIOWrapper:
    """A standard stream on `fd`, encoding as Python set up this process's (by the locale)."""
    return io.TextIOWrapper(io.FileIO(fd, "w", closefd=False), encoding=model.encoding, errors=model.errors,
                            newline="\n", line_buffering=line_buffering)


def _exit_status(main) -> int:
    """The status a process running `main` would exit with, a traceback printed as Python does."""
    try:
        return main()
    except SystemExit as exc:  # argparse's usage errors, --help and --version
        if exc.code is None or isinstance(exc.code, int):
            return exc.code or 0
        print(exc.code, file=sys.stderr)
        return 1
    except Exception:
        traceback.print_exc()
        return 1


@contextlib.contextmanager
def _process_state(cwd, env):
    """The working folder, environment, standard streams and collector of this process, put
    back as they were: `cli.main` turns the collector off and freezes it, as a command may."""
    saved_env, saved_cwd, streams = dict(os.environ), os.getcwd(), (sys.stdin, sys.stdout, sys.stderr)
    collecting = gc.isenabled()
    os.environ.pop("REPOMAP_DEBUG", None)
    os.environ.update(env or {})
    if cwd is not None:
        os.chdir(cwd)
    try:
        yield
    finally:
        sys.stdin, sys.stdout, sys.stderr = streams
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
        gc.unfreeze()
        if collecting:
            gc.enable()


@contextlib.contextmanager
def _captured(fd: int):
    """What is written to file descriptor `fd` meanwhile, by this process or its children."""
    saved = os.dup(fd)
    with tempfile.TemporaryFile() as sink:
        os.dup2(sink.fileno(), fd)
        written = io.BytesIO()
        try:
            yield written
        finally:
            os.dup2(saved, fd)
            os.close(saved)
            sink.seek(0)
            written.write(sink.read())


def _text(written: io.BytesIO) -> str:
    """The bytes as `subprocess.run(text=True)` gives them: UTF-8, universal newlines."""
    return io.TextIOWrapper(io.BytesIO(written.getvalue()), encoding="utf-8").read()


@pytest.fixture(autouse=True)
def fresh_warnings():
    """Each test warns as a fresh process would: `errors.warn` prints a message once per process."""
    from repomap import errors

    errors.forget_warnings()


@pytest.fixture(scope="session")
def wheel(tmp_path_factory) -> Path:
    """A wheel built from this checkout, as pip builds it for an install: once a session."""
    dist = tmp_path_factory.mktemp("dist")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                    "-w", str(dist), str(CHECKOUT)], check=True, capture_output=True)
    return next(dist.glob("repomap-*.whl"))


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
