"""What a command says of its work on stderr: a progress line while files are tagged, on a
terminal only, and one summary line at its end. Standard output is the command's answer
alone, so a pipe or a golden file never sees either."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, TextIO

from . import tags
from .errors import visible

# Seconds of tagging before the progress line shows: a warm map ends sooner, and a line that
# flashes and vanishes is noise. By hand.
SHOW_AFTER = 1.0
REDRAW = 0.1  # seconds between two drawings of the line: a terminal redrawn per file slows the run
LANGUAGES_SHOWN = 3  # the summary names the most common languages, and how many more there are


class ProgressLine:
    """Files tagged out of the total and the rate, drawn over itself (`\\r`) on a terminal once
    tagging has run for SHOW_AFTER seconds, and erased when the last file is done, before
    anything else is printed. Called as the index's `progress` (done, total)."""

    def __init__(self, stream: TextIO, clock: Callable[[], float] = time.monotonic, after: float | None = None):
        self.stream, self.clock = stream, clock
        self.after = SHOW_AFTER if after is None else after
        self.started: float | None = None
        self.drawn_at: float | None = None  # when the line was last drawn; None: not on screen
        self.width = 0

    def __call__(self, done: int, total: int) -> None:
        now = self.clock()
        if self.started is None or done == 0:
            self.started = now
        if done >= total:
            self.erase()
            self.started = None
            return
        elapsed = now - self.started
        if elapsed < self.after or (self.drawn_at is not None and now - self.drawn_at < REDRAW):
            return
        rate = f", {done / elapsed:,.0f} files/s" if elapsed > 0 else ""
        text = f"repomap: tagging {done:,}/{total:,} files{rate}"
        self.stream.write("\r" + text.ljust(self.width))
        self.stream.flush()
        self.width, self.drawn_at = len(text), now

    def erase(self) -> None:
        if self.drawn_at is not None:
            self.stream.write("\r" + " " * self.width + "\r")
            self.stream.flush()
            self.drawn_at, self.width = None, 0


@dataclass
class Summary:
    """What one command worked on, for its last stderr line (`line`)."""

    root: str
    found_by: str  # what makes the root a repository: "git", ".repomap.toml", or "" (a plain folder)
    files: list[str] = field(default_factory=list)  # every file mapped
    notes: dict[str, int] = field(default_factory=dict)  # files skipped or worth a word, by reason
    ignored: dict[str, int] = field(default_factory=dict)  # files and folders by the .gitignore rule that hid them
    tokens: tuple[int, int] | None = None  # (used, budget) where the answer has a budget
    encoding: str = ""  # what the tokens are counted in, where the answer has a budget

    def line(self) -> str:
        """`repomap: 2,711 files (python 2,650, javascript 40, markdown 21, 2 more languages) ·
        1,019/1,024 cl100k_base tokens · files: 190 not source code, 2 too large · 24 ignored by
        .gitignore · root /path (git)`; a part with nothing to say is left out."""
        parts = [f"{len(self.files):,} files{_languages(self.files)}"]
        if self.tokens is not None:
            parts.append(f"{self.tokens[0]:,}/{self.tokens[1]:,} {self.encoding} tokens")
        if self.notes:
            parts.append("files: " + ", ".join(f"{n:,} {reason}" for reason, n in sorted(self.notes.items())))
        if self.ignored:
            parts.append(f"{sum(self.ignored.values()):,} ignored by .gitignore")
        parts.append(f"root {visible(self.root)}" + (f" ({self.found_by})" if self.found_by else ""))
        return "repomap: " + " · ".join(parts)


def _languages(files: list[str]) -> str:
    counts: dict[str, int] = {}
    for rel in files:
        language = tags.language_for(rel) or "other"
        counts[language] = counts.get(language, 0) + 1
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    shown = [f"{name} {n:,}" for name, n in ranked[:LANGUAGES_SHOWN]]
    if len(ranked) > LANGUAGES_SHOWN:
        more = len(ranked) - LANGUAGES_SHOWN
        shown.append(f"{more} more language{'s' if more > 1 else ''}")
    return f" ({', '.join(shown)})" if shown else ""
