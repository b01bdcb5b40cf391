// Built by hand against the unpacked Debian package: compiled with `c++ $(pkg-config --cflags
// pacer)` and linked with the C driver `cc $(pkg-config --libs pacer)`, so the link succeeds only
// if pacer.pc names everything the static library needs. Paces 10 frames at 200 Hz.
#include <pacer/pacer.hpp>

#include <cstdio>
#include <cstring>

int main(int argc, char** argv) {
    pacer::set_log_function(nullptr);
    pacer::FramePacer pacer({.target_hz = 200.0});
    pacer::FrameTiming t{};
    for (int frame = 0; frame < 10; ++frame) t = pacer.wait();
    // The version pkg-config reported (`pkg-config --modversion pacer`) is the library's.
    bool ok = t.index >= 9 && t.wake >= t.deadline &&
              (argc < 2 || std::strcmp(argv[1], pacer::kVersion) == 0);
    std::printf("frames: pacer %s, frame %llu, %s\n", pacer::kVersion,
                static_cast<unsigned long long>(t.index), ok ? "ok" : "WRONG");
    return ok ? 0 : 1;
}
