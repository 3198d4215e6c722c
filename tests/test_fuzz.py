"""Property tests: random and mutated sources never crash tagging or rendering, tags stay inside
the file, rendered lines come from the file; no ID or path reads outside the root.

Budgets are small for CI; set REPOMAP_FUZZ_EXAMPLES=2000 for a longer local run.
"""

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import FIXTURES
from repomap import RepoMap, RepoMapError, tags
from repomap.ranking import Ranked
from repomap.render import Renderer
from repomap.errors import NotFound, Refused, visible

EXAMPLES = int(os.environ.get("REPOMAP_FUZZ_EXAMPLES", "25"))
SAMPLES = sorted(p for p in (FIXTURES / "tags").glob("*/*") if p.suffix != ".tags")
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))


@st.composite
def mutated(draw, original: bytes) -> bytes:
    """The sample with a few random cuts, duplications and insertions of bytes."""
    data = bytearray(original)
    for _ in range(draw(st.integers(1, 6))):
        at = draw(st.integers(0, len(data)))
        action = draw(st.sampled_from(["cut", "copy", "insert"]))
        if action == "cut":
            del data[at:at + draw(st.integers(1, 40))]
        elif action == "copy":
            data[at:at] = data[draw(st.integers(0, max(0, len(data) - 1))):][:draw(st.integers(1, 80))]
        else:
            data[at:at] = draw(st.binary(min_size=1, max_size=20)) if draw(st.booleans()) \
                else draw(st.sampled_from([b"{", b"}", b"(", b")", b"\n", b"def ", b"class ", b'"', b"*/", b"\xff"]))
    return bytes(data)


def check_file(name: str, data: bytes) -> None:
    language = tags.language_for(name)
    result = tags.extract(name, data, language)
    assert result is not None
    lines = data.decode("utf-8", errors="replace").split("\n")
    for tag in result.tags:
        assert 0 <= tag.start_byte <= tag.end_byte <= len(data)
        assert 1 <= tag.line <= tag.end_line <= max(len(lines), 1) + 1
    defs = [t for t in result.tags if t.role == "def"]
    text = Renderer({name: data}, {name: defs}, {name: 1.0}).render([Ranked(1.0, t) for t in defs])
    # the renderer strips trailing blanks and \r, and shows control characters escaped
    originals = {visible(line.rstrip()) for line in lines}
    for line in text.split("\n")[1:]:
        line = line[2:]
        if line in ("⋮", ""):
            continue
        body = line[:-1] if line.endswith("…") else line
        assert any(o.startswith(body.rstrip(" …")) for o in originals), line


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: p.parent.name)
def test_mutated_sources(sample):
    original = sample.read_bytes()

    @FUZZ
    @given(mutated(original))
    def run(data):
        check_file(sample.name, data)

    run()


@FUZZ
@given(st.sampled_from(SAMPLES), st.binary(max_size=2000))
def test_random_bytes(sample, data):
    check_file(sample.name, data)


@pytest.fixture(scope="module")
def repo():
    return RepoMap(FIXTURES / "repo", use_cache=False)


PIECES = ["..", "/", "::", "#", ":", "~", "\0", "shop", "cart.py", "Cart.total", "method", "../..", "/etc/passwd",
          "link", "\\", "%2e%2e", " ", "12", "-1", "ö"]


@FUZZ
@given(st.lists(st.sampled_from(PIECES), max_size=8).map("".join) | st.text(max_size=40))
def test_any_target_is_answered_or_refused(repo, target):
    root = (FIXTURES / "repo").resolve()
    try:
        snippet = repo.retrieve(target)
    except (NotFound, Refused, RepoMapError):
        return
    assert (root / snippet.tag.path).resolve().is_relative_to(root)
    assert snippet.data in (root / snippet.tag.path).read_bytes()
