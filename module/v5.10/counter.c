// SPDX-License-Identifier: GPL-2.0-only
/*
 * lwnfs counter files: a read at offset 0 takes the next value of the
 * counter, a write sets it.
 *
 * The value a read takes is kept with the open file, so that the rest of
 * its text can be read at later offsets.
 */

#include <linux/atomic.h>
#include <linux/ctype.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/slab.h>
#include <linux/splice.h>
#include <linux/string.h>
#include <linux/uio.h>

#include "lwnfs.h"

/* No <kunit/visibility.h> here, so lwnfs defines the one macro it uses. */
#if IS_ENABLED(CONFIG_KUNIT)
#define EXPORT_SYMBOL_IF_KUNIT(symbol) EXPORT_SYMBOL_NS(symbol, EXPORTED_FOR_KUNIT_TESTING)
#else
#define EXPORT_SYMBOL_IF_KUNIT(symbol)
#endif

/**
 * struct lwnfs_snapshot - the value an open counter file last took
 * @value: the value the last read at offset 0 took
 * @taken: whether a read at offset 0 has taken one; set after @value
 *
 * The value, not its text, is kept: one atomic access writes or reads it,
 * so the readers of one open file need no lock. A read at offset 0
 * replaces it for all of them.
 */
struct lwnfs_snapshot {
	atomic64_t value;
	bool taken;
};

/* Each counter's value lives with its inode, from lwnfs_counter_init(). */
static atomic64_t *lwnfs_counter(struct inode *inode)
{
	return inode->i_private;
}

/**
 * lwnfs_format_value() - render a counter value as a counter file reads
 * @text: the LWNFS_TEXT_MAX bytes to render it into
 * @val: the value
 *
 * The text is the value in decimal and a newline, with no NUL, and ends
 * at the end of @text: do_div() gives the digits from the last one on.
 *
 * Return: the length of the text, which starts at
 * @text + LWNFS_TEXT_MAX - length.
 */
int lwnfs_format_value(char text[LWNFS_TEXT_MAX], u64 val)
{
	char *p = text + LWNFS_TEXT_MAX;

	*--p = '\n';
	do {
		*--p = '0' + do_div(val, 10);
	} while (val);
	return text + LWNFS_TEXT_MAX - p;
}
EXPORT_SYMBOL_IF_KUNIT(lwnfs_format_value);

/**
 * lwnfs_parse_value() - parse what was written to a counter file
 * @buf: the bytes written; need not be NUL-terminated
 * @len: number of bytes in @buf
 * @val: where to store the value
 *
 * Only a decimal number of at most LWNFS_WRITE_MAX digits is accepted,
 * optionally followed by one newline: no sign, no spaces, no base prefix.
 * kstrtoull() alone would accept a leading '+', so the digits are checked
 * here first.
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
EXPORT_SYMBOL_IF_KUNIT(lwnfs_parse_value);

/*
 * Only a reader needs a snapshot. Anyone may open a counter, so it is
 * charged to the opener's memory cgroup.
 */
static int lwnfs_counter_open(struct inode *inode, struct file *file)
{
	struct lwnfs_snapshot *snap;

	if (!(file->f_mode & FMODE_READ))
		return 0;
	snap = kzalloc(sizeof(*snap), GFP_KERNEL_ACCOUNT);
	if (!snap)
		return -ENOMEM;
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
 * text of the value it took, so cat and dd bs=1 both consume one value. An
 * empty read takes nothing. splice(2) and sendfile(2) come here too, through
 * generic_file_splice_read(), with the same rules.
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
		atomic64_set(&snap->value, val);
		/* pairs with the acquire below: @value is set before @taken */
		smp_store_release(&snap->taken, true);
	} else {
		/* pairs with the release above; no value taken: nothing to read */
		if (!smp_load_acquire(&snap->taken))
			return 0;
		val = atomic64_read(&snap->value);
	}

	len = lwnfs_format_value(text, val);
	if (pos >= len)
		return 0;
	n = copy_to_iter(text + LWNFS_TEXT_MAX - len + pos, len - pos, to);
	if (!n)
		return -EFAULT;
	iocb->ki_pos += n;
	return n;
}

/*
 * The whole number comes in one write at offset 0; an empty write changes
 * nothing, as on any regular file. The size is checked before anything is
 * copied, so a huge write costs no allocation, and the counter is only set
 * once the text has parsed. Setting it is a modification like any other:
 * under the inode lock, as setattr and chown(2) hold it, it drops setuid
 * and setgid bits and updates mtime and ctime.
 */
static ssize_t lwnfs_counter_write_iter(struct kiocb *iocb,
					struct iov_iter *from)
{
	struct file *file = iocb->ki_filp;
	struct inode *inode = file_inode(file);
	size_t count = iov_iter_count(from);
	char buf[LWNFS_WRITE_MAX + 1];
	u64 val;
	int ret;

	if (!count)
		return 0;
	/* O_APPEND writes at the end, and a counter's size is 0 */
	if (iocb->ki_flags & IOCB_APPEND)
		iocb->ki_pos = 0;
	if (iocb->ki_pos != 0 || count > sizeof(buf))
		return -EINVAL;
	if (copy_from_iter(buf, count, from) != count)
		return -EFAULT;

	ret = lwnfs_parse_value(buf, count, &val);
	if (ret)
		return ret;

	inode_lock(inode);
	ret = file_remove_privs(file);
	if (!ret)
		ret = file_update_time(file);
	if (!ret)
		atomic64_set(lwnfs_counter(inode), val);
	inode_unlock(inode);
	if (ret)
		return ret;

	iocb->ki_pos += count;
	return count;
}

/*
 * fsync(2) has nothing to write back, and succeeds, as on ramfs. A seek
 * needs no inode lock, as i_size stays 0: generic_file_llseek(), not
 * default_llseek().
 */
const struct file_operations lwnfs_counter_fops = {
	.owner		= THIS_MODULE,
	.open		= lwnfs_counter_open,
	.release	= lwnfs_counter_release,
	.read_iter	= lwnfs_counter_read_iter,
	.write_iter	= lwnfs_counter_write_iter,
	.llseek		= generic_file_llseek,
	.fsync		= noop_fsync,
	.splice_read	= generic_file_splice_read,
};

/*
 * A counter's text is made when it is read; the file has no size of its
 * own, and i_size stays 0 so that stat(2) and SEEK_END say so. Truncating
 * to 0 is allowed, because open(O_TRUNC), which "echo 5 > counter" does,
 * is such a truncation; any other size is refused. Owner, mode and times
 * change as on any file.
 */
static int lwnfs_counter_setattr(struct dentry *dentry, struct iattr *attr)
{
	if ((attr->ia_valid & ATTR_SIZE) && attr->ia_size)
		return -EINVAL;
	return simple_setattr(dentry, attr);
}

static const struct inode_operations lwnfs_counter_iops = {
	.setattr	= lwnfs_counter_setattr,
};

/**
 * lwnfs_counter_init() - make a regular-file inode a counter starting at 0
 * @inode: a new regular-file inode that nothing has opened yet
 *
 * The value is freed with the inode, by lwnfs_free_inode(). It is charged
 * to the memory cgroup of the task that makes the file: the mounter for
 * the built-in files, the creator for the others.
 *
 * Return: 0, or -ENOMEM.
 */
int lwnfs_counter_init(struct inode *inode)
{
	atomic64_t *value;

	value = kmalloc(sizeof(*value), GFP_KERNEL_ACCOUNT);
	if (!value)
		return -ENOMEM;
	atomic64_set(value, 0);
	inode->i_private = value;
	inode->i_op = &lwnfs_counter_iops;
	inode->i_fop = &lwnfs_counter_fops;
	return 0;
}
