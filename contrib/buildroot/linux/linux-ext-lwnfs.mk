################################################################################
#
# lwnfs
#
################################################################################

# the kernel extension: patch the kernel with the series of its line

LINUX_EXTENSIONS += lwnfs

# A pre-patch hook of the kernel: it runs before BR2_LINUX_KERNEL_PATCH.
define LWNFS_PREPARE_KERNEL
	series=$$($(BR2_EXTERNAL_LWNFS_PATH)/lwnfs-line.sh $(LINUX_DIR) $(LWNFS_DIR)/patches) && \
		$(APPLY_PATCHES) $(LINUX_DIR) $$series \*.patch
endef
