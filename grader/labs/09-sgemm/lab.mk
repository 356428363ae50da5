# lab.mk - lab 09's build settings (included by the Makefile). What the student's file may not
# use is in the lab's table (table.c).
#
# The harness times cuBLAS as the ceiling (LIBS_sgemm: the lab's problem.so's link).
LIBS_sgemm := -lcublas
