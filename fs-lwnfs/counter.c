// SPDX-License-Identifier: GPL-2.0-only
/*
 * lwnfs counter files: a read at offset 0 takes the next value of the
 * counter, a write sets it.
 *
 * The article this filesystem comes from read the counter and incremented
 * it in two steps, so two readers could see the same value. Here the read
 * is a single atomic fetch-and-increment, and the text it produced is kept
 * with the open file so that a reader taking it a byte at a time gets the
 * rest of the same value rather than a new one.
 */

#include <linux/ctype.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/uio.h>

#include "lwnfs.h"

/* Room for U64_MAX in decimal, a newline and a NUL. */
#define LWNFS_TEXT_MAX	22

/**
 * struct lwnfs_snapshot - the text an open counter file last produced
 * @lock: serialises readers of the same open file
 * @len: length of @text; 0 until a read at offset 0
 * @text: the value taken at offset 0, as text
 */
struct lwnfs_snapshot {
	spinlock_t lock;	/* guards len and text */
	size_t len;
	char text[LWNFS_TEXT_MAX];
};

static atomic64_t *lwnfs_counter(struct inode *inode)
{
	return &lwnfs_sb(inode->i_sb)->counters[inode->i_ino];
}

/**
 * lwnfs_format_value() - render a counter value as a counter file reads
 * @buf: where to write the text, NUL-terminated
 * @size: size of @buf
 * @val: the value
 *
 * Return: the length of the text, without the NUL.
 */
int lwnfs_format_value(char *buf, size_t size, u64 val)
{
	return scnprintf(buf, size, "%llu\n", val);
}

/**
 * lwnfs_parse_value() - parse what was written to a counter file
 * @buf: the bytes written; need not be NUL-terminated
 * @len: number of bytes in @buf
 * @val: where to store the value
 *
 * Only a decimal number is accepted, optionally followed by one newline:
 * no sign, no spaces, no base prefix. kstrtoull() alone would accept a
 * leading '+', so the digits are checked here first.
 *
 * Return: 0 on success, -EINVAL for anything that is not such a number,
 * -ERANGE for a number that does not fit in 64 bits.
 */
int lwnfs_parse_value(const char *buf, size_t len, u64 *val)
{
	char digits[LWNFS_WRITE_MAX + 1];
	size_t i;

	if (len && buf[len - 1] == '\n')
		len--;
	if (!len || len > LWNFS_WRITE_MAX)
		return -EINVAL;
	for (i = 0; i < len; i++)
		if (!isdigit(buf[i]))
			return -EINVAL;

	memcpy(digits, buf, len);
	digits[len] = '\0';
	return kstrtoull(digits, 10, val);
}

static int lwnfs_counter_open(struct inode *inode, struct file *file)
{
	struct lwnfs_snapshot *snap;

	snap = kzalloc_obj(*snap);
	if (!snap)
		return -ENOMEM;
	spin_lock_init(&snap->lock);
	file->private_data = snap;
	return 0;
}

static int lwnfs_counter_release(struct inode *inode, struct file *file)
{
	kfree(file->private_data);
	return 0;
}

/*
 * Only a read at offset 0 takes a value: later offsets serve the rest of the
 * text that read produced, so cat and dd bs=1 both consume one value. An
 * empty read takes nothing.
 */
static ssize_t lwnfs_counter_read_iter(struct kiocb *iocb, struct iov_iter *to)
{
	struct lwnfs_snapshot *snap = iocb->ki_filp->private_data;
	char text[LWNFS_TEXT_MAX];
	loff_t pos = iocb->ki_pos;
	size_t len, n;
	u64 val;

	if (!iov_iter_count(to))
		return 0;

	if (pos == 0) {
		val = atomic64_fetch_inc(lwnfs_counter(file_inode(iocb->ki_filp)));
		len = lwnfs_format_value(text, sizeof(text), val);
		spin_lock(&snap->lock);
		memcpy(snap->text, text, len);
		snap->len = len;
		spin_unlock(&snap->lock);
	} else {
		spin_lock(&snap->lock);
		len = snap->len;
		memcpy(text, snap->text, len);
		spin_unlock(&snap->lock);
	}

	if (pos >= len)
		return 0;
	n = copy_to_iter(text + pos, len - pos, to);
	if (!n)
		return -EFAULT;
	iocb->ki_pos += n;
	return n;
}

/*
 * The whole number comes in one write at offset 0. The size is checked
 * before anything is copied, so a huge write costs no allocation, and the
 * counter is only set once the text has parsed.
 */
static ssize_t lwnfs_counter_write_iter(struct kiocb *iocb,
					struct iov_iter *from)
{
	size_t count = iov_iter_count(from);
	char buf[LWNFS_WRITE_MAX + 1];
	u64 val;
	int ret;

	if (iocb->ki_pos != 0 || count > sizeof(buf))
		return -EINVAL;
	if (copy_from_iter(buf, count, from) != count)
		return -EFAULT;

	ret = lwnfs_parse_value(buf, count, &val);
	if (ret)
		return ret;

	atomic64_set(lwnfs_counter(file_inode(iocb->ki_filp)), val);
	iocb->ki_pos += count;
	return count;
}

const struct file_operations lwnfs_counter_fops = {
	.owner		= THIS_MODULE,
	.open		= lwnfs_counter_open,
	.release	= lwnfs_counter_release,
	.read_iter	= lwnfs_counter_read_iter,
	.write_iter	= lwnfs_counter_write_iter,
	.llseek		= default_llseek,
};
