/* A C99 game loop on pacer/pacer.h, as a C game embeds pacer: paces 40 frames at 200 Hz (setting
 * its rate every frame, which must change nothing), writes a capture, reads its statistics, the
 * pacer's status, the CPU and the version, then reads the capture file back.
 *   game CAPTURE.csv VERSION     exit 0 when everything came out as documented
 * Built with -Wall -Wextra -Wpedantic -Wconversion -Werror by tests/consumer/c_only (CMake, a
 * project without C++) and with cc $(pkg-config --cflags --libs pacer). */
#include <pacer/pacer.h>

#include <stdio.h>
#include <string.h>

enum { kFrames = 40 };

static int failures = 0;

static void check(int ok, const char* what) {
    if (!ok) {
        ++failures;
        printf("game: FAILED: %s (%s)\n", what, pacer_last_error());
    }
}

/* Lines of path, and whether the first starts with start; -1 when it cannot be read. */
static long count_lines(const char* path, const char* start, int* starts) {
    char line[4096];
    long lines = 0;
    FILE* f = fopen(path, "r");
    if (!f) return -1;
    *starts = 0;
    while (fgets(line, (int)sizeof line, f)) {
        if (lines == 0) *starts = strncmp(line, start, strlen(start)) == 0;
        if (strchr(line, '\n')) ++lines;
    }
    fclose(f);
    return lines;
}

static void pace(pacer_frame_pacer* pacer, pacer_capture* capture, pacer_stats* stats) {
    pacer_frame_timing t;
    int frame;
    for (frame = 0; frame < kFrames; ++frame) {
        check(pacer_wait(pacer, &t) == PACER_OK, "pacer_wait");
        check(pacer_set_target_hz(pacer, 200.0) == PACER_OK, "pacer_set_target_hz(the rate in force)");
        check(t.wake_ns >= t.deadline_ns && t.period_ns == 5000000, "on the 5 ms grid, never early");
        check(pacer_capture_add(capture, &t, NULL) == PACER_OK, "pacer_capture_add");
        check(pacer_stats_add(stats, &t) == PACER_OK, "pacer_stats_add");
    }
}

static void check_status(const pacer_frame_pacer* pacer) {
    pacer_status s;
    check(pacer_get_status(pacer, &s) == PACER_OK, "pacer_get_status");
    check(s.frames == kFrames, "status: frames");
    check(s.missed <= kFrames, "status: missed");
    check(s.period_ns == 5000000, "status: period");
    check(s.vsync.code == PACER_VSYNC_OFF && s.vsync.reason != NULL, "status: vsync off in hybrid mode");
    check(s.display.state == PACER_DISPLAY_UNKNOWN, "status: no display seen");
    check(s.waiter.spin_cap_ns <= 3000000, "status: the spin cap set from C");
}

static void check_stats(const pacer_stats* stats) {
    pacer_stats_summary s;
    check(pacer_stats_summarize(stats, &s) == PACER_OK, "pacer_stats_summarize");
    check(s.frames == kFrames - 1, "stats: every frame but the first has a frame time");
    check(s.frames_total == kFrames, "stats: frames added");
    check(s.interval_ms.p50 >= 4.0 && s.interval_ms.p99 >= s.interval_ms.p50, "stats: percentiles");
    check(s.avg_fps > 0.0 && s.low1_fps > 0.0 && s.low1_fps <= s.avg_fps, "stats: average and 1 % low FPS");
    printf("game: p50 %.3f ms, p99 %.3f ms, %.1f fps, 1 %% low %.1f fps\n", s.interval_ms.p50, s.interval_ms.p99,
           s.avg_fps, s.low1_fps);
}

static void check_capture_file(const char* path) {
    char sidecar[1024];
    int header = 0;
    const long rows = count_lines(path, "Application,ProcessID,SwapChainAddress,", &header);
    check(rows == kFrames, "capture: the header and a row per frame with a frame time");
    check(header, "capture: the PresentMon header");
    snprintf(sidecar, sizeof sidecar, "%.*s-stats.csv", (int)(strlen(path) - 4), path);
    check(count_lines(sidecar, "Key,Value", &header) > 10 && header, "capture: the -stats.csv sidecar");
}

int main(int argc, char** argv) {
    pacer_config config = pacer_config_default();
    pacer_capture_options options = pacer_capture_options_default();
    pacer_frame_pacer* pacer;
    pacer_capture* capture;
    pacer_stats* stats;
    pacer_cpu_meter* cpu = pacer_cpu_meter_create();
    pacer_cpu_usage usage;

    if (argc != 3) {
        printf("usage: game CAPTURE.csv VERSION\n");
        return 2;
    }
    check(pacer_set_log_level(PACER_LOG_ERROR) == PACER_OK, "pacer_set_log_level");
    check(strcmp(pacer_version(), argv[2]) == 0, "pacer_version() is the version CMake or pkg-config found");
    config.target_hz = 200.0;
    config.waiter.max_spin_ns = 3000000; /* the spin cap, from C */
    pacer = pacer_create(&config);
    options.application = "game";
    options.config = &config;
    capture = pacer_capture_open(argv[1], &options);
    stats = pacer_stats_create(256);
    if (!pacer || !capture || !stats || !cpu) {
        printf("game: %s\n", pacer_last_error());
        return 1;
    }
    pace(pacer, capture, stats);
    check_status(pacer);
    check_stats(stats);
    check(pacer_cpu_meter_sample(cpu, &usage) == PACER_OK && usage.valid && usage.wall_s > 0.0, "CPU meter");
    check(pacer_capture_close(capture) == PACER_OK, "pacer_capture_close");
    check_capture_file(argv[1]);
    pacer_stats_destroy(stats);
    pacer_cpu_meter_destroy(cpu);
    pacer_destroy(pacer);
    printf("game: pacer %s, %d frames, %s\n", pacer_version(), kFrames, failures == 0 ? "ok" : "WRONG");
    return failures == 0 ? 0 : 1;
}
