#!/bin/sh
# check-toolkit.sh - can this nvcc build the workbook? Its release must be 11.8 or newer, and it
# must accept its host compiler (each CUDA release takes a range of gcc and clang versions).
# One line per problem: what was found, what is needed, what to do. Run by the Makefile's
# `toolkit` step before anything is compiled, and by make doctor.
#
#   grader/make/check-toolkit.sh NVCC [--quiet]
#
# NVCC_CCBIN (the host compiler nvcc should use) reaches nvcc through NVCC_PREPEND_FLAGS,
# which the Makefile exports. Prints "nvcc RELEASE, host compiler VERSION" unless --quiet.
# Exit status: 0 usable, 2 not.
#
# TOOLKIT_STAMP=FILE (the Makefile's build/gen/toolkit.ok): with --quiet, a pass is written
# there with what the checks looked at (the files of nvcc and of the host compiler: device,
# inode, size, times; NVCC_CCBIN and NVCC_PREPEND_FLAGS), and while all of it is the same the
# checks are not run again: every make grade passes through here, and the checks run nvcc's
# preprocessor (tens of milliseconds).
nvcc=$1
quiet=${2:-}
MIN_MAJOR=11 MIN_MINOR=8

# The host compiler nvcc uses: NVCC_CCBIN, else gcc/g++ on PATH (nvcc's default on Linux).
host=${NVCC_CCBIN:-g++}
key=""
if [ -n "${TOOLKIT_STAMP:-}" ] && [ "$quiet" = --quiet ]; then
    nvcc_path=$(command -v "$nvcc" 2>/dev/null) host_path=$(command -v "$host" 2>/dev/null)
    key=$(stat -L -c '%d %i %s %Y %Z %n' "$nvcc_path" "$host_path" 2>/dev/null) &&
        key="$key
NVCC_CCBIN=${NVCC_CCBIN:-} NVCC_PREPEND_FLAGS=${NVCC_PREPEND_FLAGS:-}" || key=""
    [ -n "$key" ] && [ "$(cat "$TOOLKIT_STAMP" 2>/dev/null)" = "$key" ] && exit 0
fi

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

# (nvcc 12.9 and later read NVCC_CCBIN themselves, and take an empty one for a name.)
if [ -n "${NVCC_CCBIN:-}" ]; then
    case " ${NVCC_PREPEND_FLAGS:-} " in *" -ccbin=$NVCC_CCBIN "*) ;;
    *) NVCC_PREPEND_FLAGS="-ccbin=$NVCC_CCBIN ${NVCC_PREPEND_FLAGS:-}"; export NVCC_PREPEND_FLAGS ;; esac
else
    unset NVCC_CCBIN
fi
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
if [ -n "$key" ]; then # (written beside it, then renamed: a make beside this one reads it whole)
    mkdir -p "$(dirname "$TOOLKIT_STAMP")" && printf '%s\n' "$key" >"$TOOLKIT_STAMP.$$" &&
        mv -f "$TOOLKIT_STAMP.$$" "$TOOLKIT_STAMP" || rm -f "$TOOLKIT_STAMP.$$"
fi
exit 0
