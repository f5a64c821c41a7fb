#!/bin/sh
# No C injection from a script. A super_kernel scope named
# "sp1 */ ... __attribute__((constructor)) ... /*" used to end the segment
# comment of the CPU target, and its launcher ran the constructor (even on
# --help). Every script-derived string now reaches generated C through one
# escaper per place (codegen/cesc.c: string literal, comment, identifier).
#
# inject/cases.py writes one script per hostile string (comment close, new
# line and #include, quote, backslashes and a star-backslash-newline-slash
# splice, ??/ trigraphs, NUL, control and non-UTF-8 bytes, 10 kB), each put
# in every field a script controls: super_kernel scope and options, stream
# tag, buffer (weight) name, dict input key, a non-ASCII entry name, the
# static-kernel build dir; and one whose script path is hostile. For each:
#   - ACL: `tngc gen --target acl` exits 0 (with #line directives: the
#     path is in them), every generated .c compiles against tests/acl/cann
#     with clang -std=c11 -trigraphs -Wall -Wextra -Wpedantic -Werror, and
#     its object is inert: no constructor section, no reference to system();
#   - CPU: `tngc gen` exits 0 and every .c passes those flags
#     (-fsyntax-only); `tngc build` as a user runs it exits 0, lib*.a is
#     inert and the launchers do not call system(), every launcher's --help
#     exits 0 and leaves no PWNED file, and the strings of each compiled
#     descriptor (entry, script, input, weight, output names, stream tags)
#     are the plan's, byte for byte (inject/desc_dump.c, roundtrip.py).
# No PWNED file may appear anywhere.
#
# usage: sh t_inject.sh BUILD_DIR     (BUILD_DIR holds tngc and libtngcrt.a)
. "$(dirname "$0")/lib.sh"
cc=${CC:-clang}

warn="-trigraphs -Wall -Wextra -Wpedantic -Werror"
strict="-std=c11 -D_POSIX_C_SOURCE=200809L $warn -I$root/runtime"
san=
if nm "$build/libtngcrt.a" 2>/dev/null | grep -q __asan_; then
    san="-fsanitize=address,undefined -fno-omit-frame-pointer"
fi

# An object or archive is inert: nothing runs before main, nothing calls
# system(). SANITIZED=1: built by tngc with the sanitizers, whose own
# constructors are there, so only system() is looked for.
inert() {   # OBJ [SANITIZED]
    if [ -z "${2:-}" ] && readelf -S "$1" | grep -q -e '\.init_array' -e '\.ctors'; then return 1; fi
    if nm -u "$1" | grep -qw system; then return 1; fi
    return 0
}

# gen --target acl; every .c compiles -Werror against CANN's declarations
# and is inert.
gen_acl() {   # CASE DIR SCRIPT
    out=$2/gen_acl
    (cd "$2" && "$tngc" gen --target acl -o gen_acl "$3") >"$2/gen.log" 2>&1
    rc=$?
    if [ $rc -ne 0 ]; then
        fail "$1 acl gen" "exit $rc: $(head -c 300 "$2/gen.log")"
        return
    fi
    good=1 n=0
    for c in "$out"/*.c; do
        n=$((n + 1))
        if ! $cc $strict $(long "$1") -I"$root/tests/acl/cann/include" -I"$out" -c -o "${c%.c}.o" "$c" \
            2>"$2/cc.log"; then
            fail "$1 acl compile" "$(basename "$c"): $(head -c 400 "$2/cc.log")"
            good=0
        elif ! inert "${c%.c}.o"; then
            fail "$1 acl inert" "$(basename "$c") has a constructor or calls system()"
            good=0
        fi
    done
    [ $good = 1 ] && ok "$1 acl: gen exits 0, its $n .c files compile with -Werror and are inert"
}

# ISO C asks compilers for 4095-byte literals only: -Wpedantic warns
# beyond (a 10 kB name is still valid C for clang and gcc).
long() {   # CASE
    [ "$1" = long ] && echo -Wno-overlength-strings
}

# gen (CPU): every .c passes the strict flags.
gen_cpu() {   # CASE DIR SCRIPT
    out=$2/gen_cpu
    (cd "$2" && "$tngc" gen -o gen_cpu "$3") >"$2/gen.log" 2>&1
    rc=$?
    if [ $rc -ne 0 ]; then
        fail "$1 cpu gen" "exit $rc: $(head -c 300 "$2/gen.log")"
        return
    fi
    good=1 n=0
    for c in "$out"/*.c; do
        n=$((n + 1))
        if ! $cc $strict $(long "$1") -I"$out" -fsyntax-only "$c" 2>"$2/cc.log"; then
            fail "$1 cpu compile" "$(basename "$c"): $(head -c 400 "$2/cc.log")"
            good=0
        fi
    done
    [ $good = 1 ] && ok "$1 cpu: gen exits 0, its $n .c files compile with -Werror"
}

# build (CPU), the launchers' --help, and the descriptors' strings.
build_cpu() {   # CASE DIR SCRIPT
    (cd "$2" && "$tngc" build --no-cache --opt -O0 -o bin "$3") >"$2/build.log" 2>&1
    rc=$?
    if [ $rc -ne 0 ]; then
        fail "$1 cpu build" "exit $rc: $(head -c 400 "$2/build.log")"
        return
    fi
    mkdir "$2/run"
    good=1
    for lib in "$2"/bin/lib*.a; do
        inert "$lib" "$san" || { fail "$1 cpu inert" "$(basename "$lib") has a constructor or calls system()"; good=0; }
    done
    for l in "$2"/bin/*_launcher; do
        if nm -u "$l" | grep -qw system; then
            fail "$1 cpu inert" "$(basename "$l") calls system()"
            good=0
        fi
        (cd "$2/run" && "$l" --help) >"$2/help.log" 2>&1
        rc=$?
        [ $rc -eq 0 ] || { fail "$1 cpu --help" "$(basename "$l") exit $rc"; good=0; }
    done
    if [ -n "$(find "$2" -name PWNED)" ]; then
        fail "$1 cpu run" "a constructor from the script ran: PWNED was created"
        good=0
    fi
    [ $good = 1 ] && ok "$1 cpu: build exits 0, lib*.a inert, every launcher's --help exits 0, no PWNED"
    if ! (cd "$2" && "$tngc" plan --format json "$3") >"$2/plan.json" 2>"$2/plan.log"; then
        fail "$1 plan" "$(head -c 300 "$2/plan.log")"
        return
    fi
    for lib in "$2"/bin/lib*.a; do
        name=$(basename "$lib" .a)
        name=${name#lib}
        if ! $cc $san -I"$root/runtime" -DDESC="${name}_desc" -o "$2/dump_$name" "$here/inject/desc_dump.c" \
            "$lib" "$build/libtngcrt.a" -lopenblas -lpthread -lm 2>"$2/cc.log" ||
            ! "$2/dump_$name" >"$2/$name.dump"; then
            fail "$1 descriptor" "$name: $(head -c 300 "$2/cc.log")"
            return
        fi
    done
    if python3 "$here/inject/roundtrip.py" "$2/plan.json" "$2"/*.dump >"$2/rt.log"; then
        ok "$1 cpu: the compiled names, tags and paths are the script's bytes"
    else
        fail "$1 roundtrip" "$(head -c 600 "$2/rt.log")"
    fi
}

python3 "$here/inject/cases.py" "$tmp/cases" || exit 1
for d in "$tmp"/cases/*; do
    case=$(basename "$d")
    script=$(cat "$d/path"; echo x)   # the x keeps trailing newlines
    script=${script%x}
    gen_acl "$case" "$d" "$script"
    gen_cpu "$case" "$d" "$script"
    build_cpu "$case" "$d" "$script"
done

if [ -n "$(find "$tmp" -name PWNED)" ]; then
    fail "no PWNED" "a constructor from a script ran"
else
    ok "no PWNED file anywhere"
fi
[ $fails -eq 0 ]
