// The captures of the Vulkan layer or the GL interposer closed, sidecars and all, when the game is
// stopped by SIGTERM or SIGINT (how a player, a launcher or Steam stops a game): without it the
// process would end in the
// signal's default action, and a capture would lose its last rows and have no stats sidecar
// (CaptureWriter writes that at close()).
//
//   pacer_layer::StopSignals stop;
//   stop.watch([] { close_every_capture(); });  // at the first capture; no-op after the first call
//   ...                                         // ~StopSignals (the library unloaded): handlers restored
//
// Only where the game left the signal at its default action: a game that handles SIGTERM or
// SIGINT itself decides how it ends (and destroys its swapchains, which closes the captures).
// The handler only writes the signal's number to a pipe (async-signal-safe); a thread of the
// library's, blocked on that pipe otherwise, closes the captures, then restores the default action
// and sends the signal again, so the process ends as it would have without pacer, only later
// by the time the close takes (a few ms; the sidecar's summary of a full window, 12 ms here).
#pragma once

#include <functional>
#include <thread>

namespace pacer_layer {

class StopSignals {
public:
    StopSignals() = default;
    ~StopSignals();
    StopSignals(const StopSignals&) = delete;
    StopSignals& operator=(const StopSignals&) = delete;

    // Installs the handlers (where the action is the default one) and starts the thread; false
    // when nothing could be installed (no pipe, no thread, the game handles both signals).
    bool watch(std::function<void()> close_all);

private:
    std::function<void()> close_all_;
    std::thread thread_;
    bool ours_[2] = {false, false};
    bool started_ = false;
    void run();
};

}  // namespace pacer_layer
