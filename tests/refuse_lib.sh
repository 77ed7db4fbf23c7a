# tests/refuse_lib.sh — sourced by e2e scripts (not a test itself: run_all.sh runs tests/e2e_*.sh):
# `refuse NAME TEXT KEY=VALUE...` runs `$PB train` with the script's base config $REFUSE_BASE, less
# the keys the arguments set (a key is given once: twice is an error, as in YAML), plus the
# arguments, and checks the refusal: exit 2, TEXT in its message, and that message on one line of
# stderr. Needs PB, T (a scratch folder) and check() from the sourcing script.
without_keys() {
    for kv in $REFUSE_BASE; do
        dup=0
        for o in "$@"; do [ "${o%%=*}" = "${kv%%=*}" ] && dup=1; done
        [ $dup -eq 0 ] && printf '%s ' "$kv"
    done
}
refuse() { # name, expected text, args...
    name=$1 want=$2; shift 2
    base=$(without_keys "$@")
    # shellcheck disable=SC2086
    $PB train $base --out "$T/r" "$@" > "$T/r.out" 2> "$T/r.err"; rc=$?
    [ $rc -eq 2 ] && grep -qF "$want" "$T/r.err" && [ "$(wc -l < "$T/r.err")" -eq 1 ]
    check "refused: $name" $? "exit $rc: $(head -c 300 "$T/r.err")"
}
