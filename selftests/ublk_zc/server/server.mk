# SPDX-License-Identifier: GPL-2.0
# The shared ublk server (this folder): its sources, its flags and the
# rules that build them, for both programs made of it: abtool
# (tools/abtool/Makefile) and the selftests' ublk_zc_srv (../Makefile).
# Written once here so that a new layer folder, library or flag reaches
# both.  The includer sets, before including this file:
#   SRV           this folder, as the includer's rules name it
#   SRV_OUT       where the objects go (SRV_OUT/ublk/ublk_dev.o, ...)
#   SRV_CC_FLAGS  what compiles an object besides -c -o: the includer's
#                 own flags and SRV_CFLAGS (may be set after including)
# and adds its uapi include path and -Werror, if it wants one, to
# SRV_BPF_CFLAGS.  Q and msg are kselftest's lib.mk's (quiet output);
# where they are not defined, the commands are echoed.

# Layer folders; every *.c in them is built, and their headers are
# included by name (each folder is an -iquote path).  The series' uAPI
# headers come from the selftests' include/uapi/, which the selftests'
# tests include too: one definition of each constant.
SRV_LAYERS := util measure ublk ublk/targets ublk/paths workload cmd
SRV_SRCS := $(foreach d,$(SRV_LAYERS),$(wildcard $(SRV)/$(d)/*.c))
SRV_OBJS := $(patsubst $(SRV)/%.c,$(SRV_OUT)/%.o,$(SRV_SRCS))
SRV_UAPI := $(SRV)/../include
SRV_HDRS := $(foreach d,$(SRV_LAYERS),$(wildcard $(SRV)/$(d)/*.h)) \
	    $(wildcard $(SRV_UAPI)/uapi/*.h)
SRV_PKGS := json-c liburing libbpf

# The bpf path's program (ublk/paths/bpf/) is C for clang -target bpf,
# embedded in the server as a C array (xxd -i), so that the program
# needs no file at run time.  glibc's headers do not build for the BPF
# target: the program uses the kernel's uapi headers only, which find
# <asm/...> in the multiarch folder.
BPF_CLANG ?= clang
SRV_BPF_DIR := $(SRV)/ublk/paths/bpf
SRV_BPF_OUT := $(SRV_OUT)/ublk/paths/bpf
SRV_BPF_EMBED := $(SRV_BPF_OUT)/ublk_redirect_bpf_obj.h
SRV_BPF_CFLAGS := -O2 -g -target bpf -Wall -Wextra -I$(SRV_UAPI) \
		  -idirafter /usr/include/$(shell $(CC) -print-multiarch)

SRV_CPPFLAGS := $(addprefix -iquote $(SRV)/,$(SRV_LAYERS)) \
		-iquote $(SRV_BPF_OUT) -I$(SRV_UAPI) \
		$(shell pkg-config --cflags $(SRV_PKGS))
SRV_CFLAGS := -std=gnu11 -Wextra $(SRV_CPPFLAGS)
SRV_LDLIBS := $(shell pkg-config --libs $(SRV_PKGS)) -lm -lpthread
# what the rules below make
SRV_CLEAN := $(SRV_OBJS) $(SRV_BPF_OUT)/ublk_redirect.bpf.o $(SRV_BPF_EMBED)

# the rules leave the includer's default goal as it was (or unchosen)
srv_default_goal := $(.DEFAULT_GOAL)

$(SRV_OUT)/%.o: $(SRV)/%.c $(SRV_HDRS)
	@mkdir -p $(@D)
	$(call msg,CC,,$@)
	$(Q)$(CC) $(SRV_CC_FLAGS) -c -o $@ $<

$(SRV_BPF_OUT)/%.bpf.o: $(SRV_BPF_DIR)/%.bpf.c $(SRV_BPF_DIR)/ublk_redirect.h \
		$(SRV_UAPI)/uapi/ublk_bpf.h
	@mkdir -p $(@D)
	$(call msg,CLANG-BPF,,$@)
	$(Q)$(BPF_CLANG) $(SRV_BPF_CFLAGS) -c -o $@ $<

$(SRV_BPF_EMBED): $(SRV_BPF_OUT)/ublk_redirect.bpf.o
	$(Q)xxd -i -n ublk_redirect_bpf_obj $< > $@.tmp
	$(Q)sed 's/^unsigned/static const unsigned/' $@.tmp > $@ && rm $@.tmp

$(SRV_OUT)/ublk/paths/path_bpf.o: $(SRV_BPF_EMBED) $(SRV_BPF_DIR)/ublk_redirect.h

.DEFAULT_GOAL := $(srv_default_goal)
