# lwnfs: the front door. `make help` lists the pipeline.

BASE ?= $(shell awk '!/^[[:space:]]*\#/ && NF { print $$1; exit }' bases.conf)
BASES := $(shell awk '!/^[[:space:]]*\#/ && NF { print $$1 }' bases.conf)
S := scripts
# `make check BASE=v6.1` checks that base only; plain `make check`, all.
CHECK_BASES := $(if $(filter command line environment,$(origin BASE)),$(BASE))

.PHONY: help demo shell deps fetch fetch-all fetch-tools bump drift patches capture module-source edit edit-drop import post try verify deb distro distro-drift sync apply consumers build module selftest guest cross kunit-uml cocci quick check check-all soak stages bench bench-features lint

# Marks: [root] needs root (apt-get, or QEMU's host setup), [net] the
# network (Debian's mirror), [GB] gigabytes in the cache.
help:
	@echo "lwnfs: the LWN counter filesystem as a kernel patch series (BASE=$(BASE); bases: $(BASES))"
	@echo
	@echo "Use it:"
	@echo "  make demo        fetch, apply, build and boot BASE; show lwnfs at work  [root net GB]"
	@echo "  make shell       the same kernel, a shell in /lwnfs (x86_64: the boot in a log); a script on"
	@echo "                   standard input runs there, and a failing one fails make shell  [root net GB]"
	@echo "  make try         TREE=/path/to/linux [CONFIG=.config]: your own kernel tree (git or tarball),"
	@echo "                   untouched: which series applies how (git am, -3, patch, Yocto), then"
	@echo "                   fs/lwnfs built against its config (APPLY_ONLY=1: no build)  [GB]"
	@echo "  make deb         the lwnfs-dkms Debian package (DKMS builds lwnfs for each installed kernel"
	@echo "                   of a version lwnfs serves); its path: the last line"
	@echo "  make post        BASE's series and cover letter under your name, for posting:"
	@echo "                   NAME='Your Name' EMAIL=you@example.com [GIT_URL=url] OUT=dir"
	@echo
	@echo "Change it:"
	@echo "  make patches     regenerate patches/, series, module/ (the out-of-tree module of each base) and"
	@echo "                   meta-lwnfs's .scc files from fs-lwnfs/, Documentation/, split/, deltas/, and the"
	@echo "                   README's tables of the lines and the tiers; no kernel tree needed (the"
	@echo "                   hooks' sections of each base are kept in split/hooks/)"
	@echo "  make sync        check that all of those match a fresh generation, and that the series made"
	@echo "                   on each tree here is the same"
	@echo "  make capture     capture BASE's hooks' sections again from its tree, and regenerate its"
	@echo "                   series  [GB]"
	@echo "  make module-source  BASE's out-of-tree module source into DIR=... (a new directory)"
	@echo "  make edit        BASE's series as git commits in a work tree (its path: the last line);"
	@echo "                   change it with git (--fixup, rebase -i, reword), then: make import  [GB]"
	@echo "  make import      take the edited series back into the sources, regenerate patches/, name"
	@echo "                   any older base whose delta needs the change by hand (BASE=... of several)"
	@echo "  make edit-drop   throw BASE's open edit away"
	@echo "  make quick       the contributor's loop on the newest base: its patches/ regenerated, checkpatch,"
	@echo "                   the =y build and guest (KUnit, kselftest), sparse  [root net GB]"
	@echo
	@echo "Check it (each ends 'N passed, N failed'; BASE=... for one base):"
	@echo "  make check       CI's gate: the newest base built and booted (also"
	@echo "                   with KASAN), the series' own checks on every base, lwnfs-dkms on"
	@echo "                   Debian's bookworm kernel  [root net GB]"
	@echo "  make check-all   the whole matrix, nightly: every base booted, arm64, timing-dependent"
	@echo "                   soaks, slow builds  [root net GB]"
	@echo "  make distro      lwnfs-dkms on Debian's own kernels (configs/distro.conf; RELEASE=name: one):"
	@echo "                   DKMS builds it in each release's chroot, the kernel boots it: kselftest,"
	@echo "                   AppArmor, taint, memory cgroups; docs/distro/results.md  [root net GB]"
	@echo "  make verify      verify the trees of configs/trees.conf this machine has (or BASE=\"...\":"
	@echo "                   bases and trees) with their series: git am, =y, =m, W=1, kselftest,"
	@echo "                   the out-of-tree module; their rows of docs/verified.txt  [root GB]"
	@echo "  make stages      the stages a tier runs (TIER=quick|check|all|soak), from configs/stages.conf"
	@echo "  make lint        shellcheck the scripts, and lint the docs (make targets, links, the README)"
	@echo
	@echo "Its steps, one at a time:"
	@echo "  make deps        install the Debian packages of every target, or of SET=\"demo build ...\""
	@echo "                   (configs/deps.conf; as root, each target installs its own sets first)  [root net]"
	@echo "  make fetch       fetch BASE from Debian's linux-source package into the cache, or import"
	@echo "                   a git base's snapshot from the clone LWNFS_TREE_<base> names (bases.conf)  [net GB]"
	@echo "  make fetch-all   fetch every base (a git base without its clone: skipped, and said)  [net GB]"
	@echo "  make fetch-tools fetch and build the pinned sparse (configs/tools.conf)  [net]"
	@echo "  make apply       reset BASE's cached tree and git am its series"
	@echo "  make consumers   apply BASE's series as users do: patch -F0, quilt, git am -3,"
	@echo "                   Buildroot's rules, the Yocto layer (contrib/)"
	@echo "  make build       build BASE with CONFIG_LWNFS=y (VARIANT=y|m|n|kunitm|allmod|clang|kasan|kcsan)  [GB]"
	@echo "  make module      build module/BASE out of tree against BASE's VARIANT=n kernel (W=1)"
	@echo "  make selftest    build BASE's lwnfs kselftest (static) for VARIANT's build"
	@echo "  make guest       boot BASE's VARIANT (y|m|oot) build and run the guest (MODE=test|demo|shell);"
	@echo "                   oot: the VARIANT=n kernel with make module's lwnfs.ko"
	@echo "                   VARIANT=kasan|kcsan MODE=soak: a debug guest (SOAK_STRESS=s SOAK_TRINITY=s SOAK_CYCLES=n)"
	@echo "                   build, selftest, guest: LWNFS_ARCH=x86_64|arm64 (configs/arch.conf)"
	@echo "  make cross       build BASE for arm and riscv64 (=y, =m, W=1, kselftest)  [GB]"
	@echo "  make kunit-uml   run BASE's KUnit suite on UML with kunit.py  [GB]"
	@echo "  make cocci       BASE's own Coccinelle checks (make coccicheck) on fs/lwnfs"
	@echo
	@echo "Maintain it:"
	@echo "  make bump        move the Debian pins in bases.conf to Debian's newest versions (BASE=...: one),"
	@echo "                   refetch, regenerate patches/, report what changed; without BASE also"
	@echo "                   configs/distro.conf's Debian kernels  [net GB]"
	@echo "  make distro-drift  has Debian moved past the kernels configs/distro.conf pins?  [net]"
	@echo "  make drift       does Debian's newest revision of BASE still take its series?  [net]"
	@echo
	@echo "Measure it:"
	@echo "  make soak        the debug guests on every base (or BASE=...), DURATION s (default 600)"
	@echo "                   of stress and of trinity: KASAN, lockdep, kmemleak, fault injection;"
	@echo "                   KCSAN on the newest base  [root net GB]"
	@echo "  make bench       lwnfs's read path, scaling and footprint on every base (or BASE=...),"
	@echo "                   BENCH_RUNS runs each (default 5): tables, bench/results.md and plots  [root net GB]"
	@echo "  make bench-features  what each feature costs in text: the newest line built without"
	@echo "                   each (bench/without/), the table in bench/README.md  [net GB]"
	@echo
	@echo "Cache: $${LWNFS_CACHE:-$$HOME/.cache/lwnfs} (set LWNFS_CACHE to move it)"

demo:
	@$(S)/demo.sh $(BASE)

shell:
	@$(S)/demo.sh --shell $(BASE)

SET ?=
deps:
	@$(S)/deps.sh $(SET)

fetch:
	@$(S)/deps.sh --warn demo
	@$(S)/fetch-base.sh $(BASE)

# (fetch-base.sh's status 4: a git base whose clone is not named)
fetch-all:
	@$(S)/deps.sh --warn demo
	@for b in $(BASES); do $(S)/fetch-base.sh $$b || [ $$? = 4 ] || exit 1; done

fetch-tools:
	@$(S)/deps.sh --warn demo build
	@$(S)/fetch-sparse.sh

bump:
	@$(S)/deps.sh --warn demo
	@$(S)/bump.sh $(CHECK_BASES)
	@$(if $(CHECK_BASES),,$(S)/distro-pins.sh --bump)
	@$(S)/gen-docs.sh

drift:
	@$(S)/deps.sh --warn demo
	@$(S)/check-drift.sh $(BASE) --strict

patches:
	@$(S)/deps.sh --warn demo build
	@$(S)/gen-patches.sh --absorb
	@$(S)/gen-module.sh
	@$(S)/ranges.sh write patches/ranges module/ranges
	@$(S)/gen-yocto.sh
	@$(S)/gen-docs.sh

capture:
	@$(S)/deps.sh --warn demo build
	@$(S)/gen-patches.sh --capture $(BASE)

module-source:
	@$(if $(DIR),,echo "usage: make module-source BASE=... DIR=<new directory>" >&2; exit 2)
	@$(S)/gen-module.sh --dir $(BASE) "$(DIR)"

edit:
	@$(S)/deps.sh --warn demo build
	@$(S)/edit.sh $(BASE)

edit-drop:
	@$(S)/edit.sh --drop $(BASE)

import:
	@$(S)/deps.sh --warn demo build
	@$(S)/import.sh $(CHECK_BASES)

post:
	@$(if $(TREE),echo "make post: TREE= is make try's; the T: line's URL is GIT_URL=" >&2; exit 2)
	@$(S)/deps.sh --warn demo build
	@$(S)/post.sh --name "$(NAME)" --email "$(EMAIL)" $(if $(GIT_URL),--tree "$(GIT_URL)") $(BASE) "$(OUT)"

try:
	@$(if $(TREE),,echo "usage: make try TREE=/path/to/linux [CONFIG=/path/to/.config] [APPLY_ONLY=1]" >&2; exit 2)
	@$(S)/deps.sh --warn demo build
	@$(S)/try.sh $(if $(filter 1 yes,$(APPLY_ONLY)),--apply-only) "$(TREE)" $(if $(CONFIG),"$(CONFIG)")

verify:
	@$(S)/deps.sh --warn demo build
	@$(if $(CHECK_BASES),st=0; for b in $(CHECK_BASES); do $(S)/verify-tree.sh $$b || st=1; done; exit $$st,$(S)/verify-trees.sh)

deb:
	@$(S)/deps.sh --warn deb
	@$(S)/deb.sh

RELEASE ?=
distro:
	@$(S)/deps.sh demo build deb distro
	@$(S)/distro.sh $(RELEASE)

distro-drift:
	@$(S)/distro-pins.sh --strict

sync:
	@$(S)/deps.sh --warn demo build
	@$(S)/check-sync.sh

apply:
	@$(S)/deps.sh --warn demo build
	@$(S)/apply.sh $(BASE)

consumers:
	@$(S)/deps.sh --warn demo build
	@$(S)/check-consumers.sh $(BASE)

VARIANT ?= y
build:
	@$(S)/deps.sh --warn demo build$(if $(filter clang,$(VARIANT)), clang)
	@$(S)/build.sh $(BASE) $(VARIANT)

module:
	@$(S)/deps.sh --warn demo build
	@$(S)/module.sh $(BASE)

selftest:
	@$(S)/deps.sh --warn demo build
	@$(S)/selftest.sh $(BASE) $(VARIANT)

MODE ?= test
guest:
	@$(S)/deps.sh --warn demo build$(if $(filter soak,$(MODE)), soak)
	@$(S)/guest.sh $(BASE) $(VARIANT) $(MODE)

cross:
	@$(S)/deps.sh --warn demo build cross
	@for a in arm riscv64; do $(S)/check-cross.sh $$a $(BASE) || exit 1; done

kunit-uml:
	@$(S)/deps.sh --warn demo build
	@$(S)/kunit-uml.sh $(BASE)

cocci:
	@$(S)/deps.sh --warn demo build cocci
	@$(S)/check-cocci.sh $(BASE)

lint:
	@$(S)/deps.sh --warn lint
	@$(S)/lint.sh
	@$(S)/lint-docs.py

quick:
	@$(S)/check.sh --tier quick

check:
	@$(S)/check.sh --tier check $(CHECK_BASES)

check-all:
	@$(S)/check.sh --tier all $(CHECK_BASES)

TIER ?= check
stages:
	@LWNFS_LOCK=no $(S)/check.sh --list $(TIER) $(CHECK_BASES)

DURATION ?= 600
soak:
	@$(S)/check.sh --soak $(DURATION) $(CHECK_BASES)

# (a run of every base is the Debian bases'; name a git base to bench it)
BENCH_BASES := $(or $(CHECK_BASES),$(shell awk '!/^[[:space:]]*\#/ && NF && $$2 !~ /^git:/ { print $$1 }' bases.conf))
bench:
	@$(S)/deps.sh --warn demo build bench
	@for b in $(BENCH_BASES); do \
		$(S)/fetch-base.sh $$b && $(S)/bench.sh $$b || exit 1; \
	done
	@$(S)/bench-report.py bench $(BENCH_BASES)

bench-features:
	@$(S)/deps.sh --warn demo build bench
	@$(S)/fetch-base.sh $(BASE)
	@$(S)/bench-features.sh $(BASE)
