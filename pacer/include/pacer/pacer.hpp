// pacer/pacer.hpp - everything. See README.md for the manual; each header carries its own part.
//
//   capture.hpp      CaptureWriter: PresentMon-compatible frame-time capture files
//   time_source.hpp  the OS seam (clock, sleep, spin, CPU time) and PacingScope
//   waiter.hpp       HybridWaiter, pacer::sleep_until / sleep_for, WaitMode
//   frame_pacer.hpp  FramePacer, PacerConfig, LatePolicy, FrameTiming
//   fixed_step.hpp   FixedStep: fixed simulation rate, interpolation alpha
//   stats.hpp        FrameStats (window, percentiles, histograms), CpuMeter
//   vsync.hpp        PresentInfo, VsyncDetector, VsyncStatus: is vsync really pacing?
//   sim.hpp          SimulatedOs: a virtual-time OS for tests and tuning
//   log.hpp          routing or silencing pacer's spdlog output
#pragma once

#include "pacer/capture.hpp"
#include "pacer/fixed_step.hpp"
#include "pacer/frame_pacer.hpp"
#include "pacer/log.hpp"
#include "pacer/sim.hpp"
#include "pacer/stats.hpp"
#include "pacer/status.hpp"
#include "pacer/time_source.hpp"
#include "pacer/waiter.hpp"
#include "pacer/version.hpp"
#include "pacer/vsync.hpp"
