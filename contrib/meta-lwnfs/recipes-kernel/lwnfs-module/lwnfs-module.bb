SUMMARY = "lwnfs, the LWN counter filesystem, as an out-of-tree module"
DESCRIPTION = "lwnfs.ko for a kernel that cannot be patched: the module \
source of the series that serves the kernel's version, from the lwnfs \
checkout this layer is in."
HOMEPAGE = "https://lwn.net/Articles/57369/"
LICENSE = "GPL-2.0-only"
LIC_FILES_CHKSUM = "file://${LWNFS_TOP}/COPYING;md5=b234ee4d69f5fce4486a80fdaf4a4263"

inherit module lwnfs-ranges

# the parse depends on VERSION: a new version parses the recipe again
PV = "${@(bb.parse.mark_dependency(d, d.getVar('LWNFS_TOP') + '/VERSION'), \
          oe.utils.read_file(d.getVar('LWNFS_TOP') + '/VERSION').strip())[1]}"
FILESEXTRAPATHS:prepend := "${LWNFS_TOP}:"
SRC_URI = "file://module;subdir=lwnfs"
# scarthgap unpacks into WORKDIR; UNPACKDIR came after it
S = "${@d.getVar('UNPACKDIR') or d.getVar('WORKDIR')}/lwnfs"

RPROVIDES:${PN} += "kernel-module-lwnfs"

# The series is known once the kernel is staged (KERNEL_VERSION, by
# module/ranges): take it then, and stop with one clear line when no
# series serves the kernel.
do_configure:prepend() {
	series="${@lwnfs_series(d.getVar('S') + '/module/ranges', d.getVar('KERNEL_VERSION'))}"
	if [ -z "$series" ]; then
		bbfatal "lwnfs: Linux ${KERNEL_VERSION} is outside the versions lwnfs serves (${@lwnfs_served(d.getVar('S') + '/module/ranges')}); no module for it"
	fi
	src=${S}/module/$series
	if [ ! -f "$src/Kbuild" ]; then
		bbfatal "lwnfs: module/ranges names $series for Linux ${KERNEL_VERSION}, but ${S}/module/$series has no Kbuild; in the lwnfs checkout, run: make patches"
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
