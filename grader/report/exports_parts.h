/* exports_parts.h - what the exports' files share: XML and HTML text escaped, a lab's number
 * and name (exports_text.c), the HTML page's speed chart (exports_chart.c). Not for other rooms:
 * exports.h is the exports' face. */
#ifndef GRADER_REPORT_EXPORTS_PARTS_H
#define GRADER_REPORT_EXPORTS_PARTS_H

#include "exports.h"

/* XML and HTML text or attribute: rendered visible (common/text.h), then escaped. */
void put_xml(FILE *f, const char *s);
/* A lab's number and name from the report, with `sep` between them, for XML or Markdown. */
void put_lab(FILE *f, const jv *lab, const char *sep, void (*put)(FILE *, const char *));
/* The HTML page's inline SVG chart of each lab's speed ratio against its threshold. */
void export_svg_chart(FILE *f, const jv *labs);

#endif
