// `pacer simulate latency`: frame_start, present and just_in_time sync on the same seeded work
// trace, in virtual time, against a display that shows each present at the next vblank
// (tools/latency_sim.hpp). Deterministic: the same options print the same table everywhere.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "capture_reader.hpp"
#include "cli_options.hpp"
#include "latency_sim.hpp"
#include "pacer/log.hpp"
#include "commands.hpp"
#include "format.hpp"

namespace pacer::tools {
namespace {

// "lognormal:MEAN_MS,SIGMA", "const:MS" or "replay:FILE".
Status parse_work(std::string_view v, WorkModel* w, std::string* replay) {
    auto number = [](std::string_view text, double lo, double hi, const char* what, double* out) -> Status {
        const std::string s(text);
        char* end = nullptr;
        const double x = std::strtod(s.c_str(), &end);
        if (s.empty() || end != s.c_str() + s.size() || !std::isfinite(x))
            return Status::error(std::string(what) + " " + cli::quoted(text) + " is not a number");
        if (x < lo || x > hi)
            return Status::error(std::string(what) + " = " + cli::format_number(x) + ": must be " +
                                 cli::format_range(lo, hi));
        *out = x;
        return {};
    };
    const std::string_view usage = "expected lognormal:MEAN_MS,SIGMA, const:MS or replay:FILE.csv";
    if (v.rfind("lognormal:", 0) == 0) {
        const std::string_view rest = v.substr(10);
        const std::size_t comma = rest.find(',');
        if (comma == std::string_view::npos)
            return Status::error(cli::quoted(v) + ": " + std::string(usage));
        w->kind = WorkModel::Kind::lognormal;
        if (Status s = number(rest.substr(0, comma), 0.001, 1000.0, "MEAN_MS", &w->mean_ms); !s) return s;
        return number(rest.substr(comma + 1), 0.0, 3.0, "SIGMA", &w->sigma);
    }
    if (v.rfind("const:", 0) == 0) {
        w->kind = WorkModel::Kind::constant;
        return number(v.substr(6), 0.0, 1000.0, "MS", &w->mean_ms);
    }
    if (v.rfind("replay:", 0) == 0 && v.size() > 7) {
        w->kind = WorkModel::Kind::replay;
        *replay = std::string(v.substr(7));
        return {};
    }
    return Status::error(cli::quoted(v) + ": " + std::string(usage));
}

// Per-frame work from a capture's CPU-busy column (MsCPUBusy, PresentMon 2.x CPUBusy).
Status read_replay(const std::string& path, std::vector<double>* out) {
    CaptureReader r;
    if (Status s = r.open(path); !s) return s;
    FrameRecord f;
    while (r.next(f))
        if (std::isfinite(f.busy_ms)) out->push_back(f.busy_ms);
    if (!r.error().ok()) return r.error();
    if (out->empty()) return Status::error(path + ": no CPU-busy time (MsCPUBusy or CPUBusy column) in any row");
    return {};
}


// The command line: the simulation's settings and what is printed about them.
struct LatencyOptions {
    LatencySimConfig cfg;
    std::string work_text = "lognormal:4,0.5";  // as given, for the heading
    std::string replay;                         // --work replay:FILE
    double step_at = -1;                        // < 0: no step
    long long seed = 1;
    bool json = false;
};

cli::Parser latency_parser(LatencyOptions* o) {
    LatencySimConfig& cfg = o->cfg;
    cli::Parser opts("pacer simulate latency", "",
                     "Runs frame_start, present and just_in_time sync on the same seeded work trace in virtual\n"
                     "time: a Linux-like OS model (50 us timer slack, wake-up noise, rare preemptions) and a\n"
                     "display refreshing at --hz that shows each present at the next vblank (vsync on, one\n"
                     "present may wait). Latency = input sample (frame start) to the vblank that showed it; a\n"
                     "late frame is one the display had to repeat the previous image for. The first second is\n"
                     "warm-up (--warm-up-s). Deterministic: the same options print the same table.");
    opts.number("--hz", "HZ", "target rate and display refresh", &cfg.hz, 20.0, 1000.0);
    opts.custom("--work", "lognormal:MEAN_MS,SIGMA|const:MS|replay:FILE.csv",
                "per-frame work: lognormal with this mean and log-sigma, constant, or the CPU-busy column of a "
                "capture (MsCPUBusy / PresentMon 2.x CPUBusy, repeated)",
                [o](std::string_view v) {
                    o->work_text = std::string(v);
                    return parse_work(v, &o->cfg.work, &o->replay);
                })
        .default_text = "lognormal:4,0.5";
    opts.number("--step-at-s", "T", "multiply the work by --step-factor from T seconds on", &o->step_at, 0.0, 3600.0)
        .default_text = "no step";
    opts.number("--step-factor", "F", "work multiplier of the step", &cfg.step_factor, 0.1, 10.0);
    opts.number("--max-late-share", "B", "just_in_time's budget of late frames", &cfg.max_late_share, 0.001, 0.5);
    opts.number("--seconds", "S", "virtual time per sync mode", &cfg.seconds, 1.0, 3600.0);
    opts.number("--warm-up-s", "W",
                "seconds not counted at the start, below --seconds (0: count the pacer's learning too)",
                &cfg.warm_up_s, 0.0, 3600.0);
    opts.number("--seed", "N", "seed of the work trace and the OS model", &o->seed, 0LL, 1LL << 53);
    opts.flag("--render-thread",
              "a render thread presents a frame behind the pacing thread, doing --render-share of each frame's "
              "work: frame_start and just_in_time with it, beside the same two in one thread",
              &cfg.render_thread);
    opts.number("--render-share", "S", "the render thread's share of each frame's work", &cfg.render_share, 0.0, 1.0);
    opts.flag("--json", "print JSON (one object per sync mode) instead of the table", &o->json);
    return opts;
}

// The checks after parsing and the replayed work: 0 when the run can start, else the exit code.
int finish_options(LatencyOptions* o) {
    if (o->step_at >= o->cfg.seconds) {
        std::fprintf(stderr, "pacer simulate latency: --step-at-s = %g: must be below --seconds (%g)\n", o->step_at,
                     o->cfg.seconds);
        return 2;
    }
    if (o->cfg.warm_up_s >= o->cfg.seconds) {
        std::fprintf(stderr, "pacer simulate latency: --warm-up-s = %g: must be below --seconds (%g)\n",
                     o->cfg.warm_up_s, o->cfg.seconds);
        return 2;
    }
    if (!o->replay.empty()) {
        if (Status s = read_replay(o->replay, &o->cfg.work.replay_ms); !s) {
            std::fprintf(stderr, "pacer simulate latency: %s\n", s.message().c_str());
            return 1;
        }
    }
    o->cfg.step_at_s = o->step_at;
    o->cfg.seed = static_cast<std::uint64_t>(o->seed);
    return 0;
}

// q: the work quantile the late budget allows.
void print_json(const LatencyOptions& o, double q, const std::vector<LatencySimResult>& rs) {
    const LatencySimConfig& cfg = o.cfg;
    std::printf("{\n  \"hz\": %s, \"work\": \"%s\", \"work_quantile_ms\": %s, \"max_late_share\": %s,\n"
                "  \"seconds\": %s, \"warm_up_s\": %s, \"seed\": %lld, \"step_at_s\": %s, \"step_factor\": %s",
                json_number(cfg.hz).c_str(), o.replay.empty() ? o.work_text.c_str() : "replay",
                json_number(q).c_str(), json_number(cfg.max_late_share).c_str(), json_number(cfg.seconds).c_str(),
                json_number(cfg.warm_up_s).c_str(), o.seed, o.step_at >= 0 ? json_number(o.step_at).c_str() : "null",
                json_number(cfg.step_factor).c_str());
    for (const LatencySimResult& r : rs) {
        std::printf(",\n  \"%s%s\": {\"frames\": %zu, \"latency_p50_ms\": %s, \"latency_p99_ms\": %s, "
                    "\"late_share\": %s, \"present_interval_p99_error_ms\": %s, \"cpu_share\": %s",
                    to_string(r.sync), r.render_thread ? "_render_thread" : "", r.frames,
                    json_number(r.latency_p50_ms).c_str(),
                    json_number(r.latency_p99_ms).c_str(), json_number(r.late_share).c_str(),
                    json_number(r.present_interval_p99_error_ms).c_str(), json_number(r.cpu_share).c_str());
        if (r.sync == SyncMode::just_in_time)
            std::printf(", \"recovery_frames\": %s",
                        r.recovery_frames ? std::to_string(*r.recovery_frames).c_str() : "null");
        std::printf("}");
    }
    std::printf("\n}\n");
}

void print_table(const LatencyOptions& o, double q, const std::vector<LatencySimResult>& rs) {
    const LatencySimConfig& cfg = o.cfg;
    std::printf("pacer simulate latency: %g Hz vsync display, work %s (%.0f %% quantile %.2f ms), %g s, seed %lld\n",
                cfg.hz, o.replay.empty() ? o.work_text.c_str() : ("replay of " + o.replay).c_str(),
                100.0 * (1.0 - cfg.max_late_share), q, cfg.seconds, o.seed);
    if (cfg.warm_up_s != 1.0) std::printf("counted from %g s on (--warm-up-s)\n", cfg.warm_up_s);
    if (o.step_at >= 0) std::printf("work x %g from %g s on\n", cfg.step_factor, o.step_at);
    if (cfg.render_thread)
        std::printf("render thread: %.0f %% of each frame's work, presenting a frame behind\n", 100.0 * cfg.render_share);
    std::printf("\n%-13s %7s %9s %9s %8s %16s %7s %9s%s\n", "sync", "frames", "lat p50", "lat p99", "late",
                "present p99 err", "CPU", "recovery", cfg.render_thread ? "  threads" : "");
    for (const LatencySimResult& r : rs) {
        std::string rec = "-";
        if (r.sync == SyncMode::just_in_time && r.recovery_frames) rec = std::to_string(*r.recovery_frames);
        const char* threads = !cfg.render_thread ? "" : r.render_thread ? "  2: render thread" : "  1";
        std::printf("%-13s %7zu %6.2f ms %6.2f ms %6.2f %% %13.3f ms %5.1f %% %9s%s\n", to_string(r.sync), r.frames,
                    r.latency_p50_ms, r.latency_p99_ms, 100.0 * r.late_share, r.present_interval_p99_error_ms,
                    100.0 * r.cpu_share, rec.c_str(), threads);
    }
    std::printf("\nlate budget %.2f %% of %zu frames: at most %.0f late (binomial 95 %%)\n", 100.0 * cfg.max_late_share,
                rs.back().frames, std::floor(late_bound(rs.back().frames, cfg.max_late_share)));
}

}  // namespace

int simulate_latency_main(int argc, char** argv) {
    pacer::set_log_function(nullptr);  // the sim's warnings (vsync not shown to the detector) are noise here
    LatencyOptions o;
    const cli::Parser opts = latency_parser(&o);
    const cli::Parsed parsed = opts.parse(argc, argv);
    if (parsed.stopped()) return cli::stop(opts, parsed.status);
    if (const int code = finish_options(&o); code != 0) return code;

    const double q = work_quantile_ms(o.cfg.work, 1.0 - o.cfg.max_late_share);
    std::vector<LatencySimResult> rs;
    if (o.cfg.render_thread) {
        // The model draws the render thread's times instead of calling the pacer from it: present
        // sync, which waits in the render thread's before_present(), is not modelled.
        LatencySimConfig one = o.cfg;
        one.render_thread = false;
        for (SyncMode m : {SyncMode::frame_start, SyncMode::just_in_time}) {
            rs.push_back(run_latency_sim(one, m));
            rs.push_back(run_latency_sim(o.cfg, m));
        }
    } else {
        for (SyncMode m : {SyncMode::frame_start, SyncMode::present, SyncMode::just_in_time})
            rs.push_back(run_latency_sim(o.cfg, m));
    }
    if (o.json)
        print_json(o, q, rs);
    else
        print_table(o, q, rs);
    return 0;
}

}  // namespace pacer::tools
