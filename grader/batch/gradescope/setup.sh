#!/usr/bin/env bash
# setup.sh - Gradescope runs this once, as root, to build the autograder image (Ubuntu).
#
# Grading on Gradescope checks correctness on the CPU emulator (Gradescope has no GPU); speed
# is graded on a GPU, by the instructor's `make grade-batch` or by students' `make grade`.
# The emulator needs gcc/g++ (with their sanitizer runtimes), make, binutils and python3.
# nvcc is installed as well, so that the same folder also builds the GPU runners: from
# NVIDIA's apt repository (cuda-nvcc for CUDA 13.0) where the image's Ubuntu release has one,
# else the distribution's nvidia-cuda-toolkit. Grading here does not depend on it.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq build-essential make binutils python3 pkg-config ca-certificates wget

. /etc/os-release
repo="ubuntu${VERSION_ID//./}"
if wget -q -O /tmp/cuda-keyring.deb \
    "https://developer.download.nvidia.com/compute/cuda/repos/$repo/x86_64/cuda-keyring_1.1-1_all.deb" &&
    dpkg -i /tmp/cuda-keyring.deb && apt-get update -qq &&
    apt-get install -y -qq cuda-nvcc-13-0 cuda-cudart-dev-13-0; then
    ln -sfn /usr/local/cuda-13.0 /usr/local/cuda
    echo "nvcc from NVIDIA's repository: $(/usr/local/cuda/bin/nvcc --version | tail -1)"
elif apt-get install -y -qq nvidia-cuda-toolkit; then
    echo "nvcc from $PRETTY_NAME: $(nvcc --version | tail -1)"
else
    echo "note: no nvcc could be installed; the CPU emulator grades without it"
fi

# Build everything the grading shares once, here, so each submission only builds its own file.
cd /autograder/source/workbook
. /autograder/source/kit.conf
make -s --no-print-directory build/host/grade-batch
make -s --no-print-directory batch-prebuild EMU=1 \
    BATCH_LABS="$(build/host/grade-batch prepare SUBMISSIONS=labs OUT=/tmp/kit-prepare LAB="$LAB" EMU=1 | sed -n 's/^labs //p')"
