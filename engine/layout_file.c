// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Saved layout: the resolved struct mmc_layout as versioned, line-oriented
 * text, so a dump can be checked on a machine without the 600 MB debug
 * vmlinux (the idea of makedumpfile -g).  Format, one entry per line:
 *
 *   memmapcheck-layout 3           (versions 1 and 2 are still read)
 *   release 6.12.117
 *   build_id 0123abcd...            (may be empty)
 *   source /path/to/vmlinux         (rest of the line)
 *   max_numnodes 1
 *   member <label> <type> <name> <offset> <size> <count>
 *   member <label> missing
 *   size <type> <bytes> | size <type> missing
 *   symbol <name> 0x<hex> | symbol <name> missing
 *   enum <type> <enumerator> <value> | enum <type> missing
 *   checksum <16 hex digits: FNV-1a 64 of every byte before this line>
 *
 * Every item of the spec tables appears exactly once (as a value or as
 * "missing"), so a file that lost lines is caught even before the checksum;
 * a version 1 file has no lines for the items version 2 added (the
 * device-dax chain), a version 2 file none for those of version 3 (the
 * HugeTLB and memory block structures, two enums), and they read as missing.
 * The reader is strict: an unknown key, a duplicate, a bad number, a wrong
 * checksum or a missing final line is an error naming the file and line.
 */
#include "outfile.h"
#include "layout.h"
#include "mmc_util.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LAYOUT_MAGIC "memmapcheck-layout"
#define LAYOUT_VERSION 3
/* Real layouts are ~10 KB; anything this big is not one. */
#define LAYOUT_MAX_BYTES (16u << 20)
#define MAX_TOKENS 8

static bool has_space(const char *s)
{
	return strpbrk(s, " \t\r\n") != NULL;
}

static void write_body(FILE *f, const struct mmc_layout *l)
{
	fprintf(f, "%s %d\n", LAYOUT_MAGIC, LAYOUT_VERSION);
	fprintf(f, "release %s\n", l->release);
	fprintf(f, "build_id %s\n", l->build_id);
	fprintf(f, "source %s\n", l->source);
	fprintf(f, "max_numnodes %" PRIu32 "\n", l->max_numnodes);
	for (int i = 0; i < MMC_MEMBER_COUNT; i++) {
		const struct mmc_member_spec *s = &mmc_member_specs[i];
		const struct mmc_member *m = &l->member[i];

		if (m->found)
			fprintf(f, "member %s %s %s %" PRIu32 " %" PRIu32 " %" PRIu32 "\n",
				s->label, s->type, m->name, m->offset, m->size,
				m->count);
		else
			fprintf(f, "member %s missing\n", s->label);
	}
	for (int i = 0; i < MMC_SIZE_COUNT; i++) {
		if (l->size_found[i])
			fprintf(f, "size %s %" PRIu64 "\n", mmc_size_specs[i].type,
				l->size[i]);
		else
			fprintf(f, "size %s missing\n", mmc_size_specs[i].type);
	}
	for (int i = 0; i < MMC_SYM_COUNT; i++) {
		if (l->sym_found[i])
			fprintf(f, "symbol %s 0x%" PRIx64 "\n",
				mmc_symbol_specs[i].name, l->sym[i]);
		else
			fprintf(f, "symbol %s missing\n", mmc_symbol_specs[i].name);
	}
	for (int i = 0; i < MMC_ENUM_COUNT; i++) {
		const struct mmc_enum *e = &l->enums[i];

		if (!e->found || !e->count) {
			fprintf(f, "enum %s missing\n", mmc_enum_specs[i].type);
			continue;
		}
		for (size_t j = 0; j < e->count; j++)
			fprintf(f, "enum %s %s %" PRId64 "\n", mmc_enum_specs[i].type,
				e->values[j].name, e->values[j].value);
	}
}

struct mmc_error *mmc_layout_write_text(FILE *out, const struct mmc_layout *layout)
{
	struct mmc_error *err = NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	/* A space or newline in a value would make the file unreadable. */
	if (has_space(layout->release) || has_space(layout->build_id) ||
	    strpbrk(layout->source, "\r\n"))
		return mmc_error_create(MMC_ERR_INTERNAL, NULL,
					"layout release/build-id/source contains whitespace");
	for (int i = 0; i < MMC_ENUM_COUNT; i++)
		for (size_t j = 0; j < layout->enums[i].count; j++)
			if (!layout->enums[i].values[j].name[0] ||
			    has_space(layout->enums[i].values[j].name))
				return mmc_error_create(MMC_ERR_INTERNAL, NULL,
							"bad enumerator name in enum %s",
							mmc_enum_specs[i].type);
	f = open_memstream(&buf, &len);
	if (!f)
		return mmc_error_nomem();
	write_body(f, layout);
	if (fclose(f) != 0) {
		free(buf);
		return mmc_error_nomem();
	}
	if (fwrite(buf, 1, len, out) != len ||
	    fprintf(out, "checksum %016" PRIx64 "\n", mmc_fnv1a(MMC_FNV1A_INIT, buf, len)) < 0)
		err = mmc_error_os(errno, NULL, "write layout");
	free(buf);
	return err;
}

/* Parser state: one file, one line at a time. */
struct parser {
	const char *path;
	unsigned int lineno;
	struct mmc_layout *l;
	unsigned int version;
	bool seen_member[MMC_MEMBER_COUNT];
	bool seen_size[MMC_SIZE_COUNT];
	bool seen_sym[MMC_SYM_COUNT];
	bool seen_enum_missing[MMC_ENUM_COUNT];
	bool seen_release, seen_build_id, seen_source, seen_numnodes;
};

static struct mmc_error *perr(const struct parser *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static struct mmc_error *perr(const struct parser *p, const char *fmt, ...)
{
	struct mmc_error *err;
	va_list ap;

	va_start(ap, fmt);
	err = mmc_error_vcreate(MMC_ERR_INPUT, p->path, false, 0, fmt, ap);
	va_end(ap);
	return mmc_error_prefix(err, "line %u", p->lineno);
}

/* Unsigned decimal, or hex with a mandatory 0x; no sign, no blanks. */
static bool parse_u64(const char *s, bool hex, uint64_t *out)
{
	char *end;

	if (hex) {
		if (s[0] != '0' || s[1] != 'x')
			return false;
		s += 2;
	}
	/* strtoull would skip blanks and accept a sign: refuse both. */
	if (!*s || !strchr(hex ? "0123456789abcdefABCDEF" : "0123456789", *s))
		return false;
	errno = 0;
	*out = strtoull(s, &end, hex ? 16 : 10);
	return errno == 0 && *end == '\0';
}

static bool parse_u32(const char *s, uint32_t *out)
{
	uint64_t v;

	if (!parse_u64(s, false, &v) || v > UINT32_MAX)
		return false;
	*out = (uint32_t)v;
	return true;
}

static bool parse_s64(const char *s, int64_t *out)
{
	const char *d = s[0] == '-' ? s + 1 : s;
	char *end;

	if (!*d || !strchr("0123456789", *d))
		return false;
	errno = 0;
	*out = strtoll(s, &end, 10);
	return errno == 0 && *end == '\0';
}

static struct mmc_error *set_string(struct parser *p, char *dst, size_t size,
				    bool *seen, const char *key,
				    const char *value)
{
	if (*seen)
		return perr(p, "duplicate %s", key);
	*seen = true;
	if (strlen(value) >= size)
		return perr(p, "%s too long", key);
	strcpy(dst, value);
	return NULL;
}

static struct mmc_error *parse_member(struct parser *p, char **tok, int n)
{
	const struct mmc_member_spec *s = NULL;
	struct mmc_member *m;
	int i, c;

	for (i = 0; i < MMC_MEMBER_COUNT; i++) {
		if (n >= 2 && !strcmp(tok[1], mmc_member_specs[i].label)) {
			s = &mmc_member_specs[i];
			break;
		}
	}
	if (!s || s->since > p->version)
		return perr(p, "unknown member \"%s\"", n >= 2 ? tok[1] : "");
	if (p->seen_member[i])
		return perr(p, "duplicate member %s", s->label);
	p->seen_member[i] = true;
	if (n == 3 && !strcmp(tok[2], "missing"))
		return NULL;
	if (n != 7)
		return perr(p, "member %s: expected type, name, offset, size, count",
			    s->label);
	if (strcmp(tok[2], s->type))
		return perr(p, "member %s: type %s, expected %s", s->label,
			    tok[2], s->type);
	for (c = 0; c < 4 && s->candidates[c]; c++)
		if (!strcmp(tok[3], s->candidates[c]))
			break;
	if (c == 4 || !s->candidates[c])
		return perr(p, "member %s: \"%s\" is not a known name of it",
			    s->label, tok[3]);
	m = &p->l->member[i];
	if (!parse_u32(tok[4], &m->offset) || !parse_u32(tok[5], &m->size) ||
	    !parse_u32(tok[6], &m->count))
		return perr(p, "member %s: bad number", s->label);
	snprintf(m->name, sizeof(m->name), "%s", tok[3]);
	m->found = true;
	return NULL;
}

static struct mmc_error *parse_size(struct parser *p, char **tok, int n)
{
	int i;

	for (i = 0; i < MMC_SIZE_COUNT; i++)
		if (n >= 2 && !strcmp(tok[1], mmc_size_specs[i].type))
			break;
	if (i == MMC_SIZE_COUNT || mmc_size_specs[i].since > p->version)
		return perr(p, "unknown size \"%s\"", n >= 2 ? tok[1] : "");
	if (p->seen_size[i])
		return perr(p, "duplicate size %s", tok[1]);
	p->seen_size[i] = true;
	if (n != 3)
		return perr(p, "size %s: expected one value", tok[1]);
	if (!strcmp(tok[2], "missing"))
		return NULL;
	if (!parse_u64(tok[2], false, &p->l->size[i]))
		return perr(p, "size %s: bad number \"%s\"", tok[1], tok[2]);
	p->l->size_found[i] = true;
	return NULL;
}

static struct mmc_error *parse_symbol(struct parser *p, char **tok, int n)
{
	int i;

	for (i = 0; i < MMC_SYM_COUNT; i++)
		if (n >= 2 && !strcmp(tok[1], mmc_symbol_specs[i].name))
			break;
	if (i == MMC_SYM_COUNT || mmc_symbol_specs[i].since > p->version)
		return perr(p, "unknown symbol \"%s\"", n >= 2 ? tok[1] : "");
	if (p->seen_sym[i])
		return perr(p, "duplicate symbol %s", tok[1]);
	p->seen_sym[i] = true;
	if (n != 3)
		return perr(p, "symbol %s: expected one value", tok[1]);
	if (!strcmp(tok[2], "missing"))
		return NULL;
	if (!parse_u64(tok[2], true, &p->l->sym[i]))
		return perr(p, "symbol %s: bad address \"%s\"", tok[1], tok[2]);
	p->l->sym_found[i] = true;
	return NULL;
}

static struct mmc_error *parse_enum(struct parser *p, char **tok, int n)
{
	struct mmc_enum *e;
	int64_t value, dummy;
	int i;

	for (i = 0; i < MMC_ENUM_COUNT; i++)
		if (n >= 2 && !strcmp(tok[1], mmc_enum_specs[i].type))
			break;
	if (i == MMC_ENUM_COUNT || mmc_enum_specs[i].since > p->version)
		return perr(p, "unknown enum \"%s\"", n >= 2 ? tok[1] : "");
	e = &p->l->enums[i];
	if (p->seen_enum_missing[i] || (n == 3 && e->found))
		return perr(p, "enum %s: both missing and present", tok[1]);
	if (n == 3 && !strcmp(tok[2], "missing")) {
		p->seen_enum_missing[i] = true;
		return NULL;
	}
	if (n != 4)
		return perr(p, "enum %s: expected enumerator and value", tok[1]);
	if (mmc_layout_enum_value(p->l, i, tok[2], &dummy))
		return perr(p, "enum %s: duplicate enumerator %s", tok[1], tok[2]);
	if (!parse_s64(tok[3], &value))
		return perr(p, "enum %s: bad value \"%s\"", tok[1], tok[3]);
	return mmc_layout_enum_add(p->l, i, tok[2], value);
}

/* One body line (NUL-terminated, no newline). */
static struct mmc_error *parse_line(struct parser *p, char *line)
{
	char *tok[MAX_TOKENS];
	char *value, *save = NULL, *t;
	int n = 0;

	if (!*line)
		return perr(p, "empty line");
	/* Keys whose value is the rest of the line (may be empty). */
	value = strchr(line, ' ');
	if (value)
		*value++ = '\0';
	else
		value = line + strlen(line);
	if (!strcmp(line, "release"))
		return set_string(p, p->l->release, sizeof(p->l->release),
				  &p->seen_release, "release", value);
	if (!strcmp(line, "build_id"))
		return set_string(p, p->l->build_id, sizeof(p->l->build_id),
				  &p->seen_build_id, "build_id", value);
	if (!strcmp(line, "source"))
		return set_string(p, p->l->source, sizeof(p->l->source),
				  &p->seen_source, "source", value);
	tok[n++] = line;
	/* Strict tokens: exactly one space between them, none at the ends. */
	if (*value == ' ' || (*value && value[strlen(value) - 1] == ' ') ||
	    strstr(value, "  ") || strchr(value, '\t') || strchr(value, '\r'))
		return perr(p, "bad spacing");
	for (t = strtok_r(value, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
		if (n == MAX_TOKENS)
			return perr(p, "too many fields");
		tok[n++] = t;
	}
	if (!strcmp(tok[0], "member"))
		return parse_member(p, tok, n);
	if (!strcmp(tok[0], "size"))
		return parse_size(p, tok, n);
	if (!strcmp(tok[0], "symbol"))
		return parse_symbol(p, tok, n);
	if (!strcmp(tok[0], "enum"))
		return parse_enum(p, tok, n);
	if (!strcmp(tok[0], "max_numnodes")) {
		if (p->seen_numnodes)
			return perr(p, "duplicate max_numnodes");
		p->seen_numnodes = true;
		if (n != 2 || !parse_u32(tok[1], &p->l->max_numnodes) ||
		    !p->l->max_numnodes)
			return perr(p, "bad max_numnodes");
		return NULL;
	}
	return perr(p, "unknown key \"%s\"", tok[0]);
}

/* Everything the spec tables list must have had a line. */
static struct mmc_error *check_complete(struct parser *p)
{
	if (!p->seen_release || !p->seen_build_id || !p->seen_source ||
	    !p->seen_numnodes)
		return perr(p, "missing release, build_id, source or max_numnodes line");
	for (int i = 0; i < MMC_MEMBER_COUNT; i++)
		if (!p->seen_member[i] && mmc_member_specs[i].since <= p->version)
			return perr(p, "no line for member %s",
				    mmc_member_specs[i].label);
	for (int i = 0; i < MMC_SIZE_COUNT; i++)
		if (!p->seen_size[i] && mmc_size_specs[i].since <= p->version)
			return perr(p, "no line for size %s", mmc_size_specs[i].type);
	for (int i = 0; i < MMC_SYM_COUNT; i++)
		if (!p->seen_sym[i] && mmc_symbol_specs[i].since <= p->version)
			return perr(p, "no line for symbol %s",
				    mmc_symbol_specs[i].name);
	for (int i = 0; i < MMC_ENUM_COUNT; i++)
		if (!p->seen_enum_missing[i] && !p->l->enums[i].found &&
		    mmc_enum_specs[i].since <= p->version)
			return perr(p, "no line for enum %s", mmc_enum_specs[i].type);
	return NULL;
}

/*
 * Header first (so a wrong version is named as such), then the checksum
 * (so a damaged file is named as damaged rather than by whatever its damage
 * happens to look like), then the body.
 */
static struct mmc_error *parse_all(struct parser *p, char *text, size_t len)
{
	struct mmc_error *err;
	char *line, *nl, *cks_line, *end = text + len;
	unsigned int nlines = 0, version;
	uint64_t want;
	char magic[32];
	char extra;

	if (memchr(text, '\0', len))
		return perr(p, "NUL byte in layout file");
	if (len == 0 || text[len - 1] != '\n') {
		p->lineno = 1;
		for (size_t i = 0; i < len; i++)
			p->lineno += text[i] == '\n';
		return perr(p, "truncated (no final newline)");
	}
	for (char *c = text; c < end; c++)
		nlines += *c == '\n';
	/* Line 1: magic and version. */
	p->lineno = 1;
	nl = memchr(text, '\n', len);
	*nl = '\0';
	if (sscanf(text, "%31s %u%c", magic, &version, &extra) != 2 ||
	    strcmp(magic, LAYOUT_MAGIC))
		return perr(p, "not a memmapcheck layout file");
	if (version < 1 || version > LAYOUT_VERSION)
		return perr(p, "unsupported layout file version %u (this build reads 1 to %d)",
			    version, LAYOUT_VERSION);
	p->version = version;
	*nl = '\n';
	/* Last line: the checksum of everything before it. */
	end[-1] = '\0';
	cks_line = strrchr(text, '\n');
	cks_line = cks_line ? cks_line + 1 : text;
	p->lineno = nlines;
	if (strncmp(cks_line, "checksum ", 9) != 0) {
		/* A checksum line earlier on: something was appended after it. */
		for (char *c = cks_line - 1; c > text; c--) {
			if (c[-1] == '\n' && !strncmp(c, "checksum ", 9)) {
				unsigned int at = 1;

				for (const char *q = text; q < c; q++)
					at += *q == '\n';
				p->lineno = at + 1;
				return perr(p, "text after the checksum line (line %u): appended to the file?", at);
			}
		}
		return perr(p, "truncated: no final checksum line");
	}
	if (strlen(cks_line + 9) != 16 || strspn(cks_line + 9, "0123456789abcdef") != 16)
		return perr(p, "bad checksum line");
	want = strtoull(cks_line + 9, NULL, 16);
	if (mmc_fnv1a(MMC_FNV1A_INIT, text, (size_t)(cks_line - text)) != want)
		return perr(p, "checksum mismatch: file damaged or edited");
	/* Body: lines 2 .. nlines-1. */
	line = nl + 1;
	for (p->lineno = 2; line < cks_line; p->lineno++) {
		nl = strchr(line, '\n');
		*nl = '\0';
		err = parse_line(p, line);
		if (err)
			return err;
		line = nl + 1;
	}
	return check_complete(p);
}

struct mmc_error *mmc_layout_parse_text(const char *text, size_t len,
					const char *path,
					struct mmc_layout **out)
{
	struct parser p = { .path = path };
	struct mmc_error *err;
	char *copy;

	if (len > LAYOUT_MAX_BYTES)
		return mmc_error_create(MMC_ERR_INPUT, path,
					"layout file too large (%zu bytes)", len);
	copy = malloc(len + 1);
	p.l = mmc_layout_create();
	if (!copy || !p.l) {
		err = mmc_error_nomem();
		goto out;
	}
	memcpy(copy, text, len);
	copy[len] = '\0';
	err = parse_all(&p, copy, len);
	if (err)
		goto out;
	/* The layout now comes from this file; it names it in its errors. */
	if (path)
		snprintf(p.l->source, sizeof(p.l->source), "%s", path);
	*out = p.l;
	p.l = NULL;
out:
	mmc_layout_destroy(p.l);
	free(copy);
	return err;
}

struct mmc_error *mmc_layout_load(const char *path, struct mmc_layout **out)
{
	struct mmc_error *err = NULL;
	char *buf = NULL;
	size_t len = 0;
	struct stat st;
	ssize_t r;
	int fd;

	err = mmc_infile_open(path, &fd);
	if (err)
		return err;
	if (fstat(fd, &st) < 0) {
		err = mmc_error_os(errno, path, "fstat");
		goto out;
	}
	if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size > LAYOUT_MAX_BYTES) {
		err = mmc_error_create(MMC_ERR_INPUT, path,
				       "not a regular file of at most %u bytes",
				       LAYOUT_MAX_BYTES);
		goto out;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		err = mmc_error_nomem();
		goto out;
	}
	/* Read to EOF: the size may change under us, the parser catches it. */
	while (len < (size_t)st.st_size) {
		r = read(fd, buf + len, (size_t)st.st_size - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err = mmc_error_os(errno, path, "read");
			goto out;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	err = mmc_layout_parse_text(buf, len, path, out);
out:
	free(buf);
	close(fd);
	return err;
}

struct mmc_error *mmc_layout_save(const struct mmc_layout *layout,
				  const char *path)
{
	struct mmc_error *err = NULL;
	char *tmp;
	FILE *f = NULL;
	int fd;

	if (asprintf(&tmp, "%s.tmp.XXXXXX", path) < 0)
		return mmc_error_nomem();
	fd = mkstemp(tmp);
	if (fd < 0) {
		err = mmc_error_os(errno, tmp, "mkstemp");
		free(tmp);
		return err;
	}
	/* mkstemp makes 0600; a layout is not secret. */
	if (fchmod(fd, 0644) < 0) {
		err = mmc_error_os(errno, tmp, "fchmod");
		close(fd);
		goto out_unlink;
	}
	f = fdopen(fd, "w");
	if (!f) {
		err = mmc_error_os(errno, tmp, "fdopen");
		close(fd);
		goto out_unlink;
	}
	err = mmc_layout_write_text(f, layout);
	if (err) {
		fclose(f);
		goto out_unlink;
	}
	if (fflush(f) != 0 || fsync(fileno(f)) != 0) {
		err = mmc_error_os(errno, tmp, "write");
		fclose(f);
		goto out_unlink;
	}
	if (fclose(f) != 0) {
		err = mmc_error_os(errno, tmp, "close");
		goto out_unlink;
	}
	if (rename(tmp, path) < 0) {
		err = mmc_error_os(errno, path, "rename");
		goto out_unlink;
	}
	free(tmp);
	return NULL;
out_unlink:
	unlink(tmp);
	free(tmp);
	if (err && !err->path && err->code != MMC_ERR_NOMEM)
		err->path = strdup(path);
	return err;
}
