// SPDX-License-Identifier: GPL-2.0-only
/*
 * lwnfs: a filesystem of counters, after LWN's "Creating Linux virtual
 * filesystems" (2003), on today's mount API.
 *
 * Every mount is a new instance with its own counters, all starting at 0.
 * The files are made once, when the instance is set up, and their dentries
 * are pinned so that they live as long as the superblock.
 */

#include <linux/fs.h>
#include <linux/fs_context.h>
#include <linux/fs_parser.h>
#include <linux/init.h>
#include <linux/magic.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "lwnfs.h"

enum {
	LWNFS_COUNTER_INO = LWNFS_FIRST_INO,
	LWNFS_SUBDIR_INO,
	LWNFS_SUBCOUNTER_INO,
};

static const struct super_operations lwnfs_super_ops;

static struct inode *lwnfs_new_inode(struct super_block *sb, umode_t mode,
				     unsigned long ino)
{
	struct inode *inode = new_inode(sb);

	if (!inode)
		return NULL;
	inode->i_ino = ino;
	inode->i_mode = mode;
	simple_inode_init_ts(inode);
	return inode;
}

static void lwnfs_init_dir(struct inode *inode)
{
	inode->i_op = &simple_dir_inode_operations;
	inode->i_fop = &simple_dir_operations;
	/* "." and the entry in the parent */
	set_nlink(inode, 2);
}

/*
 * Instantiate @dentry with @inode and pin it: nothing on disk backs it, so it
 * must stay in the dcache until the superblock goes away.
 */
static void lwnfs_pin(struct dentry *dentry, struct inode *inode)
{
	d_make_persistent(dentry, inode);
	dput(dentry);
}

/**
 * lwnfs_add() - add a counter file or a directory to the instance
 * @parent: the directory to add it to
 * @name: its name
 * @mode: its type and permissions
 * @ino: its inode number, which for a counter says where its value lives
 *
 * Return: the new dentry, which stays pinned until the instance goes away
 * (the caller gets no reference of its own), or ERR_PTR(-ENOMEM).
 */
static struct dentry *lwnfs_add(struct dentry *parent, const char *name,
				umode_t mode, unsigned long ino)
{
	struct dentry *dentry;
	struct inode *inode;

	dentry = d_alloc_name(parent, name);
	if (!dentry)
		return ERR_PTR(-ENOMEM);
	inode = lwnfs_new_inode(parent->d_sb, mode, ino);
	if (!inode) {
		dput(dentry);
		return ERR_PTR(-ENOMEM);
	}
	if (S_ISDIR(mode)) {
		lwnfs_init_dir(inode);
		inc_nlink(d_inode(parent));
	} else {
		inode->i_fop = &lwnfs_counter_fops;
	}
	lwnfs_pin(dentry, inode);
	return dentry;
}

/* counter, subdir/ and subdir/subcounter: the article's main example */
static int lwnfs_fill_default(struct super_block *sb)
{
	struct dentry *dentry;
	struct inode *root;

	/* lwnfs_apply_opts() sets the mode mount options ask for */
	root = lwnfs_new_inode(sb, S_IFDIR | LWNFS_DEFAULT_MODE, LWNFS_ROOT_INO);
	if (!root)
		return -ENOMEM;
	lwnfs_init_dir(root);
	sb->s_root = d_make_root(root);
	if (!sb->s_root)
		return -ENOMEM;

	dentry = lwnfs_add(sb->s_root, "counter", S_IFREG | 0644,
			   LWNFS_COUNTER_INO);
	if (IS_ERR(dentry))
		return PTR_ERR(dentry);
	dentry = lwnfs_add(sb->s_root, "subdir", S_IFDIR | 0755,
			   LWNFS_SUBDIR_INO);
	if (IS_ERR(dentry))
		return PTR_ERR(dentry);
	dentry = lwnfs_add(dentry, "subcounter", S_IFREG | 0644,
			   LWNFS_SUBCOUNTER_INO);
	return PTR_ERR_OR_ZERO(dentry);
}

/*
 * The article's "simpler way": simple_fill_super() builds a flat directory
 * from a table. It numbers each file's inode by its index in the table and
 * the root is inode 1, so the table starts at LWNFS_FIRST_INO.
 */
static const struct tree_descr lwnfs_simple_files[] = {
	[LWNFS_FIRST_INO]	= { "counter0", &lwnfs_counter_fops, 0644 },
	[LWNFS_FIRST_INO + 1]	= { "counter1", &lwnfs_counter_fops, 0644 },
	[LWNFS_FIRST_INO + 2]	= { "counter2", &lwnfs_counter_fops, 0644 },
	[LWNFS_FIRST_INO + 3]	= { "counter3", &lwnfs_counter_fops, 0644 },
	{ "" }
};

/* Every file's inode number must index lwnfs_fs_info.counters. */
static_assert(ARRAY_SIZE(lwnfs_simple_files) == LWNFS_MAX_INO + 2);

static int lwnfs_fill_simple(struct super_block *sb)
{
	int ret;

	ret = simple_fill_super(sb, LWNFS_MAGIC, lwnfs_simple_files);
	/* simple_fill_super() installed the libfs operations; use ours. */
	sb->s_op = &lwnfs_super_ops;
	return ret;
}

/*
 * Give every inode of the instance the owner named by the options, and the
 * root directory its mode. It runs when an instance is filled and again on
 * remount, so both layouts, and files that exist already, are treated alike.
 */
static void lwnfs_apply_opts(struct super_block *sb)
{
	const struct lwnfs_mount_opts *opts = &lwnfs_sb(sb)->opts;
	struct inode *inode;

	spin_lock(&sb->s_inode_list_lock);
	list_for_each_entry(inode, &sb->s_inodes, i_sb_list) {
		inode->i_uid = opts->uid;
		inode->i_gid = opts->gid;
	}
	spin_unlock(&sb->s_inode_list_lock);

	inode = d_inode(sb->s_root);
	inode->i_mode = S_IFDIR | opts->mode;
}

static int lwnfs_fill_super(struct super_block *sb, struct fs_context *fc)
{
	struct lwnfs_mount_opts *opts = fc->fs_private;
	struct lwnfs_fs_info *fsi;
	int ret;

	/* Freed by lwnfs_kill_sb(), which also runs if this fails. */
	fsi = kzalloc_obj(*fsi);
	if (!fsi)
		return -ENOMEM;
	fsi->opts = *opts;
	sb->s_fs_info = fsi;

	sb->s_magic = LWNFS_MAGIC;
	sb->s_op = &lwnfs_super_ops;
	sb->s_blocksize = PAGE_SIZE;
	sb->s_blocksize_bits = PAGE_SHIFT;
	sb->s_time_gran = 1;

	if (opts->layout == LWNFS_LAYOUT_SIMPLE)
		ret = lwnfs_fill_simple(sb);
	else
		ret = lwnfs_fill_default(sb);
	if (ret)
		return ret;

	lwnfs_apply_opts(sb);
	return 0;
}

/*
 * The dentries were pinned when they were made; killing the superblock
 * drops them along with the instance's counters.
 */
static void lwnfs_kill_sb(struct super_block *sb)
{
	struct lwnfs_fs_info *fsi = lwnfs_sb(sb);

	kill_anon_super(sb);
	kfree(fsi);
}

static int lwnfs_show_options(struct seq_file *m, struct dentry *root)
{
	const struct lwnfs_mount_opts *opts = &lwnfs_sb(root->d_sb)->opts;

	if (opts->layout == LWNFS_LAYOUT_SIMPLE)
		seq_puts(m, ",layout=simple");
	if (!uid_eq(opts->uid, GLOBAL_ROOT_UID))
		seq_printf(m, ",uid=%u", from_kuid_munged(seq_user_ns(m), opts->uid));
	if (!gid_eq(opts->gid, GLOBAL_ROOT_GID))
		seq_printf(m, ",gid=%u", from_kgid_munged(seq_user_ns(m), opts->gid));
	if (opts->mode != LWNFS_DEFAULT_MODE)
		seq_printf(m, ",mode=%o", opts->mode);
	return 0;
}

static const struct super_operations lwnfs_super_ops = {
	.statfs		= simple_statfs,
	.show_options	= lwnfs_show_options,
};

enum {
	LWNFS_OPT_LAYOUT,
	LWNFS_OPT_UID,
	LWNFS_OPT_GID,
	LWNFS_OPT_MODE,
};

static const struct constant_table lwnfs_layouts[] = {
	{ "default",	LWNFS_LAYOUT_DEFAULT },
	{ "simple",	LWNFS_LAYOUT_SIMPLE },
	{}
};

static const struct fs_parameter_spec lwnfs_fs_parameters[] = {
	fsparam_enum("layout", LWNFS_OPT_LAYOUT, lwnfs_layouts),
	fsparam_uid("uid", LWNFS_OPT_UID),
	fsparam_gid("gid", LWNFS_OPT_GID),
	fsparam_u32oct("mode", LWNFS_OPT_MODE),
	{}
};

/*
 * Unknown keys come back from fs_parse() as -ENOPARAM, which the VFS turns
 * into -EINVAL with an "Unknown parameter" message; bad values, including a
 * uid or gid with no mapping in the caller's user namespace, come back as
 * -EINVAL with their own message.
 */
static int lwnfs_parse_param(struct fs_context *fc, struct fs_parameter *param)
{
	struct lwnfs_mount_opts *opts = fc->fs_private;
	struct fs_parse_result result;
	int opt;

	opt = fs_parse(fc, lwnfs_fs_parameters, param, &result);
	if (opt < 0)
		return opt;

	switch (opt) {
	case LWNFS_OPT_LAYOUT:
		opts->layout = result.uint_32;
		break;
	case LWNFS_OPT_UID:
		opts->uid = result.uid;
		break;
	case LWNFS_OPT_GID:
		opts->gid = result.gid;
		break;
	case LWNFS_OPT_MODE:
		if (result.uint_32 & ~S_IALLUGO)
			return invalfc(fc, "mode %o has bits beyond 07777",
				       result.uint_32);
		opts->mode = result.uint_32;
		break;
	}
	return 0;
}

static int lwnfs_get_tree(struct fs_context *fc)
{
	return get_tree_nodev(fc, lwnfs_fill_super);
}

/*
 * A remount applies the new owner and mode to the live instance. The layout
 * is fixed when the instance is made, since its files exist; the counters
 * keep their values.
 */
static int lwnfs_reconfigure(struct fs_context *fc)
{
	struct super_block *sb = fc->root->d_sb;
	struct lwnfs_fs_info *fsi = lwnfs_sb(sb);
	struct lwnfs_mount_opts *opts = fc->fs_private;

	if (opts->layout != fsi->opts.layout)
		return invalfc(fc, "layout cannot be changed on remount");

	fsi->opts = *opts;
	lwnfs_apply_opts(sb);
	return 0;
}

static void lwnfs_free_fc(struct fs_context *fc)
{
	kfree(fc->fs_private);
}

static const struct fs_context_operations lwnfs_context_ops = {
	.parse_param	= lwnfs_parse_param,
	.get_tree	= lwnfs_get_tree,
	.reconfigure	= lwnfs_reconfigure,
	.free		= lwnfs_free_fc,
};

static int lwnfs_init_fs_context(struct fs_context *fc)
{
	struct lwnfs_mount_opts *opts;

	opts = kzalloc_obj(*opts);
	if (!opts)
		return -ENOMEM;

	/*
	 * A remount starts from the instance's current options, so that it
	 * changes only the options it names.
	 */
	if (fc->purpose == FS_CONTEXT_FOR_RECONFIGURE) {
		*opts = lwnfs_sb(fc->root->d_sb)->opts;
	} else {
		opts->layout = LWNFS_LAYOUT_DEFAULT;
		opts->uid = GLOBAL_ROOT_UID;
		opts->gid = GLOBAL_ROOT_GID;
		opts->mode = LWNFS_DEFAULT_MODE;
	}

	fc->fs_private = opts;
	fc->ops = &lwnfs_context_ops;
	return 0;
}

static struct file_system_type lwnfs_fs_type = {
	.owner			= THIS_MODULE,
	.name			= "lwnfs",
	.init_fs_context	= lwnfs_init_fs_context,
	.parameters		= lwnfs_fs_parameters,
	.kill_sb		= lwnfs_kill_sb,
};
MODULE_ALIAS_FS("lwnfs");

static int __init lwnfs_init(void)
{
	return register_filesystem(&lwnfs_fs_type);
}

static void __exit lwnfs_exit(void)
{
	unregister_filesystem(&lwnfs_fs_type);
}

module_init(lwnfs_init);
module_exit(lwnfs_exit);

MODULE_DESCRIPTION("Counter filesystem from LWN's libfs example");
MODULE_LICENSE("GPL");

#if IS_ENABLED(CONFIG_LWNFS_KUNIT_TEST)
#include "lwnfs_kunit.c"
#endif
