/* exports_chart.c - the HTML page's speed chart (exports_parts.h), from results.json. */
#include "exports_parts.h"

#include <math.h>
#include <string.h>

/* One bar per lab: the median speed ratio (reference time / student time), a dashed line at
 * the lab's threshold; a lab without a measured ratio says why in place of its bar, and names
 * its pass mark in that text rather than by a line (a line would cross the text). */
void export_svg_chart(FILE *f, const jv *labs)
{
    const int n = jv_len(labs);
    double top = 1.2;
    size_t note = 0; /* the longest "not measured" text, in bytes */
    for (int i = 0; i < n; i++) {
        const jv *lab = jv_at(labs, i);
        top = fmax(top, 1.1 * jv_num(jv_get(lab, "threshold"), 0));
        const jv *checks = jv_get(lab, "checks"), *speed_check = NULL;
        for (int j = 0; j < jv_len(checks); j++) {
            top = fmax(top, 1.05 * jv_num(jv_get(jv_get(jv_at(checks, j), "speed"), "ratio_median"), 0));
            if (!strcmp(jv_str(jv_get(jv_at(checks, j), "kind"), ""), "speed"))
                speed_check = jv_at(checks, j);
        }
        if (!isfinite(jv_num(jv_get(jv_get(speed_check, "speed"), "ratio_median"), NAN)))
            note = fmax(note, strlen(jv_str(jv_get(speed_check, "message"), "no speed check")) + 40);
    }
    const int left = 150, width = 420, bar_h = 22, gap = 12, head = 28;
    const int height = head + n * (bar_h + gap) + 24;
    /* wide enough for the axis, and for the longest note at about 6.5 px a character of 11 px */
    const int svg_w = (int)fmax(left + width + 40, left + 4 + 6.5 * (double)note + 8);
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" role=\"img\" "
               "aria-label=\"speed ratio per lab against its threshold\">\n", svg_w, height);
    fprintf(f, "<text x=\"%d\" y=\"18\" font-size=\"13\" font-weight=\"bold\">Speed: reference time / "
               "your time (dashed: the pass mark)</text>\n", 4);
    for (int t = 0; t <= 4; t++) { /* axis ticks */
        const double v = top * t / 4;
        const int x = left + (int)(width * v / top);
        fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#ddd\"/>"
                   "<text x=\"%d\" y=\"%d\" font-size=\"10\" text-anchor=\"middle\" fill=\"#666\">%.2fx</text>\n",
                x, head - 4, x, height - 20, x, height - 6, v);
    }
    for (int i = 0; i < n; i++) {
        const jv *lab = jv_at(labs, i);
        const int y = head + i * (bar_h + gap);
        const double thr = jv_num(jv_get(lab, "threshold"), 0);
        const jv *speed = NULL, *speed_check = NULL;
        const jv *checks = jv_get(lab, "checks");
        for (int j = 0; j < jv_len(checks); j++) {
            const jv *c = jv_at(checks, j);
            if (!strcmp(jv_str(jv_get(c, "kind"), ""), "speed")) {
                speed_check = c;
                speed = jv_get(c, "speed");
            }
        }
        fprintf(f, "<text x=\"4\" y=\"%d\" font-size=\"12\">", y + 15);
        put_lab(f, lab, " ", put_xml);
        fputs("</text>\n", f);
        const double ratio = jv_num(jv_get(speed, "ratio_median"), NAN);
        const int tx = left + (int)(width * thr / top);
        const int measured = speed && isfinite(ratio);
        if (measured) {
            const int pass = !strcmp(jv_str(jv_get(speed_check, "verdict"), ""), "OK");
            fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>"
                       "<text x=\"%d\" y=\"%d\" font-size=\"11\">%.2fx</text>\n",
                    left, y, (int)(width * ratio / top), bar_h, pass ? "#2e7d32" : "#c62828",
                    left + (int)(width * ratio / top) + 4, y + 15, ratio);
        } else {
            /* (haloed: the axis's grid lines stay behind it) */
            fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"11\" fill=\"#666\" stroke=\"#fff\" "
                       "stroke-width=\"4\" paint-order=\"stroke\">not measured (the pass mark: %.2fx): ",
                    left + 4, y + 15, thr);
            put_xml(f, jv_str(jv_get(speed_check, "message"), "no speed check"));
            fputs("</text>\n", f);
        }
        if (measured) /* over the bar, so the pass mark shows against it */
            fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#000\" stroke-width=\"2\" "
                       "stroke-dasharray=\"4,3\"/>\n", tx, y - 3, tx, y + bar_h + 3);
    }
    fputs("</svg>\n", f);
}
