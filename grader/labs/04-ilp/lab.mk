# lab.mk - lab 04 has two entry points, one per task (grader/labs/04-ilp/ilp.h).
ENTRY_ilp := ilp_memory ilp_arith
