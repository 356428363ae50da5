# probe-common.sh - sourced: PROBE_COMMON, the common/ sources a GPU probe of tests/gpu links
# (tests/gpu/probe.h says what it uses of them); one list for run-all.sh's probes and numa.sh.
# shellcheck shell=bash disable=SC2034
PROBE_COMMON="common/timing.cu common/timing_rule.c common/device.cu common/device_info.c common/stats.c common/util.c common/check.cu"
