/* pacer/pacer.h - the frame pacer from C (C99 or later), or from any language that calls C.
 *
 *   #include <pacer/pacer.h>
 *
 *   pacer_config config = pacer_config_default();   // 60 Hz, hybrid wait, catch-up late policy
 *   config.target_hz = 144.0;
 *   pacer_frame_pacer* pacer = pacer_create(&config);
 *   if (!pacer) { fprintf(stderr, "%s\n", pacer_last_error()); return 1; }
 *   while (running) {
 *       pacer_frame_timing t;
 *       pacer_wait(pacer, &t);                       // blocks until this frame's deadline
 *       update(t.display_dt_ns * 1e-9);              // seconds between displayed frames; 0 first
 *       draw_and_present();
 *   }
 *   pacer_destroy(pacer);
 *
 * The C API is a thin layer over the C++ one: pacer_frame_pacer is a pacer::FramePacer on the
 * real OS clock, and the manual of pacer/frame_pacer.hpp (deadlines, late policies, vsync,
 * run-time changes), pacer/frame_timing.hpp (what each field means), pacer/vsync.hpp (reporting
 * presents) and pacer/log.hpp (log routing) applies unchanged. Times are int64 nanoseconds on
 * pacer's clock (pacer_now_ns(): CLOCK_MONOTONIC on Linux, QueryPerformanceCounter on Windows,
 * mach_absolute_time on macOS); durations are int64 nanoseconds.
 *
 * Configuration. Start from pacer_config_default() and change the fields you need, so that a
 * field added in a later version gets its default. Accepted ranges: target_hz finite in
 * (0, 10000]; mode a PACER_MODE_*; late_policy a PACER_LATE_*; max_catch_up in [0, 1000];
 * miss_tolerance_ns in [0, 1e9]; sync a PACER_SYNC_*; max_late_share in [0.001, 0.5]; cadence a
 * PACER_CADENCE_* (the governor's other settings keep their defaults: pacer/cadence.hpp);
 * display_lock and match_display 0 or not (pacer/frame_pacer.hpp, "Display lock").
 *
 * Sync modes and latency (pacer/frame_pacer.hpp says where each mode waits). A loop that supports
 * all three marks its input sample and its present besides pacer_wait():
 *
 *   pacer_wait(pacer, &t);          // PACER_SYNC_FRAME_START and _JUST_IN_TIME wait here
 *   pacer_mark_input(pacer);        // just before reading input
 *   update_and_render();
 *   pacer_before_present(pacer);    // PACER_SYNC_PRESENT waits here
 *   swap_and_report_present();      // pacer_report_present, with displayed_ns if known
 *
 * t.latency_ns is then the previous frame's input-to-shown latency.
 *
 * Errors. Functions that can fail return an int: PACER_OK (0) on success, a negative
 * PACER_ERROR_* otherwise (pacer_create returns NULL instead). Every failing call, and nothing
 * else, sets the calling thread's last error, a one-line text read with pacer_last_error():
 *
 *   config.target_hz = 0.0 / 0.0;
 *   pacer_create(&config)       -> NULL
 *   pacer_last_error()          -> "target_hz = nan: must be a finite number in (0, 10000]"
 *
 * A refused run-time setting (pacer_set_target_hz, ...) keeps the previous, valid settings, so a
 * slider or a console command cannot put a running loop into an undefined state. A NULL pacer is
 * refused by every function with PACER_ERROR_INVALID_ARGUMENT (pacer_destroy(NULL) does
 * nothing). No C++ exception ever leaves these functions; running out of memory is reported as
 * PACER_ERROR_OUT_OF_MEMORY.
 *
 * Ownership. pacer_create allocates the pacer; pacer_destroy frees it (once). Pointers passed in
 * (config, present, timing) are only used during the call. The text of pacer_last_error() is
 * owned by the library and valid until the same thread's next failing call.
 *
 * Thread safety. One thread calls pacer_wait() on a given pacer; its setters and
 * pacer_report_present() must be called from that thread too. Different pacers are independent.
 * pacer_now_ns, pacer_sleep_*, pacer_last_error and the log functions may be called from any
 * thread; the sleeps keep their learned state per thread. The thread's OS timer settings (Linux
 * timer slack, Windows timer resolution) are taken at the first pacer_wait() and given back by
 * pacer_destroy() on that thread.
 *
 * Linking. pacer is a C++ library: a C program that links the static libpacer also needs the C++
 * runtime. Link with a C++ compiler driver (g++, clang++), or add it by hand, e.g.
 *   cc game.c -lpacer -lstdc++ -lm -lpthread      (libc++: -lc++; MinGW also -lwinmm)
 * With CMake, link pacer::pacer and set the executable's LINKER_LANGUAGE to CXX.
 */
#ifndef PACER_PACER_H
#define PACER_PACER_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Return codes. */
enum {
    PACER_OK = 0,
    PACER_ERROR_INVALID_ARGUMENT = -1, /* a value out of range, an unknown enum value, a NULL pacer */
    PACER_ERROR_OUT_OF_MEMORY = -2,
    PACER_ERROR_INTERNAL = -3          /* anything else; pacer_last_error() says what */
};

/* How a wait is done (pacer::WaitMode). */
enum {
    PACER_MODE_SLEEP = 0,   /* OS sleep only: no CPU, late by whatever the OS adds */
    PACER_MODE_SPIN = 1,    /* busy-wait only: exact, burns a core */
    PACER_MODE_HYBRID = 2,  /* OS sleep to the deadline - a learned margin, then spin (default) */
    PACER_MODE_VSYNC = 3,   /* the swap paces, the pacer measures (report presents) */
    PACER_MODE_AUTO = 4     /* vsync when verified at the target rate, else hybrid */
};

/* What to do with a frame that enters pacer_wait() after its deadline (pacer::LatePolicy). */
enum {
    PACER_LATE_CATCH_UP = 0, /* keep the grid; serve up to max_catch_up passed deadlines at once */
    PACER_LATE_SKIP = 1,     /* keep the grid; skip every passed slot */
    PACER_LATE_RESYNC = 2    /* restart the grid at the late wake-up */
};

/* Where a frame waits relative to its work (pacer::SyncMode). */
enum {
    PACER_SYNC_FRAME_START = 0, /* at the frame start, on the grid (default) */
    PACER_SYNC_PRESENT = 1,     /* just before the present: flat present times */
    PACER_SYNC_JUST_IN_TIME = 2 /* at the frame start, until display deadline - learned work */
};

/* The cadence governor (pacer::CadenceMode; pacer/cadence.hpp has its rules). */
enum {
    PACER_CADENCE_FIXED = 0, /* always the target rate (default) */
    PACER_CADENCE_AUTO = 1   /* the highest whole divisor of the refresh (or target) the work sustains */
};

/* Which mechanism paced a frame (pacer::PacingSource). */
enum {
    PACER_SOURCE_SLEEP = 0,
    PACER_SOURCE_SPIN = 1,
    PACER_SOURCE_HYBRID = 2,
    PACER_SOURCE_VSYNC = 3
};

/* Log levels (pacer::LogLevel). */
enum {
    PACER_LOG_DEBUG = 0,
    PACER_LOG_INFO = 1,
    PACER_LOG_WARN = 2, /* the default level: warnings and errors */
    PACER_LOG_ERROR = 3,
    PACER_LOG_OFF = 4
};

typedef struct pacer_config {
    double target_hz;          /* frames per second, in (0, 10000]; default 60 */
    int mode;                  /* PACER_MODE_*; default PACER_MODE_HYBRID */
    int late_policy;           /* PACER_LATE_*; default PACER_LATE_CATCH_UP */
    int max_catch_up;          /* catch-up only: passed deadlines served at once; default 1 */
    int64_t miss_tolerance_ns; /* a frame later than this counts as missed; default 500000 */
    double background_hz;      /* rate in the background (pacer_set_background), (0, 10000]; default 10 */
    int sync;                  /* PACER_SYNC_*; default PACER_SYNC_FRAME_START */
    double max_late_share;     /* just in time: share of frames allowed late, [0.001, 0.5]; default 0.01 */
    int cadence;               /* PACER_CADENCE_*; default PACER_CADENCE_FIXED */
    int display_lock;          /* != 0: place waits against the fitted vblanks; default 1 */
    int match_display;         /* != 0: the target follows the display's refresh; default 0 */
} pacer_config;

/* One frame, as pacer_wait() describes it (pacer::FrameTiming). */
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
    uint32_t skipped;      /* grid slots skipped before this frame */
    int missed;            /* 1 when late by more than miss_tolerance_ns or skipped > 0, else 0 */
    int mode;              /* PACER_MODE_*: the configured mode */
    int source;            /* PACER_SOURCE_*: what actually paced this frame */
    int background;        /* 1 when paced at background_hz (pacer_set_background), else 0 */
    int sync;              /* PACER_SYNC_*: the sync mode in force for this frame */
    /* The previous frame (the one presented before this pacer_wait()); 0 when none: */
    int64_t latency_ns;           /* its input sample -> shown */
    int64_t input_to_present_ns;  /* its input sample -> its present call */
    int latency_measured;         /* 1: from a reported displayed time; 0: predicted */
    int shown_late;               /* 1: shown after the display deadline it was started for */
    /* The cadence and the display (pacer/frame_timing.hpp): */
    uint32_t cadence;             /* frames every `cadence` refreshes (or target periods); 1 when fixed */
    double cadence_hz;            /* the frame rate in force */
    int64_t display_dt_ns;        /* predicted display interval: the delta for the simulation */
    int display_locked;           /* the wait was placed against the fitted vblanks */
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
} pacer_present;

typedef struct pacer_frame_pacer pacer_frame_pacer;

/* The defaults: 60 Hz, PACER_MODE_HYBRID, PACER_LATE_CATCH_UP with max_catch_up 1, 0.5 ms. */
pacer_config pacer_config_default(void);

/* A pacer on the real OS clock; config NULL: the defaults. NULL when the config is invalid or
 * memory ran out (pacer_last_error() says which). Free it with pacer_destroy(). */
pacer_frame_pacer* pacer_create(const pacer_config* config);
/* Frees the pacer and gives the pacing thread's OS timer settings back. NULL: nothing. */
void pacer_destroy(pacer_frame_pacer* pacer);

/* Blocks until the next frame's deadline and fills *timing (which may be NULL). The first call
 * returns at once and anchors the grid. PACER_OK, or an error for a NULL pacer (*timing zeroed). */
int pacer_wait(pacer_frame_pacer* pacer, pacer_frame_timing* timing);

/* Run-time changes, effective at the next pacer_wait(). An invalid value is refused (error code,
 * pacer_last_error(), a warning in the log) and the current settings stay. */
int pacer_set_target_hz(pacer_frame_pacer* pacer, double target_hz);
int pacer_set_mode(pacer_frame_pacer* pacer, int mode);
int pacer_set_late_policy(pacer_frame_pacer* pacer, int late_policy, int max_catch_up);
/* Minimized or unfocused window (on != 0): pace at background_hz with OS sleep only, vsync off;
 * on == 0 returns to the target rate (pacer::FramePacer::set_background). */
int pacer_set_background(pacer_frame_pacer* pacer, int on);

/* Sync mode (PACER_SYNC_*), effective at the next pacer_wait(); refused like the setters above. */
int pacer_set_sync(pacer_frame_pacer* pacer, int sync);
/* Frame markers: the input is sampled now; the present call comes next (waits in
 * PACER_SYNC_PRESENT). PACER_OK, or an error for a NULL pacer. */
int pacer_mark_input(pacer_frame_pacer* pacer);
int pacer_before_present(pacer_frame_pacer* pacer);

/* Vsync: report each present (modes PACER_MODE_VSYNC and PACER_MODE_AUTO need them), and set the
 * swap interval the pacer asks for: >= 0 (0 = vsync off), or an error code for a NULL pacer. */
int pacer_report_present(pacer_frame_pacer* pacer, const pacer_present* present);
int pacer_desired_swap_interval(const pacer_frame_pacer* pacer);

/* A vblank the host saw by other means (a vblank event, DXGI frame statistics), in pacer's clock:
 * with vsync off it is what lets the pacer place frames against the display (pacer/display.hpp). */
int pacer_report_vblank(pacer_frame_pacer* pacer, int64_t vblank_ns);

/* The display as the presents show it (pacer::DisplayStatus, pacer/display.hpp). */
#define PACER_DISPLAY_UNKNOWN 0 /* no vblank seen yet */
#define PACER_DISPLAY_LOCKING 1 /* vblanks seen, the fit not yet trusted */
#define PACER_DISPLAY_LOCKED 2  /* refresh period and phase fitted */
#define PACER_DISPLAY_VRR 3     /* a variable-refresh display: no grid to lock to */
#define PACER_DISPLAY_LOST 4    /* the timestamps stopped */
typedef struct pacer_display_status {
    int state;               /* PACER_DISPLAY_* */
    double refresh_hz;       /* fitted refresh; 0 unknown */
    double reported_hz;      /* the refresh the host last reported; 0 unknown */
    double skew_ppm;         /* fitted against reported: + the display runs fast */
    int64_t vblank_ns;       /* a fitted vblank (the phase reference) */
    double vrr_min_hz, vrr_max_hz;  /* state VRR: the range the presents showed */
    const char* reason;      /* in words, static storage */
} pacer_display_status;
/* Fills *out: PACER_OK, or an error for a NULL pacer or out. */
int pacer_get_display_status(const pacer_frame_pacer* pacer, pacer_display_status* out);

/* pacer's clock in nanoseconds: the clock of every pacer_frame_timing and pacer_present. */
int64_t pacer_now_ns(void);

/* Accurate sleeps (OS sleep as far as it can be trusted, then spin), with per-thread learned
 * state. Return how late they woke, in ns (>= 0). A deadline in the past or a duration <= 0
 * returns at once. */
int64_t pacer_sleep_until_ns(int64_t deadline_ns);
int64_t pacer_sleep_for_ns(int64_t duration_ns);

/* The calling thread's last error, one line without a newline; "" if no call has failed on this
 * thread. Set by failing calls only: read it right after a call returned an error or NULL. */
const char* pacer_last_error(void);

/* Log routing (pacer/log.hpp). fn gets a PACER_LOG_* level and a NUL-terminated line without a
 * trailing newline, valid during the call; it is called on the thread where the event happened,
 * one call at a time, and must not call pacer_set_log_function() itself. fn NULL silences pacer;
 * pacer_log_to_stderr is the default ("pacer: warning: <message>" on stderr). Thread-safe.
 * PACER_OK, or PACER_ERROR_OUT_OF_MEMORY (the previous function stays). */
typedef void (*pacer_log_function)(int level, const char* message, void* user);
int pacer_set_log_function(pacer_log_function fn, void* user);
void pacer_log_to_stderr(int level, const char* message, void* user);
/* Lines below this level are dropped (default PACER_LOG_WARN). PACER_OK, or
 * PACER_ERROR_INVALID_ARGUMENT for a level outside PACER_LOG_DEBUG..PACER_LOG_OFF. */
int pacer_set_log_level(int level);
int pacer_log_level(void);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif /* PACER_PACER_H */
