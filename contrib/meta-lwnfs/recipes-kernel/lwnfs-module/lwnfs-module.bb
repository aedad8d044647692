SUMMARY = "lwnfs, the LWN counter filesystem, as an out-of-tree module"
DESCRIPTION = "lwnfs.ko for a kernel that cannot be patched: the module \
source of the kernel's line, from the lwnfs checkout this layer is in."
HOMEPAGE = "https://lwn.net/Articles/57369/"
LICENSE = "GPL-2.0-only"
LIC_FILES_CHKSUM = "file://${LWNFS_TOP}/COPYING;md5=b234ee4d69f5fce4486a80fdaf4a4263"

inherit module

# the parse depends on VERSION: a new version parses the recipe again
PV = "${@(bb.parse.mark_dependency(d, d.getVar('LWNFS_TOP') + '/VERSION'), \
          oe.utils.read_file(d.getVar('LWNFS_TOP') + '/VERSION').strip())[1]}"
FILESEXTRAPATHS:prepend := "${LWNFS_TOP}:"
SRC_URI = "file://module;subdir=lwnfs"
# scarthgap unpacks into WORKDIR; UNPACKDIR came after it
S = "${@d.getVar('UNPACKDIR') or d.getVar('WORKDIR')}/lwnfs"

RPROVIDES:${PN} += "kernel-module-lwnfs"

# The line's directory is known once the kernel is staged: take it then,
# and stop with one clear line when lwnfs has no module for it.
do_configure:prepend() {
	line=$(echo ${KERNEL_VERSION} | cut -d. -f1,2)
	src=${S}/module/v$line
	if [ ! -f "$src/Kbuild" ]; then
		bbfatal "lwnfs: no module for Linux ${KERNEL_VERSION}; lwnfs has one for the lines $(ls ${LWNFS_TOP}/module | sed -n 's/^v//p' | sort -t. -k1,1nr -k2,2nr | tr '\n' ' ' | sed 's/ $//')"
	fi
	rm -rf ${B}/lwnfs-src
	cp -r "$src" ${B}/lwnfs-src
}
EXTRA_OEMAKE += "-C ${B}/lwnfs-src KDIR=${STAGING_KERNEL_DIR}"
MODULES_MODULE_SYMVERS_LOCATION = "lwnfs-src"

# With the distro feature, the kernel has lwnfs already (lwnfs-kernel.inc).
python () {
    if bb.utils.contains('DISTRO_FEATURES', 'lwnfs', True, False, d):
        raise bb.parse.SkipRecipe("DISTRO_FEATURES has 'lwnfs': the kernel builds lwnfs itself")
}
