#!/usr/bin/env bash
# Runs the whole test suite N times in a row with a busy loop on every core beside it, prints each run's result
# and the number of failed runs, and exits non-zero when any run failed. A test that depends on how fast the
# machine is fails here before it fails for a user.
#
#   scripts/stress-tests.sh [--no-hog] [N] [test file…]   # N defaults to 5; --no-hog runs without the busy loops;
#                                                         # test files, when given, are run instead of the suite
set -uo pipefail
cd "$(dirname "$0")/.."

hog=1
if [[ "${1:-}" == "--no-hog" ]]; then
  hog=0
  shift
fi
runs="${1:-5}"
if ! [[ "$runs" =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: scripts/stress-tests.sh [--no-hog] [N] [test file…]" >&2
  exit 2
fi
shift || true
files=("$@")

logs=$(mktemp -d "${TMPDIR:-/tmp}/crewd-stress-XXXXXX")
hogs=()
stop_hogs() {
  for pid in "${hogs[@]}"; do kill "$pid" 2>/dev/null; done
  for pid in "${hogs[@]}"; do wait "$pid" 2>/dev/null; done
  hogs=()
}
trap stop_hogs EXIT
trap 'stop_hogs; exit 130' INT TERM

if [[ $hog == 1 ]]; then
  for _ in $(seq 1 "$(nproc)"); do
    node -e 'for (;;) {}' &
    hogs+=("$!")
  done
  echo "busy loops on $(nproc) cores: ${hogs[*]}"
fi

failed=0
for run in $(seq 1 "$runs"); do
  log="$logs/run-$run.log"
  started=$SECONDS
  npm test -- "${files[@]}" >"$log" 2>&1
  code=$?
  plain=$(sed 's/\x1b\[[0-9;]*m//g' "$log")
  counts=$(grep -E '^ +Tests +' <<<"$plain" | tail -n 1 | sed -E 's/^ +Tests +//')
  if [[ $code == 0 ]]; then
    echo "run $run/$runs: passed (${counts:-no counts}) in $((SECONDS - started)) s"
  else
    failed=$((failed + 1))
    echo "run $run/$runs: FAILED (${counts:-no counts}) in $((SECONDS - started)) s; log: $log"
    grep -E '^ +(FAIL|×) ' <<<"$plain" | sort -u | sed 's/^/    /'
  fi
done

echo "$failed of $runs runs failed$([[ $hog == 1 ]] && echo ' (with busy loops on every core)')"
[[ $failed == 0 ]]
