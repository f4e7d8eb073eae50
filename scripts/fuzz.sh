#!/usr/bin/env bash
# Runs every Go fuzz target in the module for the given time each (default 20s).
set -euo pipefail
t=${1:-20s}
cd "$(dirname "$0")/.."
for pkg in $(go list ./...); do
  dir=$(go list -f '{{.Dir}}' "$pkg")
  for fn in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //'); do
    echo "== $pkg $fn ($t)"
    go test -run='^$' -fuzz="^${fn}\$" -fuzztime="$t" "$pkg"
  done
done
