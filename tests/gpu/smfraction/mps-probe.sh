#!/usr/bin/env bash
# mps-probe.sh - does this GPU's driver honour MPS's active-thread percentage, and does it
# reach a process inside the grader's sandbox? One line per setting.
set -u
cd "$(dirname "$0")"
nvcc -O2 -arch=native -o /tmp/sm-probe sm-probe.cu || exit 1
/tmp/sm-probe | sed 's/^/no MPS:          /'
command -v nvidia-cuda-mps-control >/dev/null || { echo "no nvidia-cuda-mps-control here"; ls /usr/bin | grep -i mps; exit 0; }
export CUDA_MPS_PIPE_DIRECTORY=/var/tmp/mps-pipe CUDA_MPS_LOG_DIRECTORY=/var/tmp/mps-log
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
nvidia-cuda-mps-control -d && echo "MPS daemon started"
for pct in 100 50 25 12; do
    CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=$pct /tmp/sm-probe | sed "s/^/MPS $pct%:  /"
done
echo set_default_active_thread_percentage 25 | nvidia-cuda-mps-control
/tmp/sm-probe | sed "s/^/MPS default 25%: /"
echo get_default_active_thread_percentage | nvidia-cuda-mps-control
echo quit | nvidia-cuda-mps-control; sleep 1
tail -5 $CUDA_MPS_LOG_DIRECTORY/control.log 2>/dev/null
