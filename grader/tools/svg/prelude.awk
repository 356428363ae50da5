# prelude.awk - the pieces every SVG picture of the workbook is drawn with (diagrams.sh's
# teaching diagrams, make explain's picture of a warp's request): header, text, box, line, end.
# Loaded before the program that draws: awk -f prelude.awk -f picture.awk, or as text.
function head(w, h) {
    printf "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" font-size=\"12\">\n", w, h, w, h
    printf "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", w, h
}
function text(x, y, s, extra) { printf "<text x=\"%.1f\" y=\"%.1f\" %s>%s</text>\n", x, y, extra, s }
function box(x, y, w, h, fill, stroke) {
    printf "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" stroke=\"%s\"/>\n", x, y, w, h, fill, stroke == "" ? "none" : stroke
}
function line(x1, y1, x2, y2, colour, extra) {
    printf "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" %s/>\n", x1, y1, x2, y2, colour, extra
}
function foot() { print "</svg>" }
