# lwnfs's series of this kernel's line, when DISTRO_FEATURES has "lwnfs"
require ${@bb.utils.contains('DISTRO_FEATURES', 'lwnfs', 'recipes-kernel/linux/lwnfs-kernel.inc', '', d)}
