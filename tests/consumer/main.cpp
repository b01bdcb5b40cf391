// Paces five frames at 200 Hz and checks what it got; exit 0 on success.
#include <pacer/pacer.hpp>

#include <cstdio>

int main() {
    pacer::set_logger(nullptr);
    pacer::FramePacer fp({.target_hz = 200.0});
    pacer::FrameTiming t{};
    for (int i = 0; i < 5; ++i) t = fp.wait();
    const bool ok = t.index == 4 && t.wake >= t.deadline;
    std::printf("consumer: pacer %s, frame %llu, %s\n", pacer::kVersion,
                static_cast<unsigned long long>(t.index), ok ? "ok" : "WRONG");
    return ok ? 0 : 1;
}
