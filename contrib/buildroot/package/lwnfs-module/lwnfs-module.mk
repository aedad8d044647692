################################################################################
#
# lwnfs-module
#
################################################################################

# lwnfs.ko out of tree, from the module source of the series that serves
# the kernel's version (module/vX.Y of the checkout this external tree is
# in, by module/ranges)

LWNFS_MODULE_VERSION = $(shell cat $(BR2_EXTERNAL_LWNFS_PATH)/../../VERSION)
LWNFS_MODULE_SITE = $(realpath $(BR2_EXTERNAL_LWNFS_PATH)/../..)
LWNFS_MODULE_SITE_METHOD = local
LWNFS_MODULE_LICENSE = GPL-2.0
LWNFS_MODULE_LICENSE_FILES = COPYING

# The series' directory, known once the kernel is extracted; the hook stops
# the build with lwnfs-line.sh's message when no series serves it.
LWNFS_MODULE_MODULE_SUBDIRS = \
	module/$(notdir $(shell $(BR2_EXTERNAL_LWNFS_PATH)/lwnfs-line.sh $(LINUX_DIR) $(@D)/module module 2>/dev/null))

define LWNFS_MODULE_CHECK_LINE
	$(BR2_EXTERNAL_LWNFS_PATH)/lwnfs-line.sh $(LINUX_DIR) $(@D)/module module >/dev/null
endef
LWNFS_MODULE_PRE_BUILD_HOOKS += LWNFS_MODULE_CHECK_LINE

$(eval $(kernel-module))
$(eval $(generic-package))
