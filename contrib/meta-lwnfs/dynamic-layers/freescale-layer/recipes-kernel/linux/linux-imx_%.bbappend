# the lwnfs series that serves this kernel, when DISTRO_FEATURES has "lwnfs"
require ${@bb.utils.contains('DISTRO_FEATURES', 'lwnfs', 'recipes-kernel/linux/lwnfs-kernel.inc', '', d)}
