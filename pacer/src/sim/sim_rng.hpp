// The virtual-time models' random numbers (SimulatedOs, SimulatedDisplay): xoshiro256**
// (Blackman & Vigna) seeded through splitmix64. Fast, and the same stream on every platform and
// standard library, which std::uniform_real_distribution does not promise.
#pragma once

#include <cstdint>

namespace pacer::detail {

inline std::uint64_t splitmix(std::uint64_t& x) noexcept {
    std::uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

inline void seed_rng(std::uint64_t (&s)[4], std::uint64_t seed) noexcept {
    for (auto& w : s) w = splitmix(seed);
}

// Uniform in [0, 1), 53 bits.
inline double next_uniform(std::uint64_t (&s)[4]) noexcept {
    auto rotl = [](std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); };
    const std::uint64_t result = rotl(s[1] * 5, 7) * 9;
    const std::uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return static_cast<double>(result >> 11) * 0x1.0p-53;
}

}  // namespace pacer::detail
