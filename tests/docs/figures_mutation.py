#!/usr/bin/env python3
"""figures_mutation.py - every figure the learner reads, shifted, must fail tests/docs/figures.py.

    tests/docs/figures_mutation.py [ROOT] [--list]   (--list: print every shift that got through)

For each figure of every place figures.py reads (lessons, the primer and VERIFYING.md, slides,
the notebook, the comments of the learner's files and of the GPU profiles), and for each of four
shifts, -7%, -5%, +5% and +7%, the figure's value is multiplied by the shift and written back in
place at the figure's own precision (one more decimal at a time while that would leave the value
as it was: "8-way" shifted by 5% is written "8.4-way"); the place is checked again with
figures.py's own check, alone, and the shift is caught when the check fails. Nothing is written
to disk. Prints the counts of caught shifts by kind of place, each shift that got through, and
exits 1 when any got through. It runs the check about 4,400 times: slow for the quick tier
(about a minute), so `make test-docs` leaves it to the full tier (`make test-docs-mutation`).
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import figures  # noqa: E402

SHIFTS = (0.93, 0.95, 1.05, 1.07)


def shifted(fig, factor):
    """The figure's number shifted by factor, written at its precision or finer (never equal)."""
    value = fig["value"] * factor
    decimals = len(fig["num"].split(".")[1]) if "." in fig["num"] else 0
    while True:
        text = "%.*f" % (decimals, value)
        if abs(float(text) - fig["value"]) > 1e-12 or decimals > 8:
            return text
        decimals += 1


def main(argv):
    args = [a for a in argv if not a.startswith("--")]
    root = os.path.abspath(args[0] if args else os.path.join(HERE, "..", ".."))
    rows, bad = figures.load(root)
    if bad:
        print("\n".join(bad))
        return 1
    total, caught, escaped = {}, {}, []
    for kind, path, lab, text in figures.places(root):
        base = figures.check_place(root, path, kind, text, rows)
        if base:
            print("FAIL figures mutation: %s does not pass unshifted:\n%s" % (path, "\n".join(base)))
            return 1
        for fig in figures.figures(text):
            for factor in SHIFTS:
                new = shifted(fig, factor)
                planted = text[:fig["start"]] + new + text[fig["end"]:]
                total[kind] = total.get(kind, 0) + 1
                if figures.check_place(root, path, kind, planted, rows):
                    caught[kind] = caught.get(kind, 0) + 1
                else:
                    escaped.append("%s:%d: \"%s\" shifted %+d%% to %s passed" % (
                        path, fig["line"], fig["shown"], round((factor - 1) * 100), new))
    if escaped and ("--list" in argv or len(escaped) <= 40):
        print("\n".join("ESCAPED " + e for e in escaped))
    elif escaped:
        print("\n".join("ESCAPED " + e for e in escaped[:40]) + "\n... and %d more (--list)" % (len(escaped) - 40))
    print("figures mutation: every figure shifted by -7%%, -5%%, +5%%, +7%%: %s; %d got through" % (
        ", ".join("%s %d of %d caught" % (k, caught.get(k, 0), v) for k, v in total.items()), len(escaped)))
    return 1 if escaped else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
