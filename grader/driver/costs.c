/* costs.c - the costs line of a student's grading (costs.h). */
#include "costs.h"

#include "../wire/costs.h"
#include "../wire/folder.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the last costs line of a harness log into c; 0 when it holds none */
static int last_costs(const char *log, costs_line *c)
{
    FILE *f = fopen(log, "r");
    if (!f)
        return 0;
    char line[1024];
    int found = 0;
    while (fgets(line, sizeof line, f))
        if (costs_line_read(line, c))
            found = 1;
    fclose(f);
    return found;
}

void costs_print(const char *logs, const lab_info *const *labs, int n, int harnesses)
{
    if (!getenv("GRADER_COSTS"))
        return;
    int labs_costed = 0;
    costs_line t;
    memset(&t, 0, sizeof t);
    for (int i = 0; i < n; i++) {
        char log[4096];
        costs_line c;
        report_lab_file(log, sizeof log, logs, labs[i]->name, REPORT_HARNESS_LOG);
        if (!last_costs(log, &c))
            continue;
        labs_costed++;
        t.started += c.started, t.start_s += c.start_s, t.ready_s += c.ready_s;
        t.ended += c.ended, t.end_s += c.end_s, t.hellos += c.hellos, t.hello_s += c.hello_s;
        t.dev_made += c.dev_made, t.dev_made_s += c.dev_made_s, t.dev_free_s += c.dev_free_s;
        t.host_made += c.host_made, t.host_made_s += c.host_made_s, t.host_free_s += c.host_free_s;
        t.mapped += c.mapped, t.map_s += c.map_s, t.forgets += c.forgets;
    }
    if (!labs_costed)
        return;
    const double start = t.start_s + t.ready_s + t.hello_s, memory = t.dev_made_s + t.dev_free_s +
                         t.host_made_s + t.host_free_s;
    printf("costs a student: %d CUDA processes, %d allocations, %d mappings, %.2f s in process "
           "start, exit and mapping (%d %s and %d workers; %d device and %d host "
           "allocations; start-up %.2f s, ends %.2f s, memory made and given back %.2f s, "
           "buffers mapped by the workers %.2f s, by their account; %d unmapping messages)\n",
           harnesses + t.started, t.dev_made + t.host_made, t.mapped,
           start + t.end_s + memory + t.map_s, harnesses, harnesses == 1 ? "harness" : "harnesses",
           t.started, t.dev_made, t.host_made, start,
           t.end_s, memory, t.map_s, t.forgets);
}
