// pacer/x11_present.hpp - the display's vblank clock, and presents at a vblank, through X11's
// Present extension (optional target pacer::x11_present; Debian: libxcb-present-dev).
//
//   PresentSource             a Present connection of its own to the X server (one thread)
//     PresentSource(name[, ahead])  connects (nullptr: $DISPLAY); ok() false and error() when it
//                             cannot; `ahead` NotifyMSC requests kept queued (1 to 8, default 1;
//                             another count: ok() false, nothing connected)
//     watch(window)           the X11 window whose vblanks to follow (an SDL2 window's XID too)
//     poll(pacer[, on_event]) once a frame: reports the vblanks and pixmap completions that
//                             arrived (FramePacer::report_vblank, report_present), never blocks
//     wait(timeout)           blocks until the next event (a tool without a loop of its own)
//     present(pacer, pixmap, target_msc)   PresentPixmap at a vblank counter; returns its id
//     last_msc, window, connection, fd
//     requested_msc, requested_at    the last counter a NotifyMSC asked for, and when it was sent
//   PresentEvent              what poll() saw: a vblank, a pixmap shown or skipped, a pixmap idle
//
//   pacer::x11::PresentSource x11;                   // after SDL made the window and its renderer
//   x11.watch(xid);                                  // SDL_GetWindowWMInfo: info.info.x11.window
//   while (running) {
//       x11.poll(fp);                                // the vblanks since the last frame
//       fp.wait(); update(); draw_and_present();
//   }
//
// What it reads. PresentNotifyMSC asks the server for a CompleteNotify at a vblank counter (MSC);
// the event carries the MSC and its time (UST: CLOCK_MONOTONIC in microseconds on Linux). Each
// vblank goes to the pacer with its counter, so the display's fit indexes vblanks by count rather
// than guessing missed ones (pacer/display.hpp). On a desktop X server (and XWayland) the times
// are the hardware vblank's; Xvfb runs a timer at `-fakescreenfps N` (60 without), at a rate
// within 0.0005 % of 1e6 / (1e6 / N in whole microseconds) Hz (60.0024 Hz for 60).
//
// Requests ahead (the constructor's `ahead`, 1 to 8). The source keeps that many NotifyMSC
// requests queued (msc + 1 .. msc + ahead, divisor 1; with divisor 0 the server would answer a
// passed target at once with the time of the request, not of a vblank). Each new one is sent
// when poll() reads a vblank.
//   1 (the default)  the next vblank only. A frame that polls after that vblank has passed gets
//                    the one after it, so a loop slower than the display sees fewer vblanks: the
//                    fit, indexed by counter, loses observations, not accuracy.
//   more             no vblank lost to a late poll, but on Xvfb noisier stamps: Xvfb arms each
//                    vblank as a timer in whole milliseconds from the time of the request, and
//                    every request that reaches the server while one is pending re-arms it from
//                    a new millisecond phase: with 2 or 3 ahead the stamps spread wider around
//                    their line than with one (measured:
//                    docs/platforms.md#measured-presentation-sources-and-clocks).
// Any other request on the same server (a toolkit's drawing, a present) re-arms the timer too, so
// on Xvfb only a quiet client gets the tighter stamps; a hardware server's stamps are the
// vblank's either way.
//
// The clock. UST is converted with the offset between CLOCK_MONOTONIC and pacer::clock measured
// in-process (pacer/clock_offset.hpp; zero, within the measurement's uncertainty, where pacer's
// clock is CLOCK_MONOTONIC), measured again each second.
//
// Presenting at a time. present() sends a PresentPixmap for a target MSC (the vblank counter of
// FrameTiming::display_target) and reports it to the pacer with an id; its CompleteNotify comes
// back through poll() as that present's feedback: shown (mode copy, flip or suboptimal copy) at
// an MSC and UST, or skipped (a newer present replaced it). The server holds an early present
// until its target; one that arrives after the target's vblank is shown a vblank late. On Xvfb,
// whose counter rounds half a period early, a present queued more than half a period before its
// vblank is mostly shown on target and one in the last half period almost never (measured:
// docs/platforms.md#measured-presentation-sources-and-clocks), so on Xvfb aim at the vblank
// after next.
//
// The window. The source's own connection selects Present events on the window, so the
// toolkit's connection and event loop are untouched. SDL2 recreates its X window (a new XID) when
// it first makes a GL context for it (SDL_CreateRenderer, SDL_GetWindowSurface): read the XID
// after that, and call watch() again when SDL_GetWindowWMInfo gives another one. A window that
// disappears shows as ok() false with error() saying so.
//
// Header-only: it compiles in the host's build against the host's libxcb. Linux and other POSIX
// systems with X11. Thread safety: one thread (the pacing thread) uses a PresentSource.
#pragma once

#include <poll.h>
#include <time.h>
#include <xcb/present.h>
#include <xcb/xcb.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "pacer/clock.hpp"
#include "pacer/clock_offset.hpp"
#include "pacer/frame_pacer.hpp"
#include "pacer/present.hpp"

namespace pacer::x11 {

struct PresentEvent {
    enum class Kind { vblank, pixmap_shown, pixmap_skipped, pixmap_idle };
    Kind kind = Kind::vblank;
    std::uint64_t msc = 0;         // the vblank counter (vblank, pixmap shown or skipped)
    clock::time_point time{};      // its time on pacer::clock (UST converted)
    std::uint64_t id = 0;          // pixmap events: the id present() returned
    std::uint32_t pixmap = 0;      // pixmap_idle: the pixmap free to draw into again
    CompletionMode mode = CompletionMode::unknown;
};

class PresentSource {
public:
    static constexpr int kMaxAhead = 8;

    explicit PresentSource(const char* display_name = nullptr, int ahead = 1) noexcept : ahead_(ahead) {
        if (ahead < 1 || ahead > kMaxAhead) {
            fail("PresentSource: ahead must be 1 to 8 requests");
            return;
        }
        int screen = 0;
        c_ = xcb_connect(display_name, &screen);
        if (xcb_connection_has_error(c_)) {
            fail("cannot connect to the X server");
            return;
        }
        const xcb_query_extension_reply_t* ext = xcb_get_extension_data(c_, &xcb_present_id);
        if (ext == nullptr || !ext->present) {
            fail("the X server has no Present extension");
            return;
        }
        xcb_present_query_version_reply_t* v =
            xcb_present_query_version_reply(c_, xcb_present_query_version(c_, 1, 2), nullptr);
        if (v == nullptr) {
            fail("PresentQueryVersion failed");
            return;
        }
        std::free(v);
        ok_ = true;
    }
    ~PresentSource() {
        if (c_ == nullptr) return;
        if (events_ != nullptr) xcb_unregister_for_special_event(c_, events_);
        xcb_disconnect(c_);
    }
    PresentSource(const PresentSource&) = delete;
    PresentSource& operator=(const PresentSource&) = delete;

    bool ok() const noexcept { return ok_; }
    const char* error() const noexcept { return error_; }
    xcb_connection_t* connection() const noexcept { return c_; }
    int fd() const noexcept { return c_ != nullptr ? xcb_get_file_descriptor(c_) : -1; }
    std::uint32_t window() const noexcept { return window_; }
    std::uint64_t last_msc() const noexcept { return last_msc_; }
    // The last counter a NotifyMSC asked for (0: none yet) and when poll() sent it: a tool can
    // tell a vblank the server skipped after a request in time from a request that came late.
    std::uint64_t requested_msc() const noexcept { return requested_; }
    clock::time_point requested_at() const noexcept { return requested_at_; }
    bool has_msc() const noexcept { return has_msc_; }

    // Follows `window`'s vblanks from now on; false (and error()) when the window does not exist.
    bool watch(std::uint32_t window) noexcept {
        if (c_ == nullptr || xcb_connection_has_error(c_)) return fail("the X connection is closed");
        if (events_ != nullptr) xcb_unregister_for_special_event(c_, events_);
        window_ = window;
        const std::uint32_t eid = xcb_generate_id(c_);
        const xcb_void_cookie_t ck = xcb_present_select_input_checked(
            c_, eid, window, XCB_PRESENT_EVENT_MASK_COMPLETE_NOTIFY | XCB_PRESENT_EVENT_MASK_IDLE_NOTIFY);
        events_ = xcb_register_for_special_xge(c_, &xcb_present_id, eid, nullptr);
        if (xcb_generic_error_t* e = xcb_request_check(c_, ck)) {  // flushes
            std::free(e);
            return fail("PresentSelectInput refused the window (it does not exist?)");
        }
        requested_ = 0;
        has_msc_ = false;
        calibrate();
        // The next vblank, whatever its counter: the queue ahead starts from its answer.
        xcb_present_notify_msc(c_, window_, next_serial(), 0, 1, 0);
        xcb_flush(c_);
        ok_ = true;
        return true;
    }

    // Reads every event that arrived, without blocking; reports vblanks and pixmap completions to
    // `pacer`, and hands each event to on_event (PresentEvent). Returns the vblanks reported.
    template <class OnEvent>
    int poll(FramePacer& pacer, OnEvent&& on_event) noexcept {
        if (!ok_ || events_ == nullptr) return 0;
        if (xcb_connection_has_error(c_)) {
            fail("the X connection broke");
            return 0;
        }
        drain_errors();
        if (clock::now() - calibrated_at_ > std::chrono::seconds(1)) calibrate();
        int vblanks = 0;
        while (xcb_generic_event_t* ev = xcb_poll_for_special_event(c_, events_)) {
            PresentEvent e;
            if (read(ev, &e)) {
                if (e.kind == PresentEvent::Kind::vblank) {
                    if (!report_vblank(pacer, e)) continue;  // a counter seen already
                    ++vblanks;
                } else if (e.kind != PresentEvent::Kind::pixmap_idle) {
                    report_pixmap(pacer, e);
                }
                on_event(e);
            }
        }
        request_ahead();
        return vblanks;
    }
    int poll(FramePacer& pacer) noexcept {
        return poll(pacer, [](const PresentEvent&) {});
    }

    // Blocks until an event is readable or `timeout` passed; false on timeout or a broken link.
    bool wait(std::chrono::nanoseconds timeout) noexcept {
        if (!ok_) return false;
        pollfd p{fd(), POLLIN, 0};
        const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(timeout).count();
        return ::poll(&p, 1, static_cast<int>(ms < 0 ? 0 : ms)) > 0;
    }

    // PresentPixmap(pixmap) at vblank counter target_msc, reported to `pacer` as a present with
    // a new id (returned; 0 when the source is not ok). Its outcome comes back through poll().
    // From a render thread, `frame` names the frame it shows (FrameTiming::frame; 0: the frame
    // last waited for).
    std::uint64_t present(FramePacer& pacer, std::uint32_t pixmap, std::uint64_t target_msc,
                          std::uint64_t frame = 0) noexcept {
        if (!ok_) return 0;
        const std::uint32_t serial = next_serial();
        PresentInfo p;
        p.begin = pacer.now();
        xcb_present_pixmap(c_, window_, pixmap, serial, 0, 0, 0, 0, 0, 0, 0, XCB_PRESENT_OPTION_NONE, target_msc,
                           0, 0, 0, nullptr);
        xcb_flush(c_);
        p.end = pacer.now();
        p.swap_interval = 0;  // not a swap that waits: the server holds it until its target
        p.id = serial;
        p.frame = frame;
        pacer.report_present(p);
        return serial;
    }

private:
    bool fail(const char* what) noexcept {
        ok_ = false;
        error_ = what;
        return false;
    }
    std::uint32_t next_serial() noexcept { return ++serial_ == 0 ? ++serial_ : serial_; }

    // CLOCK_MONOTONIC (UST's clock) against pacer::clock, measured (pacer/clock_offset.hpp).
    void calibrate() noexcept {
        offset_ = measure_offset([] { return clock::now(); },
                                 [] {
                                     timespec ts{};
                                     clock_gettime(CLOCK_MONOTONIC, &ts);
                                     return std::chrono::seconds(ts.tv_sec) + std::chrono::nanoseconds(ts.tv_nsec);
                                 });
        calibrated_at_ = clock::now();
    }

    // Errors of the unchecked requests (a window that went away) come on the ordinary queue.
    void drain_errors() noexcept {
        while (xcb_generic_event_t* ev = xcb_poll_for_event(c_)) {
            if (ev->response_type == 0) fail("the X server refused a Present request (the window is gone?)");
            std::free(ev);
        }
    }

    bool read(xcb_generic_event_t* ev, PresentEvent* out) noexcept {
        const auto* ge = reinterpret_cast<const xcb_ge_generic_event_t*>(ev);
        bool known = true;
        if (ge->event_type == XCB_PRESENT_COMPLETE_NOTIFY) {
            const auto* cn = reinterpret_cast<const xcb_present_complete_notify_event_t*>(ev);
            out->msc = cn->msc;
            out->time = offset_.to_pacer(std::chrono::microseconds(cn->ust));
            out->mode = mode_of(cn->mode);
            if (cn->kind == XCB_PRESENT_COMPLETE_KIND_NOTIFY_MSC) {
                out->kind = PresentEvent::Kind::vblank;
            } else {
                out->kind = out->mode == CompletionMode::skip ? PresentEvent::Kind::pixmap_skipped
                                                              : PresentEvent::Kind::pixmap_shown;
                out->id = cn->serial;
            }
        } else if (ge->event_type == XCB_PRESENT_IDLE_NOTIFY) {
            const auto* in = reinterpret_cast<const xcb_present_idle_notify_event_t*>(ev);
            out->kind = PresentEvent::Kind::pixmap_idle;
            out->pixmap = in->pixmap;
            out->id = in->serial;
        } else {
            known = false;
        }
        std::free(ev);
        return known;
    }

    static CompletionMode mode_of(std::uint8_t m) noexcept {
        switch (m) {
            case XCB_PRESENT_COMPLETE_MODE_COPY: return CompletionMode::copy;
            case XCB_PRESENT_COMPLETE_MODE_FLIP: return CompletionMode::flip;
            case XCB_PRESENT_COMPLETE_MODE_SKIP: return CompletionMode::skip;
            case XCB_PRESENT_COMPLETE_MODE_SUBOPTIMAL_COPY: return CompletionMode::suboptimal_copy;
            default: return CompletionMode::unknown;
        }
    }

    // A new counter goes to the pacer; one seen already (a request that was queued twice for the
    // same vblank) does not.
    bool report_vblank(FramePacer& pacer, const PresentEvent& e) noexcept {
        if (has_msc_ && e.msc <= last_msc_) return false;
        last_msc_ = e.msc;
        has_msc_ = true;
        VblankInfo v(e.time);
        v.msc = e.msc;
        v.has_msc = true;
        pacer.report_vblank(v);
        return true;
    }

    static void report_pixmap(FramePacer& pacer, const PresentEvent& e) noexcept {
        PresentInfo f;
        f.id = e.id;
        f.completion = e.mode;
        f.msc = e.msc;
        f.has_msc = true;
        if (e.kind == PresentEvent::Kind::pixmap_skipped) {
            f.outcome = PresentOutcome::skipped;
        } else {
            f.outcome = PresentOutcome::shown;
            f.displayed = e.time;
            f.flags.known = true;
            f.flags.vsync = true;  // shown at the vblank counted by msc (no ASYNC option is used)
            f.flags.zero_copy = e.mode == CompletionMode::flip;
        }
        pacer.report_present(f);
    }

    // Keeps NotifyMSC requests queued for the next `ahead` counters after the last one seen.
    void request_ahead() noexcept {
        if (!has_msc_) return;
        if (requested_ < last_msc_) requested_ = last_msc_;  // fell behind: start over from now
        bool sent = false;
        while (requested_ < last_msc_ + static_cast<std::uint64_t>(ahead_)) {
            xcb_present_notify_msc(c_, window_, next_serial(), ++requested_, 1, 0);
            sent = true;
        }
        if (!sent) return;
        xcb_flush(c_);
        requested_at_ = clock::now();
    }

    int ahead_ = 1;
    xcb_connection_t* c_ = nullptr;
    xcb_special_event_t* events_ = nullptr;
    std::uint32_t window_ = 0;
    std::uint32_t serial_ = 0;
    std::uint64_t last_msc_ = 0, requested_ = 0;
    clock::time_point requested_at_{};
    bool has_msc_ = false;
    ClockOffset offset_{};
    clock::time_point calibrated_at_{};
    bool ok_ = false;
    const char* error_ = "";
};

}  // namespace pacer::x11
