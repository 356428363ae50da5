#!/usr/bin/env bash
# probe.sh - what a CUDA program needs from the file system, and whether it runs in the views
# the grader's sandbox makes: a fresh root of read-only binds in new namespaces, and (with no
# namespaces) Landlock as another uid. Writes logs under $OUT; prints one line per view.
set -u
cd "$(dirname "$0")"
OUT=${OUT:-/tmp/sandbox-probe}; mkdir -p "$OUT"
uname -a; id
nvcc -O2 -o /tmp/probe probe.cu -lcuda || exit 1
cc -O2 -o /tmp/ll-exec landlock-exec.c || exit 1
cat > /tmp/abi.c <<'C'
#include <stdio.h>
#include <unistd.h>
#include <sys/syscall.h>
int main(void){ printf("landlock abi: %ld\n", syscall(444, 0, 0, 1)); return 0; }
C
cc /tmp/abi.c -o /tmp/abi && /tmp/abi
grep -E 'Seccomp|CapEff' /proc/self/status
echo "LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}"; ls -d /usr/local/nvidia /usr/local/cuda* 2>/dev/null
ls -la /dev/nvidia* /dev/dri 2>/dev/null
/tmp/probe; echo "plain: rc=$?"
if [ -d ../../../.debs ]; then
    mkdir -p /tmp/st && for f in ../../../.debs/*.deb; do dpkg -x "$f" /tmp/st; done
    LD_LIBRARY_PATH=/tmp/st/usr/lib/x86_64-linux-gnu /tmp/st/usr/bin/strace -f -qq \
        -e trace=open,openat,stat,newfstatat,statx,access,faccessat,faccessat2,readlink,readlinkat,execve \
        -o "$OUT/strace.txt" /tmp/probe
    echo "paths the probe touched (successful opens):"
    grep -v ENOENT "$OUT/strace.txt" | grep -oE '"/[^"]*"' | tr -d '"' | sed -E 's#/proc/[0-9]+#/proc/PID#; s#/dev/nvidia[0-9]+#/dev/nvidiaN#' | sort -u | tee "$OUT/paths.txt"
fi
# A fresh root: tmpfs, read-only binds of the system and the toolkit, /dev with null and the
# GPU's nodes, a new /proc (its own pid namespace), /sys read-only; then another uid.
cat > /tmp/inroot.sh <<'SH'
set -e
r=/tmp/root; mkdir -p $r; mount -t tmpfs -o size=16m root $r
for d in /usr /bin /sbin /lib /lib64 /lib32 /etc/alternatives /usr/local/nvidia $CUDA_DIRS; do
  [ -e "$d" ] || continue; mkdir -p $r$d; mount --bind "$d" $r$d; mount -o remount,bind,ro $r$d; done
for f in /etc/ld.so.cache /etc/ld.so.conf /tmp/probe; do [ -e $f ] || continue; mkdir -p $r$(dirname $f); touch $r$f; mount --bind $f $r$f; done
[ -d /etc/ld.so.conf.d ] && { mkdir -p $r/etc/ld.so.conf.d; mount --bind /etc/ld.so.conf.d $r/etc/ld.so.conf.d; }
mkdir -p $r/dev $r/proc $r/sys $r/tmp
for f in /dev/null /dev/zero /dev/urandom /dev/nvidia*; do [ -c $f ] || continue; touch $r$f; mount --bind $f $r$f; done
[ -d /dev/nvidia-caps ] && { mkdir -p $r/dev/nvidia-caps; mount --rbind /dev/nvidia-caps $r/dev/nvidia-caps; }
mount -t proc proc $r/proc
mount --rbind /sys $r/sys; mount -o remount,bind,ro $r/sys || true
mount -t tmpfs -o size=64m tmp $r/tmp
cd $r; mkdir -p old; pivot_root . old; umount -l /old; rmdir /old
exec setpriv --reuid=65534 --regid=65534 --clear-groups --no-new-privs /tmp/probe
SH
CUDA_DIRS="$(dirname $(dirname $(readlink -f $(command -v nvcc))))" unshare -mpf --propagation private bash /tmp/inroot.sh
echo "fresh root, pid namespace, uid 65534: rc=$?"
# No namespaces: Landlock, uid 65534; the paths a CUDA program needs
lib=$(dirname $(dirname $(readlink -f $(command -v nvcc))))
/tmp/ll-exec -u 65534 -r /usr -r /lib -r /lib64 -r /bin -r /etc/ld.so.cache -r /etc/ld.so.conf.d -r /tmp/probe \
    -r /usr/local/nvidia -r "$lib" -w /dev/null -w /dev/nvidiactl -w /dev/nvidia-uvm -w /dev/nvidia-uvm-tools -w /dev/nvidia0 \
    -r /sys -r /proc/driver/nvidia -r /proc/self -r /proc/cpuinfo -r /proc/meminfo -r /proc/sys/vm -r /proc/devices -w /tmp -- /tmp/probe
echo "landlock, uid 65534: rc=$?"
