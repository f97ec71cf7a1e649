// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * KCIDB JSON of a diff (report_kcidb.h).  The shape follows kcidb-io's
 * schema v5.3 (test-vectors/kcidb/SOURCE names the commit it was checked
 * against): "version", then "checkouts", "builds" and "tests", each object
 * with an "origin:..." id; a test's path is dot-separated [A-Za-z0-9_-]
 * words.  Statuses: identical PASS, different FAIL, incomplete SKIP with
 * the reason (as KTAP's "# SKIP"): an incomplete comparison never reads as
 * a pass.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "report_int.h"
#include "report_kcidb.h"

static const char *const side_name[2] = { "base", "patched" };

bool mmc_kcidb_origin_valid(const char *origin)
{
	if (!origin || !*origin)
		return false;
	for (const char *p = origin; *p; p++)
		if (!(islower((unsigned char)*p) || isdigit((unsigned char)*p) || *p == '_'))
			return false;
	return true;
}

/* "origin:anything": the id pattern of every KCIDB object. */
static bool origin_id_valid(const char *id)
{
	const char *colon = strchr(id, ':');
	char origin[MMC_KCIDB_TEXT];

	if (!colon || colon == id || (size_t)(colon - id) >= sizeof(origin))
		return false;
	memcpy(origin, id, (size_t)(colon - id));
	origin[colon - id] = 0;
	return mmc_kcidb_origin_valid(origin);
}

static bool hex_of_length(const char *s, size_t n)
{
	size_t i;

	for (i = 0; s[i]; i++)
		if (!isdigit((unsigned char)s[i]) && !(s[i] >= 'a' && s[i] <= 'f'))
			return false;
	return i == n;
}

/* git_repository_url: kcidb-io 5.3 takes ^https:// only (the submitter guide
 * still names git:// as a fallback, which its validator refuses). */
static bool repo_url_valid(const char *s)
{
	return !strncmp(s, "https://", 8);
}

/* A resource name: no '/', not empty. */
static bool resource_name_valid(const char *s)
{
	return *s && !strchr(s, '/');
}

struct kcidb_key {
	const char *name;
	size_t off, size;
};

#define KEY(m) { #m, offsetof(struct mmc_kcidb_kernel, m), sizeof(((struct mmc_kcidb_kernel *)0)->m) }
static const struct kcidb_key keys[] = {
	KEY(checkout_id), KEY(build_id), KEY(tree_name), KEY(git_repository_url),
	KEY(git_commit_hash), KEY(git_commit_name), KEY(patchset_hash),
	KEY(config_name), KEY(architecture), KEY(compiler), KEY(kernel), KEY(snapshot_url),
};
#undef KEY

/* Why a value of key is not what KCIDB takes, or NULL. */
static const char *value_problem(const char *key, const char *v)
{
	if ((!strcmp(key, "checkout_id") || !strcmp(key, "build_id")) && !origin_id_valid(v))
		return "a KCIDB id is ORIGIN:ID with ORIGIN of [a-z0-9_]";
	if (!strcmp(key, "git_commit_hash") && !hex_of_length(v, 40))
		return "a git commit hash is 40 lower-case hex digits";
	if (!strcmp(key, "patchset_hash") && *v && !hex_of_length(v, 64))
		return "a patchset hash is 64 lower-case hex digits (sha256) or empty";
	if (!strcmp(key, "git_repository_url") && !repo_url_valid(v))
		return "KCIDB (kcidb-io 5.3) takes https:// repository URLs only";
	if (!strcmp(key, "architecture")) {
		for (const char *p = v; *p; p++)
			if (!(islower((unsigned char)*p) || isdigit((unsigned char)*p) || *p == '_'))
				return "an architecture is [a-z0-9_]";
	}
	return NULL;
}

static struct mmc_error *set_patch(struct mmc_kcidb_kernel *k, const char *path,
				   unsigned int line, const char *v)
{
	const char *sp = strchr(v, ' ');
	size_t n;

	if (k->npatches == MMC_KCIDB_MAX_PATCHES)
		return mmc_error_create(MMC_ERR_INPUT, path, "line %u: more than %d patch lines",
					line, MMC_KCIDB_MAX_PATCHES);
	if (!sp || !sp[1] || strchr(sp + 1, ' '))
		return mmc_error_create(MMC_ERR_INPUT, path, "line %u: patch takes \"NAME URL\"", line);
	n = (size_t)(sp - v);
	if (n >= sizeof(k->patch_name[0]) || strlen(sp + 1) >= sizeof(k->patch_url[0]))
		return mmc_error_create(MMC_ERR_INPUT, path, "line %u: patch name or URL too long", line);
	memcpy(k->patch_name[k->npatches], v, n);
	k->patch_name[k->npatches][n] = 0;
	if (!resource_name_valid(k->patch_name[k->npatches]) || !strstr(sp + 1, "://"))
		return mmc_error_create(MMC_ERR_INPUT, path,
					"line %u: patch NAME must be a file name (no '/') and URL a URL", line);
	strcpy(k->patch_url[k->npatches], sp + 1);
	k->npatches++;
	return NULL;
}

static struct mmc_error *set_key(struct mmc_kcidb_kernel *k, const char *path,
				 unsigned int line, const char *key, const char *v)
{
	const char *why;

	if (!strcmp(key, "patch"))
		return set_patch(k, path, line, v);
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (strcmp(keys[i].name, key))
			continue;
		if (strlen(v) >= keys[i].size)
			return mmc_error_create(MMC_ERR_INPUT, path, "line %u: %s: value longer than %zu bytes",
						line, key, keys[i].size - 1);
		why = value_problem(key, v);
		if (why)
			return mmc_error_create(MMC_ERR_INPUT, path, "line %u: %s=%s: %s", line, key, v, why);
		strcpy((char *)k + keys[i].off, v);
		return NULL;
	}
	return mmc_error_create(MMC_ERR_INPUT, path, "line %u: unknown key '%s' (doc/LABS.md lists them)",
				line, key);
}

struct mmc_error *mmc_kcidb_kernel_load(const char *path, struct mmc_kcidb_kernel *k)
{
	struct mmc_error *err = NULL;
	char buf[2048];
	unsigned int line = 0;
	FILE *f;

	memset(k, 0, sizeof(*k));
	f = fopen(path, "r");
	if (!f)
		return mmc_error_os(errno, path, "opening the kernel identity file");
	while (!err && fgets(buf, sizeof(buf), f)) {
		size_t n = strlen(buf);
		char *eq;

		line++;
		if (n && buf[n - 1] == '\n')
			buf[--n] = 0;
		else if (!feof(f))
			err = mmc_error_create(MMC_ERR_INPUT, path, "line %u: longer than %zu bytes",
					       line, sizeof(buf) - 2);
		if (err || !buf[0] || buf[0] == '#')
			continue;
		eq = strchr(buf, '=');
		if (!eq)
			err = mmc_error_create(MMC_ERR_INPUT, path, "line %u: not key=value", line);
		else {
			*eq = 0;
			err = set_key(k, path, line, buf, eq + 1);
		}
	}
	if (!err && ferror(f))
		err = mmc_error_os(errno, path, "reading the kernel identity file");
	fclose(f);
	return err;
}

/* ---- the document ---- */

struct kcidb_doc {
	FILE *out;
	const char *origin;
	const struct mmc_snapshot *snap[2];
	const struct mmc_kcidb_kernel *k[2];
	char checkout_id[2][MMC_KCIDB_TEXT + 64];
	char build_id[2][MMC_KCIDB_TEXT + 64];
	char test_id[MMC_KCIDB_TEXT];		/* the root node's; children add ".suffix" */
};

static const char *kernel_build_id(const struct mmc_snapshot *s)
{
	const struct mmc_snapshot_info *info = mmc_snapshot_info(s);

	if (info && info->build_id[0])
		return info->build_id;
	return "no-build-id";
}

/* [A-Za-z0-9_-] of s, the rest as '_': a test path word or an id part. */
static void path_word(char *buf, size_t size, const char *s)
{
	size_t i;

	for (i = 0; s[i] && i + 1 < size; i++)
		buf[i] = isalnum((unsigned char)s[i]) || s[i] == '-' || s[i] == '_' ? s[i] : '_';
	buf[i] = 0;
}

static void make_ids(struct kcidb_doc *d)
{
	char w[2][80];

	for (int k = 0; k < 2; k++) {
		const struct mmc_kcidb_kernel *kk = d->k[k];

		path_word(w[k], sizeof(w[k]), kernel_build_id(d->snap[k]));
		if (kk && kk->checkout_id[0])
			snprintf(d->checkout_id[k], sizeof(d->checkout_id[k]), "%s", kk->checkout_id);
		else
			snprintf(d->checkout_id[k], sizeof(d->checkout_id[k]), "%s:checkout-%s",
				 d->origin, w[k]);
		if (kk && kk->build_id[0])
			snprintf(d->build_id[k], sizeof(d->build_id[k]), "%s", kk->build_id);
		else
			snprintf(d->build_id[k], sizeof(d->build_id[k]), "%s:build-%s", d->origin, w[k]);
	}
	/* One comparison of these two kernels: its ids say which two. */
	snprintf(d->test_id, sizeof(d->test_id), "%s:memmapcheck-%.16s-%.16s", d->origin, w[0], w[1]);
}

static void jkey_str(FILE *out, const char *key, const char *v)
{
	fprintf(out, ",\"%s\":", key);
	mmc_json_string(out, v);
}

static void jkey_opt(FILE *out, const char *key, const char *v)
{
	if (v && v[0])
		jkey_str(out, key, v);
}

static void kernel_misc(FILE *out, const struct mmc_snapshot *s, const struct mmc_kcidb_kernel *k)
{
	const struct mmc_snapshot_info *info = mmc_snapshot_info(s);

	fputs("{\"kernel_release\":", out);
	mmc_json_string(out, info ? info->release : "");
	jkey_str(out, "vmlinux_build_id", info ? info->build_id : "");
	fprintf(out, ",\"layout_fingerprint\":\"0x%016" PRIx64 "\"", info ? info->layout_fingerprint : 0);
	jkey_str(out, "dump", info ? info->dump : "");
	if (k) {
		jkey_opt(out, "kernel", k->kernel);
		jkey_opt(out, "snapshot_url", k->snapshot_url);
	}
	fputc('}', out);
}

static void checkouts(struct kcidb_doc *d)
{
	fputs(",\"checkouts\":[", d->out);
	for (int k = 0; k < 2; k++) {
		const struct mmc_kcidb_kernel *kk = d->k[k];

		fputs(k ? ",{\"id\":" : "{\"id\":", d->out);
		mmc_json_string(d->out, d->checkout_id[k]);
		jkey_str(d->out, "origin", d->origin);
		if (kk) {
			jkey_opt(d->out, "tree_name", kk->tree_name);
			jkey_opt(d->out, "git_repository_url", kk->git_repository_url);
			jkey_opt(d->out, "git_commit_hash", kk->git_commit_hash);
			jkey_opt(d->out, "git_commit_name", kk->git_commit_name);
			/* KCIDB: "" is "no patches"; set only when the file said so */
			if (kk->patchset_hash[0] || kk->npatches == 0)
				jkey_str(d->out, "patchset_hash", kk->patchset_hash);
			if (kk->npatches) {
				fputs(",\"patchset_files\":[", d->out);
				for (size_t i = 0; i < kk->npatches; i++) {
					fputs(i ? ",{\"name\":" : "{\"name\":", d->out);
					mmc_json_string(d->out, kk->patch_name[i]);
					jkey_str(d->out, "url", kk->patch_url[i]);
					fputc('}', d->out);
				}
				fputc(']', d->out);
			}
		}
		fprintf(d->out, ",\"misc\":{\"memmapcheck_role\":\"%s\"}}", side_name[k]);
	}
	fputc(']', d->out);
}

static void builds(struct kcidb_doc *d)
{
	fputs(",\"builds\":[", d->out);
	for (int k = 0; k < 2; k++) {
		const struct mmc_kcidb_kernel *kk = d->k[k];

		fputs(k ? ",{\"id\":" : "{\"id\":", d->out);
		mmc_json_string(d->out, d->build_id[k]);
		jkey_str(d->out, "checkout_id", d->checkout_id[k]);
		jkey_str(d->out, "origin", d->origin);
		if (kk) {
			jkey_opt(d->out, "architecture", kk->architecture);
			jkey_opt(d->out, "config_name", kk->config_name);
			jkey_opt(d->out, "compiler", kk->compiler);
		}
		fputs(",\"misc\":", d->out);
		kernel_misc(d->out, d->snap[k], kk);
		fputc('}', d->out);
	}
	fputc(']', d->out);
}

static const char *status_of(enum mmc_verdict v)
{
	switch (v) {
	case MMC_IDENTICAL: return "PASS";
	case MMC_AS_CLAIMED: return "PASS";
	case MMC_DIFFERENT: return "FAIL";
	case MMC_BEYOND_CLAIMS: return "FAIL";
	case MMC_INCOMPLETE: return "SKIP";
	}
	return "ERROR";
}

/* The verdict the CLI's exit code gives: identical needs a complete
 * discovery on both sides (cli/commands.c verdict_exit()). */
static enum mmc_verdict overall(const struct kcidb_doc *d, const struct mmc_diff_result *res)
{
	if (res->verdict == MMC_IDENTICAL &&
	    (!mmc_snapshot_discovery_complete(d->snap[0]) ||
	     !mmc_snapshot_discovery_complete(d->snap[1])))
		return MMC_INCOMPLETE;
	return res->verdict;
}

/* The opening of a test node, up to "status". */
static void test_open(struct kcidb_doc *d, bool first, const char *id_suffix,
		      const char *path, enum mmc_verdict v)
{
	fputs(first ? "{\"id\":" : ",{\"id\":", d->out);
	fputc('"', d->out);
	fputs(d->test_id, d->out);	/* origin, '-', hex and word chars only */
	if (id_suffix)
		fprintf(d->out, ".%s", id_suffix);
	fputc('"', d->out);
	jkey_str(d->out, "build_id", d->build_id[1]);
	jkey_str(d->out, "origin", d->origin);
	jkey_str(d->out, "path", path);
	fprintf(d->out, ",\"status\":\"%s\"", status_of(v));
}

static void root_test(struct kcidb_doc *d, const struct mmc_diff_result *res)
{
	enum mmc_verdict v = overall(d, res);
	char sentence[1024];
	size_t ndiff = 0;
	uint64_t total = 0;

	mmc_report_diff_sentence(res, sentence, sizeof(sentence));
	if (v == MMC_INCOMPLETE && res->verdict == MMC_IDENTICAL) {
		size_t n = strlen(sentence);

		snprintf(sentence + n, sizeof(sentence) - n, "; not identical: discovery of the %s image was incomplete",
			 mmc_snapshot_discovery_complete(d->snap[0]) ? "patched" : "base");
	}
	for (size_t i = 0; i < res->nranges; i++)
		if (res->ranges[i].verdict == MMC_DIFFERENT)
			ndiff++;
	test_open(d, true, NULL, "memmapcheck", v);
	jkey_str(d->out, "comment", sentence);
	jkey_str(d->out, "log_excerpt", sentence);
	for (size_t i = 0; i < res->nranges; i++)
		total += res->ranges[i].end_pfn - res->ranges[i].start_pfn;
	fprintf(d->out, ",\"misc\":{\"verdict\":\"%s\",\"pages_total\":%" PRIu64, mmc_verdict_name(v), total);
	fprintf(d->out, ",\"pages_compared\":%" PRIu64 ",\"pages_differing\":%" PRIu64
		",\"pages_unreadable\":%" PRIu64 ",\"pages_not_init\":%" PRIu64
		",\"ranges\":%zu,\"ranges_differing\":%zu,\"pgmap_differences\":%zu,\"layout_differs\":%s",
		res->pages_compared, res->pages_differing, res->pages_unreadable, res->pages_not_init,
		res->nranges, ndiff, res->npgmap_diffs, res->layout_differs ? "true" : "false");
	for (int k = 0; k < 2; k++) {
		fprintf(d->out, ",\"%s\":", side_name[k]);
		kernel_misc(d->out, d->snap[k], d->k[k]);
		if (res->discovery_incomplete[k]) {
			fprintf(d->out, ",\"%s_discovery_problem\":", side_name[k]);
			mmc_json_string(d->out, res->discovery_problem[k]);
		}
	}
	fputs(",\"tool\":\"memmapcheck " MMC_VERSION "\"}}", d->out);
}

/* The range keeps its struct pages on the device (map=dev: an altmap). */
static bool on_device(const struct kcidb_doc *d, const struct mmc_diff_range *r)
{
	const struct mmc_snapshot *s = r->a_index >= 0 ? d->snap[0] : d->snap[1];
	int64_t i = r->a_index >= 0 ? r->a_index : r->b_index;
	const struct mmc_srange *sr;

	if (i < 0 || (size_t)i >= mmc_snapshot_nranges(s))
		return false;
	sr = mmc_snapshot_range(s, (size_t)i);
	return sr->altmap_end > sr->altmap_start;
}

static void range_why(const struct mmc_diff_range *r, bool dev, char *buf, size_t size)
{
	if ((r->a_index < 0 || r->b_index < 0) && (r->placed_a || r->placed_b))
		snprintf(buf, size, "HugeTLB folios only in the %s image at these pfns: placement, the pools alike",
			 r->a_index < 0 ? "patched" : "base");
	else if (r->a_index < 0 || r->b_index < 0)
		snprintf(buf, size, "range only in the %s image%s", r->a_index < 0 ? "patched" : "base",
			 r->unproven ? "; the other image's discovery stopped early" : "");
	else if (r->verdict == MMC_DIFFERENT)
		snprintf(buf, size, "%" PRIu64 " of %" PRIu64 " pages differ%s", r->differing,
			 r->end_pfn - r->start_pfn, r->vframes_differing ? ", vmemmap frames differ" : "");
	else if (r->verdict == MMC_INCOMPLETE)
		snprintf(buf, size, "incomplete: %" PRIu64 " base and %" PRIu64 " patched pages unreadable%s%s",
			 r->unreadable_a, r->unreadable_b,
			 r->vframes_unreadable ? ", vmemmap frames unreadable" : "",
			 dev ? "; map=dev: the struct pages are on the device (altmap), which a live"
			       " snapshot (/proc/kcore) cannot read and a dump can" : "");
	else if (r->placed_a || r->placed_b)
		snprintf(buf, size, "identical: %" PRIu64 " pages compared, %" PRIu64 " base and %" PRIu64
			 " patched pages of HugeTLB folios placed apart (the pools alike)",
			 r->compared, r->placed_a, r->placed_b);
	else
		snprintf(buf, size, "identical: %" PRIu64 " pages compared", r->compared);
}

static void range_test(struct kcidb_doc *d, const struct mmc_diff_result *res, size_t i)
{
	const struct mmc_diff_range *r = &res->ranges[i];
	const struct mmc_snapshot *s = r->a_index >= 0 ? d->snap[0] : d->snap[1];
	const char *type = mmc_report_type_short(mmc_report_range_type(s, r->a_index >= 0 ? r->a_index : r->b_index));
	char word[160], raw[160], path[200], why[320];
	bool dev = on_device(d, r);

	snprintf(raw, sizeof(raw), "range_0x%" PRIx64 "-0x%" PRIx64 "_%s", r->start_pfn, r->end_pfn, type);
	path_word(word, sizeof(word), raw);
	snprintf(path, sizeof(path), "memmapcheck.%s", word);
	range_why(r, dev, why, sizeof(why));
	test_open(d, false, word, path, r->verdict);
	jkey_str(d->out, "comment", why);
	fprintf(d->out, ",\"misc\":{\"verdict\":\"%s\",\"type\":", mmc_verdict_name(r->verdict));
	mmc_json_string(d->out, type);
	fprintf(d->out, ",\"struct_pages_on_device\":%s", dev ? "true" : "false");
	fprintf(d->out, ",\"start_pfn\":%" PRIu64 ",\"end_pfn\":%" PRIu64 ",\"pages\":%" PRIu64
		",\"compared\":%" PRIu64 ",\"differing\":%" PRIu64 ",\"unreadable_base\":%" PRIu64
		",\"unreadable_patched\":%" PRIu64 ",\"not_init\":%" PRIu64
		",\"vframes_differing\":%" PRIu64 ",\"vframes_unreadable\":%" PRIu64 ",\"fields\":{",
		r->start_pfn, r->end_pfn, r->end_pfn - r->start_pfn, r->compared, r->differing,
		r->unreadable_a, r->unreadable_b, r->not_init, r->vframes_differing,
		r->vframes_unreadable);
	for (size_t f = 0; f < r->nfields && f < MMC_DIFF_MAX_FIELDS; f++) {
		if (f)
			fputc(',', d->out);
		mmc_json_string(d->out, r->fields[f].name);
		fprintf(d->out, ":%" PRIu64, r->fields[f].pages);
	}
	fputs("},\"groups\":[", d->out);
	for (size_t g = 0, n = 0; g < res->ngroups; g++) {
		if (res->groups[g].range != i)
			continue;
		fprintf(d->out, "%s{\"first_pfn\":%" PRIu64 ",\"last_pfn\":%" PRIu64 ",\"pages\":%" PRIu64 ",\"fields\":",
			n++ ? "," : "", res->groups[g].first_pfn, res->groups[g].last_pfn,
			res->groups[g].npages);
		mmc_json_string(d->out, res->groups[g].fields);
		fputc('}', d->out);
	}
	fputs("]}}", d->out);
}

static void pgmap_test(struct kcidb_doc *d, const struct mmc_diff_result *res)
{
	enum mmc_verdict v = res->npgmap_diffs ? MMC_DIFFERENT : MMC_IDENTICAL;
	char why[96];

	snprintf(why, sizeof(why), "%zu pgmap difference%s", res->npgmap_diffs,
		 res->npgmap_diffs == 1 ? "" : "s");
	test_open(d, false, "pgmaps", "memmapcheck.pgmaps", v);
	jkey_str(d->out, "comment", why);
	fputs(",\"misc\":{\"differences\":[", d->out);
	for (size_t i = 0; i < res->npgmap_diffs; i++) {
		if (i)
			fputc(',', d->out);
		mmc_json_string(d->out, res->pgmap_diffs[i]);
	}
	fputs("]}}", d->out);
}

void mmc_report_diff_kcidb(FILE *out, const struct mmc_snapshot *a,
			   const struct mmc_snapshot *b,
			   const struct mmc_diff_result *res,
			   const struct mmc_kcidb_opts *opts)
{
	struct kcidb_doc d = {
		.out = out,
		.origin = opts && opts->origin ? opts->origin : "memmapcheck",
		.snap = { a, b },
		.k = { opts ? opts->kernel[0] : NULL, opts ? opts->kernel[1] : NULL },
	};

	make_ids(&d);
	fprintf(out, "{\"version\":{\"major\":%d,\"minor\":%d}", MMC_KCIDB_SCHEMA_MAJOR,
		MMC_KCIDB_SCHEMA_MINOR);
	checkouts(&d);
	builds(&d);
	fputs(",\"tests\":[", out);
	root_test(&d, res);
	for (size_t i = 0; i < res->nranges; i++)
		range_test(&d, res, i);
	pgmap_test(&d, res);
	fputs("]}\n", out);
}
