// SPDX-License-Identifier: GPL-2.0-or-later
#include "mmc_error.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static struct mmc_error nomem_error = {
	.code = MMC_ERR_NOMEM,
	.errnum = ENOMEM,
	.message = (char *)"out of memory",
};

struct mmc_error *mmc_error_nomem(void)
{
	return &nomem_error;
}

static char *vformat(const char *fmt, va_list ap)
{
	va_list aq;
	int n;
	char *s;

	va_copy(aq, ap);
	n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n < 0)
		return NULL;
	s = malloc((size_t)n + 1);
	if (s)
		vsnprintf(s, (size_t)n + 1, fmt, ap);
	return s;
}

struct mmc_error *mmc_error_vcreate(enum mmc_error_code code, const char *path,
				    bool has_address, uint64_t address,
				    const char *fmt, va_list ap)
{
	struct mmc_error *err = calloc(1, sizeof(*err));

	if (!err)
		return &nomem_error;
	err->code = code;
	err->has_address = has_address;
	err->address = address;
	err->message = vformat(fmt, ap);
	if (path)
		err->path = strdup(path);
	if (!err->message || (path && !err->path)) {
		free(err->message);
		free(err->path);
		free(err);
		return &nomem_error;
	}
	return err;
}

struct mmc_error *mmc_error_create(enum mmc_error_code code, const char *path,
				   const char *fmt, ...)
{
	struct mmc_error *err;
	va_list ap;

	va_start(ap, fmt);
	err = mmc_error_vcreate(code, path, false, 0, fmt, ap);
	va_end(ap);
	return err;
}

struct mmc_error *mmc_error_at(enum mmc_error_code code, const char *path,
			       uint64_t address, const char *fmt, ...)
{
	struct mmc_error *err;
	va_list ap;

	va_start(ap, fmt);
	err = mmc_error_vcreate(code, path, true, address, fmt, ap);
	va_end(ap);
	return err;
}

struct mmc_error *mmc_error_nodata(const char *path, uint64_t address,
				   enum mmc_unread_reason reason,
				   const char *fmt, ...)
{
	struct mmc_error *err;
	va_list ap;

	va_start(ap, fmt);
	err = mmc_error_vcreate(MMC_ERR_NODATA, path, true, address, fmt, ap);
	va_end(ap);
	if (err != &nomem_error)
		err->reason = (uint8_t)reason;
	return err;
}

const char *mmc_unread_reason_name(enum mmc_unread_reason reason)
{
	switch (reason) {
	case MMC_UR_NONE: return "";
	case MMC_UR_ABSENT: return "absent";
	case MMC_UR_TRUNCATED: return "truncated";
	case MMC_UR_CORRUPT: return "corrupt";
	case MMC_UR_UNKNOWN: return "unknown";
	}
	return "?";
}

struct mmc_error *mmc_error_os(int errnum, const char *path,
			       const char *fmt, ...)
{
	struct mmc_error *err;
	va_list ap;

	va_start(ap, fmt);
	err = mmc_error_vcreate(MMC_ERR_OS, path, false, 0, fmt, ap);
	va_end(ap);
	if (err != &nomem_error)
		err->errnum = errnum;
	return err;
}

struct mmc_error *mmc_error_prefix(struct mmc_error *err, const char *fmt, ...)
{
	va_list ap;
	char *pre, *msg;
	size_t n;

	if (!err || err == &nomem_error)
		return err;
	va_start(ap, fmt);
	pre = vformat(fmt, ap);
	va_end(ap);
	if (!pre)
		return err;
	n = strlen(pre) + strlen(err->message) + 3;
	msg = malloc(n);
	if (msg) {
		snprintf(msg, n, "%s: %s", pre, err->message);
		free(err->message);
		err->message = msg;
	}
	free(pre);
	return err;
}

struct mmc_error *mmc_error_suffix(struct mmc_error *err, const char *fmt, ...)
{
	va_list ap;
	char *post, *msg;
	size_t n;

	if (!err || err == &nomem_error)
		return err;
	va_start(ap, fmt);
	post = vformat(fmt, ap);
	va_end(ap);
	if (!post)
		return err;
	n = strlen(err->message) + strlen(post) + 1;
	msg = malloc(n);
	if (msg) {
		snprintf(msg, n, "%s%s", err->message, post);
		free(err->message);
		err->message = msg;
	}
	free(post);
	return err;
}

void mmc_error_destroy(struct mmc_error *err)
{
	if (!err || err == &nomem_error)
		return;
	free(err->path);
	free(err->message);
	free(err);
}

char *mmc_error_string(const struct mmc_error *err)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	mmc_error_fprint(f, err);
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

void mmc_error_fprint(FILE *out, const struct mmc_error *err)
{
	if (!err)
		return;
	if (err->path)
		fprintf(out, "%s: ", err->path);
	if (err->has_address)
		fprintf(out, "0x%llx: ", (unsigned long long)err->address);
	fputs(err->message, out);
	if (err->code == MMC_ERR_OS && err->errnum)
		fprintf(out, ": %s", strerror(err->errnum));
}

int mmc_error_exit_code(const struct mmc_error *err)
{
	switch (err->code) {
	case MMC_ERR_USAGE:
	case MMC_ERR_INPUT:
	case MMC_ERR_MISMATCH:
	case MMC_ERR_LAYOUT:
	case MMC_ERR_CORRUPT:
	case MMC_ERR_OS:
		return 2;
	case MMC_ERR_NODATA:
		return 4;
	default:
		return 3;
	}
}

const char *mmc_error_code_name(enum mmc_error_code code)
{
	switch (code) {
	case MMC_ERR_USAGE: return "usage";
	case MMC_ERR_INPUT: return "input";
	case MMC_ERR_MISMATCH: return "mismatch";
	case MMC_ERR_NODATA: return "nodata";
	case MMC_ERR_CORRUPT: return "corrupt";
	case MMC_ERR_LAYOUT: return "layout";
	case MMC_ERR_OS: return "os";
	case MMC_ERR_NOMEM: return "nomem";
	case MMC_ERR_INTERNAL: return "internal";
	case MMC_ERR_INTERRUPTED: return "interrupted";
	}
	return "unknown";
}
