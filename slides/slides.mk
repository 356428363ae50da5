# slides/slides.mk - `make slides`: one PDF per lab from slides/NN-name.md (pandoc + beamer).
# Included by the top-level Makefile (which sets BUILD).
#
#   make slides         build/slides/NN-name.pdf for every deck
#   make slides-check   build every deck and render each one's first page to a PNG
#                       (build/slides/png/NN-name-1.png), for CI; fails on a frame taller
#                       than the slide, a line wider than it, a code line longer than
#                       SLIDES_CODE_COLS (slides/check.sh)
#
# Tools: pandoc, pdflatex with beamer, rsvg-convert (the decks show the labs' SVG diagrams and
# bench charts), pdftoppm. When one is missing the rule installs the Debian packages with
# apt-get when run as root (through sudo otherwise, if sudo needs no password), or stops with
# one line naming what to install.

SLIDES_MD    := $(sort $(wildcard slides/[0-9][0-9]-*.md))
SLIDES_PDF   := $(SLIDES_MD:slides/%.md=$(BUILD)/slides/%.pdf)
SLIDES_PNG   := $(SLIDES_MD:slides/%.md=$(BUILD)/slides/png/%-1.png)
SLIDES_IMGS  := $(wildcard labs/*/*.svg)
# tool:Debian package, for every tool a deck needs
SLIDES_TOOLS := pandoc:pandoc pdflatex:texlive-latex-recommended rsvg-convert:librsvg2-bin \
                pdftoppm:poppler-utils
SLIDES_PKGS  := pandoc texlive-latex-recommended texlive-pictures texlive-fonts-recommended lmodern \
                librsvg2-bin poppler-utils
PANDOC_BEAMER := pandoc -t beamer --shift-heading-level-by=-1 --slide-level=1 --resource-path=.:slides \
                 -V aspectratio=169 -V fontsize=10pt -V colortheme=dolphin

.PHONY: slides slides-check slides-tools

slides: $(SLIDES_PDF)
	@echo "Built $(words $(SLIDES_PDF)) decks in $(BUILD)/slides/. Next: make slides-check (first pages as PNG)."

# Code lines fit the text width of a 16:9 slide at 10pt up to 74 columns.
SLIDES_CODE_COLS ?= 74

slides-check: $(SLIDES_PNG)
	@for p in $(SLIDES_PNG); do test -s $$p || { echo "slides-check: $$p is empty" >&2; exit 1; }; done
	@slides/check.sh $(BUILD)/slides $(SLIDES_CODE_COLS) $(SLIDES_MD)
	@echo "slides-check: $(words $(SLIDES_PNG)) decks built, no frame overflows, first pages in $(BUILD)/slides/png/"

# Every tool present, or installed now, or one line saying what is missing.
slides-tools:
	@missing=""; for tp in $(SLIDES_TOOLS); do command -v $${tp%%:*} >/dev/null 2>&1 || missing="$$missing $${tp#*:}"; done; \
	for sty in beamer.cls:texlive-latex-recommended pgfmath.sty:texlive-pictures lmodern.sty:lmodern; do \
	    kpsewhich $${sty%%:*} >/dev/null 2>&1 || missing="$$missing $${sty#*:}"; done; \
	if [ -n "$$missing" ]; then \
	    if [ "$$(id -u)" = 0 ]; then SUDO=""; \
	    elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then SUDO=sudo; \
	    else echo "make slides: missing$$missing: install with: sudo apt-get install $(SLIDES_PKGS)" >&2; exit 2; fi; \
	    echo "make slides: installing $(SLIDES_PKGS)"; \
	    $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $(SLIDES_PKGS) >/dev/null 2>&1 \
	        || { $$SUDO apt-get update -qq >/dev/null 2>&1; \
	             $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $(SLIDES_PKGS) >/dev/null; } \
	        || { echo "make slides: apt-get install $(SLIDES_PKGS) failed" >&2; exit 2; }; \
	fi

$(BUILD)/slides/%.pdf: slides/%.md $(SLIDES_IMGS) slides/slides.mk | slides-tools
	@mkdir -p $(@D)
	@echo "  PANDOC  $@"
	@$(PANDOC_BEAMER) --verbose -o $@ $< > $@.log 2>&1 || { tail -40 $@.log >&2; rm -f $@; exit 1; }

$(BUILD)/slides/png/%-1.png: $(BUILD)/slides/%.pdf
	@mkdir -p $(@D)
	@echo "  PNG     $@"
	@pdftoppm -png -r 60 -f 1 -l 1 -singlefile $< $(basename $@)
