/* pacer/pacer.h - the frame pacer from C (C99 or later), or from any language that calls C.
 *
 *   #include <stdio.h>
 *   #include <pacer/pacer.h>
 *
 *   pacer_config config = pacer_config_default();  // 60 Hz, hybrid wait, catch-up late policy
 *   config.target_hz = 144.0;
 *   pacer_frame_pacer* pacer = pacer_create(&config);
 *   if (!pacer) { fprintf(stderr, "pacer: %s\n", pacer_last_error()); return 1; }
 *   pacer_capture* capture = pacer_capture_open("frames.csv", NULL);  // NULL: no capture, say why
 *   if (!capture) fprintf(stderr, "pacer: %s\n", pacer_last_error());
 *   pacer_stats* stats = pacer_stats_create(4096);                    // the last 4096 frames
 *   while (running) {
 *       pacer_frame_timing t;
 *       pacer_wait(pacer, &t);                        // blocks until this frame's deadline
 *       if (capture) pacer_capture_add(capture, &t, NULL);   // one row, no allocation
 *       if (stats) pacer_stats_add(stats, &t);
 *       update((double)t.display_dt_ns * 1e-9);       // seconds between displayed frames; 0 first
 *       draw_and_present();
 *   }
 *   pacer_stats_summary s;
 *   if (pacer_stats_summarize(stats, &s) == PACER_OK)
 *       printf("p99 %.2f ms, 1 %% low %.1f fps\n", s.interval_ms.p99, s.low1_fps);
 *   if (pacer_capture_close(capture) != PACER_OK) fprintf(stderr, "pacer: %s\n", pacer_last_error());
 *   pacer_stats_destroy(stats);
 *   pacer_destroy(pacer);
 *
 * The C API is a layer over the C++ one, with the same behaviour: pacer_frame_pacer is a
 * pacer::FramePacer on the real OS clock, pacer_capture a pacer::CaptureWriter, pacer_stats a
 * pacer::FrameStats, pacer_cpu_meter a pacer::CpuMeter. Their manuals apply unchanged:
 * pacer/frame_pacer.hpp (deadlines, late policies, vsync, sync modes, run-time changes),
 * pacer/frame_timing.hpp (what each field means), pacer/vsync.hpp (reporting presents),
 * pacer/display.hpp (the display fit), pacer/capture.hpp (the file, its columns and guarantees),
 * pacer/stats.hpp (the definitions of the statistics) and pacer/log.hpp (log routing).
 *
 * Units. Times are int64 nanoseconds on pacer's clock (pacer_now_ns(): CLOCK_MONOTONIC on Linux,
 * QueryPerformanceCounter on Windows, mach_absolute_time on macOS); durations are int64
 * nanoseconds (fields ending in _ns); statistics are in ms or fps as their names say; rates in Hz.
 *
 * Choices. Every named choice is an enum (pacer_mode, pacer_sync, ...). Struct fields and
 * parameters that take one are int, commented with their enum: a C enum's size and range vary
 * between compilers, an int holds any value, so a wrong one is refused with a message instead of
 * being undefined. The values are those of the C++ enums, in the same order.
 *
 * Configuration. Start from pacer_config_default() and change the fields you need, so that a
 * field added in a later version gets its default. The fields, their ranges and defaults are
 * pacer::PacerConfig's (pacer/config.hpp), the waiter's pacer::WaiterConfig's (pacer/waiter.hpp)
 * and the cadence governor's pacer::CadenceConfig's (pacer/cadence.hpp). Run-time changes:
 * pacer_set_config() (read the config in force with pacer_get_config(), change fields, set it
 * back) or the one-field setters, all through the same path as FramePacer::set_config. Setting
 * the values already in force changes nothing: the grid is not re-anchored and no decision is
 * taken again, so a loop may set its rate every frame.
 *
 * Sync modes and latency (pacer/frame_pacer.hpp says where each mode waits). A loop that supports
 * all three marks its input sample and its present besides pacer_wait():
 *
 *   while (running) {
 *       pacer_frame_timing t;
 *       pacer_wait(pacer, &t);          // PACER_SYNC_FRAME_START and _JUST_IN_TIME wait here
 *       pacer_mark_input(pacer);        // just before reading input
 *       update_and_render();
 *       pacer_before_present(pacer);    // PACER_SYNC_PRESENT waits here
 *       swap_and_report_present();      // pacer_report_present, with displayed_ns if known
 *   }
 *
 * t.latency_ns is then the previous frame's input-to-shown latency. No present reported, no
 * latency: a frame whose present did not reach pacer_report_present() has latency 0.
 *
 * Errors. Functions that can fail return an int: PACER_OK (0) on success, a negative
 * pacer_result otherwise (the _create and _open functions return NULL instead). Every failing
 * call, and nothing else, sets the calling thread's last error, a one-line text read with
 * pacer_last_error():
 *
 *   config.target_hz = 0.0 / 0.0;
 *   if (!pacer_create(&config))     // NULL
 *       puts(pacer_last_error());   // target_hz = nan: must be a finite number in (0, 10000]
 *
 * A refused run-time setting keeps the previous, valid settings, so a slider or a console command
 * cannot put a running loop into an undefined state. A NULL object is refused by every function
 * with PACER_ERROR_INVALID_ARGUMENT; the _destroy functions and pacer_capture_close() take NULL
 * and do nothing. No C++ exception ever leaves these functions; running out of memory is reported
 * as PACER_ERROR_OUT_OF_MEMORY.
 *
 * Ownership. Each _create or _open allocates an object; its _destroy or _close frees it (once).
 * Pointers passed in (config, present, timing, options, extras) are only read during the call.
 * Strings handed out (pacer_last_error(), the reason fields, pacer_version()) are owned by the
 * library: the reasons and the version are static, the last error is valid until the same
 * thread's next failing call, a capture's error until the capture is closed.
 *
 * Allocation and cost per frame. pacer_wait, the setters given valid values, pacer_report_present,
 * pacer_capture_add, pacer_stats_add and the status functions allocate nothing (the objects
 * allocate what they need when created; pacer_capture_get_status copies a write error's message
 * once). A refused setting allocates for its message (in the C++ layer); the last error itself is
 * a fixed per-thread buffer.
 *
 * Thread safety. Each function's comment ends with the threads it may be called from:
 *   [pacing thread]  the thread that calls pacer_wait() on that pacer;
 *   [present thread] one other thread that presents (a render thread): its calls wait for
 *                    nothing and reach the pacer at the next pacer_wait() (pacer/frame_pacer.hpp,
 *                    thread roles);
 *   [owner thread]   one thread at a time per object (capture, stats): the pacing thread, or any
 *                    thread that guards the object itself;
 *   [any thread]     any thread, at any time.
 * Different objects are independent. The thread's OS timer settings (Linux timer slack, Windows
 * timer resolution) are taken at the first pacer_wait() and given back by pacer_end_pacing() or
 * pacer_destroy() on that thread; so is a priority raised for good (PACER_PRIORITY_THREAD).
 *
 * Linking. libpacer is a C++ library: a C program that links the static libpacer also needs the
 * C++ runtime. With CMake, link pacer::pacer (find_package(pacer) or add_subdirectory): it brings
 * the C++ runtime itself when a C compiler links, in a project(game C) as well. Without CMake,
 * `cc game.c $(pkg-config --cflags --libs pacer)`: pkg-config lists it (-lstdc++ -lm with GCC on
 * glibc, -lc++ with libc++); a MinGW link by hand also needs -lwinmm.
 */
#ifndef PACER_PACER_H
#define PACER_PACER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Named choices -------------------------------------------------------------------------- */

/* Return codes. */
typedef enum pacer_result {
    PACER_OK = 0,
    PACER_ERROR_INVALID_ARGUMENT = -1, /* a value out of range, an unknown enum value, a NULL object */
    PACER_ERROR_OUT_OF_MEMORY = -2,
    PACER_ERROR_INTERNAL = -3,         /* anything else; pacer_last_error() says what */
    PACER_ERROR_IO = -4                /* a file could not be opened or written */
} pacer_result;

/* How a wait is done (pacer::WaitMode). */
typedef enum pacer_mode {
    PACER_MODE_SLEEP = 0,   /* OS sleep only: no CPU, late by whatever the OS adds */
    PACER_MODE_SPIN = 1,    /* busy-wait only: exact, burns a core */
    PACER_MODE_HYBRID = 2,  /* OS sleep to the deadline - a learned margin, then spin (default) */
    PACER_MODE_VSYNC = 3,   /* the swap paces, the pacer measures (report presents) */
    PACER_MODE_AUTO = 4     /* vsync when verified at the target rate, else hybrid */
} pacer_mode;

/* The pacing thread's scheduling class (pacer::ThreadPriority, pacer/priority.hpp: what each OS
 * grants, and what a thread raised for good risks). */
typedef enum pacer_priority {
    PACER_PRIORITY_NORMAL = 0,   /* the thread's own class, never changed */
    PACER_PRIORITY_WAIT = 1,     /* real-time for each OS sleep and spin, put back just before the deadline */
    PACER_PRIORITY_THREAD = 2,   /* real-time from the first wait, kept until put back */
    PACER_PRIORITY_HIGH = 3,     /* a weight (Linux: nice) from the first wait, kept until put back */
    PACER_PRIORITY_AUTOMATIC = 4 /* the default: the strongest safe grant (pacer/priority.hpp), else NORMAL */
} pacer_priority;

/* What a raised thread runs at (pacer::PriorityLever): pacer_priority_status.lever. */
typedef enum pacer_priority_lever {
    PACER_PRIORITY_LEVER_NONE = 0,    /* the thread's own class */
    PACER_PRIORITY_LEVER_WEIGHT = 1,  /* within the normal class: nice (Linux), THREAD_PRIORITY_HIGHEST
                                       * (Windows), QOS_CLASS_USER_INTERACTIVE (macOS) */
    PACER_PRIORITY_LEVER_REALTIME = 2 /* a real-time class: SCHED_FIFO or SCHED_RR (Linux), MMCSS or
                                       * TIME_CRITICAL (Windows), the time-constraint policy (macOS) */
} pacer_priority_lever;

/* Who granted it (pacer::PriorityGrantor): pacer_priority_status.by. */
typedef enum pacer_priority_grantor {
    PACER_PRIORITY_BY_NONE = 0,        /* nothing is granted */
    PACER_PRIORITY_BY_OS = 1,          /* the process's own right (root, CAP_SYS_NICE, RLIMIT_RTPRIO or
                                        * RLIMIT_NICE on Linux; Windows and macOS need none) */
    PACER_PRIORITY_BY_REALTIMEKIT = 2, /* RealtimeKit (rtkit-daemon, D-Bus), asked by pacer */
    PACER_PRIORITY_BY_PORTAL = 3,      /* the Realtime portal (xdg-desktop-portal: Flatpak), asked by pacer */
    PACER_PRIORITY_BY_HOST = 4         /* the thread had it before pacer asked (the host): kept */
} pacer_priority_grantor;

/* What to do with a frame that enters pacer_wait() after its deadline (pacer::LatePolicy). */
typedef enum pacer_late_policy {
    PACER_LATE_CATCH_UP = 0, /* keep the grid; serve up to max_catch_up passed deadlines at once */
    PACER_LATE_SKIP = 1,     /* keep the grid; skip every passed slot */
    PACER_LATE_RESYNC = 2    /* restart the grid at the late wake-up */
} pacer_late_policy;

/* Where a frame waits relative to its work (pacer::SyncMode). */
typedef enum pacer_sync {
    PACER_SYNC_FRAME_START = 0, /* at the frame start, on the grid (default) */
    PACER_SYNC_PRESENT = 1,     /* just before the present: flat present times */
    PACER_SYNC_JUST_IN_TIME = 2 /* at the frame start, until display deadline - learned work */
} pacer_sync;

/* The cadence governor (pacer::CadenceMode; pacer/cadence.hpp has its rules). */
typedef enum pacer_cadence_mode {
    PACER_CADENCE_FIXED = 0, /* always the target rate (default) */
    PACER_CADENCE_AUTO = 1   /* the highest whole divisor of the refresh (or target) the work sustains */
} pacer_cadence_mode;

/* Which mechanism paced a frame (pacer::PacingSource). */
typedef enum pacer_source {
    PACER_SOURCE_SLEEP = 0,
    PACER_SOURCE_SPIN = 1,
    PACER_SOURCE_HYBRID = 2,
    PACER_SOURCE_VSYNC = 3
} pacer_source;

/* Why the cadence is what it is (pacer::CadenceReason). */
typedef enum pacer_cadence_reason {
    PACER_CADENCE_REASON_FIXED = 0,    /* PACER_CADENCE_FIXED (or the background): the target rate */
    PACER_CADENCE_REASON_LEARNING = 1, /* too few frames seen yet to judge the cost */
    PACER_CADENCE_REASON_FITS = 2,     /* the work fits the full rate */
    PACER_CADENCE_REASON_STEADY = 3,   /* the work fits this cadence, not a faster one */
    PACER_CADENCE_REASON_OVERRUN = 4,  /* the work overran the budget: switched to a slower cadence */
    PACER_CADENCE_REASON_HEADROOM = 5, /* headroom for a whole dwell: switched to a faster cadence */
    PACER_CADENCE_REASON_DWELL = 6,    /* a switch is due, held until the dwell has passed */
    PACER_CADENCE_REASON_SLOWEST = 7,  /* the work overruns even the slowest cadence (min_hz) */
    PACER_CADENCE_REASON_REBASED = 8,  /* the refresh or the target changed: chosen afresh */
    PACER_CADENCE_REASON_VRR = 9       /* a variable-refresh display: no divisor, the panel's range */
} pacer_cadence_reason;

/* The display as the presents show it (pacer::DisplayState). */
typedef enum pacer_display_state {
    PACER_DISPLAY_UNKNOWN = 0, /* no vblank seen yet */
    PACER_DISPLAY_LOCKING = 1, /* vblanks seen, the fit not yet trusted */
    PACER_DISPLAY_LOCKED = 2,  /* refresh period and phase fitted */
    PACER_DISPLAY_VRR = 3,     /* a variable-refresh display: no grid to lock to */
    PACER_DISPLAY_LOST = 4,    /* the timestamps stopped */
    PACER_DISPLAY_UNSYNCED = 5 /* frames shown on no vblank grid (a compositor's own timer) */
} pacer_display_state;

/* Why vsync is or is not pacing (pacer::VsyncReason; pacer/vsync.hpp). */
typedef enum pacer_vsync_reason {
    PACER_VSYNC_OFF = 0,               /* sleep, spin or hybrid mode: the pacer's wait paces */
    PACER_VSYNC_VERIFIED = 1,          /* vsync mode, presents show vsync */
    PACER_VSYNC_UNVERIFIED = 2,        /* vsync mode, not yet enough presents to tell */
    PACER_VSYNC_NOT_SHOWN = 3,         /* vsync mode, but presents do not show vsync */
    PACER_VSYNC_AUTO_WAITING = 4,      /* auto: no present has reported the display yet */
    PACER_VSYNC_AUTO_BAD_REFRESH = 5,  /* auto: refresh rate unknown or absurd */
    PACER_VSYNC_AUTO_NO_DIVISOR = 6,   /* auto: the refresh is not a whole multiple of the target */
    PACER_VSYNC_AUTO_PROBING = 7,      /* auto: vsync asked for, evidence being gathered */
    PACER_VSYNC_AUTO_REFUSED = 8,      /* auto: the driver refused the swap interval */
    PACER_VSYNC_AUTO_NOT_BLOCKING = 9, /* auto: the swap does not wait for vblank */
    PACER_VSYNC_AUTO_OTHER_RATE = 10,  /* auto: the swap waits, at a rate the refresh does not explain */
    PACER_VSYNC_AUTO_IRREGULAR = 11,   /* auto: the swap waits, too irregular to verify */
    PACER_VSYNC_AUTO_VERIFIED = 12,    /* auto: vsync verified, the swap paces */
    PACER_VSYNC_AUTO_LOST = 13,        /* auto: vsync was verified and stopped showing */
    PACER_VSYNC_AUTO_MISSING = 14      /* auto: more than 10 % of refreshes missed */
} pacer_vsync_reason;

/* Which per-frame quantity pacer_stats_series() and pacer_stats_histogram() read, in ms
 * (pacer::FrameMetric). */
typedef enum pacer_frame_metric {
    PACER_METRIC_INTERVAL = 0, /* frame time (wake to wake) */
    PACER_METRIC_LATENESS = 1, /* wake past deadline */
    PACER_METRIC_WORK = 2,     /* the caller's work between waits */
    PACER_METRIC_SLEPT = 3,    /* OS sleep */
    PACER_METRIC_SPUN = 4,     /* spin */
    PACER_METRIC_LATENCY = 5   /* input sample to shown; 0 in a series where not known */
} pacer_frame_metric;

/* Log levels (pacer::LogLevel). */
typedef enum pacer_log_severity {
    PACER_LOG_DEBUG = 0,
    PACER_LOG_INFO = 1,
    PACER_LOG_WARN = 2, /* the default level: warnings and errors */
    PACER_LOG_ERROR = 3,
    PACER_LOG_OFF = 4
} pacer_log_severity;

/* ---- Configuration -------------------------------------------------------------------------- */

/* The hybrid waiter's margin learning and spin cap (pacer::WaiterConfig, pacer/waiter.hpp). */
typedef struct pacer_waiter_config {
    int64_t late_cost_ns;      /* spin time one late wake-up is worth, [0, 1e9]; default 10000000 */
    double half_life;          /* sleeps after which an old oversleep counts half, [8, 1e6]; default 500 */
    int64_t initial_margin_ns; /* margin until 16 sleeps were measured, [0, 1e9]; default 1000000 */
    int64_t min_margin_ns;     /* floor of the margin, [0, max_spin_ns]; default 20000 */
    int64_t max_spin_ns;       /* cap on the spin of one wait, [0, 1e9], 0 never spin; default 4000000 */
    int priority;              /* pacer_priority; default PACER_PRIORITY_AUTOMATIC */
    int realtime_priority;     /* Linux: SCHED_FIFO/SCHED_RR priority, [1, 99]; default 5 */
    int round_robin;           /* Linux: != 0 SCHED_RR instead of SCHED_FIFO; default 0 */
    int nice;                  /* Linux, HIGH and AUTOMATIC: the nice value, [-20, -1]; default -15 */
    double raised_spin_share;  /* while the thread runs raised, the spin of one wait is at most this
                                * share of the period (pacer/waiter.hpp), (0, 1]; default 0.25 */
} pacer_waiter_config;

/* The cadence governor's settings (pacer::CadenceConfig, pacer/cadence.hpp). */
typedef struct pacer_cadence_config {
    double min_hz;    /* slowest cadence allowed, [1, 1000]; default 20 */
    int64_t dwell_ns; /* least time between two switches, [0, 60e9]; default 1000000000 */
    double quantile;  /* of the recent costs, [0.5, 1]; default 0.9 */
    double fit;       /* slower when the quantile > fit x budget, (0, 1]; default 0.95 */
    double headroom;  /* faster when it <= headroom x the faster budget, (0, fit); default 0.8 */
} pacer_cadence_config;

/* Every setting of a pacer (pacer::PacerConfig, pacer/config.hpp). */
typedef struct pacer_config {
    double target_hz;          /* frames per second, in (0, 10000]; default 60 */
    int mode;                  /* pacer_mode; default PACER_MODE_HYBRID */
    int late_policy;           /* pacer_late_policy; default PACER_LATE_CATCH_UP */
    int max_catch_up;          /* catch-up only: passed deadlines served at once, [0, 1000]; default 1 */
    int64_t miss_tolerance_ns; /* a frame later than this counts as missed, [0, 1e9]; default 500000 */
    double background_hz;      /* rate in the background (pacer_set_background), (0, 10000]; default 10 */
    int sync;                  /* pacer_sync; default PACER_SYNC_FRAME_START */
    double max_late_share;     /* just in time: share of frames allowed late, [0.001, 0.5]; default 0.01 */
    int cadence;               /* pacer_cadence_mode; default PACER_CADENCE_FIXED */
    int display_lock;          /* != 0: place waits against the fitted vblanks; default 1 */
    int match_display;         /* != 0: the target follows the display's refresh; default 0 */
    pacer_waiter_config waiter;    /* the hybrid waiter */
    pacer_cadence_config governor; /* the cadence governor (cadence PACER_CADENCE_AUTO) */
} pacer_config;

/* The defaults of every field (pacer::PacerConfig{}). [any thread] */
pacer_config pacer_config_default(void);

/* ---- The pacer ------------------------------------------------------------------------------ */

/* One frame, as pacer_wait() describes it (pacer::FrameTiming, pacer/frame_timing.hpp). Every
 * field of the C++ struct is here, so a timing goes back to C++ unchanged (capture, stats). */
typedef struct pacer_frame_timing {
    uint64_t index;        /* grid slot of this frame (skipped slots count) */
    int64_t deadline_ns;   /* when this frame was due (pacer_now_ns() clock) */
    int64_t wake_ns;       /* when pacer_wait() returned */
    int64_t lateness_ns;   /* wake - deadline, >= 0 */
    int64_t interval_ns;   /* wake - previous wake; 0 for the first frame */
    int64_t work_ns;       /* previous wake -> this pacer_wait() call: the caller's frame */
    int64_t period_ns;     /* target period in force for this frame (rounded) */
    int64_t slept_ns;      /* inside the OS sleep */
    int64_t spun_ns;       /* spinning */
    int64_t oversleep_ns;  /* OS wake-up past the requested wake-up */
    int64_t margin_ns;     /* hybrid margin in force */
    uint32_t skipped;      /* grid slots skipped before this frame */
    int missed;            /* 1 when late by more than miss_tolerance_ns or skipped > 0, else 0 */
    int mode;              /* pacer_mode: the configured mode */
    int source;            /* pacer_source: what actually paced this frame */
    int background;        /* 1 when paced at background_hz (pacer_set_background), else 0 */
    int sync;              /* pacer_sync: the sync mode in force for this frame */
    /* The previous frame (the one presented before this pacer_wait()); 0 when no present of it
     * was reported (pacer_report_present): */
    int64_t latency_ns;           /* its input sample -> shown */
    int64_t input_to_present_ns;  /* its input sample -> its present call */
    int latency_measured;         /* 1: from a reported displayed time; 0: predicted */
    int shown_late;               /* 1: shown after the display deadline it was started for */
    /* The cadence and the display (pacer/frame_timing.hpp): */
    uint32_t cadence;             /* frames every `cadence` refreshes (or target periods); 1 when fixed */
    double cadence_hz;            /* the frame rate in force */
    int cadence_reason;           /* pacer_cadence_reason: why */
    int64_t display_dt_ns;        /* predicted display interval: the delta for the simulation */
    int display_locked;           /* the wait was placed against the fitted vblanks */
    /* The display time this frame is for, and its vblank counter when has_display_target_msc:
     * what a present-at-a-time API takes (pacer/frame_pacer.hpp, "Presenting at a time"). */
    int64_t display_target_ns;
    uint64_t display_target_msc;
    int has_display_target_msc;
    /* Presentation feedback since the previous pacer_wait(): presents shown and dropped;
     * present_feedback 0: the host reports no outcomes (shown frames unknown). */
    uint32_t presents_shown;
    uint32_t presents_dropped;
    int present_feedback;
    /* Frames in flight (pacer/frame_pacer.hpp, thread roles): this frame's id (1, 2, 3, ... one
     * per pacer_wait(); a present thread names the frame it presents with it), and the frame the
     * latency fields describe (0: none; the previous frame in a single-thread loop). */
    uint64_t frame;
    uint64_t latency_frame;
} pacer_frame_timing;

/* One present, as the host saw it (pacer::PresentInfo; see pacer/vsync.hpp). Zero it first
 * (pacer_present p = {0};) so that a field added in a later version is 0 = unknown. */
typedef struct pacer_present {
    int64_t begin_ns;   /* pacer_now_ns() just before the swap call */
    int64_t end_ns;     /* pacer_now_ns() just after it returned */
    int swap_interval;  /* in effect: 0 off, N >= 1, -1 unknown or refused */
    double refresh_hz;  /* display refresh rate; 0 = unknown */
    int ok;             /* nonzero: the swap call succeeded */
    int64_t displayed_ns; /* when it reached the screen, if known (presentation feedback); 0 = unknown */
    /* Presentation feedback (pacer::PresentInfo): id, the host's present serial (0 none; a report
     * with an earlier present's id is its feedback); outcome, a pacer_present_outcome; msc, the
     * vblank counter it was shown at when has_msc; flags, pacer_present_flag bits (0 with
     * PACER_PRESENT_FLAGS_KNOWN: the source says none of them, a compositor's own timer). */
    uint64_t id;
    int outcome;
    uint64_t msc;
    int has_msc;
    unsigned flags;
    /* The frame it shows (pacer_frame_timing.frame); 0: the frame last waited for. A present
     * thread a frame or more behind pacer_wait() names it. */
    uint64_t frame;
} pacer_present;

/* What became of a present (pacer::PresentOutcome). */
typedef enum pacer_present_outcome {
    PACER_PRESENT_UNKNOWN = 0,  /* no feedback (yet) */
    PACER_PRESENT_SHOWN = 1,    /* it reached the screen */
    PACER_PRESENT_SKIPPED = 2,  /* a newer present replaced it before it was shown */
    PACER_PRESENT_DISCARDED = 3 /* the compositor dropped it */
} pacer_present_outcome;

/* pacer_present.flags bits (pacer::PresentFlags). */
typedef enum pacer_present_flag {
    PACER_PRESENT_FLAGS_KNOWN = 1,  /* the source gives flags: the other bits are its word */
    PACER_PRESENT_FLAG_VSYNC = 2,   /* shown at a vblank */
    PACER_PRESENT_FLAG_HW_CLOCK = 4,
    PACER_PRESENT_FLAG_HW_COMPLETION = 8,
    PACER_PRESENT_FLAG_ZERO_COPY = 16
} pacer_present_flag;

typedef struct pacer_frame_pacer pacer_frame_pacer;

/* A pacer on the real OS clock; config NULL: the defaults. NULL when the config is invalid or
 * memory ran out (pacer_last_error() says which). Free it with pacer_destroy(). [any thread] */
pacer_frame_pacer* pacer_create(const pacer_config* config);
/* Frees the pacer and gives the pacing thread's OS timer settings back. NULL: nothing.
 * [pacing thread, or any thread once no other call on this pacer can run] */
void pacer_destroy(pacer_frame_pacer* pacer);

/* Once per frame: blocks until the frame's deadline and fills *timing (which may be NULL). The
 * first call returns at once and anchors the grid. PACER_OK, or an error for a NULL pacer
 * (*timing zeroed). [pacing thread] */
int pacer_wait(pacer_frame_pacer* pacer, pacer_frame_timing* timing);

/* The config in force, pending changes included, into *out. [pacing thread] */
int pacer_get_config(const pacer_frame_pacer* pacer, pacer_config* out);
/* All settings at once, effective at the next pacer_wait() (FramePacer::set_config). An invalid
 * config is refused (error code, pacer_last_error(), a warning in the log) and the current
 * settings stay; the settings already in force change nothing. [pacing thread] */
int pacer_set_config(pacer_frame_pacer* pacer, const pacer_config* config);
/* One setting, through pacer_set_config's path: the config in force with that field changed.
 * target_hz in Hz, mode a pacer_mode, late_policy a pacer_late_policy (max_catch_up frames, [0,
 * 1000]), sync a pacer_sync. [pacing thread] */
int pacer_set_target_hz(pacer_frame_pacer* pacer, double target_hz);
int pacer_set_mode(pacer_frame_pacer* pacer, int mode);
int pacer_set_late_policy(pacer_frame_pacer* pacer, int late_policy, int max_catch_up);
int pacer_set_sync(pacer_frame_pacer* pacer, int sync);
/* Minimized or unfocused window (on != 0): pace at background_hz with OS sleep only, vsync off;
 * on == 0 returns to the target rate (FramePacer::set_background). The value in force changes
 * nothing. [pacing thread] */
int pacer_set_background(pacer_frame_pacer* pacer, int on);

/* Frame markers, once per frame: the input is sampled now [pacing thread]; the present call
 * comes next (waits in PACER_SYNC_PRESENT on the pacing thread) [pacing or present thread].
 * pacer_before_present_frame names the frame presented (pacer_frame_timing.frame), for a present
 * thread a frame or more behind; 0 is the frame last waited for. */
int pacer_mark_input(pacer_frame_pacer* pacer);
int pacer_before_present(pacer_frame_pacer* pacer);
int pacer_before_present_frame(pacer_frame_pacer* pacer, uint64_t frame);

/* Vsync: report each present right after the swap call (modes PACER_MODE_VSYNC and
 * PACER_MODE_AUTO need them). From a present thread, the report reaches the pacer at the pacing
 * thread's next pacer_wait() (pacer/frame_pacer.hpp, thread roles). [pacing or present thread] */
int pacer_report_present(pacer_frame_pacer* pacer, const pacer_present* present);
/* The swap interval to set before the next present: >= 0 (0 = vsync off), or an error code for
 * a NULL pacer. [pacing thread] */
int pacer_desired_swap_interval(const pacer_frame_pacer* pacer);
/* A vblank the host saw by other means (a vblank event, DXGI frame statistics), in pacer's clock
 * (ns): with vsync off it is what lets the pacer place frames against the display
 * (pacer/display.hpp). [pacing or present thread] */
int pacer_report_vblank(pacer_frame_pacer* pacer, int64_t vblank_ns);

/* Forget the grid: the next pacer_wait() returns at once and anchors a new one (after a loading
 * screen). Frame indices continue; what the waiter learned is kept. [pacing thread] */
int pacer_reset(pacer_frame_pacer* pacer);
/* Gives the thread's OS timer settings back now; the next pacer_wait() takes them again, on
 * whichever thread calls it (a hand-over to another pacing thread). [pacing thread] */
int pacer_end_pacing(pacer_frame_pacer* pacer);

/* ---- What the pacer knows (pacer_get_status) ------------------------------------------------ */

/* Vsync: is it pacing, and why (pacer::VsyncStatus). */
typedef struct pacer_vsync_status {
    int requested;      /* 1: the pacer wants vsync on (pacer_desired_swap_interval() > 0) */
    int detected;       /* 1: presents show vsync pacing (verified) */
    int in_use;         /* 1: frames are paced by the swap, not by the pacer's wait */
    int swap_interval;  /* what the pacer asks for */
    double refresh_hz;  /* last reported refresh rate; 0 unknown */
    double swap_hz;     /* the swap's measured rate, when it blocks steadily; 0 unknown */
    int code;           /* pacer_vsync_reason */
    const char* reason; /* in words, static storage */
} pacer_vsync_status;

/* The display as the presents show it (pacer::DisplayStatus, pacer/display.hpp). */
typedef struct pacer_display_status {
    int state;                /* pacer_display_state */
    const char* reason;       /* in words, static storage */
    double refresh_hz;        /* fitted refresh; 0 unknown */
    double reported_hz;       /* the refresh the host last reported; 0 unknown */
    double skew_ppm;          /* fitted against reported: + the display runs fast */
    int64_t period_ns;        /* fitted refresh period, rounded */
    int64_t vblank_ns;        /* a fitted vblank (the phase reference) */
    int64_t residual_ns;      /* recent fit error of the observed vblanks (median) */
    uint64_t vblanks;         /* observations taken */
    uint64_t locks;           /* times the fit locked (1 + re-locks) */
    double vrr_min_hz, vrr_max_hz; /* state PACER_DISPLAY_VRR: the range the presents showed */
    double shown_hz;          /* frames shown per second (presentation feedback); 0 unknown */
    int by_counter;           /* 1: the fit indexes vblanks by their counter (MSC) */
} pacer_display_status;

/* The cadence in force and why (pacer::CadenceStatus). */
typedef struct pacer_cadence_status {
    uint32_t divisor;   /* frames every `divisor` base periods */
    double hz;          /* the frame rate in force */
    int64_t base_ns;    /* the base period (refresh, or target) */
    int64_t cost_ns;    /* the cost quantile over the recent frames */
    uint64_t switches;  /* cadence changes so far */
    int code;           /* pacer_cadence_reason */
    const char* reason; /* in words, static storage */
} pacer_cadence_status;

/* The thread priority asked for, granted, by whom, and why not (pacer::PriorityStatus). A grant
 * can come later or change while the loop runs: an answer from RealtimeKit or the portal arrives
 * a few frames after the ask (pending meanwhile), and the real-time guard puts a thread that
 * computes too long back to its own class and raises it again after a calm run (pacer/guard.hpp). */
typedef struct pacer_priority_status {
    int asked;            /* pacer_priority */
    int granted;          /* 1: the last raise was granted */
    int refused;          /* 1: refused (reason says why; not asked again until the setting changes) */
    int raised_now;       /* 1: the thread runs raised now (THREAD, HIGH, AUTOMATIC) */
    uint64_t raises;      /* raises granted so far */
    char in_force[64];    /* e.g. "SCHED_FIFO 5", "nice -15", "normal" */
    char reason[224];     /* refused: why and the remedy, one line; pending: what is asked; else "" */
    int pending;          /* 1: an answer is awaited (RealtimeKit, the portal) or the guard will raise
                           * the thread again: what is in force may still change */
    int lever;            /* pacer_priority_lever: what is in force now */
    int by;               /* pacer_priority_grantor: who granted it */
    uint64_t demotions;   /* times the real-time guard put the thread back to its own class */
    char guard[160];      /* the guard's last step, one line, e.g. why it put the thread back; ""
                           * while it never acted */
} pacer_priority_status;

/* What the hybrid waiter learned (pacer::HybridWaiter). */
typedef struct pacer_waiter_status {
    int64_t margin_ns;       /* what the next hybrid wait subtracts from its deadline */
    int64_t spin_cap_ns;     /* max_spin_ns, or less after preempted spins */
    int64_t preempted_spins; /* spins that lost the CPU, so far */
    pacer_priority_status priority;
    int64_t spin_bound_ns;      /* while raised: the longest spin a wait may make (raised_spin_share
                                 * of the period); 0 while not raised */
    int64_t wakeups_past_bound; /* raised wake-ups later than the spin bound (late), so far */
} pacer_waiter_status;

/* Everything a pacer can tell, read at once. */
typedef struct pacer_status {
    int64_t period_ns;  /* of the rate in force (rounded): target, matched refresh or background */
    int background;     /* 1: pacer_set_background(pacer, 1) is in force */
    uint64_t frames;    /* pacer_wait() calls so far */
    uint64_t missed;    /* missed frames so far */
    pacer_waiter_status waiter;
    pacer_vsync_status vsync;
    pacer_display_status display;
    pacer_cadence_status cadence;
    int frames_in_flight;   /* how far behind the newest frame presents come (median): 0 single
                             * thread, 1 for a render thread a frame behind */
    uint64_t reports_lost;  /* present-thread reports dropped: the queue was full */
} pacer_status;

/* Fills *out; cheap enough for every frame, allocates nothing. From another thread than the
 * pacing thread: a copy made at the pacing thread's last pacer_wait() (pacer/frame_pacer.hpp).
 * PACER_OK, or an error for a NULL pacer or out. [any thread] */
int pacer_get_status(const pacer_frame_pacer* pacer, pacer_status* out);

/* ---- Capture files (pacer::CaptureWriter, pacer/capture.hpp) -------------------------------- */

/* What pacer_capture_open() writes (pacer::CaptureOptions). */
typedef struct pacer_capture_options {
    const char* application;    /* Application column; NULL or "": "pacer" (at most 64 chars) */
    const char* runtime;        /* Runtime column; NULL or "": "Other" */
    size_t buffer_bytes;        /* row buffer, clamped to [65 KiB, 64 MiB]; default 128 KiB */
    int write_stats;            /* != 0: write <name>-stats.csv at close (regular files); default 1 */
    size_t stats_window;        /* frames kept for the sidecar's percentiles, >= 2; default 65536 */
    const pacer_config* config; /* settings written to the sidecar; NULL (default): none */
    const char* notes;          /* free text for the sidecar (<= 512 chars); NULL: none */
    int await_feedback;         /* != 0: rows with a present id wait for pacer_capture_feedback
                                   from the first frame (else from the first feedback); default 0 */
} pacer_capture_options;

/* What the engine knows about a frame and pacer does not (pacer::CaptureExtras). Start from
 * pacer_capture_extras_default(): negative durations and values mean "not measured" (NA). */
typedef struct pacer_capture_extras {
    const pacer_present* present;       /* this frame's present; NULL: none (see pacer/capture.hpp) */
    int64_t in_present_ns;              /* MsInPresentAPI; < 0: from present, else NA */
    int64_t until_render_complete_ns;   /* MsUntilRenderComplete */
    int64_t until_displayed_ns;         /* MsUntilDisplayed */
    int64_t between_display_change_ns;  /* MsBetweenDisplayChange */
    int sync_interval;                  /* SyncInterval; < 0: from present, else NA */
    int dropped;                        /* Dropped: 1 not displayed, 0 displayed; < 0: see pacer/capture.hpp */
    const char* pacing_source;          /* PacingSource column; NULL: the timing's source */
} pacer_capture_extras;

/* A capture's counters (pacer::CaptureWriter's accessors). */
typedef struct pacer_capture_status {
    uint64_t rows;                    /* pacer_capture_add() calls */
    uint64_t rows_written;            /* rows handed to the OS */
    uint64_t rows_dropped;            /* rows lost after a write error */
    uint64_t rows_without_frame_time; /* frames without a frame time: not written */
    uint64_t rows_buffered;           /* not yet handed to the OS */
    uint64_t rows_without_feedback;   /* waited for their feedback, written without it */
    int failed;                       /* 1 after a write error */
    const char* error;                /* the first error, "" if none; valid until the close */
} pacer_capture_status;

typedef struct pacer_capture pacer_capture;

/* The defaults of every field. [any thread] */
pacer_capture_options pacer_capture_options_default(void);
pacer_capture_extras pacer_capture_extras_default(void);

/* Creates (truncates) path and writes the header; options NULL: the defaults. NULL when the file
 * cannot be opened or an option is invalid (pacer_last_error(): "capture: cannot open ..."). Free
 * it with pacer_capture_close(). Allocates the row buffer and the sidecar's window. [any thread] */
pacer_capture* pacer_capture_open(const char* path, const pacer_capture_options* options);
/* Once per frame, after pacer_wait(): one row (pacer/capture.hpp says which frames have none);
 * extras NULL: none. No allocation, writes only every 64 rows / 0.2 s. A write error never stops
 * the loop: it is recorded (pacer_capture_get_status, pacer_capture_close), later rows are
 * counted as dropped, and this still returns PACER_OK. An error for a NULL capture or timing, or
 * an unknown enum value in them (nothing written). [owner thread] */
int pacer_capture_add(pacer_capture* capture, const pacer_frame_timing* timing,
                      const pacer_capture_extras* extras);
/* What a presentation-feedback API said of an earlier present (the pacer_present given to
 * pacer_report_present with its id and outcome): that present's row writes Dropped and the
 * displayed-time columns from it ("Feedback" in pacer/capture.hpp). An outcome that is no
 * pacer_present_outcome value is an error (nothing changed); an unknown id is ignored.
 * [owner thread] */
int pacer_capture_feedback(pacer_capture* capture, const pacer_present* feedback);
/* Hands the buffered rows to the OS now (pacer_capture_add does it itself). [owner thread] */
int pacer_capture_flush(pacer_capture* capture);
/* The counters and the first error into *out; no allocation but one, the copy of the message,
 * at the first call after a write error. [owner thread] */
int pacer_capture_get_status(const pacer_capture* capture, pacer_capture_status* out);
/* Flushes, closes the file, writes the sidecar, frees the capture (always, also on error).
 * PACER_OK, or PACER_ERROR_IO with the capture's first error in pacer_last_error(). NULL:
 * PACER_OK. [owner thread] */
int pacer_capture_close(pacer_capture* capture);

/* ---- Statistics (pacer::FrameStats, pacer::CpuMeter; pacer/stats.hpp) ----------------------- */

/* Mean, population stddev, min, max and percentiles, in ms (pacer::TimeDistribution). */
typedef struct pacer_distribution {
    double mean, stddev, min, max;
    double p50, p90, p95, p99, p999;
} pacer_distribution;

/* The window's statistics (pacer::StatsSummary; definitions in pacer/stats.hpp). New fields are
 * appended at the end, never inserted: the fields before them keep their offsets. The struct is
 * not versioned (no size field): pacer_stats_summarize() writes the whole struct of the header the
 * library was built with, so build the program against the header of the library it links. */
typedef struct pacer_stats_summary {
    uint64_t frames;                /* frame times in the window */
    pacer_distribution interval_ms; /* frame times */
    pacer_distribution lateness_ms; /* deadline lateness */
    double target_ms;               /* period of the newest frame */
    double avg_fps;
    double low1_fps;                /* 1 % low: 1000 / mean of the frame times >= p99 */
    double low01_fps;               /* 0.1 % low */
    uint64_t missed;                /* missed frames in the window */
    uint64_t missed_total;          /* since create or reset */
    uint64_t skipped_total;         /* grid slots skipped since create or reset */
    uint64_t frames_total;          /* frames added since create or reset */
    pacer_distribution latency_ms;  /* latency of the window's frames that have one */
    uint64_t latency_frames;        /* ... how many they are */
    uint64_t shown_late;            /* frames shown late in the window */
    uint64_t stutters;              /* stutters among the window's frames */
    uint64_t stutters_total;        /* since create or reset */
    double work_share, sleep_share, spin_share; /* of the window's wall time, each in [0, 1] */
    /* Interval error: |frame time - period_ns| of each of the window's frames that has a period,
     * against its own frame's period (across a rate change too); the same figure as pacer
     * compare's. Frames with period_ns <= 0 are left out. */
    pacer_distribution interval_error_ms;
    uint64_t interval_error_frames; /* ... how many they are; 0: no period known, the figures 0 */
    double off_100us_share;         /* of them, the share off by more than 100 us, in [0, 1] */
} pacer_stats_summary;

/* What pacer_stats_histogram() counted (pacer::HistogramCounts). */
typedef struct pacer_histogram_counts {
    uint64_t placed; /* values counted in the bins */
    uint64_t below;  /* of them, < lo_ms: in the first bin */
    uint64_t above;  /* of them, >= hi_ms: in the last bin */
} pacer_histogram_counts;

typedef struct pacer_stats pacer_stats;

/* Statistics over the newest `capacity` frames (>= 2; the stutter rule: 2.5 x the mean of the 20
 * frames before). NULL for a capacity below 2 or when memory ran out. [any thread] */
pacer_stats* pacer_stats_create(size_t capacity);
/* Frees it. NULL: nothing. [owner thread] */
void pacer_stats_destroy(pacer_stats* stats);
/* Once per frame: O(1), no allocation. An error for NULL arguments. [owner thread] */
int pacer_stats_add(pacer_stats* stats, const pacer_frame_timing* timing);
/* Forgets the window and the totals. [owner thread] */
int pacer_stats_reset(pacer_stats* stats);
/* The statistics into *out: O(n log n) over the window, no allocation (a few times a second,
 * not every frame). [owner thread] */
int pacer_stats_summarize(const pacer_stats* stats, pacer_stats_summary* out);
/* The newest min(capacity, frames in the window) values of metric (a pacer_frame_metric, ms),
 * oldest first, into out[]; *count (may be NULL) gets how many. [owner thread] */
int pacer_stats_series(const pacer_stats* stats, int metric, float* out, size_t capacity, size_t* count);
/* Counts of the window's values of metric in bin_count equal bins over [lo_ms, hi_ms); values
 * outside go to the first or last bin (pacer/stats.hpp); counts may be NULL. Bad bounds (not
 * finite, hi_ms <= lo_ms) or no bins: an error, nothing counted. [owner thread] */
int pacer_stats_histogram(const pacer_stats* stats, int metric, double lo_ms, double hi_ms, float* bins,
                          size_t bin_count, pacer_histogram_counts* counts);

/* CPU use between two samples (pacer::CpuUsage). */
typedef struct pacer_cpu_usage {
    double process_pct; /* process CPU / wall time since the previous sample; 100 = one core */
    double thread_pct;  /* the sampling thread's CPU / wall time */
    double wall_s;      /* wall time covered, s */
    int valid;          /* 0 if the OS gave no CPU times or no time passed */
} pacer_cpu_usage;

typedef struct pacer_cpu_meter pacer_cpu_meter;

/* A meter of the calling thread's and the process's CPU, from now on. Create and sample it on the
 * thread to account (the pacing thread). NULL when memory ran out. [any thread] */
pacer_cpu_meter* pacer_cpu_meter_create(void);
/* Frees it. NULL: nothing. [any thread] */
void pacer_cpu_meter_destroy(pacer_cpu_meter* meter);
/* CPU since the previous sample (or the create) into *out; no allocation. [the creating thread] */
int pacer_cpu_meter_sample(pacer_cpu_meter* meter, pacer_cpu_usage* out);

/* ---- Clock, sleeps, version ----------------------------------------------------------------- */

/* pacer's clock in nanoseconds: the clock of every pacer_frame_timing and pacer_present.
 * [any thread] */
int64_t pacer_now_ns(void);

/* Accurate sleeps (OS sleep as far as it can be trusted, then spin), with per-thread learned
 * state. Return how late they woke, in ns (>= 0). A deadline in the past or a duration <= 0
 * returns at once. [any thread] */
int64_t pacer_sleep_until_ns(int64_t deadline_ns);
int64_t pacer_sleep_for_ns(int64_t duration_ns);

/* The priority of the calling thread's sleeps above (pacer::set_sleep_priority): priority a
 * pacer_priority (they start at NORMAL), realtime_priority in [1, 99] (Linux). PACER_OK, or PACER_ERROR_INVALID_ARGUMENT
 * (the old setting kept). pacer_sleep_priority(): what this thread asked for and got.
 * [the calling thread] */
int pacer_set_sleep_priority(int priority, int realtime_priority);
int pacer_sleep_priority(pacer_priority_status* out);

/* Raises the calling thread as asked (once) and puts it back: what this machine grants
 * (pacer::probe_priority). PACER_OK (granted or not: see out->granted, out->lever, out->by,
 * out->reason), or an error for a NULL out or a bad argument. [any thread] */
int pacer_probe_priority(int realtime_priority, int round_robin, pacer_priority_status* out);
/* The same for any pacer_priority: PACER_PRIORITY_HIGH or _AUTOMATIC probe the weight at nice
 * ([-20, -1]; Linux), _WAIT and _THREAD the real-time class (pacer_probe_priority is _WAIT). */
int pacer_probe_priority_mode(int priority, int realtime_priority, int round_robin, int nice,
                              pacer_priority_status* out);

/* The linked library's version, "MAJOR.MINOR.PATCH" (static storage). [any thread] */
const char* pacer_version(void);

/* ---- Errors and logging --------------------------------------------------------------------- */

/* The calling thread's last error, one line without a newline; "" if no call has failed on this
 * thread. Set by failing calls only: read it right after a call returned an error or NULL.
 * [any thread] */
const char* pacer_last_error(void);

/* Log routing (pacer/log.hpp). fn gets a pacer_log_severity and a NUL-terminated line without a
 * trailing newline, valid during the call; it is called on the thread where the event happened,
 * one call at a time, and must not call pacer_set_log_function() itself. fn NULL silences pacer;
 * pacer_log_to_stderr is the default ("pacer: warning: <message>" on stderr). PACER_OK, or
 * PACER_ERROR_OUT_OF_MEMORY (the previous function stays). [any thread] */
typedef void (*pacer_log_function)(int level, const char* message, void* user);
int pacer_set_log_function(pacer_log_function fn, void* user);
/* The default log function, to pass to pacer_set_log_function(). [any thread] */
void pacer_log_to_stderr(int level, const char* message, void* user);
/* Lines below this level (a pacer_log_severity) are dropped; default PACER_LOG_WARN. PACER_OK, or
 * PACER_ERROR_INVALID_ARGUMENT for a level outside PACER_LOG_DEBUG..PACER_LOG_OFF. [any thread] */
int pacer_set_log_level(int level);
/* The level in force. [any thread] */
int pacer_log_level(void);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif /* PACER_PACER_H */
