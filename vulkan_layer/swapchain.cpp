#include "swapchain.hpp"

#include <chrono>
#include <cstdio>
#include <exception>
#include <string>
#include <utility>

#include "pacer/config.hpp"

extern char* program_invocation_short_name;  // glibc: the program's name, for the capture

namespace pacer_layer {
namespace {

void to_capture(void* user, const pacer::PresentInfo& f) {
    auto* pacing = static_cast<Pacing*>(user);
    std::lock_guard<std::mutex> lock(pacing->capture_m);
    if (pacing->capturing) pacing->capture.feedback(f);
}

}  // namespace

std::shared_ptr<Pacing> make_pacing(const Settings& s, int capture_number) {
    auto pacing = std::make_shared<Pacing>();
    const pacer::PacerConfig c = pacer_config(s);
    try {
        pacing->fp = std::make_unique<pacer::FramePacer>(c);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "pacer layer: error: %s; this swapchain runs unpaced\n", e.what());
        return nullptr;
    }
    pacing->settings = s;
    const char* app = program_invocation_short_name != nullptr ? program_invocation_short_name : "vulkan";
    if (s.capture.empty()) {
        say_started("pacer layer", s, app, "");
        return pacing;
    }
    pacer::CaptureOptions o;
    o.application = app;
    o.runtime = "Vulkan";
    if (s.hz > 0) o.config = c;
    const std::string path = capture_path(s.capture, capture_number);
    const pacer::Status st = pacing->capture.open(path, o);
    if (!st) {
        std::fprintf(stderr, "pacer layer: error: PACER_CAPTURE=\"%s\": %s; the layer is off for this swapchain\n",
                     path.c_str(), st.message().c_str());
        return nullptr;
    }
    pacing->capturing = true;
    say_started("pacer layer", s, app, path);
    return pacing;
}

Swapchain::Swapchain(const Settings&, std::shared_ptr<Pacing> pacing, const pacer::vk::Dispatch& d, VkDevice device,
                     VkSwapchainKHR handle, VkPresentModeKHR mode)
    : pacing_(std::move(pacing)) {
    if (pacing_ == nullptr) return;
    sp_ = std::make_unique<pacer::vk::SwapchainPacer>(*pacing_->fp, d, device, handle, mode);
    sp_->on_feedback(&to_capture, pacing_.get());
    start_feedback();
}

Swapchain::~Swapchain() { stop_feedback(); }

std::shared_ptr<Pacing> Swapchain::give_up_pacing() {
    stop_feedback();
    sp_.reset();
    return std::move(pacing_);
}

// The thread that waits for each present id in turn; its stamps go out with the next present.
void Swapchain::run_feedback() {
    using namespace std::chrono_literals;
    while (!stop_) {
        if (sp_->wait_feedback(50ms)) continue;
        if (sp_->stopped()) return;  // out of date or lost: nothing more will be shown
        if (sp_->pending() == 0) std::this_thread::sleep_for(2ms);
    }
}

// The pacer belongs to the thread that presents. FramePacer gives a thread's OS settings back
// only on that thread (end_pacing()), which the layer never runs on again once another thread
// presents: that thread gets a new pacer with the same settings (the grid starts anew; the old
// thread keeps what the old pacer set on it, e.g. a raised nice value).
void Swapchain::take_thread() {
    const std::thread::id me = std::this_thread::get_id();
    if (pacing_->thread == me) return;
    if (pacing_->thread != std::thread::id{}) {
        try {
            auto fresh = std::make_unique<pacer::FramePacer>(pacing_->fp->config());
            stop_feedback();  // it reads the pacer's clock
            sp_->rebind(*fresh);
            pacing_->fp = std::move(fresh);
            pacing_->has_timing = false;
            start_feedback();
        } catch (const std::exception&) {  // keep the old one
        }
    }
    pacing_->thread = me;
}

void Swapchain::stop_feedback() {
    stop_ = true;
    if (feedback_.joinable()) feedback_.join();
    stop_ = false;
}

void Swapchain::start_feedback() {
    if (sp_ == nullptr || sp_->feedback() != pacer::vk::Feedback::present_wait) return;
    try {
        feedback_ = std::thread([this] { run_feedback(); });
    } catch (const std::exception&) {
        std::fprintf(stderr, "pacer layer: warning: no thread for present-wait feedback: presents timed only\n");
    }
}

void Swapchain::begin(bool waits) {
    take_thread();
    if (pacing_->settings.hz > 0 && waits && pacing_->settings.before) {
        pacing_->timing = pacing_->fp->wait();  // present sync: returns at once, before_present waits
        pacing_->has_timing = true;
    }
}

void Swapchain::end(bool waited) {
    const pacer::PresentInfo& p = sp_->last_present();
    {
        std::lock_guard<std::mutex> lock(pacing_->capture_m);
        if (pacing_->capturing)
            capture_row(pacing_->capture, pacing_->settings, p, pacing_->has_timing ? &pacing_->timing : nullptr,
                        pacing_->frames, pacing_->last_begin);
    }
    pacing_->has_timing = false;
    ++pacing_->frames;
    pacing_->last_begin = p.begin;
    if (pacing_->settings.hz > 0 && waited && !pacing_->settings.before) {  // the next frame starts on the grid
        pacing_->timing = pacing_->fp->wait();
        pacing_->has_timing = true;
    }
}

}  // namespace pacer_layer
