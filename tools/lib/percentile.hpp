// tools/lib/percentile.hpp - a percentile of values in any order: pacer::percentile_sorted of a
// sorted copy, for the simulations' figures (display_sim, latency_sim).
#pragma once

#include <algorithm>
#include <vector>

#include "pacer/stats.hpp"

namespace pacer::tools {

inline double percentile_of(std::vector<double> v, double p) {
    std::sort(v.begin(), v.end());
    return percentile_sorted(v, p);
}

}  // namespace pacer::tools
