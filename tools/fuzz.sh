#!/usr/bin/env bash
# Runs one crate's proptest fuzz targets over and over for a wall-clock
# budget, each pass with a fresh seed, and stops at the first failure.
#
#   tools/fuzz.sh SECONDS CASES CRATE FILTER...
#   tools/fuzz.sh 1800 20000 sim-trace fuzz_raw_bytes fuzz_mutated_payloads fuzz_load_detects_either_format
#
# CASES is the number of cases per target per pass (FUZZ_CASES for sim-isa,
# PROPTEST_CASES for the others). Prints one line per pass and a summary:
# passes, cases per target, and the time taken. See docs/fuzzing.md.
set -euo pipefail
[ $# -ge 4 ] || { sed -n '2,10p' "$0"; exit 2; }
secs=$1 cases=$2 crate=$3
shift 3
cd "$(dirname "$0")/.."
cargo test --release --locked -p "$crate" --test it --no-run >/dev/null 2>&1
end=$((SECONDS + secs))
passes=0
start=$(date -u +%FT%TZ)
while [ "$SECONDS" -lt "$end" ]; do
    if ! FUZZ_CASES=$cases PROPTEST_CASES=$cases \
        cargo test --release --locked -q -p "$crate" --test it -- "$@" --test-threads 1 >/tmp/fuzz.$$ 2>&1; then
        cat /tmp/fuzz.$$
        echo "FAILED after $passes passes"
        exit 1
    fi
    passes=$((passes + 1))
    echo "pass $passes: $(grep -E '^test result' /tmp/fuzz.$$ | head -1)"
done
rm -f /tmp/fuzz.$$
echo "$crate $*: $passes passes x $cases cases per target, $start to $(date -u +%FT%TZ), no failure"
