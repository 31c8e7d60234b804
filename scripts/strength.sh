#!/usr/bin/env bash
# Reproduce the README "Strength" table: builds the tables it needs, then runs the arena
# for every game with solvers. Usage: scripts/strength.sh [GAMES] [JOBS] [OUTDIR]
# (defaults 20000 games, 2 jobs, ./strength-results). Each run writes OUTDIR/<name>.json.
set -euo pipefail
games=${1:-20000}
jobs=${2:-2}
out=${3:-strength-results}
mkdir -p "$out"
for g in kockapoker slovak yahtzee yatzy; do
  kocka-solve build "$g" -q >/dev/null
  kocka arena "$g" --agents optimal,heuristic,random --games "$games" --seed 1 --jobs "$jobs" --json > "$out/$g.json"
done
kocka-solve build kocka -q >/dev/null
kocka-solve build kocka --kind turn_ev -q >/dev/null
kocka-solve build kocka --players 3 -j "$jobs" -q >/dev/null   # the exact three-player table (about 5 minutes)
for opp in bold cautious heuristic ev; do
  kocka arena kocka --agents optimal,$opp --games "$games" --seed 1 --jobs "$jobs" --json > "$out/kocka-optimal-$opp.json"
done
kocka arena kocka --agents optimal,bold,cautious --games "$games" --seed 1 --jobs "$jobs" --json > "$out/kocka3-optimal-bold-cautious.json"
kocka arena kocka --agents optimal,heuristic,cautious --games "$games" --seed 1 --jobs "$jobs" --json > "$out/kocka3-optimal-heuristic-cautious.json"
kocka arena kocka --agents heuristic,bold,cautious --games "$games" --seed 1 --jobs "$jobs" --json > "$out/kocka3-heuristic-bold-cautious.json"
echo "results in $out/"
