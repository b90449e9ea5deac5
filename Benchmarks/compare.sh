#!/usr/bin/env bash
# `make bench-compare BASE=<commit>`: builds mrq-bench twice in release, once
# against mrq at BASE and once against the working tree, then runs the
# working tree's with `--compare` on the base's (Compare.swift).
#
# Both builds use the working tree's Benchmarks/ harness, so only mrq differs
# between them. The base is a `git archive` of BASE in .build/bench-base/<sha>,
# with its own scratch path there, so a second comparison with the same base
# builds nothing again.
#
#   Benchmarks/compare.sh BASE [--workloads a,c,e] [--rounds N] [--scale NAME] [--runs N]
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}

if [ $# -lt 1 ] || [ -z "$1" ]; then
    echo "usage: make bench-compare BASE=<commit> [WORKLOADS=a,b,c,d,e] [ROUNDS=5] [SCALE=compare|smoke|full|PEOPLE]" >&2
    exit 64
fi
base=$1
shift
sha=$(git rev-parse --verify --quiet "$base^{commit}") || {
    echo "bench-compare: '$base' names no commit in $(pwd)" >&2
    exit 64
}
dir=.build/bench-base/$sha
if [ ! -f "$dir/.extracted" ]; then
    echo "extracting $sha into $dir"
    rm -rf "$dir"
    mkdir -p "$dir"
    git archive "$sha" | tar -x -C "$dir"
    touch "$dir/.extracted"
fi
# The working tree's harness over the base's; cp -p keeps the times of the
# files, so an unchanged harness is not compiled again.
rm -rf "$dir/Benchmarks/Sources"
mkdir -p "$dir/Benchmarks"
cp -Rp Benchmarks/Sources Benchmarks/Package.swift "$dir/Benchmarks/"
[ -f Benchmarks/Package.resolved ] && cp -p Benchmarks/Package.resolved "$dir/Benchmarks/"

echo "building the base ($sha) in release"
$SWIFT build -c release --package-path "$dir/Benchmarks" --scratch-path "$dir/.scratch" --product mrq-bench
echo "building the working tree in release"
$SWIFT build -c release --package-path Benchmarks --scratch-path Benchmarks/.build --product mrq-bench
exec Benchmarks/.build/release/mrq-bench --compare "$dir/.scratch/release/mrq-bench" "$@"
