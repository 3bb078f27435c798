# middle/: persistent collectives, binding collectives/ command lists to
# real memory and to the basic layer; ACP's channels and segmented
# buffers. Part of libacpx.
libacpx_la_SOURCES += \
	middle/params.cpp middle/params.hpp middle/plan.cpp middle/plan.hpp \
	middle/col.hpp middle/state.cpp middle/eager_pool.cpp middle/eager_pool.hpp middle/ring_queue.hpp middle/owner.cpp middle/owner.hpp middle/one_call.cpp middle/one_call.hpp middle/calls.hpp middle/create.cpp middle/create.hpp \
	middle/choose.cpp middle/choose.hpp middle/round.cpp middle/round.hpp middle/api.cpp \
	middle/allreduce.cpp middle/allreduce_shape.cpp middle/allreduce.hpp \
	middle/channel.cpp middle/channel.hpp middle/segbuf.cpp middle/segbuf.hpp middle/shared_words.hpp
