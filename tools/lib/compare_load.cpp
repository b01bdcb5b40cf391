// The busy loads of `pacer compare`: threads in the process, forked processes in its session or
// in sessions of their own (tools/lib/compare_load.hpp).
#include "compare_load.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include "cli_options.hpp"
#include "tools.hpp"

#ifndef _WIN32
#include <csignal>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#endif
#ifdef __linux__
#include <sys/prctl.h>
#endif

namespace pacer::tools {

struct ContentionLoad::Threads {
    explicit Threads(int n) : load(n) {}
    BusyLoad load;
};

const char* describe(Contention kind) noexcept {
    switch (kind) {
        case Contention::threads: return "busy threads in the process (an engine's workers)";
        case Contention::processes: return "busy processes in the same session (fork(): its autogroup, cgroup)";
        case Contention::sessions: return "busy processes, each in a session of its own (fork(), setsid())";
    }
    return "?";
}

Status contention_supported(Contention kind) {
#ifdef _WIN32
    if (kind != Contention::threads)
        return Status::error(std::string(name_of(kContentionNames, kind)) +
                             ": busy processes need fork(), Linux and Unix only; threads works everywhere");
#else
    (void)kind;
#endif
    return Status{};
}

Status parse_contention_list(std::string_view text, std::vector<Contention>* out) {
    std::vector<Contention> kinds;
    for (std::size_t start = 0;;) {
        const std::size_t comma = text.find(',', start);
        const std::string item(text.substr(start, comma == std::string_view::npos ? comma : comma - start));
        Contention k{};
        if (!parse_name(kContentionNames, item.c_str(), &k))
            return Status::error(cli::quoted(item) + " is not threads, processes or sessions");
        if (Status s = contention_supported(k); !s) return s;
        kinds.push_back(k);
        if (comma == std::string_view::npos) break;
        start = comma + 1;
    }
    *out = std::move(kinds);
    return Status{};
}

std::string contention_label(Contention kind, int n) {
    if (n == 0) return "0";
    static constexpr const char* kOne[] = {"thread", "process", "session"};
    static constexpr const char* kMany[] = {"threads", "processes", "sessions"};
    const auto i = static_cast<std::size_t>(kind);
    return std::to_string(n) + ' ' + (n == 1 ? kOne[i] : kMany[i]);
}

std::string load_text(Contention kind, int load) {
    if (load == 0) return "no busy load";
    static constexpr const char* kWhere[] = {"in the process", "in the same session",
                                             "each in a session of its own"};
    const char* noun = kind == Contention::threads ? (load == 1 ? "thread" : "threads")
                                                   : (load == 1 ? "process" : "processes");
    return std::to_string(load) + " busy " + noun + " " + kWhere[static_cast<std::size_t>(kind)] +
           " (--contention " + name_of(kContentionNames, kind) + ")";
}

namespace {

// The process's CPU cgroup as /proc/self/cgroup shows it (a cgroup namespace may show its own root
// as "/"): the path in the v1 hierarchy with the cpu controller, or the v2 path where the v2 root
// hands the cpu controller to its children, else "/" (the root CPU group); "" when unknown.
std::string cpu_cgroup() {
    std::ifstream f("/proc/self/cgroup");
    std::string line, v2;
    bool any = false;
    while (std::getline(f, line)) {  // "4:cpu,cpuacct:/user.slice", "0::/user.slice/x.scope"
        const std::size_t a = line.find(':'), b = a == std::string::npos ? a : line.find(':', a + 1);
        if (b == std::string::npos) continue;
        any = true;
        const std::string controllers = "," + line.substr(a + 1, b - a - 1) + ",";
        if (controllers == ",,") v2 = line.substr(b + 1);
        else if (controllers.find(",cpu,") != std::string::npos) return line.substr(b + 1);
    }
    if (!any) return "";
    if (v2.empty() || v2 == "/") return "/";
    std::ifstream root("/sys/fs/cgroup/cgroup.subtree_control");
    if (!root) return "";
    for (std::string word; root >> word;)
        if (word == "cpu") return v2;
    return "/";
}

}  // namespace

std::string autogroup_note() {
    std::ifstream f("/proc/sys/kernel/sched_autogroup_enabled");
    int on = -1;
    if (!(f >> on)) return "";
    if (!on) return "autogroup off (sessions share the CPU per thread, as processes do, unless cgroups split them)";
    // The kernel puts a session in an autogroup of its own only in the root CPU cgroup.
    const std::string cg = cpu_cgroup();
    if (cg == "/") return "autogroup on, the root CPU cgroup (a new session is a group of its own)";
    if (cg.empty()) return "autogroup on (a new session is a group of its own in the root CPU cgroup only; "
                           "this process's CPU cgroup unknown)";
    return "autogroup on, but cgroup " + cg + " is under the cpu controller: autogroups act in the root CPU "
           "cgroup only, so sessions share that group with the pacer as processes do";
}

#ifndef _WIN32
namespace {

// The child: dies with its parent, leaves the session if asked, spins. Async-signal-safe calls
// only (the parent may have threads).
[[noreturn]] void spin_child(pid_t parent, bool own_session) {
#ifdef __linux__
    (void)prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
    if (getppid() != parent) _exit(0);  // the parent died before the line above
    if (own_session) (void)setsid();
    volatile unsigned long x = 0;
    for (;;) {
        x = x + 1;
        if ((x & 0xFFFFFu) == 0 && getppid() != parent) _exit(0);  // no PDEATHSIG (not Linux)
    }
}

}  // namespace
#endif

ContentionLoad::ContentionLoad(Contention kind, int n) {
    if (n <= 0) return;
    if (kind == Contention::threads) {
        threads_ = std::make_unique<Threads>(n);
        return;
    }
#ifdef _WIN32
    status_ = contention_supported(kind);
#else
    const pid_t parent = getpid();
    for (int i = 0; i < n; ++i) {
        const pid_t pid = fork();
        if (pid == 0) spin_child(parent, kind == Contention::sessions);
        if (pid < 0) {
            status_ = Status::error(std::string("fork: ") + std::strerror(errno));
            return;
        }
        pids_.push_back(static_cast<long>(pid));
    }
#endif
}

ContentionLoad::~ContentionLoad() {
#ifndef _WIN32
    for (const long pid : pids_) (void)kill(static_cast<pid_t>(pid), SIGKILL);
    for (const long pid : pids_)
        while (waitpid(static_cast<pid_t>(pid), nullptr, 0) < 0 && errno == EINTR) {
        }
#endif
}

Steal Steal::read() {
    Steal s;
    std::ifstream f("/proc/stat");
    std::string cpu;
    double v[8] = {};
    if (!(f >> cpu) || cpu != "cpu") return {-1, 0};
    for (double& x : v) f >> x;
    for (double x : v) s.total += x;
    s.steal = v[7];
    return s;
}

double Steal::pct(const Steal& a, const Steal& b) {
    if (a.total < 0 || b.total <= a.total) return -1;
    return 100.0 * (b.steal - a.steal) / (b.total - a.total);
}

std::string steal_text(double pct) {
    char buf[48] = "steal unknown";
    if (pct >= 0) std::snprintf(buf, sizeof buf, "steal %.1f %%", pct);
    return buf;
}

}  // namespace pacer::tools
