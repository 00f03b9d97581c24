# SPDX-License-Identifier: GPL-2.0
# User-facing entry points. Kbuild (next to this file) says what is built;
# this file only drives kbuild and the user-space parts.
KVER    ?= $(shell uname -r)
KDIR    ?= /lib/modules/$(KVER)/build
VERSION := $(shell scripts/version.sh .)
DKMS_SRC = /usr/src/sbridge-$(VERSION)
MODULES  = sbridge_core sbridge_pmu
comma   := ,

.PHONY: all headers modules install load unload clean check pycheck sparse ctl test test-slow test-stress test-rig test-fuzz test-debug test-trixie test-rename test-clocks mixcal demo bench \
	eval eval-quick \
	dkms-tree dkms-add dkms-build dkms-install dkms-remove deb

all: modules ctl

# Without the running kernel's headers kbuild only says "No such file or
# directory": say what to install instead.
headers:
	@test -f $(KDIR)/Makefile || { \
		echo "sbridge: no kernel headers in $(KDIR) (kernel $(KVER))." >&2; \
		echo "  Debian/Ubuntu: apt install linux-headers-$(KVER)" >&2; \
		echo "  or build against another tree: make KDIR=/path/to/kernel/build" >&2; \
		exit 1; }

modules: headers
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

install: modules
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules_install
	depmod -a $(KVER)

load:
	modprobe sbridge_pmu || { insmod sbridge-core/sbridge_core.ko && insmod pmu-monitor/sbridge_pmu.ko; }

unload:
	-rmmod sbridge_pmu
	-rmmod sbridge_core

ctl:
	$(MAKE) -C userspace-ctl

# W=1 build plus checkpatch on our own sources (if the kernel tree has it),
# and ruff and mypy over the host's Python (pycheck).
check: headers pycheck
	$(MAKE) -C $(KDIR) M=$(CURDIR) W=1 modules
	tools/checkpatch.sh

# ruff and mypy at pinned versions (pyproject.toml; installed from PyPI
# into build/pytools on first use, tools/pycheck.sh).
pycheck:
	tools/pycheck.sh

# sparse over every module source (C=2: also files that need no rebuild),
# with the kernel's own flags (address spaces, __rcu, endianness, context);
# any warning fails it.
sparse: headers
	@command -v sparse >/dev/null || { \
		echo "sbridge: make sparse needs sparse (apt-get install sparse)" >&2; exit 1; }
	@mkdir -p build
	@$(MAKE) -s -C $(KDIR) M=$(CURDIR) C=2 modules 2>&1 | \
		grep -v '^Skipping BTF generation' | tee build/sparse.log
	@! grep -q . build/sparse.log

# The two commands of the README.
demo:
	tools/testbed/demo.sh

test:
	tests/run.sh

# Checks of the checks, too slow for make test's hour (pytest -m slow):
# the layer test's mutations (tests/test_layers.py, about 4 minutes).
test-slow:
	tests/run.sh -m slow

# Minutes of load (tests/scenarios "# runner: stress"): 50 000 live tasks
# adopted, re-matched and freed (about 4 minutes in the arm64 7.x cell).
# Every scenario in every cell its arch: and suite: allow, the ones make
# test keeps to one cell with "# stock:" included: SBRIDGE_STOCK=all make test.
test-stress:
	tools/testbed/setup-host.sh
	SBRIDGE_RUNNER=stress /usr/bin/python3 -m pytest tests/test_kernels.py -v -rs \
		-p no:cacheprovider -k test_scenario

# Checks of the rig itself ("# runner: rig"): the emulated board's
# asymmetry, EAS on its energy model, the frequency-only x86 board and seed
# 000's frequency inversion. They test QEMU and tools/rig, not sbridge, so
# make test leaves them out: run this after changing tools/rig.
test-rig:
	tools/testbed/setup-host.sh
	SBRIDGE_RUNNER=rig /usr/bin/python3 -m pytest tests/test_kernels.py -v -rs \
		-p no:cacheprovider -k test_scenario

# Benchmarks: ratios measured inside one boot, never pass/fail (bench/README.md).
BENCH_CELLS ?= x86_64-bookworm arm64-bookworm
bench:
	tools/testbed/setup-host.sh
	for c in $(BENCH_CELLS); do for b in bench/core-*.sh; do \
		python3 tools/testbed/harness.py $$b --cell $$c -v | grep -a -E 'bench:|^# |PASS|FAIL' | tr -d '\r'; \
	done; done

# Slow checks, not part of make test: the netlink fuzzer with 100 000
# requests as root and 100 000 as a user in every 6.1 and 7.x cell, the
# x86_64 debug cell included (the default suite sends 10 000 of each, on
# x86_64 only: the requests meet no arch code).
test-fuzz:
	tools/testbed/setup-host.sh
	SBRIDGE_DEBUG_CELLS=x86_64 /usr/bin/python3 tools/testbed/harness.py core-fuzz-netlink \
		--set FUZZ_N=100000 --timeout 5400

# 30 000 threads renaming themselves while rule sets load, the rename
# probe timed by the kernel's function_graph tracer (about 5 minutes in the
# arm64 7.x cell with the boot; docs/reliability.md, N7).
test-rename:
	tools/testbed/setup-host.sh
	/usr/bin/python3 tools/testbed/harness.py rules-rename-storm --cell arm64-backports -v

# The rig's clocks (tools/rig/README.md, "Clocks") in every cell their
# scenarios are for: the default suite runs rig-clocks on x86_64 only and
# rig-inversion on arm64-bookworm.
# The mix predictor's calibration on the rig (tests/scenarios/rig-mixcal.sh):
# boot, run the calibration programs alone on each core type, fit
# (tools/mixfit.py) and write the coefficient file the testbed applies
# (lib.sh rig_predictor). One cell per guest architecture.
MIXCAL_CELLS = arm64-bookworm x86_64-bookworm
mixcal:
	tools/testbed/setup-host.sh
	for c in $(MIXCAL_CELLS); do \
		/usr/bin/python3 tools/testbed/harness.py rig-mixcal --cell $$c || exit 1; \
		a=$${c%%-*}; [ $$a = arm64 ] && a=aarch64; \
		/usr/bin/python3 tools/mixfit.py build/cells/$$c/rig-mixcal.files/mixcal.txt \
			--board "rig 1b1s, $$c guest" -o tools/rig/mixpred-1b1s-$$a.coef || exit 1; \
	done

CLOCK_CELLS = x86_64-bookworm arm64-bookworm x86_64-backports arm64-backports
test-clocks:
	tools/testbed/setup-host.sh
	for s in rig-clocks rig-inversion; do \
		/usr/bin/python3 tools/testbed/harness.py $$s $(addprefix --cell ,$(CLOCK_CELLS)) || exit 1; \
	done

# Every scenario on the trixie (6.12) cells, "# trixie: no" ones included:
# those exercise nothing of the kernel that 6.1 and 7.x do not, so the
# default suite leaves them out there (docs/testing.md).
test-trixie:
	tools/testbed/setup-host.sh
	SBRIDGE_TRIXIE=all SBRIDGE_STOCK=all SBRIDGE_CELLS=x86_64-trixie,arm64-trixie \
		/usr/bin/python3 -m pytest tests/test_kernels.py -v -rs -p no:cacheprovider

# Every scenario on the debug-kernel cells (KASAN, lockdep, kmemleak, fault
# injection; tools/testbed/debugkernel.py), with each allocation point of
# the module loads failed in turn (the default suite: every 20th) and 100
# stress cycles (default: 15), then 100 000 of the fuzzer's requests there
# (50 000 as root, 50 000 as a user: about 20 min on x86_64); timeouts are
# 4x the debug cells' own for that. The default suite runs only the
# "# debug: sample" and "# debug: only" scenarios there.
DEBUG_CELLS = x86_64-debug arm64-debug
test-debug:
	tools/testbed/setup-host.sh
	SBRIDGE_DEBUG=all SBRIDGE_SET="NTH_STEP=1 CYCLES=100" SBRIDGE_DEBUG_CELLS=x86_64,arm64 \
		SBRIDGE_TIMEOUT_SCALE=4 \
		SBRIDGE_CELLS=$(subst $(eval) ,$(comma),$(DEBUG_CELLS)) \
		/usr/bin/python3 -m pytest tests/test_kernels.py -v -rs -p no:cacheprovider
	SBRIDGE_DEBUG_CELLS=x86_64,arm64 /usr/bin/python3 tools/testbed/harness.py \
		core-fuzz-netlink --set FUZZ_N=50000 --timeout 5400 $(addprefix --cell ,$(DEBUG_CELLS))

# The evaluation (bench/README.md): every board, 3 boots with capacities and
# 3 symmetric ones each, against every baseline (about 90 min per board);
# results in build/eval/ and bench/results/. eval-quick: one boot of 1b3s
# (about 15 min). Not part of `make test`.
# EVAL_ARGS passes options on, e.g. EVAL_ARGS="--board 3b1s --seed 7".
eval:
	tools/testbed/setup-host.sh
	/usr/bin/python3 bench/eval/run.py $(EVAL_ARGS)

eval-quick:
	tools/testbed/setup-host.sh
	/usr/bin/python3 bench/eval/run.py --quick $(EVAL_ARGS)

# DKMS: the tree is copied to /usr/src/sbridge-<version> with its version
# frozen in a VERSION file, since DKMS builds from there without git.
# dkms-tree only lays the copy out (debian/rules puts it in the package
# with DKMS_SRC=debian/sbridge-dkms/usr/src/sbridge-V VERSION=V);
# dkms-add also registers it.
dkms-tree:
	rm -rf $(DKMS_SRC)
	mkdir -p $(DKMS_SRC)
	cp -a Kbuild Makefile dkms.conf include scripts sbridge-core pmu-monitor $(DKMS_SRC)/
	echo $(VERSION) > $(DKMS_SRC)/VERSION
	sed -i 's/@VERSION@/$(VERSION)/' $(DKMS_SRC)/dkms.conf
	$(MAKE) -C $(DKMS_SRC) clean
	# what a kbuild clean leaves when this kernel has no headers (the copy's
	# clean then only finds *.o, *.ko, *.mod*, .*.cmd)
	find $(DKMS_SRC) \( -name '.*.d' -o -name modules.order -o -name Module.symvers \) -delete

dkms-add: dkms-tree
	dkms add sbridge/$(VERSION)

dkms-build: dkms-add
	dkms build sbridge/$(VERSION) -k $(KVER)

dkms-install: dkms-add
	dkms install sbridge/$(VERSION) -k $(KVER)

dkms-remove:
	-dkms remove sbridge/$(VERSION) --all
	rm -rf $(DKMS_SRC)

# Debian packages (debian/): sbridge-dkms (all) and sbridgectl for DEB_ARCH
# (default: this machine's; DEB_ARCH=arm64 cross-builds sbridgectl alone,
# the arch-all sbridge-dkms being the amd64 build's). The version comes from
# git (scripts/deb-version.sh: 0.2.0+gitN.gHASH-1, a release tag's 0.2.0-1),
# so a rebuilt tree upgrades the packages installed. The build runs in a
# copy of the tree (build/deb/src: its tracked and new files, with a
# changelog entry for that version and its builder as Maintainer,
# scripts/deb-snapshot.sh), so the .debs, .changes and .buildinfo land in
# build/deb/ and nothing outside the clone is touched. Needs debhelper,
# dh-dkms (and lintian to check them), which tools/testbed/setup-host.sh
# installs. The arm64 build skips the build-dependency check (-d): its
# build-essential would be libc6-dev:arm64, and this host never installs
# foreign-arch packages; the cross gcc and libc6-dev-arm64-cross build it
# (debian/README.source). sbridge-scx (scx_sbridge) is built where
# scripts/deb-scx-check.sh finds trixie's clang, bpftool and libbpf for
# DEB_ARCH and SCX_VMLINUX is the BTF of a kernel with sched_ext; elsewhere
# (bookworm) the pkg.sbridge.noscx profile leaves it out and make says why.
DEB_ARCH  ?= $(shell dpkg --print-architecture)
SCX_VMLINUX ?= /sys/kernel/btf/vmlinux
DEB_HOST  := $(shell dpkg --print-architecture)
DEB_OUT    = build/deb
DEB_SRC    = $(DEB_OUT)/src
deb: DEB_VER := $(shell scripts/deb-version.sh .)
deb: SCX_WHY := $(shell scripts/deb-scx-check.sh $(DEB_ARCH) $(abspath $(SCX_VMLINUX)))
deb:
	@command -v dpkg-buildpackage >/dev/null && command -v dh_dkms >/dev/null || { \
		echo "sbridge: make deb needs dpkg-dev, debhelper and dh-dkms" \
			"(apt-get install dpkg-dev debhelper dh-dkms)" >&2; exit 1; }
	mkdir -p $(DEB_OUT)
	rm -rf $(DEB_SRC) $(DEB_OUT)/sbridge*_$(DEB_VER)_$(DEB_ARCH).*
	mkdir -p $(DEB_SRC)
	# the tree as it is: tracked and new files (not build/ or other ignored ones)
	if git rev-parse --git-dir >/dev/null 2>&1; then \
		git ls-files -z -c -o --exclude-standard | \
			tar --null -T - --ignore-failed-read -cf - 2>/dev/null; \
	else \
		tar --exclude=./build -cf - .; \
	fi | tar -xf - -C $(DEB_SRC)
	scripts/deb-snapshot.sh $(DEB_SRC) $(DEB_VER) "$$(scripts/version.sh .)"
	@[ -z "$(SCX_WHY)" ] || echo "sbridge: make deb: no sbridge-scx for $(DEB_ARCH): $(SCX_WHY)" >&2
ifeq ($(DEB_ARCH),$(DEB_HOST))
	# the native build starts a version: earlier ones' files go
	find $(DEB_OUT) -maxdepth 1 -name 'sbridge*_*' ! -name '*_$(DEB_VER)_*' -delete
	rm -f $(DEB_OUT)/sbridge*_$(DEB_VER)_all.*
	cd $(DEB_SRC) && SCX_VMLINUX=$(abspath $(SCX_VMLINUX)) \
		dpkg-buildpackage -b -us -uc -j1 $(if $(SCX_WHY),-Ppkg.sbridge.noscx)
else
	cd $(DEB_SRC) && CC=$$(dpkg-architecture -a$(DEB_ARCH) -qDEB_HOST_GNU_TYPE 2>/dev/null)-gcc \
	DEB_BUILD_OPTIONS="nocheck $$DEB_BUILD_OPTIONS" SCX_VMLINUX=$(abspath $(SCX_VMLINUX)) \
		dpkg-buildpackage -a$(DEB_ARCH) -Pcross,nocheck$(if $(SCX_WHY),$(comma)pkg.sbridge.noscx) \
		-B -us -uc -d -j1
endif
	rm -rf $(DEB_SRC)
	echo $(DEB_VER) > $(DEB_OUT)/version
	@ls -1 $(DEB_OUT)/*_$(DEB_VER)_*

# Without headers kbuild cannot clean: remove what it would, in the module
# source folders only (never build/, which holds chroots and kernel trees).
clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean 2>/dev/null || \
		find sbridge-core pmu-monitor -maxdepth 1 -type f \( -name '*.o' -o \
			-name '*.ko' -o -name '*.mod' -o -name '*.mod.c' -o -name '.*.cmd' -o \
			-name '.*.d' -o -name modules.order \) -delete; \
		rm -f Module.symvers modules.order .*.cmd
	-$(MAKE) -C userspace-ctl clean
