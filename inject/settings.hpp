// The settings of what paces a game that does not embed pacer (the Vulkan layer, the GL
// interposer; docs/vulkan.md, docs/gl.md), read once from the environment:
//   PACER_HZ         the rate, (0, 10000]; 0 or unset: no limit, capture only
//   PACER_PLACEMENT  before (default): the wait sits just before the present (SyncMode::present;
//                    MangoHud's "early"): flat presents, the input read a frame of work earlier;
//                    after: the wait follows the present, the next frame starts on the grid
//                    (SyncMode::frame_start; MangoHud's "late"): the lower latency, and the
//                    frame's own work (from the wait to the game's next present) moves every
//                    present. Why before: the game's work varies, and after passes that on to
//                    the presents the player sees (measured against MangoHud's limiter in both
//                    APIs: docs/gl.md#the-default-placement)
//   PACER_PRIORITY   automatic (default), high, wait, thread, normal (pacer/priority.hpp)
//   PACER_WAIT       sleep (default): the OS sleep and a lean spin over the dense part of the
//                    wake-up's learned spread only (WaiterConfig::late_cost a 32nd of the
//                    period, 521 us at 60 Hz, under 1 ms: no floor; tens of us a frame), about
//                    MangoHud's CPU; hybrid: the library's default, the spin over the spread's
//                    tail too, the tightest tail for more CPU (docs/vulkan.md has both measured
//                    against MangoHud)
//   PACER_CAPTURE    a PresentMon-style capture per swapchain: the path, then path-2.csv, ...
//   PACER_LOG        debug, info, warn (default), error, off
// A value that cannot be read turns pacing off (every present passes through, nothing is
// captured) with one line on stderr that names the variable, the value and what it takes.
#pragma once

#include <string>

#include "pacer/log.hpp"
#include "pacer/modes.hpp"

namespace pacer_layer {

struct Settings {
    double hz = 0;  // 0: no limit, capture only
    bool before = true;  // PACER_PLACEMENT=before (the default); after: false
    pacer::ThreadPriority priority = pacer::ThreadPriority::automatic;
    bool sleep_only = true;  // PACER_WAIT=sleep (the default); hybrid: false
    std::string capture;  // "" none
    pacer::LogLevel log = pacer::LogLevel::warn;
    bool on = true;       // false: a bad value; the layer passes everything through
    std::string error;    // why not on
};

// getenv-like: nullptr for an unset variable.
using Getenv = const char* (*)(const char* name);
Settings read_settings(Getenv get);

// "dir/name.csv" for the first capture of the process, "dir/name-<n>.csv" for the n-th.
std::string capture_path(const std::string& base, int n);

// The one line that pacing a swapchain or a window says by default (PACER_LOG=off silences it):
// what is paced, at what rate, with which settings, and where its capture goes, so that a player
// sees pacer at work without reading a capture. who: "pacer layer", "pacer gl".
void say_started(const char* who, const Settings& s, const char* app, const std::string& capture);

}  // namespace pacer_layer
