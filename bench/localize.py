"""Does the map surface what a real task needs? Scores repomap on ../shared/eval.

For each task, searches the task's parent tree for the commit message (ranked
files and symbols come from `search`) and maps it with the message as --query at
several budgets (map columns), writes predictions in the set's format and scores
them with the set's script, next to its BM25 baseline. Needs the task trees (see ../shared/eval/README.md):

    python bench/localize.py --trees "$TREES" [--tasks dev-tasks-large.jsonl] [--eval ../shared/eval]
                             [--budgets 1024 4096]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from repomap import RepoMap

HERE = Path(__file__).resolve().parent


def tree_of(task: dict, trees: Path) -> Path:
    return trees / f"{task['repo'].replace('/', '__')}@{task['parent'][:12]}"


def predict(task: dict, trees: Path, budgets: list[int]) -> dict[int, dict]:
    tree = tree_of(task, trees)
    repo = RepoMap(tree)
    hits = repo.search(task["query"], limit=100)
    symbols = [f"{h.tag.path}::{h.tag.qualname}" for h in hits]
    out = {}
    for budget in budgets:
        result = repo.build(query=task["query"], tokens=budget)
        out[budget] = {
            "id": task["id"],
            # files in the order search finds them, then in the map's order
            "ranked_files": list(dict.fromkeys([h.tag.path for h in hits] + result.ranked_files)),
            "ranked_symbols": symbols,
            "map_text": result.text,
            "map_tokens": result.tokens,
        }
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trees", type=Path, required=True, help="folder of extracted task trees")
    parser.add_argument("--eval", type=Path, default=HERE.parent.parent / "shared" / "eval")
    parser.add_argument("--tasks", default="dev-tasks.jsonl", help="the task set in --eval (default dev-tasks.jsonl)")
    parser.add_argument("--budgets", type=int, nargs="+", default=[512, 1024, 2048, 4096])
    parser.add_argument("--out", type=Path, default=HERE / ".out")
    parser.add_argument("--repo", help="only this OWNER/NAME")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()

    task_file = args.eval / args.tasks
    tasks = [json.loads(line) for line in task_file.read_text().splitlines() if line.strip()]
    if args.repo:
        tasks = [t for t in tasks if t["repo"] == args.repo]
    missing = [t["id"] for t in tasks if not tree_of(t, args.trees).is_dir()]
    if missing:
        print(f"localize: {len(missing)} task trees missing under {args.trees}, e.g. {missing[0]}", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    with ProcessPoolExecutor(args.jobs) as pool:
        results = list(pool.map(predict, tasks, [args.trees] * len(tasks), [args.budgets] * len(tasks)))
    print(f"{len(tasks)} tasks x {len(args.budgets)} budgets in {time.perf_counter() - started:.0f} s\n")

    scope = ["--repo", args.repo] if args.repo else []
    name = f"{task_file.stem}{'-' + args.repo.replace('/', '__') if args.repo else ''}"
    predictions = {}
    for budget in args.budgets:  # written first: a failing baseline must not lose a long run
        predictions[budget] = args.out / f"repomap-{name}-{budget}.jsonl"
        predictions[budget].write_text("".join(json.dumps(r[budget]) + "\n" for r in results))
    baseline = args.out / f"bm25-{name}.jsonl"
    if not baseline.exists():
        subprocess.run([sys.executable, str(args.eval / "baseline_bm25.py"), "--tasks", str(task_file),
                        "--trees", str(args.trees), "--out", str(baseline), *scope], check=True, capture_output=True)
    print("BM25 baseline (naive map at 1024 tokens)")
    _score(task_file, baseline, scope)
    for budget, path in predictions.items():
        print(f"repomap, --tokens {budget}")
        _score(task_file, path, scope)
    return 0


def _score(task_file: Path, predictions: Path, scope: list[str]) -> None:
    result = subprocess.run([sys.executable, str(task_file.parent / "score.py"), "--tasks", str(task_file),
                             "--pred", str(predictions), *scope], capture_output=True, text=True)
    print(result.stdout or result.stderr)


if __name__ == "__main__":
    sys.exit(main())
