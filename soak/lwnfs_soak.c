// SPDX-License-Identifier: GPL-2.0-only
/*
 * lwnfs_soak: the load and the fault-injection sweep of the debug guests
 * (scripts/guest.sh BASE kasan|kcsan soak). It is tooling, not part of the series: the series'
 * own tests are the kselftest and KUnit suites.
 *
 *   lwnfs_soak stress SECONDS DIR    readers, writers, create/unlink/rename
 *                                    churn, remounts and mount/lazy-umount
 *                                    loops on the lwnfs instance at DIR;
 *                                    then what umounts of 10,000 entries
 *                                    leave, reported, not judged
 *   lwnfs_soak race SECONDS DIR      readers on one counter, twice as many as
 *                                    CPUs, half of them sharing an open file:
 *                                    no read may lose an increment
 *   lwnfs_soak faults DIR            sweep the allocation failure points of
 *                                    mount, open, read, write, create, mkdir,
 *                                    unlink, rmdir, rename and remount one
 *                                    by one (/proc/thread-self/fail-nth),
 *                                    then fail allocations at random
 *                                    (failslab, fail_page_alloc)
 *   lwnfs_soak fuzz SECONDS UID GID PROG [ARG...]
 *                                    run PROG as UID:GID, with no groups,
 *                                    in a process group of its own; after
 *                                    SECONDS stop the whole group (SIGINT,
 *                                    then SIGKILL) and reap it
 *   lwnfs_soak memcg DIR CGROUP2 N   memory cgroup charging of the counters
 *                                    users create, in groups under the
 *                                    cgroup2 mount CGROUP2: N counters'
 *                                    charge, then creates at a 4 MiB limit
 *
 * DIR is an empty mount point; the program mounts its own instances there.
 * Every unexpected result prints "soak: FAIL: ..." and makes the exit
 * status 1; the kernel's own reports are the harness's to judge.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <grp.h>

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif
#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

static int failures;

static void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("soak: FAIL: ", stdout);
	vprintf(fmt, ap);
	putchar('\n');
	fflush(stdout);
	va_end(ap);
	failures++;
}

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("soak: FAIL: ", stdout);
	vprintf(fmt, ap);
	printf(": %s\n", strerror(errno));
	va_end(ap);
	exit(1);
}

/* errno is one of the zero-terminated list */
static int errno_in(int err, const int *ok)
{
	for (; *ok; ok++)
		if (err == *ok)
			return 1;
	return 0;
}

static int sys_renameat2(const char *from, const char *to, unsigned int flags)
{
	return syscall(SYS_renameat2, AT_FDCWD, from, AT_FDCWD, to, flags);
}

/* Read a counter through fd: its value, or -1 with errno set. */
static long long read_value(int fd)
{
	char buf[64];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	char *end;
	long long v;

	if (n < 0)
		return -1;
	buf[n] = '\0';
	errno = 0;
	v = strtoll(buf, &end, 10);
	if (n < 2 || end != buf + n - 1 || *end != '\n' || errno) {
		fail("counter read as '%s'", buf);
		errno = EIO;
		return -1;
	}
	return v;
}

static int write_value(int fd, long long v)
{
	char buf[32];
	int len = snprintf(buf, sizeof(buf), "%lld\n", v);

	return pwrite(fd, buf, len, 0) == len ? 0 : -1;
}

/* The value of the counter at path, read with a fresh open. */
static long long value_at(const char *path)
{
	int fd = open(path, O_RDONLY);
	long long v;

	if (fd < 0)
		return -1;
	v = read_value(fd);
	close(fd);
	return v;
}

static int mounted_at(const char *dir)
{
	char parent[4096];
	struct stat a, b;

	snprintf(parent, sizeof(parent), "%s/..", dir);
	if (stat(dir, &a) || stat(parent, &b))
		die("stat %s", dir);
	return a.st_dev != b.st_dev;
}

static void mount_lwnfs(const char *dir, const char *opts)
{
	if (mount("lwnfs", dir, "lwnfs", 0, opts))
		die("mount -t lwnfs -o '%s' lwnfs %s", opts ? opts : "", dir);
}

/* ---- stress ---------------------------------------------------------- */

static time_t deadline;

static int running(void)
{
	return time(NULL) < deadline;
}

/* Readers: the built-in counters, read as pread and as cat does. */
static void reader(const char *dir, int id)
{
	char path[4096];
	long reads = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, id ? "subdir/subcounter" : "counter");
	fd = open(path, O_RDONLY);
	if (fd < 0)
		die("open %s", path);
	while (running()) {
		if (read_value(fd) < 0)
			fail("reader %d: read %s: %s", id, path, strerror(errno));
		if (value_at(path) < 0)
			fail("reader %d: open+read %s: %s", id, path, strerror(errno));
		reads += 2;
	}
	close(fd);
	printf("soak: reader %d: %ld reads\n", id, reads);
}

/* Writers: the same counters, set to random values and to bad input. */
static void writer(const char *dir, int id)
{
	char path[4096];
	long writes = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, id ? "subdir/subcounter" : "counter");
	fd = open(path, O_WRONLY);
	if (fd < 0)
		die("open %s", path);
	srandom(getpid());
	while (running()) {
		if (write_value(fd, random()))
			fail("writer %d: write %s: %s", id, path, strerror(errno));
		if (pwrite(fd, "12x\n", 4, 0) != -1 || errno != EINVAL)
			fail("writer %d: bad input to %s: not EINVAL", id, path);
		writes += 2;
	}
	close(fd);
	printf("soak: writer %d: %ld writes\n", id, writes);
}

#define CHURN_NAMES 24
#define CHURN_DIRS 3

/* A random path in the churn area: "nK" or "dJ/nK". */
static void churn_file(char *buf, size_t len, const char *area)
{
	int j = random() % (CHURN_DIRS + 1);
	int k = random() % CHURN_NAMES;

	if (j == CHURN_DIRS)
		snprintf(buf, len, "%s/n%d", area, k);
	else
		snprintf(buf, len, "%s/d%d/n%d", area, j, k);
}

/* Unlink the churn names in dir; the other churner may be adding more. */
static void empty_dir(const char *dir)
{
	char path[4200];
	int k;

	for (k = 0; k < CHURN_NAMES; k++) {
		snprintf(path, sizeof(path), "%s/n%d", dir, k);
		if (unlink(path) && errno != ENOENT)
			fail("unlink %s: %s", path, strerror(errno));
	}
}

/*
 * Shared by the stress workers: the ENOSPC that all churners met, and the
 * remounter's bound generation, odd from just before a tight bound until
 * the loose one is back. Under the loose bound of 120 (or the mount's
 * 1024) the churn area cannot fill: a create that meets ENOSPC while the
 * generation stays even fails.
 */
struct churn_shared {
	long enospc;
	unsigned long gen;
};

static struct churn_shared *shared;

static unsigned long bound_gen(void)
{
	return __atomic_load_n(&shared->gen, __ATOMIC_ACQUIRE);
}

/* Count an ENOSPC seen by a call that began at generation @gen. */
static void churn_enospc(int id, const char *what, unsigned long gen, long *count)
{
	(*count)++;
	if (gen == bound_gen() && !(gen & 1))
		fail("churner %d: %s: ENOSPC under the loose bound", id, what);
}

/* The entries in use at DIR, as statfs counts them; 0 when unbounded. */
static long entries_in_use(const char *dir, struct statfs *st)
{
	if (statfs(dir, st))
		die("statfs %s", dir);
	return (long)(st->f_files - st->f_ffree);
}

/* v5.10's simple_rename() refuses RENAME_EXCHANGE with EINVAL */
static int exchange_ok;

/*
 * Churners: two processes on the same names, so that every operation
 * races with the other's. Each call may fail only as the race allows, and
 * each kind of operation must have succeeded some of the time.
 */
static void churner(const char *dir, int id)
{
	static const int create_ok[] = { EEXIST, ENOENT, ENOSPC, 0 };
	static const int remove_ok[] = { ENOENT, 0 };
	static const int rename_ok[] = { ENOENT, EEXIST, 0 };
	static const int mkdir_ok[] = { EEXIST, ENOSPC, 0 };
	static const int rmdir_ok[] = { ENOENT, ENOTEMPTY, 0 };
	static const char *const names[] = { "create", "unlink", "rename", "mkdir", "rmdir" };
	char area[256], a[4096], b[4096];
	long ops = 0, done[5] = { 0 }, enospc = 0;
	int fd, rc, i;

	snprintf(area, sizeof(area), "%s/churn", dir);
	srandom(getpid());
	while (running()) {
		int op = random() % 8;
		unsigned long gen = bound_gen();

		churn_file(a, sizeof(a), area);
		churn_file(b, sizeof(b), area);
		ops++;
		switch (op) {
		case 0:
		case 1:
			fd = open(a, O_CREAT | O_EXCL | O_RDWR, 0600);
			if (fd < 0) {
				if (errno == ENOSPC)
					churn_enospc(id, a, gen, &enospc);
				if (!errno_in(errno, create_ok))
					fail("churner %d: create %s: %s", id, a, strerror(errno));
				break;
			}
			/* the new counter is this process's alone to write */
			if (read_value(fd) != 0 || write_value(fd, 7) || read_value(fd) != 7)
				fail("churner %d: new counter %s misbehaves", id, a);
			close(fd);
			done[0]++;
			break;
		case 2:
		case 3:
			rc = unlink(a);
			if (rc && !errno_in(errno, remove_ok))
				fail("churner %d: unlink %s: %s", id, a, strerror(errno));
			done[1] += !rc;
			break;
		case 4:
		case 5: {
			static const unsigned int flags[] = { 0, RENAME_NOREPLACE, RENAME_EXCHANGE };
			unsigned int f = flags[random() % (exchange_ok ? 3 : 2)];

			rc = sys_renameat2(a, b, f);
			if (rc && !errno_in(errno, rename_ok))
				fail("churner %d: rename %s %s (%u): %s", id, a, b, f, strerror(errno));
			done[2] += !rc;
			break;
		}
		case 6:
			snprintf(a, sizeof(a), "%s/d%ld", area, random() % CHURN_DIRS);
			rc = mkdir(a, 0700);
			if (rc && errno == ENOSPC)
				churn_enospc(id, a, gen, &enospc);
			if (rc && !errno_in(errno, mkdir_ok))
				fail("churner %d: mkdir %s: %s", id, a, strerror(errno));
			done[3] += !rc;
			break;
		case 7:
			snprintf(a, sizeof(a), "%s/d%ld", area, random() % CHURN_DIRS);
			rc = rmdir(a);
			/*
			 * Most often not empty: one time in four, empty it as
			 * rm -r would (more often, and the area stays nearly
			 * empty).
			 */
			if (rc && errno == ENOTEMPTY && random() % 4 == 0) {
				empty_dir(a);
				rc = rmdir(a);
			}
			if (rc && !errno_in(errno, rmdir_ok))
				fail("churner %d: rmdir %s: %s", id, a, strerror(errno));
			done[4] += !rc;
			break;
		}
	}
	printf("soak: churner %d: %ld operations: %ld creates, %ld unlinks, %ld renames, %ld mkdirs, %ld rmdirs; %ld ENOSPC\n",
	       id, ops, done[0], done[1], done[2], done[3], done[4], enospc);
	for (i = 0; i < 5; i++)
		if (!done[i])
			fail("churner %d: no %s succeeded", id, names[i]);
	__atomic_add_fetch(&shared->enospc, enospc, __ATOMIC_RELAXED);
}

/* The root and the layout's entries, which no worker removes or renames. */
static const char *const layout_names[] = { "", "/counter", "/subdir", "/subdir/subcounter" };

/*
 * The owner the last remount's uid=/gid= gave the root and the layout's
 * entries, checked while the workers run. check_owners() checks every name
 * once they are done.
 */
static void expect_owner(const char *dir, unsigned int id, const char *when)
{
	const char *const *names = layout_names;
	char path[4096];
	struct stat st;
	unsigned int i;

	for (i = 0; i < sizeof(layout_names) / sizeof(layout_names[0]); i++) {
		snprintf(path, sizeof(path), "%s%s", dir, names[i]);
		if (stat(path, &st))
			die("stat %s", path);
		if (st.st_uid != id || st.st_gid != id)
			fail("remounter: %s: %s is owned by %u:%u, not %u:%u", when, path,
			     st.st_uid, st.st_gid, id, id);
	}
}

/* After a tight bound held: statfs still shows it, and no more in use. */
static void expect_bound(const char *dir, long bound, const char *when)
{
	struct statfs st;

	entries_in_use(dir, &st);
	if ((long)st.f_files != bound || st.f_ffree > st.f_files)
		fail("remounter: statfs %s max_entries=%ld: %ld files, %ld free", when,
		     bound, (long)st.f_files, (long)st.f_ffree);
}

/*
 * Remounts of the churned instance: the uid=/gid= of the layout's entries
 * and the max_entries check, racing with the churners' creates. The
 * remounter reads how many entries are in use from statfs and sets the
 * bound one above that, so that the churners' next creates meet ENOSPC.
 * The remount is refused with EINVAL when the churners made two or more
 * entries between that reading and the remount. The remounter then lifts
 * the bound to 120, above the area's 104 at most.
 */
static void remounter(const char *dir)
{
	long n = 0, tight = 0, refused = 0, bound;
	struct statfs st;
	char opts[64];
	int rc;

	while (running()) {
		bound = entries_in_use(dir, &st) + 1;
		if (!st.f_files)
			die("statfs %s: no max_entries", dir);
		snprintf(opts, sizeof(opts), "uid=1000,gid=1000,max_entries=%ld", bound);
		__atomic_add_fetch(&shared->gen, 1, __ATOMIC_RELEASE);
		rc = mount(NULL, dir, NULL, MS_REMOUNT, opts);
		if (rc && errno != EINVAL)
			fail("remount %s -o %s: %s", dir, opts, strerror(errno));
		refused += rc != 0;
		tight += !rc;
		if (!rc)
			expect_bound(dir, bound, "after");
		/* a refused remount changed nothing, the owner included */
		expect_owner(dir, rc ? 0 : 1000, rc ? "after a refused remount" : "after a remount");
		/* hold the tight bound long enough for a few creates */
		usleep(20000);
		if (!rc)
			expect_bound(dir, bound, "20 ms after");
		if (mount(NULL, dir, NULL, MS_REMOUNT, "uid=0,gid=0,max_entries=120"))
			fail("remount %s -o max_entries=120: %s", dir, strerror(errno));
		__atomic_add_fetch(&shared->gen, 1, __ATOMIC_RELEASE);
		expect_owner(dir, 0, "after the remount back");
		n++;
		usleep(1000);
	}
	printf("soak: remounter: %ld rounds: a tight bound held %ld times, refused %ld times (EINVAL)\n",
	       n, tight, refused);
	if (!tight)
		fail("remounter: no tight bound ever held");
}

/*
 * Mount and umount loops: private instances, left with open files by a
 * lazy umount, and refused a plain umount while busy.
 */
static void mounter(const char *dir)
{
	char mnt[256], path[4096];
	long n = 0;
	int cfd, nfd;

	/* stress() made the mount point before the remounter's tight bounds */
	snprintf(mnt, sizeof(mnt), "%s/churn/m", dir);
	while (running()) {
		mount_lwnfs(mnt, "max_entries=8");
		snprintf(path, sizeof(path), "%s/counter", mnt);
		cfd = open(path, O_RDWR);
		snprintf(path, sizeof(path), "%s/new", mnt);
		nfd = open(path, O_CREAT | O_RDWR, 0600);
		if (cfd < 0 || nfd < 0)
			die("open in %s", mnt);
		if (read_value(cfd) != 0)
			fail("mounter: a new instance's counter is not 0");
		if (n % 4 == 0) {
			if (umount(mnt) != -1 || errno != EBUSY)
				fail("mounter: umount of a busy instance: not EBUSY");
		}
		if (umount2(mnt, MNT_DETACH))
			fail("mounter: umount -l %s: %s", mnt, strerror(errno));
		/* the detached instance lives on with its open files */
		if (read_value(cfd) != 1 || read_value(nfd) != 0)
			fail("mounter: counters of a lazily unmounted instance");
		close(cfd);
		close(nfd);
		n++;
	}
	printf("soak: mounter: %ld mount and lazy umount cycles\n", n);
}

/* Whether rename(RENAME_EXCHANGE) works here; 0 where the base refuses it. */
static int probe_exchange(const char *area)
{
	char a[4096], b[4096];
	int rc;

	snprintf(a, sizeof(a), "%s/x1", area);
	snprintf(b, sizeof(b), "%s/x2", area);
	if (mknod(a, S_IFREG | 0600, 0) || mknod(b, S_IFREG | 0600, 0))
		die("mknod in %s", area);
	rc = sys_renameat2(a, b, RENAME_EXCHANGE);
	if (rc && errno != EINVAL)
		die("rename(RENAME_EXCHANGE) %s %s", a, b);
	if (unlink(a) || unlink(b))
		die("unlink in %s", area);
	if (rc)
		printf("soak: stress: RENAME_EXCHANGE is refused with EINVAL here; the churners leave it out\n");
	return !rc;
}

static long tree_entries;

static int count_entry(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	(void)path;
	(void)sb;
	(void)type;
	tree_entries += ftw->level > 0;
	return 0;
}

static long wrong_owner;
static size_t owner_dir_len;

static int check_owner(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	unsigned int i, want = 0;

	(void)type;
	(void)ftw;
	for (i = 0; i < sizeof(layout_names) / sizeof(layout_names[0]); i++)
		if (!strcmp(path + owner_dir_len, layout_names[i]))
			want = 1000;
	if (sb->st_uid != want || sb->st_gid != want) {
		if (!wrong_owner++)
			fail("stress: after a remount with uid=1000,gid=1000, %s is owned by %u:%u, not %u:%u",
			     path, sb->st_uid, sb->st_gid, want, want);
	}
	return 0;
}

/*
 * The remount's owner reaches the root and the layout's entries, and none
 * of the names the churners (root) made.
 */
static void check_owners(const char *dir)
{
	if (mount(NULL, dir, NULL, MS_REMOUNT, "uid=1000,gid=1000"))
		die("remount %s -o uid=1000,gid=1000", dir);
	wrong_owner = 0;
	owner_dir_len = strlen(dir);
	if (nftw(dir, check_owner, 16, FTW_PHYS | FTW_MOUNT))
		die("nftw %s", dir);
	printf("soak: stress: after a remount with uid=1000,gid=1000: %ld names of the wrong owner\n",
	       wrong_owner);
}

/*
 * Once every worker has exited (and closed its files), the entries that
 * statfs counts must be the names in the tree, the root left out.
 */
static void check_entries(const char *dir)
{
	struct statfs st;
	long counted;

	tree_entries = 0;
	if (nftw(dir, count_entry, 16, FTW_PHYS | FTW_MOUNT))
		die("nftw %s", dir);
	counted = entries_in_use(dir, &st);
	printf("soak: stress: %ld entries in the tree, statfs counts %ld\n",
	       tree_entries, counted);
	if (counted != tree_entries)
		fail("stress: statfs counts %ld entries, the tree has %ld",
		     counted, tree_entries);
}

static long proc_first(const char *file)
{
	FILE *f = fopen(file, "r");
	long v;

	if (!f || fscanf(f, "%ld", &v) != 1)
		die("read %s", file);
	fclose(f);
	return v;
}

/*
 * nr_inodes and nr_dentry: counted at allocation, so KASAN's quarantine
 * of freed objects does not hide a leak. Objects the phases before this
 * one left to be freed later (RCU, lazily unmounted instances) go on
 * leaving, so the caches are dropped until two readings 100 ms apart agree
 * (at most 20 times). 0 once they do, -1 if they did not in 2 s.
 */
static int vfs_counts(long *inodes, long *dentries)
{
	long i0 = -1, d0 = -1;
	int n, fd;

	for (n = 0; n < 20; n++) {
		fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
		if (fd < 0 || write(fd, "2", 1) != 1)
			die("write /proc/sys/vm/drop_caches");
		close(fd);
		*inodes = proc_first("/proc/sys/fs/inode-nr");
		*dentries = proc_first("/proc/sys/fs/dentry-state");
		if (*inodes == i0 && *dentries == d0)
			return 0;
		i0 = *inodes;
		d0 = *dentries;
		usleep(100000);
	}
	return -1;
}

#define FILL_ENTRIES 2000
#define FILL_ROUNDS 2

/* Mount an instance at DIR, make FILL_ENTRIES entries in it, umount it. */
static void fill_and_umount(const char *dir)
{
	char name[4200];
	int i, fd;

	mount_lwnfs(dir, "max_entries=0");
	for (i = 0; i < FILL_ENTRIES; i++) {
		snprintf(name, sizeof(name), "%s/%s%d", dir, i % 10 ? "subdir/" : "", i);
		if (i % 100 == 1) {
			if (mkdir(name, 0755))
				die("mkdir %s", name);
			continue;
		}
		fd = open(name, O_CREAT | O_EXCL | O_WRONLY, 0644);
		if (fd < 0)
			die("create %s", name);
		close(fd);
	}
	if (umount(dir))
		die("umount %s", dir);
}

/*
 * Reported, not judged: what a umount with FILL_ENTRIES entries present
 * leaves. The kernel's inode and dentry counts after FILL_ROUNDS more
 * rounds of filling an instance and unmounting it, against those after the
 * first: a round that leaked its entries would leave FILL_ENTRIES more of
 * each. Kept small: on a KASAN kernel in an emulated guest each round of
 * 10,000 took about 30 s. The rest of the
 * system moves these counts too, which made this a flaky kselftest; here
 * it is a line to read, and kmemleak judges leaks.
 */
static void umount_frees(const char *dir)
{
	long inodes0, dentries0, inodes, dentries;
	int round, settled;

	fill_and_umount(dir);
	settled = !vfs_counts(&inodes0, &dentries0);
	for (round = 0; round < FILL_ROUNDS; round++)
		fill_and_umount(dir);
	settled &= !vfs_counts(&inodes, &dentries);
	printf("soak: umount: %d rounds of %d entries: inodes %ld -> %ld, dentries %ld -> %ld%s",
	       FILL_ROUNDS, FILL_ENTRIES, inodes0, inodes, dentries0, dentries,
	       settled ? "" : "; the counts did not settle in 2 s");
	printf(" (reported, not judged)\n");
}

static int stress(int seconds, const char *dir)
{
	char area[256], path[300];
	int nproc = 0, status, bad = 0, i;
	pid_t pid;

	mount_lwnfs(dir, NULL);
	snprintf(area, sizeof(area), "%s/churn", dir);
	if (mkdir(area, 0755))
		die("mkdir %s", area);
	exchange_ok = probe_exchange(area);
	/* the mounter's mount point */
	snprintf(path, sizeof(path), "%s/m", area);
	if (mkdir(path, 0700))
		die("mkdir %s", path);
	shared = mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED)
		die("mmap");
	deadline = time(NULL) + seconds;
	for (i = 0; i < 8; i++) {
		pid = fork();
		if (pid < 0)
			die("fork");
		if (pid == 0) {
			switch (i) {
			case 0: case 1: reader(dir, i); break;
			case 2: case 3: writer(dir, i - 2); break;
			case 4: case 5: churner(dir, i - 4); break;
			case 6: remounter(dir); break;
			case 7: mounter(dir); break;
			}
			exit(failures ? 1 : 0);
		}
		nproc++;
	}
	while (nproc--) {
		if (wait(&status) < 0)
			die("wait");
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			bad++;
	}
	check_entries(dir);
	check_owners(dir);
	if (umount(dir))
		die("umount %s", dir);
	printf("soak: stress: %d seconds, %d of 8 workers failed; the churners met ENOSPC %ld times\n",
	       seconds, bad, shared->enospc);
	/* the remounter's tight bounds must have bitten */
	if (!shared->enospc)
		fail("stress: no create or mkdir met ENOSPC");
	umount_frees(dir);
	return bad || failures ? 1 : 0;
}

/* ---- race ---------------------------------------------------------- */

/*
 * Every read at offset 0 takes one value, so however many readers race on
 * one counter, it must end up advanced by exactly the number of reads, and
 * the values each reader sees must rise. A lost increment fails here; it is
 * also the workload that lets KCSAN watch the counter from every CPU at
 * once. Half the readers share one open file, so the value kept with it
 * is written and read from every CPU too.
 */
static void race_reader(const char *path, int shared_fd, long *reads)
{
	long long v, last = -1;
	int fd = shared_fd;

	if (fd < 0)
		fd = open(path, O_RDONLY);
	if (fd < 0)
		die("open %s", path);
	while (running()) {
		v = read_value(fd);
		if (v < 0) {
			fail("race: read %s: %s", path, strerror(errno));
			break;
		}
		if (v <= last)
			fail("race: read %lld after %lld", v, last);
		last = v;
		(*reads)++;
	}
}

static int race(int seconds, const char *dir)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN), total = 0, *reads;
	int nr = cpus > 2 ? 2 * cpus : 4, bad = 0, status, shared, i;
	char path[4096];
	long long end;
	pid_t pid;

	reads = mmap(NULL, nr * sizeof(*reads), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (reads == MAP_FAILED)
		die("mmap");
	mount_lwnfs(dir, NULL);
	snprintf(path, sizeof(path), "%s/counter", dir);
	shared = open(path, O_RDWR);
	if (shared < 0 || write_value(shared, 0))
		die("open and set %s", path);
	deadline = time(NULL) + seconds;
	for (i = 0; i < nr; i++) {
		pid = fork();
		if (pid < 0)
			die("fork");
		if (pid == 0) {
			race_reader(path, i % 2 ? shared : -1, &reads[i]);
			exit(failures ? 1 : 0);
		}
	}
	for (i = 0; i < nr; i++) {
		if (wait(&status) < 0)
			die("wait");
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			bad++;
	}
	for (i = 0; i < nr; i++)
		total += reads[i];
	end = read_value(shared);
	close(shared);
	if (umount(dir))
		die("umount %s", dir);
	printf("soak: race: %d readers on %ld CPUs, %ld reads in %d s; the counter reads %lld\n",
	       nr, cpus, total, seconds, end);
	if (!total)
		fail("race: no read was done");
	if (end != total)
		fail("race: %ld reads advanced the counter by %lld", total, end);
	return bad || failures ? 1 : 0;
}

/* ---- faults ---------------------------------------------------------- */

static int nth_fd;
static char fdir[256];		/* the swept instance */
static char fmnt[256];		/* a mount point for the mount sweep */

static void set_nth(int n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%d", n);

	if (pwrite(nth_fd, buf, len, 0) != len)
		die("write %d to /proc/thread-self/fail-nth", n);
}

/* Whether the failure set with set_nth() was injected, and reset it. */
static int injected(void)
{
	char buf[16] = "";
	int left;

	if (pread(nth_fd, buf, sizeof(buf) - 1, 0) < 1)
		die("read /proc/thread-self/fail-nth");
	left = atoi(buf);
	set_nth(0);
	return left == 0;
}

static char *fpath(const char *name)
{
	static char buf[2][4096];
	static int i;

	i ^= 1;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", fdir, name);
	return buf[i];
}

static int exists(const char *name)
{
	struct stat st;

	return lstat(fpath(name), &st) == 0;
}

static struct statfs sweep_statfs(void)
{
	struct statfs s;

	if (statfs(fdir, &s))
		die("statfs %s", fdir);
	return s;
}

static void make_counter(const char *name, long long v)
{
	int fd = open(fpath(name), O_CREAT | O_EXCL | O_RDWR, 0600);

	if (fd < 0 || write_value(fd, v))
		die("create %s", fpath(name));
	close(fd);
}

/*
 * One operation of the sweep: run() is the call under test, with the
 * failure armed; check() gets its result and says whether the instance
 * is as the result claims (all of it on success, none of it on failure).
 */
struct fault_op {
	const char *name;
	void (*setup)(void);
	int (*run)(void);
	void (*check)(int rc);
	void (*cleanup)(void);
};

static unsigned long long free0;
static int sweep_fd = -1;

static void note_free(void)
{
	free0 = sweep_statfs().f_ffree;
}

static void expect_free(const char *op, int rc, long delta)
{
	unsigned long long now = sweep_statfs().f_ffree;

	if (now != free0 + (rc ? 0 : delta))
		fail("%s (%s): f_ffree %llu, was %llu", op, rc ? "failed" : "succeeded", now, free0);
}

static int run_mount(void)
{
	return mount("lwnfs", fmnt, "lwnfs", 0, "uid=1,max_entries=64,mode=0750");
}

static void check_mount(int rc)
{
	char path[4096];

	if (mounted_at(fmnt) != !rc)
		fail("mount %s, but the mount point says otherwise", rc ? "failed" : "succeeded");
	if (!rc) {
		snprintf(path, sizeof(path), "%s/counter", fmnt);
		if (value_at(path) != 0)
			fail("mount succeeded, but its counter does not read 0");
		if (umount(fmnt))
			die("umount %s", fmnt);
	}
}

static int run_open(void)
{
	sweep_fd = open(fpath("counter"), O_RDWR);
	return sweep_fd < 0 ? -1 : 0;
}

/* a successful open must have made its per-open state: read through it */
static void check_open(int rc)
{
	if (!rc && read_value(sweep_fd) < 0)
		fail("open succeeded, the counter cannot be read through it");
}

static void close_sweep_fd(void)
{
	if (sweep_fd >= 0)
		close(sweep_fd);
	sweep_fd = -1;
}

static void setup_rw(void)
{
	sweep_fd = open(fpath("counter"), O_RDWR);
	if (sweep_fd < 0 || write_value(sweep_fd, 41))
		die("open %s", fpath("counter"));
}

static int run_read(void)
{
	char buf[64];

	return pread(sweep_fd, buf, sizeof(buf), 0) < 0 ? -1 : 0;
}

/* A read takes the value only when it succeeds. */
static void check_read(int rc)
{
	long long v = read_value(sweep_fd);

	if (v != (rc ? 41 : 42))
		fail("read %s, then the counter read %lld", rc ? "failed" : "succeeded", v);
}

static int run_write(void)
{
	return pwrite(sweep_fd, "12345\n", 6, 0) == 6 ? 0 : -1;
}

static void check_write(int rc)
{
	long long v = read_value(sweep_fd);

	if (v != (rc ? 41 : 12345))
		fail("write %s, then the counter read %lld", rc ? "failed" : "succeeded", v);
}

/* mknod(S_IFREG) is a create alone, with no open after it */
static int run_create(void)
{
	return mknod(fpath("new"), S_IFREG | 0600, 0);
}

static void check_create(int rc)
{
	expect_free("create", rc, -1);
	if (exists("new") != !rc)
		fail("create %s, but the name is %s", rc ? "failed" : "succeeded",
		     exists("new") ? "there" : "missing");
	if (!rc && value_at(fpath("new")) != 0)
		fail("create succeeded, the new counter does not read 0");
	if (!rc && unlink(fpath("new")))
		die("unlink %s", fpath("new"));
}

static int run_open_create(void)
{
	sweep_fd = open(fpath("new"), O_CREAT | O_EXCL | O_RDWR, 0600);
	return sweep_fd < 0 ? -1 : 0;
}

/*
 * open(O_CREAT) is a create, then an open. When the open part fails (no
 * memory for the struct file's per-open state, say) the VFS keeps the
 * file it made, as for any filesystem; it must then be a whole counter.
 */
static void check_open_create(int rc)
{
	int there = exists("new");

	if (!rc && !there)
		fail("open(O_CREAT) succeeded, but the name is missing");
	expect_free("open(O_CREAT)", !there, -1);
	if (!rc && read_value(sweep_fd) != 0)
		fail("open(O_CREAT) succeeded, but its file does not read 0");
	close_sweep_fd();
	/* the file the open read took 0 */
	if (there && value_at(fpath("new")) != !rc)
		fail("open(O_CREAT) %s, and the counter it made does not read %d",
		     rc ? "failed" : "succeeded", !rc);
	if (there && unlink(fpath("new")))
		die("unlink %s", fpath("new"));
}

static int run_mkdir(void)
{
	return mkdir(fpath("newdir"), 0700);
}

static void check_mkdir(int rc)
{
	expect_free("mkdir", rc, -1);
	if (exists("newdir") != !rc)
		fail("mkdir %s, but the name says otherwise", rc ? "failed" : "succeeded");
	if (!rc && rmdir(fpath("newdir")))
		die("rmdir %s", fpath("newdir"));
}

static void setup_victim(void)
{
	make_counter("victim", 9);
	note_free();
}

static int run_unlink(void)
{
	return unlink(fpath("victim"));
}

/* A removal frees its entry and its name only when it succeeds. */
static void expect_removed(const char *op, const char *name, int rc)
{
	expect_free(op, rc, 1);
	if (exists(name) != !!rc)
		fail("%s %s, but the name says otherwise", op, rc ? "failed" : "succeeded");
}

static void check_unlink(int rc)
{
	expect_removed("unlink", "victim", rc);
	if (rc && value_at(fpath("victim")) != 9)
		fail("unlink failed, and the counter lost its value");
	if (rc && unlink(fpath("victim")))
		die("unlink %s", fpath("victim"));
}

static void setup_victim_dir(void)
{
	if (mkdir(fpath("victimdir"), 0700))
		die("mkdir %s", fpath("victimdir"));
	note_free();
}

static int run_rmdir(void)
{
	return rmdir(fpath("victimdir"));
}

static void check_rmdir(int rc)
{
	expect_removed("rmdir", "victimdir", rc);
	if (rc && rmdir(fpath("victimdir")))
		die("rmdir %s", fpath("victimdir"));
}

static int run_rename(void)
{
	return rename(fpath("victim"), fpath("renamed"));
}

static void check_rename(int rc)
{
	const char *there = rc ? "victim" : "renamed";
	const char *gone = rc ? "renamed" : "victim";

	expect_free("rename", rc, 0);
	if (exists(gone) || value_at(fpath(there)) != 9)
		fail("rename %s, but the names say otherwise", rc ? "failed" : "succeeded");
	if (unlink(fpath(there)))
		die("unlink %s", fpath(there));
}

static int run_remount(void)
{
	return mount(NULL, fdir, NULL, MS_REMOUNT, "uid=5,max_entries=100");
}

/* A failed remount changes nothing; a successful one all it was given. */
static void check_remount(int rc)
{
	unsigned long long files = sweep_statfs().f_files;
	struct stat st;

	if (stat(fpath("counter"), &st))
		die("stat %s", fpath("counter"));
	if (files != (rc ? 1024 : 100) || st.st_uid != (rc ? 0U : 5U))
		fail("remount %s, but f_files is %llu and the owner %u", rc ? "failed" : "succeeded",
		     files, st.st_uid);
	if (!rc && mount(NULL, fdir, NULL, MS_REMOUNT, "uid=0,max_entries=1024"))
		die("remount %s back", fdir);
}

static const struct fault_op fault_ops[] = {
	{ "mount", NULL, run_mount, check_mount, NULL },
	{ "open", NULL, run_open, check_open, close_sweep_fd },
	{ "read", setup_rw, run_read, check_read, close_sweep_fd },
	{ "write", setup_rw, run_write, check_write, close_sweep_fd },
	{ "create", note_free, run_create, check_create, NULL },
	{ "open-creat", note_free, run_open_create, check_open_create, NULL },
	{ "mkdir", note_free, run_mkdir, check_mkdir, NULL },
	{ "unlink", setup_victim, run_unlink, check_unlink, NULL },
	{ "rmdir", setup_victim_dir, run_rmdir, check_rmdir, NULL },
	{ "rename", setup_victim, run_rename, check_rename, NULL },
	{ "remount", NULL, run_remount, check_remount, NULL },
};

/*
 * Fail the first, second, ... fault-injectable call (slab or page
 * allocation) of one system call, until the call makes no more of them.
 */
static int sweep(const struct fault_op *op)
{
	int n, rc, err, enomem = 0, other = 0, ok = 0;

	for (n = 1; n < 10000; n++) {
		if (op->setup)
			op->setup();
		set_nth(n);
		rc = op->run();
		err = errno;
		if (!injected()) {
			op->check(rc);
			if (op->cleanup)
				op->cleanup();
			break;
		}
		if (rc && err == ENOMEM)
			enomem++;
		else if (rc)
			other++, fail("%s, failure point %d: %s, not ENOMEM", op->name, n, strerror(err));
		else
			ok++;
		op->check(rc);
		if (op->cleanup)
			op->cleanup();
	}
	printf("soak: faults: %-8s %3d failure points: %d ENOMEM, %d other errors, %d recovered\n",
	       op->name, n - 1, enomem, other, ok);
	return n - 1;
}

/* the fault-injection attributes in debugfs that the sweep drives */
static const char *const attrs[] = { "failslab", "fail_page_alloc" };

static void knob(const char *attr, const char *name, const char *val)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "/sys/kernel/debug/%s/%s", attr, name);
	fd = open(path, O_WRONLY);
	if (fd < 0 || write(fd, val, strlen(val)) != (ssize_t)strlen(val))
		die("write %s to %s", val, path);
	close(fd);
}

/*
 * The file is opened once, while nothing fails yet: opening it with the
 * failures on could itself fail.
 */
static void make_it_fail(int on)
{
	static int fd = -1;

	if (fd < 0)
		fd = open("/proc/self/make-it-fail", O_WRONLY);
	if (fd < 0 || pwrite(fd, on ? "1" : "0", 1, 0) != 1)
		die("write /proc/self/make-it-fail");
}

static long rnd_failed, rnd_enomem, rnd_state;

/*
 * One call of the random phase, whose result is rc: a failure may be
 * ENOMEM, or the errno @state (0: none) that the names an earlier failure
 * left or took away make right for this call (present() says which).
 */
static void random_result(int r, const char *call, int rc, int state)
{
	if (!rc)
		return;
	rnd_failed++;
	if (errno == ENOMEM)
		rnd_enomem++;
	else if (state && errno == state)
		rnd_state++;
	else
		fail("random faults: round %d: %s: %s", r, call, strerror(errno));
}

/* Whether a name of the swept instance exists, seen with no failures. */
static int present(const char *name)
{
	int there;

	make_it_fail(0);
	there = exists(name);
	make_it_fail(1);
	return there;
}

/* The entries the swept instance has in use are its layout's 3 again. */
static void expect_layout_entries(const char *when)
{
	struct statfs st = sweep_statfs();

	if (st.f_files - st.f_ffree != 3)
		fail("%s: %llu entries in use, not the layout's 3", when,
		     (unsigned long long)(st.f_files - st.f_ffree));
}

/*
 * Random failures: each allocation of this process fails with a
 * probability of 1 in 10 while it runs every operation many times. Each
 * call must succeed, or fail with ENOMEM or with what an earlier failed
 * call makes right (ENOENT for a name it did not make, EEXIST for one it
 * did not remove). The instance must then work as before.
 */
static long random_faults(int rounds)
{
	unsigned int i;
	int r, rc, err, fd, state;

	for (i = 0; i < 2; i++) {
		knob(attrs[i], "task-filter", "Y");
		knob(attrs[i], "interval", "1");
		knob(attrs[i], "times", "-1");
		knob(attrs[i], "probability", "10");
	}
	make_it_fail(1);
	for (r = 0; r < rounds; r++) {
		switch (r % 6) {
		case 0:
			fd = open(fpath("r"), O_CREAT | O_RDWR, 0600);
			random_result(r, "open(O_CREAT) r", fd < 0 ? -1 : 0, 0);
			if (fd >= 0) {
				random_result(r, "write r", write_value(fd, r), 0);
				close(fd);
			}
			break;
		case 1:
			state = present("r") ? 0 : ENOENT;
			random_result(r, "read r", value_at(fpath("r")) < 0 ? -1 : 0, state);
			break;
		case 2:
			state = present("r") ? 0 : ENOENT;
			random_result(r, "rename r s", rename(fpath("r"), fpath("s")), state);
			break;
		case 3:
			state = present("s") ? 0 : ENOENT;
			random_result(r, "unlink s", unlink(fpath("s")), state);
			break;
		case 4:
			state = present("d") ? EEXIST : 0;
			rc = mkdir(fpath("d"), 0700);
			err = errno;
			random_result(r, "mkdir d", rc, state);
			/* a d left by a failed rmdir is removed now */
			if (!rc || err == EEXIST)
				random_result(r, "rmdir d", rmdir(fpath("d")), 0);
			break;
		default:
			rc = run_mount();
			random_result(r, "mount", rc, 0);
			if (!rc)
				random_result(r, "umount", umount(fmnt), 0);
			break;
		}
	}
	make_it_fail(0);
	for (i = 0; i < 2; i++)
		knob(attrs[i], "probability", "0");
	unlink(fpath("r"));
	unlink(fpath("s"));
	rmdir(fpath("d"));
	while (mounted_at(fmnt))
		if (umount(fmnt))
			die("umount %s", fmnt);
	printf("soak: faults: random: %d rounds, %ld calls failed: %ld ENOMEM, %ld ENOENT or EEXIST\n",
	       rounds, rnd_failed, rnd_enomem, rnd_state);
	expect_layout_entries("random faults");
	return rnd_enomem;
}

static int faults(const char *dir)
{
	long inodes0, dentries0, inodes, dentries;
	int points = 0, ops = 0, n;
	unsigned int i;

	snprintf(fdir, sizeof(fdir), "%s/sweep", dir);
	snprintf(fmnt, sizeof(fmnt), "%s/mnt", dir);
	if (mkdir(fdir, 0755) || mkdir(fmnt, 0755))
		die("mkdir in %s", dir);
	/* GFP_KERNEL allocations too, and no noise on the console */
	for (i = 0; i < 2; i++) {
		knob(attrs[i], "ignore-gfp-wait", "N");
		knob(attrs[i], "verbose", "0");
		knob(attrs[i], "probability", "0");
	}
	knob("fail_page_alloc", "min-order", "0");
	/* no page fault of this program's may take an injected failure */
	if (mlockall(MCL_CURRENT | MCL_FUTURE))
		die("mlockall");
	nth_fd = open("/proc/thread-self/fail-nth", O_RDWR);
	if (nth_fd < 0)
		die("open /proc/thread-self/fail-nth");

	if (vfs_counts(&inodes0, &dentries0))
		fail("the inode and dentry counts did not settle in 2 s: %ld and %ld",
		     inodes0, dentries0);
	mount_lwnfs(fdir, NULL);
	for (i = 0; i < sizeof(fault_ops) / sizeof(fault_ops[0]); i++, ops++) {
		n = sweep(&fault_ops[i]);
		/* these allocate at least an inode or a super block */
		if (n == 0 && fault_ops[i].run != run_read && fault_ops[i].run != run_write)
			fail("%s: no failure point; is fail-nth working?", fault_ops[i].name);
		points += n;
	}
	if (random_faults(2000) == 0)
		fail("random faults: no call failed with ENOMEM; is fault injection on?");

	/* the instance works as before */
	make_counter("after", 5);
	if (value_at(fpath("after")) != 5 || value_at(fpath("after")) != 6)
		fail("the instance misbehaves after the faults");
	if (unlink(fpath("after")))
		die("unlink %s", fpath("after"));
	expect_layout_entries("after the faults");
	if (umount(fdir))
		die("umount %s", fdir);
	if (vfs_counts(&inodes, &dentries))
		fail("the inode and dentry counts did not settle in 2 s: %ld and %ld",
		     inodes, dentries);
	printf("soak: faults: %d operations, %d failure points; inodes %ld -> %ld, dentries %ld -> %ld\n",
	       ops, points, inodes0, inodes, dentries0, dentries);
	/* a little slack for the VFS's own caches (proc, the mount points) */
	if (inodes > inodes0 + 8 || dentries > dentries0 + 8)
		fail("inodes or dentries leaked: %ld and %ld more", inodes - inodes0,
		     dentries - dentries0);
	return failures ? 1 : 0;
}

/* ---- fuzz ------------------------------------------------------------ */

static volatile sig_atomic_t alarmed;

static void on_alarm(int sig)
{
	(void)sig;
	alarmed = 1;
}

/* Reap every descendant until none is left or SECONDS pass: 1 if none is. */
static int reap_all(int seconds)
{
	alarmed = 0;
	alarm(seconds);
	while (!alarmed) {
		if (wait(NULL) < 0 && errno == ECHILD) {
			alarm(0);
			return 1;
		}
	}
	return 0;
}

/* SIGKILL every process UID owns, from a child that takes on that uid. */
static void kill_uid(uid_t uid)
{
	pid_t pid = fork();

	if (pid < 0)
		die("fork");
	if (pid == 0) {
		if (setuid(uid))
			_exit(1);
		kill(-1, SIGKILL);	/* all but this process */
		_exit(0);
	}
	waitpid(pid, NULL, 0);
}

/*
 * PROG (trinity) runs as UID:GID in a process group of its own, and this
 * process, a child subreaper, adopts whatever it leaves behind. It must
 * still be running when the time is up; then its whole group is stopped
 * and reaped, or the run counts as a hang.
 */
static int fuzz(int seconds, uid_t uid, gid_t gid, char **argv)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	int status, early = 0;
	pid_t pid, w;

	sigaction(SIGALRM, &sa, NULL);
	if (prctl(PR_SET_CHILD_SUBREAPER, 1))
		die("PR_SET_CHILD_SUBREAPER");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		if (setpgid(0, 0) || setgroups(0, NULL) || setgid(gid) || setuid(uid))
			die("setpgid, setuid %u:%u", uid, gid);
		execvp(argv[0], argv);
		die("exec %s", argv[0]);
	}
	setpgid(pid, pid);
	alarm(seconds);
	while (!alarmed) {
		w = wait(&status);
		if (w == pid) {
			early = 1;
			break;
		}
	}
	alarm(0);
	if (early) {
		printf("soak: fuzz: %s exited early, status 0x%x\n", argv[0], status);
		kill_uid(uid);
		reap_all(30);
		return 1;
	}
	kill(-pid, SIGINT);
	if (reap_all(30)) {
		printf("soak: fuzz: %s ran %d s and stopped on SIGINT\n", argv[0], seconds);
		return 0;
	}
	kill(-pid, SIGKILL);
	/* and whatever of its left the group */
	kill_uid(uid);
	if (reap_all(30)) {
		printf("soak: fuzz: %s ran %d s and needed SIGKILL\n", argv[0], seconds);
		return 0;
	}
	printf("soak: FAIL: fuzz: processes of %s are left 30 s after SIGKILL (a hang)\n", argv[0]);
	return 1;
}

/* ---- memcg ----------------------------------------------------------- */

/*
 * The memory cgroup charging of the counters users create, on a kernel
 * with memory cgroups (Debian's): a child in a cgroup v2 group of its own
 * creates counters; this process, outside the group, reads the group's
 * files. The child faults in and locks all its memory before it joins
 * the group, so that only what the kernel allocates for its system calls
 * (the counters' inodes, values and dentries, the open files) is charged
 * there, and it reports through a page shared before it joined: a pipe's
 * buffer would be charged to it.
 */
#define MEMCG_LIMIT (4 << 20)
#define MEMCG_LIMIT_TEXT "4194304"

struct memcg_child {
	long created;
	int err;
	volatile int phase;	/* 1 joined, 2 go, 3 done */
};

static char memcg_dir[256];

static void cg_write(const char *file, const char *fmt, ...)
{
	char path[512], buf[64];
	va_list ap;
	int fd, len;

	va_start(ap, fmt);
	len = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	snprintf(path, sizeof(path), "%s/%s", memcg_dir, file);
	fd = open(path, O_WRONLY);
	if (fd < 0 || write(fd, buf, len) != len)
		die("write '%s' to %s", buf, path);
	close(fd);
}

/* the number after KEY in a cgroup file ("" for a one-number file), or -1 */
static long long cg_read(const char *file, const char *key)
{
	char path[512], line[256];
	long long v = -1;
	size_t n = strlen(key);
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", memcg_dir, file);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n) && (!n || line[n] == ' ')) {
			v = strtoll(line + n, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

static long long cg_slab(void)
{
	return cg_read("memory.stat", "slab_reclaimable") +
	       cg_read("memory.stat", "slab_unreclaimable");
}

/* Slab: of /proc/meminfo, in bytes */
static long long meminfo_slab(void)
{
	char line[256];
	long long kb = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		die("open /proc/meminfo");
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Slab: %lld kB", &kb) == 1)
			break;
	fclose(f);
	return kb * 1024;
}

/* wait for the child to reach PHASE; the parent (PID: the child's) stops
 * when the child has died instead */
static void wait_phase(struct memcg_child *c, int phase, pid_t pid)
{
	int status;

	while (c->phase < phase) {
		if (pid > 0 && waitpid(pid, &status, WNOHANG) == pid) {
			fail("memcg: the creator ended before it joined its group (status 0x%x)", status);
			exit(1);
		}
		usleep(1000);
	}
}

/* objects in use in the slab cache NAME, or -1 when it has no such file */
static long long slab_objects(const char *name)
{
	char path[256];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/kernel/slab/%s/objects", name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%lld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/* The child: join the group, wait for the go, create up to N counters. */
static void memcg_creator(struct memcg_child *c, const char *dir, long n, int adj)
{
	char path[300];
	long i;
	int fd;

	fd = open("/proc/self/oom_score_adj", O_WRONLY);
	if (fd < 0 || dprintf(fd, "%d", adj) < 0)
		die("oom_score_adj %d", adj);
	close(fd);
	if (mlockall(MCL_CURRENT | MCL_FUTURE))
		die("mlockall");
	cg_write("cgroup.procs", "0");
	c->phase = 1;
	wait_phase(c, 2, 0);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/c%ld", dir, i);
		fd = open(path, O_CREAT | O_EXCL | O_WRONLY, 0644);
		if (fd < 0) {
			c->err = errno;
			break;
		}
		close(fd);
		c->created = i + 1;
	}
	c->phase = 3;
	_exit(0);
}

/* Run a creator in a new group with memory.max MAX; its exit status. */
static int memcg_run(const char *root, const char *group, const char *dir, long n, int adj,
		     const char *max, struct memcg_child *c, long long before[3])
{
	int status;
	pid_t pid;

	snprintf(memcg_dir, sizeof(memcg_dir), "%s/%s", root, group);
	if (mkdir(memcg_dir, 0755))
		die("mkdir %s", memcg_dir);
	cg_write("memory.max", "%s", max);
	memset(c, 0, sizeof(*c));
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0)
		memcg_creator(c, dir, n, adj);
	wait_phase(c, 1, pid);
	before[0] = cg_read("memory.current", "");
	before[1] = cg_slab();
	before[2] = meminfo_slab();
	c->phase = 2;
	if (waitpid(pid, &status, 0) != pid)
		die("waitpid");
	return status;
}

/* remove the creator's counters (one more: it may have been killed in a create) */
static void memcg_clean(const char *dir, long created)
{
	char path[300];
	long i;

	for (i = 0; i <= created; i++) {
		snprintf(path, sizeof(path), "%s/c%ld", dir, i);
		if (unlink(path) && errno != ENOENT)
			fail("memcg: unlink %s: %s", path, strerror(errno));
	}
	if (rmdir(memcg_dir))
		die("rmdir %s", memcg_dir);
}

static void memcg_events(const char *what)
{
	printf("LWNFS-MEMCG %s: events max %lld oom %lld oom_kill %lld\n", what,
	       cg_read("memory.events", "max"), cg_read("memory.events", "oom"),
	       cg_read("memory.events", "oom_kill"));
}

/*
 * 1. With no limit: what N counters add to the group's memory.current, to
 *    its slab, and to the machine's Slab:, per counter; the group must be
 *    charged about what the machine's slab grew by.
 * 2. With memory.max at 4 MiB and a creator the OOM killer must not
 *    kill: creates end with ENOMEM, within the limit, and the creator
 *    lives.
 * 3. The same with a creator the OOM killer may kill: it ends with
 *    ENOMEM or a SIGKILL from the group's OOM killer, within the limit.
 */
static int memcg(const char *dir, const char *root, long n)
{
	struct memcg_child *c;
	long long before[3], cur, slab, mslab, peak, cg8;
	int status, phase3_adj[] = { -1000, 0 };
	const char *names[] = { "limit", "kill" };
	char group[64];
	int i;

	c = mmap(NULL, sizeof(*c), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (c == MAP_FAILED)
		die("mmap");
	memset(c, 0, sizeof(*c));
	snprintf(memcg_dir, sizeof(memcg_dir), "%s", root);
	cg_write("cgroup.subtree_control", "+memory");
	mount_lwnfs(dir, "max_entries=0");

	cg8 = slab_objects("kmalloc-cg-8");
	status = memcg_run(root, "lwnfs-memcg-measure", dir, n, 0, "max", c, before);
	/* (the group's statistics are flushed at most every 2 s) */
	sleep(3);
	cur = cg_read("memory.current", "") - before[0];
	slab = cg_slab() - before[1];
	mslab = meminfo_slab() - before[2];
	printf("LWNFS-MEMCG measure: %ld counters: memory.current +%lld B (%lld B per counter), memory.stat slab +%lld B (%lld), /proc/meminfo Slab +%lld B (%lld)\n",
	       c->created, cur, cur / n, slab, slab / n, mslab, mslab / n);
	if (status || c->created != n)
		fail("memcg: the creator made %ld of %ld counters (%s), status 0x%x", c->created, n,
		     strerror(c->err), status);
	if (cur * 5 < mslab * 4 || cur * 4 > mslab * 5)
		fail("memcg: the group was charged %lld B for counters that took %lld B of slab", cur, mslab);
	/*
	 * A counter's value is 8 bytes, too few to tell in the totals: on
	 * kernels that keep accounted kmallocs in caches of their own
	 * (5.14 and later), count it there. (The count is of the objects
	 * of the cache's slabs less the free ones on its partial lists: the
	 * free ones of the CPUs' slabs count as used, and allocating them
	 * does not move it. It comes out a little low: allow for that.)
	 */
	if (cg8 >= 0) {
		cg8 = slab_objects("kmalloc-cg-8") - cg8;
		printf("LWNFS-MEMCG measure: kmalloc-cg-8 +%lld objects for %ld counters\n", cg8, n);
		if (cg8 * 5 < n * 4)
			fail("memcg: %ld counters added %lld accounted 8-byte objects: are their values charged?",
			     n, cg8);
	}
	memcg_clean(dir, c->created);

	for (i = 0; i < 2; i++) {
		snprintf(group, sizeof(group), "lwnfs-memcg-%s", names[i]);
		status = memcg_run(root, group, dir, 1000000, phase3_adj[i], MEMCG_LIMIT_TEXT, c, before);
		cur = cg_read("memory.current", "");
		peak = cg_read("memory.peak", "");
		mslab = meminfo_slab() - before[2];
		printf("LWNFS-MEMCG %s: oom_score_adj %d: %ld counters, then %s; memory.current %lld B, memory.peak %lld B (-1: none), memory.max %d B\n",
		       names[i], phase3_adj[i], c->created,
		       WIFSIGNALED(status) ? strsignal(WTERMSIG(status)) : strerror(c->err),
		       cur, peak, MEMCG_LIMIT);
		memcg_events(names[i]);
		if (c->created == 0 || c->created == 1000000)
			fail("memcg %s: %ld counters under a 4 MiB limit", names[i], c->created);
		if (cur > MEMCG_LIMIT || peak > MEMCG_LIMIT)
			fail("memcg %s: the group went past its limit", names[i]);
		/*
		 * The machine's slab, for the record only: the frees of the
		 * phase before (RCU's among them) may still be running.
		 */
		printf("LWNFS-MEMCG %s: /proc/meminfo Slab %+lld B\n", names[i], mslab);
		if (cg_read("memory.events", "max") <= 0)
			fail("memcg %s: memory.events counts no hit of the limit", names[i]);
		if (phase3_adj[i] == -1000 && (!WIFEXITED(status) || WEXITSTATUS(status) || c->err != ENOMEM ||
					       cg_read("memory.events", "oom_kill") != 0))
			fail("memcg %s: the unkillable creator must end with ENOMEM, alive (status 0x%x, %s)",
			     names[i], status, strerror(c->err));
		if (phase3_adj[i] == 0 &&
		    !(WIFEXITED(status) && !WEXITSTATUS(status) && c->err == ENOMEM) &&
		    !(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL &&
		      cg_read("memory.events", "oom_kill") >= 1))
			fail("memcg %s: the creator must end with ENOMEM or the group's OOM kill (status 0x%x, %s)",
			     names[i], status, strerror(c->err));
		memcg_clean(dir, c->created);
	}
	if (umount(dir))
		die("umount %s", dir);
	return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 3 && argc <= 4 && strlen(argv[argc - 1]) > 200) {
		fprintf(stderr, "%s: DIR is too long\n", argv[0]);
		return 2;
	}
	if (argc == 4 && !strcmp(argv[1], "stress"))
		return stress(atoi(argv[2]), argv[3]);
	if (argc == 4 && !strcmp(argv[1], "race"))
		return race(atoi(argv[2]), argv[3]);
	if (argc == 3 && !strcmp(argv[1], "faults"))
		return faults(argv[2]);
	if (argc == 5 && !strcmp(argv[1], "memcg"))
		return memcg(argv[2], argv[3], atol(argv[4]));
	if (argc >= 6 && !strcmp(argv[1], "fuzz"))
		return fuzz(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]), argv + 5);
	fprintf(stderr, "usage: %s stress SECONDS DIR | race SECONDS DIR | faults DIR | fuzz SECONDS UID GID PROG [ARG...] | memcg DIR CGROUP2 N\n",
		argv[0]);
	return 2;
}
