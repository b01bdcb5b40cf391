// Random edits of a sample text (replace, erase, insert, truncate), for the tests that check that
// the capture reader and the analysis survive damaged files: a deterministic xorshift stream, so
// a failure reproduces.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pacer_test {

class Mutator {
public:
    Mutator(std::vector<std::string> seeds, std::string alphabet, std::uint64_t seed, int max_edits)
        : seeds_(std::move(seeds)), alphabet_(std::move(alphabet)), x_(seed), max_edits_(max_edits) {}

    // One of the seeds with 1..max_edits random edits.
    std::string next() {
        std::string s = seeds_[rnd() % seeds_.size()];
        const int edits = 1 + static_cast<int>(rnd() % static_cast<std::uint64_t>(max_edits_));
        for (int e = 0; e < edits && !s.empty(); ++e) {
            const std::size_t pos = rnd() % s.size();
            switch (rnd() % 4) {
                case 0: s[pos] = alphabet_[rnd() % alphabet_.size()]; break;
                case 1: s.erase(pos, 1 + rnd() % 4); break;
                case 2: s.insert(pos, 1, alphabet_[rnd() % alphabet_.size()]); break;
                case 3: s.resize(pos); break;
            }
        }
        return s;
    }

private:
    std::uint64_t rnd() {
        x_ ^= x_ << 13;
        x_ ^= x_ >> 7;
        x_ ^= x_ << 17;
        return x_;
    }
    std::vector<std::string> seeds_;
    std::string alphabet_;
    std::uint64_t x_;
    int max_edits_;
};

}  // namespace pacer_test
