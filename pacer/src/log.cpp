#include "pacer/log.hpp"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <mutex>

namespace pacer {
namespace {

std::mutex g_mutex;
std::shared_ptr<spdlog::logger> g_logger;
bool g_set = false;

}  // namespace

void set_logger(std::shared_ptr<spdlog::logger> logger) {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_logger = std::move(logger);
    g_set = true;
}

std::shared_ptr<spdlog::logger> logger() {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (!g_set) {
        g_set = true;
        g_logger = spdlog::get("pacer");
        if (!g_logger) {
            try {
                g_logger = spdlog::stderr_color_mt("pacer");
            } catch (const spdlog::spdlog_ex&) {  // registered meanwhile by another thread
                g_logger = spdlog::get("pacer");
            }
        }
    }
    return g_logger;
}

}  // namespace pacer
