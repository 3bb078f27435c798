# collectives/: algorithms as pure functions returning command lists. Built
# into libacpx (the middle layer uses them) and tested on their own.
libacpx_la_SOURCES += \
	collectives/command_list.hpp collectives/algorithms.hpp \
	collectives/bcast.cpp collectives/allgather.cpp collectives/names.cpp \
	collectives/check_list.cpp
