// SPDX-License-Identifier: GPL-2.0-only
/*
 * lwnfs: a filesystem of counters, after LWN's "Creating Linux virtual
 * filesystems" (2003), on today's mount API.
 *
 * Every mount is a new instance with its own counters, all starting at 0.
 * The default layout starts with the article's files, and users can create
 * and remove counters and directories in it, up to max_entries of them.
 * Nothing backs an entry but the dcache, so each dentry is pinned for as
 * long as it has a name. layout=simple is the article's fixed directory.
 */

#include <linux/fs.h>
#include <linux/fs_context.h>
#include <linux/fs_parser.h>
#include <linux/fsnotify.h>
#include <linux/init.h>
#include <linux/magic.h>
#include <linux/module.h>
#include <linux/namei.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/statfs.h>

#include "lwnfs.h"

static const struct super_operations lwnfs_super_ops;
static const struct inode_operations lwnfs_dir_iops;

/*
 * Every inode, the root's too, is numbered by get_next_ino(), as ramfs
 * numbers its own. A fixed number for the root would not be safer: once
 * get_next_ino() wraps at 2^32 it can hand out any number again.
 */
static struct inode *lwnfs_new_inode(struct super_block *sb, umode_t mode)
{
	struct inode *inode = new_inode(sb);

	if (!inode)
		return NULL;
	inode->i_ino = get_next_ino();
	inode->i_mode = mode;
	inode->i_ctime = current_time(inode);
	inode->i_mtime = inode->i_ctime;
	inode->i_atime = inode->i_ctime;
	return inode;
}

static void lwnfs_init_dir(struct inode *inode)
{
	inode->i_op = &lwnfs_dir_iops;
	inode->i_fop = &simple_dir_operations;
	/* "." and the entry in the parent */
	set_nlink(inode, 2);
}

/*
 * Take one of the instance's max_entries for a new file or directory. It is
 * given back by lwnfs_release_entry() when the inode is freed after its
 * name was removed, so that a counter unlinked while open still counts: the
 * bound is on the memory the instance holds, not on its names.
 */
static int lwnfs_reserve_entry(struct super_block *sb)
{
	struct lwnfs_fs_info *fsi = lwnfs_sb(sb);
	int ret = -ENOSPC;

	spin_lock(&fsi->opts_lock);
	if (!fsi->opts.max_entries || fsi->entries < fsi->opts.max_entries) {
		fsi->entries++;
		ret = 0;
	}
	spin_unlock(&fsi->opts_lock);
	return ret;
}

/*
 * @inode is the entry's inode, or NULL when none could be made for it. A
 * layout entry leaves its slot, so that a remount no longer reaches it.
 */
static void lwnfs_release_entry(struct super_block *sb,
				const struct inode *inode)
{
	struct lwnfs_fs_info *fsi = lwnfs_sb(sb);
	unsigned int i;

	spin_lock(&fsi->opts_lock);
	fsi->entries--;
	for (i = 0; inode && i < fsi->nr_layout; i++)
		if (fsi->layout[i] == inode)
			fsi->layout[i] = NULL;
	spin_unlock(&fsi->opts_lock);
}

/**
 * lwnfs_new_entry() - make the inode of a new file or directory
 * @sb: the instance
 * @mode: its type and permissions; a regular file becomes a counter at 0
 *
 * The entry counts against max_entries until its inode is evicted with no
 * link left. The inode and the counter's value are charged to the memory
 * cgroup of the task that makes them.
 *
 * Return: the inode, or ERR_PTR(-ENOSPC) when the instance is full, or
 * ERR_PTR(-ENOMEM).
 */
static struct inode *lwnfs_new_entry(struct super_block *sb, umode_t mode)
{
	struct inode *inode;
	int ret;

	ret = lwnfs_reserve_entry(sb);
	if (ret)
		return ERR_PTR(ret);
	inode = lwnfs_new_inode(sb, mode);
	if (!inode) {
		lwnfs_release_entry(sb, NULL);
		return ERR_PTR(-ENOMEM);
	}
	if (S_ISDIR(mode)) {
		lwnfs_init_dir(inode);
	} else if (lwnfs_counter_init(inode)) {
		/* with no link, lwnfs_evict_inode() gives the entry back */
		clear_nlink(inode);
		iput(inode);
		return ERR_PTR(-ENOMEM);
	}
	return inode;
}

/*
 * Give @inode its name in @dir. Nothing on disk backs it, so the dentry is
 * pinned by a reference of its own: it stays in the dcache until the name
 * is removed, or until kill_litter_super() drops it with the instance.
 */
static void lwnfs_link_entry(struct inode *dir, struct dentry *dentry,
			     struct inode *inode)
{
	dir->i_ctime = current_time(dir);
	dir->i_mtime = dir->i_ctime;
	if (S_ISDIR(inode->i_mode))
		inc_nlink(dir);
	d_instantiate(dentry, inode);
	dget(dentry);
}

/*
 * A file or directory a user makes: owned by the caller's fsuid and fsgid
 * (or the directory's group if it is setgid), with the mode the VFS made
 * from the call and the umask. A remount does not change them.
 */
static int lwnfs_make(struct inode *dir, struct dentry *dentry, umode_t mode)
{
	struct inode *inode;

	inode = lwnfs_new_entry(dir->i_sb, mode);
	if (IS_ERR(inode))
		return PTR_ERR(inode);
	inode_init_owner(inode, dir, mode);
	lwnfs_link_entry(dir, dentry, inode);
	return 0;
}

static int lwnfs_create(struct inode *dir, struct dentry *dentry, umode_t mode,
			bool excl)
{
	return lwnfs_make(dir, dentry, S_IFREG | mode);
}

static int lwnfs_mkdir(struct inode *dir, struct dentry *dentry, umode_t mode)
{
	return lwnfs_make(dir, dentry, S_IFDIR | mode);
}

/*
 * The default layout's directories. Only counters and directories can be
 * made: with no ->mknod, ->symlink or ->link the VFS refuses devices,
 * fifos, sockets, symlinks and hard links with EPERM. libfs removes and
 * renames: simple_unlink() and simple_rmdir() drop the pin
 * lwnfs_link_entry() took, and so does simple_rename() for a target it
 * replaces; a rename keeps the inodes, and with them the counters' values.
 */
static const struct inode_operations lwnfs_dir_iops = {
	.lookup		= simple_lookup,
	.create		= lwnfs_create,
	.mkdir		= lwnfs_mkdir,
	.unlink		= simple_unlink,
	.rmdir		= simple_rmdir,
	.rename		= simple_rename,
};

/*
 * layout=simple keeps the article's four files. Without ->mkdir, ->unlink,
 * ->rmdir and ->rename the VFS refuses those with EPERM; without ->create
 * it would refuse a create with EACCES, which reads as a permission
 * problem, so ->create says EPERM itself.
 */
static int lwnfs_create_refused(struct inode *dir, struct dentry *dentry,
				umode_t mode, bool excl)
{
	return -EPERM;
}

static const struct inode_operations lwnfs_simple_dir_iops = {
	.lookup		= simple_lookup,
	.create		= lwnfs_create_refused,
};

/*
 * The root and the layout's entries are owned by uid= and gid=, and are
 * remembered as the layout's, so that a remount's uid= and gid= reach them
 * and nothing else. They are made before anything else can see the
 * instance, so no lock is taken.
 */
static void lwnfs_own(struct inode *inode)
{
	struct lwnfs_fs_info *fsi = lwnfs_sb(inode->i_sb);

	inode->i_uid = fsi->opts.uid;
	inode->i_gid = fsi->opts.gid;
	fsi->layout[fsi->nr_layout++] = inode;
}

/**
 * lwnfs_add() - add one of the layout's files or directories to the instance
 * @parent: the directory to add it to
 * @name: its name, not yet in @parent
 * @mode: its type and permissions
 *
 * It is made as simple_fill_super() makes its files, with d_alloc_name():
 * a lookup would check the mounter's permission to search a root that the
 * mounter need not own. Nothing else sees the instance yet, so no lock is
 * taken.
 *
 * Return: the new dentry, which stays pinned as long as it has a name (the
 * caller gets no reference of its own), or an ERR_PTR().
 */
static struct dentry *lwnfs_add(struct dentry *parent, const char *name,
				umode_t mode)
{
	struct dentry *dentry;
	struct inode *inode;

	dentry = d_alloc_name(parent, name);
	if (!dentry)
		return ERR_PTR(-ENOMEM);
	inode = lwnfs_new_entry(parent->d_sb, mode);
	if (IS_ERR(inode)) {
		dput(dentry);
		return ERR_CAST(inode);
	}
	lwnfs_own(inode);
	lwnfs_link_entry(d_inode(parent), dentry, inode);
	d_rehash(dentry);
	dput(dentry);
	return dentry;
}

/*
 * Give @inode the owner the options name, under the inode lock that
 * chown(2) takes, so that the two cannot interleave. It changes what
 * chown(2) by root would, so that a new owner gets no set-ID program: a
 * file loses S_ISUID, and S_ISGID when it is group-executable (without
 * group execute the bit is no set-ID program, and chown(2) keeps it); a
 * directory keeps both. ctime moves on, and watchers get an attribute
 * event.
 */
static void lwnfs_chown(struct inode *inode, const struct lwnfs_mount_opts *opts,
			unsigned int seen)
{
	unsigned int ia_valid = ATTR_CTIME;
	umode_t kill = S_ISUID;
	struct dentry *alias;

	inode_lock(inode);
	/* removed since its slot was read: unlink drops the link under this lock */
	if (!inode->i_nlink) {
		inode_unlock(inode);
		return;
	}
	if (seen & BIT(LWNFS_OPT_UID)) {
		inode->i_uid = opts->uid;
		ia_valid |= ATTR_UID;
	}
	if (seen & BIT(LWNFS_OPT_GID)) {
		inode->i_gid = opts->gid;
		ia_valid |= ATTR_GID;
	}
	/* S_ISGID is a set-ID program only with group execute (S_IXGRP) */
	if (inode->i_mode & S_IXGRP)
		kill |= S_ISGID;
	if (!S_ISDIR(inode->i_mode) && (inode->i_mode & kill)) {
		inode->i_mode &= ~kill;
		ia_valid |= ATTR_MODE;
	}
	inode->i_ctime = current_time(inode);
	/* under the lock, as notify_change() sends it, so events keep order */
	alias = d_find_alias(inode);
	if (alias) {
		fsnotify_change(alias, ia_valid);
		dput(alias);
	}
	inode_unlock(inode);
}

/*
 * Give the root and the layout's entries the owner named in @seen. An
 * entry a user made keeps its owner and mode: a remount that repeats the
 * mount's options, as mount(8) does, leaves the users' files alone. A
 * layout entry that was removed leaves its slot when its inode is evicted
 * (lwnfs_release_entry()), and igrab() fails on one being evicted, so the
 * slots are read under opts_lock. One removed but still open has no name
 * left, and lwnfs_chown() passes it by.
 */
static void lwnfs_chown_layout(struct super_block *sb,
			       const struct lwnfs_mount_opts *opts,
			       unsigned int seen)
{
	struct lwnfs_fs_info *fsi = lwnfs_sb(sb);
	struct inode *inode;
	unsigned int i;

	for (i = 0; i < fsi->nr_layout; i++) {
		spin_lock(&fsi->opts_lock);
		inode = fsi->layout[i] ? igrab(fsi->layout[i]) : NULL;
		spin_unlock(&fsi->opts_lock);
		if (!inode)
			continue;
		lwnfs_chown(inode, opts, seen);
		iput(inode);
	}
}

static void lwnfs_set_root_mode(struct super_block *sb, umode_t mode)
{
	struct inode *root = d_inode(sb->s_root);

	inode_lock(root);
	root->i_mode = S_IFDIR | mode;
	root->i_ctime = current_time(root);
	fsnotify_change(sb->s_root, ATTR_MODE | ATTR_CTIME);
	inode_unlock(root);
}

static int lwnfs_make_root(struct super_block *sb)
{
	struct inode *root;

	root = lwnfs_new_inode(sb, S_IFDIR | lwnfs_sb(sb)->opts.mode);
	if (!root)
		return -ENOMEM;
	lwnfs_own(root);
	lwnfs_init_dir(root);
	sb->s_root = d_make_root(root);
	return sb->s_root ? 0 : -ENOMEM;
}

/* counter, subdir/ and subdir/subcounter: the article's main example */
static int lwnfs_fill_default(struct super_block *sb)
{
	struct dentry *dentry;
	int ret;

	ret = lwnfs_make_root(sb);
	if (ret)
		return ret;
	dentry = lwnfs_add(sb->s_root, "counter", S_IFREG | 0644);
	if (IS_ERR(dentry))
		return PTR_ERR(dentry);
	dentry = lwnfs_add(sb->s_root, "subdir", S_IFDIR | 0755);
	if (IS_ERR(dentry))
		return PTR_ERR(dentry);
	dentry = lwnfs_add(dentry, "subcounter", S_IFREG | 0644);
	return PTR_ERR_OR_ZERO(dentry);
}

/*
 * The article built this layout with simple_fill_super() from a table of
 * file_operations. Its files are made here as the default layout's are, so
 * that each is a counter with its value from the start, and the instance
 * keeps its own super_operations.
 */
static const char *const lwnfs_simple_files[] = {
	"counter0", "counter1", "counter2", "counter3",
};

static_assert(ARRAY_SIZE(lwnfs_simple_files) + 1 <= LWNFS_LAYOUT_MAX);

static int lwnfs_fill_simple(struct super_block *sb)
{
	struct dentry *dentry;
	unsigned int i;
	int ret;

	ret = lwnfs_make_root(sb);
	if (ret)
		return ret;
	d_inode(sb->s_root)->i_op = &lwnfs_simple_dir_iops;
	for (i = 0; i < ARRAY_SIZE(lwnfs_simple_files); i++) {
		dentry = lwnfs_add(sb->s_root, lwnfs_simple_files[i],
				   S_IFREG | 0644);
		if (IS_ERR(dentry))
			return PTR_ERR(dentry);
	}
	return 0;
}

static int lwnfs_fill_super(struct super_block *sb, struct fs_context *fc)
{
	struct lwnfs_fs_context *ctx = fc->fs_private;
	struct lwnfs_fs_info *fsi;
	int ret;

	/* Freed by lwnfs_kill_sb(), which also runs if this fails. */
	fsi = kzalloc(sizeof(*fsi), GFP_KERNEL_ACCOUNT);
	if (!fsi)
		return -ENOMEM;
	spin_lock_init(&fsi->opts_lock);
	fsi->opts = ctx->opts;
	sb->s_fs_info = fsi;

	sb->s_magic = LWNFS_MAGIC;
	/* i_size stays 0, but a seek may go anywhere, as on ramfs */
	sb->s_maxbytes = MAX_LFS_FILESIZE;
	sb->s_op = &lwnfs_super_ops;
	sb->s_blocksize = PAGE_SIZE;
	sb->s_blocksize_bits = PAGE_SHIFT;
	sb->s_time_gran = 1;
	/*
	 * Reading a counter takes a value, and exec reads the file: an
	 * instance is noexec, so that exec fails before it reads anything.
	 */
	sb->s_iflags |= SB_I_NOEXEC;

	if (ctx->opts.layout == LWNFS_LAYOUT_SIMPLE)
		ret = lwnfs_fill_simple(sb);
	else
		ret = lwnfs_fill_default(sb);
	if (ret == -ENOSPC)
		return invalfc(fc, "max_entries=%u is fewer than the layout's entries",
			       ctx->opts.max_entries);
	return ret;
}

static void lwnfs_kill_sb(struct super_block *sb)
{
	struct lwnfs_fs_info *fsi = lwnfs_sb(sb);

	kill_litter_super(sb);
	kfree(fsi);
}

/*
 * An inode with no link left was removed, and frees its entry now that
 * nothing uses it any more; the others go with the instance.
 */
static void lwnfs_evict_inode(struct inode *inode)
{
	truncate_inode_pages_final(&inode->i_data);
	clear_inode(inode);
	if (!inode->i_nlink)
		lwnfs_release_entry(inode->i_sb, inode);
}

/* A counter's value goes with its inode; a directory has none. */
static void lwnfs_free_inode(struct inode *inode)
{
	kfree(inode->i_private);
	free_inode_nonrcu(inode);
}

static int lwnfs_show_options(struct seq_file *m, struct dentry *root)
{
	struct lwnfs_fs_info *fsi = lwnfs_sb(root->d_sb);
	struct lwnfs_mount_opts opts;

	/* one consistent set, even while a remount changes it */
	spin_lock(&fsi->opts_lock);
	opts = fsi->opts;
	spin_unlock(&fsi->opts_lock);

	if (opts.layout == LWNFS_LAYOUT_SIMPLE)
		seq_puts(m, ",layout=simple");
	if (!uid_eq(opts.uid, GLOBAL_ROOT_UID))
		seq_printf(m, ",uid=%u", from_kuid_munged(seq_user_ns(m), opts.uid));
	if (!gid_eq(opts.gid, GLOBAL_ROOT_GID))
		seq_printf(m, ",gid=%u", from_kgid_munged(seq_user_ns(m), opts.gid));
	if (opts.mode != LWNFS_DEFAULT_MODE)
		seq_printf(m, ",mode=%o", opts.mode);
	if (opts.max_entries != LWNFS_DEFAULT_MAX_ENTRIES)
		seq_printf(m, ",max_entries=%u", opts.max_entries);
	return 0;
}

/*
 * As tmpfs reports its inodes: f_files is max_entries and f_ffree what is
 * left of it, both 0 when there is no limit. Nothing can be created with
 * layout=simple, so it reports 0 for both too, rather than a full
 * filesystem.
 */
static int lwnfs_statfs(struct dentry *dentry, struct kstatfs *buf)
{
	struct lwnfs_fs_info *fsi = lwnfs_sb(dentry->d_sb);
	int ret;

	ret = simple_statfs(dentry, buf);
	if (ret)
		return ret;
	spin_lock(&fsi->opts_lock);
	if (fsi->opts.max_entries && fsi->opts.layout == LWNFS_LAYOUT_DEFAULT) {
		buf->f_files = fsi->opts.max_entries;
		buf->f_ffree = fsi->opts.max_entries - fsi->entries;
	}
	spin_unlock(&fsi->opts_lock);
	return 0;
}

static const struct super_operations lwnfs_super_ops = {
	.statfs		= lwnfs_statfs,
	.evict_inode	= lwnfs_evict_inode,
	.free_inode	= lwnfs_free_inode,
	.show_options	= lwnfs_show_options,
};

static const struct constant_table lwnfs_layouts[] = {
	{ "default",	LWNFS_LAYOUT_DEFAULT },
	{ "simple",	LWNFS_LAYOUT_SIMPLE },
	{}
};

static const struct fs_parameter_spec lwnfs_fs_parameters[] = {
	fsparam_enum("layout", LWNFS_OPT_LAYOUT, lwnfs_layouts),
	fsparam_u32("uid", LWNFS_OPT_UID),
	fsparam_u32("gid", LWNFS_OPT_GID),
	fsparam_u32oct("mode", LWNFS_OPT_MODE),
	/* in decimal only, not also octal and hex as fsparam_u32() takes */
	__fsparam(fs_param_is_u32, "max_entries", LWNFS_OPT_MAX_ENTRIES, 0,
		  (void *)10),
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
	struct lwnfs_fs_context *ctx = fc->fs_private;
	struct fs_parse_result result;
	int opt;

	opt = fs_parse(fc, lwnfs_fs_parameters, param, &result);
	if (opt < 0)
		return opt;

	switch (opt) {
	case LWNFS_OPT_LAYOUT:
		ctx->opts.layout = result.uint_32;
		break;
	case LWNFS_OPT_UID: {
		/* map the number in the caller's user namespace */
		kuid_t uid = make_kuid(current_user_ns(), result.uint_32);

		if (!uid_valid(uid))
			return invalfc(fc, "Invalid uid '%s'", param->string);
		ctx->opts.uid = uid;
		break;
	}
	case LWNFS_OPT_GID: {
		kgid_t gid = make_kgid(current_user_ns(), result.uint_32);

		if (!gid_valid(gid))
			return invalfc(fc, "Invalid gid '%s'", param->string);
		ctx->opts.gid = gid;
		break;
	}
	case LWNFS_OPT_MODE:
		if (result.uint_32 & ~S_IALLUGO)
			return invalfc(fc, "mode %o has bits beyond 07777",
				       result.uint_32);
		ctx->opts.mode = result.uint_32;
		break;
	case LWNFS_OPT_MAX_ENTRIES:
		ctx->opts.max_entries = result.uint_32;
		break;
	}
	ctx->seen |= BIT(opt);
	return 0;
}

static int lwnfs_get_tree(struct fs_context *fc)
{
	return get_tree_nodev(fc, lwnfs_fill_super);
}

/*
 * A remount applies every option it names, also one equal to the
 * instance's: "mount -o remount,mode=0755" makes the root 0755 again after
 * a chmod(2). A uid= or gid= goes to the root and the layout's entries,
 * as chown(2) would give it, a mode= to the root directory. A max_entries=
 * may not be below the entries the instance holds. The layout is fixed
 * when the instance is made, since its files exist; the counters keep
 * their values.
 *
 * The VFS holds s_umount for writing here, so remounts of one instance run
 * one at a time and fsi->opts can be read without opts_lock, which keeps
 * show_options from seeing half a change and orders a new max_entries
 * against the creates and frees that move fsi->entries.
 */
static int lwnfs_reconfigure(struct fs_context *fc)
{
	struct lwnfs_fs_context *ctx = fc->fs_private;
	struct super_block *sb = fc->root->d_sb;
	struct lwnfs_fs_info *fsi = lwnfs_sb(sb);
	const struct lwnfs_mount_opts *new = &ctx->opts;
	unsigned int seen = ctx->seen;

	if ((seen & BIT(LWNFS_OPT_LAYOUT)) && new->layout != fsi->opts.layout)
		return invalfc(fc, "layout cannot be changed on remount");

	spin_lock(&fsi->opts_lock);
	/* checked under the lock that creators take, so none can slip past */
	if ((seen & BIT(LWNFS_OPT_MAX_ENTRIES)) && new->max_entries &&
	    new->max_entries < fsi->entries) {
		unsigned int entries = fsi->entries;

		spin_unlock(&fsi->opts_lock);
		return invalfc(fc, "max_entries=%u is below the %u entries in use",
			       new->max_entries, entries);
	}
	if (seen & BIT(LWNFS_OPT_UID))
		fsi->opts.uid = new->uid;
	if (seen & BIT(LWNFS_OPT_GID))
		fsi->opts.gid = new->gid;
	if (seen & BIT(LWNFS_OPT_MODE))
		fsi->opts.mode = new->mode;
	if (seen & BIT(LWNFS_OPT_MAX_ENTRIES))
		fsi->opts.max_entries = new->max_entries;
	spin_unlock(&fsi->opts_lock);

	if (seen & (BIT(LWNFS_OPT_UID) | BIT(LWNFS_OPT_GID)))
		lwnfs_chown_layout(sb, new, seen);
	if (seen & BIT(LWNFS_OPT_MODE))
		lwnfs_set_root_mode(sb, new->mode);
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

/*
 * A mount and a remount start alike, from the defaults with no option seen:
 * a remount reads nothing of the instance here, where it holds no lock, and
 * .reconfigure applies only what it names.
 */
static int lwnfs_init_fs_context(struct fs_context *fc)
{
	struct lwnfs_fs_context *ctx;

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return -ENOMEM;
	ctx->opts.layout = LWNFS_LAYOUT_DEFAULT;
	ctx->opts.uid = GLOBAL_ROOT_UID;
	ctx->opts.gid = GLOBAL_ROOT_GID;
	ctx->opts.mode = LWNFS_DEFAULT_MODE;
	ctx->opts.max_entries = LWNFS_DEFAULT_MAX_ENTRIES;

	fc->fs_private = ctx;
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
	/*
	 * Inodes are freed by lwnfs_free_inode() from an RCU callback; let
	 * the last ones run before the module's code goes away.
	 */
	rcu_barrier();
}

module_init(lwnfs_init);
module_exit(lwnfs_exit);

MODULE_DESCRIPTION("Counter filesystem from LWN's libfs example");
MODULE_LICENSE("GPL");
