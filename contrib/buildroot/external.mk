# linux.mk includes linux/linux-ext-lwnfs.mk by itself: not again here.
include $(sort $(wildcard $(BR2_EXTERNAL_LWNFS_PATH)/package/*/*.mk))
