#include "options.hpp"

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string_view>
#include <system_error>

#include "pacer/fixed_step.hpp"
#include "session.hpp"

namespace pacer_demo {

bool parse_double(const char* text, double* out) {
    if (text == nullptr || *text == '\0') return false;
    // strtod, not from_chars: libstdc++ 12 has from_chars for double, but strtod is everywhere.
    // Leading blanks are refused too, so the whole string must be the number.
    if (std::isspace(static_cast<unsigned char>(*text))) return false;
    errno = 0;
    char* end = nullptr;
    const double v = std::strtod(text, &end);
    if (end == text || *end != '\0' || errno == ERANGE || !std::isfinite(v)) return false;
    *out = v;
    return true;
}

bool parse_uint(const char* text, std::uint64_t* out) {
    if (text == nullptr || *text == '\0') return false;
    const std::string_view s(text);
    std::uint64_t v = 0;
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || ptr != s.data() + s.size()) return false;
    *out = v;
    return true;
}

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

std::string usage() {
    return
        "usage: pacer_demo [options]\n"
        "Paces a game-like loop with pacer::FramePacer and shows frame times, histograms, CPU cost\n"
        "and controls (SDL2 + Dear ImGui). Without a display, or with --headless, it runs the same\n"
        "loop without a window, prints a status line every second and a summary line at the end.\n"
        "\n"
        "  --hz RATE              target frame rate, (0, 10000]                    [60]\n"
        "  --mode MODE            wait mode: sleep | spin | hybrid | vsync | auto   [hybrid]\n"
        "                         (vsync: the swap paces; auto: vsync when verified, else hybrid)\n"
        "  --policy POLICY        late-frame policy: catch_up | skip | resync       [catch_up]\n"
        "  --seconds S            stop after S seconds (0 = no bound)               [window: 0, headless: 10]\n"
        "  --frames N             stop after N frames (0 = no bound)                [0]\n"
        "  --load N               background busy threads, 0..64                    [0]\n"
        "  --work-ms MS           simulated work per frame (busy spin), 0..1000     [1.0]\n"
        "  --work-jitter-ms MS    +- uniform jitter of the work, 0..1000            [0.5]\n"
        "  --vsync on|off         request vsync in sleep/spin/hybrid modes; vsync and auto\n"
        "                         modes set the swap interval themselves        [off]\n"
        "  --refresh-hz RATE      display refresh rate when the display cannot tell (Xvfb),\n"
        "                         0 = ask the display                           [0]\n"
        "  --sim-hz RATE          fixed simulation rate, (0, 100000]                [60]\n"
        "  --coarse-ms P          fake coarse scheduler of period P ms, 0..10 (0 = real OS sleep) [0]\n"
        "  --headless             no window, even if a display is available\n"
        "  --capture FILE.csv     capture every frame to FILE.csv (PresentMon columns + pacer's)\n"
        "                         and a summary to FILE-stats.csv; read them with `pacer analyze`\n"
        "  --screenshot FILE.png  write a PNG of the window after --screenshot-frame frames\n"
        "  --screenshot-frame N   frame of the screenshot, >= 1                     [120]\n"
        "  --help                 this text\n"
        "\n"
        "Options take their value as the next argument or after '=' (--hz=144).\n"
        "Exit status: 0 ok, 1 runtime failure (e.g. screenshot not written), 2 bad command line.\n";
}

namespace {

ParseResult fail(std::string msg) {
    ParseResult r;
    r.exit = true;
    r.exit_code = 2;
    r.message = "pacer_demo: " + std::move(msg) + " (see --help)";
    return r;
}

std::string quoted(const char* v) { return std::string("'") + v + "'"; }

}  // namespace

ParseResult parse_options(int argc, const char* const* argv, Options* out) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        std::string name = argv[i];
        std::string inline_value;
        bool has_inline = false;
        if (const auto eq = name.find('='); name.rfind("--", 0) == 0 && eq != std::string::npos) {
            inline_value = name.substr(eq + 1);
            name = name.substr(0, eq);
            has_inline = true;
        }
        // Fetches the option's value; nullptr if missing.
        const auto value = [&]() -> const char* {
            if (has_inline) return inline_value.c_str();
            if (i + 1 < argc) return argv[++i];
            return nullptr;
        };

        if (name == "--help" || name == "-h") {
            ParseResult r;
            r.exit = true;
            r.exit_code = 0;
            r.message = usage();
            return r;
        }
        if (name == "--headless") {
            if (has_inline) return fail("--headless takes no value");
            o.headless = true;
            continue;
        }

        static const char* const kValued[] = {
            "--hz",   "--mode",   "--policy", "--seconds", "--frames", "--load",
            "--work-ms", "--work-jitter-ms", "--vsync", "--sim-hz", "--coarse-ms",
            "--screenshot", "--screenshot-frame", "--refresh-hz", "--capture"};
        bool known = false;
        for (const char* k : kValued) known = known || name == k;
        if (!known) return fail("unknown option " + quoted(argv[i]));
        const char* v = value();
        if (v == nullptr) return fail(name + " needs a value");

        if (name == "--hz") {
            pacer::PacerConfig c;
            if (!parse_double(v, &c.target_hz)) return fail("--hz " + quoted(v) + ": not a number");
            if (pacer::Status s = pacer::validate(c); !s) return fail("--hz: " + s.message());
            o.hz = c.target_hz;
        } else if (name == "--mode") {
            if (!pacer::parse_wait_mode(v, &o.mode))
                return fail("--mode " + quoted(v) + ": expected sleep, spin, hybrid, vsync or auto");
        } else if (name == "--policy") {
            if (!pacer::parse_late_policy(v, &o.policy))
                return fail("--policy " + quoted(v) + ": expected catch_up, skip or resync");
        } else if (name == "--seconds") {
            if (!parse_double(v, &o.seconds) || o.seconds < 0 || o.seconds > 1e6)
                return fail("--seconds " + quoted(v) + ": expected a number of seconds in [0, 1e6]");
        } else if (name == "--frames") {
            if (!parse_uint(v, &o.frames))
                return fail("--frames " + quoted(v) + ": expected a whole number >= 0");
        } else if (name == "--load") {
            std::uint64_t n = 0;
            if (!parse_uint(v, &n) || n > static_cast<std::uint64_t>(kMaxLoadThreads))
                return fail("--load " + quoted(v) + ": expected a whole number of threads in [0, " +
                            std::to_string(kMaxLoadThreads) + "]");
            o.load = static_cast<int>(n);
        } else if (name == "--work-ms" || name == "--work-jitter-ms") {
            double ms = 0;
            if (!parse_double(v, &ms) || ms < 0 || ms > kMaxWorkMs)
                return fail(name + " " + quoted(v) + ": expected milliseconds in [0, 1000]");
            (name == "--work-ms" ? o.work_ms : o.work_jitter_ms) = ms;
        } else if (name == "--vsync") {
            const std::string s = v;
            if (s == "on") o.vsync = true;
            else if (s == "off") o.vsync = false;
            else return fail("--vsync " + quoted(v) + ": expected on or off");
        } else if (name == "--refresh-hz") {
            if (!parse_double(v, &o.refresh_hz) || (o.refresh_hz != 0 && (o.refresh_hz < pacer::kMinRefreshHz ||
                                                                          o.refresh_hz > pacer::kMaxRefreshHz)))
                return fail("--refresh-hz " + quoted(v) + ": expected 0 (ask the display) or a rate in [20, 1000]");
        } else if (name == "--sim-hz") {
            double hz = 0;
            if (!parse_double(v, &hz)) return fail("--sim-hz " + quoted(v) + ": not a number");
            const pacer::FixedStepConfig c = sim_config(hz, 8, std::chrono::nanoseconds(0));
            if (pacer::Status s = pacer::validate(c); !s) return fail("--sim-hz: " + s.message());
            o.sim_hz = hz;
        } else if (name == "--coarse-ms") {
            std::uint64_t n = 0;
            if (!parse_uint(v, &n) || n > 10)
                return fail("--coarse-ms " + quoted(v) + ": expected a whole number of ms in [0, 10]");
            o.coarse_ms = static_cast<int>(n);
        } else if (name == "--screenshot") {
            std::string why;
            if (!path_writable(v, &why))
                return fail("--screenshot " + quoted(v) + ": cannot write there: " + why);
            o.screenshot = v;
        } else if (name == "--capture") {
            std::string why;
            if (!path_writable(v, &why))
                return fail("--capture " + quoted(v) + ": cannot write there: " + why);
            o.capture = v;
        } else if (name == "--screenshot-frame") {
            if (!parse_uint(v, &o.screenshot_frame) || o.screenshot_frame < 1)
                return fail("--screenshot-frame " + quoted(v) + ": expected a whole number >= 1");
        }
    }
    if (o.headless && !o.screenshot.empty()) return fail("--screenshot needs the window, not --headless");
    if (!o.screenshot.empty() && o.frames != 0 && o.frames < o.screenshot_frame)
        return fail("--frames " + std::to_string(o.frames) + " ends before --screenshot-frame " +
                    std::to_string(o.screenshot_frame));
    *out = o;
    return {};
}

}  // namespace pacer_demo
