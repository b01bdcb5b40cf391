#include "vblank_source.hpp"

#include <SDL.h>
#include <SDL_syswm.h>
#include <spdlog/spdlog.h>

#include <optional>

#if defined(PACER_DEMO_HAVE_X11_PRESENT)
#include "pacer/x11_present.hpp"
#endif
#if defined(PACER_DEMO_HAVE_WP_PRESENTATION)
#include "pacer/wayland_presentation.hpp"
#endif

namespace pacer_demo {

struct VblankFeed::Sources {
#if defined(PACER_DEMO_HAVE_X11_PRESENT)
    std::optional<pacer::x11::PresentSource> x11;
#endif
#if defined(PACER_DEMO_HAVE_WP_PRESENTATION)
    std::optional<pacer::wayland::PresentationFeedback> wayland;
#endif
};

VblankFeed::VblankFeed() : s_(std::make_unique<Sources>()) {}
VblankFeed::~VblankFeed() = default;

namespace {

SDL_SYSWM_TYPE subsystem(SDL_Window* w, SDL_SysWMinfo* info) {
    SDL_VERSION(&info->version);
    if (w == nullptr || !SDL_GetWindowWMInfo(w, info)) return SDL_SYSWM_UNKNOWN;
    return info->subsystem;
}

}  // namespace

void VblankFeed::open(SDL_Window* window, const std::string& wanted) {
    name_ = wanted == "none" ? "none" : "swap";
    if (wanted == "none" || wanted == "swap") return;
    SDL_SysWMinfo info;
    const SDL_SYSWM_TYPE sys = subsystem(window, &info);
    const bool x11 = wanted == "x11-present" || (wanted == "auto" && sys == SDL_SYSWM_X11);
    const bool wl = wanted == "wayland" || (wanted == "auto" && sys == SDL_SYSWM_WAYLAND);
    std::string why = "the window system offers neither X11 nor Wayland";
    if (x11) {
#if defined(PACER_DEMO_HAVE_X11_PRESENT)
        if (sys != SDL_SYSWM_X11) {
            why = "the window is no X11 window";
        } else {
            s_->x11.emplace();
            if (s_->x11->ok() && s_->x11->watch(static_cast<std::uint32_t>(info.info.x11.window))) {
                name_ = "x11-present";
                flags_ = {true, true, false, false, false};
                spdlog::info("vblank source: x11-present (each vblank's counter and time from the X server)");
                return;
            }
            why = std::string("X11 Present: ") + s_->x11->error();
            s_->x11.reset();
        }
#else
        why = "this demo was built without libxcb-present";
#endif
    } else if (wl) {
#if defined(PACER_DEMO_HAVE_WP_PRESENTATION)
        if (sys != SDL_SYSWM_WAYLAND) {
            why = "the window is no Wayland surface";
        } else {
            s_->wayland.emplace(info.info.wl.display, info.info.wl.surface);
            if (s_->wayland->ok()) {
                name_ = "wayland";
                spdlog::info("vblank source: wayland (wp_presentation feedback for each frame)");
                return;
            }
            why = std::string("wp_presentation: ") + s_->wayland->error();
            s_->wayland.reset();
        }
#else
        why = "this demo was built without wayland-protocols";
#endif
    }
    spdlog::warn("vblank source {}: {}; the swap's return instead", wanted, why);
}

std::string VblankFeed::flags() const {
    if (!flags_.known) return "not given";
    std::string s;
    auto add = [&](bool on, const char* what) {
        if (!on) return;
        if (!s.empty()) s += ", ";
        s += what;
    };
    add(flags_.vsync, "vsync");
    add(flags_.hw_clock, "hardware clock");
    add(flags_.hw_completion, "hardware completion");
    add(flags_.zero_copy, "zero copy");
    return s.empty() ? "none: shown on the compositor's own timer" : s;
}

void VblankFeed::before_swap([[maybe_unused]] std::uint64_t id) {
#if defined(PACER_DEMO_HAVE_WP_PRESENTATION)
    if (s_->wayland) s_->wayland->request(id);
#endif
}

void VblankFeed::after_swap(pacer::FramePacer& fp, pacer::CaptureWriter& capture) {
    after_swap(fp, [&capture](const pacer::PresentInfo& f) { capture.feedback(f); });
}

void VblankFeed::after_swap([[maybe_unused]] pacer::FramePacer& fp,
                            [[maybe_unused]] const std::function<void(const pacer::PresentInfo&)>& feedback) {
#if defined(PACER_DEMO_HAVE_X11_PRESENT)
    if (s_->x11) s_->x11->poll(fp);
#endif
#if defined(PACER_DEMO_HAVE_WP_PRESENTATION)
    if (s_->wayland)
        s_->wayland->poll(fp, [&](const pacer::wayland::PresentationEvent& e) {
            if (e.presented) flags_ = e.flags;
            feedback(pacer::wayland::PresentationFeedback::to_present(e));
        });
#endif
}

}  // namespace pacer_demo
