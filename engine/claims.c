// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Claims files, parsed (claims.h; the grammar is doc/CLAIMS.md).  Line by
 * line: a comment from a '#' that begins a word to the end of the line
 * (pgmap#1 and obj#3 are values), blank lines ignored,
 * the first other line "memmapcheck-claims 1", then claims, each a "claim
 * NAME" line and the lines under it.  Nothing here knows an image: field
 * names are checked against the two layouts when a diff binds the claims
 * (diff_claims.c).  Every error is the file and "line N: what is wrong".
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "claims_int.h"
#include "mmc_util.h"
#include "rules.h"

/* Largest claims file read (a file of this size is thousands of claims). */
#define CLAIMS_FILE_MAX (16u << 20)

static const struct {
	const char *name;
	unsigned int bit;
} roles[] = {
	{ "head", CR_HEAD }, { "page1", CR_PAGE1 }, { "page2", CR_PAGE2 },
	{ "tail", CR_TAIL }, { "order0", CR_ORDER0 }, { "altmap", CR_ALTMAP },
	{ "reserve", CR_RESERVE }, { "shared-frame", CR_SHARED }, { "any", CR_ANY },
};
#define NROLES (sizeof(roles) / sizeof(roles[0]))

const char *claim_role_name(unsigned int bit)
{
	for (size_t i = 0; i < NROLES; i++)
		if (roles[i].bit == bit)
			return roles[i].name;
	return NULL;
}

static const char *const groups[] = { "any", "flags", "folio", "vmemmap", "pools" };

bool claim_field_is_group(const char *name)
{
	for (size_t i = 0; i < sizeof(groups) / sizeof(groups[0]); i++)
		if (!strcmp(name, groups[i]))
			return true;
	return false;
}

bool claim_field_is_vmemmap(const char *name)
{
	return !strcmp(name, "vmemmap") || !strncmp(name, "vmemmap_", 8);
}

/* What diff_pgmap.c reports as a pgmap (or range attribute) difference. */
static const char *const pgmap_members[] = {
	"type", "flags", "vmemmap_shift", "nr_range", "owner", "ops", "altmap",
	"altmap.base_pfn", "altmap.end_pfn", "altmap.reserve", "altmap.free",
	"altmap.align", "altmap.alloc", "range_index", "reserve_pfns", "memmap_pfns",
};

bool claim_pgmap_member_known(const char *member)
{
	for (size_t i = 0; i < sizeof(pgmap_members) / sizeof(pgmap_members[0]); i++)
		if (!strcmp(member, pgmap_members[i]))
			return true;
	return false;
}

/*
 * What diff_pools.c reports of the HugeTLB pools and memory blocks, by the
 * words of its sentences, and the values each takes: a number, 0/1 (an
 * hstate or block in one image only, HVO on or off, a self-hosted memmap),
 * or one of its words ("none": a folio on no list, in one image only).
 */
enum pool_vals { PV_NUMBER, PV_BIT, PV_WORDS };

static const struct {
	const char *name;
	enum pool_vals vals;
	const char *words[3];
} pool_fields[] = {
	{ "hstate.present", PV_BIT, { 0 } },
	{ "hstate.order", PV_NUMBER, { 0 } },
	{ "hstate.vmemmap_optimise", PV_BIT, { 0 } },
	{ "hstate.nr_huge_pages", PV_NUMBER, { 0 } },
	{ "hstate.free_huge_pages", PV_NUMBER, { 0 } },
	{ "hstate.resv_huge_pages", PV_NUMBER, { 0 } },
	{ "hstate.surplus_huge_pages", PV_NUMBER, { 0 } },
	{ "folio.list", PV_WORDS, { "free", "active", "none" } },
	{ "folio.vmemmap", PV_WORDS, { "optimised", "plain", "unknown" } },
	{ "folio.hstate", PV_NUMBER, { 0 } },
	{ "folio.node", PV_NUMBER, { 0 } },
	{ "memblock.present", PV_BIT, { 0 } },
	{ "memblock.end_pfn", PV_NUMBER, { 0 } },
	{ "memblock.state", PV_NUMBER, { 0 } },
	{ "memblock.nid", PV_NUMBER, { 0 } },
	{ "memblock.self_hosted", PV_BIT, { 0 } },
	{ "memblock.altmap_pfns", PV_NUMBER, { 0 } },
};
#define NPOOL_FIELDS (sizeof(pool_fields) / sizeof(pool_fields[0]))

static int pool_field(const char *name)
{
	for (size_t i = 0; i < NPOOL_FIELDS; i++)
		if (!strcmp(name, pool_fields[i].name))
			return (int)i;
	return -1;
}

bool claim_pool_field_known(const char *name)
{
	return pool_field(name) >= 0;
}

bool claim_field_is_pool(const char *name)
{
	return !strcmp(name, "pools") || !strncmp(name, "hstate.", 7) ||
	       !strncmp(name, "folio.", 6) || !strncmp(name, "memblock.", 9);
}

bool claim_field_is_range_level(const char *name)
{
	return !strcmp(name, "range") || !strncmp(name, "pgmap.", 6) || claim_field_is_pool(name);
}

struct parser {
	const char *file;
	unsigned int line;
	struct mmc_claims *cl;
	bool have_version;
};

static struct mmc_error *perr(const struct parser *p, unsigned int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static struct mmc_error *perr(const struct parser *p, unsigned int line, const char *fmt, ...)
{
	struct mmc_error *err;
	char *msg;
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (rc < 0)
		return mmc_error_nomem();
	err = mmc_error_create(MMC_ERR_INPUT, p->file, "line %u: %s", line, msg);
	free(msg);
	return err;
}

static struct claim *current(const struct parser *p)
{
	return p->cl->n ? &p->cl->claim[p->cl->n - 1] : NULL;
}

/* A single flag bit, or vmemmap_writable: 0 or 1 (or *). */
static bool is_bit_field(const char *name)
{
	return strstr(name, ".PG_") || strstr(name, ".bit") || !strcmp(name, "vmemmap_writable");
}

/* ---- lines ---- */

static bool name_ok(const char *s, bool field)
{
	size_t n = strlen(s);

	if (!n || n >= MMC_CLAIMS_NAME_MAX)
		return false;
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		      (ch >= '0' && ch <= '9') || ch == '_' || ch == '.' ||
		      (!field && ch == '-') || (field && ch == '+')))
			return false;
	}
	return true;
}

/* Split s (modified) at blanks into at most max tokens; returns the count,
 * or max + 1 if there are more. */
static size_t tokens(char *s, char **tok, size_t max)
{
	size_t n = 0;

	for (;;) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			return n;
		if (n == max)
			return max + 1;
		tok[n++] = s;
		while (*s && *s != ' ' && *s != '\t')
			s++;
		if (*s)
			*s++ = 0;
	}
}

static struct mmc_error *end_claim(const struct parser *p)
{
	const struct claim *c = current(p);

	if (!c)
		return NULL;
	if (!c->reason)
		return perr(p, c->line, "claim %s has no reason line (each claim says why, on a 'reason TEXT' line)",
			    c->name);
	if (!c->nfields)
		return perr(p, c->line, "claim %s has no field line (what it claims changes: 'field NAME [FROM -> TO]')",
			    c->name);
	if (c->together_line) {
		const char *page_field = NULL, *vm_field = NULL;

		if (c->nfields < 2)
			return perr(p, c->together_line, "together needs at least two field lines (claim %s has %zu): it asks for all of them at once",
				    c->name, c->nfields);
		if (c->nfields > CLAIM_TOGETHER_MAX)
			return perr(p, c->together_line, "together takes at most %d field lines (claim %s has %zu)",
				    CLAIM_TOGETHER_MAX, c->name, c->nfields);
		for (size_t i = 0; i < c->nfields; i++) {
			const char *f = c->fields[i].name;

			if (claim_field_is_range_level(f))
				return perr(p, c->fields[i].line,
					    "%s is a %s difference: a together claim asks its fields of one struct page or one vmemmap page (line %u)",
					    f, claim_field_is_pool(f) ? "pool's" : "range-level",
					    c->together_line);
			if (!strcmp(f, "any"))
				continue;
			if (claim_field_is_vmemmap(f))
				vm_field = vm_field ? vm_field : f;
			else
				page_field = page_field ? page_field : f;
		}
		if (page_field && vm_field)
			return perr(p, c->together_line,
				    "together asks its fields of one struct page or of one vmemmap page: claim %s names %s (a struct page's) and %s (a vmemmap page's)",
				    c->name, page_field, vm_field);
	}
	if (c->pages != CR_ANY) {
		for (size_t i = 0; i < c->nfields; i++) {
			const char *f = c->fields[i].name;

			if (claim_field_is_vmemmap(f) || claim_field_is_range_level(f))
				return perr(p, c->fields[i].line,
					    "%s is not a field of one struct page, so the pages line (line %u) cannot apply to it: claim it in a claim without a pages line",
					    f, c->pages_line);
		}
	}
	return NULL;
}

static struct mmc_error *line_claim(struct parser *p, char **tok, size_t n)
{
	struct claim *c;
	struct mmc_error *err;
	size_t cap;

	if (n != 2)
		return perr(p, p->line, "'claim' takes one NAME ([A-Za-z0-9_.-]+)");
	if (!name_ok(tok[1], false))
		return perr(p, p->line, "bad claim name '%s': letters, digits, '_', '.' and '-', at most %d",
			    tok[1], MMC_CLAIMS_NAME_MAX - 1);
	for (size_t i = 0; i < p->cl->n; i++)
		if (!strcmp(p->cl->claim[i].name, tok[1]))
			return perr(p, p->line, "duplicate claim name %s (line %u has it)", tok[1],
				    p->cl->claim[i].line);
	err = end_claim(p);
	if (err)
		return err;
	cap = p->cl->n;
	c = realloc(p->cl->claim, (cap + 1) * sizeof(*c));
	if (!c)
		return mmc_error_nomem();
	p->cl->claim = c;
	c = &p->cl->claim[p->cl->n++];
	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%s", tok[1]);
	c->line = p->line;
	c->pages = CR_ANY;
	return NULL;
}

static struct mmc_error *line_reason(struct parser *p, struct claim *c, const char *text)
{
	size_t old = c->reason ? strlen(c->reason) : 0, add = strlen(text);
	char *r;

	if (!add)
		return perr(p, p->line, "'reason' needs a text (the rest of the line)");
	r = realloc(c->reason, old + add + 2);
	if (!r)
		return mmc_error_nomem();
	if (old)
		r[old++] = ' ';
	memcpy(r + old, text, add + 1);
	c->reason = r;
	return NULL;
}

static struct mmc_error *add_alt(struct claim_clause *cl, uint64_t lo, uint64_t hi)
{
	struct claim_alt *a = realloc(cl->alt, (cl->nalt + 1) * sizeof(*a));

	if (!a)
		return mmc_error_nomem();
	cl->alt = a;
	a[cl->nalt].lo = lo;
	a[cl->nalt].hi = hi;
	cl->nalt++;
	return NULL;
}

/* "N" or "N-M" (M >= N); pfn: "A-B" with A < B only. */
static bool parse_span(char *s, bool half_open, uint64_t *lo, uint64_t *hi)
{
	char *dash = strchr(s, '-');

	if (!dash) {
		if (half_open || !claim_parse_u64(s, lo))
			return false;
		*hi = *lo;
		return true;
	}
	*dash = 0;
	if (!claim_parse_u64(s, lo) || !claim_parse_u64(dash + 1, hi))
		return false;
	return half_open ? *lo < *hi : *lo <= *hi;
}

/* The words of kind=, as the diff's TYPE column names these ranges. */
static int range_kind(const char *v)
{
	static const char *const words[MMC_RANGE_KINDS] = {
		[MMC_RANGE_PGMAP] = "pgmap", [MMC_RANGE_HUGETLB] = "hugetlb",
		[MMC_RANGE_HOTPLUG] = "hotplug",
	};

	for (int k = 0; k < MMC_RANGE_KINDS; k++)
		if (!strcmp(v, words[k]))
			return k;
	return -1;
}

static struct mmc_error *clause_value(struct parser *p, struct claim_clause *cl, char *v,
				      const char *key)
{
	uint64_t lo = 0, hi = 0;
	char given[64];
	int ti;

	/* parse_span() cuts v at its '-': errors name the value as given */
	snprintf(given, sizeof(given), "%s", v);

	switch (cl->key) {
	case CK_TYPE:
		ti = mmc_memory_type_index(v);
		if (ti < 0 && range_kind(v) > MMC_RANGE_PGMAP)
			return perr(p, p->line, "unknown type '%s' (devdax, fsdax, private, coherent, p2pdma: a pgmap's); %s is a kind of range: kind=%s",
				    v, v, v);
		if (ti < 0)
			return perr(p, p->line, "unknown type '%s' (devdax, fsdax, private, coherent, p2pdma)", v);
		lo = hi = (uint64_t)ti;
		break;
	case CK_ALTMAP:
		if (strcmp(v, "yes") && strcmp(v, "no"))
			return perr(p, p->line, "altmap= takes yes or no, not '%s'", v);
		lo = hi = !strcmp(v, "yes");
		break;
	case CK_FLAGS:
		if (!claim_parse_u64(v, &lo))
			return perr(p, p->line, "bad value '%s' of flags= (a mask, e.g. 0x1)", v);
		hi = lo;
		break;
	case CK_KIND:
		ti = range_kind(v);
		if (ti < 0)
			return perr(p, p->line, "unknown kind '%s' (pgmap, hugetlb, hotplug)", v);
		lo = hi = (uint64_t)ti;
		break;
	case CK_SHIFT:
	case CK_ORDER:
	case CK_RANGE:
		if (!parse_span(v, false, &lo, &hi))
			return perr(p, p->line, "bad value '%s' of %s= (N or N-M)", given, key);
		break;
	case CK_PFN:
		if (!parse_span(v, true, &lo, &hi))
			return perr(p, p->line, "bad value '%s' of pfn= (A-B, the pfns [A, B), A < B)", given);
		break;
	}
	return add_alt(cl, lo, hi);
}

static struct mmc_error *line_where(struct parser *p, struct claim *c, char **tok, size_t n)
{
	static const struct { const char *name; enum claim_key key; } keys[] = {
		{ "type", CK_TYPE }, { "shift", CK_SHIFT }, { "altmap", CK_ALTMAP },
		{ "flags", CK_FLAGS }, { "range", CK_RANGE }, { "pfn", CK_PFN },
		{ "kind", CK_KIND }, { "order", CK_ORDER },
	};
	struct mmc_error *err;

	if (n < 2)
		return perr(p, p->line, "'where' needs at least one KEY=VALUE");
	for (size_t t = 1; t < n; t++) {
		char *eq = strchr(tok[t], '='), *v, *next;
		struct claim_clause *cl;
		size_t k;

		if (!eq || eq == tok[t] || !eq[1])
			return perr(p, p->line, "'%s' is not KEY=VALUE[,VALUE...]", tok[t]);
		*eq = 0;
		for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
			if (!strcmp(tok[t], keys[k].name))
				break;
		if (k == sizeof(keys) / sizeof(keys[0]))
			return perr(p, p->line, "unknown where key '%s' (type, shift, altmap, flags, range, pfn, kind, order)",
				    tok[t]);
		cl = realloc(c->clauses, (c->nclauses + 1) * sizeof(*cl));
		if (!cl)
			return mmc_error_nomem();
		c->clauses = cl;
		cl = &c->clauses[c->nclauses++];
		memset(cl, 0, sizeof(*cl));
		cl->key = keys[k].key;
		cl->line = p->line;
		for (v = eq + 1; v; v = next) {
			next = strchr(v, ',');
			if (next)
				*next++ = 0;
			if (!*v)
				return perr(p, p->line, "empty value in %s=", keys[k].name);
			err = clause_value(p, cl, v, keys[k].name);
			if (err)
				return err;
		}
	}
	return NULL;
}

static struct mmc_error *line_pages(struct parser *p, struct claim *c, char **tok, size_t n)
{
	unsigned int mask = 0;
	char *r, *next;

	if (n != 2)
		return perr(p, p->line, "'pages' takes ROLE[,ROLE...] (head, page1, page2, tail, order0, altmap, reserve, shared-frame, any)");
	for (r = tok[1]; r; r = next) {
		size_t i;

		next = strchr(r, ',');
		if (next)
			*next++ = 0;
		for (i = 0; i < NROLES; i++)
			if (!strcmp(r, roles[i].name))
				break;
		if (i == NROLES)
			return perr(p, p->line, "unknown role '%s' (head, page1, page2, tail, order0, altmap, reserve, shared-frame, any)",
				    r);
		mask |= roles[i].bit;
	}
	/* pages lines add up; the first one replaces the default "any" */
	c->pages = c->pages_line ? c->pages | mask : mask;
	if (!c->pages_line)
		c->pages_line = p->line;
	return NULL;
}

/* "FROM -> TO", "FROM->TO" or "FROM ->TO" of tok[2..n) (the arrow splits):
 * cut in vals, *from and *to point into it. */
static struct mmc_error *split_values(struct parser *p, const char *name, char **tok, size_t n,
				      char *vals, size_t size, char **from, char **to)
{
	char *arrow, *e;

	vals[0] = 0;
	for (size_t t = 2; t < n; t++) {
		if (strlen(vals) + strlen(tok[t]) + 2 > size)
			return perr(p, p->line, "values too long");
		strcat(vals, tok[t]);
		strcat(vals, " ");
	}
	arrow = strstr(vals, "->");
	if (!arrow || strstr(arrow + 2, "->"))
		return perr(p, p->line, "'field %s' takes FROM -> TO after the name, not '%.*s'",
			    name, (int)strlen(vals) - 1, vals);
	*arrow = 0;
	*from = vals;
	*to = arrow + 2;
	while (**from == ' ')
		++*from;
	for (e = *from + strlen(*from); e > *from && e[-1] == ' '; e--)
		*--e = 0;
	while (**to == ' ')
		++*to;
	for (e = *to + strlen(*to); e > *to && e[-1] == ' '; e--)
		*--e = 0;
	if (!**from || !**to || strchr(*from, ' ') || strchr(*to, ' '))
		return perr(p, p->line, "'field %s' takes one FROM and one TO value around '->'", name);
	return NULL;
}

/* "free, active or none": pool field k's words, or "a number", "yes or no". */
static void pool_vals_text(int k, char *buf, size_t size)
{
	const char *const *w = pool_fields[k].words;

	if (pool_fields[k].vals == PV_NUMBER)
		snprintf(buf, size, "a number");
	else if (pool_fields[k].vals == PV_BIT)
		snprintf(buf, size, "yes or no (1/0, on/off)");
	else
		snprintf(buf, size, "%s, %s or %s", w[0], w[1], w[2]);
}

/* A value of pool field k: the kind of value its sentences print, or *. */
static struct mmc_error *pool_value(struct parser *p, int k, const char *v, struct claim_value *cv)
{
	bool ok = claim_parse_value(v, cv) && cv->kind == CV_ANY;
	char want[64];

	switch (pool_fields[k].vals) {
	case PV_NUMBER:
		ok |= cv->kind == CV_INT;
		break;
	case PV_BIT:
		ok |= cv->kind == CV_INT && (uint64_t)cv->v <= 1;
		break;
	case PV_WORDS:
		for (size_t i = 0; i < 3 && !ok; i++)
			ok = cv->kind == CV_WORD && !strcmp(cv->word, pool_fields[k].words[i]);
		break;
	}
	if (ok)
		return NULL;
	pool_vals_text(k, want, sizeof(want));
	return perr(p, p->line, "bad value '%s' of %s: %s, or *", v, pool_fields[k].name, want);
}

/* FROM -> TO of field f, checked against what its name can take. */
static struct mmc_error *field_values(struct parser *p, struct claim_field *f, char **tok, size_t n)
{
	static const char kinds[] = "an integer, NULL, TAIL_MAPPING, self+OFF, page-D+OFF, pgmap#I, obj#K, clear/set, *";
	char vals[160], *from = NULL, *to = NULL;
	struct mmc_error *err = split_values(p, f->name, tok, n, vals, sizeof(vals), &from, &to);
	int pk = pool_field(f->name);

	if (err)
		return err;
	if (pk >= 0 && ((err = pool_value(p, pk, from, &f->from)) || (err = pool_value(p, pk, to, &f->to))))
		return err;
	if (pk < 0 && !claim_parse_value(from, &f->from))
		return perr(p, p->line, "bad value '%s' (%s)", from, kinds);
	if (pk < 0 && !claim_parse_value(to, &f->to))
		return perr(p, p->line, "bad value '%s' (%s)", to, kinds);
	snprintf(f->values, sizeof(f->values), "%.21s -> %.21s", from, to);
	f->has_values = true;
	if (claim_field_is_group(f->name))
		return perr(p, p->line, "%s is a group of fields: values need one field", f->name);
	if (!strcmp(f->name, "vmemmap_frame") || !strcmp(f->name, "range"))
		return perr(p, p->line, "%s takes no FROM -> TO values", f->name);
	if (is_bit_field(f->name) &&
	    ((f->from.kind != CV_ANY && (f->from.kind != CV_INT || (uint64_t)f->from.v > 1)) ||
	     (f->to.kind != CV_ANY && (f->to.kind != CV_INT || (uint64_t)f->to.v > 1))))
		return perr(p, p->line, "%s is one bit: its values are 0/1 (clear/set, no/yes) or *",
			    f->name);
	return NULL;
}

/* "folio.list, folio.vmemmap, ...": the pool fields of name's prefix. */
static void pool_names(const char *name, char *buf, size_t size)
{
	size_t pre = strcspn(name, ".") + 1, len = 0;

	buf[0] = 0;
	for (size_t i = 0; i < NPOOL_FIELDS && len < size; i++) {
		int w;

		if (strncmp(pool_fields[i].name, name, pre))
			continue;
		w = snprintf(buf + len, size - len, "%s%s", len ? ", " : "", pool_fields[i].name);
		if (w < 0)
			break;
		len += (size_t)w;
	}
}

static struct mmc_error *line_field(struct parser *p, struct claim *c, char **tok, size_t n)
{
	struct claim_field *f;
	struct mmc_error *err;
	char known[256];

	if (n < 2)
		return perr(p, p->line, "'field' takes NAME [FROM -> TO]");
	if (!name_ok(tok[1], true))
		return perr(p, p->line, "bad field name '%s'", tok[1]);
	f = realloc(c->fields, (c->nfields + 1) * sizeof(*f));
	if (!f)
		return mmc_error_nomem();
	c->fields = f;
	f = &c->fields[c->nfields];
	memset(f, 0, sizeof(*f));
	snprintf(f->name, sizeof(f->name), "%s", tok[1]);
	f->line = p->line;
	if (claim_field_is_pool(f->name) && strcmp(f->name, "pools") && pool_field(f->name) < 0) {
		pool_names(f->name, known, sizeof(known));
		return perr(p, p->line, "unknown field %s (%s; the group pools names them all)",
			    f->name, known);
	}
	if (n > 2 && (err = field_values(p, f, tok, n)))
		return err;
	if (!strncmp(f->name, "pgmap.", 6) && !claim_pgmap_member_known(f->name + 6))
		return perr(p, p->line, "unknown field %s (pgmap members: type, flags, vmemmap_shift, nr_range, owner, ops, altmap, altmap.<member>, range_index, reserve_pfns, memmap_pfns)",
			    f->name);
	c->nfields++;
	return NULL;
}

static struct mmc_error *parse_line(struct parser *p, char *s)
{
	char *tok[64], *kw, *rest;
	struct claim *c;
	size_t n;

	/* a comment starts at a '#' that begins a word: pgmap#1 is a value */
	for (char *h = s; (h = strchr(h, '#')); h++) {
		if (h == s || h[-1] == ' ' || h[-1] == '\t') {
			*h = 0;
			break;
		}
	}
	while (*s == ' ' || *s == '\t')
		s++;
	for (rest = s + strlen(s); rest > s && (rest[-1] == ' ' || rest[-1] == '\t' ||
						rest[-1] == '\r'); rest--)
		rest[-1] = 0;
	if (!*s)
		return NULL;
	if (!p->have_version) {
		int64_t v;

		n = tokens(s, tok, 3);
		if (n != 2 || strcmp(tok[0], "memmapcheck-claims"))
			return perr(p, p->line, "the first line must be 'memmapcheck-claims %d' (the format and its version)",
				    MMC_CLAIMS_VERSION);
		if (!claim_parse_int(tok[1], &v) || v != MMC_CLAIMS_VERSION)
			return perr(p, p->line, "unsupported version '%s' (this memmapcheck reads memmapcheck-claims %d)",
				    tok[1], MMC_CLAIMS_VERSION);
		p->have_version = true;
		return NULL;
	}
	/* the keyword, and for reason the rest of the line as it is */
	kw = s;
	rest = s + strcspn(s, " \t");
	if (*rest) {
		*rest++ = 0;
		while (*rest == ' ' || *rest == '\t')
			rest++;
	}
	c = current(p);
	if (!strcmp(kw, "claim")) {
		tok[0] = kw;
		n = tokens(rest, tok + 1, 62) + 1;
		return line_claim(p, tok, n);
	}
	if (strcmp(kw, "reason") && strcmp(kw, "where") && strcmp(kw, "pages") &&
	    strcmp(kw, "field") && strcmp(kw, "together")) {
		if (!strcmp(kw, "memmapcheck-claims"))
			return perr(p, p->line, "a second version line (the first one is enough)");
		return perr(p, p->line, "unknown keyword '%s' (claim, reason, where, pages, together, field)",
			    kw);
	}
	if (!c)
		return perr(p, p->line, "'%s' before the first 'claim NAME' line", kw);
	if (!strcmp(kw, "reason"))
		return line_reason(p, c, rest);
	if (!strcmp(kw, "together")) {
		if (*rest)
			return perr(p, p->line, "'together' takes nothing after it");
		if (c->together_line)
			return perr(p, p->line, "a second 'together' in claim %s (line %u has it)", c->name,
				    c->together_line);
		c->together_line = p->line;
		return NULL;
	}
	tok[0] = kw;
	n = tokens(rest, tok + 1, 62) + 1;
	if (n > 63)
		return perr(p, p->line, "too many words on one line");
	if (!strcmp(kw, "where"))
		return line_where(p, c, tok, n);
	if (!strcmp(kw, "pages"))
		return line_pages(p, c, tok, n);
	return line_field(p, c, tok, n);
}

static void claims_free(struct mmc_claims *cl)
{
	if (!cl)
		return;
	for (size_t i = 0; i < cl->n; i++) {
		struct claim *c = &cl->claim[i];

		free(c->reason);
		for (size_t k = 0; k < c->nclauses; k++)
			free(c->clauses[k].alt);
		free(c->clauses);
		free(c->fields);
	}
	free(cl->claim);
	free(cl->path);
	free(cl);
}

struct mmc_error *mmc_claims_parse(const char *name, const char *text, size_t len,
				   struct mmc_claims **out)
{
	struct parser p = { .file = name };
	struct mmc_error *err = NULL;
	char *line = NULL;
	size_t pos = 0;

	*out = NULL;
	p.cl = calloc(1, sizeof(*p.cl));
	line = malloc(MMC_CLAIMS_LINE_MAX + 1);
	if (!p.cl || !line || !(p.cl->path = strdup(name ? name : ""))) {
		free(line);
		claims_free(p.cl);
		return mmc_error_nomem();
	}
	while (pos < len && !err) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - (text + pos)) : len - pos;

		p.line++;
		if (n > MMC_CLAIMS_LINE_MAX)
			err = perr(&p, p.line, "line longer than %d bytes", MMC_CLAIMS_LINE_MAX);
		else if (!claim_utf8_ok((const unsigned char *)text + pos, n))
			err = perr(&p, p.line, "not UTF-8 text (or a NUL byte)");
		if (!err) {
			memcpy(line, text + pos, n);
			line[n] = 0;
			err = parse_line(&p, line);
		}
		pos += n + 1;
	}
	free(line);
	if (!err && !p.have_version)
		err = perr(&p, p.line ? p.line : 1, "no 'memmapcheck-claims %d' line (%s)",
			   MMC_CLAIMS_VERSION, p.line ? "only comments and blank lines" : "an empty file");
	if (!err)
		err = end_claim(&p);
	if (err) {
		claims_free(p.cl);
		return err;
	}
	*out = p.cl;
	return NULL;
}

struct mmc_error *mmc_claims_load(const char *path, struct mmc_claims **out)
{
	struct mmc_error *err;
	struct stat st;
	char *buf;
	size_t n;
	FILE *f;

	*out = NULL;
	f = fopen(path, "rb");
	if (!f)
		return errno == ENOENT ? mmc_error_create(MMC_ERR_USAGE, path, "no such file") :
					 mmc_error_os(errno, path, "open");
	if (fstat(fileno(f), &st) != 0) {
		err = mmc_error_os(errno, path, "stat");
		fclose(f);
		return err;
	}
	if (S_ISDIR(st.st_mode)) {
		fclose(f);
		return mmc_error_create(MMC_ERR_USAGE, path, "is a directory");
	}
	buf = malloc(CLAIMS_FILE_MAX + 1);
	if (!buf) {
		fclose(f);
		return mmc_error_nomem();
	}
	/* a FIFO or a device has no size: read up to the limit */
	n = fread(buf, 1, CLAIMS_FILE_MAX + 1, f);
	if (ferror(f)) {
		err = mmc_error_os(errno ? errno : EIO, path, "read");
		fclose(f);
		free(buf);
		return err;
	}
	fclose(f);
	if (n > CLAIMS_FILE_MAX) {
		free(buf);
		return mmc_error_create(MMC_ERR_INPUT, path, "larger than %u bytes: not a claims file",
					CLAIMS_FILE_MAX);
	}
	err = mmc_claims_parse(path, buf, n, out);
	free(buf);
	return err;
}

void mmc_claims_destroy(struct mmc_claims *claims)
{
	claims_free(claims);
}

const char *mmc_claims_file(const struct mmc_claims *claims)
{
	return claims->path;
}

size_t mmc_claims_count(const struct mmc_claims *claims)
{
	return claims ? claims->n : 0;
}

const char *mmc_claim_name(const struct mmc_claims *claims, size_t i)
{
	return i < claims->n ? claims->claim[i].name : NULL;
}

const char *mmc_claim_reason(const struct mmc_claims *claims, size_t i)
{
	return i < claims->n ? claims->claim[i].reason : NULL;
}

unsigned int mmc_claim_line(const struct mmc_claims *claims, size_t i)
{
	return i < claims->n ? claims->claim[i].line : 0;
}
