// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Run a command and report its wall time, CPU time (user + system) and peak
 * RSS with microsecond resolution (/usr/bin/time prints 10 ms), for
 * scripts/bench/bench.sh on a shared machine where wall time is mostly waiting.
 *
 * usage: runstat OUTFILE CMD [ARG...]
 * writes to OUTFILE: "WALL_SECONDS CPU_SECONDS MAXRSS_KIB"; exits with the
 * command's status (128 + signal if it was killed).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct timespec t0, t1;
	struct rusage ru;
	FILE *out;
	int status;
	pid_t pid;

	if (argc < 3) {
		fprintf(stderr, "usage: %s OUTFILE CMD [ARG...]\n", argv[0]);
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 2;
	}
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		perror(argv[2]);
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) < 0) {
		perror("wait4");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	out = fopen(argv[1], "w");
	if (!out) {
		perror(argv[1]);
		return 2;
	}
	fprintf(out, "%.6f %.6f %ld\n",
		(double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9,
		(double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
			(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6,
		ru.ru_maxrss);
	fclose(out);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
