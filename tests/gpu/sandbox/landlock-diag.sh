#!/usr/bin/env bash
# What the CUDA driver is refused under Landlock: the probe under landlock-exec, traced with
# strace -Z (failing calls only).
set -u
cd "$(dirname "$0")"
OUT=${OUT:-/tmp}
nvcc -O2 -o /tmp/probe probe.cu -lcuda && cc -O2 -o /tmp/ll-exec landlock-exec.c || exit 1
mkdir -p /tmp/st && for f in ../../../.debs/*.deb; do dpkg -x "$f" /tmp/st; done
lib=$(dirname $(dirname $(readlink -f $(command -v nvcc))))
for u in 0 65534; do
LD_LIBRARY_PATH=/tmp/st/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-} /tmp/st/usr/bin/strace -f -Z -qq -o $OUT/ll-$u.txt \
  /tmp/ll-exec -u $u -r /usr -r /lib -r /lib64 -r /bin -r /etc/ld.so.cache -r /etc/ld.so.conf.d -r /tmp/probe \
    -r /usr/local/nvidia -r "$lib" -w /dev/null -w /dev/nvidiactl -w /dev/nvidia-uvm -w /dev/nvidia-uvm-tools -w /dev/nvidia0 \
    -r /sys -r /proc/driver/nvidia -r /proc/self -r /proc/cpuinfo -r /proc/meminfo -r /proc/sys/vm -r /proc/devices -w /tmp -- /tmp/probe
echo "uid $u: rc=$?"; grep -v ENOENT $OUT/ll-$u.txt | grep -v "^.*resumed" | head -30
done
