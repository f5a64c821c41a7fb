# drop.sh - sourced by the scripts that build the op sweep's models
# (tests/sweep/run.sh, tests/acl/run.sh, tests/acl/real_cann.sh).
#
# sweep_drop FILE PATTERN SAY CMD...: runs CMD, its output in $sweep_out;
# while it fails (three tries at most), each line of FILE (a model of
# tests/sweep/gen.py: one op's call per line, the op in its comment) that
# an error of the output refuses with a message matching PATTERN (a sed
# basic regular expression) becomes `pass`, and "SAY OP" is printed for
# it. Returns CMD's last exit status (0: built, with what was dropped).
sweep_drop() {
    sd_f=$1 sd_pat=$2 sd_say=$3
    shift 3
    sd_name=$(basename "$sd_f")
    sd_try=1
    while :; do
        "$@" >"$sweep_out" 2>&1 && return 0
        sd_rc=$?
        sd_lines=$(sed -n "s/^\([^:]*\/\)\{0,1\}$sd_name:\([0-9][0-9]*\):[0-9]*: error: .*\($sd_pat\).*/\2/p" \
                   "$sweep_out" | sort -un)
        [ -n "$sd_lines" ] && [ $sd_try -lt 3 ] || return $sd_rc
        for sd_l in $sd_lines; do
            printf '%s %s\n' "$sd_say" "$(sed -n "${sd_l}s/.*# //p" "$sd_f")"
            sed -i "${sd_l}s/^\( *\).*/\1pass/" "$sd_f"
        done
        sd_try=$((sd_try + 1))
    done
}
