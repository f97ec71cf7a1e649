// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Where the CLI's outputs go: every output of a command checked before
 * anything is read (outfile.h: never over a device, FIFO, directory,
 * symbolic link or an input), written through a temporary file that a
 * fatal signal removes, and standard output's loss an exit of 3.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "outfile.h"

/* A write to an output failed: 2 if it was refused (usage), else 3. */
int output_fail(struct mmc_error *err)
{
	bool refused = err->code == MMC_ERR_USAGE;
	int rc = refused ? EXIT_USAGE : EXIT_INTERNAL;

	fputs("memmapcheck: ", stderr);
	mmc_error_fprint(stderr, err);
	fputc('\n', stderr);
	mmc_error_destroy(err);
	return rc;
}

/*
 * The outputs of one command must be allowed (outfile.h) and distinct:
 * checked before anything is read.
 */
struct mmc_error *check_outputs(const char *const *outs, size_t nouts,
				char **inputs, int ninputs)
{
	struct mmc_error *err;
	size_t i, j;

	for (i = 0; i < nouts; i++) {
		struct stat so, st;

		if (!outs[i])
			continue;
		err = mmc_outfile_check(outs[i], (const char *const *)inputs,
					(size_t)ninputs);
		if (err)
			return err;
		/*
		 * The file standard output goes to: the output would replace
		 * it (a new inode) while the verdict goes on into the old,
		 * unlinked one, and nobody reads either.
		 */
		if (strcmp(outs[i], "-") && fstat(STDOUT_FILENO, &so) == 0 &&
		    S_ISREG(so.st_mode) && stat(outs[i], &st) == 0 &&
		    so.st_dev == st.st_dev && so.st_ino == st.st_ino)
			return mmc_error_create(MMC_ERR_USAGE, outs[i],
						"is the file standard output goes to: not overwritten (give another file, or '-' for standard output)");
		for (j = 0; j < i; j++) {
			struct stat a, b;

			if (!outs[j] || (strcmp(outs[i], outs[j]) &&
			    (stat(outs[i], &a) || stat(outs[j], &b) ||
			     a.st_dev != b.st_dev || a.st_ino != b.st_ino)))
				continue;
			if (!strcmp(outs[i], "-") && strcmp(outs[j], "-"))
				continue;
			return mmc_error_create(MMC_ERR_USAGE, outs[i],
						"named twice as an output of this command");
		}
	}
	return NULL;
}

/* The claims file is an input too: no output may replace it. */
struct mmc_error *check_claims_input(const struct opts *o, const char *const *outs,
				     size_t nouts)
{
	struct mmc_error *err;

	for (size_t i = 0; o->claims && i < nouts; i++) {
		if (!outs[i])
			continue;
		err = mmc_outfile_check(outs[i], &o->claims, 1);
		if (err)
			return err;
	}
	return NULL;
}

/*
 * Temporary output files (mmc_outfile_tmp_path()) to remove when a signal
 * ends the process: every signal whose default action does, except
 * SIGKILL and SIGSTOP, which cannot be caught.  Set before the file can
 * exist and cleared after it was renamed or removed, so the handler only
 * ever unlinks a temporary name of this run.
 */
#define MAX_TMP 4
static char live_tmp[MAX_TMP][4096];
static volatile sig_atomic_t live_set[MAX_TMP];

/* Track of's temporary file (a copy of its name); the slot, or -1. */
static int tmp_track(const struct mmc_outfile *of)
{
	const char *t = mmc_outfile_tmp_path(of);
	int i;

	for (i = 0; t && strlen(t) < sizeof(live_tmp[0]) && i < MAX_TMP; i++)
		if (!live_set[i]) {
			strcpy(live_tmp[i], t);
			live_set[i] = 1;
			return i;
		}
	return -1;
}

/*
 * mmc_outfile_open() with the temporary file tracked from the moment it
 * exists: signals are held while it is made and its name recorded.
 */
struct mmc_error *outfile_open_tracked(const char *path, const char *const *inputs,
				       size_t ninputs, struct mmc_outfile **of,
				       int *slot)
{
	sigset_t all, old;
	struct mmc_error *err;

	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	err = mmc_outfile_open(path, inputs, ninputs, of);
	*slot = err ? -1 : tmp_track(*of);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return err;
}

/* After the file was renamed into place or removed. */
void tmp_forget(int slot)
{
	if (slot >= 0)
		live_set[slot] = 0;
}

/* Remove the temporary files and die of sig (async-signal-safe). */
void cli_fatal_signal(int sig)
{
	size_t i;

	for (i = 0; i < MAX_TMP; i++)
		if (live_set[i])
			unlink(live_tmp[i]);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void fatal_handler(int sig)
{
	cli_fatal_signal(sig);
}

void cli_signals_init(void)
{
	/* the signals whose default action ends the process (signal(7)) */
	static const int ends[] = {
		SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGPIPE, SIGALRM, SIGUSR1,
		SIGUSR2, SIGVTALRM, SIGPROF, SIGXCPU, SIGXFSZ, SIGPOLL, SIGSYS,
		SIGTRAP, SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGSTKFLT, SIGPWR,
	};
	struct sigaction sa = { .sa_handler = fatal_handler, .sa_flags = SA_NODEFER };
	size_t i;
	int sig;

	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(ends) / sizeof(ends[0]); i++) {
		struct sigaction old;

		/* ignored ones (nohup) stay so; a sanitizer's own handler too */
		if (sigaction(ends[i], NULL, &old) != 0 || old.sa_handler != SIG_DFL ||
		    (old.sa_flags & SA_SIGINFO))
			continue;
		sigaction(ends[i], &sa, NULL);
	}
	for (sig = SIGRTMIN; sig <= SIGRTMAX; sig++) {
		struct sigaction old;

		if (sigaction(sig, NULL, &old) == 0 && old.sa_handler == SIG_DFL &&
		    !(old.sa_flags & SA_SIGINFO))
			sigaction(sig, &sa, NULL);
	}
}

/*
 * --map DIR, checked before anything is read or printed: an existing
 * directory, or a name whose parent directory exists, writable.  A map
 * that fails after the verdict was printed is output not written (exit 3),
 * never a usage error after the fact.
 */
struct mmc_error *check_map_dir(const char *dir)
{
	struct stat st;
	char *parent, *slash;
	int ok;

	if (!dir)
		return NULL;
	if (!*dir)
		return mmc_error_create(MMC_ERR_USAGE, NULL, "--map: empty directory name");
	if (stat(dir, &st) == 0) {
		if (!S_ISDIR(st.st_mode))
			return mmc_error_create(MMC_ERR_USAGE, dir, "--map: not a directory");
		if (access(dir, W_OK | X_OK) != 0)
			return mmc_error_os(errno, dir, "--map: the directory is not writable");
		return NULL;
	}
	if (errno != ENOENT)
		return mmc_error_os(errno, dir, "--map: stat");
	parent = strdup(dir);
	if (!parent)
		return mmc_error_nomem();
	while ((slash = strrchr(parent, '/')) && slash[1] == '\0' && slash != parent)
		*slash = '\0';		/* trailing slashes */
	slash = strrchr(parent, '/');
	if (!slash)
		strcpy(parent, ".");
	else if (slash == parent)
		parent[1] = '\0';
	else
		*slash = '\0';
	ok = stat(parent, &st) == 0 && S_ISDIR(st.st_mode) && access(parent, W_OK | X_OK) == 0;
	free(parent);
	if (!ok)
		return mmc_error_create(MMC_ERR_USAGE, dir,
					"--map: cannot be made: its parent is not a writable directory");
	return NULL;
}

/* Render into a checked output file (or standard output for "-"). */
int write_output(const char *path, char **inputs, int ninputs,
		 struct mmc_error *(*render)(FILE *, const void *, enum mmc_format),
		 const void *arg, enum mmc_format fmt)
{
	struct mmc_outfile *of;
	struct mmc_error *err;
	int slot;

	err = outfile_open_tracked(path, (const char *const *)inputs, (size_t)ninputs,
				   &of, &slot);
	if (err)
		return output_fail(err);
	err = render(mmc_outfile_stream(of), arg, fmt);
	if (err) {
		mmc_outfile_abort(of);
		tmp_forget(slot);
		return output_fail(err);
	}
	err = mmc_outfile_commit(of);
	tmp_forget(slot);
	return err ? output_fail(err) : 0;
}

static bool stdout_lost;

bool cli_stdout_lost(void)
{
	return stdout_lost;
}

/* Standard output after the main rendering: a lost verdict is exit 3. */
int stdout_ok(void)
{
	struct mmc_error *err = mmc_stream_check(stdout, "standard output");

	if (!err)
		return 0;
	stdout_lost = true;
	return output_fail(err);
}
