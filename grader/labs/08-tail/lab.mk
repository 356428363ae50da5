# lab.mk - lab 08's build rules (included by the Makefile).
#
# The grader's CPU reference (grader/labs/08-tail/problem.cu) computes every result on all cores with
# std::thread: glibc before 2.34 keeps pthreads in a library of its own (LIBS_tail: its
# problem.so's link).
LIBS_tail := -lpthread
