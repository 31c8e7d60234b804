"""Print the README "Strength" tables (markdown) from the JSON files of scripts/strength.sh.

Usage: python scripts/strength_table.py [RESULTS_DIR]   (default: strength-results)
"""
from __future__ import annotations

import json
import pathlib
import sys


def fmt_ci(lo: float, hi: float, digits: int) -> str:
    return f"[{lo:.{digits}f}, {hi:.{digits}f}]"


def main(folder: pathlib.Path) -> None:
    files = sorted(p for p in folder.glob("*.json") if p.stat().st_size)  # skip runs in progress
    if not files:
        sys.exit(f"no results in {folder}; run scripts/strength.sh first")
    print("| game | games | agent | mean score (95% CI) | win rate (95% Wilson CI) |")
    print("|---|---:|---|---:|---:|")
    for path in files:
        doc = json.loads(path.read_text())
        if doc.get("mode") != "solitaire":
            continue
        for a in doc["agents"]:
            print(f"| {doc['game']} | {doc['games']:,} | {a['label']} | {a['mean_score']:.2f} "
                  f"{fmt_ci(*a['mean_ci'], 2)} | {a['win_rate']:.4f} {fmt_ci(*a['win_ci'], 4)} |")
    print()
    print("| Kocka match (seat order rotating) | games | agent | win rate (95% Wilson CI) |")
    print("|---|---:|---|---:|")
    for path in files:
        doc = json.loads(path.read_text())
        if doc.get("mode") == "solitaire":
            continue
        match = " vs ".join(a["label"] for a in doc["agents"])
        for a in doc["agents"]:
            print(f"| {match} | {doc['games']:,} | {a['label']} | {a['win_rate']:.4f} {fmt_ci(*a['win_ci'], 4)} |")


if __name__ == "__main__":
    main(pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "strength-results"))
