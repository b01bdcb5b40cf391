// demo/machine_cpu.hpp - whole-machine CPU load, all cores: 100 % = every core busy.
// Linux: /proc/stat's first line (busy = all fields but idle and iowait). Elsewhere: unavailable.
#pragma once

#include <cstdint>

namespace pacer_demo {

class MachineCpu {
public:
    MachineCpu();
    // Load since the previous call in [0, 100]; a negative value when unavailable ("n/a").
    double sample();
    bool available() const noexcept { return available_; }

private:
    bool read(std::uint64_t* busy, std::uint64_t* total);
    std::uint64_t busy_ = 0, total_ = 0;
    bool available_ = false;
};

}  // namespace pacer_demo
