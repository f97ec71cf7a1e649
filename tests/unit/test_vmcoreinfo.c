// SPDX-License-Identifier: GPL-2.0-or-later
/* VMCOREINFO parsing: values as the kernel prints them, and bad text. */
#include <stdbool.h>
#include <string.h>

#include "tap.h"
#include "vmcoreinfo.h"

/* Lines as a 6.12 x86_64 kernel writes them (kernel/vmcore_info.c). */
static const char sample[] =
	"OSRELEASE=6.12.117\n"
	"BUILD-ID=6a2b4ac77585b8cf102cba771300e573c8489b69\n"
	"PAGESIZE=4096\n"
	"SYMBOL(init_uts_ns)=ffffffff82bfb000\n"
	"OFFSET(uts_namespace.name)=0\n"
	"SYMBOL(_stext)=ffffffff81000000\n"
	"NUMBER(VMALLOC_START)=0xffffc90000000000\n"
	"SIZE(page)=64\n"
	"OFFSET(page._refcount)=52\n"
	"LENGTH(mem_section)=2048\n"
	"NUMBER(PG_head_mask)=65536\n"
	"NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)=-129\n"
	"NUMBER(phys_base)=-2130706432\n"
	"NUMBER(pgtable_l5_enabled)=0\n"
	"KERNELOFFSET=1e400000\n"
	"CRASHTIME=1732900000\n"
	"CRASHTIME=1732900005\n"
	"SYMBOL(bad)=xyz\n"
	"NUMBER(bad)=12a\n"
	"\0\0\0padding after NUL is not text";

/*
 * A real-looking VMCOREINFO: texts, and numbers in each of their bases.
 * False when it does not parse: nothing else is worth running then.
 */
static bool test_sample(void)
{
	struct mmc_vmcoreinfo *vi = NULL;
	struct mmc_error *err;
	uint64_t v = 0;
	const char *s;

	err = mmc_vmcoreinfo_parse(sample, "vmcore", &vi);
	if (!tap_ok(err == NULL, "parse a real-looking VMCOREINFO")) {
		mmc_error_fprint(stdout, err);
		return false;
	}
	s = mmc_vmcoreinfo_get(vi, "OSRELEASE");
	tap_ok(s && !strcmp(s, "6.12.117"), "OSRELEASE text");
	s = mmc_vmcoreinfo_get(vi, "BUILD-ID");
	tap_ok(s && strlen(s) == 40, "BUILD-ID text");
	tap_ok(!mmc_vmcoreinfo_number(vi, "OSRELEASE", &v), "OSRELEASE is no number");
	tap_ok(mmc_vmcoreinfo_number(vi, "SYMBOL(_stext)", &v), "SYMBOL parses");
	TAP_EQ_U64(v, 0xffffffff81000000ULL, "SYMBOL is hex without 0x");
	tap_ok(mmc_vmcoreinfo_number(vi, "KERNELOFFSET", &v), "KERNELOFFSET parses");
	TAP_EQ_U64(v, 0x1e400000, "KERNELOFFSET is hex");
	tap_ok(mmc_vmcoreinfo_number(vi, "NUMBER(VMALLOC_START)", &v), "0x NUMBER");
	TAP_EQ_U64(v, 0xffffc90000000000ULL, "NUMBER(VMALLOC_START) hex with 0x");
	tap_ok(mmc_vmcoreinfo_number(vi, "NUMBER(PG_head_mask)", &v), "NUMBER");
	TAP_EQ_U64(v, 65536, "NUMBER is decimal (65536, not 0x65536)");
	tap_ok(mmc_vmcoreinfo_number(vi, "NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)", &v),
	       "negative NUMBER");
	tap_ok((int64_t)v == -129, "negative NUMBER is two's complement");
	tap_ok(mmc_vmcoreinfo_number(vi, "NUMBER(phys_base)", &v) &&
	       (int64_t)v == -2130706432LL, "NUMBER(phys_base) is %%ld: signed decimal");
	tap_ok(mmc_vmcoreinfo_number(vi, "SIZE(page)", &v) && v == 64, "SIZE decimal");
	tap_ok(mmc_vmcoreinfo_number(vi, "OFFSET(page._refcount)", &v) && v == 52,
	       "OFFSET decimal");
	tap_ok(mmc_vmcoreinfo_number(vi, "LENGTH(mem_section)", &v) && v == 2048,
	       "LENGTH decimal");
	tap_ok(mmc_vmcoreinfo_number(vi, "PAGESIZE", &v) && v == 4096, "PAGESIZE");
	tap_ok(mmc_vmcoreinfo_number(vi, "CRASHTIME", &v) && v == 1732900005,
	       "repeated key: the last one wins");
	tap_ok(!mmc_vmcoreinfo_number(vi, "SYMBOL(bad)", &v), "bad hex refused");
	tap_ok(!mmc_vmcoreinfo_number(vi, "NUMBER(bad)", &v), "bad decimal refused");
	tap_ok(!mmc_vmcoreinfo_get(vi, "SYMBOL(absent)"), "absent key");
	tap_ok(!mmc_vmcoreinfo_get(vi, "padding after NUL is not text"),
	       "text ends at the first NUL");
	mmc_vmcoreinfo_destroy(vi);
	return true;
}

/* Malformed text: refused naming the file and line; empty text is none. */
static void test_malformed(void)
{
	struct mmc_vmcoreinfo *vi = NULL;
	struct mmc_error *err;

	err = mmc_vmcoreinfo_parse("OSRELEASE=6.1\ngarbage line\n", "dump.elf", &vi);
	tap_ok(err && err->path && !strcmp(err->path, "dump.elf") &&
	       strstr(err->message, "line 2"), "line without '=' names file and line");
	if (err)
		tap_diag("%s", err->message);
	mmc_error_destroy(err);
	mmc_vmcoreinfo_destroy(vi);
	vi = NULL;
	err = mmc_vmcoreinfo_parse("=1\n", "d", &vi);
	tap_ok(err != NULL, "empty key refused");
	mmc_error_destroy(err);
	err = mmc_vmcoreinfo_parse("SYM BOL(x)=1\n", "d", &vi);
	tap_ok(err != NULL, "blank inside key refused");
	mmc_error_destroy(err);
	err = mmc_vmcoreinfo_parse("", "d", &vi);
	tap_ok(err == NULL && vi && !mmc_vmcoreinfo_get(vi, "OSRELEASE"),
	       "empty text parses to nothing");
	mmc_error_destroy(err);
	mmc_vmcoreinfo_destroy(vi);
}

int main(void)
{
	if (test_sample())
		test_malformed();
	return tap_done();
}
