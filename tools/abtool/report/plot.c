// SPDX-License-Identifier: GPL-2.0
/*
 * The charts of --plot through gnuplot: per metric, write each chart's
 * .dat and .gp (plot_bars.c, plot_forest.c), then run gnuplot on it.
 */
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

void plot_put_outputs(FILE *f, int width, int height, const char *stem)
{
	fprintf(f, "\ndo for [out in \"svg png\"] {\n"
		"\tif (out eq \"svg\") {\n"
		"\t\tset terminal svg size %d,%d dynamic noenhanced "
		"font \"sans,10\"\n"
		/* pngcairo where built in (gnuplot-nox has it), else libgd */
		"\t} else {\n"
		"\t\tif (strstrt(GPVAL_TERMINALS, \"pngcairo\") > 0) {\n"
		"\t\t\tset terminal pngcairo size %d,%d noenhanced "
		"font \"sans,10\"\n"
		"\t\t} else {\n"
		"\t\t\tset terminal png size %d,%d\n"
		"\t\t}\n"
		"\t}\n"
		"\tset output \"%s.\" . out\n"
		"\tset multiplot\n"
		"\tunset key\n", width, height, width, height, width, height,
		stem);
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
	char stem[256];
	size_t i;
	int ret;

	ret = report_mkdir_p(dir);
	if (ret)
		return set_err(err, errlen, ret, "%s: %s", dir, strerror(-ret));
	for (i = 0; i < r->nr_metrics; i++) {
		file_stem(r->metrics[i].info.name, stem, sizeof(stem));
		ret = plot_bars(r, i, dir, stem, gnuplot, err, errlen);
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
