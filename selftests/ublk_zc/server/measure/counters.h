/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-process counters through perf_event_open: software counters
 * (task-clock, context-switches, page-faults, cpu-migrations) always,
 * hardware ones (instructions, cycles) where the CPU/VM has them (QEMU TCG
 * usually has none: they are then reported absent, not zero).
 *
 * A process is counted as all its threads: one event per existing
 * /proc/PID/task/TID, each with inherit so threads and children created
 * later are counted too.  Where perf_event_open is not permitted the
 * values come from getrusage (self) or /proc/PID/{stat,task/<tid>/status}
 * instead, and counters_note() says so.
 */
#ifndef UZC_SRV_COUNTERS_H
#define UZC_SRV_COUNTERS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

enum counter_id {
	CNT_TASK_CLOCK,		/* ns of CPU time */
	CNT_CONTEXT_SWITCHES,
	CNT_PAGE_FAULTS,
	CNT_CPU_MIGRATIONS,
	CNT_INSTRUCTIONS,
	CNT_CYCLES,
	CNT_NR,
};

struct counters_values {
	uint64_t value[CNT_NR];
	bool present[CNT_NR];	/* false: not available here */
	bool scaled[CNT_NR];	/* multiplexed: extrapolated from a share */
};

struct counters;

#define COUNTERS_NO_PERF	(1u << 0)	/* force the fallback (tests) */
#define COUNTERS_NO_HW		(1u << 1)	/* software counters only */

/* NULL with errno set (ESRCH: no such pid) on failure. */
struct counters *counters_open(pid_t pid, unsigned int flags);
struct counters *counters_open_self(void);
struct counters *counters_open_pid(pid_t pid);

/* start zeroes the counts; stop freezes them; read works in both states. */
int counters_start(struct counters *c);
int counters_stop(struct counters *c);
int counters_read(struct counters *c, struct counters_values *v);
void counters_close(struct counters *c);

/*
 * Whether a task's task-clock is its own CPU time on a machine with
 * @cpus online CPUs whose clock is @clock ("wall" or "icount").  Under
 * QEMU's icount all vCPUs share one instruction clock and run in turn,
 * so while a task is on one vCPU its clock also advances by every
 * instruction the others execute, and its task-clock counts them: how
 * much depends on how the tasks overlap, which differs by data path
 * (issue 15 item 9, loop target at 512K: the server's figure with 2
 * vCPUs is 28-33% above its 1-vCPU figure for copy and user_copy, 2-3%
 * for splice).  With one vCPU it is the task's own instructions (1 ns
 * each at shift=0).
 */
bool counters_cpu_time_is_own(const char *clock, long cpus);

/* perf's names: "task-clock", "context-switches", ... */
const char *counters_name(enum counter_id id);
/* "perf_event_open", "getrusage" or "procfs" */
const char *counters_source(const struct counters *c);
/* Why a fallback is used or a counter is absent; "" when all is well. */
const char *counters_note(const struct counters *c);

#endif
