#!/usr/bin/env python3
"""rooms.py - the grader's rooms include down, never up and never in a circle.

    tests/docs/rooms.py [ROOT]          check ROOT (default: this checkout)
    tests/docs/rooms.py --graph [ROOT]  also print the room graph: one line per room, what it includes
    tests/docs/rooms.py --selftest      a planted include up a floor, and a planted circle, are caught

A room is a folder grader/NAME/ (and grader/lab.h, a room of one file); its floor is its row of
grader/rooms.tsv. Every #include "..." of a C, C++ or CUDA file under grader/ is resolved as the
compiler does (beside the including file, then under grader/); an include that lands in another
room is an arrow between rooms. A row "except A B why" of rooms.tsv lets A/ include B/ against
the rule, named on a KNOWN EXCEPTION line at each run, and fails once no such include is left. A FAIL line for: a room with no row (or a row with no room), an
arrow from a lower floor to a higher one (each include named, file and line), and a circle
between rooms (its rooms in order, one include for each step). Exit 1 if any.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

SOURCES = (".c", ".h", ".cu", ".cuh", ".cpp", ".hpp")
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


def read_floors(grader, excepted=None):
    floors = {}
    with open(os.path.join(grader, "rooms.tsv")) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            floor, room = line.rstrip("\n").split("\t")[:2]
            if floor == "except":
                if excepted is not None:
                    excepted.add((room, line.split("\t")[2]))
                continue
            floors[room] = int(floor)
    return floors


def room_of(grader, path):
    rel = os.path.relpath(path, grader)
    if rel.startswith(".."):
        return None
    return rel.split(os.sep)[0]


def arrows(grader):
    """{(from_room, to_room): [(file, line, include), ...]} over every include between rooms."""
    found = {}
    for top, dirs, files in os.walk(grader):
        dirs.sort()
        for name in sorted(files):
            if not name.endswith(SOURCES):
                continue
            path = os.path.join(top, name)
            with open(path, errors="replace") as f:
                for n, text in enumerate(f, 1):
                    m = INCLUDE.match(text)
                    if not m:
                        continue
                    for base in (top, grader):
                        target = os.path.normpath(os.path.join(base, m.group(1)))
                        if os.path.isfile(target):
                            break
                    else:
                        continue  # generated (lab_manifest.h) or outside the checkout
                    a, b = room_of(grader, path), room_of(grader, target)
                    if b is None or a == b:
                        continue
                    found.setdefault((a, b), []).append((os.path.relpath(path, os.path.dirname(grader)), n, m.group(1)))
    return found


def circles(edges):
    """Each circle between rooms once, as a list of rooms (Tarjan's components, then a path)."""
    graph = {}
    for a, b in edges:
        graph.setdefault(a, set()).add(b)
        graph.setdefault(b, set())
    index, low, stack, on, comps = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    out = []
    for comp in comps:  # one loop through the component, from its first room
        start, path, seen = comp[0], [comp[0]], {comp[0]}
        while True:
            nxt = sorted(w for w in graph[path[-1]] if w in comp)
            back = [w for w in nxt if w == start]
            if back and len(path) > 1:
                break
            fresh = [w for w in nxt if w not in seen]
            if not fresh:
                break
            path.append(fresh[0])
            seen.add(fresh[0])
        out.append(path)
    return out


def check(root, show_graph=False):
    grader = os.path.join(root, "grader")
    excepted = set()
    floors = read_floors(grader, excepted)
    rooms = sorted(d for d in os.listdir(grader) if os.path.isdir(os.path.join(grader, d))) + ["lab.h"]
    fails = []
    for room in rooms:
        if room not in floors:
            fails.append(f"FAIL grader/{room} is a room of the grader with no row in grader/rooms.tsv (its floor)")
    for room in floors:
        if room not in rooms:
            fails.append(f"FAIL grader/rooms.tsv has a row for {room}, which is no room of grader/")
    found = arrows(grader)
    for a, b in sorted(excepted):
        if (a, b) in found:
            print(f"KNOWN EXCEPTION {a}/ -> {b}/ (grader/rooms.tsv's except row): " + ", ".join(f"{f}:{n}" for f, n, _ in found.pop((a, b))))
        else:
            fails.append(f"FAIL grader/rooms.tsv excepts {a}/ -> {b}/, and no file of {a}/ includes one of {b}/ now: delete that row")
    for (a, b), where in sorted(found.items()):
        if a in floors and b in floors and floors[a] < floors[b]:
            for file, line, inc in where:
                fails.append(f"FAIL {file}:{line} includes \"{inc}\": {a}/ (floor {floors[a]}) may include only rooms on its floor or below, and {b}/ is on floor {floors[b]}")
    for loop in circles(found):
        steps = []
        for i, a in enumerate(loop):
            b = loop[(i + 1) % len(loop)]
            file, line, inc = found[(a, b)][0]
            steps.append(f"{a} -> {b} ({file}:{line})")
        fails.append("FAIL a circle between rooms: " + ", ".join(steps))
    if show_graph:
        for f in sorted(set(floors.values()), reverse=True):
            for room in sorted(r for r in floors if floors[r] == f):
                outs = sorted({b for (a, b) in found if a == room}, key=lambda r: (-floors.get(r, 0), r))
                print(f"floor {f}  {room:9} -> " + (", ".join(f"{b} ({len(found[(room, b)])})" for b in outs) or "nothing of the grader"))
    for line in fails:
        print(line)
    print(f"docs: {len(rooms)} rooms of the grader, {len(found)} arrows between them, {len(fails)} failing")
    return not fails


def selftest(root):
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        copy = os.path.join(tmp, "grader")
        shutil.copytree(os.path.join(root, "grader"), copy, ignore=shutil.ignore_patterns("*.md", "*.sh", "*.py", "*.awk"))
        rooms = read_floors(copy)
        low = min(rooms, key=lambda r: (rooms[r], r == "lab.h"))
        high = max(rooms, key=lambda r: rooms[r] if os.path.isdir(os.path.join(copy, r)) else -1)
        tops = [r for r in rooms if rooms[r] == rooms[high] and os.path.isdir(os.path.join(copy, r))]
        plants = [  # (room, file planted there, its text)
            ("an include up a floor", [(low, "planted_low.h", f'#include "../{high}/planted_up.h"\n'),
                                       (high, "planted_up.h", "")]),
            ("a circle on one floor", [(tops[0], "planted_a.h", f'#include "../{tops[1]}/planted_b.h"\n'),
                                       (tops[1], "planted_b.h", f'#include "../{tops[0]}/planted_a.h"\n')]),
        ]
        for what, files in plants:
            case = os.path.join(tmp, what.replace(" ", "_"))
            shutil.copytree(copy, os.path.join(case, "grader"))
            for room, name, text in files:
                with open(os.path.join(case, "grader", room, name), "w") as f:
                    f.write(text)
            out = subprocess.run([sys.executable, __file__, case], capture_output=True, text=True).stdout
            caught = ("circle" in what and "FAIL a circle between rooms" in out) or ("up a floor" in what and "may include only rooms on its floor" in out)
            print(f"docs: rooms.py self-test, {what} ({' -> '.join(r for r, _, _ in files)}): {'caught' if caught else 'NOT caught'}")
            ok = ok and caught
    return ok


if __name__ == "__main__":
    args = sys.argv[1:]
    here = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
    if args[:1] == ["--selftest"]:
        sys.exit(0 if selftest(here) else 1)
    graph = args[:1] == ["--graph"]
    if graph:
        args = args[1:]
    sys.exit(0 if check(os.path.abspath(args[0]) if args else here, graph) else 1)
