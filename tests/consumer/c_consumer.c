/* A C99 program on pacer/pacer.h: paces 20 frames at 200 Hz, provokes the documented errors,
 * changes settings at run time, reports a present and sleeps. Exit 0 when everything came out
 * as documented; each failed check is printed. */
#include <pacer/pacer.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

static int failures = 0;

static void check(int ok, const char* what) {
    if (!ok) {
        ++failures;
        printf("consumer_c: FAILED: %s\n", what);
    }
}

static int log_lines = 0;
static void count_log(int level, const char* message, void* user) {
    (void)level;
    (void)message;
    ++*(int*)user;
}

/* pacer_create refuses target_hz, returns NULL, and says why in pacer_last_error(). */
static void check_refused(double target_hz, const char* expected) {
    pacer_config config = pacer_config_default();
    pacer_frame_pacer* pacer;
    config.target_hz = target_hz;
    pacer = pacer_create(&config);
    check(pacer == NULL, "an invalid target_hz gives NULL");
    if (strcmp(pacer_last_error(), expected) != 0) {
        ++failures;
        printf("consumer_c: FAILED: pacer_last_error() = \"%s\", expected \"%s\"\n", pacer_last_error(),
               expected);
    }
    pacer_destroy(pacer);
}

int main(void) {
    pacer_config config = pacer_config_default();
    pacer_frame_pacer* pacer;
    pacer_frame_timing t, previous;
    pacer_present present;
    int frame;
    int64_t start, late;

    check(pacer_set_log_function(count_log, &log_lines) == PACER_OK, "pacer_set_log_function");
    check(config.target_hz == 60.0 && config.mode == PACER_MODE_HYBRID &&
              config.late_policy == PACER_LATE_CATCH_UP && config.max_catch_up == 1 &&
              config.miss_tolerance_ns == 500000,
          "pacer_config_default");

    /* 20 frames at 200 Hz. */
    config.target_hz = 200.0;
    pacer = pacer_create(&config);
    check(pacer != NULL, "pacer_create at 200 Hz");
    if (!pacer) {
        printf("consumer_c: %s\n", pacer_last_error());
        return 1;
    }
    memset(&previous, 0, sizeof previous);
    for (frame = 0; frame < 20; ++frame) {
        check(pacer_wait(pacer, &t) == PACER_OK, "pacer_wait");
        check(t.wake_ns >= t.deadline_ns && t.lateness_ns == t.wake_ns - t.deadline_ns,
              "wake at or after the deadline, lateness = wake - deadline");
        check(t.period_ns == 5000000, "period 5 ms");
        check(t.mode == PACER_MODE_HYBRID, "mode hybrid");
        if (frame == 0) {
            check(t.interval_ns == 0, "first interval 0");
        } else {
            check(t.index > previous.index, "indices increase");
            check(t.interval_ns == t.wake_ns - previous.wake_ns, "interval = wake - previous wake");
            check(t.deadline_ns - previous.deadline_ns >= 5000000 - 1, "deadlines a period apart or more");
        }
        previous = t;
    }
    check(t.index >= 19, "20 frames take 19 grid slots or more");

    /* The documented errors: NULL, the message, and the settings unchanged. */
    check_refused(nan(""), "target_hz = nan: must be a finite number in (0, 10000]");
    check_refused(0.0, "target_hz = 0: must be a finite number in (0, 10000]");
    check_refused(1e9, "target_hz = 1e+09: must be a finite number in (0, 10000]");
    check(pacer_set_target_hz(pacer, -1.0) == PACER_ERROR_INVALID_ARGUMENT, "set_target_hz(-1) refused");
    check(strstr(pacer_last_error(), "target_hz = -1") != NULL, "set_target_hz(-1): the message");
    check(pacer_set_mode(pacer, 42) == PACER_ERROR_INVALID_ARGUMENT, "set_mode(42) refused");
    check(pacer_wait(NULL, &t) == PACER_ERROR_INVALID_ARGUMENT, "pacer_wait(NULL)");

    /* Run-time changes, effective at the next wait. */
    check(pacer_set_target_hz(pacer, 250.0) == PACER_OK, "set_target_hz(250)");
    check(pacer_set_mode(pacer, PACER_MODE_SLEEP) == PACER_OK, "set_mode(sleep)");
    check(pacer_set_late_policy(pacer, PACER_LATE_SKIP, 0) == PACER_OK, "set_late_policy(skip)");
    check(pacer_wait(pacer, &t) == PACER_OK && t.period_ns == 4000000 && t.mode == PACER_MODE_SLEEP,
          "the new rate and mode at the next wait");

    /* A present, timed on pacer's clock. */
    present.begin_ns = pacer_now_ns();
    present.end_ns = pacer_now_ns();
    present.swap_interval = 0;
    present.refresh_hz = 60.0;
    present.ok = 1;
    present.displayed_ns = 0; /* unknown */
    check(pacer_report_present(pacer, &present) == PACER_OK, "pacer_report_present");
    check(pacer_desired_swap_interval(pacer) == 0, "no vsync asked for in sleep mode");
    pacer_destroy(pacer);

    /* Accurate sleep: never early. */
    start = pacer_now_ns();
    late = pacer_sleep_for_ns(1000000);
    check(late >= 0 && pacer_now_ns() - start >= 1000000, "pacer_sleep_for_ns(1 ms)");

    check(log_lines >= 1, "the refused settings were logged through the C callback");
    check(pacer_set_log_function(NULL, NULL) == PACER_OK, "silence the log");

    printf("consumer_c: frame %llu, %d log lines, %s\n", (unsigned long long)t.index, log_lines,
           failures == 0 ? "ok" : "WRONG");
    return failures == 0 ? 0 : 1;
}
