// Synthetic calibrations and topologies the model's tests build on.
#pragma once

#include <string>

#include <gtest/gtest.h>

#include "collectives/model/predict.hpp"

namespace model_fixtures {

using acpx::collectives::model::Calibration;
using acpx::collectives::model::Samples;
using acpx::collectives::model::Topology;

// A calibration where a copy of M bytes takes a + b*M seconds and memcpy nothing.
inline Calibration linear(double a, double b) {
    Calibration c;
    c.comm = Samples({{0, a}, {1 << 30, a + b * (1 << 30)}});
    c.memcpy = Samples({{0, 0}, {1 << 20, 0}});
    return c;
}

// A block of `b` bytes' share of a round of `m` bytes, as
// Calibration::copy_seconds charges it: its bytes times the entry's
// time per byte beyond its time for a few bytes (64 here: the samples
// start above that).
inline double share(const Samples &entry, double b, double m) { return b * (entry.at(m) - entry.at(64)) / m; }

inline Topology topo(const std::string &spec) {
    Topology t;
    std::string why;
    EXPECT_TRUE(parse_topology(spec, &t, &why)) << spec << ": " << why;
    return t;
}

}  // namespace model_fixtures
