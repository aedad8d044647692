// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for lwnfs: the write parser and the text rendering as units,
 * and private instances mounted in the kernel and driven with kernel_read()
 * and kernel_write().
 *
 * The tests are a module of their own. What they need of lwnfs is exported
 * only to them, and only when KUnit is enabled (EXPORT_SYMBOL_IF_KUNIT), so
 * lwnfs can be built in while KUnit and the tests are modules.
 */

#include <kunit/test.h>
#include <linux/bitops.h>
#include <linux/completion.h>
#include <linux/fs.h>
#include <linux/fs_context.h>
#include <linux/kthread.h>
#include <linux/magic.h>
#include <linux/module.h>
#include <linux/mount.h>
#include <linux/namei.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/statfs.h>

#include "lwnfs.h"

/* ---- the write parser ---- */

struct lwnfs_parse_case {
	const char *name;
	const char *text;
	size_t len;
	int err;
	u64 val;
};

#define PARSE_OK(n, s, v)	{ n, s, sizeof(s) - 1, 0, v }
#define PARSE_ERR(n, s, e)	{ n, s, sizeof(s) - 1, e, 0 }

static const struct lwnfs_parse_case lwnfs_parse_cases[] = {
	PARSE_OK("zero", "0", 0),
	PARSE_OK("zero with newline", "0\n", 0),
	PARSE_OK("echo 1000", "1000\n", 1000),
	PARSE_OK("leading zeros", "007", 7),
	PARSE_OK("2^32", "4294967296", 4294967296ULL),
	PARSE_OK("2^63", "9223372036854775808\n", 9223372036854775808ULL),
	PARSE_OK("U64_MAX", "18446744073709551615", U64_MAX),
	PARSE_OK("U64_MAX with newline", "18446744073709551615\n", U64_MAX),
	{ "empty", "", 0, -EINVAL, 0 },
	PARSE_ERR("newline only", "\n", -EINVAL),
	PARSE_ERR("two newlines", "1\n\n", -EINVAL),
	PARSE_ERR("space", " ", -EINVAL),
	PARSE_ERR("leading space", " 1", -EINVAL),
	PARSE_ERR("trailing space", "1 ", -EINVAL),
	PARSE_ERR("space inside", "1 2", -EINVAL),
	PARSE_ERR("carriage return", "1\r\n", -EINVAL),
	PARSE_ERR("negative", "-1", -EINVAL),
	PARSE_ERR("plus alone", "+", -EINVAL),
	PARSE_ERR("plus sign", "+5", -EINVAL),
	PARSE_ERR("hex", "0x10", -EINVAL),
	PARSE_ERR("exponent", "1e3", -EINVAL),
	PARSE_ERR("decimal point", "1.5", -EINVAL),
	PARSE_ERR("trailing letters", "12abc", -EINVAL),
	PARSE_ERR("trailing x", "12x", -EINVAL),
	PARSE_ERR("embedded NUL", "1\0002", -EINVAL),
	PARSE_ERR("trailing NUL", "12\0", -EINVAL),
	PARSE_ERR("2^64", "18446744073709551616", -ERANGE),
	PARSE_ERR("U64_MAX * 10", "184467440737095516150\n", -ERANGE),
	PARSE_ERR("20 nines", "99999999999999999999", -ERANGE),
};

static void lwnfs_parse_case_desc(const struct lwnfs_parse_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(lwnfs_parse, lwnfs_parse_cases, lwnfs_parse_case_desc);

static void lwnfs_test_parse(struct kunit *test)
{
	const struct lwnfs_parse_case *c = test->param_value;
	u64 val = 0xdeadbeef;

	KUNIT_EXPECT_EQ(test, c->err, lwnfs_parse_value(c->text, c->len, &val));
	if (!c->err)
		KUNIT_EXPECT_EQ(test, c->val, val);
}

/* The longest accepted text, and one byte more. */
static void lwnfs_test_parse_length_limit(struct kunit *test)
{
	char *buf = kunit_kzalloc(test, LWNFS_WRITE_MAX + 2, GFP_KERNEL);
	u64 val = 0;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	memset(buf, '0', LWNFS_WRITE_MAX + 1);
	buf[LWNFS_WRITE_MAX - 1] = '9';
	KUNIT_EXPECT_EQ(test, 0, lwnfs_parse_value(buf, LWNFS_WRITE_MAX, &val));
	KUNIT_EXPECT_EQ(test, 9ULL, val);
	buf[LWNFS_WRITE_MAX] = '\n';
	KUNIT_EXPECT_EQ(test, 0, lwnfs_parse_value(buf, LWNFS_WRITE_MAX + 1, &val));
	buf[LWNFS_WRITE_MAX] = '0';
	KUNIT_EXPECT_EQ(test, -EINVAL,
			lwnfs_parse_value(buf, LWNFS_WRITE_MAX + 1, &val));
}

/* ---- the text rendering ---- */

struct lwnfs_format_case {
	u64 val;
	const char *text;
};

static const struct lwnfs_format_case lwnfs_format_cases[] = {
	{ 0, "0\n" },
	{ 9, "9\n" },
	{ 10, "10\n" },
	{ 1000, "1000\n" },
	{ U32_MAX, "4294967295\n" },
	{ 1ULL << 63, "9223372036854775808\n" },
	{ 10000000000000000000ULL, "10000000000000000000\n" },
	{ U64_MAX, "18446744073709551615\n" },
};

static void lwnfs_format_case_desc(const struct lwnfs_format_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%llu", c->val);
}

KUNIT_ARRAY_PARAM(lwnfs_format, lwnfs_format_cases, lwnfs_format_case_desc);

static void lwnfs_test_format(struct kunit *test)
{
	const struct lwnfs_format_case *c = test->param_value;
	char buf[LWNFS_TEXT_MAX + 1];
	int len, i;

	/* the text ends at the end of the LWNFS_TEXT_MAX bytes, with no NUL */
	memset(buf, '#', sizeof(buf));
	len = lwnfs_format_value(buf, c->val);
	KUNIT_ASSERT_EQ(test, (int)strlen(c->text), len);
	KUNIT_EXPECT_EQ(test, 0, memcmp(c->text, buf + LWNFS_TEXT_MAX - len, len));
	/* and it leaves the bytes around it alone */
	for (i = 0; i < LWNFS_TEXT_MAX - len; i++)
		KUNIT_EXPECT_EQ(test, '#', buf[i]);
	KUNIT_EXPECT_EQ(test, '#', buf[LWNFS_TEXT_MAX]);
}

/* ---- instances mounted in the kernel ---- */

/* fc_mount()'s match: the mount is no kern_mount() */
static void lwnfs_test_umount(void *mnt)
{
	mntput(mnt);
}

/*
 * lwnfs's type, found by name as mount(2) finds it. This module uses
 * lwnfs's exported parser, so lwnfs stays loaded while it runs, and the
 * module reference get_fs_type() takes can be dropped at once.
 */
static struct file_system_type *lwnfs_test_type(struct kunit *test)
{
	struct file_system_type *type = get_fs_type("lwnfs");

	KUNIT_ASSERT_NOT_NULL(test, type);
	module_put(type->owner);
	return type;
}

/*
 * Mount a private instance with @opts, pairs of key and value ending in
 * NULL (or no options at all), unmounted when the test ends.
 */
static struct vfsmount *lwnfs_test_mount(struct kunit *test,
					 const char * const *opts)
{
	struct fs_context *fc;
	struct vfsmount *mnt;
	int ret;

	fc = fs_context_for_mount(lwnfs_test_type(test), SB_KERNMOUNT);
	KUNIT_ASSERT_FALSE(test, IS_ERR(fc));
	for (; opts && opts[0]; opts += 2) {
		ret = vfs_parse_fs_string(fc, opts[0], opts[1]);
		if (ret)
			put_fs_context(fc);
		KUNIT_ASSERT_EQ_MSG(test, 0, ret, "%s=%s", opts[0], opts[1]);
	}
	mnt = fc_mount(fc);
	put_fs_context(fc);
	KUNIT_ASSERT_FALSE(test, IS_ERR(mnt));
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, lwnfs_test_umount, mnt));
	return mnt;
}

static void lwnfs_test_fput(void *file)
{
	fput(file);
}

static struct file *lwnfs_test_open(struct kunit *test, struct vfsmount *mnt,
				    const char *name, int flags)
{
	struct file *file = file_open_root_mnt(mnt, name, flags, 0);

	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(file), "open %s: %d", name,
			       PTR_ERR_OR_ZERO(file));
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, lwnfs_test_fput, file));
	return file;
}

/* Read the value at offset 0 and parse it. */
static u64 lwnfs_test_take(struct kunit *test, struct file *file)
{
	char buf[32];
	loff_t pos = 0;
	ssize_t n;
	u64 val;

	n = kernel_read(file, buf, sizeof(buf) - 1, &pos);
	KUNIT_ASSERT_GT(test, n, 1);
	KUNIT_ASSERT_EQ(test, '\n', buf[n - 1]);
	buf[n - 1] = '\0';
	KUNIT_ASSERT_EQ(test, 0, kstrtoull(buf, 10, &val));
	return val;
}

static ssize_t lwnfs_test_put(struct file *file, const char *text)
{
	loff_t pos = 0;

	return kernel_write(file, text, strlen(text), &pos);
}

static void lwnfs_test_sequence(struct kunit *test)
{
	struct vfsmount *mnt = lwnfs_test_mount(test, NULL);
	struct file *f = lwnfs_test_open(test, mnt, "counter", O_RDWR);

	KUNIT_EXPECT_EQ(test, 0ULL, lwnfs_test_take(test, f));
	KUNIT_EXPECT_EQ(test, 1ULL, lwnfs_test_take(test, f));
	KUNIT_EXPECT_EQ(test, 2ULL, lwnfs_test_take(test, f));
}

static void lwnfs_test_set(struct kunit *test)
{
	struct vfsmount *mnt = lwnfs_test_mount(test, NULL);
	struct file *f = lwnfs_test_open(test, mnt, "counter", O_RDWR);

	KUNIT_EXPECT_EQ(test, 5, lwnfs_test_put(f, "1000\n"));
	KUNIT_EXPECT_EQ(test, 1000ULL, lwnfs_test_take(test, f));
	KUNIT_EXPECT_EQ(test, 1001ULL, lwnfs_test_take(test, f));
}

/* A rejected write leaves the value as it was. */
static void lwnfs_test_bad_write_keeps_value(struct kunit *test)
{
	struct vfsmount *mnt = lwnfs_test_mount(test, NULL);
	struct file *f = lwnfs_test_open(test, mnt, "counter", O_RDWR);
	loff_t pos = 1;

	KUNIT_ASSERT_EQ(test, 3, lwnfs_test_put(f, "42\n"));
	KUNIT_EXPECT_EQ(test, -EINVAL, lwnfs_test_put(f, "43x"));
	KUNIT_EXPECT_EQ(test, -ERANGE, lwnfs_test_put(f, "18446744073709551616"));
	KUNIT_EXPECT_EQ(test, -EINVAL, kernel_write(f, "7", 1, &pos));
	KUNIT_EXPECT_EQ(test, 42ULL, lwnfs_test_take(test, f));
}

static void lwnfs_test_wrap(struct kunit *test)
{
	struct vfsmount *mnt = lwnfs_test_mount(test, NULL);
	struct file *f = lwnfs_test_open(test, mnt, "counter", O_RDWR);

	KUNIT_ASSERT_EQ(test, 20, lwnfs_test_put(f, "18446744073709551615"));
	KUNIT_EXPECT_EQ(test, U64_MAX, lwnfs_test_take(test, f));
	KUNIT_EXPECT_EQ(test, 0ULL, lwnfs_test_take(test, f));
}

/* Reads past offset 0 serve the rest of the same text, then EOF. */
static void lwnfs_test_offsets(struct kunit *test)
{
	struct vfsmount *mnt = lwnfs_test_mount(test, NULL);
	struct file *f = lwnfs_test_open(test, mnt, "counter", O_RDWR);
	char buf[8];
	loff_t pos;

	pos = 3;
	KUNIT_EXPECT_EQ(test, 0, kernel_read(f, buf, sizeof(buf), &pos));
	KUNIT_ASSERT_EQ(test, 4, lwnfs_test_put(f, "123\n"));
	pos = 0;
	KUNIT_ASSERT_EQ(test, 2, kernel_read(f, buf, 2, &pos));
	KUNIT_EXPECT_EQ(test, 0, memcmp(buf, "12", 2));
	KUNIT_EXPECT_EQ(test, 2, pos);
	KUNIT_ASSERT_EQ(test, 2, kernel_read(f, buf, sizeof(buf), &pos));
	KUNIT_EXPECT_EQ(test, 0, memcmp(buf, "3\n", 2));
	KUNIT_EXPECT_EQ(test, 0, kernel_read(f, buf, sizeof(buf), &pos));
	pos = 100;
	KUNIT_EXPECT_EQ(test, 0, kernel_read(f, buf, sizeof(buf), &pos));
	/* only the read at 0 took a value */
	KUNIT_EXPECT_EQ(test, 124ULL, lwnfs_test_take(test, f));
}

static void lwnfs_test_subdir(struct kunit *test)
{
	struct vfsmount *mnt = lwnfs_test_mount(test, NULL);
	struct file *top = lwnfs_test_open(test, mnt, "counter", O_RDWR);
	struct file *sub = lwnfs_test_open(test, mnt, "subdir/subcounter", O_RDWR);

	KUNIT_ASSERT_EQ(test, 4, lwnfs_test_put(top, "500\n"));
	KUNIT_EXPECT_EQ(test, 0ULL, lwnfs_test_take(test, sub));
	KUNIT_EXPECT_EQ(test, 500ULL, lwnfs_test_take(test, top));
	KUNIT_EXPECT_EQ(test, 1ULL, lwnfs_test_take(test, sub));
}

static void lwnfs_test_layout_simple(struct kunit *test)
{
	static const char * const opts[] = { "layout", "simple", NULL };
	struct vfsmount *mnt = lwnfs_test_mount(test, opts);
	static const char * const names[] = {
		"counter0", "counter1", "counter2", "counter3",
	};
	struct path root = { .mnt = mnt, .dentry = mnt->mnt_root };
	struct file *f[ARRAY_SIZE(names)];
	struct file *none;
	struct kstatfs st;
	int i, j;

	for (i = 0; i < ARRAY_SIZE(names); i++)
		f[i] = lwnfs_test_open(test, mnt, names[i], O_RDWR);
	for (i = 0; i < ARRAY_SIZE(names); i++)
		for (j = 0; j <= i; j++)
			KUNIT_EXPECT_EQ(test, (u64)j, lwnfs_test_take(test, f[i]));
	none = file_open_root_mnt(mnt, "counter", O_RDONLY, 0);
	KUNIT_EXPECT_EQ(test, -ENOENT, PTR_ERR_OR_ZERO(none));
	if (!IS_ERR(none))
		fput(none);
	/* nothing can be created, so no count of entries, not a full one */
	KUNIT_ASSERT_EQ(test, 0, vfs_statfs(&root, &st));
	KUNIT_EXPECT_EQ(test, 0ULL, st.f_files);
	KUNIT_EXPECT_EQ(test, 0ULL, st.f_ffree);
}

static void lwnfs_test_instances(struct kunit *test)
{
	struct vfsmount *a = lwnfs_test_mount(test, NULL);
	struct vfsmount *b = lwnfs_test_mount(test, NULL);
	struct file *fa = lwnfs_test_open(test, a, "counter", O_RDWR);
	struct file *fb = lwnfs_test_open(test, b, "counter", O_RDWR);

	KUNIT_EXPECT_PTR_NE(test, a->mnt_sb, b->mnt_sb);
	KUNIT_ASSERT_EQ(test, 3, lwnfs_test_put(fa, "77\n"));
	KUNIT_EXPECT_EQ(test, 0ULL, lwnfs_test_take(test, fb));
	KUNIT_EXPECT_EQ(test, 77ULL, lwnfs_test_take(test, fa));
}

static void lwnfs_test_statfs(struct kunit *test)
{
	struct vfsmount *mnt = lwnfs_test_mount(test, NULL);
	struct path root = { .mnt = mnt, .dentry = mnt->mnt_root };
	struct kstatfs st;

	KUNIT_ASSERT_EQ(test, 0, vfs_statfs(&root, &st));
	KUNIT_EXPECT_EQ(test, (long)LWNFS_MAGIC, st.f_type);
	/* the default max_entries, less counter, subdir and subcounter */
	KUNIT_EXPECT_EQ(test, (u64)LWNFS_DEFAULT_MAX_ENTRIES, st.f_files);
	KUNIT_EXPECT_EQ(test, (u64)LWNFS_DEFAULT_MAX_ENTRIES - 3, st.f_ffree);
}

/* A file made with O_CREAT is a counter of its own, from 0. */
static void lwnfs_test_create(struct kunit *test)
{
	struct vfsmount *mnt = lwnfs_test_mount(test, NULL);
	struct file *f = lwnfs_test_open(test, mnt, "new", O_RDWR | O_CREAT | O_EXCL);
	struct file *c = lwnfs_test_open(test, mnt, "counter", O_RDWR);
	struct file *again;

	KUNIT_EXPECT_TRUE(test, S_ISREG(file_inode(f)->i_mode));
	KUNIT_EXPECT_EQ(test, 0ULL, lwnfs_test_take(test, f));
	KUNIT_EXPECT_EQ(test, 1ULL, lwnfs_test_take(test, f));
	KUNIT_ASSERT_EQ(test, 2, lwnfs_test_put(f, "9\n"));
	KUNIT_EXPECT_EQ(test, 9ULL, lwnfs_test_take(test, f));
	KUNIT_EXPECT_EQ(test, 0ULL, lwnfs_test_take(test, c));
	again = file_open_root_mnt(mnt, "new", O_RDWR | O_CREAT | O_EXCL, 0);
	KUNIT_EXPECT_EQ(test, -EEXIST, PTR_ERR_OR_ZERO(again));
	if (!IS_ERR(again))
		fput(again);
}

/* Creating beyond max_entries is ENOSPC, and statfs counts down to it. */
static void lwnfs_test_max_entries(struct kunit *test)
{
	static const char * const opts[] = { "max_entries", "4", NULL };
	struct vfsmount *mnt = lwnfs_test_mount(test, opts);
	struct path root = { .mnt = mnt, .dentry = mnt->mnt_root };
	struct kstatfs st;
	struct file *f;

	KUNIT_ASSERT_EQ(test, 0, vfs_statfs(&root, &st));
	KUNIT_EXPECT_EQ(test, 4ULL, st.f_files);
	KUNIT_EXPECT_EQ(test, 1ULL, st.f_ffree);
	lwnfs_test_open(test, mnt, "a", O_RDWR | O_CREAT | O_EXCL);
	KUNIT_ASSERT_EQ(test, 0, vfs_statfs(&root, &st));
	KUNIT_EXPECT_EQ(test, 0ULL, st.f_ffree);
	f = file_open_root_mnt(mnt, "b", O_RDWR | O_CREAT | O_EXCL, 0);
	KUNIT_EXPECT_EQ(test, -ENOSPC, PTR_ERR_OR_ZERO(f));
	if (!IS_ERR(f))
		fput(f);
	KUNIT_ASSERT_EQ(test, 0, vfs_statfs(&root, &st));
	KUNIT_EXPECT_EQ(test, 4ULL, st.f_files);
	KUNIT_EXPECT_EQ(test, 0ULL, st.f_ffree);
}

/* A mount whose layout does not fit in max_entries is refused. */
static void lwnfs_test_max_entries_too_few(struct kunit *test)
{
	struct fs_context *fc;
	struct vfsmount *mnt;

	fc = fs_context_for_mount(lwnfs_test_type(test), SB_KERNMOUNT);
	KUNIT_ASSERT_FALSE(test, IS_ERR(fc));
	KUNIT_EXPECT_EQ(test, 0, vfs_parse_fs_string(fc, "max_entries", "2"));
	mnt = fc_mount(fc);
	put_fs_context(fc);
	KUNIT_EXPECT_EQ(test, -EINVAL, PTR_ERR_OR_ZERO(mnt));
	if (!IS_ERR(mnt))
		mntput(mnt);
}

/* layout=simple is fixed: a create is EPERM. */
static void lwnfs_test_simple_no_create(struct kunit *test)
{
	static const char * const opts[] = { "layout", "simple", NULL };
	struct vfsmount *mnt = lwnfs_test_mount(test, opts);
	struct file *f;

	f = file_open_root_mnt(mnt, "new", O_RDWR | O_CREAT | O_EXCL, 0);
	KUNIT_EXPECT_EQ(test, -EPERM, PTR_ERR_OR_ZERO(f));
	if (!IS_ERR(f))
		fput(f);
}

/* Unknown keys and bad values are refused while the context is parsed. */
static void lwnfs_test_bad_options(struct kunit *test)
{
	static const char * const bad[][2] = {
		{ "layout", "fancy" }, { "layout", "" }, { "bogus", "1" },
	};
	struct fs_context *fc;
	int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		fc = fs_context_for_mount(lwnfs_test_type(test), SB_KERNMOUNT);
		KUNIT_ASSERT_FALSE(test, IS_ERR(fc));
		KUNIT_EXPECT_EQ_MSG(test, -EINVAL,
				    vfs_parse_fs_string(fc, bad[i][0], bad[i][1]),
				    "%s=%s", bad[i][0], bad[i][1]);
		put_fs_context(fc);
	}
}

/* ---- uid=, gid= and mode= ---- */

struct lwnfs_option_case {
	const char *key;
	const char *value;
	int err;
};

static const struct lwnfs_option_case lwnfs_option_cases[] = {
	{ "uid", "1000", 0 },
	{ "gid", "1001", 0 },
	{ "uid", "0x3e8", 0 },
	{ "gid", "01750", 0 },
	{ "uid", "+1000", 0 },
	{ "mode", "0700", 0 },
	{ "mode", "7777", 0 },
	{ "uid", "abc", -EINVAL },
	{ "uid", "-1", -EINVAL },
	{ "uid", "4294967295", -EINVAL },
	{ "gid", "4294967295", -EINVAL },
	{ "gid", "", -EINVAL },
	{ "mode", "10000", -EINVAL },
	{ "mode", "0800", -EINVAL },
	{ "mode", "rwx", -EINVAL },
	{ "max_entries", "0", 0 },
	{ "max_entries", "5", 0 },
	{ "max_entries", "+5", 0 },
	{ "max_entries", "-1", -EINVAL },
	{ "max_entries", "4294967296", -EINVAL },
	{ "max_entries", "010", 0 },
	{ "max_entries", "0x10", -EINVAL },
};

static void lwnfs_option_case_desc(const struct lwnfs_option_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s=%s", c->key, c->value);
}

KUNIT_ARRAY_PARAM(lwnfs_option, lwnfs_option_cases, lwnfs_option_case_desc);

/* Each option parses to its value, or is refused and changes nothing. */
static void lwnfs_test_option(struct kunit *test)
{
	const struct lwnfs_option_case *c = test->param_value;
	struct lwnfs_fs_context *ctx;
	struct lwnfs_mount_opts *opts;
	struct fs_context *fc;
	unsigned int n;

	fc = fs_context_for_mount(lwnfs_test_type(test), SB_KERNMOUNT);
	KUNIT_ASSERT_FALSE(test, IS_ERR(fc));
	ctx = fc->fs_private;
	opts = &ctx->opts;
	KUNIT_EXPECT_EQ(test, c->err, vfs_parse_fs_string(fc, c->key, c->value));
	/* mode= is octal, max_entries= decimal, uid= and gid= any base */
	if (c->err || kstrtouint(c->value, !strcmp(c->key, "mode") ? 8 :
				 !strcmp(c->key, "max_entries") ? 10 : 0, &n))
		n = ~0U;
	/* only an accepted option counts as named, for a remount */
	KUNIT_EXPECT_EQ(test, c->err ? 0U : 1U, hweight32(ctx->seen));

	KUNIT_EXPECT_EQ(test, !strcmp(c->key, "uid") && !c->err ? n : 0,
			__kuid_val(opts->uid));
	KUNIT_EXPECT_EQ(test, !strcmp(c->key, "gid") && !c->err ? n : 0,
			__kgid_val(opts->gid));
	KUNIT_EXPECT_EQ(test, !strcmp(c->key, "mode") && !c->err ? n : 0755,
			(unsigned int)opts->mode);
	KUNIT_EXPECT_EQ(test, !strcmp(c->key, "max_entries") && !c->err ?
			n : LWNFS_DEFAULT_MAX_ENTRIES, opts->max_entries);
	put_fs_context(fc);
}

/* uid= and gid= own the root and the layout's entries; mode= is the root's. */
static void lwnfs_test_owner(struct kunit *test)
{
	static const char * const opts[] = {
		"uid", "1000", "gid", "1001", "mode", "0750", NULL,
	};
	struct vfsmount *mnt = lwnfs_test_mount(test, opts);
	struct inode *root;
	struct file *f;

	root = d_inode(mnt->mnt_root);
	KUNIT_EXPECT_EQ(test, 1000U, __kuid_val(root->i_uid));
	KUNIT_EXPECT_EQ(test, 1001U, __kgid_val(root->i_gid));
	KUNIT_EXPECT_EQ(test, (unsigned int)(S_IFDIR | 0750),
			(unsigned int)root->i_mode);
	f = lwnfs_test_open(test, mnt, "subdir/subcounter", O_RDONLY);
	KUNIT_EXPECT_EQ(test, 1000U, __kuid_val(file_inode(f)->i_uid));
	KUNIT_EXPECT_EQ(test, 1001U, __kgid_val(file_inode(f)->i_gid));
	KUNIT_EXPECT_EQ(test, (unsigned int)(S_IFREG | 0644),
			(unsigned int)file_inode(f)->i_mode);
}

/*
 * Remove @dentry, a name in the root, through lwnfs's ->unlink, with the
 * locks unlink(2) holds around it, and drop the caller's reference to it,
 * so that the inode is evicted before this returns. vfs_unlink() is not
 * used: its arguments change between kernel versions.
 */
static int lwnfs_test_unlink(struct dentry *dentry)
{
	struct inode *dir = d_inode(dentry->d_parent);
	struct inode *inode = d_inode(dentry);
	int ret;

	/* as unlink(2): the inode is evicted after the directory's lock */
	ihold(inode);
	inode_lock_nested(dir, I_MUTEX_PARENT);
	inode_lock(inode);
	ret = dir->i_op->unlink(dir, dentry);
	inode_unlock(inode);
	if (!ret)
		d_delete(dentry);
	inode_unlock(dir);
	dput(dentry);
	iput(inode);
	return ret;
}

/* How many of the instance's layout slots hold @inode. */
static unsigned int lwnfs_test_in_layout(struct lwnfs_fs_info *fsi,
					 const struct inode *inode)
{
	unsigned int i, n = 0;

	spin_lock(&fsi->opts_lock);
	for (i = 0; i < fsi->nr_layout; i++)
		n += fsi->layout[i] == inode;
	spin_unlock(&fsi->opts_lock);
	return n;
}

/*
 * A layout entry that was removed leaves its slot when its inode is
 * evicted, so that a later remount's uid= and gid= never reach the freed
 * inode, and it gives its entry back.
 */
static void lwnfs_test_removed_layout_entry(struct kunit *test)
{
	struct vfsmount *mnt = lwnfs_test_mount(test, NULL);
	struct lwnfs_fs_info *fsi = lwnfs_sb(mnt->mnt_sb);
	struct path root = { .mnt = mnt, .dentry = mnt->mnt_root };
	struct kstatfs before, after;
	const struct inode *gone;
	struct dentry *dentry;

	KUNIT_ASSERT_EQ(test, 0, vfs_statfs(&root, &before));
	dentry = lookup_noperm_unlocked(&QSTR("counter"), mnt->mnt_root);
	KUNIT_ASSERT_FALSE(test, IS_ERR(dentry));
	gone = d_inode(dentry);
	if (!gone)
		dput(dentry);
	KUNIT_ASSERT_NOT_NULL(test, gone);
	KUNIT_EXPECT_EQ(test, 1U, lwnfs_test_in_layout(fsi, gone));
	KUNIT_ASSERT_EQ(test, 0, lwnfs_test_unlink(dentry));
	/* gone is only compared from here on, never dereferenced */
	KUNIT_EXPECT_EQ(test, 0U, lwnfs_test_in_layout(fsi, gone));
	KUNIT_EXPECT_EQ(test, 1U,
			lwnfs_test_in_layout(fsi, d_inode(mnt->mnt_root)));
	KUNIT_ASSERT_EQ(test, 0, vfs_statfs(&root, &after));
	KUNIT_EXPECT_EQ(test, before.f_ffree + 1, after.f_ffree);
}

#define LWNFS_TEST_THREADS	8
#define LWNFS_TEST_READS	2000

struct lwnfs_test_reader {
	struct file *file;
	u64 *vals;
	int errors;
	struct completion done;
};

static int lwnfs_test_reader_fn(void *data)
{
	struct lwnfs_test_reader *r = data;
	char buf[32];
	loff_t pos;
	ssize_t n;
	int i;

	for (i = 0; i < LWNFS_TEST_READS; i++) {
		pos = 0;
		n = kernel_read(r->file, buf, sizeof(buf) - 1, &pos);
		if (n < 2 || buf[n - 1] != '\n') {
			r->errors++;
			continue;
		}
		buf[n - 1] = '\0';
		if (kstrtoull(buf, 10, &r->vals[i]))
			r->errors++;
	}
	complete(&r->done);
	return 0;
}

static int lwnfs_test_cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/*
 * Kernel threads reading one open file at once get every value exactly
 * once. On one CPU, as on UML, the threads take turns and seldom meet
 * inside a read, so a read that took the value and incremented it in two
 * steps would seldom fail here: the kselftest's concurrent_readers, on
 * several CPUs, is the test of that.
 *
 * A thread that fails to start is an expectation failure, not an
 * assertion: the threads already running use r and the file, so they are
 * waited for before anything else is judged. r is not on the stack: with
 * lockdep, eight completions make the frame too large.
 */
static void lwnfs_test_kthreads(struct kunit *test)
{
	const int total = LWNFS_TEST_THREADS * LWNFS_TEST_READS;
	struct vfsmount *mnt = lwnfs_test_mount(test, NULL);
	struct task_struct *t[LWNFS_TEST_THREADS];
	struct lwnfs_test_reader *r;
	int i, started, dups = 0;
	struct file *f;
	u64 *vals;

	vals = kunit_kcalloc(test, total, sizeof(*vals), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, vals);
	r = kunit_kcalloc(test, LWNFS_TEST_THREADS, sizeof(*r), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r);
	f = lwnfs_test_open(test, mnt, "counter", O_RDONLY);
	for (i = 0; i < LWNFS_TEST_THREADS; i++) {
		r[i].file = f;
		r[i].vals = vals + i * LWNFS_TEST_READS;
		init_completion(&r[i].done);
	}
	for (started = 0; started < LWNFS_TEST_THREADS; started++) {
		t[started] = kthread_create(lwnfs_test_reader_fn, &r[started],
					    "lwnfs-test/%d", started);
		if (IS_ERR(t[started])) {
			KUNIT_FAIL(test, "kthread_create: %pe", t[started]);
			break;
		}
		/* held before the thread runs, so it cannot exit first */
		get_task_struct(t[started]);
		wake_up_process(t[started]);
	}
	/*
	 * Wait for the work, not just the thread: kthread_stop() on a thread
	 * that has not started yet would keep its function from ever running.
	 */
	for (i = 0; i < started; i++) {
		wait_for_completion(&r[i].done);
		kthread_stop(t[i]);
		put_task_struct(t[i]);
		KUNIT_EXPECT_EQ(test, 0, r[i].errors);
	}
	if (started < LWNFS_TEST_THREADS)
		return;

	sort(vals, total, sizeof(*vals), lwnfs_test_cmp_u64, NULL);
	for (i = 1; i < total; i++)
		if (vals[i] != vals[i - 1] + 1)
			dups++;
	KUNIT_EXPECT_EQ(test, 0, dups);
	KUNIT_EXPECT_EQ(test, 0ULL, vals[0]);
	KUNIT_EXPECT_EQ(test, (u64)total - 1, vals[total - 1]);
	f = lwnfs_test_open(test, mnt, "counter", O_RDONLY);
	KUNIT_EXPECT_EQ(test, (u64)total, lwnfs_test_take(test, f));
}

/*
 * A counter has no size: any size but 0 is refused, and truncating to 0,
 * which open(O_TRUNC) does, is allowed and keeps the value, since a
 * truncation is not a write.
 */
static void lwnfs_test_truncate(struct kunit *test)
{
	struct vfsmount *mnt = lwnfs_test_mount(test, NULL);
	struct file *f = lwnfs_test_open(test, mnt, "counter", O_RDWR);
	struct file *t;

	KUNIT_ASSERT_EQ(test, 3, lwnfs_test_put(f, "42\n"));
	KUNIT_EXPECT_EQ(test, -EINVAL, vfs_truncate(&f->f_path, 1 << 30));
	KUNIT_EXPECT_EQ(test, -EINVAL, vfs_truncate(&f->f_path, 1));
	KUNIT_EXPECT_EQ(test, 0, vfs_truncate(&f->f_path, 0));
	t = lwnfs_test_open(test, mnt, "counter", O_RDWR | O_TRUNC);
	KUNIT_EXPECT_EQ(test, 42ULL, lwnfs_test_take(test, t));
}

static struct kunit_case lwnfs_test_cases[] = {
	KUNIT_CASE_PARAM(lwnfs_test_parse, lwnfs_parse_gen_params),
	KUNIT_CASE(lwnfs_test_parse_length_limit),
	KUNIT_CASE_PARAM(lwnfs_test_format, lwnfs_format_gen_params),
	KUNIT_CASE(lwnfs_test_sequence),
	KUNIT_CASE(lwnfs_test_set),
	KUNIT_CASE(lwnfs_test_bad_write_keeps_value),
	KUNIT_CASE(lwnfs_test_wrap),
	KUNIT_CASE(lwnfs_test_offsets),
	KUNIT_CASE(lwnfs_test_subdir),
	KUNIT_CASE(lwnfs_test_layout_simple),
	KUNIT_CASE(lwnfs_test_instances),
	KUNIT_CASE(lwnfs_test_statfs),
	KUNIT_CASE(lwnfs_test_create),
	KUNIT_CASE(lwnfs_test_max_entries),
	KUNIT_CASE(lwnfs_test_max_entries_too_few),
	KUNIT_CASE(lwnfs_test_simple_no_create),
	KUNIT_CASE(lwnfs_test_bad_options),
	KUNIT_CASE_PARAM(lwnfs_test_option, lwnfs_option_gen_params),
	KUNIT_CASE(lwnfs_test_owner),
	KUNIT_CASE(lwnfs_test_removed_layout_entry),
	KUNIT_CASE(lwnfs_test_kthreads),
	KUNIT_CASE(lwnfs_test_truncate),
	{}
};

static struct kunit_suite lwnfs_test_suite = {
	.name = "lwnfs",
	.test_cases = lwnfs_test_cases,
};

kunit_test_suite(lwnfs_test_suite);

MODULE_DESCRIPTION("KUnit tests for the lwnfs counter filesystem");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING");
