# lab_ilp.mk - lab 04 has two entry points, one per task (grader/contracts/ilp.h).
ENTRY_ilp := ilp_memory ilp_arith
