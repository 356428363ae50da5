#!/bin/sh
# check-toolkit.sh - can this nvcc build the workbook? Its release must be 11.8 or newer, and it
# must accept its host compiler (each CUDA release takes a range of gcc and clang versions).
# One line per problem: what was found, what is needed, what to do. Run by the Makefile's
# `toolkit` step before anything is compiled, and by make doctor.
#
#   grader/build/check-toolkit.sh NVCC [--quiet]
#
# NVCC_CCBIN (the host compiler nvcc should use) reaches nvcc through NVCC_PREPEND_FLAGS,
# which the Makefile exports. Prints "nvcc RELEASE, host compiler VERSION" unless --quiet.
# Exit status: 0 usable, 2 not.
nvcc=$1
quiet=${2:-}
MIN_MAJOR=11 MIN_MINOR=8

release=$("$nvcc" --version 2>/dev/null | sed -n 's/.*release \([0-9][0-9]*\.[0-9][0-9]*\).*/\1/p')
if [ -z "$release" ]; then
    echo "error: $nvcc does not run or report a release (nvcc --version): expected the CUDA toolkit's nvcc; reinstall the toolkit, or point CUDA_HOME at another one" >&2
    exit 2
fi
major=${release%%.*} minor=${release#*.}
if [ "$major" -lt $MIN_MAJOR ] || { [ "$major" -eq $MIN_MAJOR ] && [ "$minor" -lt $MIN_MINOR ]; }; then
    echo "error: nvcc $release ($nvcc) is too old: the workbook needs CUDA $MIN_MAJOR.$MIN_MINOR or newer; install a newer CUDA toolkit, or point make at one with CUDA_HOME=/path/to/cuda" >&2
    exit 2
fi

# The host compiler nvcc uses: NVCC_CCBIN, else gcc/g++ on PATH (nvcc's default on Linux).
# (nvcc 12.9 and later read NVCC_CCBIN themselves, and take an empty one for a name.)
if [ -n "${NVCC_CCBIN:-}" ]; then
    case " ${NVCC_PREPEND_FLAGS:-} " in *" -ccbin=$NVCC_CCBIN "*) ;;
    *) NVCC_PREPEND_FLAGS="-ccbin=$NVCC_CCBIN ${NVCC_PREPEND_FLAGS:-}"; export NVCC_PREPEND_FLAGS ;; esac
else
    unset NVCC_CCBIN
fi
host=${NVCC_CCBIN:-g++}
host_version=$("$host" --version 2>/dev/null | head -1)
if [ -z "$host_version" ]; then
    echo "error: nvcc $release needs a host C++ compiler and '$host' does not run$([ -n "${NVCC_CCBIN:-}" ] && echo " (NVCC_CCBIN)"): install g++, or name another with make NVCC_CCBIN=/path/to/g++" >&2
    exit 2
fi
# nvcc's own check: its host_config.h refuses a compiler version its release does not support.
out=$("$nvcc" -E -x cu /dev/null -o /dev/null 2>&1)
if [ $? -ne 0 ]; then
    why=$(echo "$out" | sed -n 's/.*#error -- \(.*\)! The nvcc flag.*/\1/p' | head -1)
    [ -n "$why" ] || why=$(echo "$out" | grep -m1 -i 'error\|fatal' | sed 's/^ *//')
    echo "error: nvcc $release rejects the host compiler $host ($host_version): $why; install a g++ this CUDA release supports and pass it with make NVCC_CCBIN=g++-N, or use a newer CUDA toolkit" >&2
    exit 2
fi
[ "$quiet" = --quiet ] || echo "nvcc $release ($nvcc), host compiler $host: $host_version"
exit 0
