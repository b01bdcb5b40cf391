// A fresh directory in the system's temp folder for a test's files, removed with everything in it
// when the object is destroyed: at the end of a scope, or at exit for a function-local static,
// also when the test failed (a failed EXPECT or ASSERT returns normally). A process killed by a
// signal leaves it behind; the name says which test program made it.
//
//   std::string temp_path(const std::string& name) {
//       static const pacer_test::TempDir dir("pacer-capture-test");  // one per test program
//       return dir.file(name);
//   }
//
// Only the process that made the directory removes it: a death test's forked child that runs the
// exit handlers leaves its parent's files alone.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#ifdef _WIN32
#include <process.h>
#else
#include <unistd.h>
#endif

namespace pacer_test {

class TempDir {
public:
    // temp_directory_path() / "<prefix>-<16 hex digits>", created here; never an existing one.
    explicit TempDir(const std::string& prefix) : owner_(process_id()) {
        std::random_device seed;
        std::mt19937_64 gen((std::uint64_t{seed()} << 32) ^ seed());
        const std::filesystem::path base = std::filesystem::temp_directory_path();
        for (int attempt = 0; attempt < 100; ++attempt) {
            char hex[17];
            std::uint64_t v = gen();
            for (int i = 15; i >= 0; --i, v >>= 4) hex[i] = "0123456789abcdef"[v & 0xF];
            hex[16] = '\0';
            std::filesystem::path candidate = base / (prefix + "-" + hex);
            std::error_code ec;
            if (std::filesystem::create_directory(candidate, ec)) {  // false: it existed already
                path_ = std::move(candidate);
                return;
            }
        }
        throw std::runtime_error("TempDir: cannot create a directory " + prefix + "-* in " + base.string());
    }
    ~TempDir() {
        if (process_id() != owner_) return;
        std::error_code ec;  // a destructor does not throw; a file still open on Windows stays
        std::filesystem::remove_all(path_, ec);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;

    const std::filesystem::path& path() const { return path_; }
    // The path of a file in the directory (not created).
    std::string file(const std::string& name) const { return (path_ / name).string(); }

private:
    static long process_id() {
#ifdef _WIN32
        return static_cast<long>(_getpid());
#else
        return static_cast<long>(getpid());
#endif
    }

    std::filesystem::path path_;
    long owner_;
};

// A file named `name` in this test program's own temporary directory (made at the first call,
// removed at exit).
inline std::string temp_path(const std::string& name) {
    static const TempDir dir("pacer-test");
    return dir.file(name);
}

// A text file's lines, without their '\n' (an empty vector when it cannot be read).
inline std::vector<std::string> read_lines(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::vector<std::string> lines;
    std::string l;
    while (std::getline(in, l)) lines.push_back(l);
    return lines;
}

}  // namespace pacer_test
