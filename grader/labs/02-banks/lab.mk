# lab.mk - lab 02's build settings (included by the Makefile).
ENTRY_banks := rolling_max
