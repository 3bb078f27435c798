// A floating-point option's value, as the acpx-model commands take them.
#pragma once

#include <cmath>
#include <cstdlib>

namespace acpx::tools {

// The whole of s as a finite number (1e-6, 5e9, 0.9); false otherwise.
inline bool parse_number(const char *s, double *out) {
    char *end = nullptr;
    *out = std::strtod(s, &end);
    return end != s && !*end && std::isfinite(*out);
}

}  // namespace acpx::tools
