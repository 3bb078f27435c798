# collectives/: algorithms as pure functions returning command lists, and
# the calibrated model that picks one per handle. Built into libacpx (the
# middle layer uses them) and tested on their own.
libacpx_la_SOURCES += \
	collectives/command_list.hpp collectives/algorithms.hpp \
	collectives/bcast.cpp collectives/allgather.cpp collectives/names.cpp \
	collectives/check_list.cpp collectives/hier.cpp \
	collectives/stored_list.hpp collectives/stored_list.cpp \
	collectives/model/calibration.hpp collectives/model/calibration.cpp \
	collectives/model/topology.hpp collectives/model/topology.cpp \
	collectives/model/predict.hpp collectives/model/predict.cpp \
	collectives/model/round_lists.hpp collectives/model/round_lists.cpp \
	collectives/model/footprint.hpp collectives/model/footprint.cpp \
	collectives/model/jitter.hpp collectives/model/jitter.cpp \
	collectives/model/flowsim.hpp collectives/model/flowsim.cpp \
	collectives/place/pattern.hpp collectives/place/pattern.cpp \
	collectives/place/log_cut.hpp collectives/place/log_cut.cpp \
	collectives/place/objective.hpp collectives/place/objective.cpp \
	collectives/place/anneal.hpp collectives/place/anneal.cpp \
	collectives/place/moves.hpp collectives/place/moves.cpp \
	collectives/place/no_ring.hpp collectives/place/no_ring.cpp
libacpx_la_CPPFLAGS += -DACPX_DATADIR='"$(pkgdatadir)"'

# The built-in calibration: a calibration file like any other, installed
# under share/acpx/ and compiled in as a string (calibration.cpp), so an
# uninstalled build has it too.
dist_pkgdata_DATA = share/acpx/builtin-calibration.json
EXTRA_DIST += share/acpx/README.md
BUILT_SOURCES += collectives/model/builtin_calibration.inc
CLEANFILES += collectives/model/builtin_calibration.inc
collectives/model/builtin_calibration.inc: $(srcdir)/share/acpx/builtin-calibration.json
	$(AM_V_GEN)mkdir -p collectives/model && \
	{ echo 'R"acpx_json('; cat $(srcdir)/share/acpx/builtin-calibration.json; echo ')acpx_json"'; } > $@.tmp && mv $@.tmp $@
