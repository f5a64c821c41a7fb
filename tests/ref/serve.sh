# tests/ref/serve.sh - sourced by the test suites that record many scripts
# with tests/ref/harness.py (tests/conform/run.sh, tests/e2e/run.sh,
# tests/aclsim/run.sh).
#
#   harness_serve DIR   starts the harness's fork server on DIR/harness.sock
#                       ($py tests/ref/harness.py --serve: torch is imported
#                       once, not once per recording) and exports
#                       TNGC_HARNESS_SOCKET, which the harness's calls then
#                       use; where the server does not come up, nothing is
#                       exported and each call imports torch itself
#   harness_stop        stops it (and waits for it)
#   harness_tmp SUITE   makes the suite's temporary folder, $tmp, removed at
#                       exit (with the server stopped) unless KEEP=1
#   worker_collect KEY SCRIPT
#                       prints the lines a worker wrote for SCRIPT
#                       ($tmp/KEY.lines) and adds its counts ($tmp/KEY.count)
#                       to $pass and $fail, or counts a failure (the suite's
#                       `bad`) when the worker did not finish
#
# $py is the interpreter (the suites' PYTHON), $root the repository.
harness_pid=
harness_serve() {
    "$py" "$root/tests/ref/harness.py" --serve "$1/harness.sock" >"$1/harness-server.log" 2>&1 &
    harness_pid=$!
    h_n=0
    while [ ! -S "$1/harness.sock" ] && [ $h_n -lt 300 ] && kill -0 $harness_pid 2>/dev/null; do
        sleep 0.1 2>/dev/null || sleep 1
        h_n=$((h_n + 1))
    done
    if [ -S "$1/harness.sock" ]; then
        TNGC_HARNESS_SOCKET=$1/harness.sock
        export TNGC_HARNESS_SOCKET
    fi
}
harness_stop() {
    [ -n "$harness_pid" ] || return 0
    kill "$harness_pid" 2>/dev/null
    wait "$harness_pid" 2>/dev/null
    harness_pid=
    unset TNGC_HARNESS_SOCKET
}
harness_tmp() {
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/tngc-$1.XXXXXX") || exit 2
    if [ "${KEEP:-0}" = 1 ]; then
        echo "$1: keeping $tmp"
        trap 'harness_stop' EXIT
    else
        trap 'harness_stop; rm -rf "$tmp"' EXIT
        trap 'harness_stop; rm -rf "$tmp"; exit 1' INT TERM
    fi
}
worker_collect() {
    if [ -f "$tmp/$1.count" ]; then
        cat "$tmp/$1.lines"
        read -r w_p w_f <"$tmp/$1.count"
        pass=$((pass + w_p)) fail=$((fail + w_f))
    else
        bad "$2: its worker did not finish"
    fi
}
