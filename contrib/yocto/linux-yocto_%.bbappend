# lwnfs for linux-yocto: files/lwnfs/ holds the kernel feature (lwnfs.scc,
# lwnfs.cfg and one base's patches), which the kernel tools apply and
# configure. (":append" needs Yocto 3.4 or later.)
FILESEXTRAPATHS:prepend := "${THISDIR}/files:"
SRC_URI:append = " file://lwnfs;type=kmeta;destsuffix=lwnfs"
KERNEL_FEATURES:append = " lwnfs.scc"
