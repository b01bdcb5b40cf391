// `pacer display --source x11-present`: a window of its own on the X server, its vblanks from
// the Present extension (pacer/x11_present.hpp); with --present-at-time, pixmaps presented at the
// vblank counter each FramePacer frame is for.
#include <chrono>
#include <cmath>
#include <string>

#include "display_report.hpp"

#if defined(PACER_TOOLS_HAVE_X11_PRESENT)
#include <xcb/xcb.h>

#include <array>

#include "pacer/x11_present.hpp"
#endif

namespace pacer::tools {

#if !defined(PACER_TOOLS_HAVE_X11_PRESENT)

bool run_x11_present(const DisplayCmdOptions&, DisplayCmdResult*, std::string* error) {
    *error = "this pacer was built without libxcb-present: no x11-present source";
    return false;
}

#else

static_assert(kX11MaxAhead == x11::PresentSource::kMaxAhead);

namespace {

constexpr std::uint16_t kSize = 160;  // the window, in pixels
constexpr auto kWarmUp = std::chrono::seconds(2);  // present at time: the fit and the lead settle

// A small window on the source's connection (so its Present events need no second connection).
xcb_window_t open_window(xcb_connection_t* c) {
    xcb_screen_t* screen = xcb_setup_roots_iterator(xcb_get_setup(c)).data;
    const xcb_window_t w = xcb_generate_id(c);
    const std::uint32_t values[] = {screen->black_pixel};
    xcb_create_window(c, XCB_COPY_FROM_PARENT, w, screen->root, 0, 0, kSize, kSize, 0, XCB_WINDOW_CLASS_INPUT_OUTPUT,
                      screen->root_visual, XCB_CW_BACK_PIXEL, values);
    xcb_map_window(c, w);
    xcb_flush(c);
    return w;
}

// Pixmaps to present, each filled with a colour of its own (the content does not matter).
struct Pixmaps {
    std::array<xcb_pixmap_t, 3> ids{};
    std::array<bool, 3> busy{};
    xcb_gcontext_t gc = 0;

    void create(xcb_connection_t* c, xcb_window_t w) {
        xcb_screen_t* screen = xcb_setup_roots_iterator(xcb_get_setup(c)).data;
        gc = xcb_generate_id(c);
        xcb_create_gc(c, gc, w, 0, nullptr);
        for (std::size_t i = 0; i < ids.size(); ++i) {
            ids[i] = xcb_generate_id(c);
            xcb_create_pixmap(c, screen->root_depth, ids[i], w, kSize, kSize);
        }
    }
    // A free pixmap, filled; 0 when all three are still held by the server.
    xcb_pixmap_t fill(xcb_connection_t* c, std::uint32_t colour) {
        for (std::size_t i = 0; i < ids.size(); ++i) {
            if (busy[i]) continue;
            busy[i] = true;
            xcb_change_gc(c, gc, XCB_GC_FOREGROUND, &colour);
            const xcb_rectangle_t all{0, 0, kSize, kSize};
            xcb_poly_fill_rectangle(c, ids[i], gc, 1, &all);
            return ids[i];
        }
        return 0;
    }
    void idle(xcb_pixmap_t p) {
        for (std::size_t i = 0; i < ids.size(); ++i)
            if (ids[i] == p) busy[i] = false;
    }
};

// Vblanks only: wait for each, report it, judge the fit's prediction of it.
void watch_vblanks(const DisplayCmdOptions& o, x11::PresentSource& src, FramePacer& pacer, DisplayCmdResult* r) {
    const clock::time_point end = clock::now() + std::chrono::duration_cast<clock::duration>(
                                                     std::chrono::duration<double>(o.seconds));
    while (clock::now() < end && src.ok()) {
        r->vblanks.expect(pacer.status());
        if (!src.wait(std::chrono::milliseconds(100))) continue;
        const clock::time_point woke = clock::now();
        const std::uint64_t before = src.requested_msc();
        src.poll(pacer, [&](const x11::PresentEvent& e) {
            if (e.kind == x11::PresentEvent::Kind::vblank) r->vblanks.vblank(true, e.msc, e.time, pacer.status());
        });
        if (src.requested_msc() != before) r->vblanks.requested(woke, src.requested_msc(), src.requested_at());
    }
}

// Frames paced by FramePacer at --hz (hybrid wait, vsync off: the frames are placed before the
// vblank they are for, pacer/frame_pacer.hpp "Display lock"), each a pixmap presented at the
// counter of FrameTiming::display_target.
void present_at_time(const DisplayCmdOptions& o, x11::PresentSource& src, FramePacer& pacer, DisplayCmdResult* r) {
    Pixmaps pixmaps;
    pixmaps.create(src.connection(), src.window());
    TargetJudge& targets = r->targets.emplace();
    targets.keep_outcomes = !o.presents_csv.empty();
    clock::time_point first_lock{};
    const clock::time_point end = clock::now() + std::chrono::duration_cast<clock::duration>(
                                                     std::chrono::duration<double>(o.seconds));
    const auto enough = static_cast<std::uint64_t>(o.frames);
    std::uint32_t colour = 0x204060;
    while (clock::now() < end && src.ok() && (enough == 0 || targets.presented < enough)) {
        src.poll(pacer, [&](const x11::PresentEvent& e) {
            using Kind = x11::PresentEvent::Kind;
            if (e.kind == Kind::vblank) {
                r->vblanks.vblank(true, e.msc, e.time, pacer.status());
            } else if (e.kind == Kind::pixmap_shown) {
                targets.shown(e.id, e.msc, e.time);
            } else if (e.kind == Kind::pixmap_skipped) {
                targets.dropped(e.id);
            } else {
                pixmaps.idle(e.pixmap);
            }
        });
        const FrameTiming t = pacer.wait();
        // Locked on counted vblanks: then, and only then, each frame names its target's counter.
        // The warm-up runs once, from the first lock; a frame paced unlocked after it is counted
        // as untargeted (a lock lost to a stalled server clock shows there, not as a restart).
        if (t.has_display_target_msc && first_lock == clock::time_point{}) first_lock = t.wake;
        targets.counting = first_lock != clock::time_point{} && t.wake - first_lock >= kWarmUp;
        if (!t.has_display_target_msc) {
            if (targets.counting) ++targets.untargeted;
            continue;
        }
        const xcb_pixmap_t p = pixmaps.fill(src.connection(), colour += 0x010203);
        if (p == 0) continue;  // the server still holds all three: skip this frame
        const clock::time_point sent = clock::now();
        targets.target_of[src.present(pacer, p, t.display_target_msc)] = {t.display_target_msc, t.deadline, t.wake, sent};
    }
}

}  // namespace

bool run_x11_present(const DisplayCmdOptions& o, DisplayCmdResult* r, std::string* error) {
    x11::PresentSource src(nullptr, o.ahead);
    if (!src.ok()) {
        *error = std::string("x11-present: ") + src.error() + " (is DISPLAY set?)";
        return false;
    }
    if (!src.watch(open_window(src.connection()))) {
        *error = std::string("x11-present: ") + src.error();
        return false;
    }
    PacerConfig c;
    c.target_hz = o.hz;
    c.mode = WaitMode::hybrid;   // vsync off: the pixmaps are presented at a counter instead
    c.max_late_share = 0.001;    // a frame shown after its target counter is one of the 0.1 %
    c.match_display = o.match_display;
    FramePacer pacer(c);
    r->ahead = o.ahead;
    const clock::time_point start = clock::now();
    if (o.present_at_time) present_at_time(o, src, pacer, r);
    else watch_vblanks(o, src, pacer, r);
    r->seconds = std::chrono::duration<double>(clock::now() - start).count();
    r->status = pacer.status();
    if (!src.ok()) {
        *error = std::string("x11-present: ") + src.error();
        return false;
    }
    return true;
}

#endif

}  // namespace pacer::tools
