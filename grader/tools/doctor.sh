#!/bin/sh
# doctor.sh - `make doctor`: is this machine ready for the workbook? Reports the CUDA toolkit,
# the driver, the GPU(s) and their compute capability and clocks, other processes on the GPU,
# whether profiler counters are permitted, and the optional tools; every missing piece comes
# with the fix. Works without a GPU (it says so and points to the CPU emulator).
#
#   grader/tools/doctor.sh          (NVCC, CUDA_HOME from the environment, like the Makefile)
#
# Exit status: 0 when make grade works here (on the GPU, or on the CPU emulator where there is
# none: then the last line says what timing speed needs), 2 when it cannot (the toolkit, the
# host compilers or the emulator's sanitizer libraries missing, a GPU the workbook cannot use).
# Lines: "ok", "--" (missing, optional: what it is for), "!!" (a problem, with its fix).
set -u
problems=0
ok() { printf 'ok   %-22s %s\n' "$1" "$2"; }
opt() { printf -- '--   %-22s %s\n' "$1" "$2"; }
bad() { printf '!!   %-22s %s\n' "$1" "$2"; problems=$((problems + 1)); }

# ---- toolkit --------------------------------------------------------------------------------
nvcc=""
if [ -n "${CUDA_HOME:-}" ] && [ -x "$CUDA_HOME/bin/nvcc" ]; then nvcc=$CUDA_HOME/bin/nvcc
elif command -v nvcc >/dev/null 2>&1; then nvcc=$(command -v nvcc)
elif [ -x /usr/local/cuda/bin/nvcc ]; then nvcc=/usr/local/cuda/bin/nvcc; fi
if [ -n "$nvcc" ]; then
    ver=$("$nvcc" --version 2>/dev/null | sed -n 's/.*release \([0-9.]*\).*/\1/p')
    home=$(cd "$(dirname "$nvcc")/.." && pwd)
    ok "CUDA toolkit" "nvcc $ver at $nvcc (CUDA_HOME=${CUDA_HOME:-$home})"
    # (the build's own check: release 11.8 or newer, a host compiler this nvcc accepts)
    why=$("$(dirname "$0")/../make/check-toolkit.sh" "$nvcc" --quiet 2>&1) || bad "toolkit" "${why#error: }"
else
    bad "CUDA toolkit" "no nvcc on PATH, in CUDA_HOME or /usr/local/cuda: install the CUDA Toolkit, or run make CUDA_HOME=/path/to/cuda"
fi
tooldir=${nvcc:+$(dirname "$nvcc")}

# ---- driver and GPUs ------------------------------------------------------------------------
gpu=0
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
    gpu=1
    drv=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -1)
    cuda_drv=$(nvidia-smi 2>/dev/null | sed -n 's/.*CUDA Version: *\([0-9.]*\).*/\1/p' | head -1)
    ok "driver" "$drv (supports CUDA up to ${cuda_drv:-?})"
    nvidia-smi --query-gpu=index,name,compute_cap,memory.total,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw,power.limit \
        --format=csv,noheader 2>/dev/null | while IFS=, read -r i name cc mem sm smmax memclk temp pw pl; do
        ok "GPU $i" "$(echo "$name" | sed 's/^ *//'), compute capability$cc,$mem"
        ok "  clocks" "SM$sm now (max$smmax), memory$memclk;$temp C,$pw of$pl"
        case $(echo "$cc" | tr -d ' ') in
        [0-6].* | 7.[0-4]) bad "  compute capability" "$cc is below 7.5: the workbook needs a T4 / RTX 20xx or newer" ;;
        esac
    done
    procs=$(nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv,noheader 2>/dev/null)
    if [ -n "$procs" ]; then
        opt "other GPU processes" "timings will be noisy while these run:"
        echo "$procs" | sed 's/^/       /'
    else
        ok "other GPU processes" "none: timings will not be disturbed"
    fi
else
    if command -v nvidia-smi >/dev/null 2>&1; then
        opt "GPU" "nvidia-smi lists no GPU (driver not loaded, or no NVIDIA GPU here): speed checks need one"
    else
        opt "GPU" "no nvidia-smi, so no NVIDIA driver here: speed checks need one"
    fi
    echo "     No GPU: make grade checks correctness on the CPU emulator (speed is skipped);"
    echo "     make test needs no GPU. Force the emulator anywhere with EMU=1."
fi

# ---- a process's start, a launch, the copy engines: measured (grader/tools/gpu_probe.cu) ------
# Built here, on a machine with a GPU, once (again when its source changes).
if [ "$gpu" = 1 ] && [ -n "$nvcc" ]; then
    probe_bin=${BUILD:-build}/tools/gpu-probe
    mkdir -p "$(dirname "$probe_bin")"
    if [ ! -x "$probe_bin" ] || [ grader/tools/gpu_probe.cu -nt "$probe_bin" ]; then
        "$nvcc" -O2 -Icommon grader/tools/gpu_probe.cu common/check.cu common/stats.c common/util.c \
            -o "$probe_bin" >"$probe_bin.log" 2>&1 || rm -f "$probe_bin"
    fi
    if [ ! -x "$probe_bin" ]; then
        opt "  launch" "not measured: grader/tools/gpu_probe.cu did not build ($probe_bin.log)"
    elif m=$(timeout 60 "$probe_bin" 2>&1); then
        ls=$(echo "$m" | sed -n 's/^launch_sync_us //p')
        lq=$(echo "$m" | sed -n 's/^launch_queued_us //p')
        ce=$(echo "$m" | sed -n 's/^copy_engines //p')
        cm=$(echo "$m" | sed -n 's/^context_ms //p')
        pg=$(echo "$m" | sed -n 's/^pin_gbps //p')
        ok "  start" "$cm ms for a fresh process's first CUDA call (every speed check starts the student's code afresh); host memory pinned at $pg GB/s (lab 05 pins its arrays)"
        ok "  launch" "$ls us to launch an empty kernel and wait for it; $lq us a launch queued behind others"
        ok "  copy engines" "$ce (a copy to and one from the GPU at once need 2: lab 05)"
    else
        opt "  launch" "not measured: $(echo "$m" | head -1)"
    fi
fi

# ---- the sandbox of student code --------------------------------------------------------------
# What grader/sandbox/sandbox.c will find, asked of its own probe (SANDBOX_RUN, which make doctor builds):
# new namespaces (a view of its own), or Landlock without them.
probe=${SANDBOX_RUN:-build/host/sandbox-run}
kind=$("$probe" --probe 2>/dev/null)
if [ ! -x "$probe" ]; then
    opt "sandbox" "not checked: the grader's probe ($probe) is not built; run make doctor, which builds it"
elif [ "$kind" = namespaces ]; then
    ok "sandbox" "namespaces: student code and its compile get a view of their own"
else
    abi=$(python3 -c 'import ctypes; print(ctypes.CDLL(None).syscall(444, None, 0, 1))' 2>/dev/null)
    if [ "$kind" = landlock ]; then
        ok "sandbox" "Landlock (ABI $abi; new namespaces are refused here, as in many containers): still tamper-proof"
    else
        bad "sandbox" "neither new namespaces nor Landlock: grading works but says it is not tamper-proof. Fix: allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, or kernel.apparmor_restrict_unprivileged_userns=0 on Ubuntu), or run on a kernel with Landlock (5.13 or later, lsm=landlock)"
    fi
fi

# An MPS server sharing the GPU: the sandboxed processes that run student code have IPC and
# mount namespaces (or a view) of their own and cannot join it, so they run beside it on the
# whole GPU while the harness, an MPS client, sees its share (seen on an H200 at 25%: the
# harness read 32 SMs, the workers used 132).
mps=${CUDA_MPS_PIPE_DIRECTORY:-/tmp/nvidia-mps}
if [ -S "$mps/control" ]; then
    opt "MPS" "an MPS server shares this GPU ($mps): sandboxed student code runs outside it, on the whole GPU, while the grader's own process gets MPS's share, so rates and ceilings disagree. Grade with MPS stopped (echo quit | nvidia-cuda-mps-control), or within its share with GRADER_SANDBOX=none (then not tamper-proof)"
fi

# ---- profiler counters ----------------------------------------------------------------------
ncu=""
if command -v ncu >/dev/null 2>&1; then ncu=$(command -v ncu)
elif [ -n "$tooldir" ] && [ -x "$tooldir/ncu" ]; then ncu=$tooldir/ncu; fi
if [ -n "$ncu" ]; then
    ok "Nsight Compute" "$ncu ($("$ncu" --version 2>/dev/null | tail -1))"
else
    opt "Nsight Compute" "ncu not found: make profile needs it (it ships with the CUDA Toolkit, or apt-get install nsight-compute)"
fi
# (NVIDIA_PARAMS: another file to read, for the tests that play a locked-down machine)
restricted=$(sed -n 's/^RmProfilingAdminOnly: *//p' "${NVIDIA_PARAMS:-/proc/driver/nvidia/params}" 2>/dev/null)
if [ "$gpu" = 1 ]; then
    if [ "$restricted" = 1 ] && [ "$(id -u)" != 0 ]; then
        bad "profiler counters" "restricted to administrators (ncu reports ERR_NVGPUCTRPERM). Fix: run make profile as root, or add 'options nvidia NVreg_RestrictProfilingToAdminUsers=0' to a file in /etc/modprobe.d/, then reload the nvidia module (or reboot)"
    elif [ "$restricted" = 1 ]; then
        ok "profiler counters" "restricted to administrators, and you are root: permitted"
    elif [ "$restricted" = 0 ]; then
        ok "profiler counters" "permitted for every user"
    else
        opt "profiler counters" "could not read /proc/driver/nvidia/params; if ncu reports ERR_NVGPUCTRPERM, run as root or set 'options nvidia NVreg_RestrictProfilingToAdminUsers=0' in /etc/modprobe.d/"
    fi
fi

# ---- host compilers: the build's, and the CPU emulator's ---------------------------------------
# The emulator compiles each lab with g++ and links it with AddressSanitizer and UBSan (its
# device code also gets ThreadSanitizer's instrumentation, served by the emulator itself): a
# tiny program built the same way shows whether their libraries are here.
for t in gcc g++ make nm objcopy; do
    if command -v $t >/dev/null 2>&1; then ok "$t" "$(command -v $t)"
    else bad "$t" "not found: the build needs it (apt-get install build-essential binutils)"; fi
done
if command -v g++ >/dev/null 2>&1; then
    probe_dir=$(mktemp -d 2>/dev/null || echo /tmp/doctor.$$)
    mkdir -p "$probe_dir"
    printf 'int main(void) { return 0; }\n' >"$probe_dir/p.cpp"
    if g++ -fsanitize=address,undefined "$probe_dir/p.cpp" -o "$probe_dir/p" >"$probe_dir/log" 2>&1 && "$probe_dir/p"; then
        ok "g++ sanitizers" "$(g++ -dumpfullversion 2>/dev/null || g++ -dumpversion) with AddressSanitizer and UBSan: the CPU emulator can build"
    elif [ "$gpu" = 1 ]; then
        opt "g++ sanitizers" "g++ cannot link -fsanitize=address,undefined: make explain and the emulator need them (apt-get install g++, which brings libasan and libubsan)"
    else
        bad "g++ sanitizers" "g++ cannot link -fsanitize=address,undefined, and the CPU emulator (grading without a GPU) needs them: apt-get install g++ (it brings libasan and libubsan; with another g++, its libasanN and libubsanN)"
    fi
    rm -rf "$probe_dir"
fi

# ---- optional tools -------------------------------------------------------------------------
find_tool() { # find_tool NAME: on PATH or beside nvcc
    if command -v "$1" >/dev/null 2>&1; then command -v "$1"
    elif [ -n "$tooldir" ] && [ -x "$tooldir/$1" ]; then echo "$tooldir/$1"; fi
}
t=$(find_tool compute-sanitizer)
[ -n "$t" ] && ok "compute-sanitizer" "$t" || opt "compute-sanitizer" "not found: make sanitize needs it (part of the CUDA Toolkit)"
t=$(find_tool cuobjdump)
[ -n "$t" ] && ok "cuobjdump" "$t" || opt "cuobjdump" "not found: reading SASS (and vetting lab 09's tensor-core ban) needs it (part of the CUDA Toolkit)"
if pkg-config --exists cunit 2>/dev/null || [ -f /usr/include/CUnit/CUnit.h ]; then
    ok "CUnit" "found: make test can build the unit suites"
else
    opt "CUnit" "not found: make test installs it (apt-get or dnf), or: sudo apt-get install libcunit1-dev"
fi
if command -v pandoc >/dev/null 2>&1 && kpsewhich beamer.cls >/dev/null 2>&1; then
    ok "pandoc + beamer" "$(pandoc --version | head -1): make slides can build the decks"
else
    opt "pandoc + beamer" "make slides needs them: sudo apt-get install pandoc texlive-latex-recommended texlive-pictures texlive-fonts-recommended lmodern librsvg2-bin poppler-utils"
fi
# make test's and the batch's helpers (it installs them itself where it can)
if command -v python3 >/dev/null 2>&1; then
    ok "python3" "$(python3 --version 2>&1): the batch, stop and notebook tests"
else
    opt "python3" "not found: make test's batch, stop and notebook tests need it (apt-get install python3)"
fi
t=$(command -v chromium 2>/dev/null || command -v chromium-browser 2>/dev/null || command -v google-chrome 2>/dev/null)
[ -n "$t" ] && ok "chromium" "$t: the batch test renders the HTML report" ||
    opt "chromium" "not found: make test-batch renders the HTML report with it and installs it when it can (apt-get install chromium)"
if command -v sbatch >/dev/null 2>&1 && command -v munge >/dev/null 2>&1; then
    ok "slurm + munge" "$(command -v sbatch): the batch test runs a Slurm job array"
else
    opt "slurm + munge" "not found: make test-batch runs a Slurm job array with them and installs them when it can (apt-get install slurm-wlm munge)"
fi

echo
if [ -z "$nvcc" ]; then
    echo "doctor: the CUDA toolkit is missing: nothing can be built yet (see above)."
    exit 2
elif [ "$problems" -gt 0 ]; then
    echo "doctor: $problems problem(s) above, each with its fix."
    exit 2
elif [ "$gpu" = 0 ]; then
    echo "doctor: ready for the CPU emulator: make grade checks every case for correctness here."
    echo "        Speed checks need an NVIDIA GPU of compute capability 7.5 or newer (T4, RTX 20xx or later) with its driver."
    exit 0
fi
echo "doctor: ready. Next: make grade"
