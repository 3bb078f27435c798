# tools/: the programs, above every layer (tools/README.md).
bin_PROGRAMS += acprun acpx-info acpx-model
acprun_SOURCES = tools/acprun/acprun.cpp tools/acprun/binding.cpp tools/acprun/binding.hpp \
	tools/acprun/failures.cpp tools/acprun/failures.hpp \
	basic/bootstrap/wire.cpp basic/bootstrap/wire.hpp
acprun_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir) $(HWLOC_CFLAGS)
acprun_LDADD = $(HWLOC_LIBS)

acpx_info_SOURCES = tools/acpx_info.cpp
acpx_info_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir) $(UCX_CFLAGS) $(OFI_CFLAGS) $(HWLOC_CFLAGS)
acpx_info_LDADD = libacpx.la $(HWLOC_LIBS) $(UCX_LIBS)
if ACPX_HAVE_UCX
acpx_info_LDADD += -luct
endif

# acpx-model: the model from the command line (predict, compare, merge, jitter, place, flowsim, seed000, simcheck).
acpx_model_SOURCES = tools/acpx_model.cpp tools/merge_calibrations.hpp tools/merge_calibrations.cpp \
	tools/jitter.hpp tools/jitter.cpp tools/place.hpp tools/place.cpp \
	tools/flowsim.hpp tools/flowsim.cpp tools/parse_number.hpp tools/seed000.hpp tools/seed000.cpp \
	tools/simgrid_platform.hpp tools/simgrid_platform.cpp \
	tools/simcheck.hpp tools/simcheck.cpp
acpx_model_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)
acpx_model_LDADD = libacpx.la -lpthread
EXTRA_DIST += tools/README.md

# Seed 000's CG kernel for SimGrid's smpirun (acpx-model seed000 runs it:
# the build tree's, else the installed one).
acpx_model_CPPFLAGS += -DACPX_KERNELS_BUILT='"$(abs_top_builddir)/tools/simgrid"' \
	-DACPX_KERNELS_INSTALLED='"$(pkglibexecdir)"' -DACPX_SMPIRUN='"$(SMPIRUN)"'
EXTRA_DIST += tools/simgrid/cg_kernel.c tools/simgrid/ccs_kernel.c
if HAVE_SMPI
pkglibexec_SCRIPTS = tools/simgrid/cg_kernel tools/simgrid/ccs_kernel
CLEANFILES += tools/simgrid/cg_kernel tools/simgrid/ccs_kernel
tools/simgrid/cg_kernel: $(srcdir)/tools/simgrid/cg_kernel.c
	@mkdir -p tools/simgrid
	$(AM_V_CC)$(SMPICC) -O2 -o $@ $(srcdir)/tools/simgrid/cg_kernel.c
tools/simgrid/ccs_kernel: $(srcdir)/tools/simgrid/ccs_kernel.c
	@mkdir -p tools/simgrid
	$(AM_V_CC)$(SMPICC) -O2 -o $@ $(srcdir)/tools/simgrid/ccs_kernel.c
endif
