/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lwnfs: shared declarations of the counter filesystem.
 */
#ifndef _FS_LWNFS_LWNFS_H
#define _FS_LWNFS_LWNFS_H

#include <linux/fs.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/uidgid.h>

/* The layouts an instance can be mounted with. */
enum lwnfs_layout {
	LWNFS_LAYOUT_DEFAULT,
	LWNFS_LAYOUT_SIMPLE,
};

/* The mount options, as bits of lwnfs_fs_context.seen. */
enum lwnfs_opt {
	LWNFS_OPT_LAYOUT,
	LWNFS_OPT_UID,
	LWNFS_OPT_GID,
	LWNFS_OPT_MODE,
	LWNFS_OPT_MAX_ENTRIES,
};

/* The root directory's mode unless mode= says otherwise. */
#define LWNFS_DEFAULT_MODE	0755

/* The most inodes a layout makes: the root and layout=simple's four files. */
#define LWNFS_LAYOUT_MAX	5

/*
 * How many files and directories an instance holds unless max_entries= says
 * otherwise: plenty for sequence numbers, little memory on a small board.
 */
#define LWNFS_DEFAULT_MAX_ENTRIES	1024

/**
 * struct lwnfs_mount_opts - mount options, kept by the instance
 * @layout: which files the instance has; fixed when it is made
 * @uid: owner given to the root and the layout's entries when the instance
 *	is made, and again whenever a remount names it
 * @gid: group, likewise
 * @mode: permission bits of the root directory, likewise
 * @max_entries: most files and directories the instance may hold, the root
 *	not counted; 0 for no limit
 */
struct lwnfs_mount_opts {
	enum lwnfs_layout layout;
	kuid_t uid;
	kgid_t gid;
	umode_t mode;
	unsigned int max_entries;
};

/**
 * struct lwnfs_fs_context - what a mount or remount asks for
 * @opts: the options, defaults where none was given
 * @seen: BIT(LWNFS_OPT_*) for each option the caller named; a remount
 *	changes only those
 */
struct lwnfs_fs_context {
	struct lwnfs_mount_opts opts;
	unsigned int seen;
};

/**
 * struct lwnfs_fs_info - one mounted instance of lwnfs
 * @opts_lock: taken to change @opts and to read it from show_options and
 *	statfs; a remount, the only writer, also holds the superblock's
 *	s_umount. It also guards @entries, so that a create and a remount
 *	check @entries against the same @opts.max_entries, and @layout, whose
 *	slots are cleared as the entries are evicted.
 * @opts: the options the instance was mounted with, as remounts changed them
 * @entries: files and directories the instance holds, the root not counted,
 *	from their creation until their inode is evicted
 * @layout: the root and the layout's own entries, which a remount's uid=
 *	and gid= reach; the entries users make are not among them, and a
 *	removed one's slot is NULL once its inode is evicted
 * @nr_layout: how many of @layout were set when the instance was made
 */
struct lwnfs_fs_info {
	spinlock_t opts_lock;	/* guards opts, entries and layout; see above */
	struct lwnfs_mount_opts opts;
	unsigned int entries;
	struct inode *layout[LWNFS_LAYOUT_MAX];
	unsigned int nr_layout;
};

static inline struct lwnfs_fs_info *lwnfs_sb(const struct super_block *sb)
{
	return sb->s_fs_info;
}

/* The longest text a counter file reads: U64_MAX in decimal and a newline. */
#define LWNFS_TEXT_MAX	21

/*
 * Most digits a counter file accepts in one write, not counting the one
 * newline that echo adds.
 */
#define LWNFS_WRITE_MAX	128

extern const struct file_operations lwnfs_counter_fops;

int lwnfs_counter_init(struct inode *inode);

int lwnfs_parse_value(const char *buf, size_t len, u64 *val);
int lwnfs_format_value(char text[LWNFS_TEXT_MAX], u64 val);

#endif /* _FS_LWNFS_LWNFS_H */
