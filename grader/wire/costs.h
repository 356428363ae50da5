/* costs.h - the harness's costs line (GRADER_COSTS=1), written by the harness into its log
 * after each check (grader/harness/worker_lifecycle_trusted.cu: workers_costs_report) and read
 * back by the driver's one-line summary (grader/driver/costs.c) and tests/gpu/scaling.sh: the
 * driver calls a harness made, cumulative over its checks. Both forms of the line live here. */
#ifndef GRADER_WIRE_COSTS_H
#define GRADER_WIRE_COSTS_H

#include <stdio.h>

#define COSTS_LINE_WRITE                                                                    \
    "harness: costs after check %d: %d workers started in %.3f s, waited %.3f s "           \
    "(%d waits) for their start-up, %d ended in %.3f s; device memory made %d times in "    \
    "%.3f s, given back %d in %.3f s; shared host memory made %d times in %.3f s, given "   \
    "back %d in %.3f s; %d first commands to fresh workers in %.3f s; buffers mapped "      \
    "by the workers %d in %.3f s (their account); %d unmapping messages\n"
#define COSTS_LINE_READ                                                                     \
    "harness: costs after check %d: %d workers started in %lf s, waited %lf s "             \
    "(%d waits) for their start-up, %d ended in %lf s; device memory made %d times in "     \
    "%lf s, given back %d in %lf s; shared host memory made %d times in %lf s, given "      \
    "back %d in %lf s; %d first commands to fresh workers in %lf s; buffers mapped "        \
    "by the workers %d in %lf s (their account); %d unmapping messages"

typedef struct costs_line {
    int check, started;         /* the check after which; workers started */
    double start_s, ready_s;    /* starting them; waiting for their start-up */
    int ready_waits, ended;
    double end_s;               /* ending them */
    int dev_made;
    double dev_made_s;          /* shared device memory made (and mapped here) */
    int dev_freed;
    double dev_free_s;
    int host_made;
    double host_made_s;         /* shared (pinned) host memory made */
    int host_freed;
    double host_free_s;
    int hellos;
    double hello_s;             /* fresh workers' first, empty commands (their contexts' end) */
    int mapped;
    double map_s;               /* buffers the workers mapped (their account) */
    int forgets;                /* messages that had a worker unmap buffers (each one a round
                                   trip: continued, answered, stopped) */
} costs_line;

/* 1 if `line` is a costs line, its fields into c */
static inline int costs_line_read(const char *line, costs_line *c)
{
    return sscanf(line, COSTS_LINE_READ, &c->check, &c->started, &c->start_s, &c->ready_s,
                  &c->ready_waits, &c->ended, &c->end_s, &c->dev_made, &c->dev_made_s,
                  &c->dev_freed, &c->dev_free_s, &c->host_made, &c->host_made_s, &c->host_freed,
                  &c->host_free_s, &c->hellos, &c->hello_s, &c->mapped, &c->map_s,
                  &c->forgets) == 20;
}

#endif
