// The C API's capture files (pacer/pacer.h): a pacer_capture is a pacer::CaptureWriter, fed the
// C++ FrameTiming the C timing converts back to (the conversion is lossless: c_api_common.cpp).
#include <cstdio>
#include <memory>
#include <string>

#include "c_api/c_api_internal.hpp"
#include "pacer/capture.hpp"

struct pacer_capture {
    pacer::CaptureWriter writer;
    // The writer's first error, copied at the first pacer_capture_get_status that sees it.
    mutable char error[512] = "";
};

namespace {

using namespace pacer::capi;

pacer::CaptureOptions to_cpp(const pacer_capture_options& o) {
    pacer::CaptureOptions options;
    if (o.application) options.application = o.application;
    if (o.runtime) options.runtime = o.runtime;
    options.buffer_bytes = o.buffer_bytes;
    options.write_stats = o.write_stats != 0;
    options.stats_window = o.stats_window;
    if (o.config) options.config = pacer::capi::to_cpp(*o.config);
    if (o.notes) options.notes = o.notes;
    options.await_feedback = o.await_feedback != 0;
    return options;
}

// extras with its present (one PresentInfo, converted as pacer_report_present converts it).
pacer::CaptureExtras to_cpp(const pacer_capture_extras& e) noexcept {
    pacer::CaptureExtras extras;
    if (e.present) extras.present = pacer::capi::to_cpp(*e.present);
    extras.in_present = dur(e.in_present_ns);
    extras.until_render_complete = dur(e.until_render_complete_ns);
    extras.until_displayed = dur(e.until_displayed_ns);
    extras.between_display_change = dur(e.between_display_change_ns);
    extras.sync_interval = e.sync_interval;
    extras.dropped = e.dropped;
    extras.pacing_source = e.pacing_source;
    return extras;
}

}  // namespace

extern "C" {

pacer_capture_options pacer_capture_options_default(void) {
    const pacer::CaptureOptions d;
    pacer_capture_options o{};
    o.application = nullptr;  // "pacer"
    o.runtime = nullptr;      // "Other"
    o.buffer_bytes = d.buffer_bytes;
    o.write_stats = d.write_stats ? 1 : 0;
    o.stats_window = d.stats_window;
    o.config = nullptr;
    o.notes = nullptr;
    o.await_feedback = d.await_feedback ? 1 : 0;
    return o;
}

pacer_capture_extras pacer_capture_extras_default(void) {
    const pacer::CaptureExtras d;
    pacer_capture_extras e{};
    e.present = nullptr;
    e.in_present_ns = d.in_present.count();
    e.until_render_complete_ns = d.until_render_complete.count();
    e.until_displayed_ns = d.until_displayed.count();
    e.between_display_change_ns = d.between_display_change.count();
    e.sync_interval = d.sync_interval;
    e.dropped = d.dropped;
    e.pacing_source = d.pacing_source;
    return e;
}

pacer_capture* pacer_capture_open(const char* path, const pacer_capture_options* options) {
    if (!path) {
        (void)null_argument("pacer_capture_open", "path");
        return nullptr;
    }
    pacer_capture* created = nullptr;
    (void)guarded([&]() -> int {
        const pacer_capture_options o = options ? *options : pacer_capture_options_default();
        auto capture = std::make_unique<pacer_capture>();
        if (pacer::Status st = capture->writer.open(path, to_cpp(o)); !st)
            return fail(PACER_ERROR_IO, st.message().c_str());
        created = capture.release();
        return PACER_OK;
    });
    return created;
}

int pacer_capture_add(pacer_capture* capture, const pacer_frame_timing* timing,
                      const pacer_capture_extras* extras) {
    if (!capture) return null_argument("pacer_capture_add", "the capture");
    if (!timing) return null_argument("pacer_capture_add", "the timing");
    if (const int code = check_timing(*timing, "pacer_capture_add"); code != PACER_OK) return code;
    capture->writer.add(pacer::capi::to_cpp(*timing), extras ? to_cpp(*extras) : pacer::CaptureExtras{});
    return PACER_OK;
}

int pacer_capture_feedback(pacer_capture* capture, const pacer_present* feedback) {
    if (!capture) return null_argument("pacer_capture_feedback", "the capture");
    if (!feedback) return null_argument("pacer_capture_feedback", "the feedback");
    if (feedback->outcome < PACER_PRESENT_UNKNOWN || feedback->outcome > PACER_PRESENT_DISCARDED) {
        char text[128];
        std::snprintf(text, sizeof text, "pacer_capture_feedback: feedback->outcome = %d: not a pacer_present_outcome value",
                      feedback->outcome);
        return fail(PACER_ERROR_INVALID_ARGUMENT, text);
    }
    capture->writer.feedback(pacer::capi::to_cpp(*feedback));
    return PACER_OK;
}

int pacer_capture_flush(pacer_capture* capture) {
    if (!capture) return null_argument("pacer_capture_flush", "the capture");
    capture->writer.flush();
    return PACER_OK;
}

int pacer_capture_get_status(const pacer_capture* capture, pacer_capture_status* out) {
    if (!capture) return null_argument("pacer_capture_get_status", "the capture");
    if (!out) return null_argument("pacer_capture_get_status", "out");
    const pacer::CaptureWriter& w = capture->writer;
    // The first error does not change once set: copied once, so that polling allocates nothing.
    if (w.failed() && capture->error[0] == '\0') {
        const int code = guarded([&]() -> int {
            std::snprintf(capture->error, sizeof capture->error, "%s", w.status().message().c_str());
            return PACER_OK;
        });
        if (code != PACER_OK) return code;
    }
    out->rows = w.rows();
    out->rows_written = w.rows_written();
    out->rows_dropped = w.rows_dropped();
    out->rows_without_frame_time = w.rows_without_frame_time();
    out->rows_buffered = w.rows_buffered();
    out->rows_without_feedback = w.rows_without_feedback();
    out->failed = w.failed() ? 1 : 0;
    out->error = capture->error;
    return PACER_OK;
}

int pacer_capture_close(pacer_capture* capture) {
    if (!capture) return PACER_OK;
    const int code = guarded([&]() -> int {
        const pacer::Status st = capture->writer.close();
        return st ? PACER_OK : fail(PACER_ERROR_IO, st.message().c_str());
    });
    delete capture;
    return code;
}

}  // extern "C"
