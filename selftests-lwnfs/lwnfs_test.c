// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tests for lwnfs, the counter filesystem: layouts, read and write
 * semantics, every rejected write, concurrency and privileges.
 *
 * Needs root and lwnfs (built in, or the module loaded); skips otherwise.
 */

#define _GNU_SOURCE
/* 64-bit offsets on 32-bit machines too: the seek test goes past 2 GiB */
#define _FILE_OFFSET_BITS 64
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <grp.h>
#include <pthread.h>
#include <unistd.h>
#include <dirent.h>
#include <linux/capability.h>
#include <linux/magic.h>

#include "../../kselftest_harness.h"

/* for glibc without the mount API's constants */
#ifndef FSCONFIG_SET_STRING
#define FSCONFIG_SET_STRING 1
#endif
#ifndef FSCONFIG_CMD_RECONFIGURE
#define FSCONFIG_CMD_RECONFIGURE 7
#endif

#define NOBODY 65534

static bool lwnfs_available(void)
{
	char line[256];
	bool found = false;
	FILE *f;

	f = fopen("/proc/filesystems", "r");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (strcmp(line, "nodev\tlwnfs\n") == 0)
			found = true;
	fclose(f);
	return found;
}

/*
 * Every test needs root and lwnfs: without them the whole run is skipped
 * here, before the harness starts, so that no test body runs without them.
 */
static void __attribute__((constructor)) lwnfs_requirements(void)
{
	if (geteuid() != 0)
		ksft_exit_skip("lwnfs tests need root\n");
	/* the modes the tests expect of the files they create */
	umask(022);
	if (!lwnfs_available())
		ksft_exit_skip("lwnfs is not available (CONFIG_LWNFS, or load the module)\n");
}

/* Mount a new instance on a new directory; returns the directory. */
static char *lwnfs_mount(const char *opts)
{
	char tmpl[] = "/tmp/lwnfs_test.XXXXXX";
	char *dir = mkdtemp(tmpl);

	if (!dir)
		return NULL;
	if (mount("none", dir, "lwnfs", 0, opts)) {
		rmdir(dir);
		return NULL;
	}
	return strdup(dir);
}

static void lwnfs_umount(char *dir)
{
	if (!dir)
		return;
	umount2(dir, MNT_DETACH);
	rmdir(dir);
	free(dir);
}

static char *path(const char *dir, const char *name)
{
	static char buf[PATH_MAX];

	snprintf(buf, sizeof(buf), "%s/%s", dir, name);
	return buf;
}

/* Open, read the whole text, close: what cat does. */
static int cat(const char *file, char *buf, size_t size)
{
	ssize_t n, len = 0;
	int fd;

	fd = open(file, O_RDONLY);
	if (fd < 0)
		return -errno;
	while ((n = read(fd, buf + len, size - 1 - len)) > 0)
		len += n;
	close(fd);
	if (n < 0)
		return -errno;
	buf[len] = '\0';
	return len;
}

/*
 * Read one value with cat and parse it; -1 on any error. Signed, as the
 * numbers the tests compare it with are: the values they read stay below
 * 2^63 (u64_wrap reads its own with cat).
 */
static long long value(const char *file)
{
	char buf[64], *end;
	long long v;

	if (cat(file, buf, sizeof(buf)) <= 0)
		return -1;
	errno = 0;
	v = strtoll(buf, &end, 10);
	if (errno || v < 0 || strcmp(end, "\n"))
		return -1;
	return v;
}

/*
 * Whether a pointer is set, as an int: the harness prints what it compares
 * as a 64-bit integer, which a pointer is not on 32-bit machines.
 */
static int set(const void *p)
{
	return !!p;
}

/* One write of len bytes at offset 0 through a new open; -errno or count. */
static ssize_t put(const char *file, const void *data, size_t len)
{
	ssize_t ret;
	int fd;

	fd = open(file, O_WRONLY);
	if (fd < 0)
		return -errno;
	ret = write(fd, data, len);
	if (ret < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/*
 * The load tests (and the race of creators and remounts) take seconds on
 * an ordinary kernel and minutes on a debug one (KASAN, lockdep) in an
 * emulated guest: their own timeout, not the harness's 30 s.
 */
#define LOAD_TIMEOUT 900

FIXTURE(lwnfs) {
	char *dir;
	char *counter;
};

FIXTURE_SETUP(lwnfs)
{
	self->dir = lwnfs_mount(NULL);
	ASSERT_TRUE(set(self->dir));
	self->counter = strdup(path(self->dir, "counter"));
}

FIXTURE_TEARDOWN(lwnfs)
{
	free(self->counter);
	lwnfs_umount(self->dir);
}

/* The article's session: 0, 1, then echo 1000 gives 1000. */
TEST_F(lwnfs, article_session)
{
	char buf[64];

	ASSERT_EQ(2, cat(self->counter, buf, sizeof(buf)));
	ASSERT_STREQ("0\n", buf);
	ASSERT_EQ(2, cat(self->counter, buf, sizeof(buf)));
	ASSERT_STREQ("1\n", buf);
	ASSERT_EQ(5, put(self->counter, "1000\n", 5));
	ASSERT_EQ(5, cat(self->counter, buf, sizeof(buf)));
	ASSERT_STREQ("1000\n", buf);
	ASSERT_EQ(1001, value(self->counter));
}

static int list_dir(const char *dir, char *out, size_t size)
{
	struct dirent *de;
	int n = 0;
	DIR *d;

	out[0] = '\0';
	d = opendir(dir);
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		n++;
	}
	rewinddir(d);
	/* names sorted by the caller's expectation: collect in order seen */
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		strncat(out, de->d_name, size - strlen(out) - 2);
		strcat(out, " ");
	}
	closedir(d);
	return n;
}

static void expect_node(struct __test_metadata *_metadata, const char *file,
			mode_t mode)
{
	struct stat st;

	ASSERT_EQ(0, stat(file, &st)) TH_LOG("stat %s: %s", file, strerror(errno));
	EXPECT_EQ(mode, st.st_mode) TH_LOG("%s has mode 0%o", file, st.st_mode);
	EXPECT_EQ(0U, st.st_uid);
	EXPECT_EQ(0U, st.st_gid);
}

/* counter 0644, subdir 0755, subdir/subcounter 0644, nothing else. */
TEST_F(lwnfs, default_layout)
{
	char names[256];
	struct statfs sfs;

	expect_node(_metadata, self->dir, S_IFDIR | 0755);
	expect_node(_metadata, self->counter, S_IFREG | 0644);
	expect_node(_metadata, path(self->dir, "subdir"), S_IFDIR | 0755);
	expect_node(_metadata, path(self->dir, "subdir/subcounter"), S_IFREG | 0644);

	ASSERT_EQ(2, list_dir(self->dir, names, sizeof(names)));
	EXPECT_TRUE(strstr(names, "counter ") && strstr(names, "subdir "));
	ASSERT_EQ(1, list_dir(path(self->dir, "subdir"), names, sizeof(names)));
	EXPECT_STREQ("subcounter ", names);

	ASSERT_EQ(0, statfs(self->dir, &sfs));
	EXPECT_EQ(LWNFS_MAGIC, sfs.f_type);
}

/* The subdirectory's counter is a counter of its own. */
TEST_F(lwnfs, subcounter)
{
	char *sub = strdup(path(self->dir, "subdir/subcounter"));

	ASSERT_EQ(4, put(self->counter, "500\n", 4));
	EXPECT_EQ(0, value(sub));
	EXPECT_EQ(1, value(sub));
	EXPECT_EQ(500, value(self->counter));
	EXPECT_EQ(2, value(sub));
	free(sub);
}

/* layout=simple: exactly counter0..counter3, each independent. */
TEST_F(lwnfs, simple_layout)
{
	char *dir = lwnfs_mount("layout=simple");
	char names[256], name[16];
	int i, j;

	ASSERT_TRUE(set(dir));
	ASSERT_EQ(4, list_dir(dir, names, sizeof(names)));
	for (i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "counter%d", i);
		expect_node(_metadata, path(dir, name), S_IFREG | 0644);
		for (j = 0; j <= i; j++)
			EXPECT_EQ(j, value(path(dir, name)));
	}
	/* each counter went up by its own reads only */
	for (i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "counter%d", i);
		EXPECT_EQ(i + 1, value(path(dir, name)));
	}
	lwnfs_umount(dir);
}

/* Mounts are instances of their own; a bind mount shares its instance. */
TEST_F(lwnfs, instances)
{
	char *other = lwnfs_mount(NULL);
	char tmpl[] = "/tmp/lwnfs_bind.XXXXXX";
	char *bind = mkdtemp(tmpl);

	ASSERT_TRUE(set(other));
	ASSERT_TRUE(set(bind));
	ASSERT_EQ(6, put(self->counter, "77777\n", 6));
	EXPECT_EQ(0, value(path(other, "counter")));
	EXPECT_EQ(77777, value(self->counter));

	ASSERT_EQ(0, mount(self->dir, bind, NULL, MS_BIND, NULL));
	EXPECT_EQ(77778, value(path(bind, "counter")));
	EXPECT_EQ(77779, value(self->counter));
	EXPECT_EQ(1, value(path(other, "counter")));
	umount2(bind, MNT_DETACH);
	rmdir(bind);
	lwnfs_umount(other);
}

/* dd bs=1: one value, taken a byte at a time, then EOF. */
TEST_F(lwnfs, byte_at_a_time)
{
	char c, text[32] = "";
	int fd, i = 0;
	ssize_t n;

	ASSERT_EQ(7, put(self->counter, "123456\n", 7));
	fd = open(self->counter, O_RDONLY);
	ASSERT_GE(fd, 0);
	while ((n = read(fd, &c, 1)) == 1 && i < 30)
		text[i++] = c;
	EXPECT_EQ(0, n);
	EXPECT_STREQ("123456\n", text);
	close(fd);
	EXPECT_EQ(123457, value(self->counter));
}

/* pread at 0 takes a value; later offsets serve the same text. */
TEST_F(lwnfs, pread_and_lseek)
{
	char buf[32];
	int fd;

	fd = open(self->counter, O_RDONLY);
	ASSERT_GE(fd, 0);
	/* no value taken yet: a read past 0 is at end of file */
	EXPECT_EQ(0, pread(fd, buf, sizeof(buf), 1));
	ASSERT_EQ(2, pread(fd, buf, sizeof(buf), 0));
	EXPECT_EQ(0, memcmp(buf, "0\n", 2));
	ASSERT_EQ(2, pread(fd, buf, sizeof(buf), 0));
	EXPECT_EQ(0, memcmp(buf, "1\n", 2));
	ASSERT_EQ(1, pread(fd, buf, sizeof(buf), 1));
	EXPECT_EQ('\n', buf[0]);
	EXPECT_EQ(0, pread(fd, buf, sizeof(buf), 2));

	ASSERT_EQ(2, read(fd, buf, sizeof(buf)));
	EXPECT_EQ(0, memcmp(buf, "2\n", 2));
	EXPECT_EQ(0, read(fd, buf, sizeof(buf)));
	ASSERT_EQ(0, lseek(fd, 0, SEEK_SET));
	ASSERT_EQ(2, read(fd, buf, sizeof(buf)));
	EXPECT_EQ(0, memcmp(buf, "3\n", 2));
	ASSERT_EQ(1, lseek(fd, 1, SEEK_SET));
	ASSERT_EQ(1, read(fd, buf, sizeof(buf)));
	EXPECT_EQ('\n', buf[0]);
	close(fd);
	EXPECT_EQ(4, value(self->counter));
}

/* After 2^64 - 1 comes 0. */
TEST_F(lwnfs, u64_wrap)
{
	char buf[64];

	ASSERT_EQ(21, put(self->counter, "18446744073709551614\n", 21));
	ASSERT_EQ(21, cat(self->counter, buf, sizeof(buf)));
	EXPECT_STREQ("18446744073709551614\n", buf);
	ASSERT_EQ(21, cat(self->counter, buf, sizeof(buf)));
	EXPECT_STREQ("18446744073709551615\n", buf);
	ASSERT_EQ(2, cat(self->counter, buf, sizeof(buf)));
	EXPECT_STREQ("0\n", buf);
	EXPECT_EQ(1, value(self->counter));
}

/* Unknown options and bad values fail the mount with EINVAL. */
TEST(bad_mount_options)
{
	static const char * const bad[] = {
		"bogus", "bogus=1", "layout", "layout=", "layout=fancy",
		"layout=SIMPLE", "layout=simple,nope=1",
		"uid", "uid=abc", "uid=-1", "uid=4294967295", "uid=1x",
		"gid=abc", "gid=4294967295", "mode=abc", "mode=10000",
		"mode=0800", "mode=-1", "mode=0x1ff",
	};
	char tmpl[] = "/tmp/lwnfs_opts.XXXXXX";
	char *dir;
	unsigned int i;

	dir = mkdtemp(tmpl);
	ASSERT_TRUE(set(dir));
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		errno = 0;
		EXPECT_EQ(-1, mount("none", dir, "lwnfs", 0, bad[i]))
			TH_LOG("mount -o %s succeeded", bad[i]);
		EXPECT_EQ(EINVAL, errno) TH_LOG("mount -o %s: %s", bad[i], strerror(errno));
		umount2(dir, MNT_DETACH);
	}
	ASSERT_EQ(0, mount("none", dir, "lwnfs", 0, "layout=default"));
	umount2(dir, MNT_DETACH);
	rmdir(dir);
}

static void expect_owner(struct __test_metadata *_metadata, const char *file,
			 mode_t mode, uid_t uid, gid_t gid)
{
	struct stat st;

	ASSERT_EQ(0, stat(file, &st)) TH_LOG("stat %s: %s", file, strerror(errno));
	EXPECT_EQ(mode, st.st_mode) TH_LOG("%s has mode 0%o", file, st.st_mode);
	EXPECT_EQ(uid, st.st_uid) TH_LOG("%s has uid %u", file, st.st_uid);
	EXPECT_EQ(gid, st.st_gid) TH_LOG("%s has gid %u", file, st.st_gid);
}

/*
 * uid=, gid= own the root and the layout's entries; mode= is the root
 * directory's mode.
 */
TEST_F(lwnfs, owner_options)
{
	char *dir = lwnfs_mount("uid=1000,gid=1001,mode=0750");
	char *simple = lwnfs_mount("layout=simple,uid=1002,gid=1003,mode=1777");

	ASSERT_TRUE(set(dir));
	ASSERT_TRUE(set(simple));
	expect_owner(_metadata, dir, S_IFDIR | 0750, 1000, 1001);
	expect_owner(_metadata, path(dir, "counter"), S_IFREG | 0644, 1000, 1001);
	expect_owner(_metadata, path(dir, "subdir"), S_IFDIR | 0755, 1000, 1001);
	expect_owner(_metadata, path(dir, "subdir/subcounter"), S_IFREG | 0644,
		     1000, 1001);
	expect_owner(_metadata, simple, S_IFDIR | 01777, 1002, 1003);
	expect_owner(_metadata, path(simple, "counter3"), S_IFREG | 0644, 1002, 1003);
	/* the default instance is untouched */
	expect_owner(_metadata, self->dir, S_IFDIR | 0755, 0, 0);
	lwnfs_umount(simple);
	lwnfs_umount(dir);
}

/* Run fn as uid/gid in a child; returns its exit status. */
static int as_user(uid_t uid, gid_t gid, int (*fn)(const char *), const char *arg)
{
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (setgroups(0, NULL) || setgid(gid) || setuid(uid))
			_exit(100);
		_exit(fn(arg));
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static int write_555(const char *file)
{
	return put(file, "555\n", 4) == 4 ? 0 : 1;
}

static int read_denied_write(const char *file)
{
	if (value(file) < 0)
		return 1;
	if (open(file, O_WRONLY) != -1 || errno != EACCES)
		return 2;
	return 0;
}

/* The uid= user can write its counters; others can still only read. */
TEST_F(lwnfs, owner_can_write)
{
	char *dir = lwnfs_mount("uid=1000,gid=1000");
	char *counter;

	ASSERT_TRUE(set(dir));
	counter = strdup(path(dir, "counter"));
	EXPECT_EQ(0, as_user(1000, 1000, write_555, counter));
	EXPECT_EQ(555, value(counter));
	EXPECT_EQ(0, as_user(1002, 1002, read_denied_write, counter));
	EXPECT_EQ(557, value(counter));
	free(counter);
	lwnfs_umount(dir);
}

/* The options line of a mount in /proc/mounts, or "" if not mounted. */
static const char *mount_options(const char *dir)
{
	static char line[512], opts[512];
	char mnt[256], type[64];
	FILE *f = fopen("/proc/mounts", "r");

	opts[0] = '\0';
	if (!f)
		return opts;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%*s %255s %63s %511s", mnt, type, opts) == 3 &&
		    !strcmp(mnt, dir) && !strcmp(type, "lwnfs"))
			break;
		opts[0] = '\0';
	}
	fclose(f);
	return opts;
}

/* /proc/mounts shows each option that differs from its default. */
TEST_F(lwnfs, proc_mounts)
{
	char *dir = lwnfs_mount("layout=simple,uid=1000,gid=1001,mode=0750");
	const char *opts;

	ASSERT_TRUE(set(dir));
	opts = mount_options(dir);
	EXPECT_TRUE(set(strstr(opts, ",layout=simple,uid=1000,gid=1001,mode=750")))
		TH_LOG("options: %s", opts);
	opts = mount_options(self->dir);
	EXPECT_STRNE("", opts);
	EXPECT_FALSE(set(strstr(opts, "layout="))) TH_LOG("options: %s", opts);
	EXPECT_FALSE(set(strstr(opts, "uid="))) TH_LOG("options: %s", opts);
	EXPECT_FALSE(set(strstr(opts, "gid="))) TH_LOG("options: %s", opts);
	EXPECT_FALSE(set(strstr(opts, "mode="))) TH_LOG("options: %s", opts);
	lwnfs_umount(dir);
}

/* A remount applies new owners and mode to existing files; values stay. */
TEST_F(lwnfs, remount_applies)
{
	char *sub = strdup(path(self->dir, "subdir/subcounter"));

	ASSERT_EQ(3, put(self->counter, "77\n", 3));
	ASSERT_EQ(0, mount(NULL, self->dir, NULL, MS_REMOUNT,
			   "uid=1000,gid=1001,mode=0700"));
	expect_owner(_metadata, self->dir, S_IFDIR | 0700, 1000, 1001);
	expect_owner(_metadata, self->counter, S_IFREG | 0644, 1000, 1001);
	expect_owner(_metadata, sub, S_IFREG | 0644, 1000, 1001);
	EXPECT_EQ(77, value(self->counter));

	/* options a remount does not name keep their values */
	ASSERT_EQ(0, mount(NULL, self->dir, NULL, MS_REMOUNT, "mode=0711"));
	expect_owner(_metadata, self->dir, S_IFDIR | 0711, 1000, 1001);
	EXPECT_TRUE(set(strstr(mount_options(self->dir), "uid=1000,gid=1001,mode=711")));

	ASSERT_EQ(0, mount(NULL, self->dir, NULL, MS_REMOUNT, "uid=0,gid=0,mode=0755"));
	expect_owner(_metadata, sub, S_IFREG | 0644, 0, 0);
	EXPECT_FALSE(set(strstr(mount_options(self->dir), "uid=")));
	EXPECT_EQ(78, value(self->counter));
	free(sub);
}

/* The layout cannot change on remount; bad values change nothing. */
TEST_F(lwnfs, remount_rejects)
{
	char *dir = lwnfs_mount("layout=simple,uid=1000");

	ASSERT_TRUE(set(dir));
	errno = 0;
	EXPECT_EQ(-1, mount(NULL, dir, NULL, MS_REMOUNT, "layout=default"));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, mount(NULL, dir, NULL, MS_REMOUNT, "layout=simple"));
	errno = 0;
	EXPECT_EQ(-1, mount(NULL, dir, NULL, MS_REMOUNT, "mode=10000"));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(-1, mount(NULL, self->dir, NULL, MS_REMOUNT, "layout=simple"));
	EXPECT_EQ(EINVAL, errno);
	expect_owner(_metadata, dir, S_IFDIR | 0755, 1000, 0);
	expect_owner(_metadata, path(dir, "counter0"), S_IFREG | 0644, 1000, 0);
	lwnfs_umount(dir);
}

/* Write a one-line id map for the calling process; 0 on success. */
static int write_map(const char *file, const char *map)
{
	int fd = open(file, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, map, strlen(map));
	close(fd);
	return n == (ssize_t)strlen(map) ? 0 : -1;
}

/*
 * Root in a new user namespace with a mount namespace of its own passes
 * the VFS's may_mount(), as a tmpfs mount there shows, so what refuses
 * lwnfs is lwnfs's own setup: uid= and gid= are read in that namespace, so
 * an id it does not map fails with EINVAL, and with mapped ones the mount
 * fails with EPERM because lwnfs does not set FS_USERNS_MOUNT.
 */
TEST(userns)
{
	char tmpl[] = "/tmp/lwnfs_userns.XXXXXX";
	char *dir;
	int status;
	pid_t pid;

	dir = mkdtemp(tmpl);
	ASSERT_TRUE(set(dir));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		if (unshare(CLONE_NEWUSER | CLONE_NEWNS))
			_exit(10);
		if (mount("none", dir, "lwnfs", 0, "uid=0") != -1 || errno != EINVAL)
			_exit(11);
		if (write_map("/proc/self/setgroups", "deny") ||
		    write_map("/proc/self/uid_map", "0 0 1") ||
		    write_map("/proc/self/gid_map", "0 0 1"))
			_exit(12);
		if (mount("none", dir, "tmpfs", 0, NULL))
			_exit(13);
		umount2(dir, MNT_DETACH);
		if (mount("none", dir, "lwnfs", 0, "uid=1") != -1 || errno != EINVAL)
			_exit(14);
		if (mount("none", dir, "lwnfs", 0, "gid=1") != -1 || errno != EINVAL)
			_exit(15);
		if (mount("none", dir, "lwnfs", 0, "uid=0,gid=0") != -1 || errno != EPERM)
			_exit(16);
		if (mount("none", dir, "lwnfs", 0, NULL) != -1 || errno != EPERM)
			_exit(17);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	rmdir(dir);
	ASSERT_TRUE(WIFEXITED(status));
	if (WEXITSTATUS(status) == 10)
		SKIP(return, "no user namespaces here (CONFIG_USER_NS)");
	EXPECT_EQ(0, WEXITSTATUS(status)) TH_LOG("step %d failed", WEXITSTATUS(status));
}

/* A file kept open across a lazy unmount goes on working. */
TEST_F(lwnfs, lazy_umount_keeps_open_file)
{
	char buf[32];
	int fd;

	fd = open(self->counter, O_RDWR);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, umount2(self->dir, MNT_DETACH));
	ASSERT_EQ(2, pread(fd, buf, sizeof(buf), 0));
	EXPECT_EQ(0, memcmp(buf, "0\n", 2));
	ASSERT_EQ(3, pwrite(fd, "41\n", 3, 0));
	ASSERT_EQ(3, pread(fd, buf, sizeof(buf), 0));
	EXPECT_EQ(0, memcmp(buf, "41\n", 3));
	ASSERT_EQ(3, pread(fd, buf, sizeof(buf), 0));
	EXPECT_EQ(0, memcmp(buf, "42\n", 3));
	close(fd);
}

struct bad_write {
	const char *name;
	const char *data;
	size_t len;
	int err;
};

#define BW(n, s, e) { n, s, sizeof(s) - 1, e }

static const struct bad_write bad_writes[] = {
	BW("newline only", "\n", EINVAL),
	BW("two newlines", "12\n\n", EINVAL),
	BW("space", " ", EINVAL),
	BW("leading space", " 12", EINVAL),
	BW("trailing space", "12 ", EINVAL),
	BW("space inside", "1 2", EINVAL),
	BW("tab", "\t1", EINVAL),
	BW("carriage return", "1\r\n", EINVAL),
	BW("negative", "-1", EINVAL),
	BW("minus zero", "-0", EINVAL),
	BW("plus alone", "+", EINVAL),
	BW("plus sign", "+5", EINVAL),
	BW("hex", "0x10", EINVAL),
	BW("hex digits", "ff", EINVAL),
	BW("binary prefix", "0b101", EINVAL),
	BW("exponent", "1e3", EINVAL),
	BW("decimal point", "1.5", EINVAL),
	BW("underscore", "1_000", EINVAL),
	BW("trailing letters", "12abc", EINVAL),
	BW("letters", "abc", EINVAL),
	BW("embedded NUL", "1\0002", EINVAL),
	BW("trailing NUL", "12\0", EINVAL),
	BW("NUL only", "\0", EINVAL),
	BW("arabic-indic digit", "\xd9\xa1", EINVAL),
	BW("2^64", "18446744073709551616", ERANGE),
	BW("2^64 with newline", "18446744073709551616\n", ERANGE),
	BW("20 nines", "99999999999999999999", ERANGE),
	BW("100 digits",
	   "1234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890",
	   ERANGE),
};

/* Every rejected write: its errno, and the value unchanged after it. */
TEST_F(lwnfs, bad_writes)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad_writes); i++) {
		const struct bad_write *bw = &bad_writes[i];

		ASSERT_EQ(3, put(self->counter, "42\n", 3));
		EXPECT_EQ(-bw->err, put(self->counter, bw->data, bw->len))
			TH_LOG("write '%s'", bw->name);
		EXPECT_EQ(42, value(self->counter)) TH_LOG("value after '%s'", bw->name);
	}
}

/* Oversized writes fail with EINVAL; so does 129 bytes of digits. */
TEST_F(lwnfs, oversized_writes)
{
	static const size_t sizes[] = { 129, 4096, 65536, 1 << 20 };
	unsigned int i;
	char *big;

	big = malloc(sizes[3]);
	ASSERT_TRUE(set(big));
	memset(big, '1', sizes[3]);
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		ASSERT_EQ(3, put(self->counter, "42\n", 3));
		EXPECT_EQ(-EINVAL, put(self->counter, big, sizes[i]))
			TH_LOG("write of %zu digits", sizes[i]);
		EXPECT_EQ(42, value(self->counter));
	}
	free(big);
}

/* Writes at a non-zero offset fail, including a second write in one open. */
TEST_F(lwnfs, write_offsets)
{
	int fd;

	ASSERT_EQ(3, put(self->counter, "42\n", 3));
	fd = open(self->counter, O_WRONLY);
	ASSERT_GE(fd, 0);
	errno = 0;
	EXPECT_EQ(-1, pwrite(fd, "7", 1, 1));
	EXPECT_EQ(EINVAL, errno);
	close(fd);
	EXPECT_EQ(42, value(self->counter));

	ASSERT_EQ(3, put(self->counter, "42\n", 3));
	fd = open(self->counter, O_WRONLY);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(1, write(fd, "7", 1));
	errno = 0;
	EXPECT_EQ(-1, write(fd, "8", 1));
	EXPECT_EQ(EINVAL, errno);
	close(fd);
	EXPECT_EQ(7, value(self->counter));
}

/*
 * fsync(2) and fdatasync(2) succeed, as on ramfs: there is nothing to write
 * back, and a program that syncs what it wrote (dd conv=fsync, Python's
 * os.fsync()) must not see an error after the value was set.
 */
TEST_F(lwnfs, fsync)
{
	int fd;

	fd = open(self->counter, O_WRONLY);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(3, write(fd, "42\n", 3));
	EXPECT_EQ(0, fsync(fd)) TH_LOG("fsync: %s", strerror(errno));
	EXPECT_EQ(0, fdatasync(fd)) TH_LOG("fdatasync: %s", strerror(errno));
	close(fd);
	fd = open(self->counter, O_RDONLY);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(0, fsync(fd)) TH_LOG("fsync of a reader: %s", strerror(errno));
	close(fd);
	/* a directory's, as libfs's always were */
	fd = open(self->dir, O_RDONLY | O_DIRECTORY);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(0, fsync(fd));
	close(fd);
	EXPECT_EQ(42, value(self->counter));
}

/*
 * O_APPEND writes at the end of the file, which is offset 0 since a
 * counter's size is 0: every write on such a descriptor sets the counter,
 * as "exec 3>>counter; echo 10 >&3; echo 20 >&3" does. (Without O_APPEND,
 * a second write on one descriptor is refused: write_offsets.)
 */
TEST_F(lwnfs, append)
{
	char buf[32];
	int fd;

	fd = open(self->counter, O_RDWR | O_APPEND);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(3, write(fd, "10\n", 3));
	ASSERT_EQ(3, pread(fd, buf, sizeof(buf), 0));
	EXPECT_EQ(0, memcmp(buf, "10\n", 3));
	EXPECT_EQ(3, write(fd, "20\n", 3)) TH_LOG("second write: %s", strerror(errno));
	ASSERT_EQ(3, pread(fd, buf, sizeof(buf), 0));
	EXPECT_EQ(0, memcmp(buf, "20\n", 3));
	close(fd);
	EXPECT_EQ(21, value(self->counter));
}

#define READERS 4
#define READS 25000

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Read the counter n times at offset 0 into out[]; 0 on success. */
static int read_values(const char *file, uint64_t *out, int n)
{
	char buf[32], *end;
	int fd, i;
	ssize_t len;

	fd = open(file, O_RDONLY);
	if (fd < 0)
		return 1;
	for (i = 0; i < n; i++) {
		len = pread(fd, buf, sizeof(buf) - 1, 0);
		if (len <= 0)
			return 2;
		buf[len] = '\0';
		out[i] = strtoull(buf, &end, 10);
		if (*end != '\n')
			return 3;
	}
	close(fd);
	return 0;
}

/* 4 processes x 25000 reads: an exact range, no duplicates, no gaps. */
TEST_F(lwnfs, concurrent_readers)
{
	const int total = READERS * READS;
	uint64_t *vals, start = 5000000000ULL;
	int i, status, dups = 0, gaps = 0;
	pid_t pid[READERS];

	vals = mmap(NULL, total * sizeof(*vals), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(vals != MAP_FAILED);
	ASSERT_EQ(11, put(self->counter, "5000000000\n", 11));

	for (i = 0; i < READERS; i++) {
		pid[i] = fork();
		ASSERT_GE(pid[i], 0);
		if (pid[i] == 0)
			_exit(read_values(self->counter, vals + i * READS, READS));
	}
	for (i = 0; i < READERS; i++) {
		ASSERT_EQ(pid[i], waitpid(pid[i], &status, 0));
		ASSERT_TRUE(WIFEXITED(status));
		ASSERT_EQ(0, WEXITSTATUS(status));
	}

	qsort(vals, total, sizeof(*vals), cmp_u64);
	for (i = 1; i < total; i++) {
		if (vals[i] == vals[i - 1])
			dups++;
		else if (vals[i] != vals[i - 1] + 1)
			gaps++;
	}
	EXPECT_EQ(0, dups);
	EXPECT_EQ(0, gaps);
	EXPECT_EQ(start, vals[0]);
	EXPECT_EQ(start + total - 1, vals[total - 1]);
	EXPECT_EQ((long long)(start + total), value(self->counter));
	munmap(vals, total * sizeof(*vals));
}

/*
 * Readers race a writer that sets the counter to j << 32 for j = 1, 2, ...
 * from the moment they start until they are done. Every increment is a
 * read, so the values read after each set must be exactly j << 32,
 * j << 32 + 1, ... with no gap and no repeat, and each reader's own values
 * must rise. A torn value, half of one set and half of another, or one
 * value handed out twice, breaks one of these.
 */
TEST_F(lwnfs, readers_race_writer)
{
	const int total = READERS * READS;
	int i, r, status, done = 0, failed = 0, bad = 0, dups = 0, gaps = 0, falls = 0;
	uint64_t *vals, *sorted, j;
	int start[2];
	pid_t pid[READERS];
	char text[32], go;

	vals = mmap(NULL, total * sizeof(*vals), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(vals != MAP_FAILED);
	snprintf(text, sizeof(text), "%llu\n", 1ULL << 32);
	ASSERT_EQ((ssize_t)strlen(text), put(self->counter, text, strlen(text)));

	ASSERT_EQ(0, pipe(start));
	for (i = 0; i < READERS; i++) {
		pid[i] = fork();
		ASSERT_GE(pid[i], 0);
		if (pid[i] == 0) {
			close(start[1]);
			if (read(start[0], &go, 1) != 0)
				_exit(9);
			_exit(read_values(self->counter, vals + i * READS, READS));
		}
	}
	close(start[0]);
	close(start[1]);
	for (j = 2; done < READERS; j++) {
		snprintf(text, sizeof(text), "%llu\n", (unsigned long long)j << 32);
		ASSERT_EQ((ssize_t)strlen(text), put(self->counter, text, strlen(text)));
		while (done < READERS && waitpid(-1, &status, WNOHANG) > 0) {
			done++;
			if (!WIFEXITED(status) || WEXITSTATUS(status))
				failed++;
		}
	}
	ASSERT_EQ(0, failed);
	TH_LOG("%llu sets while the readers ran", (unsigned long long)j - 2);

	for (r = 0; r < READERS; r++)
		for (i = 1; i < READS; i++)
			if (vals[r * READS + i] <= vals[r * READS + i - 1])
				falls++;
	sorted = malloc(total * sizeof(*sorted));
	ASSERT_TRUE(set(sorted));
	memcpy(sorted, vals, total * sizeof(*sorted));
	qsort(sorted, total, sizeof(*sorted), cmp_u64);
	for (i = 0; i < total; i++) {
		uint64_t hi = sorted[i] >> 32, lo = sorted[i] & 0xffffffffULL;

		if (hi < 1 || hi >= j)
			bad++;
		else if (i > 0 && sorted[i] == sorted[i - 1])
			dups++;
		/* each set's run starts at its j << 32 and has no hole */
		else if (lo != 0 && (i == 0 || sorted[i] != sorted[i - 1] + 1))
			gaps++;
	}
	EXPECT_EQ(0, bad);
	EXPECT_EQ(0, dups);
	EXPECT_EQ(0, gaps);
	EXPECT_EQ(0, falls);
	free(sorted);
	munmap(vals, total * sizeof(*vals));
}

/*
 * Others can read and cannot open for write (EACCES). Their mount fails
 * with EPERM in the VFS's may_mount(), before lwnfs is asked: the userns
 * test below covers lwnfs's own refusal.
 */
TEST_F(lwnfs, unprivileged)
{
	pid_t pid;
	int status;

	ASSERT_EQ(3, put(self->counter, "42\n", 3));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		char tmpl[] = "/tmp/lwnfs_user.XXXXXX";
		char *dir = mkdtemp(tmpl);

		if (!dir || chown(dir, NOBODY, NOBODY))
			_exit(10);
		if (setgid(NOBODY) || setuid(NOBODY))
			_exit(11);
		if (value(self->counter) != 42)
			_exit(12);
		if (open(self->counter, O_WRONLY) != -1 || errno != EACCES)
			_exit(13);
		if (mount("none", dir, "lwnfs", 0, NULL) != -1 || errno != EPERM)
			_exit(14);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	/* the unprivileged read took 42; nothing else changed it */
	EXPECT_EQ(43, value(self->counter));
}

/* sendfile(2) takes a value as read(2) does: at offset 0 only. */
TEST_F(lwnfs, sendfile)
{
	char buf[32];
	off_t off;
	int fd, p[2];

	ASSERT_EQ(3, put(self->counter, "41\n", 3));
	ASSERT_EQ(0, pipe(p));
	fd = open(self->counter, O_RDONLY);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(3, sendfile(p[1], fd, NULL, 64)) TH_LOG("sendfile: %s", strerror(errno));
	ASSERT_EQ(3, read(p[0], buf, sizeof(buf)));
	EXPECT_EQ(0, memcmp(buf, "41\n", 3));
	/* the file position is past the text now: end of file */
	EXPECT_EQ(0, sendfile(p[1], fd, NULL, 64));
	off = 0;
	ASSERT_EQ(3, sendfile(p[1], fd, &off, 64));
	EXPECT_EQ(3, off);
	ASSERT_EQ(3, read(p[0], buf, sizeof(buf)));
	EXPECT_EQ(0, memcmp(buf, "42\n", 3));
	/* a later offset serves the rest of the same text */
	off = 1;
	ASSERT_EQ(2, sendfile(p[1], fd, &off, 64));
	ASSERT_EQ(2, read(p[0], buf, sizeof(buf)));
	EXPECT_EQ(0, memcmp(buf, "2\n", 2));
	close(fd);
	close(p[0]);
	close(p[1]);
	EXPECT_EQ(43, value(self->counter));
}

/* splice(2) from a counter into a pipe, with and without an offset. */
TEST_F(lwnfs, splice)
{
	char buf[32];
	loff_t off;
	int fd, p[2];

	ASSERT_EQ(4, put(self->counter, "700\n", 4));
	ASSERT_EQ(0, pipe(p));
	fd = open(self->counter, O_RDONLY);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(4, splice(fd, NULL, p[1], NULL, 64, 0)) TH_LOG("splice: %s", strerror(errno));
	ASSERT_EQ(4, read(p[0], buf, sizeof(buf)));
	EXPECT_EQ(0, memcmp(buf, "700\n", 4));
	EXPECT_EQ(0, splice(fd, NULL, p[1], NULL, 64, 0));
	off = 0;
	ASSERT_EQ(2, splice(fd, &off, p[1], NULL, 2, 0));
	EXPECT_EQ(2, off);
	ASSERT_EQ(2, splice(fd, &off, p[1], NULL, 64, 0));
	ASSERT_EQ(4, read(p[0], buf, sizeof(buf)));
	EXPECT_EQ(0, memcmp(buf, "701\n", 4));
	close(fd);

	/* into a counter, splice is refused */
	ASSERT_EQ(2, write(p[1], "9\n", 2));
	fd = open(self->counter, O_WRONLY);
	ASSERT_GE(fd, 0);
	errno = 0;
	EXPECT_EQ(-1, splice(p[0], NULL, fd, NULL, 2, 0));
	EXPECT_EQ(EINVAL, errno);
	close(fd);
	close(p[0]);
	close(p[1]);
	EXPECT_EQ(702, value(self->counter));
}

/*
 * copy_file_range(2) copies nothing from a counter and takes no value:
 * a counter's size is 0, so within the instance there is nothing to copy
 * (0), and to another filesystem the VFS refuses it (EXDEV).
 */
TEST_F(lwnfs, copy_file_range)
{
	char tmpl[] = "/tmp/lwnfs_copy.XXXXXX";
	int in, out, other;

	ASSERT_EQ(3, put(self->counter, "42\n", 3));
	in = open(self->counter, O_RDONLY);
	ASSERT_GE(in, 0);
	out = open(path(self->dir, "subdir/subcounter"), O_WRONLY);
	ASSERT_GE(out, 0);
	EXPECT_EQ(0, syscall(__NR_copy_file_range, in, NULL, out, NULL, 64, 0))
		TH_LOG("copy_file_range: %s", strerror(errno));
	other = mkstemp(tmpl);
	ASSERT_GE(other, 0);
	errno = 0;
	EXPECT_EQ(-1, syscall(__NR_copy_file_range, in, NULL, other, NULL, 64, 0));
	EXPECT_EQ(EXDEV, errno);
	close(other);
	unlink(tmpl);
	close(out);
	close(in);
	EXPECT_EQ(42, value(self->counter));
	EXPECT_EQ(0, value(path(self->dir, "subdir/subcounter")));
}

/* A counter cannot be mapped: its text exists only as it is read. */
TEST_F(lwnfs, no_mmap)
{
	int fd = open(self->counter, O_RDONLY);

	ASSERT_GE(fd, 0);
	errno = 0;
	EXPECT_TRUE(mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0) == MAP_FAILED);
	EXPECT_EQ(ENODEV, errno);
	close(fd);
}

/*
 * An instance is noexec: exec of a counter, with its x bits set, fails
 * with EACCES before anything reads the file, so it takes no value (the
 * read for a binary format's header would take one).
 */
TEST_F(lwnfs, exec_refused)
{
	char *const argv[] = { self->counter, NULL };
	char *const envp[] = { NULL };
	int status;
	pid_t pid;

	ASSERT_EQ(3, put(self->counter, "42\n", 3));
	ASSERT_EQ(0, chmod(self->counter, 0755));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		execve(self->counter, argv, envp);
		_exit(errno);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(EACCES, WEXITSTATUS(status))
		TH_LOG("exec: %s", strerror(WEXITSTATUS(status)));
	EXPECT_EQ(42, value(self->counter));
}

/*
 * The size cannot be set: truncate to anything but 0 fails with EINVAL and
 * st_size stays 0; truncating to 0, as open(O_TRUNC) does, works and keeps
 * the value.
 */
TEST_F(lwnfs, truncate)
{
	struct stat st;
	int fd;

	ASSERT_EQ(3, put(self->counter, "42\n", 3));
	errno = 0;
	EXPECT_EQ(-1, truncate(self->counter, 1 << 30));
	EXPECT_EQ(EINVAL, errno);
	fd = open(self->counter, O_RDWR);
	ASSERT_GE(fd, 0);
	errno = 0;
	EXPECT_EQ(-1, ftruncate(fd, 5));
	EXPECT_EQ(EINVAL, errno);
	ASSERT_EQ(0, fstat(fd, &st));
	EXPECT_EQ(0, st.st_size);
	EXPECT_EQ(0, lseek(fd, 0, SEEK_END));
	EXPECT_EQ(0, ftruncate(fd, 0));
	close(fd);
	EXPECT_EQ(0, truncate(self->counter, 0));
	EXPECT_EQ(42, value(self->counter));

	/* echo 5 > counter */
	fd = open(self->counter, O_WRONLY | O_TRUNC);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(2, write(fd, "5\n", 2));
	close(fd);
	ASSERT_EQ(0, stat(self->counter, &st));
	EXPECT_EQ(0, st.st_size);
	EXPECT_EQ(5, value(self->counter));
}

/* Whether timestamp @a is later than @b. */
static int ts_later(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec > b->tv_sec ||
	       (a->tv_sec == b->tv_sec && a->tv_nsec > b->tv_nsec);
}

static int ts_same(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

/*
 * Wait until the coarse real-time clock, which file times come from, has
 * passed @t: a change of a time set before then is only visible after it.
 */
static void wait_past(const struct timespec *t)
{
	struct timespec now;

	do {
		usleep(1000);
		clock_gettime(CLOCK_REALTIME_COARSE, &now);
	} while (!ts_later(&now, t));
}

/*
 * chmod, chown and utimes work as on any file; a write sets mtime and ctime,
 * and a rejected write sets neither. The old times are relative to now: a
 * board without a real-time clock boots at 1970, where a fixed date would
 * be in the future.
 */
TEST_F(lwnfs, attributes)
{
	struct timespec now, old[2], ctime;
	struct stat st;

	ASSERT_EQ(0, clock_gettime(CLOCK_REALTIME_COARSE, &now));
	old[0] = (struct timespec){ .tv_sec = now.tv_sec - 2000 };
	old[1] = (struct timespec){ .tv_sec = now.tv_sec - 1000 };
	ASSERT_EQ(0, chmod(self->counter, 0600));
	ASSERT_EQ(0, chown(self->counter, 1000, 1001));
	expect_owner(_metadata, self->counter, S_IFREG | 0600, 1000, 1001);
	ASSERT_EQ(0, utimensat(AT_FDCWD, self->counter, old, 0));
	ASSERT_EQ(0, stat(self->counter, &st));
	EXPECT_EQ(now.tv_sec - 2000, st.st_atim.tv_sec);
	EXPECT_EQ(now.tv_sec - 1000, st.st_mtim.tv_sec);

	/* utimensat() set ctime to the current time: the write must move it */
	ctime = st.st_ctim;
	wait_past(&ctime);
	ASSERT_EQ(3, put(self->counter, "42\n", 3));
	ASSERT_EQ(0, stat(self->counter, &st));
	EXPECT_LE(now.tv_sec, st.st_mtim.tv_sec);
	EXPECT_TRUE(ts_later(&st.st_ctim, &ctime));

	ASSERT_EQ(0, utimensat(AT_FDCWD, self->counter, old, 0));
	ASSERT_EQ(0, stat(self->counter, &st));
	ctime = st.st_ctim;
	wait_past(&ctime);
	EXPECT_EQ(-EINVAL, put(self->counter, "x", 1));
	ASSERT_EQ(0, stat(self->counter, &st));
	EXPECT_EQ(now.tv_sec - 1000, st.st_mtim.tv_sec);
	EXPECT_EQ(ctime.tv_sec, st.st_ctim.tv_sec);
	EXPECT_EQ(ctime.tv_nsec, st.st_ctim.tv_nsec);
	EXPECT_EQ(42, value(self->counter));
}

/* Write 0 bytes at offset 0 and at offset 5 through one open; 0 if both return 0. */
static int write_nothing(const char *file)
{
	int fd = open(file, O_WRONLY);
	int ret = 0;

	if (fd < 0)
		return 1;
	if (write(fd, "1\n", 0) != 0)
		ret = 2;
	else if (pwrite(fd, "1\n", 0, 5) != 0)
		ret = 3;
	close(fd);
	return ret;
}

/*
 * A write of 0 bytes, at offset 0 or past it, returns 0 and changes
 * nothing, as on a regular file: not the value, not mtime or ctime, and
 * not the set-id bits, which a write by a task without CAP_FSETID clears
 * (S_ISUID always, S_ISGID when the file is group-executable, as this
 * 06755 counter is). The file position stays at 0, where the next write
 * sets the counter.
 */
TEST_F(lwnfs, empty_write)
{
	struct stat st0, st;
	int fd;

	ASSERT_EQ(3, put(self->counter, "42\n", 3));
	ASSERT_EQ(0, chown(self->counter, 1000, 1000));
	ASSERT_EQ(0, chmod(self->counter, 06755));
	ASSERT_EQ(0, stat(self->counter, &st0));
	/* the chmod's ctime is the latest time: a change shows after it */
	wait_past(&st0.st_ctim);
	EXPECT_EQ(0, as_user(1000, 1000, write_nothing, self->counter));
	fd = open(self->counter, O_WRONLY);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(0, write(fd, "", 0)) TH_LOG("write: %s", strerror(errno));
	expect_owner(_metadata, self->counter, S_IFREG | 06755, 1000, 1000);
	ASSERT_EQ(0, stat(self->counter, &st));
	EXPECT_TRUE(ts_same(&st0.st_mtim, &st.st_mtim));
	EXPECT_TRUE(ts_same(&st0.st_ctim, &st.st_ctim));
	EXPECT_EQ(42, value(self->counter));
	EXPECT_EQ(2, write(fd, "7\n", 2));
	close(fd);
	EXPECT_EQ(7, value(self->counter));
}

/*
 * A remount applies only the options it names: chown(2) and chmod(2) made
 * since the mount survive a remount with no options, remount,ro, and
 * fsconfig(FSCONFIG_CMD_RECONFIGURE) with no parameter. One that names
 * an option applies it, even with the value it has (remount_same_value).
 */
TEST_F(lwnfs, remount_unnamed_keeps_owner)
{
	char *dir = self->dir, *counter = self->counter;
	char sub[PATH_MAX];
	int fs;

	snprintf(sub, sizeof(sub), "%s/subdir/subcounter", dir);
	ASSERT_EQ(0, mount(NULL, dir, NULL, MS_REMOUNT, "uid=1000,gid=1000,mode=0750"));
	ASSERT_EQ(0, chown(counter, 2000, 2001));
	ASSERT_EQ(0, chmod(counter, 0600));
	ASSERT_EQ(0, chown(dir, 3000, 3001));
	ASSERT_EQ(0, chmod(dir, 0711));

	ASSERT_EQ(0, mount(NULL, dir, NULL, MS_REMOUNT, NULL));
	ASSERT_EQ(0, mount(NULL, dir, NULL, MS_REMOUNT, ""));
	ASSERT_EQ(0, mount(NULL, dir, NULL, MS_REMOUNT | MS_RDONLY, NULL));
	ASSERT_EQ(0, mount(NULL, dir, NULL, MS_REMOUNT, NULL));
	fs = syscall(__NR_fspick, AT_FDCWD, dir, 0);
	ASSERT_GE(fs, 0) TH_LOG("fspick: %s", strerror(errno));
	EXPECT_EQ(0, syscall(__NR_fsconfig, fs, FSCONFIG_CMD_RECONFIGURE, NULL, NULL, 0))
		TH_LOG("fsconfig: %s", strerror(errno));
	close(fs);

	expect_owner(_metadata, counter, S_IFREG | 0600, 2000, 2001);
	expect_owner(_metadata, dir, S_IFDIR | 0711, 3000, 3001);
	expect_owner(_metadata, sub, S_IFREG | 0644, 1000, 1000);

	/* a named option applies, to the layout's entries or to the root */
	ASSERT_EQ(0, mount(NULL, dir, NULL, MS_REMOUNT, "gid=1002"));
	expect_owner(_metadata, counter, S_IFREG | 0600, 2000, 1002);
	expect_owner(_metadata, dir, S_IFDIR | 0711, 3000, 1002);
	ASSERT_EQ(0, mount(NULL, dir, NULL, MS_REMOUNT, "mode=0700"));
	expect_owner(_metadata, dir, S_IFDIR | 0700, 3000, 1002);
	expect_owner(_metadata, counter, S_IFREG | 0600, 2000, 1002);
}

/* A non-blocking inotify descriptor watching @file for IN_ATTRIB; -1 on error. */
static int watch_attrib(const char *file)
{
	int in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);

	if (in < 0)
		return -1;
	if (inotify_add_watch(in, file, IN_ATTRIB) < 0) {
		close(in);
		return -1;
	}
	return in;
}

/*
 * The IN_ATTRIB events queued on a watch_attrib() descriptor: of the
 * watched inode itself if @name is NULL, else of its child @name. Reads
 * the queue empty.
 */
static int attrib_events(int in, const char *name)
{
	long buf[512];		/* aligned as struct inotify_event needs */
	const struct inotify_event *ev;
	ssize_t len;
	int n = 0;
	char *p;

	while ((len = read(in, buf, sizeof(buf))) > 0) {
		for (p = (char *)buf; p < (char *)buf + len; p += sizeof(*ev) + ev->len) {
			ev = (const struct inotify_event *)p;
			if (!(ev->mask & IN_ATTRIB))
				continue;
			if (name ? ev->len && !strcmp(ev->name, name) : !ev->len)
				n++;
		}
	}
	return n;
}

/*
 * A remount's uid= and gid= change a layout entry's owner as chown(2) by
 * root does: a counter loses S_ISUID, and S_ISGID if it is group-executable,
 * so that the remount makes no set-id program of a new owner; a counter
 * with S_ISGID but not S_IXGRP keeps it (06755 becomes 0755, 04644 0644,
 * 02644 stays). Its ctime moves, and inotify reports IN_ATTRIB on the
 * file's watch and, for the child, on its directory's. A directory keeps
 * its S_ISGID, as chown(2) leaves it. layout=simple's counters are the
 * layout's entries here.
 */
TEST_F(lwnfs, remount_chown_clears_setid)
{
	static const struct {
		const char *name;
		mode_t mode;	/* set by a chmod after the user's chown */
		mode_t after;	/* after the remount */
	} files[] = {
		{ "counter0", 06755, 0755 },
		{ "counter1", 04644, 0644 },
		{ "counter2", 02644, 02644 },
	};
	char *simple = lwnfs_mount("layout=simple");
	char *subdir = strdup(path(self->dir, "subdir"));
	/* a watch on the directory for each file: attrib_events() empties it */
	int in_file[ARRAY_SIZE(files)], in_dir[ARRAY_SIZE(files)];
	struct stat st0[ARRAY_SIZE(files)], st;
	char *file[ARRAY_SIZE(files)];
	unsigned int i;

	ASSERT_TRUE(set(simple));
	for (i = 0; i < ARRAY_SIZE(files); i++) {
		file[i] = strdup(path(simple, files[i].name));
		/* a user's chown, then chmod, which leaves the bits set */
		ASSERT_EQ(0, chown(file[i], 1000, 1000));
		ASSERT_EQ(0, chmod(file[i], files[i].mode));
		expect_owner(_metadata, file[i], S_IFREG | files[i].mode, 1000, 1000);
	}
	ASSERT_EQ(0, chmod(subdir, 02755));
	for (i = 0; i < ARRAY_SIZE(files); i++) {
		ASSERT_EQ(0, stat(file[i], &st0[i]));
		in_file[i] = watch_attrib(file[i]);
		ASSERT_GE(in_file[i], 0);
		in_dir[i] = watch_attrib(simple);
		ASSERT_GE(in_dir[i], 0);
	}
	/* the last file's chmod came after the others': a change shows after it */
	wait_past(&st0[ARRAY_SIZE(files) - 1].st_ctim);

	ASSERT_EQ(0, mount(NULL, simple, NULL, MS_REMOUNT, "uid=2000,gid=2000"));
	ASSERT_EQ(0, mount(NULL, self->dir, NULL, MS_REMOUNT, "uid=2000,gid=2000"));
	for (i = 0; i < ARRAY_SIZE(files); i++) {
		expect_owner(_metadata, file[i], S_IFREG | files[i].after, 2000, 2000);
		ASSERT_EQ(0, stat(file[i], &st));
		EXPECT_TRUE(ts_later(&st.st_ctim, &st0[i].st_ctim))
			TH_LOG("%s: ctime did not move", files[i].name);
		EXPECT_LT(0, attrib_events(in_file[i], NULL))
			TH_LOG("%s: no IN_ATTRIB on its watch", files[i].name);
		EXPECT_LT(0, attrib_events(in_dir[i], files[i].name))
			TH_LOG("%s: no IN_ATTRIB on the directory's watch", files[i].name);
		close(in_dir[i]);
		close(in_file[i]);
		free(file[i]);
	}
	expect_owner(_metadata, subdir, S_IFDIR | 02755, 2000, 2000);
	free(subdir);
	lwnfs_umount(simple);
}

/*
 * A remount's uid= reaches the layout's entries while they have a name: the
 * layout's counter removed while it is still open keeps its owner, its mode
 * and its ctime. The name made again is a user's counter, which the
 * remount does not reach either.
 */
TEST_F(lwnfs, remount_skips_removed)
{
	struct stat st0, st;
	int fd, made;

	fd = open(self->counter, O_RDWR);
	ASSERT_GE(fd, 0) TH_LOG("open: %s", strerror(errno));
	ASSERT_EQ(0, fchown(fd, 1000, 1000));
	ASSERT_EQ(0, fchmod(fd, 04755));
	ASSERT_EQ(0, unlink(self->counter));
	ASSERT_EQ(0, fstat(fd, &st0));
	ASSERT_EQ(0U, st0.st_nlink);
	made = open(self->counter, O_CREAT | O_EXCL | O_WRONLY, 0644);
	ASSERT_GE(made, 0) TH_LOG("create: %s", strerror(errno));
	close(made);
	/* the unlink's ctime is the removed counter's: a change shows after it */
	wait_past(&st0.st_ctim);

	ASSERT_EQ(0, mount(NULL, self->dir, NULL, MS_REMOUNT, "uid=2000"));
	ASSERT_EQ(0, fstat(fd, &st));
	EXPECT_EQ(1000U, st.st_uid) TH_LOG("the removed counter is owned by %u", st.st_uid);
	EXPECT_EQ(1000U, st.st_gid);
	EXPECT_EQ(S_IFREG | 04755U, st.st_mode) TH_LOG("it has mode 0%o", st.st_mode);
	EXPECT_TRUE(ts_same(&st0.st_ctim, &st.st_ctim));
	expect_owner(_metadata, self->counter, S_IFREG | 0644, 0, 0);
	expect_owner(_metadata, path(self->dir, "subdir"), S_IFDIR | 0755, 2000, 0);
	close(fd);
}

/*
 * A remount applies every option it names, also one equal to the value the
 * instance has: mode= after a chmod(2) of the root sets that mode again
 * (a change of the root's ctime, with IN_ATTRIB), and uid= or gid= after a
 * chown(2) of a counter gives it the instance's owner back.
 */
TEST_F(lwnfs, remount_same_value)
{
	struct stat st0, st;
	const char *opts;
	int in;

	ASSERT_EQ(0, chmod(self->dir, 0700));
	ASSERT_EQ(0, chown(self->counter, 1000, 1000));
	ASSERT_EQ(0, stat(self->dir, &st0));
	in = watch_attrib(self->dir);
	ASSERT_GE(in, 0);
	wait_past(&st0.st_ctim);
	ASSERT_EQ(0, mount(NULL, self->dir, NULL, MS_REMOUNT, "mode=0755"));
	expect_owner(_metadata, self->dir, S_IFDIR | 0755, 0, 0);
	ASSERT_EQ(0, stat(self->dir, &st));
	EXPECT_TRUE(ts_later(&st.st_ctim, &st0.st_ctim));
	EXPECT_LT(0, attrib_events(in, NULL));
	close(in);
	/* an owner the remount does not name stays */
	expect_owner(_metadata, self->counter, S_IFREG | 0644, 1000, 1000);
	ASSERT_EQ(0, mount(NULL, self->dir, NULL, MS_REMOUNT, "uid=0"));
	expect_owner(_metadata, self->counter, S_IFREG | 0644, 0, 1000);
	ASSERT_EQ(0, mount(NULL, self->dir, NULL, MS_REMOUNT, "gid=0"));
	expect_owner(_metadata, self->counter, S_IFREG | 0644, 0, 0);

	/* the same with an instance's values other than the defaults */
	ASSERT_EQ(0, mount(NULL, self->dir, NULL, MS_REMOUNT, "uid=1500,gid=1600,mode=0750"));
	ASSERT_EQ(0, chown(self->counter, 2000, 2001));
	ASSERT_EQ(0, chmod(self->dir, 0711));
	ASSERT_EQ(0, mount(NULL, self->dir, NULL, MS_REMOUNT, "uid=1500,gid=1600,mode=0750"));
	expect_owner(_metadata, self->dir, S_IFDIR | 0750, 1500, 1600);
	expect_owner(_metadata, self->counter, S_IFREG | 0644, 1500, 1600);
	opts = mount_options(self->dir);
	EXPECT_TRUE(set(strstr(opts, ",uid=1500,gid=1600,mode=750"))) TH_LOG("options: %s", opts);
}

/*
 * Two reconfigurations prepared at once through fspick(2), each naming one
 * option: applying the second must not undo the first, as it would if a
 * context took a copy of the instance's options when it was made.
 */
TEST_F(lwnfs, interleaved_reconfigure)
{
	const char *opts;
	int a, b;

	a = syscall(__NR_fspick, AT_FDCWD, self->dir, 0);
	ASSERT_GE(a, 0) TH_LOG("fspick: %s", strerror(errno));
	b = syscall(__NR_fspick, AT_FDCWD, self->dir, 0);
	ASSERT_GE(b, 0);
	EXPECT_EQ(0, syscall(__NR_fsconfig, a, FSCONFIG_SET_STRING, "uid", "1000", 0));
	EXPECT_EQ(0, syscall(__NR_fsconfig, b, FSCONFIG_SET_STRING, "gid", "2000", 0));
	EXPECT_EQ(0, syscall(__NR_fsconfig, a, FSCONFIG_CMD_RECONFIGURE, NULL, NULL, 0));
	EXPECT_EQ(0, syscall(__NR_fsconfig, b, FSCONFIG_CMD_RECONFIGURE, NULL, NULL, 0));
	close(a);
	close(b);
	expect_owner(_metadata, self->counter, S_IFREG | 0644, 1000, 2000);
	opts = mount_options(self->dir);
	EXPECT_TRUE(set(strstr(opts, "uid=1000,gid=2000"))) TH_LOG("options: %s", opts);
}

/* On a read-only mount, reads still take values; writes cannot open. */
TEST_F(lwnfs, read_only)
{
	ASSERT_EQ(3, put(self->counter, "42\n", 3));
	ASSERT_EQ(0, mount(NULL, self->dir, NULL, MS_REMOUNT | MS_RDONLY, NULL));
	EXPECT_EQ(42, value(self->counter));
	EXPECT_EQ(43, value(self->counter));
	EXPECT_EQ(-EROFS, put(self->counter, "1\n", 2));
	ASSERT_EQ(0, mount(NULL, self->dir, NULL, MS_REMOUNT, NULL));
	EXPECT_EQ(44, value(self->counter));
}

#define SHARED_READS 5000

/* 1 if buf[0..n) is a tail of a counter's text: digits, then one newline. */
static int is_tail(const char *buf, ssize_t n)
{
	ssize_t i;

	if (n < 1 || buf[n - 1] != '\n')
		return 0;
	for (i = 0; i < n - 1; i++)
		if (buf[i] < '0' || buf[i] > '9')
			return 0;
	return 1;
}

/*
 * Two processes share one open file, so one value kept with it: each takes
 * a value with a 1-byte read at offset 0 and reads the rest at offset 1,
 * which may come from the other's value, but is always whole. The values
 * cross from 6 to 7 digits, so the text changes length meanwhile.
 */
TEST_F(lwnfs, shared_open_file)
{
	int fd, k, status, bad = 0;
	char buf[32];
	pid_t pid[2];

	ASSERT_EQ(6, put(self->counter, "995000", 6));
	fd = open(self->counter, O_RDONLY);
	ASSERT_GE(fd, 0);
	for (k = 0; k < 2; k++) {
		pid[k] = fork();
		ASSERT_GE(pid[k], 0);
		if (pid[k] == 0) {
			int i;
			ssize_t n;

			for (i = 0; i < SHARED_READS; i++) {
				if (pread(fd, buf, 1, 0) != 1)
					_exit(2);
				n = pread(fd, buf, sizeof(buf), 1);
				if (!is_tail(buf, n))
					_exit(1);
			}
			_exit(0);
		}
	}
	for (k = 0; k < 2; k++) {
		ASSERT_EQ(pid[k], waitpid(pid[k], &status, 0));
		ASSERT_TRUE(WIFEXITED(status));
		if (WEXITSTATUS(status))
			bad++;
	}
	close(fd);
	EXPECT_EQ(0, bad);
	EXPECT_EQ(995000 + 2 * SHARED_READS, value(self->counter));
}

#define REMOUNTS 300

/* The number after "key=" in a mount's options; 0, the default, if none. */
static long option_value(const char *opts, const char *key)
{
	const char *p = strstr(opts, key);

	return p ? strtol(p + strlen(key), NULL, 10) : 0;
}

/*
 * Two processes remount one instance at once, one raising uid= step by
 * step, the other gid=. Neither may undo the other's change. The
 * superblock's s_umount serialises the remounts, so what this catches is
 * a remount that applies an option it does not name (the default gid=0
 * with uid=): the final values, on /proc/mounts and on the files, show it
 * for certain; /proc/mounts read meanwhile, and by each process after its
 * own remount, shows it whenever the other remounted in between.
 */
TEST_F(lwnfs, concurrent_remounts)
{
	static const char * const keys[] = { "uid=", "gid=" };
	static const long first[] = { 10000, 20000 };
	long last[2] = { 0, 0 }, v;
	int i, k, status, back = 0;
	char opt[32], go;
	int start[2];
	struct stat st;
	pid_t pid[2];

	/* the remounts start together, once the sampling can start too */
	ASSERT_EQ(0, pipe(start));
	for (k = 0; k < 2; k++) {
		pid[k] = fork();
		ASSERT_GE(pid[k], 0);
		if (pid[k] == 0) {
			long seen = 0;

			close(start[1]);
			if (read(start[0], &go, 1) != 0)
				_exit(2);
			for (i = 1; i <= REMOUNTS; i++) {
				snprintf(opt, sizeof(opt), "%s%ld", keys[k], first[k] + i);
				if (mount(NULL, self->dir, NULL, MS_REMOUNT, opt))
					_exit(1);
				v = option_value(mount_options(self->dir), keys[!k]);
				if (v < seen)
					_exit(3);
				seen = v;
			}
			_exit(0);
		}
	}
	close(start[0]);
	close(start[1]);
	for (i = 0; i < 2 * REMOUNTS; i++) {
		const char *opts = mount_options(self->dir);

		for (k = 0; k < 2; k++) {
			v = option_value(opts, keys[k]);
			if (v < last[k])
				back++;
			if (v > last[k])
				last[k] = v;
		}
	}
	for (k = 0; k < 2; k++) {
		ASSERT_EQ(pid[k], waitpid(pid[k], &status, 0));
		ASSERT_TRUE(WIFEXITED(status));
		EXPECT_EQ(0, WEXITSTATUS(status));
	}
	EXPECT_EQ(0, back);
	EXPECT_EQ(first[0] + REMOUNTS, option_value(mount_options(self->dir), "uid="));
	EXPECT_EQ(first[1] + REMOUNTS, option_value(mount_options(self->dir), "gid="));
	ASSERT_EQ(0, stat(self->counter, &st));
	EXPECT_EQ(first[0] + REMOUNTS, st.st_uid);
	EXPECT_EQ(first[1] + REMOUNTS, st.st_gid);
}

/* ---- counters users create ---- */

/* -errno if a call returning -1 failed, else 0 */
static int ok(int ret)
{
	return ret == -1 ? -errno : 0;
}

/* Create a new file with O_EXCL, as touch does for a new name; 0 or -errno. */
static int touch(const char *file, mode_t mode)
{
	int fd = open(file, O_CREAT | O_EXCL | O_WRONLY, mode);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/* statfs's f_files and f_ffree as "files/free", or "error". */
static const char *entries(const char *dir)
{
	static char buf[64];
	struct statfs st;

	if (statfs(dir, &st))
		return "error";
	snprintf(buf, sizeof(buf), "%llu/%llu", (unsigned long long)st.f_files,
		 (unsigned long long)st.f_ffree);
	return buf;
}

/* The link count, as an int like the counts the tests expect; 0 on error. */
static int links(const char *file)
{
	struct stat st;

	return stat(file, &st) ? 0 : (int)st.st_nlink;
}

/* A created file is a counter like the built-in ones, from 0. */
TEST_F(lwnfs, create_counter)
{
	char *jobs = strdup(path(self->dir, "jobs"));
	mode_t old = umask(027);
	int fd;

	EXPECT_EQ(0, touch(jobs, 0666));
	EXPECT_EQ(0, ok(mknod(path(self->dir, "made"), S_IFREG | 0600, 0)));
	umask(old);
	expect_owner(_metadata, jobs, S_IFREG | 0640, 0, 0);
	expect_owner(_metadata, path(self->dir, "made"), S_IFREG | 0600, 0, 0);
	EXPECT_EQ(0, value(path(self->dir, "made")));
	EXPECT_EQ(0, value(jobs));
	EXPECT_EQ(1, value(jobs));
	EXPECT_EQ(3, put(jobs, "41\n", 3));
	EXPECT_EQ(41, value(jobs));
	EXPECT_EQ(-EINVAL, put(jobs, "+1\n", 3));
	EXPECT_EQ(0, put(jobs, "", 0));
	EXPECT_EQ(42, value(jobs));
	/* an existing name is opened, not made again */
	EXPECT_EQ(-EEXIST, touch(jobs, 0644));
	fd = open(jobs, O_CREAT | O_RDONLY, 0644);
	EXPECT_GE(fd, 0);
	close(fd);
	EXPECT_EQ(43, value(jobs));
	/* the built-in counter did not move */
	EXPECT_EQ(0, value(self->counter));
	free(jobs);
}

/* Create in the child as whoever as_user() made it, with umask 022. */
static int create_as(const char *file)
{
	umask(022);
	return -touch(file, 0666);
}

static int unlink_as(const char *file)
{
	return unlink(file) ? errno : 0;
}

/* A created counter belongs to its creator's fsuid and fsgid. */
TEST_F(lwnfs, create_owner)
{
	char *dir = lwnfs_mount("mode=1777");
	char *mine;

	ASSERT_TRUE(set(dir));
	mine = strdup(path(dir, "mine"));
	EXPECT_EQ(0, as_user(1000, 1001, create_as, mine));
	expect_owner(_metadata, mine, S_IFREG | 0644, 1000, 1001);
	/* the sticky root keeps others from removing it */
	EXPECT_EQ(EPERM, as_user(1002, 1002, unlink_as, mine));
	EXPECT_EQ(0, as_user(1000, 1001, unlink_as, mine));
	free(mine);

	/* in a setgid directory, the directory's group, and its bit on dirs */
	mine = strdup(path(dir, "sgid/mine"));
	ASSERT_EQ(0, ok(mkdir(path(dir, "sgid"), 0777)));
	ASSERT_EQ(0, ok(chown(path(dir, "sgid"), 0, 1005)));
	ASSERT_EQ(0, ok(chmod(path(dir, "sgid"), 02777)));
	EXPECT_EQ(0, as_user(1000, 1001, create_as, mine));
	expect_owner(_metadata, mine, S_IFREG | 0644, 1000, 1005);
	EXPECT_EQ(0, ok(mkdir(path(dir, "sgid/sub"), 0755)));
	expect_owner(_metadata, path(dir, "sgid/sub"), S_IFDIR | 02755, 0, 1005);
	free(mine);
	lwnfs_umount(dir);
}

/* With uid=, a service user manages its counters; others cannot. */
TEST_F(lwnfs, service_user)
{
	char *dir = lwnfs_mount("uid=1000,gid=1000");
	char *jobs;

	ASSERT_TRUE(set(dir));
	jobs = strdup(path(dir, "jobs"));
	EXPECT_EQ(0, as_user(1000, 1000, create_as, jobs));
	expect_owner(_metadata, jobs, S_IFREG | 0644, 1000, 1000);
	EXPECT_EQ(EACCES, as_user(1002, 1002, create_as, path(dir, "theirs")));
	EXPECT_EQ(EACCES, as_user(1002, 1002, unlink_as, jobs));
	EXPECT_EQ(0, value(jobs));
	/* a remount's new uid= reaches the root and the layout's entries */
	ASSERT_EQ(0, touch(path(dir, "roots"), 0644));
	ASSERT_EQ(0, mount(NULL, dir, NULL, MS_REMOUNT, "uid=1003"));
	expect_owner(_metadata, dir, S_IFDIR | 0755, 1003, 1000);
	expect_owner(_metadata, path(dir, "counter"), S_IFREG | 0644, 1003, 1000);
	expect_owner(_metadata, jobs, S_IFREG | 0644, 1000, 1000);
	expect_owner(_metadata, path(dir, "roots"), S_IFREG | 0644, 0, 0);
	/* the root is 1003's now: 1000 may no longer remove names in it */
	EXPECT_EQ(EACCES, as_user(1000, 1000, unlink_as, jobs));
	EXPECT_EQ(0, as_user(1003, 1000, unlink_as, jobs));
	EXPECT_EQ(-ENOENT, ok(access(jobs, F_OK)));
	free(jobs);
	lwnfs_umount(dir);
}

/* Only counters and directories: other kinds of node are EPERM. */
TEST_F(lwnfs, other_types_refused)
{
	char names[256];

	EXPECT_EQ(-EPERM, ok(mkfifo(path(self->dir, "fifo"), 0644)));
	EXPECT_EQ(-EPERM, ok(mknod(path(self->dir, "sock"), S_IFSOCK | 0644, 0)));
	EXPECT_EQ(-EPERM, ok(mknod(path(self->dir, "null"), S_IFCHR | 0644,
				   makedev(1, 3))));
	EXPECT_EQ(-EPERM, ok(mknod(path(self->dir, "blk"), S_IFBLK | 0644,
				   makedev(7, 0))));
	EXPECT_EQ(-EPERM, ok(symlink("counter", path(self->dir, "link"))));
	EXPECT_EQ(-EPERM, ok(link(self->counter, path(self->dir, "hard"))));
	EXPECT_EQ(-EOPNOTSUPP, ok(open(self->dir, O_TMPFILE | O_RDWR, 0600)));
	EXPECT_EQ(2, list_dir(self->dir, names, sizeof(names)));
	EXPECT_STREQ("1024/1021", entries(self->dir));
}

/* mkdir nests; rmdir takes only an empty directory. */
TEST_F(lwnfs, directories)
{
	char a[PATH_MAX], b[PATH_MAX], c[PATH_MAX];
	mode_t old = umask(022);

	snprintf(a, sizeof(a), "%s/a", self->dir);
	snprintf(b, sizeof(b), "%s/a/b", self->dir);
	snprintf(c, sizeof(c), "%s/a/b/c", self->dir);
	EXPECT_EQ(0, ok(mkdir(a, 0777)));
	EXPECT_EQ(0, ok(mkdir(b, 0700)));
	umask(old);
	EXPECT_EQ(-EEXIST, ok(mkdir(a, 0777)));
	EXPECT_EQ(0, touch(c, 0644));
	expect_owner(_metadata, a, S_IFDIR | 0755, 0, 0);
	expect_owner(_metadata, b, S_IFDIR | 0700, 0, 0);
	EXPECT_EQ(3, links(a));
	EXPECT_EQ(2, links(b));
	EXPECT_EQ(4, links(self->dir));
	EXPECT_EQ(3, put(c, "12\n", 3));
	EXPECT_EQ(12, value(c));
	EXPECT_STREQ("1024/1018", entries(self->dir));

	EXPECT_EQ(-ENOTEMPTY, ok(rmdir(a)));
	EXPECT_EQ(-ENOTEMPTY, ok(rmdir(b)));
	EXPECT_EQ(-ENOTDIR, ok(rmdir(c)));
	EXPECT_EQ(-EISDIR, ok(unlink(b)));
	EXPECT_EQ(13, value(c));
	EXPECT_EQ(0, ok(unlink(c)));
	EXPECT_EQ(0, ok(rmdir(b)));
	EXPECT_EQ(0, ok(rmdir(a)));
	EXPECT_EQ(-ENOENT, ok(access(a, F_OK)));
	EXPECT_EQ(3, links(self->dir));
	EXPECT_STREQ("1024/1021", entries(self->dir));
}

/* An unlinked counter stays usable through an open descriptor. */
TEST_F(lwnfs, unlink_while_open)
{
	char buf[32];
	struct stat st;
	int fd;

	ASSERT_EQ(3, put(self->counter, "70\n", 3));
	fd = open(self->counter, O_RDWR);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(0, ok(unlink(self->counter)));
	EXPECT_EQ(-ENOENT, ok(access(self->counter, F_OK)));
	/* it still holds its memory, so it still counts */
	EXPECT_STREQ("1024/1021", entries(self->dir));
	ASSERT_EQ(0, fstat(fd, &st));
	EXPECT_EQ(0U, st.st_nlink);
	EXPECT_EQ(3, pread(fd, buf, sizeof(buf), 0));
	EXPECT_EQ(0, memcmp(buf, "70\n", 3));
	EXPECT_EQ(2, pwrite(fd, "9\n", 2, 0));
	EXPECT_EQ(2, pread(fd, buf, sizeof(buf), 0));
	EXPECT_EQ(0, memcmp(buf, "9\n", 2));
	/* the name is free again, for a new counter of its own */
	EXPECT_EQ(0, touch(self->counter, 0644));
	EXPECT_EQ(0, value(self->counter));
	EXPECT_STREQ("1024/1020", entries(self->dir));
	EXPECT_EQ(3, pread(fd, buf, sizeof(buf), 0));
	EXPECT_EQ(0, memcmp(buf, "10\n", 3));
	close(fd);
	EXPECT_STREQ("1024/1021", entries(self->dir));
	EXPECT_EQ(1, value(self->counter));
}

/* A rename moves the counter with its value; the usual rules apply. */
TEST_F(lwnfs, rename_keeps_value)
{
	char moved[PATH_MAX], other[PATH_MAX], dir2[PATH_MAX], full[PATH_MAX];

	snprintf(moved, sizeof(moved), "%s/dir2/moved", self->dir);
	snprintf(other, sizeof(other), "%s/other", self->dir);
	snprintf(dir2, sizeof(dir2), "%s/dir2", self->dir);
	snprintf(full, sizeof(full), "%s/full", self->dir);
	ASSERT_EQ(3, put(self->counter, "55\n", 3));
	EXPECT_EQ(0, ok(rename(path(self->dir, "subdir"), dir2)));
	EXPECT_EQ(0, ok(rename(self->counter, moved)));
	EXPECT_EQ(-ENOENT, ok(access(self->counter, F_OK)));
	EXPECT_EQ(55, value(moved));

	ASSERT_EQ(0, touch(other, 0644));
	ASSERT_EQ(3, put(other, "77\n", 3));
	EXPECT_EQ(-EEXIST, ok(renameat2(AT_FDCWD, other, AT_FDCWD, moved,
					RENAME_NOREPLACE)));
	EXPECT_EQ(56, value(moved));
	EXPECT_STREQ("1024/1020", entries(self->dir));
	/* replacing a name frees the entry it had */
	EXPECT_EQ(0, ok(rename(other, moved)));
	EXPECT_EQ(-ENOENT, ok(access(other, F_OK)));
	EXPECT_EQ(77, value(moved));
	EXPECT_STREQ("1024/1021", entries(self->dir));

	/* the directory moved with what it held */
	EXPECT_EQ(0, value(path(self->dir, "dir2/subcounter")));
	EXPECT_EQ(-ENOENT, ok(access(path(self->dir, "subdir"), F_OK)));
	EXPECT_EQ(0, ok(mkdir(path(self->dir, "full"), 0755)));
	EXPECT_EQ(-ENOTEMPTY, ok(rename(path(self->dir, "full"), dir2)));
	EXPECT_EQ(-EINVAL, ok(rename(dir2, path(self->dir, "dir2/x"))));
	EXPECT_EQ(-ENOTDIR, ok(rename(path(self->dir, "full"), moved)));
	EXPECT_EQ(78, value(moved));

	/* a directory moves between directories, and over an empty one */
	EXPECT_EQ(0, ok(mkdir(path(self->dir, "full/inner"), 0755)));
	EXPECT_EQ(0, ok(mkdir(path(self->dir, "empty"), 0755)));
	EXPECT_EQ(5, links(self->dir));
	EXPECT_EQ(3, links(path(self->dir, "full")));
	EXPECT_STREQ("1024/1018", entries(self->dir));
	snprintf(other, sizeof(other), "%s/full/inner", self->dir);
	EXPECT_EQ(0, ok(rename(other, path(self->dir, "dir2/inner"))));
	EXPECT_EQ(2, links(path(self->dir, "full")));
	EXPECT_EQ(3, links(dir2));
	EXPECT_EQ(0, ok(rename(full, path(self->dir, "empty"))));
	EXPECT_EQ(-ENOENT, ok(access(path(self->dir, "full"), F_OK)));
	EXPECT_EQ(4, links(self->dir));
	EXPECT_STREQ("1024/1019", entries(self->dir));
}

/* RENAME_EXCHANGE swaps two names, and so their values. */
TEST_F(lwnfs, rename_exchange)
{
	char *sub = strdup(path(self->dir, "subdir/subcounter"));

	ASSERT_EQ(2, put(self->counter, "1\n", 2));
	ASSERT_EQ(2, put(sub, "2\n", 2));
	EXPECT_EQ(0, ok(renameat2(AT_FDCWD, self->counter, AT_FDCWD, sub,
				  RENAME_EXCHANGE)));
	EXPECT_EQ(2, value(self->counter));
	EXPECT_EQ(1, value(sub));
	EXPECT_STREQ("1024/1021", entries(self->dir));

	/* a directory for a file across directories: the links follow */
	ASSERT_EQ(0, ok(mkdir(path(self->dir, "d"), 0755)));
	EXPECT_EQ(4, links(self->dir));
	EXPECT_EQ(2, links(path(self->dir, "subdir")));
	EXPECT_EQ(0, ok(renameat2(AT_FDCWD, path(self->dir, "d"), AT_FDCWD, sub,
				  RENAME_EXCHANGE)));
	EXPECT_EQ(3, links(self->dir));
	EXPECT_EQ(3, links(path(self->dir, "subdir")));
	EXPECT_EQ(2, value(path(self->dir, "d")));
	EXPECT_STREQ("1024/1020", entries(self->dir));
	free(sub);
}

/*
 * renameat2(RENAME_WHITEOUT) is refused with EINVAL, as libfs's
 * simple_rename() refuses every flag but RENAME_NOREPLACE and
 * RENAME_EXCHANGE, over an existing name or to a new one, and both names
 * keep their counters.
 */
TEST_F(lwnfs, rename_whiteout)
{
	char *sub = strdup(path(self->dir, "subdir/subcounter"));
	char *other = strdup(path(self->dir, "other"));

	ASSERT_EQ(2, put(self->counter, "1\n", 2));
	ASSERT_EQ(2, put(sub, "2\n", 2));
	EXPECT_EQ(-EINVAL, ok(renameat2(AT_FDCWD, self->counter, AT_FDCWD, sub,
					RENAME_WHITEOUT)));
	EXPECT_EQ(-EINVAL, ok(renameat2(AT_FDCWD, self->counter, AT_FDCWD, other,
					RENAME_WHITEOUT)));
	EXPECT_EQ(-ENOENT, ok(access(other, F_OK)));
	EXPECT_EQ(1, value(self->counter));
	EXPECT_EQ(2, value(sub));
	EXPECT_STREQ("1024/1021", entries(self->dir));
	free(other);
	free(sub);
}

/* counter, subdir and subcounter are ordinary entries. */
TEST_F(lwnfs, builtins_removable)
{
	char *sub = strdup(path(self->dir, "subdir/subcounter"));
	char *subdir = strdup(path(self->dir, "subdir"));
	char names[256];

	ASSERT_EQ(3, put(self->counter, "99\n", 3));
	EXPECT_EQ(0, ok(unlink(self->counter)));
	EXPECT_EQ(0, ok(unlink(sub)));
	EXPECT_EQ(0, ok(rmdir(subdir)));
	EXPECT_EQ(0, list_dir(self->dir, names, sizeof(names)));
	EXPECT_STREQ("1024/1024", entries(self->dir));
	EXPECT_EQ(0, touch(self->counter, 0644));
	EXPECT_EQ(0, ok(mkdir(subdir, 0755)));
	EXPECT_EQ(0, touch(sub, 0644));
	EXPECT_EQ(0, value(self->counter));
	EXPECT_EQ(0, value(sub));
	EXPECT_STREQ("1024/1021", entries(self->dir));
	free(subdir);
	free(sub);
}

/* max_entries bounds files and directories; statfs shows what is left. */
TEST_F(lwnfs, max_entries)
{
	char *dir = lwnfs_mount("max_entries=5");
	char a[PATH_MAX], b[PATH_MAX];
	const char *opts;

	ASSERT_TRUE(set(dir));
	snprintf(a, sizeof(a), "%s/a", dir);
	snprintf(b, sizeof(b), "%s/b", dir);
	EXPECT_STREQ("5/2", entries(dir));
	EXPECT_EQ(0, touch(a, 0644));
	EXPECT_EQ(0, ok(mkdir(b, 0755)));
	EXPECT_STREQ("5/0", entries(dir));
	EXPECT_EQ(-ENOSPC, touch(path(dir, "c"), 0644));
	EXPECT_EQ(-ENOSPC, ok(mkdir(path(dir, "d"), 0755)));
	EXPECT_EQ(-ENOSPC, touch(path(dir, "subdir/e"), 0644));
	EXPECT_EQ(-ENOENT, ok(access(path(dir, "c"), F_OK)));
	EXPECT_EQ(-ENOENT, ok(access(path(dir, "d"), F_OK)));
	EXPECT_STREQ("5/0", entries(dir));
	/* a full instance still reads and writes, and renames in place */
	EXPECT_EQ(0, value(a));
	EXPECT_EQ(0, ok(rename(a, path(dir, "subdir/a"))));
	EXPECT_EQ(1, value(path(dir, "subdir/a")));
	EXPECT_EQ(0, ok(rmdir(b)));
	EXPECT_STREQ("5/1", entries(dir));
	EXPECT_EQ(0, touch(path(dir, "c"), 0644));
	EXPECT_STREQ("5/0", entries(dir));

	opts = mount_options(dir);
	EXPECT_TRUE(set(strstr(opts, ",max_entries=5"))) TH_LOG("options: %s", opts);
	opts = mount_options(self->dir);
	EXPECT_FALSE(set(strstr(opts, "max_entries="))) TH_LOG("options: %s", opts);
	EXPECT_STREQ("1024/1021", entries(self->dir));
	lwnfs_umount(dir);
}

/* A remount may move max_entries, but not below what is in use. */
TEST_F(lwnfs, max_entries_remount)
{
	ASSERT_EQ(0, touch(path(self->dir, "a"), 0644));
	errno = 0;
	EXPECT_EQ(-1, mount(NULL, self->dir, NULL, MS_REMOUNT, "max_entries=3"));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_STREQ("1024/1020", entries(self->dir));
	errno = 0;
	EXPECT_EQ(-1, mount(NULL, self->dir, NULL, MS_REMOUNT,
			    "mode=0700,max_entries=2"));
	EXPECT_EQ(EINVAL, errno);
	expect_owner(_metadata, self->dir, S_IFDIR | 0755, 0, 0);
	EXPECT_EQ(0, mount(NULL, self->dir, NULL, MS_REMOUNT, "max_entries=4"));
	EXPECT_STREQ("4/0", entries(self->dir));
	EXPECT_TRUE(set(strstr(mount_options(self->dir), ",max_entries=4")));
	EXPECT_EQ(-ENOSPC, touch(path(self->dir, "b"), 0644));
	EXPECT_EQ(0, mount(NULL, self->dir, NULL, MS_REMOUNT, "max_entries=0"));
	EXPECT_STREQ("0/0", entries(self->dir));
	EXPECT_TRUE(set(strstr(mount_options(self->dir), ",max_entries=0")));
	EXPECT_EQ(0, touch(path(self->dir, "b"), 0644));
	EXPECT_EQ(0, mount(NULL, self->dir, NULL, MS_REMOUNT, "max_entries=1024"));
	EXPECT_STREQ("1024/1019", entries(self->dir));
	EXPECT_FALSE(set(strstr(mount_options(self->dir), "max_entries=")));
}

/*
 * The race of creates and remounts makes RACE_REMOUNTS remounts, each once
 * the creator has made one more file; RACE_ENTRIES, the instance's
 * max_entries, bounds the files all the same, and reaching it is a
 * failure.
 */
#define RACE_REMOUNTS 50
#define RACE_ENTRIES 100000

struct create_race {
	int made;	/* how many creates have returned */
	int stop;	/* set by the test: no more creates */
	int done;	/* set by the creator when it stops */
};

/*
 * Create counters r0, r1, ... in @dir until race->stop, counting in
 * race->made each create once it has returned; 0, or the errno of a create
 * that failed (ENOSPC at max_entries). It dies with the test, should the
 * test end before it has stopped it.
 */
static int race_creator(const char *dir, struct create_race *race)
{
	char name[PATH_MAX];
	int i, ret = 0;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL))
		return errno;
	for (i = 0; !__atomic_load_n(&race->stop, __ATOMIC_RELAXED); i++) {
		snprintf(name, sizeof(name), "%s/r%d", dir, i);
		ret = -touch(name, 0644);
		if (ret)
			break;
		__atomic_store_n(&race->made, i + 1, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&race->done, 1, __ATOMIC_RELEASE);
	return ret;
}

/*
 * A remount's uid= reaches the layout's entries and none that a user made,
 * also while root goes on creating files: the rule is remount_as_mount8's,
 * and here each remount takes the root's inode lock, which every create
 * holds as the parent, and the instance's lock, which every create takes
 * to count its entry. Whether a create returned before a remount, ran
 * during it or came after it, the file keeps its creator's owner and
 * mode, and the layout's counter ends with the last remount's owner. The
 * test waits for the creator's progress, never for a time.
 */
TEST_F_TIMEOUT(lwnfs, remount_spares_creates, LOAD_TIMEOUT)
{
	int i, k, after = 0, status, made, mount_err = 0, touched = 0;
	struct create_race *race;
	char name[PATH_MAX], opts[32];
	unsigned int uid = 0;
	struct stat st;
	char *dir;
	pid_t pid;

	snprintf(opts, sizeof(opts), "max_entries=%d", RACE_ENTRIES);
	dir = lwnfs_mount(opts);
	ASSERT_TRUE(set(dir));
	race = mmap(NULL, sizeof(*race), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(race != MAP_FAILED);
	memset(race, 0, sizeof(*race));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0)
		_exit(race_creator(dir, race));

	/* no ASSERT until the creator has stopped: it would go on without us */
	for (k = 0; k < RACE_REMOUNTS; k++) {
		/* remount while the creator makes files: one more since the last */
		while (__atomic_load_n(&race->made, __ATOMIC_ACQUIRE) <= after &&
		       !__atomic_load_n(&race->done, __ATOMIC_ACQUIRE))
			usleep(1000);
		if (__atomic_load_n(&race->done, __ATOMIC_ACQUIRE))
			break;
		uid = 2000 + k;
		snprintf(opts, sizeof(opts), "uid=%u", uid);
		if (mount(NULL, dir, NULL, MS_REMOUNT, opts)) {
			mount_err = errno;
			break;
		}
		after = __atomic_load_n(&race->made, __ATOMIC_ACQUIRE);
	}
	__atomic_store_n(&race->stop, 1, __ATOMIC_RELAXED);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status))
		TH_LOG("the creator stopped after %d files: %s", race->made,
		       strerror(WEXITSTATUS(status)));
	EXPECT_EQ(0, mount_err) TH_LOG("remount %d: %s", k, strerror(mount_err));
	EXPECT_EQ(RACE_REMOUNTS, k);
	made = race->made;
	for (i = 0; i < made; i++) {
		snprintf(name, sizeof(name), "%s/r%d", dir, i);
		ASSERT_EQ(0, stat(name, &st));
		if (st.st_uid == 0 && st.st_mode == (S_IFREG | 0644))
			continue;
		if (!touched++)
			TH_LOG("r%d of %d has uid %u and mode 0%o", i, made,
			       st.st_uid, st.st_mode);
	}
	EXPECT_EQ(0, touched);
	expect_owner(_metadata, path(dir, "counter"), S_IFREG | 0644, uid, 0);
	munmap(race, sizeof(*race));
	lwnfs_umount(dir);
}

/* A mount needs room for its layout's files; bad numbers are refused. */
TEST(max_entries_mount)
{
	static const char * const bad[] = {
		"max_entries=2", "layout=simple,max_entries=3", "max_entries=-1",
		"max_entries=4294967296", "max_entries=x", "max_entries=",
		"max_entries=0x10",
	};
	char tmpl[] = "/tmp/lwnfs_test.XXXXXX";
	char *dir = mkdtemp(tmpl);
	unsigned int i;

	ASSERT_TRUE(set(dir));
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		errno = 0;
		EXPECT_EQ(-1, mount("none", dir, "lwnfs", 0, bad[i])) TH_LOG("%s", bad[i]);
		EXPECT_EQ(EINVAL, errno) TH_LOG("%s", bad[i]);
	}
	ASSERT_EQ(0, mount("none", dir, "lwnfs", 0, "max_entries=3"));
	EXPECT_STREQ("3/0", entries(dir));
	EXPECT_EQ(-ENOSPC, touch(path(dir, "x"), 0644));
	umount2(dir, MNT_DETACH);
	ASSERT_EQ(0, mount("none", dir, "lwnfs", 0, "layout=simple,max_entries=4"));
	EXPECT_STREQ("0/0", entries(dir));
	umount2(dir, MNT_DETACH);
	/* the number is decimal: a leading 0 is not octal */
	ASSERT_EQ(0, mount("none", dir, "lwnfs", 0, "max_entries=010"));
	EXPECT_STREQ("10/7", entries(dir));
	umount2(dir, MNT_DETACH);
	rmdir(dir);
}

/* layout=simple is the article's fixed directory. */
TEST_F(lwnfs, simple_layout_fixed)
{
	char *dir = lwnfs_mount("layout=simple");
	char c1[PATH_MAX], names[256];

	ASSERT_TRUE(set(dir));
	snprintf(c1, sizeof(c1), "%s/counter1", dir);
	EXPECT_EQ(-EPERM, touch(path(dir, "new"), 0644));
	EXPECT_EQ(-EPERM, ok(mknod(path(dir, "new"), S_IFREG | 0644, 0)));
	EXPECT_EQ(-EPERM, ok(mkdir(path(dir, "new"), 0755)));
	EXPECT_EQ(-EPERM, ok(mkfifo(path(dir, "new"), 0644)));
	EXPECT_EQ(-EPERM, ok(unlink(path(dir, "counter0"))));
	EXPECT_EQ(-EPERM, ok(rename(path(dir, "counter0"), c1)));
	EXPECT_EQ(-EPERM, ok(renameat2(AT_FDCWD, c1, AT_FDCWD, path(dir, "counter0"),
				       RENAME_EXCHANGE)));
	EXPECT_EQ(-EPERM, ok(rename(c1, path(dir, "counter9"))));
	EXPECT_EQ(4, list_dir(dir, names, sizeof(names)));
	/* nothing can be made, so no count of entries is reported */
	EXPECT_STREQ("0/0", entries(dir));
	EXPECT_EQ(0, value(c1));
	lwnfs_umount(dir);
}

/*
 * statfs counts entries as tmpfs counts inodes: f_files is max_entries and
 * f_ffree what is left of it, both 0 with no limit. Nothing can be created
 * with layout=simple, so it reports no count at all, 0 and 0, whatever
 * max_entries is: not max_entries with none free, which df -i shows as
 * 100% in use.
 */
TEST_F(lwnfs, statfs_files)
{
	char *unlimited = lwnfs_mount("max_entries=0");
	char *simple = lwnfs_mount("layout=simple");
	char *simple8 = lwnfs_mount("layout=simple,max_entries=8");

	ASSERT_TRUE(set(unlimited));
	ASSERT_TRUE(set(simple));
	ASSERT_TRUE(set(simple8));
	EXPECT_STREQ("1024/1021", entries(self->dir));
	EXPECT_STREQ("0/0", entries(unlimited));
	EXPECT_STREQ("0/0", entries(simple));
	EXPECT_STREQ("0/0", entries(simple8));
	ASSERT_EQ(0, mount(NULL, simple, NULL, MS_REMOUNT, "max_entries=100"));
	EXPECT_STREQ("0/0", entries(simple));
	lwnfs_umount(simple8);
	lwnfs_umount(simple);
	lwnfs_umount(unlimited);
}

#define CHURN_NAMES 10000

/*
 * Make CHURN_NAMES counters under prefix p in dir, each read once, and
 * unlink each 16 names behind; 0 on success.
 */
static int churn(const char *dir, char p)
{
	char name[PATH_MAX];
	int i;

	for (i = 0; i < CHURN_NAMES + 16; i++) {
		if (i < CHURN_NAMES) {
			snprintf(name, sizeof(name), "%s/%c%d", dir, p, i);
			if (touch(name, 0644))
				return 1;
			if (value(name) < 0)
				return 2;
		}
		if (i >= 16) {
			snprintf(name, sizeof(name), "%s/%c%d", dir, p, i - 16);
			if (unlink(name))
				return 3;
		}
	}
	return 0;
}

/*
 * Until *stop, read the built-in counter, and names the creators are
 * making and removing, some of them unlinked between open and read: each
 * is a counter that reads a number, or ENOENT, nothing else; 0 on success.
 */
static int churn_read(const char *dir, int *stop, unsigned int seed)
{
	char name[PATH_MAX], buf[32], *end;
	int fd, n;

	while (!__atomic_load_n(stop, __ATOMIC_RELAXED)) {
		seed = seed * 1103515245 + 12345;
		snprintf(name, sizeof(name), "%s/%c%u", dir, seed >> 16 & 1 ? 'a' : 'b',
			 (seed >> 17) % CHURN_NAMES);
		fd = open(name, O_RDONLY);
		if (fd < 0 && errno != ENOENT)
			return 1;
		if (fd >= 0) {
			n = pread(fd, buf, sizeof(buf) - 1, 0);
			close(fd);
			if (n < 2)
				return 3;
			buf[n] = '\0';
			strtoull(buf, &end, 10);
			if (strcmp(end, "\n"))
				return 4;
		}
		if (value(path(dir, "counter")) < 0)
			return 2;
	}
	return 0;
}

/* 2 processes churn 10,000 names each while 2 others read. */
TEST_F_TIMEOUT(lwnfs, churn, LOAD_TIMEOUT)
{
	char *dir = lwnfs_mount("max_entries=0");
	int i, status, *stop;
	pid_t pid[4];

	ASSERT_TRUE(set(dir));
	stop = mmap(NULL, sizeof(*stop), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(stop != MAP_FAILED);
	*stop = 0;
	for (i = 0; i < 4; i++) {
		pid[i] = fork();
		ASSERT_GE(pid[i], 0);
		if (pid[i] == 0)
			_exit(i < 2 ? churn(dir, 'a' + i) : churn_read(dir, stop, i));
	}
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(pid[i], waitpid(pid[i], &status, 0));
		EXPECT_TRUE(WIFEXITED(status));
		EXPECT_EQ(0, WEXITSTATUS(status)) TH_LOG("creator %d", i);
	}
	__atomic_store_n(stop, 1, __ATOMIC_RELAXED);
	for (i = 2; i < 4; i++) {
		ASSERT_EQ(pid[i], waitpid(pid[i], &status, 0));
		EXPECT_TRUE(WIFEXITED(status));
		EXPECT_EQ(0, WEXITSTATUS(status)) TH_LOG("reader %d", i);
	}
	EXPECT_EQ(3, links(dir));
	ASSERT_EQ(0, mount(NULL, dir, NULL, MS_REMOUNT, "max_entries=3"));
	EXPECT_STREQ("3/0", entries(dir));
	munmap(stop, sizeof(*stop));
	lwnfs_umount(dir);
}

/*
 * A seek may go past 2 GiB, as on ramfs, though i_size stays 0: reads
 * there are at end of file, before a value is taken and after. A seek
 * that would need more than 2^31 - 1 bytes of file fails on a filesystem
 * that leaves s_maxbytes at its default.
 */
TEST_F(lwnfs, seek_past_2g)
{
	const off_t far = (off_t)1 << 31, farther = (off_t)1 << 40;
	char buf[32];
	int fd;

	ASSERT_EQ(8, sizeof(off_t));
	fd = open(self->counter, O_RDONLY);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(far, lseek(fd, far, SEEK_SET)) TH_LOG("lseek: %s", strerror(errno));
	EXPECT_EQ(0, read(fd, buf, sizeof(buf)));
	EXPECT_EQ(farther, lseek(fd, farther, SEEK_SET)) TH_LOG("lseek: %s", strerror(errno));
	EXPECT_EQ(farther + 1, lseek(fd, 1, SEEK_CUR));
	EXPECT_EQ(0, lseek(fd, 0, SEEK_END));
	ASSERT_EQ(2, read(fd, buf, sizeof(buf)));
	EXPECT_EQ(0, memcmp(buf, "0\n", 2));
	EXPECT_EQ(0, pread(fd, buf, sizeof(buf), far));
	close(fd);
	EXPECT_EQ(1, value(self->counter));
}

/*
 * A read whose copy to user space fails has taken a value all the same:
 * EFAULT, and the next read gets the value after it.
 */
TEST_F(lwnfs, efault_read_takes_value)
{
	void *page;
	int fd;

	page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(page != MAP_FAILED);
	fd = open(self->counter, O_RDONLY);
	ASSERT_GE(fd, 0);
	errno = 0;
	EXPECT_EQ(-1, read(fd, page, 32));
	EXPECT_EQ(EFAULT, errno);
	close(fd);
	EXPECT_EQ(1, value(self->counter));
	munmap(page, 4096);
}

/* A read takes a value but leaves the file's times alone, atime too. */
TEST_F(lwnfs, read_keeps_times)
{
	struct stat st0, st;

	ASSERT_EQ(0, stat(self->counter, &st0));
	wait_past(&st0.st_ctim);
	wait_past(&st0.st_atim);
	EXPECT_EQ(0, value(self->counter));
	ASSERT_EQ(0, stat(self->counter, &st));
	EXPECT_TRUE(ts_same(&st0.st_atim, &st.st_atim));
	EXPECT_TRUE(ts_same(&st0.st_mtim, &st.st_mtim));
	EXPECT_TRUE(ts_same(&st0.st_ctim, &st.st_ctim));
}

/*
 * What a counter does not offer: fallocate(2) and extended attributes
 * are EOPNOTSUPP, as is a read with RWF_NOWAIT; O_DIRECT is EINVAL at
 * open(2). None of them changes the value.
 */
TEST_F(lwnfs, unsupported)
{
	struct iovec iov;
	char buf[32];
	int fd;

	fd = open(self->counter, O_RDWR);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(-EOPNOTSUPP, ok(fallocate(fd, 0, 0, 4096)));
	EXPECT_EQ(-EOPNOTSUPP, ok(fsetxattr(fd, "user.lwnfs", "1", 1, 0)));
	EXPECT_EQ(-EOPNOTSUPP, ok(fgetxattr(fd, "user.lwnfs", buf, sizeof(buf))));
	iov.iov_base = buf;
	iov.iov_len = sizeof(buf);
	errno = 0;
	EXPECT_EQ(-1, preadv2(fd, &iov, 1, 0, RWF_NOWAIT));
	EXPECT_EQ(EOPNOTSUPP, errno);
	close(fd);
	errno = 0;
	fd = open(self->counter, O_RDONLY | O_DIRECT);
	EXPECT_EQ(-1, fd);
	EXPECT_EQ(EINVAL, errno);
	if (fd >= 0)
		close(fd);
	EXPECT_EQ(0, value(self->counter));
}

/*
 * A mounter with CAP_SYS_ADMIN but neither CAP_DAC_OVERRIDE nor
 * CAP_DAC_READ_SEARCH, as a service with a capability bounding set runs,
 * mounts an instance whose root it may not search (uid=1000, mode=0700):
 * the layout's entries are made with no permission check on the new root.
 * The child's exit status: 0, the errno of the mount, or 200 and up for a
 * step before it.
 */
static int mount_dropping_dac(const char *dir)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];
	struct stat st;

	if (syscall(SYS_capget, &hdr, data))
		return 200;
	data[0].effective &= ~((1U << CAP_DAC_OVERRIDE) | (1U << CAP_DAC_READ_SEARCH));
	if (syscall(SYS_capset, &hdr, data))
		return 201;
	if (mount("none", dir, "lwnfs", 0, "uid=1000,gid=1000,mode=0700"))
		return errno;
	/* the capabilities are gone: the new root is closed to this mounter */
	if (stat(path(dir, "counter"), &st) != -1 || errno != EACCES)
		return 202;
	return 0;
}

TEST(mount_without_dac)
{
	char tmpl[] = "/tmp/lwnfs_nodac.XXXXXX";
	char *dir = mkdtemp(tmpl);
	int status;
	pid_t pid;

	ASSERT_TRUE(set(dir));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0)
		_exit(mount_dropping_dac(dir));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status))
		TH_LOG("status %d (%s)", WEXITSTATUS(status), strerror(WEXITSTATUS(status)));
	if (WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == 202) {
		expect_owner(_metadata, dir, S_IFDIR | 0700, 1000, 1000);
		expect_owner(_metadata, path(dir, "counter"), S_IFREG | 0644, 1000, 1000);
		expect_owner(_metadata, path(dir, "subdir/subcounter"), S_IFREG | 0644,
			     1000, 1000);
		umount2(dir, MNT_DETACH);
	}
	rmdir(dir);
}

/*
 * The filesystem options of the mount on @dir as /proc/self/mountinfo shows
 * them, without the read-only or read-write flag that leads them: what
 * util-linux's mount(8) passes again on "mount -o remount,ro DIR" when
 * /etc/fstab has no line for DIR. "" if @dir is not an lwnfs mount.
 */
static const char *mountinfo_options(const char *dir)
{
	static char line[1024], opts[512];
	char mnt[256], *sep;
	FILE *f = fopen("/proc/self/mountinfo", "r");

	opts[0] = '\0';
	if (!f)
		return opts;
	while (fgets(line, sizeof(line), f)) {
		sep = strstr(line, " - lwnfs ");
		if (!sep || sscanf(line, "%*s %*s %*s %*s %255s", mnt) != 1 ||
		    strcmp(mnt, dir) || sscanf(sep, " - lwnfs %*s %511s", opts) != 1)
			continue;
		if (!strncmp(opts, "rw,", 3) || !strncmp(opts, "ro,", 3))
			memmove(opts, opts + 3, strlen(opts + 3) + 1);
		else if (!strcmp(opts, "rw") || !strcmp(opts, "ro"))
			opts[0] = '\0';
		break;
	}
	fclose(f);
	return opts;
}

static int create_setuid_as(const char *file)
{
	int fd = open(file, O_CREAT | O_EXCL | O_WRONLY, 0644);

	if (fd < 0)
		return errno;
	if (fchmod(fd, 04644))
		return errno;
	close(fd);
	return 0;
}

/*
 * A remount as mount(8) makes it, with the options mountinfo shows passed
 * again, leaves a user's file as it was: the owner and the set-uid bit of
 * user 2000's 04644 file in a 1777 instance of uid=1000 survive
 * "remount,ro" and "remount,rw". The layout's counter and the root keep
 * the instance's owner, and the root its mode.
 */
TEST_F(lwnfs, remount_as_mount8)
{
	char *dir = lwnfs_mount("uid=1000,gid=1000,mode=1777");
	char opts[512], *mine;

	ASSERT_TRUE(set(dir));
	mine = strdup(path(dir, "mine"));
	ASSERT_EQ(0, as_user(2000, 2000, create_setuid_as, mine));
	expect_owner(_metadata, mine, S_IFREG | 04644, 2000, 2000);
	snprintf(opts, sizeof(opts), "%s", mountinfo_options(dir));
	EXPECT_STREQ("uid=1000,gid=1000,mode=1777", opts);
	ASSERT_EQ(0, mount(NULL, dir, NULL, MS_REMOUNT | MS_RDONLY, opts));
	expect_owner(_metadata, mine, S_IFREG | 04644, 2000, 2000);
	snprintf(opts, sizeof(opts), "%s", mountinfo_options(dir));
	ASSERT_EQ(0, mount(NULL, dir, NULL, MS_REMOUNT, opts));
	expect_owner(_metadata, mine, S_IFREG | 04644, 2000, 2000);
	expect_owner(_metadata, dir, S_IFDIR | 01777, 1000, 1000);
	expect_owner(_metadata, path(dir, "counter"), S_IFREG | 0644, 1000, 1000);
	EXPECT_EQ(0, value(mine));
	free(mine);
	lwnfs_umount(dir);
}

static int rename_mine_to_counter(const char *dir)
{
	char mine[PATH_MAX], counter[PATH_MAX];
	int fd;

	snprintf(mine, sizeof(mine), "%s/mine", dir);
	snprintf(counter, sizeof(counter), "%s/counter", dir);
	fd = open(mine, O_CREAT | O_EXCL | O_WRONLY, 0644);
	if (fd < 0)
		return 1;
	close(fd);
	return rename(mine, counter) ? 2 : 0;
}

/*
 * A remount knows the layout's entries by identity, not by name: the
 * layout's counter renamed to "x" still gets the remount's owner, and a
 * user's file renamed to "counter" keeps its own, as does a directory made
 * where the layout's subdir was removed. A removed entry must leave the
 * layout's record when its inode goes: a remount would otherwise reach
 * freed memory, which KASAN reports once the inode is freed, or an inode
 * made later at the same address, which the last check here catches if
 * the address was reused. The KUnit suite checks the record itself.
 */
TEST_F(lwnfs, remount_layout_identity)
{
	char *dir = lwnfs_mount("mode=1777");
	char *counter;

	ASSERT_TRUE(set(dir));
	counter = strdup(path(dir, "counter"));
	ASSERT_EQ(0, ok(rename(counter, path(dir, "x"))));
	EXPECT_EQ(0, as_user(2000, 2000, rename_mine_to_counter, dir));
	ASSERT_EQ(0, ok(unlink(path(dir, "subdir/subcounter"))));
	ASSERT_EQ(0, ok(rmdir(path(dir, "subdir"))));
	ASSERT_EQ(0, mount(NULL, dir, NULL, MS_REMOUNT, "uid=3000,gid=3000"));
	expect_owner(_metadata, dir, S_IFDIR | 01777, 3000, 3000);
	expect_owner(_metadata, path(dir, "x"), S_IFREG | 0644, 3000, 3000);
	expect_owner(_metadata, path(dir, "counter"), S_IFREG | 0644, 2000, 2000);
	ASSERT_EQ(0, ok(mkdir(path(dir, "subdir"), 0755)));
	ASSERT_EQ(0, mount(NULL, dir, NULL, MS_REMOUNT, "uid=3001"));
	expect_owner(_metadata, path(dir, "subdir"), S_IFDIR | 0755, 0, 0);
	expect_owner(_metadata, path(dir, "x"), S_IFREG | 0644, 3001, 3000);
	free(counter);
	lwnfs_umount(dir);
}

static int write_7(const char *file)
{
	return put(file, "7\n", 2) == 2 ? 0 : 1;
}

/*
 * A write that sets the counter is a modification like any other: by a
 * writer without CAP_FSETID it clears S_ISUID, and S_ISGID of a
 * group-executable file, or of a file whose group the writer is not in;
 * a writer in the group keeps S_ISGID of a file that is not
 * group-executable, and root's write keeps both.
 */
TEST_F(lwnfs, write_clears_setuid)
{
	ASSERT_EQ(0, chmod(self->counter, 06777));
	EXPECT_EQ(0, as_user(1000, 1000, write_7, self->counter));
	expect_owner(_metadata, self->counter, S_IFREG | 0777, 0, 0);
	EXPECT_EQ(7, value(self->counter));
	ASSERT_EQ(0, chown(self->counter, 0, 1001));
	ASSERT_EQ(0, chmod(self->counter, 02777));
	EXPECT_EQ(0, as_user(1000, 1001, write_7, self->counter));
	expect_owner(_metadata, self->counter, S_IFREG | 0777, 0, 1001);
	ASSERT_EQ(0, chmod(self->counter, 02666));
	EXPECT_EQ(0, as_user(1000, 1001, write_7, self->counter));
	expect_owner(_metadata, self->counter, S_IFREG | 02666, 0, 1001);
	EXPECT_EQ(0, as_user(1000, 1000, write_7, self->counter));
	expect_owner(_metadata, self->counter, S_IFREG | 0666, 0, 1001);
	ASSERT_EQ(0, chmod(self->counter, 06777));
	EXPECT_EQ(2, put(self->counter, "9\n", 2));
	expect_owner(_metadata, self->counter, S_IFREG | 06777, 0, 1001);
	EXPECT_EQ(9, value(self->counter));
}

/*
 * /proc/mounts shows uid= and gid= in the user namespace of the process
 * that reads it: in a namespace that maps its uid 5 to 1000 and maps no
 * group, an instance of uid=1000,gid=1001 reads as uid=5 and gid=65534,
 * the overflow group.
 */
TEST(proc_mounts_userns)
{
	char tmpl[] = "/tmp/lwnfs_ns.XXXXXX";
	int to_child[2], to_parent[2], status;
	char *dir = mkdtemp(tmpl), map[64], go;
	pid_t pid;

	ASSERT_TRUE(set(dir));
	ASSERT_EQ(0, mount("none", dir, "lwnfs", 0, "uid=1000,gid=1001"));
	ASSERT_EQ(0, pipe(to_child));
	ASSERT_EQ(0, pipe(to_parent));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		const char *opts;

		close(to_parent[0]);
		close(to_child[1]);
		if (unshare(CLONE_NEWUSER))
			_exit(10);
		if (write(to_parent[1], "u", 1) != 1 || read(to_child[0], &go, 1) != 1)
			_exit(11);
		opts = mount_options(dir);
		if (!strstr(opts, ",uid=5,gid=65534"))
			_exit(12);
		_exit(0);
	}
	close(to_parent[1]);
	close(to_child[0]);
	/* the parent, with CAP_SETUID where the namespace was made, maps it */
	if (read(to_parent[0], &go, 1) == 1) {
		snprintf(map, sizeof(map), "/proc/%d/uid_map", pid);
		EXPECT_EQ(0, write_map(map, "5 1000 1"));
		EXPECT_EQ(1, write(to_child[1], "g", 1));
	}
	close(to_child[1]);
	close(to_parent[0]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	umount2(dir, MNT_DETACH);
	rmdir(dir);
	ASSERT_TRUE(WIFEXITED(status));
	if (WEXITSTATUS(status) == 10)
		SKIP(return, "no user namespaces here (CONFIG_USER_NS)");
	EXPECT_EQ(0, WEXITSTATUS(status)) TH_LOG("step %d failed", WEXITSTATUS(status));
}

TEST_HARNESS_MAIN
