// SPDX-License-Identifier: GPL-2.0-only
/*
 * The debugfs attribute that make bench compares lwnfs with: what a driver
 * author would write for a counter that a read takes and a write sets,
 * /sys/kernel/debug/lwnfs_bench/counter. Bench tooling only; it is not in
 * the series.
 */
#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/module.h>

static atomic64_t lwnfs_bench_value;
static struct dentry *lwnfs_bench_dir;

static int lwnfs_bench_get(void *data, u64 *val)
{
	*val = atomic64_fetch_inc(&lwnfs_bench_value);
	return 0;
}

static int lwnfs_bench_set(void *data, u64 val)
{
	atomic64_set(&lwnfs_bench_value, val);
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE(lwnfs_bench_fops, lwnfs_bench_get, lwnfs_bench_set, "%llu\n");

static int __init lwnfs_bench_init(void)
{
	lwnfs_bench_dir = debugfs_create_dir("lwnfs_bench", NULL);
	debugfs_create_file_unsafe("counter", 0600, lwnfs_bench_dir, NULL,
				   &lwnfs_bench_fops);
	return 0;
}

static void __exit lwnfs_bench_exit(void)
{
	debugfs_remove_recursive(lwnfs_bench_dir);
}

module_init(lwnfs_bench_init);
module_exit(lwnfs_bench_exit);
MODULE_DESCRIPTION("a debugfs counter attribute, for lwnfs's benchmarks");
MODULE_LICENSE("GPL");
