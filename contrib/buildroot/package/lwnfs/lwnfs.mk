################################################################################
#
# lwnfs
#
################################################################################

# the checkout this external tree is in, for the kernel extension

LWNFS_VERSION = $(shell cat $(BR2_EXTERNAL_LWNFS_PATH)/../../VERSION)
LWNFS_SITE = $(realpath $(BR2_EXTERNAL_LWNFS_PATH)/../..)
LWNFS_SITE_METHOD = local
LWNFS_LICENSE = GPL-2.0
LWNFS_LICENSE_FILES = COPYING
LWNFS_INSTALL_TARGET = NO

ifeq ($(BR2_LINUX_KERNEL_EXT_LWNFS_MODULE),y)
define LWNFS_LINUX_CONFIG_FIXUPS
	$(call KCONFIG_ENABLE_OPT,CONFIG_MODULES)
	$(call KCONFIG_SET_OPT,CONFIG_LWNFS,m)
endef
else
define LWNFS_LINUX_CONFIG_FIXUPS
	$(call KCONFIG_ENABLE_OPT,CONFIG_LWNFS)
endef
endif

$(eval $(generic-package))
