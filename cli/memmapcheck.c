// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * memmapcheck: batch front end.  Parses arguments (every option is checked
 * against the subcommand that is to use it), runs a command (commands.c),
 * and makes sure the verdict reached its reader: standard output and
 * standard error are flushed and closed with their errors checked, and an
 * exit code never says "identical" when the text that says so was lost.
 * Exit codes: cli.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "outfile.h"

enum opt_bit {
	OB_FORMAT = 1u << 0,	/* -f, --format, --json */
	OB_OUTPUT = 1u << 1,	/* -o */
	OB_REPORT = 1u << 2,	/* --report, --report-format */
	OB_SAVE = 1u << 3,	/* --save-base, --save-new */
	OB_CHECK = 1u << 4,	/* --check */
	OB_RANGE = 1u << 5,	/* -r */
	OB_PAGES = 1u << 6,	/* -n, --all-pages */
	OB_LIVE = 1u << 7,	/* --live, --progress, --no-progress */
	OB_QUIET = 1u << 8,	/* -q */
	OB_MAP = 1u << 9,	/* --map */
	OB_THREADS = 1u << 10,	/* --threads */
	OB_GROUPS = 1u << 11,	/* --max-groups */
	OB_CLAIMS = 1u << 12,	/* --claims, --strict */
	OB_PFN = 1u << 13,	/* --pfn */
};

struct command {
	const char *name;
	int (*run)(const struct opts *o, int argc, char **argv);
	unsigned int allowed;
	const char *formats;	/* -f values it takes, NULL: any */
	const char *usage;
	const char *help;
};

static const struct command commands[] = {
	{ "ranges", cmd_ranges, OB_FORMAT | OB_LIVE | OB_QUIET | OB_THREADS, "text|json|ktap|junit",
	  "ranges [-f FMT] [--live] [--threads N] IMAGE",
	  "pgmaps and ZONE_DEVICE ranges, which pfns each init path writes" },
	{ "show", cmd_show, OB_FORMAT | OB_RANGE | OB_PFN | OB_LIVE | OB_QUIET | OB_THREADS, "text|json",
	  "show [-r N | --pfn PFN] [-f text|json] [--live] [--threads N] IMAGE",
	  "every run of struct pages, decoded (-r N: only range N; --pfn: one page)" },
	{ "snapshot", cmd_snapshot, OB_OUTPUT | OB_LIVE | OB_QUIET | OB_THREADS, NULL,
	  "snapshot -o FILE [--live] [--threads N] KERNEL DUMP",
	  "normalised struct pages of every range, to FILE ('-': standard output)" },
	{ "diff", cmd_diff,
	  OB_FORMAT | OB_REPORT | OB_PAGES | OB_GROUPS | OB_MAP | OB_LIVE | OB_QUIET | OB_THREADS |
	  OB_CLAIMS, NULL,
	  "diff [-n N | --all-pages] [--max-groups N] [-f FMT] [--report FILE] [--map DIR] [--claims FILE [--strict]] [--threads N] BASE NEW",
	  "compare two IMAGEs; -n N: differing pages shown in detail (default 20)" },
	{ "compare", cmd_compare,
	  OB_FORMAT | OB_REPORT | OB_PAGES | OB_GROUPS | OB_SAVE | OB_MAP | OB_LIVE | OB_QUIET |
	  OB_THREADS | OB_CLAIMS, NULL,
	  "compare [-n N | --all-pages] [--max-groups N] [-f FMT] [--report FILE] [--map DIR] [--claims FILE [--strict]] [--save-base F] [--save-new F] [--threads N] BASE_KERNEL BASE_DUMP NEW_KERNEL NEW_DUMP",
	  "snapshot and diff two kernel+dump pairs in one go" },
	{ "lint", cmd_lint, OB_FORMAT | OB_REPORT | OB_GROUPS | OB_LIVE | OB_QUIET | OB_THREADS, "text|json|ktap|junit",
	  "lint [--max-groups N] [-f FMT] [--report FILE] [--live] [--threads N] IMAGE",
	  "check one image against the kernel's own rules" },
	{ "layout", cmd_layout, OB_OUTPUT | OB_CHECK | OB_QUIET, NULL,
	  "layout -o FILE VMLINUX | layout --check FILE VMLINUX",
	  "save the layout a dump check needs from a vmlinux, or prove a saved one equals it" },
};
#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static const char usage_head[] =
"usage: memmapcheck COMMAND [OPTIONS] ARGS\n"
"       memmapcheck help [COMMAND], memmapcheck COMMAND --help\n"
"\n"
"An IMAGE is either a snapshot file, or a KERNEL and a DUMP, where KERNEL is a\n"
"vmlinux with DWARF or a saved layout file, and DUMP a vmcore in any format\n"
"libkdumpfile reads (or /proc/kcore with --live).\n"
"\n"
"commands:\n";

static const char usage_tail[] =
"\n"
"options (each command takes the ones its usage line shows):\n"
"  -f, --format FMT     text (default), json, ktap, junit, kcidb (diff, compare:\n"
"                       KCIDB JSON; MEMMAPCHECK_KCIDB_* in memmapcheck(1)); --json: json\n"
"  -o, --output FILE    file to write (snapshot, layout); '-' is standard output\n"
"      --report FILE    also write a report to FILE; --report-format FMT (ktap)\n"
"      --save-base F, --save-new F   compare: keep the snapshots\n"
"      --map DIR        diff, compare: also draw the difference map, an SVG per\n"
"                       range and index.html, into DIR\n"
"      --claims FILE    diff, compare: what the patch is meant to change; the verdict\n"
"                       is then as claimed (0), beyond the claims (1) or incomplete (4)\n"
"      --strict         with --claims: a claim that matched nothing fails (exit 1)\n"
"  -r, --range N        show: only range N\n"
"      --pfn PFN        show: only the struct page of PFN (decimal or 0x hex)\n"
"  -n, --max-pages N    diff, compare: differing pages shown in detail (default 20, 0: none)\n"
"      --all-pages      diff, compare: every differing page in detail\n"
"      --max-groups N   diff, compare, lint: pfn groups listed (default 200)\n"
"      --live           DUMP is /proc/kcore (or a kcore-format file)\n"
"      --threads N      threads reading each dump walked (1: sequential; default\n"
"                       MEMMAPCHECK_THREADS, else the online CPUs, at most 8)\n"
"  -q, --quiet          no summary on stderr\n"
"  An option given twice is an error.\n"
"      --progress, --no-progress   progress on stderr (default: if a terminal)\n"
"  -h, --help, -V, --version\n"
"\n"
"exit: 0 identical/clean/complete/as claimed, 1 different/violations/beyond the\n"
"      claims, 2 bad usage or input (a bad claims file: its line is named),\n"
"      3 internal error or output not written, 4 incomplete (some struct pages\n"
"      unreadable or discovery incomplete; the output is written first)\n";

static void print_usage(FILE *f)
{
	size_t i;

	fputs(usage_head, f);
	for (i = 0; i < NCOMMANDS; i++)
		fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].help);
	fputs(usage_tail, f);
}

static void print_command_usage(FILE *f, const struct command *c)
{
	fprintf(f, "usage: memmapcheck %s\n  %s\n", c->usage, c->help);
	if (c->allowed & (OB_LIVE | OB_QUIET))
		fprintf(f, "  also: %s%s\n", c->allowed & OB_QUIET ? "-q " : "",
			c->allowed & OB_LIVE ? "--progress --no-progress" : "");
	fputs("'memmapcheck --help' lists every command and option; exit codes in memmapcheck(1).\n", f);
}

static const struct command *find_command(const char *name)
{
	size_t i;

	for (i = 0; name && i < NCOMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

int cli_fail(struct mmc_error *err)
{
	int code = mmc_error_exit_code(err);

	fputs("memmapcheck: ", stderr);
	mmc_error_fprint(stderr, err);
	fputc('\n', stderr);
	mmc_error_destroy(err);
	return code;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	const struct command *c = find_command(cmd);
	va_list ap;

	fputs("memmapcheck: ", stderr);
	if (c)
		fprintf(stderr, "%s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (c)
		fprintf(stderr, "usage: memmapcheck %s\n", c->usage);
	fputs("Try 'memmapcheck --help'.\n", stderr);
	return EXIT_USAGE;
}

static bool parse_format(const char *s, enum mmc_format *f)
{
	if (!strcmp(s, "text"))
		*f = MMC_FMT_TEXT;
	else if (!strcmp(s, "json"))
		*f = MMC_FMT_JSON;
	else if (!strcmp(s, "ktap"))
		*f = MMC_FMT_KTAP;
	else if (!strcmp(s, "junit"))
		*f = MMC_FMT_JUNIT;
	else if (!strcmp(s, "kcidb"))
		*f = MMC_FMT_KCIDB;
	else
		return false;
	return true;
}

/* A number >= 0 in decimal (or 0x hex), nothing else. */
static bool parse_count(const char *s, unsigned long long max, unsigned long long *v)
{
	char *end;

	if (!*s || *s == '-' || *s == '+' || *s == ' ')
		return false;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return !errno && !*end && *v <= max;
}

/*
 * With stdout or stderr closed, the next file opened would become fd 1 or
 * 2 and receive the report.  Hold them with /dev/null opened read-only:
 * every write to them then fails, and is caught like any other.
 */
static void hold_standard_fds(void)
{
	int fd;

	for (fd = 0; fd <= 2; fd++) {
		if (fcntl(fd, F_GETFD) != -1 || errno != EBADF)
			continue;
		int n = open("/dev/null", O_RDONLY);

		if (n >= 0 && n != fd) {
			dup2(n, fd);
			close(n);
		}
	}
}

/*
 * The verdict must have reached standard output: flush and close it,
 * then standard error.  A failure turns 0, 1 and 4 into 3.
 */
static int finish(int rc)
{
	struct mmc_error *err = mmc_stream_check(stdout, "standard output");
	bool lost = err != NULL || cli_stdout_lost();

	if (err && cli_stdout_lost()) {
		mmc_error_destroy(err);		/* said already */
		err = NULL;
	}

	if (fclose(stdout) != 0 && !err) {
		err = mmc_error_os(errno, NULL, "closing standard output");
		lost = true;
	}
	if (err) {
		fputs("memmapcheck: ", stderr);
		mmc_error_fprint(stderr, err);
		fputs(": the output is incomplete\n", stderr);
		mmc_error_destroy(err);
	}
	/* not closed: a sanitizer's report at exit still needs it */
	if (fflush(stderr) != 0 || ferror(stderr))
		lost = true;
	if (lost && (rc == 0 || rc == EXIT_DIFFERENT || rc == EXIT_INCOMPLETE))
		rc = EXIT_INTERNAL;
	return rc;
}

static const struct option longopts[] = {
	{ "format", required_argument, NULL, 'f' },
	{ "json", no_argument, NULL, 'J' },
	{ "output", required_argument, NULL, 'o' },
	{ "report", required_argument, NULL, 'R' },
	{ "report-format", required_argument, NULL, 'F' },
	{ "save-base", required_argument, NULL, 'B' },
	{ "save-new", required_argument, NULL, 'N' },
	{ "map", required_argument, NULL, 'M' },
	{ "check", required_argument, NULL, 'C' },
	{ "range", required_argument, NULL, 'r' },
	{ "max-pages", required_argument, NULL, 'n' },
	{ "all-pages", no_argument, NULL, 'A' },
	{ "max-groups", required_argument, NULL, 'G' },
	{ "live", no_argument, NULL, 'L' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "progress", no_argument, NULL, 'P' },
	{ "no-progress", no_argument, NULL, 'p' },
	{ "threads", required_argument, NULL, 'T' },
	{ "claims", required_argument, NULL, 'K' },
	{ "strict", no_argument, NULL, 'S' },
	{ "pfn", required_argument, NULL, 'X' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ 0 }
};

/* Which group an option belongs to, and its name for messages. */
static unsigned int opt_group(int c, const char **name)
{
	switch (c) {
	case 'f': *name = "-f/--format"; return OB_FORMAT;
	case 'J': *name = "--json"; return OB_FORMAT;
	case 'o': *name = "-o/--output"; return OB_OUTPUT;
	case 'R': *name = "--report"; return OB_REPORT;
	case 'F': *name = "--report-format"; return OB_REPORT;
	case 'B': *name = "--save-base"; return OB_SAVE;
	case 'N': *name = "--save-new"; return OB_SAVE;
	case 'M': *name = "--map"; return OB_MAP;
	case 'C': *name = "--check"; return OB_CHECK;
	case 'r': *name = "-r/--range"; return OB_RANGE;
	case 'n': *name = "-n/--max-pages"; return OB_PAGES;
	case 'A': *name = "--all-pages"; return OB_PAGES;
	case 'G': *name = "--max-groups"; return OB_GROUPS;
	case 'L': *name = "--live"; return OB_LIVE;
	case 'P': *name = "--progress"; return OB_LIVE;
	case 'p': *name = "--no-progress"; return OB_LIVE;
	case 'q': *name = "-q/--quiet"; return OB_QUIET;
	case 'T': *name = "--threads"; return OB_THREADS;
	case 'K': *name = "--claims"; return OB_CLAIMS;
	case 'S': *name = "--strict"; return OB_CLAIMS;
	case 'X': *name = "--pfn"; return OB_PFN;
	}
	*name = "?";
	return 0;
}

/*
 * Options given twice: the same option (or two spellings of it, -f and
 * --json, --progress and --no-progress) once more is an error naming it,
 * never "the last one wins" without a word.
 */
static bool given_twice(int ch, unsigned char seen[256])
{
	int key = ch == 'J' ? 'f' : ch == 'p' ? 'P' : ch;

	return seen[(unsigned char)key]++ != 0;
}

/*
 * MEMMAPCHECK_THREADS, when set, must be what --threads takes: a value
 * the walk would ignore (-1, abc, 999999999) is an error, not the default.
 */
static int check_threads_env(const struct command *c, const struct opts *o)
{
	const char *env = getenv("MEMMAPCHECK_THREADS");
	unsigned long long v;

	if (!(c->allowed & OB_THREADS) || o->threads || !env)
		return 0;
	if (!parse_count(env, 64, &v) || v < 1)
		return cli_usage_error(c->name, "MEMMAPCHECK_THREADS takes a number from 1 to 64, not '%s' (unset it for the default)",
				       env);
	return 0;
}

/* -f, --json, --report-format: which renderer, checked against what the command writes */
static int set_format_option(const struct command *c, int ch, struct opts *o)
{
	switch (ch) {
	case 'f':
		if (!parse_format(optarg, &o->format) ||
		    (c->formats && (!strstr(c->formats, optarg) || strchr(optarg, '|'))))
			return cli_usage_error(c->name, "%s takes -f %s, not '%s'", c->name,
					       c->formats ? c->formats : "text|json|ktap|junit|kcidb",
					       optarg);
		break;
	case 'J':
		o->format = MMC_FMT_JSON;
		break;
	case 'F':
		if (!parse_format(optarg, &o->report_format) ||
		    o->report_format == MMC_FMT_TEXT ||
		    (c->formats && !strstr(c->formats, optarg)))
			return cli_usage_error(c->name, "--report-format takes json, ktap or junit%s, not '%s'",
					       c->formats ? "" : " (or kcidb)", optarg);
		break;
	}
	return 0;
}

/* -r, -n, --max-groups, --pfn, --threads: numbers, each with its bounds */
static int set_number_option(const struct command *c, int ch, struct opts *o, bool *have_n)
{
	unsigned long long v;

	switch (ch) {
	case 'r':
		if (!parse_count(optarg, 0x7fffffffUL, &v))
			return cli_usage_error(c->name, "-r takes a range number >= 0, not '%s'", optarg);
		o->range = (long)v;
		break;
	case 'n':
		if (!parse_count(optarg, SIZE_MAX / 2, &v))
			return cli_usage_error(c->name, "-n takes a number of pages >= 0, not '%s' (--all-pages shows every one)",
					       optarg);
		o->max_pages = (size_t)v;
		*have_n = true;
		break;
	case 'G':
		/* a group costs a few hundred bytes: 2^24 of them is GBs */
		if (!parse_count(optarg, 1UL << 24, &v) || v < 1)
			return cli_usage_error(c->name, "--max-groups takes a number from 1 to %lu, not '%s'",
					       1UL << 24, optarg);
		o->max_groups = (size_t)v;
		break;
	case 'X':
		if (!parse_count(optarg, UINT64_MAX, &v))
			return cli_usage_error(c->name, "--pfn takes a page frame number (decimal or 0x hex), not '%s'",
					       optarg);
		o->pfn = v;
		o->have_pfn = true;
		break;
	case 'T':
		/* the bounds MEMMAPCHECK_THREADS has (engine/walk.c) */
		if (!parse_count(optarg, 64, &v) || v < 1)
			return cli_usage_error(c->name, "--threads takes a number from 1 to 64, not '%s'",
					       optarg);
		o->threads = (unsigned int)v;
		break;
	}
	return 0;
}

/* The options that take a path or nothing */
static int set_plain_option(const struct command *c, int ch, struct opts *o)
{
	switch (ch) {
	case 'o':
		o->output = optarg;
		break;
	case 'R':
		o->report = optarg;
		break;
	case 'B':
		o->save_base = optarg;
		break;
	case 'N':
		o->save_new = optarg;
		break;
	case 'M':
		o->map = optarg;
		break;
	case 'C':
		o->check = optarg;
		break;
	case 'A':
		o->all_pages = true;
		break;
	case 'L':
		o->live = true;
		break;
	case 'q':
		o->quiet = true;
		break;
	case 'P':
		o->progress = 1;
		break;
	case 'p':
		o->progress = 0;
		break;
	case 'K':
		o->claims = optarg;
		break;
	case 'S':
		o->strict = true;
		break;
	}
	return 0;
}

/* Options that contradict each other, once all are read. */
static int check_option_combinations(const struct command *c, struct opts *o, bool have_n)
{
	if (have_n && o->all_pages)
		return cli_usage_error(c->name, "-n and --all-pages contradict each other");
	if (o->strict && !o->claims)
		return cli_usage_error(c->name, "--strict needs --claims FILE");
	if (o->check && o->output)
		return cli_usage_error(c->name, "-o and --check: one at a time");
	if (o->have_pfn && o->range >= 0)
		return cli_usage_error(c->name, "-r and --pfn: one at a time");
	return check_threads_env(c, o);
}

static int parse_options(const struct command *c, int argc, char **argv,
			 struct opts *o, bool *help)
{
	unsigned char seen[256] = { 0 };
	bool have_n = false;
	const char *name;
	int ch, rc;

	optind = 2;
	opterr = 0;	/* our own messages, without argv[0]'s path */
	while ((ch = getopt_long(argc, argv, "f:o:r:n:qhV", longopts, NULL)) != -1) {
		if (ch == 'h') {
			*help = true;
			return 0;
		}
		if (ch == 'V')
			return cli_usage_error(c->name, "-V/--version is not an option of a command: 'memmapcheck --version'");
		if (ch == '?' || ch == ':') {
			if (optopt && strchr("forn", optopt))
				return cli_usage_error(c->name, "option -%c needs an argument", optopt);
			return cli_usage_error(c->name, "unknown option or missing argument: %s",
					       argv[optind - 1]);
		}
		if (!(opt_group(ch, &name) & c->allowed))
			return cli_usage_error(c->name, "%s is not an option of %s", name, c->name);
		if (given_twice(ch, seen))
			return cli_usage_error(c->name, "%s given twice (or with its other spelling): give it once",
					       name);
		if (strchr("fJF", ch))
			rc = set_format_option(c, ch, o);
		else if (strchr("rnGXT", ch))
			rc = set_number_option(c, ch, o, &have_n);
		else
			rc = set_plain_option(c, ch, o);
		if (rc)
			return rc;
	}
	return check_option_combinations(c, o, have_n);
}

static int run(int argc, char **argv)
{
	struct opts o = {
		.format = MMC_FMT_TEXT, .report_format = MMC_FMT_KTAP,
		.range = -1, .max_pages = 20, .max_groups = 200, .progress = -1,
	};
	const struct command *c;
	bool help = false;
	int rc;

	if (argc < 2) {
		print_usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		print_usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
		puts("memmapcheck " MMC_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "help")) {
		if (argc == 2) {
			print_usage(stdout);
			return 0;
		}
		c = find_command(argv[2]);
		if (!c)
			return cli_usage_error(NULL, "help: no command '%s'", argv[2]);
		if (argc > 3)
			return cli_usage_error(NULL, "help takes one COMMAND");
		print_command_usage(stdout, c);
		return 0;
	}
	c = find_command(argv[1]);
	if (!c)
		return cli_usage_error(NULL, "unknown command '%s'", argv[1]);
	o.cmd = c->name;
	rc = parse_options(c, argc, argv, &o, &help);
	if (rc)
		return rc;
	if (help) {
		print_command_usage(stdout, c);
		return 0;
	}
	return c->run(&o, argc - optind, argv + optind);
}

int main(int argc, char **argv)
{
	hold_standard_fds();
	cli_signals_init();
	return finish(run(argc, argv));
}
