// cli::path_writable (cli_options.hpp). A file of its own: <filesystem> brings std::quoted, which
// argument-dependent lookup would find beside cli_options.cpp's own quoted().
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <system_error>

#include "cli_options.hpp"

namespace pacer::cli {

bool path_writable(const std::string& path, std::string* why) {
    if (path.empty()) {
        *why = "empty path";
        return false;
    }
    std::error_code ec;
    const bool existed = std::filesystem::exists(path, ec);
    std::FILE* f = std::fopen(path.c_str(), "ab");  // "a": never truncates an existing file
    if (f == nullptr) {
        *why = std::strerror(errno);
        return false;
    }
    std::fclose(f);
    if (!existed) std::remove(path.c_str());
    return true;
}

}  // namespace pacer::cli
