################################################################################
#
# lwnfs
#
################################################################################

# the kernel extension: patch the kernel with the series that serves its
# version

LINUX_EXTENSIONS += lwnfs

# A pre-patch hook of the kernel: it runs before BR2_LINUX_KERNEL_PATCH.
define LWNFS_PREPARE_KERNEL
	series=$$($(BR2_EXTERNAL_LWNFS_PATH)/lwnfs-line.sh $(LINUX_DIR) $(LWNFS_DIR)/patches) && \
		$(APPLY_PATCHES) $(LINUX_DIR) $$series \*.patch
endef

# A kernel that skipped the patch step (LINUX_OVERRIDE_SRCDIR) would
# build without lwnfs, its CONFIG_LWNFS dropped by olddefconfig: stop.
define LWNFS_CHECK_KERNEL_CONFIG
	grep -Eq '^CONFIG_LWNFS=(y|m)$$' $(LINUX_DIR)/.config || { \
		echo "lwnfs: the kernel's .config has no CONFIG_LWNFS: its sources lack the lwnfs series (LINUX_OVERRIDE_SRCDIR skips the patch step)" >&2; \
		exit 1; }
endef
ifeq ($(BR2_LINUX_KERNEL_EXT_LWNFS),y)
LINUX_PRE_BUILD_HOOKS += LWNFS_CHECK_KERNEL_CONFIG
endif
