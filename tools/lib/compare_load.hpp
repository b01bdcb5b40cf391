// tools/lib/compare_load.hpp - the busy loads of `pacer compare` (--contention, --load) and the
// hypervisor's steal time printed beside them.
//
//   Contention      threads, processes, sessions: the three kinds of contention of
//                   pacer/priority.hpp ("Why"), named for --contention
//   ContentionLoad  N spinning threads or processes of one kind while it lives
//   Steal           /proc/stat's steal time between two reads (Linux; unknown elsewhere)
//   load_text, steal_text  a setting's heading: its load, its steal time
//
// The process kinds fork() children that spin. They die with the process that forked them (on
// Linux PR_SET_PDEATHSIG with SIGKILL, and everywhere a check of getppid() while they spin), and
// the destructor kills and reaps them. They need fork(): Linux and other Unix systems only
// (contention_supported() says so on Windows).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "pacer/names.hpp"
#include "pacer/status.hpp"

namespace pacer::tools {

enum class Contention {
    threads,    // busy threads in the pacing process (an engine's workers)
    processes,  // busy processes in its session: forked children, the same autogroup / cgroup
    sessions,   // busy processes each in a session of its own (setsid()): on Linux another autogroup
};
inline constexpr EnumName<Contention> kContentionNames[] = {
    {Contention::threads, "threads"}, {Contention::processes, "processes"}, {Contention::sessions, "sessions"}};

// The kind in words, for headings: "busy threads in the process".
const char* describe(Contention kind) noexcept;
// Ok, or why this build cannot start the kind (the process kinds need fork(): not on Windows).
Status contention_supported(Contention kind);
// "threads,sessions": each a name of kContentionNames, each supported here; *out kept on error.
Status parse_contention_list(std::string_view text, std::vector<Contention>* out);
// "2 threads", "1 process", "2 sessions"; "0" for none (no contention, whatever the kind).
std::string contention_label(Contention kind, int n);
// "2 busy threads in the process (--contention threads)", "no busy load": a setting's heading.
std::string load_text(Contention kind, int n);
// Linux: whether a new session is a CPU group of its own: the scheduler's autogroups on, and the
// process in the root CPU cgroup (under a cgroup with the cpu controller, a desktop's app scope
// or a container, autogroups do nothing); empty elsewhere or when unknown.
std::string autogroup_note();

// N busy threads or processes of one kind while the object lives; 0: none.
class ContentionLoad {
public:
    ContentionLoad(Contention kind, int n);
    ~ContentionLoad();  // stops the threads; kills (SIGKILL) and reaps the processes
    ContentionLoad(const ContentionLoad&) = delete;
    ContentionLoad& operator=(const ContentionLoad&) = delete;
    // Ok, or why fewer than asked were started (fork() failed).
    const Status& status() const noexcept { return status_; }

private:
    struct Threads;
    std::unique_ptr<Threads> threads_;
    std::vector<long> pids_;
    Status status_;
};

// The hypervisor's steal time over a setting, from /proc/stat (Linux): a real-time class inside
// the guest cannot win back a vCPU the host took. pct(): -1 where unknown.
struct Steal {
    double total = 0, steal = 0;
    static Steal read();
    static double pct(const Steal& a, const Steal& b);
};
// "steal 0.0 %", or "steal unknown" (pct < 0).
std::string steal_text(double pct);

}  // namespace pacer::tools
