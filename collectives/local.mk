# collectives/: algorithms as pure functions returning command lists, and
# the calibrated model that picks one per handle. Built into libacpx (the
# middle layer uses them) and tested on their own.
libacpx_la_SOURCES += \
	collectives/command_list.hpp collectives/algorithms.hpp \
	collectives/bcast.cpp collectives/allgather.cpp collectives/names.cpp \
	collectives/check_list.cpp \
	collectives/model/calibration.hpp collectives/model/calibration.cpp \
	collectives/model/topology.hpp collectives/model/topology.cpp \
	collectives/model/predict.hpp collectives/model/predict.cpp \
	collectives/model/round_lists.hpp collectives/model/round_lists.cpp \
	collectives/model/crowd_costs.hpp collectives/model/crowd_costs.cpp \
	collectives/model/crowded_round.hpp collectives/model/crowded_round.cpp \
	collectives/model/solve.hpp \
	collectives/model/footprint.hpp collectives/model/footprint.cpp \
	collectives/model/crowded_sim.hpp collectives/model/crowded_sim.cpp \
	collectives/model/overlap.hpp collectives/model/overlap.cpp
libacpx_la_CPPFLAGS += -DACPX_DATADIR='"$(pkgdatadir)"'
