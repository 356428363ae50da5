#!/usr/bin/env bash
# run.sh - make test-toolkits: the workbook builds with older CUDA toolkits, not only the
# one on this machine. For each release named (default 12.4 and 11.8) it installs that toolkit
# into .toolkits/ (tests/toolkits/install.sh, downloads cached), then builds, with it and for
# one architecture, the grader's pieces and every lab's reference and skeleton (compile and
# link only: nothing runs, no GPU is needed), into a build folder of its own.
#
#   BUILD=build MAKE=make tests/toolkits/run.sh [12.4] [11.8]
#
# One line per toolkit: "toolkits: CUDA 12.4 ... ok" or "... FAILED" with the reason and the
# end of the build log. Exit status: 0 when every toolkit built everything, 1 otherwise.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
MAKE=${MAKE:-make}
versions=("$@")
[ ${#versions[@]} -gt 0 ] || versions=(12.4 11.8)
labs=$(ls -d grader/labs/[0-9][0-9]-* | wc -l)
failed=0

# A g++ that nvcc $1 accepts: the default, NVCC_CCBIN, or an older g++ on PATH (installed with
# apt-get when none is: CUDA 11.8 takes gcc 11 at the newest). Prints its name; empty: none.
host_for() {
    local nvcc=$1 c
    for c in "${NVCC_CCBIN:-}" g++ g++-13 g++-12 g++-11 g++-10; do
        [ -n "$c" ] || continue
        NVCC_CCBIN=$c grader/make/check-toolkit.sh "$nvcc" --quiet 2>/dev/null && { echo "$c"; return; }
    done
    local sudo=""
    [ "$(id -u)" = 0 ] || sudo=$(command -v sudo)
    if command -v apt-get >/dev/null && { [ "$(id -u)" = 0 ] || [ -n "$sudo" ]; } && ! command -v g++-11 >/dev/null; then
        echo "toolkits: installing g++-11 (apt-get) for nvcc $("$nvcc" --version | sed -n 's/.*release \([0-9.]*\),.*/\1/p')" >&2
        $sudo apt-get install -y -q g++-11 >/dev/null 2>&1 ||
            { $sudo apt-get update -q >/dev/null 2>&1 && $sudo apt-get install -y -q g++-11 >/dev/null 2>&1; }
        NVCC_CCBIN=g++-11 grader/make/check-toolkit.sh "$nvcc" --quiet 2>/dev/null && echo g++-11
    fi
}

for v in "${versions[@]}"; do
    start=$SECONDS
    out=$BUILD/toolkit-$v
    mkdir -p "$out"
    if ! home=$(tests/toolkits/install.sh "$v" 2>"$out/install.log"); then
        echo "toolkits: CUDA $v: FAILED: the toolkit could not be installed: $(grep -m1 '^error' "$out/install.log" || tail -1 "$out/install.log")"
        failed=1; continue
    fi
    host=$(host_for "$home/bin/nvcc")
    if [ -z "$host" ]; then
        echo "toolkits: CUDA $v: FAILED: no host compiler that nvcc $v accepts: $(grader/make/check-toolkit.sh "$home/bin/nvcc" --quiet 2>&1 | head -1)"
        failed=1; continue
    fi
    # The driver and the lab runners in GPU mode (the harness, the worker, each lab's reference
    # and the untouched skeleton through the compile sandbox), for one architecture.
    if $MAKE --no-print-directory all MODE=gpu STUDENT=labs BUILD="$out" CUDA_HOME="$home" \
             NVCC_CCBIN="$host" CUDA_ARCH=sm_75 >"$out/build.log" 2>&1; then
        # The pieces must be this toolkit's: its runtime's soname in every harness.
        want=$(basename "$(readlink "$home/lib64/libcudart.so")")
        wrong=$(for h in "$out"/gpu/.grader/*/harness "$out"/gpu/.grader/*/problem.so; do
                    readelf -d "$h" | grep -q "\[$want\]" || echo "$h"; done)
        n=$(ls "$out"/gpu/.grader/*/reference.so "$out"/gpu/labs/*/student.so 2>/dev/null | wc -l)
        # Every CUDA header the grader's GPU sources read must be this toolkit's: a machine
        # that also has another toolkit's headers on the compiler's default path (here CUDA
        # 13's, linked into /usr/local/include) would otherwise hide one this toolkit lacks.
        foreign=$(for f in common/*.cu grader/*/*.cu grader/labs/*/problem.cu; do
                      "$home/bin/nvcc" -ccbin "$host" -std=c++17 -M -Icommon -Igrader -I"$out/gen" \
                          $(printf -- '-I%s ' grader/labs/*/) "$f" 2>/dev/null ||
                          echo "/(the-dependencies-of-$f-could-not-be-listed)"
                  done | tr ' \\' '\n\n' | grep '^/' | grep -v "^$home/" |
                  grep -iE '/(cuda|cub|thrust|nv|cu[a-z_]*\.h|cooperative_groups|\(the-)' | sort -u | head -5)
        if [ -n "$foreign" ]; then
            echo "toolkits: CUDA $v: FAILED: expected every CUDA header from $home, found others read: $(echo $foreign)"
            failed=1
        elif [ -n "$wrong" ]; then
            echo "toolkits: CUDA $v: FAILED: expected harnesses linked with $want, found otherwise: $wrong"
            failed=1
        elif [ "$n" -ne $((2 * labs)) ]; then
            echo "toolkits: CUDA $v: FAILED: expected a reference and a skeleton for each of $labs labs, found $n objects in $out"
            failed=1
        else
            echo "toolkits: CUDA $v (host compiler $host): the grader and $labs labs' references and skeletons built ok ($((SECONDS - start)) s)"
        fi
    else
        echo "toolkits: CUDA $v (host compiler $host): FAILED: the build stopped; the end of $out/build.log:"
        grep -v '^  [A-Z]* ' "$out/build.log" | tail -15 | sed 's/^/    /'
        failed=1
    fi
done
exit $failed
