// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Safe output files (outfile.h).  The checks are made on the target's
 * lstat() before the temporary file is created and again just before the
 * rename, so a target that turns into something else meanwhile is still
 * not replaced.
 */
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct mmc_outfile {
	FILE *f;
	char *path;
	char *tmp;		/* NULL for standard output */
	const char *const *inputs;	/* for the check before the rename */
	size_t ninputs;
};

static const char *kind_name(mode_t m)
{
	if (S_ISLNK(m))
		return "a symbolic link";
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISBLK(m))
		return "a block device";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISSOCK(m))
		return "a socket";
	return "not a regular file";
}

/*
 * 0: path does not exist; 1: a regular file that may be replaced (*st set);
 * an error otherwise.
 */
static struct mmc_error *target_ok(const char *path, const char *const *inputs,
				   size_t ninputs, struct stat *st, int *exists)
{
	size_t i;

	*exists = 0;
	if (!path || !*path)
		return mmc_error_create(MMC_ERR_USAGE, NULL, "empty output file name");
	if (lstat(path, st) != 0) {
		if (errno == ENOENT)
			return NULL;
		return mmc_error_os(errno, path, "lstat");
	}
	if (!S_ISREG(st->st_mode))
		return mmc_error_create(MMC_ERR_USAGE, path,
					"is %s: not replaced (only regular files are written; '-' is standard output)",
					kind_name(st->st_mode));
	for (i = 0; i < ninputs; i++) {
		struct stat in;

		if (!inputs[i] || stat(inputs[i], &in) != 0)
			continue;
		if (in.st_dev != st->st_dev || in.st_ino != st->st_ino)
			continue;
		if (!strcmp(inputs[i], path))
			return mmc_error_create(MMC_ERR_USAGE, path,
						"is an input of this command: not overwritten");
		return mmc_error_create(MMC_ERR_USAGE, path,
					"is the same file as %s, an input of this command: not overwritten",
					inputs[i]);
	}
	*exists = 1;
	return NULL;
}

struct mmc_error *mmc_outfile_check(const char *path, const char *const *inputs,
				    size_t ninputs)
{
	struct stat st;
	int exists;

	if (path && !strcmp(path, "-"))
		return NULL;
	return target_ok(path, inputs, ninputs, &st, &exists);
}

static mode_t new_file_mode(void)
{
	mode_t mask = umask(0);

	umask(mask);
	return 0666 & ~mask;
}

struct mmc_error *mmc_outfile_open(const char *path, const char *const *inputs,
				   size_t ninputs, struct mmc_outfile **out)
{
	struct mmc_outfile *of;
	struct mmc_error *err;
	struct stat st;
	int exists, fd;
	mode_t mode;

	*out = NULL;
	of = calloc(1, sizeof(*of));
	if (!of)
		return mmc_error_nomem();
	of->inputs = inputs;
	of->ninputs = ninputs;
	if (path && !strcmp(path, "-")) {
		of->f = stdout;
		*out = of;
		return NULL;
	}
	err = target_ok(path, inputs, ninputs, &st, &exists);
	if (err)
		goto fail;
	mode = exists ? (st.st_mode & 07777) : new_file_mode();
	of->path = strdup(path);
	if (!of->path || asprintf(&of->tmp, "%s.tmp.XXXXXX", path) < 0) {
		of->tmp = NULL;
		err = mmc_error_nomem();
		goto fail;
	}
	fd = mkstemp(of->tmp);
	if (fd < 0) {
		err = mmc_error_os(errno, path, "creating a temporary file beside it (%s)",
				   of->tmp);
		free(of->tmp);
		of->tmp = NULL;
		goto fail;
	}
	if (fchmod(fd, mode) != 0 || !(of->f = fdopen(fd, "w+b"))) {
		err = mmc_error_os(errno, of->tmp, "fchmod/fdopen");
		close(fd);
		goto fail;
	}
	*out = of;
	return NULL;
fail:
	mmc_outfile_abort(of);
	return err;
}

FILE *mmc_outfile_stream(struct mmc_outfile *of)
{
	return of->f;
}

const char *mmc_outfile_name(const struct mmc_outfile *of)
{
	return of->tmp ? of->path : "standard output";
}

bool mmc_outfile_is_stdout(const struct mmc_outfile *of)
{
	return !of->tmp;
}

const char *mmc_outfile_tmp_path(const struct mmc_outfile *of)
{
	return of->tmp;
}

static struct mmc_error *input_kind(const char *path, mode_t m)
{
	if (S_ISREG(m) || S_ISBLK(m))
		return NULL;
	return mmc_error_create(MMC_ERR_USAGE, path,
				"is %s: not read (an input is a regular file or a block device)",
				kind_name(m));
}

struct mmc_error *mmc_infile_check(const char *path)
{
	struct stat st;

	if (stat(path, &st) != 0)
		return mmc_error_os(errno, path, "stat");
	return input_kind(path, st.st_mode);
}

struct mmc_error *mmc_infile_open(const char *path, int *fd)
{
	struct mmc_error *err = NULL;
	struct stat st;
	int flags;

	*fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (*fd < 0)
		return mmc_error_os(errno, path, "open");
	if (fstat(*fd, &st) != 0)
		err = mmc_error_os(errno, path, "fstat");
	if (!err)
		err = input_kind(path, st.st_mode);
	if (!err && ((flags = fcntl(*fd, F_GETFL)) < 0 ||
		     fcntl(*fd, F_SETFL, flags & ~O_NONBLOCK) < 0))
		err = mmc_error_os(errno, path, "fcntl");
	if (err) {
		close(*fd);
		*fd = -1;
	}
	return err;
}

struct mmc_error *mmc_stream_check(FILE *f, const char *what)
{
	int flushed = fflush(f), e = errno;

	if (flushed == 0 && !ferror(f))
		return NULL;
	if (flushed != 0)
		return mmc_error_os(e, NULL, "writing to %s", what);
	return mmc_error_create(MMC_ERR_OS, NULL,
				"writing to %s: an earlier write failed", what);
}

static void fsync_dir(const char *path)
{
	char *copy = strdup(path);
	int fd;

	if (!copy)
		return;
	fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		(void)fsync(fd);
		close(fd);
	}
	free(copy);
}

struct mmc_error *mmc_outfile_commit(struct mmc_outfile *of)
{
	struct mmc_error *err = NULL;
	struct stat st;
	int exists;

	if (!of->tmp) {
		err = mmc_stream_check(of->f, "standard output");
		free(of);
		return err;
	}
	err = mmc_stream_check(of->f, of->path);
	if (!err && fsync(fileno(of->f)) != 0)
		err = mmc_error_os(errno, of->tmp, "fsync");
	if (fclose(of->f) != 0 && !err)
		err = mmc_error_os(errno, of->tmp, "close");
	of->f = NULL;
	if (!err)
		err = target_ok(of->path, of->inputs, of->ninputs, &st, &exists);
	if (!err && rename(of->tmp, of->path) != 0)
		err = mmc_error_os(errno, of->path, "rename from %s", of->tmp);
	if (err) {
		mmc_outfile_abort(of);
		return err;
	}
	fsync_dir(of->path);
	free(of->tmp);
	free(of->path);
	free(of);
	return NULL;
}

void mmc_outfile_abort(struct mmc_outfile *of)
{
	if (!of)
		return;
	if (of->tmp) {
		if (of->f)
			fclose(of->f);
		unlink(of->tmp);
	}
	free(of->tmp);
	free(of->path);
	free(of);
}
