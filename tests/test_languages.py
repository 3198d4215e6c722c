"""A repository with one small file per language: each file shows in the map, and search
finds a definition of each (issue #46's "done when"). The files are the tag fixtures."""

import json
import re
import shutil
from pathlib import Path

import pytest

from conftest import run
from repomap import RepoMap

FIXTURES = Path(__file__).parent / "fixtures" / "tags"
SAMPLES = sorted(p for p in FIXTURES.glob("*/*") if p.suffix != ".tags")


def _first_definition(sample: Path) -> str:
    """The ID (less any ~N) of the first definition the fixture's expectation lists."""
    for line in sample.with_name(sample.name + ".tags").read_text().splitlines():
        parts = line.split()
        if parts[1] == "def":
            return (parts[3] if parts[2] == "local" else parts[2]).split("~")[0]
    raise AssertionError(f"no definition in {sample}")


@pytest.mark.long
def test_every_language_shows_in_one_map_and_search_finds_its_definitions(tmp_path):
    root = tmp_path / "polyglot"
    for sample in SAMPLES:
        target = root / sample.parent.name / sample.name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(sample, target)
    cache_dir = tmp_path / "cache"  # the map's tags, read by the searches: every grammar loads once
    result = run("map", root, "--tokens", "100000", "--format", "json", "--cache-dir", cache_dir)
    assert result.returncode == 0, result.stderr
    shown = {f["path"] for f in json.loads(result.stdout)["files"]}
    assert shown == {f"{s.parent.name}/{s.name}" for s in SAMPLES}
    repo = RepoMap(root, cache_dir=cache_dir)
    for sample in SAMPLES:
        rel = f"{sample.parent.name}/{sample.name}"
        wanted = f"{sample.parent.name}/{_first_definition(sample)}"
        name = wanted.split("::", 1)[1].rsplit("#", 1)[0].rsplit(".", 1)[-1]
        hits = repo.search(name, limit=10, path=rel)
        assert wanted in {h.tag.id.split("~")[0] for h in hits}, (wanted, [h.tag.id for h in hits])


def test_the_readme_table_lists_every_extension_and_file_name_repomap_tags():
    from repomap import tags

    readme = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")
    table = readme[readme.index("## Languages"):readme.index("## Safety")]
    listed = set(re.findall(r"`([^`\s]+)`", table))
    assert set(tags.EXTENSIONS) | set(tags.FILE_NAMES) <= listed | {".m"}, set(tags.EXTENSIONS) - listed
    assert ".m" in table and len(re.findall(r"^\| [^|]+ \| `", table, re.MULTILINE)) >= 50
