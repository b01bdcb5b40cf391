// pacer/wayland_presentation.hpp - what a Wayland compositor did with each frame, from the
// wp_presentation protocol (optional target pacer::wayland; Debian: libwayland-dev,
// wayland-protocols, libwayland-bin).
//
//   PresentationFeedback      feedback for a surface, on an event queue of its own (one thread)
//     (display, surface)      the host's wl_display and wl_surface (an SDL2 window's too)
//     ok, error, clock_id     whether the compositor offers wp_presentation; its clock
//     request(id)             right before the commit of present `id`: ask for its feedback
//     poll(pacer[, on_event]) once a frame: reports presented and discarded feedback to the
//                             pacer (FramePacer::report_present with the id), never blocks
//     to_present(event)       the PresentInfo poll() reported for an event (for a capture:
//                             CaptureWriter::feedback, pacer/capture.hpp)
//   PresentationEvent         what poll() saw: presented (time, refresh, seq, flags) or discarded
//
//   pacer::wayland::PresentationFeedback feedback(info.info.wl.display, info.info.wl.surface);
//   while (running) {
//       fp.wait(); update(); render();
//       feedback.request(presenter.next_id());      // before the commit the swap makes
//       presenter.present(fp);                       // pacer/sdl2.hpp: reports it with that id
//       feedback.poll(fp);
//   }
//
// What it reads. wp_presentation.feedback(surface) asks for the fate of the surface's next
// commit: `presented` with the time it turned into light (on the clock the compositor names with
// clock_id), the refresh period (0 on a variable refresh), the vblank counter (seq; 0 where the
// compositor has none) and flags (vsync, hardware clock, hardware completion, zero copy); or
// `discarded` (a later commit replaced it before a repaint). The pacer takes a presented time as
// a vblank only with the vsync flag: on weston 10 (its x11 and headless backends) every frame
// came with flags 0, at the backend's own repaint timer rather than the refresh it reports, and
// a share of the commits was discarded (measured:
// docs/platforms.md#measured-presentation-sources-and-clocks). The pacer's status then says so
// (DisplayState::unsynced) and counts the shown frames apart from the submitted ones
// (PacerStatus::presents).
//
// The clock. weston's presentation clock is CLOCK_MONOTONIC_RAW, far from pacer::clock on the
// machine measured (docs/platforms.md#measured-presentation-sources-and-clocks): every time is
// converted with the offset measured in-process (pacer/clock_offset.hpp), measured again each
// second.
//
// The queue. The feedback objects live on an event queue of this object's (a registry through a
// display wrapper), so the host's default queue and its dispatch (SDL's) are untouched; poll()
// reads the socket with the read-intent protocol (prepare_read_queue, read_events), which is
// safe beside another reader. Request the feedback right before the commit it is for: it belongs
// to the surface's next commit, whoever makes it (SDL2 commits in its swap).
//
// Header plus the protocol code wayland-scanner generates at build time from wayland-protocols'
// presentation-time.xml (the target pacer::wayland compiles it). Thread safety: one thread.
#pragma once

#include <poll.h>
#include <time.h>
#include <wayland-client.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <cstring>

#include "pacer/clock.hpp"
#include "pacer/clock_offset.hpp"
#include "pacer/frame_pacer.hpp"
#include "pacer/present.hpp"
#include "presentation-time-client-protocol.h"

namespace pacer::wayland {

struct PresentationEvent {
    bool presented = false;              // false: discarded
    std::uint64_t id = 0;                // the present's id given to request()
    clock::time_point time{};            // presented: when, on pacer::clock
    std::chrono::nanoseconds refresh{0}; // presented: the refresh period the compositor says (0 unknown)
    std::uint64_t seq = 0;               // presented: the vblank counter (0: none)
    PresentFlags flags{};                // presented: known, and the bits
};

class PresentationFeedback {
public:
    static constexpr int kInFlight = 16;  // feedback requests outstanding at most (1-3 in practice)

    PresentationFeedback(wl_display* display, wl_surface* surface) noexcept : display_(display), surface_(surface) {
        if (display_ == nullptr || surface_ == nullptr) {
            error_ = "no Wayland display or surface";
            return;
        }
        queue_ = wl_display_create_queue(display_);
        auto* wrapper = static_cast<wl_display*>(wl_proxy_create_wrapper(display_));
        wl_proxy_set_queue(reinterpret_cast<wl_proxy*>(wrapper), queue_);
        registry_ = wl_display_get_registry(wrapper);
        wl_proxy_wrapper_destroy(wrapper);
        wl_registry_add_listener(registry_, &kRegistry, this);
        wl_display_roundtrip_queue(display_, queue_);  // the globals
        if (presentation_ == nullptr) {
            error_ = "the compositor offers no wp_presentation";
            return;
        }
        wp_presentation_add_listener(presentation_, &kPresentation, this);
        wl_display_roundtrip_queue(display_, queue_);  // clock_id comes right after the bind
        calibrate();
        ok_ = true;
    }
    ~PresentationFeedback() {
        for (Request& r : requests_)
            if (r.feedback != nullptr) wp_presentation_feedback_destroy(r.feedback);
        if (presentation_ != nullptr) wp_presentation_destroy(presentation_);
        if (registry_ != nullptr) wl_registry_destroy(registry_);
        if (queue_ != nullptr) wl_event_queue_destroy(queue_);
    }
    PresentationFeedback(const PresentationFeedback&) = delete;
    PresentationFeedback& operator=(const PresentationFeedback&) = delete;

    bool ok() const noexcept { return ok_; }
    const char* error() const noexcept { return error_; }
    clockid_t clock_id() const noexcept { return clock_id_; }

    // Asks for the feedback of the surface's next commit, reported as present `id`'s. When
    // kInFlight requests are outstanding the oldest is given up (its present stays unknown).
    void request(std::uint64_t id) noexcept {
        if (!ok_) return;
        Request& r = requests_[static_cast<std::size_t>(next_)];
        next_ = (next_ + 1) % kInFlight;
        if (r.feedback != nullptr) wp_presentation_feedback_destroy(r.feedback);
        r.self = this;
        r.id = id;
        r.feedback = wp_presentation_feedback(presentation_, surface_);
        wp_presentation_feedback_add_listener(r.feedback, &kFeedback, &r);
    }

    // Reads what arrived without blocking, reports it to `pacer`, hands each event to on_event.
    // Returns the events reported.
    template <class OnEvent>
    int poll(FramePacer& pacer, OnEvent&& on_event) noexcept {
        if (!ok_) return 0;
        if (clock::now() - calibrated_at_ > std::chrono::seconds(1)) calibrate();
        arrived_count_ = 0;
        while (wl_display_prepare_read_queue(display_, queue_) != 0) wl_display_dispatch_queue_pending(display_, queue_);
        wl_display_flush(display_);
        pollfd p{wl_display_get_fd(display_), POLLIN, 0};
        if (::poll(&p, 1, 0) > 0) {
            wl_display_read_events(display_);
        } else {
            wl_display_cancel_read(display_);
        }
        wl_display_dispatch_queue_pending(display_, queue_);
        for (int i = 0; i < arrived_count_; ++i) {
            const PresentationEvent& e = arrived_[static_cast<std::size_t>(i)];
            pacer.report_present(to_present(e));
            on_event(e);
        }
        return arrived_count_;
    }
    int poll(FramePacer& pacer) noexcept {
        return poll(pacer, [](const PresentationEvent&) {});
    }

    // The report poll() gives FramePacer::report_present for an event; a capture takes the same
    // (CaptureWriter::feedback).
    static PresentInfo to_present(const PresentationEvent& e) noexcept {
        PresentInfo f;
        f.id = e.id;
        f.outcome = e.presented ? PresentOutcome::shown : PresentOutcome::discarded;
        if (!e.presented) return f;
        f.displayed = e.time;
        f.flags = e.flags;
        f.msc = e.seq;
        f.has_msc = e.seq != 0;
        f.refresh_hz = e.refresh.count() > 0 ? 1e9 / static_cast<double>(e.refresh.count()) : 0.0;
        return f;
    }

private:
    struct Request {
        PresentationFeedback* self = nullptr;
        std::uint64_t id = 0;
        struct wp_presentation_feedback* feedback = nullptr;  // struct: the generated function shadows the type
    };

    void calibrate() noexcept {
        const clockid_t id = clock_id_;
        offset_ = measure_offset([] { return clock::now(); },
                                 [id] {
                                     timespec ts{};
                                     clock_gettime(id, &ts);
                                     return std::chrono::seconds(ts.tv_sec) + std::chrono::nanoseconds(ts.tv_nsec);
                                 });
        calibrated_at_ = clock::now();
    }

    void arrive(const PresentationEvent& e) noexcept {
        if (arrived_count_ < kInFlight) arrived_[static_cast<std::size_t>(arrived_count_++)] = e;
    }

    static void on_global(void* data, wl_registry* registry, std::uint32_t name, const char* interface,
                          std::uint32_t) noexcept {
        auto* self = static_cast<PresentationFeedback*>(data);
        if (std::strcmp(interface, wp_presentation_interface.name) == 0 && self->presentation_ == nullptr)
            self->presentation_ =
                static_cast<wp_presentation*>(wl_registry_bind(registry, name, &wp_presentation_interface, 1));
    }
    static void on_global_remove(void*, wl_registry*, std::uint32_t) noexcept {}
    static void on_clock(void* data, wp_presentation*, std::uint32_t clock) noexcept {
        static_cast<PresentationFeedback*>(data)->clock_id_ = static_cast<clockid_t>(clock);
    }
    static void on_sync_output(void*, struct wp_presentation_feedback*, wl_output*) noexcept {}
    static void on_presented(void* data, struct wp_presentation_feedback* fb, std::uint32_t sec_hi, std::uint32_t sec_lo,
                             std::uint32_t nsec, std::uint32_t refresh, std::uint32_t seq_hi, std::uint32_t seq_lo,
                             std::uint32_t flags) noexcept {
        auto* r = static_cast<Request*>(data);
        PresentationEvent e;
        e.presented = true;
        e.id = r->id;
        const auto sec = static_cast<std::int64_t>((std::uint64_t{sec_hi} << 32) | sec_lo);
        e.time = r->self->offset_.to_pacer(std::chrono::seconds(sec) + std::chrono::nanoseconds(nsec));
        e.refresh = std::chrono::nanoseconds(refresh);
        e.seq = (std::uint64_t{seq_hi} << 32) | seq_lo;
        e.flags.known = true;
        e.flags.vsync = (flags & WP_PRESENTATION_FEEDBACK_KIND_VSYNC) != 0;
        e.flags.hw_clock = (flags & WP_PRESENTATION_FEEDBACK_KIND_HW_CLOCK) != 0;
        e.flags.hw_completion = (flags & WP_PRESENTATION_FEEDBACK_KIND_HW_COMPLETION) != 0;
        e.flags.zero_copy = (flags & WP_PRESENTATION_FEEDBACK_KIND_ZERO_COPY) != 0;
        r->self->arrive(e);
        wp_presentation_feedback_destroy(fb);
        r->feedback = nullptr;
    }
    static void on_discarded(void* data, struct wp_presentation_feedback* fb) noexcept {
        auto* r = static_cast<Request*>(data);
        PresentationEvent e;
        e.id = r->id;
        r->self->arrive(e);
        wp_presentation_feedback_destroy(fb);
        r->feedback = nullptr;
    }

    static constexpr wl_registry_listener kRegistry = {on_global, on_global_remove};
    static constexpr wp_presentation_listener kPresentation = {on_clock};
    static constexpr wp_presentation_feedback_listener kFeedback = {on_sync_output, on_presented, on_discarded};

    wl_display* display_ = nullptr;
    wl_surface* surface_ = nullptr;
    wl_event_queue* queue_ = nullptr;
    wl_registry* registry_ = nullptr;
    wp_presentation* presentation_ = nullptr;
    clockid_t clock_id_ = CLOCK_MONOTONIC;
    ClockOffset offset_{};
    clock::time_point calibrated_at_{};
    std::array<Request, kInFlight> requests_{};
    std::array<PresentationEvent, kInFlight> arrived_{};
    int next_ = 0, arrived_count_ = 0;
    bool ok_ = false;
    const char* error_ = "";
};

}  // namespace pacer::wayland
