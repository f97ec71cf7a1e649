// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Layout without a kernel: a hand-built layout, check(), enum look-ups,
 * fingerprint, compare, copy, and the saved-layout file (round trip and
 * every kind of damage the reader must refuse).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bytes.h"
#include "layout.h"
#include "tap.h"

static void set_member(struct mmc_layout *l, enum mmc_member_id id,
		       const char *name, uint32_t off, uint32_t size,
		       uint32_t count)
{
	struct mmc_member *m = &l->member[id];

	m->found = true;
	m->offset = off;
	m->size = size;
	m->count = count;
	snprintf(m->name, sizeof(m->name), "%s", name);
}

/* Roughly 6.12 x86_64 (values only need to be plausible here). */
static struct mmc_layout *build(void)
{
	static const char *const pf[] = {
		"PG_locked", "PG_writeback", "PG_referenced", "PG_uptodate",
		"PG_dirty", "PG_lru", "PG_head", "PG_waiters", "PG_active",
		"PG_workingset", "PG_owner_priv_1", "PG_owner_2", "PG_arch_1",
		"PG_reserved",
	};
	struct mmc_layout *l = mmc_layout_create();
	int i;

	if (!l)
		return NULL;
	strcpy(l->release, "6.12.117");
	strcpy(l->build_id, "0123456789abcdef0123456789abcdef01234567");
	strcpy(l->source, "hand built");
	/* Every member plausible, then the real ones on top. */
	for (i = 0; i < MMC_MEMBER_COUNT; i++)
		set_member(l, i, mmc_member_specs[i].candidates[0], 8 * (uint32_t)i,
			   8, 0);
	set_member(l, MMC_PAGE_FLAGS, "flags", 0, 8, 0);
	set_member(l, MMC_PAGE_COMPOUND_HEAD, "compound_head", 8, 8, 0);
	set_member(l, MMC_PAGE_INDEX, "index", 32, 8, 0);
	set_member(l, MMC_FOLIO_FLAGS_1, "_flags_1", 64, 8, 0);
	set_member(l, MMC_FOLIO_ENTIRE_MAPCOUNT, "_entire_mapcount", 84, 4, 0);
	set_member(l, MMC_XA_NODE_SLOTS, "slots", 40, 512, 64);
	l->member[MMC_FOLIO_PGMAP].found = false;
	l->member[MMC_FOLIO_MM_IDS].found = false;
	for (i = 0; i < MMC_SIZE_COUNT; i++) {
		l->size_found[i] = true;
		l->size[i] = 64 + 16 * (uint64_t)i;
	}
	for (i = 0; i < MMC_SYM_COUNT; i++) {
		l->sym_found[i] = true;
		l->sym[i] = 0xffffffff81000000ULL + 0x1000 * (uint64_t)i;
	}
	l->sym_found[MMC_SYM_NODE_DATA] = false;
	l->sym[MMC_SYM_NODE_DATA] = 0;
	for (i = 0; i < (int)(sizeof(pf) / sizeof(pf[0])); i++)
		if (mmc_layout_enum_add(l, MMC_ENUM_PAGEFLAGS, pf[i], i))
			goto fail;
	/* Aliases share a value: enum_name() must return the first. */
	if (mmc_layout_enum_add(l, MMC_ENUM_PAGEFLAGS, "PG_checked", 10) ||
	    mmc_layout_enum_add(l, MMC_ENUM_PAGEFLAGS, "__NR_PAGEFLAGS", 23) ||
	    mmc_layout_enum_add(l, MMC_ENUM_MEMORY_TYPE, "MEMORY_DEVICE_PRIVATE", 1) ||
	    mmc_layout_enum_add(l, MMC_ENUM_MEMORY_TYPE, "MEMORY_DEVICE_FS_DAX", 3) ||
	    mmc_layout_enum_add(l, MMC_ENUM_ZONE_TYPE, "ZONE_NORMAL", 2) ||
	    mmc_layout_enum_add(l, MMC_ENUM_ZONE_TYPE, "ZONE_DEVICE", 4) ||
	    mmc_layout_enum_add(l, MMC_ENUM_ZONE_TYPE, "NEGATIVE_TEST", -5))
		goto fail;
	return l;
fail:
	mmc_layout_destroy(l);
	return NULL;
}

static char *to_text(const struct mmc_layout *l, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	struct mmc_error *err;

	if (!f)
		return NULL;
	err = mmc_layout_write_text(f, l);
	fclose(f);
	if (err) {
		mmc_error_destroy(err);
		free(buf);
		return NULL;
	}
	return buf;
}

/* Parse `text`; expect an error whose message contains `want`. */
static void expect_bad(const char *text, size_t len, const char *want,
		       const char *what)
{
	struct mmc_layout *l = NULL;
	struct mmc_error *err = mmc_layout_parse_text(text, len, "t.layout", &l);

	tap_ok(err && err->path && !strcmp(err->path, "t.layout") &&
	       strstr(err->message, want), "%s: error mentions \"%s\"", what, want);
	if (err)
		tap_diag("%s", err->message);
	mmc_error_destroy(err);
	mmc_layout_destroy(l);
}

/* Replace the first occurrence of `from` with `to` (checksum left stale). */
static char *edit(const char *text, const char *from, const char *to)
{
	const char *p = strstr(text, from);
	char *out;

	if (!p)
		return NULL;
	out = malloc(strlen(text) - strlen(from) + strlen(to) + 1);
	if (!out)
		return NULL;
	memcpy(out, text, (size_t)(p - text));
	strcpy(out + (p - text), to);
	strcat(out, p + strlen(from));
	return out;
}

/* Re-seal an edited text with a correct checksum, to reach the body checks. */
static char *reseal(const char *text)
{
	const char *c = strstr(text, "checksum ");
	char *out;
	size_t n;

	if (!c)
		return NULL;
	n = (size_t)(c - text);
	out = malloc(n + 32);
	if (!out)
		return NULL;
	memcpy(out, text, n);
	snprintf(out + n, 32, "checksum %016llx\n", (unsigned long long)fnv1a64(text, n));
	return out;
}

static void test_body_errors(const char *text)
{
	static const struct { const char *from, *to, *want, *what; } cases[] = {
		{ "max_numnodes 1\n", "max_numnodes 1\nbogus 1\n", "unknown key", "unknown key" },
		{ "size page 64\n", "size page 64\nsize page 64\n", "duplicate size", "duplicate" },
		{ "size page 64\n", "size page 6x4\n", "bad number", "bad number" },
		{ "size page 64\n", "size page -64\n", "bad number", "negative size" },
		{ "size page 64\n", "", "no line for size page", "missing size line" },
		{ "member folio.pgmap missing\n", "", "no line for member folio.pgmap", "missing member line" },
		{ "member page.flags page flags ", "member page.flags page flogs ", "not a known name", "unknown member name" },
		{ "member page.flags page flags 0 8 0\n", "member page.flags page flags 0 8\n", "expected type", "short member line" },
		{ "member page.flags page flags 0 8 0\n", "member page.flags page flags 0 99999999999 0\n", "bad number", "u32 overflow" },
		{ "member page.flags page flags 0 8 0\n", "member page.flags  page flags 0 8 0\n", "spacing", "double space" },
		{ "symbol _text 0x", "symbol _text 0xg", "bad address", "bad hex" },
		{ "enum zone_type ZONE_DEVICE 4\n", "enum zone_type ZONE_DEVICE 4\nenum zone_type ZONE_DEVICE 4\n", "duplicate enumerator", "duplicate enumerator" },
		{ "enum zone_type ZONE_DEVICE 4\n", "enum zone_type ZONE_DEVICE 4\nenum zone_type missing\n", "both missing", "enum missing and present" },
		{ "max_numnodes 1\n", "max_numnodes 0\n", "max_numnodes", "zero max_numnodes" },
		{ "release 6.12.117\n", "release 6.12.117\nrelease 6.12.117\n", "duplicate release", "duplicate release" },
		{ "max_numnodes 1\n", "max_numnodes 1\n\n", "empty line", "empty line" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *e = edit(text, cases[i].from, cases[i].to);
		char *s = e ? reseal(e) : NULL;

		if (!tap_ok(s != NULL, "%s: made the damaged file", cases[i].what)) {
			free(e);
			continue;
		}
		expect_bad(s, strlen(s), cases[i].want, cases[i].what);
		free(e);
		free(s);
	}
}

/* Drop every line of `text` that starts with `prefix`. */
static void drop_lines(char *text, const char *prefix)
{
	char *p = text;

	while ((p = strstr(p, prefix))) {
		char *nl = strchr(p, '\n');

		if (p != text && p[-1] != '\n') {
			p++;
			continue;
		}
		memmove(p, nl + 1, strlen(nl + 1) + 1);
	}
}

/*
 * Version 1 files (and the layouts embedded in version 1-3 snapshots)
 * have no lines for what version 2 added: they read, those items missing,
 * with the same fingerprint; a version 1 file that has such a line is not
 * one, and a version 2 file must have them all.
 */
/* Drop every line of the items a saved layout after version `v` added. */
static void drop_since(char *text, unsigned int v)
{
	char prefix[80];

	for (int i = 0; i < MMC_MEMBER_COUNT; i++) {
		if (mmc_member_specs[i].since <= v)
			continue;
		snprintf(prefix, sizeof(prefix), "member %s ", mmc_member_specs[i].label);
		drop_lines(text, prefix);
	}
	for (int i = 0; i < MMC_SIZE_COUNT; i++) {
		if (mmc_size_specs[i].since <= v)
			continue;
		snprintf(prefix, sizeof(prefix), "size %s ", mmc_size_specs[i].type);
		drop_lines(text, prefix);
	}
	for (int i = 0; i < MMC_SYM_COUNT; i++) {
		if (mmc_symbol_specs[i].since <= v)
			continue;
		snprintf(prefix, sizeof(prefix), "symbol %s ", mmc_symbol_specs[i].name);
		drop_lines(text, prefix);
	}
	for (int i = 0; i < MMC_ENUM_COUNT; i++) {
		if (mmc_enum_specs[i].since <= v)
			continue;
		snprintf(prefix, sizeof(prefix), "enum %s ", mmc_enum_specs[i].type);
		drop_lines(text, prefix);
	}
}

/*
 * Version 2 files (and the layouts embedded in version 4 snapshots) have
 * no lines for the HugeTLB and memory block items version 3 added: they
 * read, those items missing, with the same fingerprint; a version 2 file
 * with such a line is not one, and a version 3 file must have them all.
 */
static void test_version2(const struct mmc_layout *l, const char *text)
{
	char *v2 = edit(text, "memmapcheck-layout 3\n", "memmapcheck-layout 2\n"), *s = NULL;
	struct mmc_layout *back = NULL;
	struct mmc_error *err;
	bool missing = true;

	if (!v2) {
		tap_ok(0, "version 2 text made");
		return;
	}
	drop_since(v2, 2);
	s = reseal(v2);
	err = s ? mmc_layout_parse_text(s, strlen(s), "v2.layout", &back) : NULL;
	for (int i = 0; back && i < MMC_MEMBER_COUNT; i++)
		if (mmc_member_specs[i].since == 3 && back->member[i].found)
			missing = false;
	tap_ok(s && !err && back && missing && !back->sym_found[MMC_SYM_HSTATES] &&
	       !back->size_found[MMC_SIZE_HSTATE] &&
	       !back->enums[MMC_ENUM_HUGETLB_PAGE_FLAGS].found &&
	       back->member[MMC_LIST_HEAD_NEXT].found == l->member[MMC_LIST_HEAD_NEXT].found &&
	       mmc_layout_fingerprint(back) == mmc_layout_fingerprint(l),
	       "version 2 file: reads, the HugeTLB and memory block items missing, the same fingerprint%s%s",
	       err ? ": " : "", err ? err->message : "");
	mmc_error_destroy(err);
	mmc_layout_destroy(back);
	free(s);
	{
		char *e = edit(v2, "max_numnodes 1\n", "max_numnodes 1\nmember hstate.order missing\n");

		s = e ? reseal(e) : NULL;
		if (s)
			expect_bad(s, strlen(s), "unknown member \"hstate.order\"",
				   "version 2 file with a version 3 line");
		free(e);
		free(s);
	}
	free(v2);
	v2 = strdup(text);
	if (v2) {
		drop_lines(v2, "member hstate.order ");
		s = reseal(v2);
		if (s)
			expect_bad(s, strlen(s), "no line for member hstate.order",
				   "version 3 file without a version 3 line");
		free(s);
	}
	free(v2);
}

static void test_version1(const struct mmc_layout *l, const char *text)
{
	char *v1 = edit(text, "memmapcheck-layout 3\n", "memmapcheck-layout 1\n"), *s = NULL;
	struct mmc_layout *back = NULL;
	struct mmc_error *err;
	bool missing = true;

	if (!v1) {
		tap_ok(0, "version 1 text made");
		return;
	}
	drop_since(v1, 1);
	s = reseal(v1);
	err = s ? mmc_layout_parse_text(s, strlen(s), "v1.layout", &back) : NULL;
	for (int i = 0; back && i < MMC_MEMBER_COUNT; i++)
		if (mmc_member_specs[i].since && back->member[i].found)
			missing = false;
	tap_ok(s && !err && back && missing && !back->sym_found[MMC_SYM_DAX_SUPERBLOCK] &&
	       !back->size_found[MMC_SIZE_DEV_DAX_RANGE] &&
	       mmc_layout_fingerprint(back) == mmc_layout_fingerprint(l),
	       "version 1 file: reads, the device-dax chain missing, the same fingerprint%s%s",
	       err ? ": " : "", err ? err->message : "");
	mmc_error_destroy(err);
	mmc_layout_destroy(back);
	free(s);
	{
		char *e = edit(v1, "max_numnodes 1\n", "max_numnodes 1\nmember list_head.next missing\n");

		s = e ? reseal(e) : NULL;
		if (s)
			expect_bad(s, strlen(s), "unknown member \"list_head.next\"",
				   "version 1 file with a version 2 line");
		free(e);
		free(s);
	}
	free(v1);
	v1 = strdup(text);
	if (v1) {
		drop_lines(v1, "member list_head.next ");
		s = reseal(v1);
		if (s)
			expect_bad(s, strlen(s), "no line for member list_head.next",
				   "version 2 file without a version 2 line");
		free(s);
	}
	free(v1);
}

static void test_file(const struct mmc_layout *l)
{
	struct mmc_layout *back = NULL;
	struct mmc_error *err;
	char path[] = "/tmp/mmc-test-layout-XXXXXX";
	char *text, *text2, *bad;
	size_t len, len2;
	int fd;

	text = to_text(l, &len);
	if (!tap_ok(text != NULL, "write_text"))
		return;
	tap_ok(!strncmp(text, "memmapcheck-layout 3\n", 21), "first line is the version");
	err = mmc_layout_parse_text(text, len, "mem", &back);
	tap_ok(err == NULL, "parse_text of write_text");
	mmc_error_destroy(err);
	if (back) {
		err = mmc_layout_compare(l, back, true);
		tap_ok(err == NULL, "text round trip equal (with symbols)");
		mmc_error_destroy(err);
		tap_ok(!strcmp(back->source, "mem"), "loaded layout names its file");
		tap_ok(!strcmp(back->release, l->release) &&
		       !strcmp(back->build_id, l->build_id), "release and build-id kept");
		TAP_EQ_U64(mmc_layout_fingerprint(back), mmc_layout_fingerprint(l),
			   "fingerprint survives the round trip");
		/* Same text back, apart from the source line. */
		strcpy(back->source, l->source);
		text2 = to_text(back, &len2);
		tap_ok(text2 && len2 == len && !memcmp(text, text2, len),
		       "write(parse(write(x))) == write(x)");
		free(text2);
		mmc_layout_destroy(back);
		back = NULL;
	}

	/* save/load through a real file */
	fd = mkstemp(path);
	if (fd >= 0)
		close(fd);
	err = mmc_layout_save(l, path);
	tap_ok(err == NULL, "save to %s", path);
	mmc_error_destroy(err);
	err = mmc_layout_load(path, &back);
	tap_ok(err == NULL && back, "load");
	mmc_error_destroy(err);
	if (back) {
		err = mmc_layout_compare(l, back, true);
		tap_ok(err == NULL, "save/load round trip equal");
		mmc_error_destroy(err);
		mmc_layout_destroy(back);
		back = NULL;
	}
	unlink(path);
	err = mmc_layout_load(path, &back);
	tap_ok(err && err->code == MMC_ERR_OS && err->path &&
	       !strcmp(err->path, path), "load of an absent file names it");
	mmc_error_destroy(err);
	err = mmc_layout_save(l, "/nonexistent-dir/x.layout");
	tap_ok(err != NULL, "save into a missing directory fails");
	mmc_error_destroy(err);

	/* damage */
	expect_bad(text, len / 2, "truncated", "cut in the middle");
	expect_bad(text, len - 1, "truncated", "final newline lost");
	bad = strdup(text);
	if (bad) {
		char *p = strstr(bad, "member page.refcount");

		p[15] ^= 0x01;	/* one bit of the label: still parseable text */
		expect_bad(bad, len, "checksum mismatch", "one flipped byte");
		free(bad);
	}
	bad = edit(text, "memmapcheck-layout 2", "memmapcheck-layout 3");
	if (bad)
		expect_bad(bad, len, "unsupported layout file version 3", "version 3");
	free(bad);
	bad = edit(text, "memmapcheck-layout 2", "memmapcheck-layoux 2");
	if (bad)
		expect_bad(bad, len, "not a memmapcheck layout", "bad magic");
	free(bad);
	{
		/* Everything up to (not including) the checksum line. */
		size_t n = (size_t)(strstr(text, "checksum ") - text);

		expect_bad(text, n, "no final checksum", "checksum line lost");
	}
	expect_bad("", 0, "truncated", "empty file");
	test_body_errors(text);
	test_version1(l, text);
	test_version2(l, text);
	free(text);
}

/* Enum helpers: values, names, aliases, absent and negative ones. */
static void test_enums(const struct mmc_layout *l)
{
	int64_t v;

	tap_ok(mmc_layout_enum_value(l, MMC_ENUM_PAGEFLAGS, "PG_head", &v) && v == 6,
	       "enum_value PG_head");
	tap_ok(!mmc_layout_enum_value(l, MMC_ENUM_PAGEFLAGS, "PG_nope", &v),
	       "enum_value of an absent name");
	tap_ok(!strcmp(mmc_layout_enum_name(l, MMC_ENUM_PAGEFLAGS, 10),
		       "PG_owner_priv_1"), "enum_name returns the first alias");
	tap_ok(mmc_layout_enum_value(l, MMC_ENUM_PAGEFLAGS, "PG_checked", &v) &&
	       v == 10, "alias keeps its own name");
	tap_ok(mmc_layout_enum_name(l, MMC_ENUM_ZONE_TYPE, 3) == NULL,
	       "enum_name of an absent value");
	tap_ok(mmc_layout_enum_value(l, MMC_ENUM_ZONE_TYPE, "NEGATIVE_TEST", &v) &&
	       v == -5, "negative enumerator");
}

/*
 * Fingerprint: stable, symbol-blind, type-sensitive; compare names what
 * differs.  Returns the copy these cases changed (NULL if copying failed).
 */
static struct mmc_layout *test_fingerprint_compare(const struct mmc_layout *l)
{
	struct mmc_layout *c = NULL;
	struct mmc_error *err;
	uint64_t fp;

	fp = mmc_layout_fingerprint(l);
	tap_ok(fp != 0 && fp == mmc_layout_fingerprint(l), "fingerprint is stable");
	err = mmc_layout_copy(l, &c);
	tap_ok(err == NULL && c, "copy");
	mmc_error_destroy(err);
	if (!c)
		return NULL;
	err = mmc_layout_compare(l, c, true);
	tap_ok(err == NULL, "copy compares equal");
	mmc_error_destroy(err);
	c->sym[MMC_SYM_TEXT] += 0x200000;
	TAP_EQ_U64(mmc_layout_fingerprint(c), fp, "fingerprint ignores symbols");
	err = mmc_layout_compare(l, c, false);
	tap_ok(err == NULL, "compare without symbols ignores them");
	mmc_error_destroy(err);
	err = mmc_layout_compare(l, c, true);
	tap_ok(err && strstr(err->message, "symbol _text"),
	       "compare with symbols names _text");
	mmc_error_destroy(err);
	c->member[MMC_PAGE_REFCOUNT].offset += 4;
	tap_ok(mmc_layout_fingerprint(c) != fp, "fingerprint sees an offset");
	err = mmc_layout_compare(l, c, false);
	tap_ok(err && err->code == MMC_ERR_MISMATCH &&
	       strstr(err->message, "page.refcount"),
	       "compare names the moved member");
	if (err)
		tap_diag("%s", err->message);
	mmc_error_destroy(err);
	c->member[MMC_PAGE_REFCOUNT].offset -= 4;
	free(c->enums[MMC_ENUM_PAGEFLAGS].values[5].name);
	c->enums[MMC_ENUM_PAGEFLAGS].values[5].name = strdup("PG_lru2");
	tap_ok(mmc_layout_fingerprint(c) != fp, "fingerprint sees an enumerator");
	for (int i = 0; i < MMC_MEMBER_COUNT; i++)
		c->member[i].size++;
	err = mmc_layout_compare(l, c, false);
	tap_ok(err && strstr(err->message, "more"),
	       "many differences are summarised");
	mmc_error_destroy(err);
	return c;
}

/* check() on that copy: names every missing required item and the source. */
static void test_check_missing(struct mmc_layout *c)
{
	struct mmc_error *err;

	c->member[MMC_PAGE_REFCOUNT].found = false;
	c->member[MMC_PAGE_PGMAP].found = false;
	c->sym_found[MMC_SYM_PGMAP_ARRAY] = false;
	c->size_found[MMC_SIZE_XA_NODE] = false;
	err = mmc_layout_check(c);
	tap_ok(err && err->code == MMC_ERR_LAYOUT &&
	       err->path && !strcmp(err->path, "hand built") &&
	       strstr(err->message, "page.refcount") &&
	       strstr(err->message, "pgmap") &&
	       strstr(err->message, "pgmap_array") &&
	       strstr(err->message, "xa_node") &&
	       !strstr(err->message, "memcg"),
	       "check() lists every missing item, not the optional ones");
	if (err)
		tap_diag("%s", err->message);
	mmc_error_destroy(err);
	c->member[MMC_FOLIO_PGMAP].found = true;
	c->member[MMC_PAGE_REFCOUNT].found = true;
	c->sym_found[MMC_SYM_PGMAP_ARRAY] = true;
	c->size_found[MMC_SIZE_XA_NODE] = true;
	err = mmc_layout_check(c);
	tap_ok(err == NULL, "pgmap in folio is enough");
	mmc_error_destroy(err);
	c->member[MMC_PAGE_FLAGS].found = false;
	err = mmc_layout_check(c);
	tap_ok(err && strstr(err->message, "page.flags"), "flags is required");
	mmc_error_destroy(err);
}

int main(void)
{
	struct mmc_layout *l = build(), *c;
	struct mmc_error *err;

	if (!tap_ok(l != NULL, "build a layout by hand"))
		return tap_done();
	err = mmc_layout_check(l);
	tap_ok(err == NULL, "complete layout passes check()");
	mmc_error_destroy(err);
	test_enums(l);
	c = test_fingerprint_compare(l);
	if (c) {
		test_check_missing(c);
		mmc_layout_destroy(c);
	}
	test_file(l);
	mmc_layout_destroy(l);
	return tap_done();
}
