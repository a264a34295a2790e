// SPDX-License-Identifier: GPL-2.0
/* Clustered bar charts through gnuplot: write .dat and .gp, then run it. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "errmsg.h"
#include "exit_codes.h"
#include "plot.h"
#include "report.h"

#define PLOT_HEIGHT	540


bool plot_have_gnuplot(void)
{
	const char *path = getenv("PATH");
	char *dirs, *dir, *save, file[4096];
	bool found = false;

	if (!path || !*path)
		return false;
	dirs = strdup(path);
	if (!dirs)
		return false;
	for (dir = strtok_r(dirs, ":", &save); dir && !found;
	     dir = strtok_r(NULL, ":", &save)) {
		snprintf(file, sizeof(file), "%s/gnuplot", *dir ? dir : ".");
		found = !access(file, X_OK);
	}
	free(dirs);
	return found;
}

/* Metric names become file names: keep [A-Za-z0-9_.-]. */
static void file_stem(const char *name, char *buf, size_t len)
{
	size_t i;

	for (i = 0; name[i] && i + 1 < len; i++)
		buf[i] = strchr("abcdefghijklmnopqrstuvwxyz"
				"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-",
				name[i]) ? name[i] : '_';
	buf[i] = '\0';
	if (buf[0] == '.')
		buf[0] = '_';
}

void plot_put_quoted(FILE *f, const char *s, bool data)
{
	fputc('"', f);
	for (; *s; s++) {
		if (data && *s == '"')
			fputc('\'', f);
		else if (!data && (*s == '"' || *s == '\\'))
			fprintf(f, "\\%c", *s);
		else if (!data && *s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

static void put_value(FILE *f, double v)
{
	char buf[40];

	report_fmt_number(v, buf, sizeof(buf));
	fprintf(f, " %s", *buf ? buf : "-");
}

static void write_dat(FILE *f, const struct report *r,
		      const struct report_metric *m)
{
	size_t i, c;

	fprintf(f, "# abtool compare: %s [%s]; per config: median q1 q3\n",
		m->info.name, m->info.unit);
	fprintf(f, "# cell");
	for (c = 0; c < r->nr_columns; c++) {
		fputc(' ', f);
		plot_put_quoted(f, r->columns[c].label, true);
	}
	fputc('\n', f);
	for (i = 0; i < r->nr_cells; i++) {
		plot_put_quoted(f, r->cells[i].label, true);
		for (c = 0; c < r->nr_columns; c++) {
			const struct report_entry *e = report_entry(r, m, i, c);

			put_value(f, e->sum.median);
			put_value(f, e->sum.q1);
			put_value(f, e->sum.q3);
		}
		fputc('\n', f);
	}
}

/* Whether config @c has a value of metric @m in any cell. */
static bool column_has_data(const struct report *r,
			    const struct report_metric *m, size_t c)
{
	size_t i;

	for (i = 0; i < r->nr_cells; i++)
		if (report_entry(r, m, i, c)->sum.n)
			return true;
	return false;
}

/*
 * A config without the metric (the in-kernel row's server CPU) is left
 * out: gnuplot warns of a series with no valid points, and a clean run
 * prints no tool warnings (issue 34, item 10).
 */
static void write_plot_cmd(FILE *f, const struct report *r,
			   const struct report_metric *m, const char *stem)
{
	bool first = true;
	size_t c;

	for (c = 0; c < r->nr_columns; c++) {
		if (!column_has_data(r, m, c))
			continue;
		if (first)
			fprintf(f, "plot \"%s.dat\" using %zu:%zu:%zu:xtic(1) "
				"title ", stem, 2 + 3 * c, 3 + 3 * c,
				4 + 3 * c);
		else
			fprintf(f, ", \\\n     \"\" using %zu:%zu:%zu title ",
				2 + 3 * c, 3 + 3 * c, 4 + 3 * c);
		plot_put_quoted(f, r->columns[c].label, false);
		first = false;
	}
	fputc('\n', f);
}

/* Whether every value of the metric is 0: gnuplot's autoscale fails. */
static bool all_zero(const struct report *r, const struct report_metric *m)
{
	size_t i, c;

	for (i = 0; i < r->nr_cells; i++)
		for (c = 0; c < r->nr_columns; c++) {
			const struct report_entry *e = report_entry(r, m, i, c);

			if (e->sum.n && (e->sum.max != 0 || e->sum.min != 0))
				return false;
		}
	return true;
}

static void write_gp(FILE *f, const struct report *r,
		     const struct report_metric *m, const char *stem)
{
	const struct metric_info *mi = &m->info;
	size_t width = 480 + r->nr_cells * (r->nr_columns + 1) * 22;
	char title[512];

	if (width > 3000)
		width = 3000;
	fprintf(f, "# abtool compare: %s.  Redraw: gnuplot %s.gp\n",
		mi->name, stem);
	fprintf(f, "set datafile missing \"-\"\n"
		"set termoption noenhanced\n"
		"set style data histograms\n"
		"set style histogram errorbars gap 1 lw 1\n"
		"set style fill solid 0.75 border -1\n"
		"set key below horizontal noenhanced\n"
		"set xtics nomirror rotate by -30 scale 0 noenhanced\n"
		"set grid ytics\n"
		"set rmargin 10\n"
		/* all zero (faults per I/O): a range, not a warning */
		"set yrange [0:%s]\n"
		"set xrange [-0.6:%zu.4]\n", all_zero(r, m) ? "1" : "*",
		r->nr_cells - 1);
	snprintf(title, sizeof(title), "%s: median, bars from q1 to q3",
		 mi->name);
	fputs("set title ", f);
	plot_put_quoted(f, title, false);
	snprintf(title, sizeof(title), "%s%s%s (%s is better)",
		 mi->known ? mi->label : mi->name, *mi->unit ? ", " : "",
		 mi->unit, mi->higher_is_better ? "higher" : "lower");
	fputs(" noenhanced\nset ylabel ", f);
	plot_put_quoted(f, title, false);
	fputs(" noenhanced\n\n", f);
	fprintf(f, "set terminal svg size %zu,%d dynamic noenhanced "
		"font \"sans,10\"\nset output \"%s.svg\"\n", width,
		PLOT_HEIGHT, stem);
	write_plot_cmd(f, r, m, stem);
	/* pngcairo where built in (gnuplot-nox has it), libgd png else */
	fprintf(f, "\nif (strstrt(GPVAL_TERMINALS, \"pngcairo\") > 0) {\n"
		"\tset terminal pngcairo size %zu,%d noenhanced "
		"font \"sans,10\"\n} else {\n"
		"\tset terminal png size %zu,%d\n}\n"
		"set output \"%s.png\"\nreplot\nunset output\n",
		width, PLOT_HEIGHT, width, PLOT_HEIGHT, stem);
}

int plot_write_file(const char *dir, const char *name,
		    void (*fn)(FILE *f, const void *arg), const void *arg,
		    char *err, size_t errlen)
{
	char path[4096];
	FILE *f;
	int bad;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		return set_err(err, errlen, -errno, "%s: %s", path,
			    strerror(errno));
	fn(f, arg);
	bad = ferror(f);
	if (fclose(f) || bad)
		return set_err(err, errlen, -EIO, "%s: write error", path);
	return 0;
}

/* What the bar chart's writers need. */
struct bars {
	const struct report *r;
	const struct report_metric *m;
	const char *stem;
};

static void dat_fn(FILE *f, const void *arg)
{
	const struct bars *b = arg;

	write_dat(f, b->r, b->m);
}

static void gp_fn(FILE *f, const void *arg)
{
	const struct bars *b = arg;

	write_gp(f, b->r, b->m, b->stem);
}

/* Run "gnuplot NAME" in @dir, so the script's relative names resolve. */
int plot_run_gnuplot(const char *dir, const char *script,
		     char *err, size_t errlen)
{
	int status, devnull;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return set_err(err, errlen, -errno, "fork: %s", strerror(errno));
	if (!pid) {
		devnull = open("/dev/null", O_RDWR);
		if (devnull >= 0) {
			dup2(devnull, STDIN_FILENO);
			dup2(devnull, STDOUT_FILENO);
		}
		if (chdir(dir))
			_exit(AB_EXIT_CANNOT_EXEC);
		execlp("gnuplot", "gnuplot", script, (char *)NULL);
		_exit(AB_EXIT_NOT_FOUND);
	}
	if (waitpid(pid, &status, 0) < 0)
		return set_err(err, errlen, -errno, "waitpid: %s",
			    strerror(errno));
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return set_err(err, errlen, -EIO, "gnuplot failed on %s/%s",
			    dir, script);
	return 0;
}

int plot_write(const struct report *r, const char *dir,
	       char *err, size_t errlen)
{
	bool gnuplot = plot_have_gnuplot();
	char stem[256], name[300];
	size_t i;
	int ret;

	ret = report_mkdir_p(dir);
	if (ret)
		return set_err(err, errlen, ret, "%s: %s", dir, strerror(-ret));
	for (i = 0; i < r->nr_metrics; i++) {
		struct bars b = { r, &r->metrics[i], stem };

		file_stem(b.m->info.name, stem, sizeof(stem));
		snprintf(name, sizeof(name), "%s.dat", stem);
		ret = plot_write_file(dir, name, dat_fn, &b, err, errlen);
		if (ret)
			return ret;
		snprintf(name, sizeof(name), "%s.gp", stem);
		ret = plot_write_file(dir, name, gp_fn, &b, err, errlen);
		if (!ret && gnuplot)
			ret = plot_run_gnuplot(dir, name, err, errlen);
		if (!ret)
			ret = plot_forests(r, i, dir, stem, gnuplot, err,
					   errlen);
		if (ret)
			return ret;
	}
	if (!gnuplot) {
		set_err(err, errlen, PLOT_NO_GNUPLOT, "gnuplot not found: wrote "
		     "the .dat and .gp files to %s, no images", dir);
		return PLOT_NO_GNUPLOT;
	}
	return 0;
}
