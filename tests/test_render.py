"""What a rendered signature shows, and what it never shows."""

from conftest import run


def test_signatures_bodies_docstrings_and_long_lines(tmp_path):
    (tmp_path / "m.py").write_text(
        'class Box:\n'
        '    """Box docstring that must not leak."""\n\n'
        '    def put(\n'
        '        self,\n'
        '        item,\n'
        '    ) -> None:\n'
        '        """Method docstring that must not leak."""\n'
        '        self.items.append(item)\n\n'
        '    def size(self): return len(self.items)\n\n'
        f'def long_one({", ".join(f"argument_{i}" for i in range(40))}):\n'
        '    pass\n')
    text = run("map", tmp_path, "--tokens", "1000").stdout
    long_line = next(line for line in text.splitlines() if "long_one" in line)
    assert text == (
        "m.py:\n"
        "  class Box:\n"
        "  ⋮\n"
        "      def put(\n"
        "          self,\n"
        "          item,\n"
        "      ) -> None:\n"
        "  ⋮\n"
        "      def size(self): …\n"
        "  ⋮\n"
        f"{long_line}\n"
        "  ⋮\n")
    assert long_line.endswith("…") and len(long_line) == 2 + 160 + 1
    assert "docstring" not in text and "append" not in text


def test_comments_that_open_a_body_are_not_shown_and_are_its_doc(tmp_path):
    """Python's block begins at its first statement, Ruby's after the comments that open it:
    those comments are the body's (shown by search as the definition's doc where it has none),
    not lines of its signature; a comment inside a signature still is one."""
    (tmp_path / "m.py").write_text(
        "class Cache:\n    # entries by key\n\n    def get(\n        self,\n        # the entry's key\n        key,\n"
        "    ):\n        # a miss gives None\n        return self.entries.get(key)\n")
    (tmp_path / "r.rb").write_text("def fetch(key)\n  # from the store\n  store[key]\nend\n")
    assert run("map", tmp_path, "--tokens", "1000").stdout == (
        "m.py:\n  class Cache:\n  ⋮\n      def get(\n          self,\n          # the entry's key\n          key,\n"
        "      ):\n  ⋮\nr.rb:\n  def fetch(key)\n  ⋮\n")
    from repomap import tags

    found = tags.extract("m.py", (tmp_path / "m.py").read_bytes(), "python").tags
    assert [(t.name, t.sig_end_line, t.doc) for t in found if t.role == "def"] == [
        ("Cache", 1, "entries by key"), ("get", 8, "a miss gives None")]


def test_nested_definitions_show_under_their_headers(tmp_path):
    (tmp_path / "a.rs").write_text(
        "pub struct S;\n\nimpl S {\n    pub fn new() -> Self {\n        S\n    }\n}\n")
    (tmp_path / "b.rs").write_text("fn main() {\n    let s = S::new();\n}\n")
    text = run("map", tmp_path, "--tokens", "30").stdout
    assert text == "a.rs:\n  pub struct S;\n  ⋮\n  impl S {\n      pub fn new() -> Self {\n  ⋮\n"


def test_steady_order_moves_a_file_only_past_those_it_clearly_beats():
    from repomap.ranking import Ranked
    from repomap.render import stable_order
    from repomap.tags import Tag

    def item(path, score):
        return Ranked(score, Tag(path, 1, "def", "function", "f", 1, 0, 1, 1))

    def files(selection):
        return list(dict.fromkeys(r.tag.path for r in selection))

    # Rank order: b (1.1) just above a (1.0), d (3.0, new) far above both, c (0.5) below.
    ranked = [item("d.py", 3.0), item("b.py", 1.1), item("a.py", 1.0), item("c.py", 0.5)]
    order = files(stable_order(ranked, ["a.py", "b.py", "c.py"]))
    assert order == ["d.py", "a.py", "b.py", "c.py"]
    assert files(stable_order(ranked, order)) == order  # a map in steady order is written again as it is
    assert files(stable_order(ranked, [])) == ["d.py", "b.py", "a.py", "c.py"]  # no previous map: rank order
    assert files(stable_order(ranked, ["c.py", "a.py", "b.py"])) == ["d.py", "a.py", "b.py", "c.py"]  # 1.0 > 1.25 x 0.5


def test_fit_looks_a_bounded_way_past_the_cut():
    """Past the longest prefix that fits, fit estimates at most MAX_FILL_LOOKS definitions:
    each estimate renders a file's part, so one file of many small definitions would
    otherwise cost as many renders as it has definitions."""
    from repomap import render

    ranked = list(range(100_000))
    looked = []

    def text(selection):
        return "x" * (75 * len(selection))

    def estimate(item, selection):
        looked.append(item)
        return 100  # more than the budget leaves: none fits

    _, _, selection = render.fit(ranked, 1000, text, estimate, count=len)
    assert selection == ranked[:13]
    assert 0 < len(looked) <= render.MAX_FILL_LOOKS
