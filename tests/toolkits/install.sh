#!/usr/bin/env bash
# install.sh - an older CUDA toolkit (12.4 or 11.8), put together inside the checkout so that
# the workbook's build can be tested with it (make test-toolkits), without installing
# anything system-wide.
#
#   tests/toolkits/install.sh 12.4|11.8 [--pack]     prints the toolkit's folder (CUDA_HOME)
#
# NVIDIA's PyPI wheels carry the runtime, the headers (CUDA runtime, CCCL, cuBLAS) and cuBLAS,
# but not the compiler driver: nvcc, cicc, cudafe++, fatbinary and nvlink come from Debian's
# non-free nvidia-cuda-toolkit package of the same release (the .deb is unpacked, never
# installed; the .post1 CCCL wheels replace releases that lacked headers). Every file is pinned by version and SHA-256 and kept in .toolkits/cache, so a
# second run downloads nothing; the toolkit itself lands in .toolkits/cuda-VERSION.
#
# --pack leaves out what a GPU machine with CUDA 13 already has (cuBLAS's libraries, cuobjdump
# and nvdisasm, the driver's libcuda stub): tests/toolkits/fetch-for-gpu.sh packs that and
# tests/toolkits/gpu-selfcheck.sh links those pieces to the machine's own.
#
# Exit status: 0 installed (or already there), 1 a download or check failed (the message says
# which file, from where, and what to try).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
ver=${1:-}
pack=0
[ "${2:-}" != --pack ] || pack=1
TOOLKITS_DIR=${TOOLKITS_DIR:-$root/.toolkits}
cache=$TOOLKITS_DIR/cache
DEBIAN_MIRRORS=${DEBIAN_MIRRORS:-"http://deb.debian.org/debian http://archive.debian.org/debian"}

die() { echo "error: $*" >&2; exit 1; }

# ---- the pins: Debian's compiler package, and the wheels (name==version sha256) -------------
case $ver in
12.4)
    deb=pool/non-free/n/nvidia-cuda-toolkit/nvidia-cuda-toolkit_12.4.131~12.4.1-2_amd64.deb
    deb_sha=cd5fe85aee38d108b315f408a688641478f2402622a10c677478eb7a6c4e5319
    deb_from="Debian 13 (trixie) non-free"
    cudart=libcudart.so.12
    wheels=(
        "nvidia-cuda-nvcc-cu12==12.4.131 e4c9a35435c3b0e36c6397c5696334c9ea6650e524736cbd1c5d345ea099bb04"
        "nvidia-cuda-runtime-cu12==12.4.127 64403288fa2136ee8e467cdc9c9427e0434110899d07c779f25b5c068934faa5"
        "nvidia-cuda-cccl-cu12==12.4.127.post1 2027fa5fc75fbee703bf24e8275a40a605cf94a3e8fef8a7187897d49b34facb"
        "nvidia-cublas-cu12==12.4.5.8 2fc8da60df463fdefa81e323eef2e36489e1c94335b5358bcb38360adf75ac9b"
        "nvidia-cuda-profiler-api-cu12==12.4.127 7d80d1d8cfedc4b31b3df260f75e339a51322b25ff41f2a47edb5b2139b8a58f"
    ) ;;
11.8)
    deb=pool/non-free/n/nvidia-cuda-toolkit/nvidia-cuda-toolkit_11.8.89~11.8.0-5~deb12u1_amd64.deb
    deb_sha=d1156026e704fe0368b6295db06224ed00a727966fb13454f34e3f3102db0457
    deb_from="Debian 12 (bookworm) non-free"
    cudart=libcudart.so.11.0
    wheels=(
        "nvidia-cuda-nvcc-cu11==11.8.89 f8e1e995166c884f2f5bf94975d7abb89175363b8712f7f81cd38d0df1b2cd85"
        "nvidia-cuda-runtime-cu11==11.8.89 92d04069a987e1fbc9213f8376d265df0f7bb42617d44f5eda1f496acea7f2d1"
        "nvidia-cuda-cccl-cu11==11.8.89.post1 646c7843c50b0267043f2c071183c7fe57269ac871c970c6de63b19fe1c6229e"
        "nvidia-cublas-cu11==11.11.3.6 60252822adea5d0b10cd990a7dc7bedf7435f30ae40083c7a624a85a43225abc"
        "nvidia-cuda-profiler-api-cu11==11.8.86 db82fc48aef5f88df82cae279bcf2db9fe599faea1d7647777a72eee139c8133"
    ) ;;
*)
    die "install.sh installs CUDA 12.4 or 11.8 (got '${ver}'); usage: tests/toolkits/install.sh 12.4|11.8 [--pack]" ;;
esac
[ "$(uname -m)" = x86_64 ] || die "these toolkits are x86-64 builds; this machine is $(uname -m)"

dest=$TOOLKITS_DIR/cuda-$ver
[ $pack = 0 ] || dest=$dest-pack
pins=$(printf '%s\n' "$deb_sha" "${wheels[@]}" "pack=$pack" "$(sha256sum "$0" | cut -c1-64)")
if [ -f "$dest/.installed" ] && [ "$(cat "$dest/.installed")" = "$pins" ]; then
    echo "$dest"
    exit 0
fi

# ---- downloads (cached) ---------------------------------------------------------------------
mkdir -p "$cache"
debfile=$cache/$(basename "$deb")
if ! echo "$deb_sha  $debfile" | sha256sum -c --status 2>/dev/null; then
    command -v curl >/dev/null || die "curl is needed to download $(basename "$deb"); install curl (apt-get install curl)"
    got=""
    for m in $DEBIAN_MIRRORS; do
        if curl -fsSL --retry 2 -o "$debfile.part" "$m/$deb"; then got=$m; break; fi
    done
    [ -n "$got" ] || die "could not download $deb from $deb_from ($DEBIAN_MIRRORS): check the network, or set DEBIAN_MIRRORS to a Debian mirror that still has it"
    mv "$debfile.part" "$debfile"
    echo "$deb_sha  $debfile" | sha256sum -c --status ||
        die "$debfile from $got: expected SHA-256 $deb_sha, found $(sha256sum "$debfile" | cut -c1-64); delete it and run again (a changed file is not used)"
fi

# pip checks each wheel's hash itself (--require-hashes), and keeps a matching file it finds.
req=$(mktemp)
trap 'rm -f "$req"' EXIT
for w in "${wheels[@]}"; do
    name=${w%% *}
    echo "$name --hash=sha256:${w##* }"
done > "$req"
python3 -m pip --version >/dev/null 2>&1 || die "python3 -m pip is needed to download NVIDIA's wheels (${wheels[*]%% *}); install python3-pip"
if ! python3 -m pip download -q --no-deps --require-hashes --only-binary=:all: -d "$cache" -r "$req" >"$cache/pip.log" 2>&1; then
    sed 's/^/    /' "$cache/pip.log" >&2
    die "pip could not download the pinned CUDA $ver wheels from PyPI (see above): check the network or the proxy (pip config), then run again"
fi

# ---- the toolkit: NVIDIA's usual layout, so that nvcc finds everything beside itself --------
tmp=$dest.tmp
rm -rf "$tmp" "$dest"
mkdir -p "$tmp"/{bin/crt,nvvm/bin,nvvm/libdevice,include,lib64/stubs,x}
command -v dpkg-deb >/dev/null || die "dpkg-deb is needed to unpack $(basename "$deb") (Debian's dpkg package)"
dpkg-deb -x "$debfile" "$tmp/x/deb"
d=$tmp/x/deb/usr
cp "$d/lib/nvidia-cuda-toolkit/bin/nvcc" "$tmp/bin/"
cp "$d/lib/nvidia-cuda-toolkit/bin/crt/"*.stub "$tmp/bin/crt/"
cp "$d/lib/nvidia-cuda-toolkit/bin/cicc" "$tmp/nvvm/bin/"
cp "$d/lib/nvidia-cuda-toolkit/libdevice/libdevice.10.bc" "$tmp/nvvm/libdevice/"
tools="ptxas fatbinary nvlink cudafe++ bin2c"
[ $pack = 1 ] || tools="$tools cuobjdump nvdisasm"
for t in $tools; do cp "$d/bin/$t" "$tmp/bin/"; done

for w in "${wheels[@]}"; do
    name=${w%% *}
    file=$(ls "$cache"/"$(echo "${name%%==*}" | tr - _)"-"${name##*==}"-*.whl)
    # Each wheel has nvidia/PACKAGE/include and lib (--pack: cuBLAS's headers only, not its
    # 550 MB of libraries).
    parts=('nvidia/*/include/*' 'nvidia/*/lib/*')
    case $name in nvidia-cublas-*) [ $pack = 0 ] || parts=('nvidia/*/include/*') ;; esac
    # (exit status 11: a pattern matched nothing, such as a wheel of headers with no lib/)
    unzip -qq -o "$file" "${parts[@]}" -d "$tmp/x/whl" || [ $? = 11 ] ||
        die "could not unpack $file: delete it and run again"
done
for pkg in "$tmp"/x/whl/nvidia/*/; do
    if [ -d "$pkg/include" ]; then cp -r "$pkg/include/." "$tmp/include/"; fi
    if [ -d "$pkg/lib" ]; then cp -r "$pkg/lib/." "$tmp/lib64/"; fi
done
find "$tmp/include" "$tmp/lib64" -name __init__.py -delete
rm -rf "$tmp"/lib64/libOpenCL* "$tmp"/lib64/libnvblas* "$tmp"/lib64/cmake
ln -s "$cudart" "$tmp/lib64/libcudart.so"
if [ $pack = 1 ]; then
    rm -f "$tmp"/lib64/libcublas*
else
    for l in "$tmp"/lib64/libcublas*.so.*; do ln -s "$(basename "$l")" "${l%.so.*}.so"; done
fi
# nvcc names libcudadevrt on every link; it only serves device code compiled with -rdc (device
# calls across files, dynamic parallelism), which the workbook never uses, and these wheels do
# not carry it. An archive of one empty host object satisfies the name (nvlink skips an
# archive with no members as incompatible, with a warning); a link that needed it fails.
printf '/* libcudadevrt stand-in: no symbols (tests/toolkits/install.sh) */\n' > "$tmp/x/devrt.c"
"${CC:-cc}" -c "$tmp/x/devrt.c" -o "$tmp/x/devrt.o"
ar rc "$tmp/lib64/libcudadevrt.a" "$tmp/x/devrt.o"
# The driver API (libcuda) belongs to the driver, not to a toolkit release: any toolkit's stub
# (or the driver itself) serves the link.
if [ $pack = 0 ]; then
    stub=""
    for s in "${CUDA_STUB:-}" /usr/local/cuda/lib64/stubs/libcuda.so /usr/local/cuda/targets/x86_64-linux/lib/stubs/libcuda.so \
             /usr/lib/x86_64-linux-gnu/libcuda.so.1 /usr/lib64/libcuda.so.1; do
        [ -n "$s" ] && [ -f "$s" ] && { stub=$s; break; }
    done
    [ -n "$stub" ] || die "no libcuda to link against (looked in /usr/local/cuda/lib64/stubs and the driver's folders): install any CUDA toolkit or the NVIDIA driver, or set CUDA_STUB=/path/to/libcuda.so"
    ln -s "$stub" "$tmp/lib64/stubs/libcuda.so"
fi

cat > "$tmp/bin/nvcc.profile" <<'EOF'
# nvcc.profile - written by tests/toolkits/install.sh: this folder is laid out like NVIDIA's
# toolkit (bin, nvvm, include, lib64).
TOP              = $(_HERE_)/..
CICC_PATH        = $(TOP)/nvvm/bin
NVVMIR_LIBRARY_DIR = $(TOP)/nvvm/libdevice
LD_LIBRARY_PATH += $(TOP)/lib64:
PATH            += $(CICC_PATH):$(_HERE_):
INCLUDES        +=  "-I$(TOP)/include" $(_SPACE_)
LIBRARIES        =+ $(_SPACE_) "-L$(TOP)/lib64/stubs" "-L$(TOP)/lib64"
CUDAFE_FLAGS    +=
PTXAS_FLAGS     +=
EOF
rm -rf "$tmp/x"
"$tmp/bin/nvcc" --version | grep -q "release $ver," ||
    die "the unpacked nvcc does not report release $ver: $("$tmp/bin/nvcc" --version 2>&1 | tail -2 | tr '\n' ' ')"
echo "$pins" > "$tmp/.installed"
mv "$tmp" "$dest"
echo "$dest"
