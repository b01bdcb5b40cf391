// A capturing process killed with SIGKILL (a crash, `kill -9`, the OOM killer) keeps the frames
// before the kill: the capture loses at most max(64 rows, 0.25 s of frames), every complete row
// in the file parses, and nothing is torn but possibly a last line without its line feed.
//
// A forked child paces a loop at the given rate and captures it; after each add() it publishes
// how many frames it added in shared memory. The parent waits until the file shows a few writes,
// kills the child at a moment unrelated to its writes and compares the rows on disk with the
// child's count. Real processes and clocks: a loaded machine slows the child, which only changes
// how long the parent waits, never the rule checked. Linux only (fork, mmap, signals).
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <new>
#include <sstream>
#include <string>
#include <thread>

#include "capture_reader.hpp"
#include "pacer/pacer.hpp"

namespace {

using namespace std::chrono_literals;

// Runs in the child: paces and captures until killed (or 120 s, so that a parent that died
// cannot leave it running forever).
[[noreturn]] void capture_until_killed(const std::string& path, double hz, std::atomic<std::uint64_t>* added) {
    pacer::set_log_function(nullptr);
    pacer::FramePacer fp({.target_hz = hz});
    pacer::CaptureWriter cap;
    pacer::CaptureOptions o;
    o.application = "kill-test";
    if (!cap.open(path, o).ok()) _exit(3);
    const auto end = std::chrono::steady_clock::now() + 120s;
    while (std::chrono::steady_clock::now() < end) {
        cap.add(fp.wait());
        added->fetch_add(1, std::memory_order_release);
    }
    _exit(4);
}

std::string read_all(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void kill_while_capturing(double hz) {
    const std::string path = std::string(PACER_TEST_WORK_DIR) + "/kill_" + std::to_string(static_cast<int>(hz)) + ".csv";
    std::remove(path.c_str());
    void* mem = mmap(nullptr, sizeof(std::atomic<std::uint64_t>), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                     -1, 0);
    ASSERT_NE(mem, MAP_FAILED);
    auto* added = new (mem) std::atomic<std::uint64_t>(0);
    std::fflush(nullptr);  // nothing buffered in the parent is written twice
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) capture_until_killed(path, hz, added);

    // Progress: at least three writes of rows on disk (each is 64 rows or more), however slowly
    // the child runs.
    const auto allowed = std::max<std::uint64_t>(64, static_cast<std::uint64_t>(std::ceil(0.25 * hz)));
    const std::int64_t three_writes = 3 * 64 * 150;  // bytes; a row is over 150 bytes
    struct stat st {};
    for (int i = 0; i < 3000; ++i) {
        if (stat(path.c_str(), &st) == 0 && st.st_size > three_writes) break;
        std::this_thread::sleep_for(10ms);
    }
    ASSERT_GT(st.st_size, three_writes) << "the child wrote no rows in 30 s";
    // Then the worst moment for the rule: the kill comes once the child has added more than the
    // allowed loss since the file last grew (a writer that holds rows longer fails here), or
    // after 1.5 s of watching (a writer that keeps the rule never lets that happen).
    off_t size = st.st_size;
    std::uint64_t at_growth = added->load(std::memory_order_acquire);
    const auto watch_end = std::chrono::steady_clock::now() + 1500ms;
    while (std::chrono::steady_clock::now() < watch_end) {
        std::this_thread::sleep_for(1ms);
        const std::uint64_t n = added->load(std::memory_order_acquire);
        if (stat(path.c_str(), &st) == 0 && st.st_size != size) {
            size = st.st_size;
            at_growth = n;
        } else if (n - at_growth > allowed + 16) {
            break;
        }
    }
    ASSERT_EQ(kill(pid, SIGKILL), 0);
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "status " << status;
    const std::uint64_t frames = added->load(std::memory_order_acquire);
    munmap(mem, sizeof(std::atomic<std::uint64_t>));

    // Every write() is of whole rows, but Linux may stop a write of many pages part-way when
    // SIGKILL arrives (seen at 10 kHz: a 128 KiB write cut at a page boundary), so the file may
    // end in a fragment of a row. The reader leaves it out and says so; every row before it must
    // be whole and in order.
    const std::string text = read_all(path);
    ASSERT_NE(text.rfind('\n'), std::string::npos);
    const bool torn = text.back() != '\n';

    pacer::tools::CaptureReader reader;
    ASSERT_TRUE(reader.open_memory(text, path).ok()) << reader.error().message();
    std::uint64_t rows = 0;
    double last_index = -1, last_time = -1;
    for (pacer::tools::FrameRecord f; reader.next(f);) {
        ++rows;
        ASSERT_GT(f.frame_index, last_index) << "line " << f.line;  // no row twice, none out of order
        ASSERT_GE(f.time_s, last_time) << "line " << f.line;
        ASSERT_GT(f.frame_ms, 0.0) << "line " << f.line;
        last_index = f.frame_index;
        last_time = f.time_s;
    }
    ASSERT_TRUE(reader.error().ok()) << reader.error().message();
    EXPECT_EQ(reader.cut_last_line(), torn);

    // The child added `frames` frames (perhaps one more, killed between add() and the count); the
    // first has no frame time, so at most frames rows exist, and the rule allows losing
    // max(64 rows, 0.25 s of frames).
    EXPECT_LE(rows, frames);
    EXPECT_GE(rows + allowed, frames - 1) << rows << " rows on disk of " << frames << " frames paced";
    std::printf("[ info ] %g Hz: killed after %llu frames; %llu rows on disk, %llu lost (allowed %llu)%s\n", hz,
                static_cast<unsigned long long>(frames), static_cast<unsigned long long>(rows),
                static_cast<unsigned long long>(frames - 1 - std::min(rows, frames - 1)),
                static_cast<unsigned long long>(allowed), torn ? "; the last row cut short by the kill" : "");
}

TEST(KillCapture, At144HzLosesAtMost64Rows) { kill_while_capturing(144.0); }

TEST(KillCapture, At10kHzLosesAtMostAQuarterSecond) { kill_while_capturing(10'000.0); }

}  // namespace
