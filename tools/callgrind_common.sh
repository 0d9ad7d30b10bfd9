# Sourced by tools/callgrind.sh and tools/callgrind_launch.sh (not run on its
# own): the build and the callgrind run they share. Expects ROOT, TARGET and
# WORK to be set.

# Builds simcli for x86-64-v3 (AVX2; `target-cpu=native` is avoided:
# valgrind cannot run every instruction a native build may use) and sets
# SIMCLI. CALLGRIND_RUSTFLAGS replaces the x86-64-v3 flags: set it empty to
# measure the default portable build (`CALLGRIND_RUSTFLAGS= tools/...`).
callgrind_build() {
    local flags=${CALLGRIND_RUSTFLAGS-"-C target-cpu=x86-64-v3"}
    if [ -n "$flags" ]; then
        (cd "$ROOT" && RUSTFLAGS="$flags" cargo build --release -p sim-cli --locked >&2)
    else
        # Unset, not empty: an empty RUSTFLAGS would override .cargo/config.toml.
        (cd "$ROOT" && env -u RUSTFLAGS cargo build --release -p sim-cli --locked >&2)
    fi
    SIMCLI="$TARGET/release/simcli"
}

# callgrind_report N ARGS...: runs `simcli ARGS` under callgrind and prints
# its host instructions (Ir) per warp-instruction, N warp-instructions.
callgrind_report() {
    local n=$1
    shift
    valgrind --tool=callgrind --callgrind-out-file="$WORK/cg.out" \
        "$SIMCLI" "$@" > /dev/null 2> "$WORK/cg.log"
    local ir
    ir=$(sed -n 's/.*refs: *//p' "$WORK/cg.log" | tr -d ',')
    echo "Ir $ir, warp instructions $n, Ir per warp-instruction $((ir / n))"
}
