# lwnfs: the front door. `make help` lists the pipeline.

BASE ?= $(shell awk '!/^\#/ && NF { print $$1; exit }' bases.conf)
BASES := $(shell awk '!/^\#/ && NF { print $$1 }' bases.conf)
S := scripts

.PHONY: help demo shell deps fetch fetch-all patches sync apply build selftest guest kunit-uml check check-all lint

help:
	@echo "lwnfs: the LWN counter filesystem as a kernel patch series"
	@echo
	@echo "  make demo        fetch, apply, build and boot BASE; show lwnfs at work"
	@echo "  make shell       the same kernel, an interactive shell with lwnfs on /lwnfs"
	@echo "  make check       CI: every kind of check on every base; ends 'N passed, N failed'"
	@echo "  make check-all   the full matrix (adds the slower stages)"
	@echo
	@echo "Pipeline steps (BASE=$(BASE); bases: $(BASES)):"
	@echo "  make deps        install the Debian packages needed (apt-get)"
	@echo "  make fetch       fetch BASE from Debian's linux-source package into the cache"
	@echo "  make fetch-all   fetch every base"
	@echo "  make patches     regenerate patches/ and series from fs-lwnfs/, Documentation/, split/"
	@echo "  make sync        check that patches/ matches a fresh generation"
	@echo "  make apply       reset BASE's cached tree and git am its series"
	@echo "  make build       build BASE with CONFIG_LWNFS=y (VARIANT=y|m|n|allmod|clang)"
	@echo "  make selftest    build BASE's lwnfs kselftest (static) with the kernel's selftest build"
	@echo "  make guest       boot BASE's last build and run the guest tests (MODE=test|demo|shell)"
	@echo "  make kunit-uml   run BASE's KUnit suite on UML with kunit.py"
	@echo "  make lint        shellcheck the scripts"
	@echo
	@echo "Cache: $${LWNFS_CACHE:-$$HOME/.cache/lwnfs} (set LWNFS_CACHE to move it)"

demo:
	@$(S)/demo.sh $(BASE)

shell:
	@$(S)/demo.sh --shell $(BASE)

deps:
	@$(S)/deps.sh

fetch:
	@$(S)/fetch-base.sh $(BASE)

fetch-all:
	@for b in $(BASES); do $(S)/fetch-base.sh $$b || exit 1; done

patches:
	@$(S)/gen-patches.sh

sync:
	@$(S)/check-sync.sh

apply:
	@$(S)/apply.sh $(BASE)

VARIANT ?= y
build:
	@$(S)/build.sh $(BASE) $(VARIANT)

selftest:
	@$(S)/selftest.sh $(BASE)

MODE ?= test
guest:
	@$(S)/guest.sh $(BASE) $(MODE)

kunit-uml:
	@$(S)/kunit-uml.sh $(BASE)

lint:
	@$(S)/lint.sh

check:
	@$(S)/check.sh

check-all:
	@$(S)/check.sh --all
