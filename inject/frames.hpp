// What the Vulkan layer and the GL interposer make of each frame alike, from the PACER_* settings
// (settings.hpp): the pacer's config, and the capture row of a present.
#pragma once

#include <cstdint>

#include "pacer/capture.hpp"
#include "pacer/config.hpp"
#include "pacer/frame_timing.hpp"
#include "pacer/present.hpp"
#include "settings.hpp"

namespace pacer_layer {

// The FramePacer's config: the rate (60 Hz where PACER_HZ is 0: capture only, it never waits),
// WaitMode::automatic (the swap paces where it holds the rate: the vsync hand-off), the sync mode
// PACER_PLACEMENT names, the priority, and PACER_WAIT=sleep's lean spin (late_cost a 32nd of
// the period).
pacer::PacerConfig pacer_config(const Settings& s);

// The capture's row of the present p. waited: the frame's own wait, or nullptr for a frame the
// pacer did not wait for (capture only, the first frame, a second swapchain of a present), whose
// wake is its present call (frames: the frames captured before it; last_begin: the previous
// present's begin). Its PacingSource column says "unpaced" or "none" for such a frame, and
// "sleep" where PACER_WAIT=sleep's waiter paced it (the setting's name, not the waiter's).
void capture_row(pacer::CaptureWriter& capture, const Settings& s, const pacer::PresentInfo& p,
                 const pacer::FrameTiming* waited, std::uint64_t frames, pacer::clock::time_point last_begin);

}  // namespace pacer_layer
