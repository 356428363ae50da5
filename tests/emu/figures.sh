#!/usr/bin/env bash
# figures.sh - nvcc's figures of a file that asks for them (common/emu/emu-nvcc, "nvcc's figures";
# common/emu/rewrite/figures.h): a file that asks nothing (a mention in a comment is no question)
# is built without running nvcc at all; one that asks is, and each kernel gets ptxas's registers,
# static shared and local bytes (held to ptxas's own lines, and to cuobjdump where there is one);
# an nvcc that fails, hangs or writes a hostile log never fails the build (a note says so), a
# name in the log that is no C identifier never reaches the code, and a table that does not
# compile is dropped.
#
#   tests/emu/figures.sh        (EMU_BUILD: the emulator's tools, as emu-nvcc takes it;
#                                CUDA_NVCC: NVIDIA's nvcc, else on PATH; without one, the checks
#                                that need it are skipped)
set -u
cd "$(dirname "$0")/../.."
work=$(mktemp -d "${TMPDIR:-/tmp}/emu-figures.XXXXXX")
trap 'rm -rf "$work"' EXIT
pass=0 fail=0 skip=0
ok() { pass=$((pass + 1)); echo "ok   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }
real_nvcc=${CUDA_NVCC:-$(command -v nvcc || true)}
cuobjdump=$(command -v cuobjdump || ls "${EMU_BUILD:-build/emu}/../tools/cuobjdump" 2>/dev/null || true)

# A stand-in for nvcc: it notes that it ran, then does what FAKE says: fail, hang, or write a
# ptxas log (FAKE_LOG), a PTX file and a cubin where emu-nvcc asked for them.
cat >"$work/fake-nvcc" <<'SH'
#!/usr/bin/env bash
echo "$*" >>"$FAKE_CALLS"
keep="" out=""
while [ $# -gt 0 ]; do
    case $1 in -keep-dir) keep=$2; shift ;; -o) out=$2; shift ;; esac
    shift
done
case $FAKE in
    fail) echo "fake.cu(3): error: identifier \"nope\" is undefined" >&2; exit 1 ;;
    hang) sleep 30 ;;
    log) cat "$FAKE_LOG" >&2; cp "$FAKE_PTX" "$keep/fake.ptx"; : >"$out" ;;
esac
SH
chmod +x "$work/fake-nvcc"

cat >"$work/asks_nothing.cu" <<'CU'
#include <cstdio>
#include <cuda_runtime.h>
/* the occupancy API is not used here:
 * cudaOccupancyMaxActiveBlocksPerMultiprocessor, cudaFuncGetAttributes */
// nor cudaFuncSetAttribute
__global__ void twice(float *p) { p[threadIdx.x] *= 2; }
int main() { float *p; cudaMalloc(&p, 128); twice<<<1, 32>>>(p); return cudaDeviceSynchronize() != cudaSuccess; }
CU
cat >"$work/asks.cu" <<'CU'
#include <cstdio>
#include <cuda_runtime.h>
__global__ void many(float *out, const float *in, int n)
{
    float r[64];
#pragma unroll
    for (int i = 0; i < 64; i++) r[i] = in[i * n + threadIdx.x];
#pragma unroll
    for (int k = 0; k < 8; k++)
#pragma unroll
        for (int i = 0; i < 64; i++) r[i] = r[i] * r[(i + k) % 64] + r[(i * 3 + k) % 64];
    float s = 0;
#pragma unroll
    for (int i = 0; i < 64; i++) s += r[i];
    out[threadIdx.x] = s;
}
__global__ void tile(float *out) { __shared__ float t[32][33]; t[threadIdx.y][threadIdx.x] = out[threadIdx.x]; __syncthreads(); out[threadIdx.x] = t[threadIdx.x][threadIdx.y]; }
__global__ void frame(float *out, const float *in, int j) { float a[256]; for (int i = 0; i < 256; i++) a[i] = in[i]; out[0] = a[j & 255]; }
template <class F> void show(const char *name, F f)
{
    cudaFuncAttributes a;
    cudaFuncGetAttributes(&a, f);
    printf("%s %d %zu %zu %d\n", name, a.numRegs, a.sharedSizeBytes, a.localSizeBytes, a.maxThreadsPerBlock);
}
int main() { show("_Z4manyPfPKfi", many); show("_Z4tilePf", tile); show("_Z5framePfPKfi", frame); }
CU

# build NAME [ENV...]: builds $work/NAME.cu into $work/NAME, stderr in $work/NAME.err; 0 if built.
build() {
    local name=$1
    shift
    env "$@" FAKE_CALLS="$work/calls" common/emu/emu-nvcc -o "$work/$name" "$work/$name.cu" 2>"$work/$name.err"
}

# A file that asks nothing: nvcc never runs.
rm -f "$work/calls"
if build asks_nothing CUDA_NVCC="$work/fake-nvcc" FAKE=fail && [ ! -e "$work/calls" ]; then
    ok "a file that asks nothing (its comments name the API) builds without running nvcc"
else
    bad "asks_nothing: built $([ -x "$work/asks_nothing" ] && echo yes || echo no), nvcc ran: $(cat "$work/calls" 2>/dev/null)"
fi

# A question in a header the file includes with quotes counts; a header an earlier compile of
# the same object read, and this one does not, does not.
cat >"$work/asks.cuh" <<'CU'
inline int per_sm(const void *k) { int n = 0; cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, k, 32, 0); return n; }
CU
printf '#include <cuda_runtime.h>\n#include "asks.cuh"\n__global__ void k(float *p) { p[0] = 1; }\nint main() { return per_sm((const void *)k) < 1; }\n' >"$work/via_header.cu"
rm -f "$work/calls"
env CUDA_NVCC="$work/fake-nvcc" FAKE=fail FAKE_CALLS="$work/calls" common/emu/emu-nvcc -c "$work/via_header.cu" -o "$work/same.o" 2>/dev/null
ran_for_header=$([ -s "$work/calls" ] && echo yes)
rm -f "$work/calls"
env CUDA_NVCC="$work/fake-nvcc" FAKE=fail FAKE_CALLS="$work/calls" common/emu/emu-nvcc -c "$work/asks_nothing.cu" -o "$work/same.o" 2>/dev/null
if [ "$ran_for_header" = yes ] && [ ! -e "$work/calls" ]; then
    ok "a question in a quoted header asks; the headers of an earlier compile of the object do not"
else
    bad "headers: nvcc ran for the header's question: ${ran_for_header:-no}; for the next file into the same object: $([ -e "$work/calls" ] && echo yes || echo no)"
fi

# nvcc fails, or hangs: the file builds as before, with a note.
rm -f "$work/calls"
if build asks CUDA_NVCC="$work/fake-nvcc" FAKE=fail && [ -s "$work/calls" ] &&
    grep -q "emu-nvcc: note: nvcc could not build .*asks.cu for sm_90 (fake.cu(3): error" "$work/asks.err" &&
    [ "$("$work/asks" | head -1)" = "_Z4manyPfPKfi 32 0 0 1024" ] &&
    ! grep -qE -- '-keep-dir [^ ]*\.d( |$)' "$work/calls"; then
    ok "nvcc fails: built, 32 registers as before, and a note naming nvcc's error (its files kept in no folder named *.d, which emu.mk would read as a makefile)"
else
    bad "nvcc fails: $(cat "$work/asks.err")"
fi
start=$(date +%s)
if build asks CUDA_NVCC="$work/fake-nvcc" FAKE=hang EMU_FIGURES_TIMEOUT=1 &&
    grep -q "it took more than 1 s" "$work/asks.err" && [ $(($(date +%s) - start)) -lt 20 ]; then
    ok "nvcc hangs: stopped after EMU_FIGURES_TIMEOUT, built as before"
else
    bad "nvcc hangs: $(cat "$work/asks.err")"
fi

# A hostile log: a name that is no identifier is dropped, one g++ never made resolves to nothing,
# and the kernel's own line is taken as it stands.
cat >"$work/hostile.log" <<'LOG'
ptxas info    : Compiling entry function 'x")));int main(){system("id");}//' for 'sm_90'
ptxas info    : Used 99 registers, used 0 barriers
ptxas info    : Compiling entry function '_Z7missingv' for 'sm_90'
ptxas info    : Used 40 registers, used 0 barriers
ptxas info    : Compiling entry function '_Z4manyPfPKfi' for 'sm_90'
ptxas info    : Function properties for _Z4manyPfPKfi
    48 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 200 registers, used 0 barriers, 999999999999 bytes smem
LOG
printf '.visible .entry _Z4manyPfPKfi(\n.maxntid 640, 1, 1\n{\n}\n' >"$work/hostile.ptx"
if build asks CUDA_NVCC="$work/fake-nvcc" FAKE=log FAKE_LOG="$work/hostile.log" FAKE_PTX="$work/hostile.ptx" &&
    [ "$("$work/asks" | head -1)" = "_Z4manyPfPKfi 32 0 0 1024" ]; then
    ok "a hostile log: built; a figure out of range (the shared bytes) leaves the kernel's row out"
else
    bad "hostile log: $("$work/asks" 2>&1 | head -1); $(cat "$work/asks.err")"
fi
sed -i 's/999999999999 bytes smem/4224 bytes smem/' "$work/hostile.log"
if build asks CUDA_NVCC="$work/fake-nvcc" FAKE=log FAKE_LOG="$work/hostile.log" FAKE_PTX="$work/hostile.ptx" &&
    [ "$("$work/asks" | head -1)" = "_Z4manyPfPKfi 200 4224 48 256" ]; then
    ok "a log's figures taken for the kernel they name: 200 registers a thread leave a block 256 threads (10 warps' worth, rounded down to four warps: 8), below .maxntid's 640"
else
    bad "log's figures: $("$work/asks" 2>&1 | head -1); $(cat "$work/asks.err")"
fi

# A table that does not compile (the file has a name the table uses) is dropped, with a note.
sed 's/^int main/int cuda_emu_figures; int main/' "$work/asks.cu" >"$work/clash.cu"
if build clash CUDA_NVCC="$work/fake-nvcc" FAKE=log FAKE_LOG="$work/hostile.log" FAKE_PTX="$work/hostile.ptx" &&
    grep -q "nvcc's figures for .*clash.cu did not compile here" "$work/clash.err" &&
    [ "$("$work/clash" | head -1)" = "_Z4manyPfPKfi 32 0 0 1024" ]; then
    ok "a table that does not compile: dropped, the file built as before"
else
    bad "clash: $(cat "$work/clash.err")"
fi

# NVIDIA's nvcc: each kernel's figures are ptxas's (and cuobjdump's, where it is found).
if [ -z "$real_nvcc" ]; then
    skip=$((skip + 1)); echo "skip nvcc's own figures: no nvcc"
elif ! build asks CUDA_NVCC="$real_nvcc"; then
    bad "asks with nvcc: $(cat "$work/asks.err")"
else
    "$real_nvcc" -cubin -arch=sm_90 -std=c++17 -w -Xptxas -v "$work/asks.cu" -o "$work/asks.cubin" >"$work/ptxas.txt" 2>&1
    [ -n "$cuobjdump" ] && "$cuobjdump" -res-usage "$work/asks.cubin" >"$work/res.txt" 2>/dev/null
    while read -r name regs shared stack max; do
        want=$(awk -v k="$name" '
            $0 ~ "Compiling entry function \047" k "\047" { on = 1; next }
            on && /bytes stack frame/ { frame = $1 }
            on && /Used [0-9]+ registers/ {
                match($0, /Used [0-9]+/); r = substr($0, RSTART + 5, RLENGTH - 5)
                s = 0; if (match($0, /[0-9]+ bytes smem/)) s = substr($0, RSTART, RLENGTH - 11)
                print r, s, frame + 0; exit }' "$work/ptxas.txt")
        if [ "$regs $shared $stack" = "$want" ]; then
            ok "nvcc: $name: $regs registers, $shared static shared bytes, $stack local bytes, as ptxas says; $max threads a block"
        else
            bad "nvcc: $name: the emulator reports '$regs $shared $stack', ptxas '$want'"
        fi
        if [ -s "${work}/res.txt" ]; then
            got=$(awk -v k="$name" '$0 ~ "Function " k ":" { getline; sub(/.*REG:/, ""); print $1 + 0 }' "$work/res.txt")
            [ "$got" = "$regs" ] && ok "cuobjdump: $name: REG:$got" || bad "cuobjdump: $name: REG:$got, the emulator $regs"
        fi
    done < <("$work/asks")
fi

echo "figures: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
