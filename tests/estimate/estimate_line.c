/* estimate_line.c - prints estimate_line()'s line (grader/feedback/estimate.c) for a file of
 * estimates, a check, a mark and a lab number: tests/estimate/run.sh holds its words.
 *   estimate_line FILE CHECK THRESHOLD LAB */
#include "../../grader/feedback/estimate.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc != 5)
        return 2;
    char line[800];
    estimate_line(argv[1], "grader/feedback/estimate-limits.tsv", atoi(argv[2]), atof(argv[3]),
                  argv[4], line, sizeof line);
    puts(line);
    return 0;
}
