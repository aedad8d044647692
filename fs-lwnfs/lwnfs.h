/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lwnfs: shared declarations of the counter filesystem.
 */
#ifndef _FS_LWNFS_LWNFS_H
#define _FS_LWNFS_LWNFS_H

#include <linux/atomic.h>
#include <linux/fs.h>
#include <linux/types.h>
#include <linux/uidgid.h>

/*
 * Inode numbers are fixed by the layouts, and each counter's value lives
 * at its inode number in the instance's lwnfs_fs_info. simple_fill_super()
 * numbers inodes by their index in the tree_descr array, and index 1 is the
 * root, so both layouts start their files at 2.
 */
enum {
	LWNFS_ROOT_INO = 1,
	LWNFS_FIRST_INO = 2,
	/* the highest inode number of any counter */
	LWNFS_MAX_INO = LWNFS_FIRST_INO + 3,
};

/* The layouts an instance can be mounted with. */
enum lwnfs_layout {
	LWNFS_LAYOUT_DEFAULT,
	LWNFS_LAYOUT_SIMPLE,
};

/* The root directory's mode unless mode= says otherwise. */
#define LWNFS_DEFAULT_MODE	0755

/**
 * struct lwnfs_mount_opts - mount options, kept by the instance
 * @layout: which files the instance has; fixed when it is made
 * @uid: owner of every inode of the instance
 * @gid: group of every inode of the instance
 * @mode: permission bits of the root directory
 */
struct lwnfs_mount_opts {
	enum lwnfs_layout layout;
	kuid_t uid;
	kgid_t gid;
	umode_t mode;
};

/**
 * struct lwnfs_fs_info - one mounted instance of lwnfs
 * @opts: the options the instance was mounted with
 * @counters: the counters' values, indexed by inode number
 */
struct lwnfs_fs_info {
	struct lwnfs_mount_opts opts;
	atomic64_t counters[LWNFS_MAX_INO + 1];
};

static inline struct lwnfs_fs_info *lwnfs_sb(const struct super_block *sb)
{
	return sb->s_fs_info;
}

/* Longest text a counter file accepts in one write. */
#define LWNFS_WRITE_MAX	128

extern const struct file_operations lwnfs_counter_fops;

int lwnfs_parse_value(const char *buf, size_t len, u64 *val);
int lwnfs_format_value(char *buf, size_t size, u64 val);

#endif /* _FS_LWNFS_LWNFS_H */
