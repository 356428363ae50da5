#!/bin/sh
# vet.sh - the friendly first line: admit a student object, or reject it with a clear reason.
#
#   vet.sh LAB OBJECT OUTPUT "ENTRY POINTS" "FORBIDDEN LIBRARIES" "SASS REGEX" [PTX_FILE "PTX REGEX"]
#
# FORBIDDEN LIBRARIES is the lab's rule as its table writes it (grader/labs/NN-name/table.c,
# made into FORBID_<name> by grader/make/lab_manifest.c): library keys of the table below, a colon,
# and what the lab is about instead ("cub thrust cublas: writing the sum yourself"); empty
# when the lab forbids none.
#
# It is not what keeps grading honest: the student's code runs in a sandboxed process of its
# own that holds nothing of the grader (see grader/README.md). Vetting catches, at build time and
# with a message that names the symbol, what the lab does not allow: a missing entry point,
# loading code or starting processes, the CPU emulator's internals, a library that does the
# work (CUB in the reduction, cuBLAS in SGEMM), instructions the lab forbids (tensor cores in
# SGEMM). A lab that forbids instructions needs cuobjdump to read the machine code; without it
# the object is rejected (fail closed), never admitted unread.
#
# Vetting judges what the object uses, never the names it defines: a helper called
# cuChunkFloats, a kernel called DeviceReduceKernel, a struct cutlass_tile or a namespace
# thrust_like are the student's own. An object uses a library when
#   - it calls one of the library's functions: an undefined symbol the library defines
#     (cublasSgemm_v2, cuMemAlloc_v2), which its own code cannot satisfy;
#   - it resolves one at run time by name (cudaGetDriverEntryPoint, cuGetProcAddress: the
#     driver API's functions; dlopen and dlsym are refused in every lab), naming the strings
#     it would resolve where its read-only data shows them;
#   - it holds the library's code compiled from its headers (CUB and Thrust are header-only,
#     so their template instances are defined in the student's object): a definition whose
#     enclosing namespace is the library's own (cub::, thrust::, cutlass::, cute::, nvcuda::,
#     with or without CUB's and Thrust's versioned inline namespace), read from the mangled
#     name, nvcc's kernel stubs, guard variables and function-local statics included. A class
#     or namespace of the student's own named exactly like the library's namespace reads as
#     the library: name it otherwise.
#
# On success OUTPUT is the object with every strong symbol but the entry points made local,
# so no helper name of the student's can meet a name of the shim's.
set -eu
lab=$1 obj=$2 out=$3 entries=$4 forbid=${5:-} sass_forbidden=${6:-}
ptx_file=${7:-} ptx_forbidden=${8:-}
NM=${NM:-nm} OBJCOPY=${OBJCOPY:-objcopy} CUOBJDUMP=${CUOBJDUMP:-cuobjdump}
CXXFILT=${CXXFILT:-c++filt} READELF=${READELF:-readelf}

# reject WHAT [WHAT TO TRY]: the use found, then what to do about it.
reject() {
    echo "rejected: $1" >&2
    echo "rejected: ${2:-lab $lab takes your own code and the entry point(s) '$entries'; names of your own never count, only what the file uses. Remove that use and build again.}" >&2
    exit 1
}

# The lab's rule: library keys, then what the lab is about.
libs="" about=""
if [ -n "$forbid" ]; then
    case $forbid in
    *:*) libs=${forbid%%:*} about=${forbid#*:} about=${about# } ;;
    *)
        echo "vet.sh: grader error: lab $lab's forbidden libraries '$forbid' lack ': what the lab is about' (its table.c)" >&2
        exit 2 ;;
    esac
fi

# A symbol as a student reads it: demangled, without template arguments, parameters, return
# type or CUB's and Thrust's versioned inline namespaces; a C name without its _v2 or
# per-thread-stream suffix (the header's macro, not what the student wrote).
readable() {
    case $1 in
    _Z*) # (a nested name c++filt cannot demangle, as some of nvcc's kernel instances: the names
         # of its parts, length by length, as far as they go: cub::detail::reduce::Kernel)
        printf '%s\n' "$1" | { $CXXFILT 2>/dev/null || echo "$1"; } | awk '
            /^_ZN/ { s = substr($0, 4); o = ""
                     while (match(s, /^[0-9]+/)) {
                         n = substr(s, 1, RLENGTH) + 0; part = substr(s, RLENGTH + 1, n)
                         s = substr(s, RLENGTH + 1 + n)
                         if (part !~ /^(CUB|THRUST)_[0-9]/) o = o (o == "" ? "" : "::") part
                     }
                     if (o != "") { print o; next } }
            { print }' | awk '{
            s = $0; o = ""; d = 0
            for (i = 1; i <= length(s); i++) {
                c = substr(s, i, 1)
                if (c == "<") d++
                else if (c == ">") d--
                else if (d == 0 && c == "(") break
                else if (d == 0) o = o c
            }
            n = split(o, w, " "); o = w[n]
            gsub(/(CUB|THRUST)_[0-9][A-Za-z0-9_]*(_NS)?::/, "", o)
            print o }' ;;
    *) printf '%s\n' "$1" | sed -E 's/(_v[0-9]+)?(_ptsz|_ptds)?$//' ;;
    esac
}

# The strings of the object's read-only data: what a run-time lookup would be given.
rodata_strings() {
    for s in $($READELF -SW "$obj" 2>/dev/null | sed -n 's/^ *\[ *[0-9]*\] \(\.rodata[^ ]*\) .*/\1/p'); do
        $READELF -p "$s" "$obj" 2>/dev/null | sed -n 's/^ *\[ *[0-9a-f]*\]  //p'
    done
}

globals=$($NM -g --defined-only "$obj" || true) # (one read for both lists; an unreadable object defines nothing)
defined=$(printf '%s\n' "$globals" | awk '{print $3}')
# Strong definitions only: weak ones (inline functions, template instances) are merged.
strong=$(printf '%s\n' "$globals" | awk '$2 ~ /^[TDBRCGSi]$/ {print $3}')

for e in $entries; do
    echo "$defined" | grep -qx -- "$e" ||
        reject "your file does not define '$e' (extern \"C\", with the contract's signature), which lab $lab calls." \
            "lab $lab calls the entry point(s) '$entries': define each as its header declares it."
done

# One pass over the relocations (which symbols the student's own code refers to, so that a
# message names the library function it called rather than one of the library's helpers)
# and the symbol table; the first use found, as rule<TAB>symbol<TAB>library's name.
hit=$( { $READELF -rW "$obj" 2>/dev/null | sed 's/^/R /'; $NM "$obj" | sed 's/^/S /'; } | LIBS="$libs" awk '
# The libraries a lab may forbid: key, name in messages, what names its functions when they
# are undefined (an extended regex), the namespaces its header code is defined in.
BEGIN {
    name["driver"] = "the CUDA driver API"
    undef["driver"] = "^cu[A-Z]"                      # C names only (below)
    name["cublas"] = "cuBLAS"
    undef["cublas"] = "cublas"
    name["cub"] = "CUB"
    undef["cub"] = "(^|[^A-Za-z])cub([^A-Za-z]|$)|Device(Segmented)?Reduce|DeviceScan"
    ns["cub"] = " cub "
    name["thrust"] = "Thrust"
    undef["thrust"] = "thrust"
    ns["thrust"] = " thrust "
    name["cutlass"] = "CUTLASS"
    undef["cutlass"] = "cutlass|(^|[^A-Za-z])cute([^A-Za-z]|$)"
    ns["cutlass"] = " cutlass cute "
    name["wmma"] = "WMMA (nvcuda::wmma, the tensor cores)"
    undef["wmma"] = "nvcuda|wmma|mma_sync"
    ns["wmma"] = " nvcuda "
    nf = split(ENVIRON["LIBS"], forbidden, " ")
    for (i = 1; i <= nf; i++)
        if (!(forbidden[i] in name)) {
            print "unknown\t" forbidden[i] "\t-"
            bad = 1
            exit
        }
    # The CPU emulator internals (common/emu/src/emu_internal.h) and the switches of its own
    # tests (common/emu/include/cuda_emu/testing.h): cuda_emu:: names a student file has no
    # business calling, though its rewritten code calls the public ones (tests/vet/run.sh
    # holds this list to both headers).
    split("set_checks settings g_check g_thread g_launch unflatten wait_here fail_from_fiber " \
          "fail_launch warp_progress warp_describe_stuck record_error set_sticky_error " \
          "note_host_writable_memory finish_overtaken_launch overtaken_launch_running " \
          "sticky_error stream_valid kernel_max_dynamic_shared blocks_per_sm Footprint " \
          "kernel_footprint threads_for_registers KernelFigures kernel_figures " \
          "note_launch_bounds note_static_shared " \
          "api_mutex init_runtime track_region " \
          "untrack_region find_tracked mark_written copy_written check_written " \
          "reset_uninitialized_reports track_atomic track_sync untrack_block init_tracking " \
          "tl_runtime_allocating forget_reachable host_mapped_span g_counting count_access " \
          "count_flush count_block_end count_launch count_op count_event_op count_host_wait " \
          "count_forget stream_kind count_start count_stop devmem_create devmem_share " \
          "devmem_import devmem_open_shared devmem_release where dim_str thread_list " \
          "report_head report_line report_begin_warning report_done report_reset " \
          "describe_memory Settings ThreadState Block Region WarpOp Thread SharedVar Launch " \
          "RegionKind RuntimeAllocating DeviceMapping set_schedule settle_writes thread_running " \
          "g_schedule AsyncCopy async_copy_access async_copy_touch refuse_at_run_time " \
          "called_by_program_or_loop g_grader_counting count_atomic count_unseen Unseen " \
          "report_channel report_channel_init warp_race_end block_serials", e, " ")
    for (i in e) emu_internal[e[i]] = 1
}
# The entity a symbol belongs to: special names (guard variables, vtables, typeinfo),
# function-local entities and nvcc kernel stubs peeled down to the name that decides.
function entity(s) {
    for (;;) {
        if (sub(/^_ZG[VR]/, "_Z", s) || sub(/^_ZT[VTISHW]/, "_Z", s) || sub(/^_ZZ/, "_Z", s) ||
            sub(/^_ZL[0-9]+__device_stub_/, "", s) || sub(/^__device_stub_/, "", s))
            continue
        return s
    }
}
# The source names of a mangled nested name (_ZN...), outermost first, into part[1..n]:
# returns n, or -1 for a name at global scope. The one reader of that grammar here.
function nested_names(s, part,    n, len) {
    if (!sub(/^_ZN[rVKRO]*/, "", s))
        return -1
    n = 0
    while (match(s, /^L?[0-9]+/)) {
        sub(/^L/, "", s)
        match(s, /^[0-9]+/)
        len = substr(s, 1, RLENGTH) + 0
        s = substr(s, RLENGTH + 1)
        part[++n] = substr(s, 1, len)
        s = substr(s, len + 1)
    }
    return n
}
# The enclosing namespaces and classes of a mangled nested name, " a b c ", its own name left
# out; "" for a name at global scope.
function scopes(s,    part, n, out, i) {
    n = nested_names(s, part)
    if (n < 0)
        return ""
    out = " "
    for (i = 1; i < n; i++)
        if (part[i] != "")
            out = out part[i] " "
    return out
}
# The last source name of a nested name (its own name).
function own_name(s,    part, n) {
    n = nested_names(s, part)
    return n > 0 ? part[n] : ""
}
function found(rule, sym, lib) {
    print rule "\t" sym "\t" (lib in name ? name[lib] : lib)
    done = 1
    exit
}
$1 == "R" && /^R Relocation section/ {
    # .rela.text: the student s code; .rela.text.NAME: an inline or template function NAME
    sec = $4
    gsub(/\047/, "", sec)
    # (.text.startup and .text.exit: the constructors and destructors of globals, a library s too)
    own = (sec ~ /^\.rela\.text/ && sec !~ /^\.rela\.text\.(startup|exit)$/)
    fn = (sec ~ /^\.rela\.text\./) ? substr(sec, 12) : ""
    if (own && fn != "") {
        sc = scopes(entity(fn))
        for (k in ns)
            if (library_scope(sc, k))
                own = 0
    }
    next
}
function library_scope(sc, k,    parts, m, j) {
    m = split(ns[k], parts, " ")
    for (j = 1; j <= m; j++)
        if (index(sc, " " parts[j] " "))
            return 1
    return 0
}
$1 == "R" {
    if (NF >= 6 && $2 ~ /^[0-9a-f]+$/) {
        if (own)
            called[$6] = 1
        # who refers to it: the file s own code, else the first inline function that does
        if (fn == "" && own)
            caller[$6] = "-"
        else if (!($6 in caller))
            caller[$6] = (fn != "") ? fn : "-"
    }
    next
}
$1 == "S" && $2 == "U" { undefined[++nu] = $3; next }
$1 == "S" && NF >= 4 { defs[++nd] = $4; code[nd] = ($3 ~ /^[TtWi]$/); next }
END {
    if (bad || done)
        exit
    # The reference, in every lab.
    for (i = 1; i <= nu; i++)
        if (undefined[i] ~ /^ref_/) found("reference", undefined[i], "-")
    # calls: an undefined symbol of a forbidden library
    for (f = 1; f <= nf; f++) {
        k = forbidden[f]
        for (i = 1; i <= nu; i++) {
            s = undefined[i]
            if (k == "driver" && s ~ /^_Z/) continue
            if (s ~ undef[k]) found(k == "driver" && s ~ /^cuGetProcAddress/ ? "resolves" : "calls", s, k)
            if (k == "driver" && s ~ /^cudaGetDriverEntryPoint/) found("resolves", s, k)
        }
    }
    # the library s code, compiled from its headers: a function of it the student s own code
    # calls (Thrust s reduce, not the CUB kernels it runs), else any of its definitions
    for (f = 1; f <= nf; f++)
        for (i = 1; i <= nd; i++)
            if (code[i] && defs[i] in called && library_scope(scopes(entity(defs[i])), forbidden[f]))
                found("calls-instance", entity(defs[i]), forbidden[f])
    for (f = 1; f <= nf; f++)
        for (i = 1; i <= nd; i++)
            if (library_scope(scopes(entity(defs[i])), forbidden[f]))
                found("contains", entity(defs[i]), forbidden[f])
    # Refused in every lab, with the reason: loading code, starting processes, the emulator.
    for (i = 1; i <= nu; i++) {
        s = undefined[i]
        by = (s in caller && caller[s] != "-") ? caller[s] : "-"
        if (s ~ /^(dlopen|dlsym|dlvsym|dlmopen|__libc_dlopen_mode|__libc_dlsym|__libc_dlvsym)$/)
            found("loads", s, by)
        if (s ~ /^(system|popen|fork|vfork|posix_spawn.*|exec[lv].*|ptrace)$/)
            found("process", s, by)
        sc = scopes(entity(s))
        if (substr(sc, 1, 10) == " cuda_emu ") {
            split(substr(sc, 11), rest, " ")
            nm = (rest[1] != "") ? rest[1] : own_name(entity(s))
            if (nm in emu_internal) found("emulator", s, "-")
        }
    }
}
') || { echo "vet.sh: grader error: reading $obj's symbols failed" >&2; exit 2; }

if [ -n "$hit" ]; then
    rule=$(printf '%s\n' "$hit" | cut -f1)
    sym=$(printf '%s\n' "$hit" | cut -f2)
    libname=$(printf '%s\n' "$hit" | cut -f3)
    said=$(readable "$sym")
    rule_text="lab $lab is about $about, so $libname may not be used."
    case $rule in
    unknown)
        echo "vet.sh: grader error: lab $lab forbids '$sym', which is no library vet.sh knows (grader/make/vet.sh lists them)" >&2
        exit 2 ;;
    reference) reject "your file calls '$said', the reference solution, which your code cannot reach. Write your own." ;;
    loads | process)
        # the third field: the inline function that calls it, where the file's own code does not
        from=""
        [ "$libname" = - ] || from=" (from $(readable "$libname"), code of a header your file includes)"
        if [ "$rule" = loads ]; then
            # what it would load or look up, where the file spells it out: a library, the
            # reference, a function of the driver API or cuBLAS
            what=$(rodata_strings | grep -E '\.so(\.[0-9]+)*$|^ref_|^(cu[A-Z]|cublas)[A-Za-z0-9_]*$' | head -3 | tr '\n' ' ' | sed 's/ $//; s/ /, /g' || true)
            reject "your file calls '$said'$from, which a lab has no use for (loading code at run time)${what:+; it names $what}."
        fi
        reject "your file calls '$said'$from, which a lab has no use for (starting processes)." ;;
    emulator) reject "your file calls '$said', an internal of the CPU emulator (its own machinery or a switch of its own tests, such as the one that turns race checks off), which a lab's code has no business calling. Use the CUDA API only." ;;
    resolves)
        names=$(rodata_strings | grep -E '^cu[A-Z][A-Za-z0-9_]*$' | head -3 | tr '\n' ' ' | sed 's/ $//; s/ /, /g' || true)
        if [ -n "$names" ]; then
            reject "your file resolves $names ($libname) at run time through '$said': $rule_text"
        else
            reject "your file calls '$said', which resolves functions of $libname at run time: $rule_text"
        fi ;;
    calls) reject "your file calls $said ($libname): $rule_text" ;;
    calls-instance) reject "your file calls $said ($libname, compiled into your file from its headers): $rule_text" ;;
    contains) reject "your file contains $said, code of $libname compiled from its headers: $rule_text" ;;
    esac
fi

# What the rules below read is the code, never a name: not a kernel's name in a function header,
# a label, a callee, a string's bytes or a comment (an honest kernel named sgemm_fp32_noHMMA
# passes).
# PTX: every line but the .file directives (source paths), with its comments cut. A name in PTX
# has no '.', and every forbidden PTX pattern is an opcode with its '.' modifiers, so a name
# cannot match one; a string is written as numbers.
ptx_code() { # PTX_FILE
    grep -v -E '^[[:space:]]*\.file' "$1" | sed -e 's://.*$::' -e 's:/\*[^*]*\*\+\([^/*][^*]*\*\+\)*/::g'
}
# SASS (cuobjdump -sass): the opcode of each instruction line ("/*0040*/  [@!P0] OPCODE operands
# ;"), not its operands (a call names its callee) nor any other line (the "Function : name"
# headers, .headerflags). An instruction line of another shape is passed whole (never skipped).
sass_opcodes() {
    awk 'match($0, /^[ \t]*\/\*[0-9a-f]+\*\/[ \t]+/) {
        rest = substr($0, RLENGTH + 1)
        sub(/^\{[ \t]*/, "", rest)
        sub(/^@!?U?P[0-9T]+[ \t]+/, "", rest)
        split(rest, w, /[ \t;]+/)
        print (w[1] ~ /^[A-Z][A-Z0-9_.]*$/ ? w[1] : rest)
    }'
}

# The PTX (compiled for compute_90, so code behind __CUDA_ARCH__ >= 800 guards shows) and the
# machine code of every architecture in the object.
if [ -n "$ptx_forbidden" ] && [ -n "$ptx_file" ]; then
    hit=$(ptx_code "$ptx_file" | grep -E -m1 -o -- "$ptx_forbidden" || true)
    [ -z "$hit" ] || reject "your file's device code contains the PTX instruction '$hit', which lab $lab forbids${about:+: lab $lab is about $about}."
fi
if [ -n "$sass_forbidden" ]; then
    if ! [ -x "$CUOBJDUMP" ] && ! command -v "$CUOBJDUMP" >/dev/null 2>&1; then
        reject "your file's machine code cannot be checked for the instructions lab $lab forbids: cuobjdump is missing." \
            "nothing was found against your code: install the CUDA toolkit's cuobjdump, or let make fetch it with python3 -m pip, and build again."
    fi
    sass=$($CUOBJDUMP -sass "$obj" 2>&1) ||
        reject "cuobjdump could not read your file's machine code: $(echo "$sass" | grep -m1 .)" \
            "nothing was found against your code: check that this toolkit's cuobjdump runs, and build again."
    hit=$(echo "$sass" | sass_opcodes | grep -E -m1 -o -- "$sass_forbidden" || true)
    [ -z "$hit" ] || reject "your file's machine code contains '$hit' instructions, which lab $lab forbids${about:+: lab $lab is about $about}."
fi

localize=""
for s in $strong; do
    case " $entries " in *" $s "*) continue ;; esac
    localize="$localize --localize-symbol=$s"
done
# shellcheck disable=SC2086
$OBJCOPY $localize "$obj" "$out"
