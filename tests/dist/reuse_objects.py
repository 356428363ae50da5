#!/usr/bin/env python3
"""tests/dist/reuse_objects.py - give an unpacked student kit the checkout's emulated grader
objects that the kit would compile to the same bytes, so that its test grades without
compiling the grader a second time.

    tests/dist/reuse_objects.py CHECKOUT KIT BUILD

An object is copied (with its dependency files, their times kept) only when its dependency
file names every file it was compiled from and the kit holds each of them, byte for byte, at
the same place: the same sources, rules (the kit's Makefile and common/emu/ are the checkout's:
tests/dist/run.sh copies the emulator's tools on the same condition) and compiler give the same
object. An object any of whose files the kit lacks or holds otherwise is not copied: the kit
compiles it, and a file the kit should ship and does not fails that compile as it would for a
student. Objects without a dependency file (the host's C objects) are always compiled in the
kit, as are the students' files and the references (from prebuilt/).
Prints one line: how many objects were copied and how many left to the kit.
"""
import filecmp
import functools
import os
import shutil
import sys

checkout, kit, build = (os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), sys.argv[3])
FOLDERS = ("emu/common", "emu/grader", "emu/pic/grader", "emu/pch")


def sources(dep_file):
    """The files the first rule of a make dependency file names after its colon (the rules
    after it, one per header, are -MP's empty ones)."""
    text = open(dep_file, errors="replace").read().replace("\\\n", " ")
    rule = text.split("\n", 1)[0]
    _, colon, names = rule.partition(": ")
    return names.split() if colon else None


@functools.lru_cache(maxsize=None)  # (the prelude's headers are named by every object)
def same_in_kit(path):
    """Whether the kit holds the checkout's file PATH (relative to the checkout, or absolute
    inside it) byte for byte; a file outside the checkout (a system header) only has to exist.
    A name that is no file of the checkout (the compiler's name for a header as the emulator's
    rewriter copied it, x.cu.inc/...: the rewriter's x.o.d.rw.d names the header itself) is
    not one the kit must hold."""
    if os.path.isabs(path) and not path.startswith(checkout + os.sep):
        return os.path.isfile(path)
    rel = os.path.relpath(path, checkout) if os.path.isabs(path) else path
    mine, theirs = os.path.join(checkout, rel), os.path.join(kit, rel)
    if not os.path.isfile(mine):
        return ".inc" + os.sep in rel
    return os.path.isfile(theirs) and filecmp.cmp(mine, theirs, shallow=False)


src_build, kit_build = os.path.join(checkout, build), os.path.join(kit, "build")
if os.path.abspath(src_build) != os.path.join(checkout, "build"):
    print("no object from the checkout's build: it is not build/ (its dependency files name "
          "another place), so the kit compiles the grader")
    sys.exit(0)
# First the lab manifest's header, which the problems and shims include (their dependency files
# name it): the kit writes it again, and keeps this one, times and all, where it is the same.
# (Not labs.mk: make reads that one before the kit has the program that writes it, and a fresh
# kit makes it first, as a student's does.)
manifest = os.path.join(src_build, "gen", "lab_manifest.h")
if os.path.isfile(manifest):
    os.makedirs(os.path.join(kit_build, "gen"), exist_ok=True)
    shutil.copy2(manifest, os.path.join(kit_build, "gen", "lab_manifest.h"))
copied = left = 0
for folder in FOLDERS:
    top = os.path.join(src_build, folder)
    for here, _, files in os.walk(top):
        for name in files:
            if not name.endswith(".d") or name.endswith(".rw.d"):
                continue
            deps = [os.path.join(here, name)]
            if name.endswith(".o.d"):  # an object: x.o, x.o.d and the rewriter's x.o.d.rw.d
                target = os.path.join(here, name[:-2])
                deps += [d for d in (target + ".d.rw.d",) if os.path.isfile(d)]
            else:  # the precompiled prelude: pch/KIND.d names pch/cuda_emu/prelude.h.gch/KIND
                target = os.path.join(top, "cuda_emu", "prelude.h.gch", name[:-2])
            named = [sources(d) for d in deps]
            if not os.path.isfile(target) or None in named or \
                    not all(same_in_kit(s) for names in named for s in names):
                left += 1
                continue
            for f in [target] + deps:
                dest = os.path.join(kit_build, os.path.relpath(f, src_build))
                os.makedirs(os.path.dirname(dest), exist_ok=True)
                shutil.copy2(f, dest)
            copied += 1
print("%d of the grader's emulated objects from the checkout's build (their files the same in "
      "the kit), %d compiled in the kit" % (copied, left))
