// SPDX-License-Identifier: GPL-2.0-only
/*
 * lwnfs_bench: the benchmarks of make bench, run inside a guest. It is
 * tooling, not part of the series. Every figure is printed as one line
 *
 *   BENCH <group> <what> <param> <run> <value>
 *
 * for scripts/bench-report.py to gather; the host takes medians.
 *
 *   lwnfs_bench read RUNS ITERS DIR
 *       nanoseconds per pread(fd, buf, 64, 0) on an lwnfs counter (an
 *       instance mounted at DIR), /dev/zero (the floor), /dev/full (the
 *       floor of a file with only a ->read_iter),
 *       /sys/kernel/uevent_seqnum and /proc/loadavg; per pwrite("12345\n")
 *       on the counter and /dev/null, and per write() on the debugfs
 *       attribute (the bench module; it cannot seek); per open+read+close
 *       of each file but /dev/null. The
 *       files are taken in turn within each run, so that a slow spell of
 *       the host falls on all of them.
 *   lwnfs_bench scale RUNS ITERS DIR
 *       reads per second with 1, 2 and 4 processes reading one counter,
 *       and reading one counter each
 *   lwnfs_bench entries RUNS DIR
 *       microseconds per create (mknod), lookup (stat), read
 *       (open+read+close) and unlink of N = 1000, 10000 and 100000 counters
 *       in one directory, and the bytes of slab per counter
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void __attribute__((noreturn, format(printf, 1, 2))) die(const char *fmt, ...)
{
	va_list ap;
	int err = errno;

	va_start(ap, fmt);
	fputs("bench: FAIL: ", stdout);
	vprintf(fmt, ap);
	printf(": %s\n", strerror(err));
	va_end(ap);
	exit(1);
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void mount_lwnfs(const char *dir, const char *opts)
{
	if (mount("lwnfs", dir, "lwnfs", 0, opts))
		die("mount -t lwnfs -o '%s' lwnfs %s", opts ? opts : "", dir);
}

/* ---- read ------------------------------------------------------------ */

struct target {
	const char *name;	/* as the report names it */
	const char *path;	/* DIR-relative when it starts with no '/' */
	int read;		/* 1: pread and open+read+close; 2: only the latter;
				 * 3: only pread */
	int write;		/* 1: pwrite; 2: write (the file cannot seek) */
};

/*
 * A DEFINE_DEBUGFS_ATTRIBUTE file is opened with nonseekable_open(): pread
 * gets ESPIPE, and a second read() gets the end of the text, so a fresh
 * value costs an open, a read and a close.
 */
static const struct target targets[] = {
	{ "zero",	"/dev/zero",				1, 0 },
	/*
	 * /dev/zero has a ->read, which pread takes; /dev/full reads the same
	 * zeroes through its ->read_iter alone, as pread on lwnfs must.
	 */
	{ "full",	"/dev/full",				3, 0 },
	{ "lwnfs",	"counter",				1, 1 },
	{ "debugfs",	"/sys/kernel/debug/lwnfs_bench/counter", 2, 2 },
	{ "sysfs",	"/sys/kernel/uevent_seqnum",		1, 0 },
	{ "procfs",	"/proc/loadavg",			1, 0 },
	{ "null",	"/dev/null",				0, 1 },
};

#define NTARGETS (sizeof(targets) / sizeof(targets[0]))

static const char *target_path(const struct target *t, const char *dir)
{
	static char buf[4096];

	if (t->path[0] == '/')
		return t->path;
	snprintf(buf, sizeof(buf), "%s/%s", dir, t->path);
	return buf;
}

/* ns per pread of 64 bytes at 0: each must return some bytes */
static double time_pread(int fd, long iters)
{
	char buf[64];
	double t0 = 0;
	long i;

	for (i = 0; i < iters + 1000; i++) {
		if (i == 1000)
			t0 = now_ns();
		if (pread(fd, buf, sizeof(buf), 0) <= 0)
			die("pread");
	}
	return (now_ns() - t0) / iters;
}

/* ns per pwrite of "12345\n" at 0, or per write() where it cannot seek */
static double time_write(int fd, int seekable, long iters)
{
	double t0 = 0;
	long i;

	for (i = 0; i < iters + 1000; i++) {
		if (i == 1000)
			t0 = now_ns();
		if ((seekable ? pwrite(fd, "12345\n", 6, 0) : write(fd, "12345\n", 6)) != 6)
			die("write");
	}
	return (now_ns() - t0) / iters;
}

/*
 * What cat pays: open, one read, close. The name is opened relative to its
 * directory, opened beforehand, so that the length of the path (debugfs's
 * is five names and a mount crossing, lwnfs's two) is not what is timed.
 */
static double time_cat(const char *path, long iters)
{
	char dir[4096], buf[64];
	const char *name = strrchr(path, '/') + 1;
	double t0 = 0;
	int fd, dfd;
	long i;

	snprintf(dir, sizeof(dir), "%.*s", (int)(name - path), path);
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	if (dfd < 0)
		die("open %s", dir);
	for (i = 0; i < iters + 100; i++) {
		if (i == 100)
			t0 = now_ns();
		fd = openat(dfd, name, O_RDONLY);
		if (fd < 0 || read(fd, buf, sizeof(buf)) <= 0)
			die("open and read %s", path);
		close(fd);
	}
	close(dfd);
	return (now_ns() - t0) / iters;
}

/*
 * Run 0 is a warm-up whose figures are not printed (the guest has just
 * booted, and QEMU translates each path the first time it runs). Each run
 * starts at another file, so that no file is always timed first.
 */
static int bench_read(int runs, long iters, const char *dir)
{
	const struct target *t;
	unsigned int i;
	int run, fd, show;
	double ns;

	mount_lwnfs(dir, NULL);
	for (run = 0; run <= runs; run++) {
		show = run > 0;
		for (i = 0; i < NTARGETS; i++) {
			t = &targets[(i + run) % NTARGETS];
			fd = open(target_path(t, dir), t->write ? O_RDWR : O_RDONLY);
			if (fd < 0)
				die("open %s", target_path(t, dir));
			if (t->read == 1 || t->read == 3) {
				ns = time_pread(fd, iters);
				if (show)
					printf("BENCH read pread %s %d %.1f\n", t->name, run, ns);
			}
			if (t->write) {
				ns = time_write(fd, t->write == 1, iters);
				if (show)
					printf("BENCH read pwrite %s %d %.1f\n", t->name, run, ns);
			}
			close(fd);
			if (t->read == 1 || t->read == 2) {
				ns = time_cat(target_path(t, dir), iters / 4);
				if (show)
					printf("BENCH read cat %s %d %.1f\n", t->name, run, ns);
			}
		}
	}
	if (umount(dir))
		die("umount %s", dir);
	return 0;
}

/* ---- scale ----------------------------------------------------------- */

/*
 * P processes read for ITERS reads each, all at once; the figure is the
 * total reads per second from the first start to the last end.
 */
static double time_readers(const char *dir, int procs, int separate, long iters)
{
	volatile int *go;	/* go[0]: start; go[1]: readers ready */
	char path[4096], buf[64];
	double t0;
	int p, fd, status;
	long i;

	go = mmap(NULL, 2 * sizeof(*go), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (go == MAP_FAILED)
		die("mmap");
	go[0] = go[1] = 0;
	for (p = 0; p < procs; p++) {
		snprintf(path, sizeof(path), "%s/c%d", dir, separate ? p : 0);
		switch (fork()) {
		case -1:
			die("fork");
		case 0:
			fd = open(path, O_RDONLY);
			if (fd < 0)
				die("open %s", path);
			__atomic_fetch_add(&go[1], 1, __ATOMIC_SEQ_CST);
			while (!go[0])
				;
			for (i = 0; i < iters; i++)
				if (pread(fd, buf, sizeof(buf), 0) <= 0)
					die("pread %s", path);
			exit(0);
		}
	}
	/* every reader has its file open and spins before the clock starts */
	while (go[1] < procs)
		usleep(1000);
	t0 = now_ns();
	go[0] = 1;
	for (p = 0; p < procs; p++) {
		if (wait(&status) < 0) {
			die("wait");
		} else if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			errno = 0;
			die("a reader failed");
		}
	}
	t0 = now_ns() - t0;
	munmap((void *)go, 2 * sizeof(*go));
	return procs * iters / (t0 / 1e9);
}

static int bench_scale(int runs, long iters, const char *dir)
{
	static const int procs[] = { 1, 2, 4 };
	char path[4096];
	int run, p, sep;
	unsigned int i;

	mount_lwnfs(dir, NULL);
	for (p = 0; p < 4; p++) {
		snprintf(path, sizeof(path), "%s/c%d", dir, p);
		if (mknod(path, S_IFREG | 0644, 0))
			die("mknod %s", path);
	}
	for (run = 1; run <= runs; run++)
		for (sep = 0; sep < 2; sep++)
			for (i = 0; i < sizeof(procs) / sizeof(procs[0]); i++)
				printf("BENCH scale %s %d %d %.0f\n", sep ? "separate" : "same",
				       procs[i], run, time_readers(dir, procs[i], sep, iters));
	for (p = 0; p < 4; p++) {
		snprintf(path, sizeof(path), "%s/c%d", dir, p);
		if (unlink(path))
			die("unlink %s", path);
	}
	if (umount(dir))
		die("umount %s", dir);
	return 0;
}

/* ---- entries --------------------------------------------------------- */

/* Slab: in /proc/meminfo, in bytes */
static long slab_bytes(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		die("open /proc/meminfo");
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Slab: %ld kB", &kb) == 1)
			break;
	fclose(f);
	if (kb < 0)
		die("no Slab: in /proc/meminfo");
	return kb * 1024;
}

/*
 * Free what can be freed: unused dentries and inodes, then the empty slabs
 * of every cache (/sys/kernel/slab/NAME/shrink, where the kernel has it:
 * tinyconfig's SLUB_TINY has no slab sysfs), so that the slabs the last
 * run freed do not hide the next run's.
 */
static void drop_caches(void)
{
	char path[512];
	struct dirent *d;
	DIR *dir;
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY);

	if (fd < 0 || write(fd, "2", 1) != 1)
		die("drop_caches");
	close(fd);
	dir = opendir("/sys/kernel/slab");
	if (!dir && errno == ENOENT)
		return;
	if (!dir)
		die("opendir /sys/kernel/slab");
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/slab/%s/shrink", d->d_name);
		fd = open(path, O_WRONLY);
		if (fd >= 0) {
			if (write(fd, "1", 1) != 1)
				die("write %s", path);
			close(fd);
		}
	}
	closedir(dir);
}

/*
 * Slab once it has settled: inodes and dentries are freed after an RCU
 * grace period, so the last run's and drop_caches' frees may still be on
 * their way. Two readings 200 ms apart must agree (at most 10 s).
 */
static long settled_slab(void)
{
	long a = slab_bytes(), b;
	int i;

	for (i = 0; i < 50; i++) {
		usleep(200000);
		b = slab_bytes();
		if (a == b)
			return b;
		a = b;
	}
	printf("BENCH-NOTE Slab did not settle in 10 s\n");
	return b;
}

static void name_of(char *buf, size_t size, const char *dir, long i)
{
	snprintf(buf, size, "%s/n%ld", dir, i);
}

static void entries_run(const char *dir, long n, int run)
{
	char path[4096], buf[64];
	double t0;
	long slab0, i;
	struct stat st;
	int fd;

	mount_lwnfs(dir, "max_entries=0");
	drop_caches();
	slab0 = settled_slab();
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		name_of(path, sizeof(path), dir, i);
		if (mknod(path, S_IFREG | 0644, 0))
			die("mknod %s", path);
	}
	printf("BENCH entries create %ld %d %.2f\n", n, run, (now_ns() - t0) / n / 1e3);
	printf("BENCH entries bytes %ld %d %.0f\n", n, run,
	       (double)(slab_bytes() - slab0) / n);
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		name_of(path, sizeof(path), dir, i);
		if (stat(path, &st))
			die("stat %s", path);
	}
	printf("BENCH entries stat %ld %d %.2f\n", n, run, (now_ns() - t0) / n / 1e3);
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		name_of(path, sizeof(path), dir, i);
		fd = open(path, O_RDONLY);
		if (fd < 0 || read(fd, buf, sizeof(buf)) != 2)
			die("open and read %s", path);
		close(fd);
	}
	printf("BENCH entries read %ld %d %.2f\n", n, run, (now_ns() - t0) / n / 1e3);
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		name_of(path, sizeof(path), dir, i);
		if (unlink(path))
			die("unlink %s", path);
	}
	printf("BENCH entries unlink %ld %d %.2f\n", n, run, (now_ns() - t0) / n / 1e3);
	if (umount(dir))
		die("umount %s", dir);
}

static int bench_entries(int runs, const char *dir)
{
	static const long ns[] = { 1000, 10000, 100000 };
	unsigned int i;
	int run;

	for (run = 1; run <= runs; run++)
		for (i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
			entries_run(dir, ns[i], run);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 5 && !strcmp(argv[1], "read"))
		return bench_read(atoi(argv[2]), atol(argv[3]), argv[4]);
	if (argc == 5 && !strcmp(argv[1], "scale"))
		return bench_scale(atoi(argv[2]), atol(argv[3]), argv[4]);
	if (argc == 4 && !strcmp(argv[1], "entries"))
		return bench_entries(atoi(argv[2]), argv[3]);
	fprintf(stderr, "usage: %s read RUNS ITERS DIR | scale RUNS ITERS DIR | entries RUNS DIR\n",
		argv[0]);
	return 2;
}
