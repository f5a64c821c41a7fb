# tests/ref/serve.sh - sourced by the test suites that record many scripts
# with tests/ref/harness.py (tests/conform/run.sh, tests/e2e/run.sh).
#
#   harness_serve DIR   starts the harness's fork server on DIR/harness.sock
#                       ($py tests/ref/harness.py --serve: torch is imported
#                       once, not once per recording) and exports
#                       TNGC_HARNESS_SOCKET, which the harness's calls then
#                       use; where the server does not come up, nothing is
#                       exported and each call imports torch itself
#   harness_stop        stops it (and waits for it)
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
