// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Layout provider over crash: fills a struct mmc_layout from the type
 * information crash's embedded gdb holds and crash's symbol table, resolving
 * the engine's tables (mmc_member_specs[], mmc_size_specs[],
 * mmc_symbol_specs[], mmc_enum_specs[]) with the same rules as the DWARF
 * provider (engine/layout_dwarf.c), so the two can be compared field by
 * field (`memmapcheck layout -o FILE` here, `memmapcheck layout --check FILE
 * VMLINUX` in the CLI):
 *
 *  - members: the first candidate path that resolves, newest name first;
 *    anonymous structs and unions are looked through; offsets of struct
 *    folio members are from the folio; size is the whole member (arrays:
 *    the whole array), count the first dimension of an array member;
 *  - one-component names go through crash's MEMBER_OFFSET()/MEMBER_SIZE()/
 *    MEMBER_TYPE() (datatype_info(), which looks through anonymous members);
 *    dotted paths ("flags.f") and typedef'd members through gdb expressions
 *    (`output &((struct page *)0)->flags.f`), which follow C's rules;
 *  - enums: gdb's `ptype enum NAME`, in declaration order (DWARF's order);
 *  - symbols: crash's symbol_value() is relocated (KASLR applied); the
 *    layout wants link-time addresses, so kt->relocate (= -KASLR offset) is
 *    added back, and the offset is handed to the kernel as a hint;
 *  - release from the dump's utsname, build-id from the vmlinux's
 *    NT_GNU_BUILD_ID note, MAX_NUMNODES from the length of node_data[].
 *
 * gdb output is captured in a private temporary file through
 * gdb_pass_through(..., GNU_RETURN_ON_ERROR): a failed lookup returns, it
 * never longjmps, and nothing reaches the user's screen.
 */
#include <ctype.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crash_ext.h"

#include "defs.h"	/* crash: last, it defines names like error, fp, OFFSET */

struct gdbq {
	FILE *tmp;		/* gdb's output for one query */
	char buf[16384];
	struct { char name[64]; bool is_array; } cache[32];
	size_t ncache;
};

/* Run one gdb command; its output (NUL-terminated) in q->buf.  false if gdb failed. */
static bool gdb_query(struct gdbq *q, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static bool gdb_query(struct gdbq *q, const char *fmt, ...)
{
	char cmd[512];
	va_list ap;
	size_t n;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	if (len < 0 || (size_t)len >= sizeof(cmd))
		return false;
	rewind(q->tmp);
	if (ftruncate(fileno(q->tmp), 0) != 0)
		return false;
	if (!gdb_pass_through(cmd, q->tmp, GNU_RETURN_ON_ERROR))
		return false;
	fflush(q->tmp);
	rewind(q->tmp);
	n = fread(q->buf, 1, sizeof(q->buf) - 1, q->tmp);
	q->buf[n] = '\0';
	return n > 0;
}

/* A gdb expression's value as an unsigned number ("0x40", "8"). */
static bool gdb_number(struct gdbq *q, uint64_t *v, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static bool gdb_number(struct gdbq *q, uint64_t *v, const char *fmt, ...)
{
	char expr[400], *end;
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(expr, sizeof(expr), fmt, ap);
	va_end(ap);
	if (len < 0 || (size_t)len >= sizeof(expr))
		return false;
	/* `output` prints the value only and keeps gdb's value history clean. */
	if (!gdb_query(q, "output/x (unsigned long)(%s)", expr))
		return false;
	errno = 0;
	*v = strtoull(q->buf, &end, 0);
	while (*end && isspace((unsigned char)*end))
		end++;
	return errno == 0 && end != q->buf && *end == '\0';
}

/* A C base type ("long unsigned int", "_Bool"): never an array or aggregate. */
static bool is_base_type_name(const char *name)
{
	static const char *const words[] = {
		"unsigned", "signed", "long", "int", "short", "char", "_Bool",
	};
	const char *p = name;

	while (*p) {
		size_t n = strcspn(p, " ");
		bool known = false;

		for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
			if (strlen(words[i]) == n && !strncmp(p, words[i], n))
				known = true;
		if (!known)
			return false;
		p += n;
		while (*p == ' ')
			p++;
	}
	return p != name;
}

/*
 * Is the type named `tname` (a typedef) an array?  gdb's ptype of an array
 * type ends in "[N]" (or "[]"), of a struct array in "} [N]"; a pointer to
 * an array has "(*)" before its brackets.  One gdb query per type name.
 */
static bool ptype_says_array(char *buf)
{
	size_t n = strlen(buf);
	char *p;

	while (n && isspace((unsigned char)buf[n - 1]))
		buf[--n] = '\0';
	p = strrchr(buf, '\n');
	p = p ? p + 1 : buf;
	return n && buf[n - 1] == ']' && !strstr(p, "(*)");
}

static bool gdb_type_is_array(struct gdbq *q, const char *tname)
{
	bool yes;

	for (size_t i = 0; i < q->ncache; i++)
		if (!strcmp(q->cache[i].name, tname))
			return q->cache[i].is_array;
	yes = gdb_query(q, "ptype %s", tname) && ptype_says_array(q->buf);
	if (q->ncache < sizeof(q->cache) / sizeof(q->cache[0]) &&
	    strlen(tname) < sizeof(q->cache[0].name)) {
		strcpy(q->cache[q->ncache].name, tname);
		q->cache[q->ncache++].is_array = yes;
	}
	return yes;
}

/*
 * The member path through crash's datatype_info(): each component is
 * looked up in the type the previous one named (MEMBER_TYPE_NAME gives
 * "list_head" for a struct, the typedef's name for "memdesc_flags_t"), and
 * datatype_info() looks through anonymous members.  false when some
 * component is not there; *slow is set when crash cannot name an
 * intermediate type (an unnamed struct) or finds nothing in the one it
 * named, where gdb's expression evaluator may still follow the path.
 */
static bool crash_member_path(const char *type, const char *path,
			      uint64_t *off, uint64_t *size, long *code,
			      char *tname, size_t tname_size, bool *slow)
{
	char cur[128], comp[64];
	const char *p = path, *dot, *n;
	uint64_t total = 0;
	long v, sz;

	*slow = false;
	snprintf(cur, sizeof(cur), "%s", type);
	for (;;) {
		dot = strchr(p, '.');
		if ((size_t)(dot ? dot - p : (long)strlen(p)) >= sizeof(comp))
			return false;
		snprintf(comp, sizeof(comp), "%.*s",
			 (int)(dot ? dot - p : (long)strlen(p)), p);
		v = MEMBER_OFFSET(cur, comp);
		if (v < 0) {
			/* Not in a type crash could name: let gdb try the path. */
			*slow = p != path;
			return false;
		}
		total += (uint64_t)v;
		n = MEMBER_TYPE_NAME(cur, comp);
		if (!dot)
			break;
		if (!n || !*n || strlen(n) >= sizeof(cur)) {
			*slow = true;	/* an unnamed struct or union */
			return false;
		}
		if (is_base_type_name(n))
			return false;	/* a scalar has no members */
		snprintf(cur, sizeof(cur), "%s", n);
		p = dot + 1;
	}
	sz = MEMBER_SIZE(cur, comp);
	if (sz < 0)
		return false;
	*off = total;
	*size = (uint64_t)sz;
	*code = MEMBER_TYPE(cur, comp);
	snprintf(tname, tname_size, "%s", n ? n : "");
	return true;
}

static bool resolve_path(struct gdbq *q, const char *type, const char *path,
			 struct mmc_member *m)
{
	uint64_t off, size, esize;
	char tname[128];
	bool array, slow;
	long code;

	if (crash_member_path(type, path, &off, &size, &code, tname,
			      sizeof(tname), &slow)) {
		/*
		 * defs.h names only the first gdb type codes (the rest depend
		 * on the gdb crash was built with): a member that is not
		 * plainly an array, pointer or aggregate is an integer or a
		 * typedef, and only a typedef can hide an array.
		 */
		array = code == TYPE_CODE_ARRAY ||
			(code != TYPE_CODE_PTR && code != TYPE_CODE_STRUCT &&
			 code != TYPE_CODE_UNION && code != TYPE_CODE_ENUM &&
			 tname[0] && !is_base_type_name(tname) &&
			 gdb_type_is_array(q, tname));
	} else if (slow) {
		if (!gdb_number(q, &off, "&((struct %s *)0)->%s", type, path) ||
		    !gdb_number(q, &size, "sizeof(((struct %s *)0)->%s)", type, path) ||
		    !gdb_query(q, "ptype ((struct %s *)0)->%s", type, path))
			return false;
		array = ptype_says_array(q->buf);
	} else {
		return false;
	}
	if (off > UINT32_MAX || size > UINT32_MAX)
		return false;
	m->found = true;
	m->offset = (uint32_t)off;
	m->size = (uint32_t)size;
	m->count = 0;
	if (array && size &&
	    gdb_number(q, &esize, "sizeof(((struct %s *)0)->%s[0])", type, path) &&
	    esize && size / esize <= UINT32_MAX)
		m->count = (uint32_t)(size / esize);
	snprintf(m->name, sizeof(m->name), "%s", path);
	return true;
}

static void resolve_members(struct gdbq *q, struct mmc_layout *l)
{
	for (int i = 0; i < MMC_MEMBER_COUNT; i++) {
		const struct mmc_member_spec *s = &mmc_member_specs[i];

		for (int c = 0; c < 4 && s->candidates[c]; c++)
			if (resolve_path(q, s->type, s->candidates[c], &l->member[i]))
				break;
	}
	for (int i = 0; i < MMC_SIZE_COUNT; i++) {
		long size = STRUCT_SIZE((char *)mmc_size_specs[i].type);

		if (size > 0) {
			l->size[i] = (uint64_t)size;
			l->size_found[i] = true;
		}
	}
}

static struct mmc_error *enum_add(struct mmc_layout *l, enum mmc_enum_id id,
				  char *name, const char *value, int64_t *next)
{
	int64_t v = *next;
	char *e;

	while (isspace((unsigned char)*name))
		name++;
	e = name + strlen(name);
	while (e > name && isspace((unsigned char)e[-1]))
		e--;
	*e = '\0';
	if (!*name)
		return NULL;
	if (value) {
		errno = 0;
		v = strtoll(value, &e, 0);
		while (isspace((unsigned char)*e))
			e++;
		if (errno || e == value || *e)
			return mmc_error_create(MMC_ERR_LAYOUT, "crash",
						"enum %s: bad value for %s: \"%s\"",
						mmc_enum_specs[id].type, name, value);
	}
	*next = v + 1;
	return mmc_layout_enum_add(l, id, name, v);
}

/*
 * crash's dump_enumerator_list() (what `whatis enum NAME` prints): one
 * "  NAME = VALUE" line per enumerator, in declaration order (DWARF's
 * order).  It prints to fp, so crash's own tmpfile catches it; crash's
 * error recovery closes that tmpfile if anything below longjmps.
 */
static struct mmc_error *enum_from_crash(struct gdbq *q, struct mmc_layout *l,
					 enum mmc_enum_id id, bool *done)
{
	char line[512], *eq;
	struct mmc_error *err = NULL;
	int64_t next = 0;
	bool ok;

	*done = false;
	if (pc->tmpfile)
		return NULL;	/* in use: the gdb route below */
	open_tmpfile();
	ok = dump_enumerator_list((char *)mmc_enum_specs[id].type);
	rewind(pc->tmpfile);
	while (ok && !err && fgets(line, sizeof(line), pc->tmpfile)) {
		if (!strncmp(line, "enum ", 5) || line[0] == '}')
			continue;
		eq = strchr(line, '=');
		if (!eq)
			continue;
		*eq = '\0';
		line[strcspn(line, "\n")] = '\0';
		eq[1 + strcspn(eq + 1, "\n")] = '\0';
		err = enum_add(l, id, line, eq + 1, &next);
	}
	close_tmpfile();
	*done = ok && l->enums[id].found;
	return err;
}

/*
 * gdb's `ptype enum NAME`: "type = enum NAME {A, B, C = 5, D, ...}", a
 * value written only where it is not the previous one plus one (gdb's
 * c_type_print_base); long lines may be wrapped.  Slower (an expression
 * parse): used only when crash's route is not available.
 */
static struct mmc_error *enum_from_gdb(struct gdbq *q, struct mmc_layout *l,
				       enum mmc_enum_id id)
{
	const char *type = mmc_enum_specs[id].type;
	struct mmc_error *err = NULL;
	char *p, *end, *item, *eq, *save = NULL;
	int64_t next = 0;

	if (!gdb_query(q, "ptype enum %s", type))
		return NULL;	/* left missing: mmc_layout_check names it */
	p = strchr(q->buf, '{');
	end = strrchr(q->buf, '}');
	if (!p || !end || end < p)
		return mmc_error_create(MMC_ERR_LAYOUT, "crash",
					"gdb's ptype enum %s: cannot parse \"%.80s\"",
					type, q->buf);
	*end = '\0';
	for (item = strtok_r(p + 1, ",", &save); item && !err;
	     item = strtok_r(NULL, ",", &save)) {
		eq = strchr(item, '=');
		if (eq)
			*eq = '\0';
		err = enum_add(l, id, item, eq ? eq + 1 : NULL, &next);
	}
	return err;
}

static struct mmc_error *resolve_enum(struct gdbq *q, struct mmc_layout *l,
				      enum mmc_enum_id id)
{
	struct mmc_error *err;
	bool done;

	err = enum_from_crash(q, l, id, &done);
	if (err || done)
		return err;
	/* Start over: nothing half-filled from the first route. */
	for (size_t i = 0; i < l->enums[id].count; i++)
		free(l->enums[id].values[i].name);
	free(l->enums[id].values);
	l->enums[id].values = NULL;
	l->enums[id].count = 0;
	l->enums[id].found = false;
	return enum_from_gdb(q, l, id);
}

static bool elf_symbol_size(const char *path, const char *name, uint64_t *size);

static void resolve_symbols(struct mmc_layout *l, uint64_t relocate)
{
	for (int i = 0; i < MMC_SYM_COUNT; i++) {
		char *name = (char *)mmc_symbol_specs[i].name;

		if (!symbol_exists(name))
			continue;
		/* crash relocated it: value = link-time - kt->relocate */
		l->sym[i] = (uint64_t)symbol_value(name) + relocate;
		l->sym_found[i] = true;
	}
}

/*
 * MAX_NUMNODES = the length of node_data[].  gdb usually sees the extern
 * declaration "pg_data_t *node_data[]" first (no length), so the size comes
 * from where the DWARF provider takes it, the vmlinux's ELF symbol table;
 * then from VMCOREINFO's LENGTH(node_data); then from gdb.
 */
static void resolve_numnodes(struct mmc_layout *l, const char *namelist)
{
	uint64_t size = 0;
	char *v, *end;
	int n;

	if (!l->sym_found[MMC_SYM_NODE_DATA])
		return;
	if (elf_symbol_size(namelist, "node_data", &size) && size >= 8 &&
	    size / 8 <= UINT32_MAX) {
		l->max_numnodes = (uint32_t)(size / 8);
		return;
	}
	if (pc->read_vmcoreinfo && (v = pc->read_vmcoreinfo("LENGTH(node_data)"))) {
		unsigned long long len = strtoull(v, &end, 10);
		bool ok = end != v && !*end && len && len <= UINT32_MAX;

		free(v);
		if (ok) {
			l->max_numnodes = (uint32_t)len;
			return;
		}
	}
	n = get_array_length("node_data", NULL, 0);
	if (n > 0)
		l->max_numnodes = (uint32_t)n;
}

static bool pread_all(int fd, void *buf, size_t len, uint64_t off)
{
	return pread(fd, buf, len, (off_t)off) == (ssize_t)len;
}

/* A whole section of an ELF64 file, malloc'd; NULL if unreadable. */
static void *read_section(int fd, const Elf64_Shdr *sh, size_t max)
{
	void *data;

	if (!sh->sh_size || sh->sh_size > max || sh->sh_type == SHT_NOBITS)
		return NULL;
	data = malloc(sh->sh_size);
	if (data && !pread_all(fd, data, sh->sh_size, sh->sh_offset)) {
		free(data);
		data = NULL;
	}
	return data;
}

/* Section headers of an ELF64 file (malloc'd), NULL if not one. */
static Elf64_Shdr *read_shdrs(int fd, unsigned int *nsh)
{
	Elf64_Ehdr eh;
	Elf64_Shdr *sh;

	if (!pread_all(fd, &eh, sizeof(eh), 0) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_shentsize != sizeof(Elf64_Shdr) || !eh.e_shnum)
		return NULL;
	sh = calloc(eh.e_shnum, sizeof(*sh));
	if (sh && !pread_all(fd, sh, eh.e_shnum * sizeof(*sh), eh.e_shoff)) {
		free(sh);
		return NULL;
	}
	*nsh = eh.e_shnum;
	return sh;
}

/*
 * st_size of symbol `name` in the .symtab of ELF file `path`, a global
 * definition winning over a file-local one (as the DWARF provider does).
 */
static bool elf_symbol_size(const char *path, const char *name, uint64_t *size)
{
	Elf64_Shdr *sh = NULL;
	Elf64_Sym *syms = NULL;
	char *strs = NULL;
	unsigned int nsh = 0;
	bool found = false, global = false;
	int fd;

	if (!path || (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return false;
	sh = read_shdrs(fd, &nsh);
	for (unsigned int i = 0; sh && i < nsh; i++) {
		size_t n;

		if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_link >= nsh ||
		    sh[i].sh_entsize != sizeof(Elf64_Sym))
			continue;
		syms = read_section(fd, &sh[i], 1u << 30);
		strs = read_section(fd, &sh[sh[i].sh_link], 1u << 30);
		if (!syms || !strs)
			break;
		n = sh[i].sh_size / sizeof(Elf64_Sym);
		for (size_t j = 0; j < n; j++) {
			const Elf64_Sym *s = &syms[j];
			bool g = ELF64_ST_BIND(s->st_info) != STB_LOCAL;

			if (s->st_shndx == SHN_UNDEF ||
			    s->st_name >= sh[sh[i].sh_link].sh_size ||
			    strcmp(strs + s->st_name, name) ||
			    (found && (global || !g)))
				continue;
			*size = s->st_size;
			found = true;
			global = g;
		}
		break;
	}
	free(syms);
	free(strs);
	free(sh);
	close(fd);
	return found;
}

/* NT_GNU_BUILD_ID of an ELF64 file, as hex; "" when there is none. */
static void read_build_id(const char *path, char *out, size_t outsz)
{
	Elf64_Shdr *sh = NULL;
	unsigned char *data;
	unsigned int nsh = 0;
	int fd;

	out[0] = '\0';
	if (!path || (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return;
	sh = read_shdrs(fd, &nsh);
	for (unsigned int i = 0; sh && i < nsh && !out[0]; i++) {
		size_t off = 0;

		if (sh[i].sh_type != SHT_NOTE ||
		    !(data = read_section(fd, &sh[i], 1u << 20)))
			continue;
		while (off + sizeof(Elf64_Nhdr) <= sh[i].sh_size) {
			Elf64_Nhdr nh;
			size_t name_off, desc_off, next;

			memcpy(&nh, data + off, sizeof(nh));
			name_off = off + sizeof(nh);
			desc_off = name_off + ((nh.n_namesz + 3) & ~3u);
			next = desc_off + ((nh.n_descsz + 3) & ~3u);
			if (next > sh[i].sh_size || next <= off)
				break;
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp(data + name_off, "GNU", 4) && nh.n_descsz &&
			    nh.n_descsz * 2 < outsz) {
				for (size_t b = 0; b < nh.n_descsz; b++)
					snprintf(out + 2 * b, 3, "%02x",
						 data[desc_off + b]);
				break;
			}
			off = next;
		}
		free(data);
	}
	free(sh);
	close(fd);
}

struct mmc_error *mmc_crash_layout(struct mmc_layout **out,
				   struct mmc_kernel_hints *hints)
{
	struct mmc_layout *l;
	struct mmc_error *err = NULL;
	struct gdbq *q;
	const char *namelist = pc->namelist_debug ? pc->namelist_debug : pc->namelist;

	*out = NULL;
	l = mmc_layout_create();
	q = calloc(1, sizeof(*q));
	if (!l || !q) {
		err = mmc_error_nomem();
		goto fail;
	}
	q->tmp = tmpfile();
	if (!q->tmp) {
		err = mmc_error_os(errno, NULL, "tmpfile (for gdb's output)");
		goto fail;
	}
	snprintf(l->source, sizeof(l->source), "crash:%s",
		 namelist ? namelist : "(no namelist)");
	snprintf(l->release, sizeof(l->release), "%s", kt->utsname.release);
	read_build_id(pc->namelist, l->build_id, sizeof(l->build_id));
	if (!l->build_id[0] && pc->namelist_debug)
		read_build_id(pc->namelist_debug, l->build_id, sizeof(l->build_id));
	resolve_members(q, l);
	for (int i = 0; i < MMC_ENUM_COUNT && !err; i++)
		err = resolve_enum(q, l, (enum mmc_enum_id)i);
	if (err)
		goto fail;
	resolve_symbols(l, (uint64_t)kt->relocate);
	resolve_numnodes(l, pc->namelist_debug ? pc->namelist_debug : pc->namelist);
	err = mmc_layout_check(l);
	if (err)
		goto fail;
	hints->have_kaslr_offset = true;
	hints->kaslr_offset = 0 - (uint64_t)kt->relocate;
	hints->have_phys_base = true;
	hints->phys_base = machdep->machspec->phys_base;
	*out = l;
	l = NULL;
fail:
	if (q && q->tmp)
		fclose(q->tmp);
	free(q);
	mmc_layout_destroy(l);
	return err;
}

struct mmc_error *mmc_crash_member(const char *type, const char *path,
				   struct mmc_member *m)
{
	struct gdbq *q = calloc(1, sizeof(*q));
	struct mmc_error *err = NULL;

	memset(m, 0, sizeof(*m));
	if (!q)
		return mmc_error_nomem();
	q->tmp = tmpfile();
	if (!q->tmp)
		err = mmc_error_os(errno, NULL, "tmpfile (for gdb's output)");
	else if (!resolve_path(q, type, path, m))
		err = mmc_error_create(MMC_ERR_LAYOUT, "crash",
				       "struct %s has no member %s", type, path);
	if (q->tmp)
		fclose(q->tmp);
	free(q);
	return err;
}
