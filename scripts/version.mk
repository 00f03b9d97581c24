# SPDX-License-Identifier: GPL-2.0
# The version comes from git, never by hand: a VERSION file (written when the
# tree is copied for DKMS or a tarball) wins, then `git describe`.
SBRIDGE_TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST)))/..)
SBRIDGE_VERSION := $(shell $(SBRIDGE_TOP)/scripts/version.sh $(SBRIDGE_TOP))
