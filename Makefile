# lwnfs: the front door. `make help` lists the pipeline.

BASE ?= $(shell awk '!/^[[:space:]]*\#/ && NF { print $$1; exit }' bases.conf)
BASES := $(shell awk '!/^[[:space:]]*\#/ && NF { print $$1 }' bases.conf)
S := scripts
# `make check BASE=v6.1` checks that base only; plain `make check`, all.
CHECK_BASES := $(if $(filter command line environment,$(origin BASE)),$(BASE))

.PHONY: help demo shell deps fetch fetch-all fetch-tools bump drift patches post sync apply consumers build selftest guest cross kunit-uml cocci check check-all soak bench lint

help:
	@echo "lwnfs: the LWN counter filesystem as a kernel patch series"
	@echo
	@echo "  make demo        fetch, apply, build and boot BASE; show lwnfs at work"
	@echo "  make shell       the same kernel, an interactive shell with lwnfs on /lwnfs"
	@echo "  make check       CI: every kind of check, the series' own on every base (or BASE=...);"
	@echo "                   ends 'N passed, N failed'"
	@echo "  make check-all   the full matrix (adds the slower stages)"
	@echo "  make soak        the debug guests on every base (or BASE=...), DURATION s (default 600)"
	@echo "                   of stress and of trinity: KASAN, lockdep, kmemleak, fault injection;"
	@echo "                   KCSAN on the newest base"
	@echo "  make bench       lwnfs's read path, scaling and footprint on every base (or BASE=...),"
	@echo "                   BENCH_RUNS runs each (default 5): tables, bench/results.md and plots"
	@echo
	@echo "Pipeline steps (BASE=$(BASE); bases: $(BASES)):"
	@echo "  make deps        install the Debian packages needed (apt-get)"
	@echo "  make fetch       fetch BASE from Debian's linux-source package into the cache"
	@echo "  make fetch-all   fetch every base"
	@echo "  make fetch-tools fetch and build the pinned sparse (configs/tools.conf)"
	@echo "  make bump        move the pins in bases.conf to Debian's newest versions (BASE=...: one),"
	@echo "                   refetch, regenerate patches/, report what changed"
	@echo "  make drift       does Debian's newest revision of BASE still take its series?"
	@echo "  make patches     regenerate patches/ and series from fs-lwnfs/, Documentation/, split/"
	@echo "  make post        BASE's series and cover letter under your name, for posting:"
	@echo "                   NAME='Your Name' EMAIL=you@example.com [TREE=url] OUT=dir"
	@echo "  make sync        check that patches/ matches a fresh generation"
	@echo "  make apply       reset BASE's cached tree and git am its series"
	@echo "  make consumers   apply BASE's series as users do: patch -F0, quilt, git am -3,"
	@echo "                   Buildroot's rules, the Yocto layer (contrib/)"
	@echo "  make build       build BASE with CONFIG_LWNFS=y (VARIANT=y|m|n|kunitm|allmod|clang|kasan|kcsan)"
	@echo "  make selftest    build BASE's lwnfs kselftest (static) for VARIANT's build"
	@echo "  make guest       boot BASE's VARIANT (y|m) build and run the guest (MODE=test|demo|shell);"
	@echo "                   VARIANT=kasan|kcsan MODE=soak: a debug guest (SOAK_STRESS=s SOAK_TRINITY=s)"
	@echo "                   build, selftest, guest: LWNFS_ARCH=x86_64|arm64 (configs/arch.conf)"
	@echo "  make cross       build BASE for arm and riscv64 (=y, =m, W=1, kselftest)"
	@echo "  make kunit-uml   run BASE's KUnit suite on UML with kunit.py"
	@echo "  make cocci       BASE's own Coccinelle checks (make coccicheck) on fs/lwnfs"
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

fetch-tools:
	@$(S)/fetch-sparse.sh

bump:
	@$(S)/bump.sh $(CHECK_BASES)

drift:
	@$(S)/check-drift.sh $(BASE) --strict

patches:
	@$(S)/gen-patches.sh

post:
	@$(S)/post.sh --name "$(NAME)" --email "$(EMAIL)" $(if $(TREE),--tree "$(TREE)") $(BASE) "$(OUT)"

sync:
	@$(S)/check-sync.sh

apply:
	@$(S)/apply.sh $(BASE)

consumers:
	@for c in check-apply check-am3 check-buildroot check-yocto; do $(S)/$$c.sh $(BASE) || exit 1; done

VARIANT ?= y
build:
	@$(S)/build.sh $(BASE) $(VARIANT)

selftest:
	@$(S)/selftest.sh $(BASE) $(VARIANT)

MODE ?= test
guest:
	@$(S)/guest.sh $(BASE) $(VARIANT) $(MODE)

cross:
	@for a in arm riscv64; do $(S)/check-cross.sh $$a $(BASE) || exit 1; done

kunit-uml:
	@$(S)/kunit-uml.sh $(BASE)

cocci:
	@$(S)/check-cocci.sh $(BASE)

lint:
	@$(S)/lint.sh

check:
	@$(S)/check.sh $(CHECK_BASES)

check-all:
	@$(S)/check.sh --all $(CHECK_BASES)

DURATION ?= 600
soak:
	@$(S)/check.sh --soak $(DURATION) $(CHECK_BASES)

BENCH_BASES := $(or $(CHECK_BASES),$(BASES))
bench:
	@$(S)/deps.sh
	@for b in $(BENCH_BASES); do \
		$(S)/fetch-base.sh $$b && $(S)/bench.sh $$b || exit 1; \
	done
	@$(S)/bench-report.py bench $(BENCH_BASES)
