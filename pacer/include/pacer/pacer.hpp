// pacer/pacer.hpp - everything. Each header carries its own part of the manual.
//
//   frame_pacer.hpp   FramePacer: the frame loop's wait
//   config.hpp        PacerConfig: every setting, its default and range
//   frame_timing.hpp  FrameTiming: what one frame looked like
//   modes.hpp         WaitMode, SyncMode, LatePolicy, CadenceMode, PacingSource
//   present.hpp       PresentInfo: one present as the host saw it
//   clock.hpp         pacer::clock, the one clock of the API; steady_clock conversion
//   clock_offset.hpp  ClockOffset, measure_offset: another clock's times on pacer::clock
//   waiter.hpp        HybridWaiter, pacer::sleep_until / sleep_for
//   estimator.hpp     LatenessEstimator: fading histogram, quantiles, least-cost margin
//   fixed_step.hpp    FixedStep: fixed simulation rate, interpolation alpha
//   cadence.hpp       CadenceGovernor, DisplayDelta, vrr_period: cadence, display time, VRR cap
//   stats.hpp         FrameStats (window, percentiles, histograms), CpuMeter
//   display.hpp       DisplayTracker, DisplayStatus: the display's vblanks fitted from presents
//   vblanks.hpp       Vblanks: the vblanks the pacer aims at (the fit, or the last one seen)
//   present_classifier.hpp  PresentClassifier: did a present wait, when was it shown
//   grid.hpp          DeadlineGrid: exact deadlines, late policies
//   rate.hpp          RatePlanner, RateStatus: the rate in force and why
//   lead.hpp          LeadController: the just-in-time lead
//   latency.hpp       LatencyTracker: a frame's marks to its latency
//   vsync.hpp         VsyncController, VsyncStatus: is vsync really pacing?
//   capture.hpp       CaptureWriter: PresentMon-compatible frame-time capture files
//   capture_columns.hpp  the capture file's columns: one table for writer, reader and docs
//   time_source.hpp   the OS seam (clock, sleep, spin, CPU time) and PacingScope
//   sim.hpp           SimulatedOs: a virtual-time OS for tests and tuning
//   sim_display.hpp   SimulatedDisplay: a display and swap chain in virtual time (vblanks, VRR)
//   log.hpp           routing or silencing pacer's log lines (a plain callback)
//   names.hpp         the name tables of the public enums
//   status.hpp        Status and ConfigError: how settings are refused
//   version.hpp       PACER_VERSION_*, pacer::kVersion
//
// pacer.h, the C API (C99; usable from C++ too), is not included here: a C program includes it
// alone. Its header is its manual.
//
// The headers compile as C++17 and C++20; C++17 code fills the config structs field by field
// (designated initializers, as in the examples, are C++20).
#pragma once

#include "pacer/cadence.hpp"
#include "pacer/capture.hpp"
#include "pacer/capture_columns.hpp"
#include "pacer/clock.hpp"
#include "pacer/clock_offset.hpp"
#include "pacer/config.hpp"
#include "pacer/display.hpp"
#include "pacer/estimator.hpp"
#include "pacer/fixed_step.hpp"
#include "pacer/frame_pacer.hpp"
#include "pacer/frame_timing.hpp"
#include "pacer/grid.hpp"
#include "pacer/guard.hpp"
#include "pacer/latency.hpp"
#include "pacer/lead.hpp"
#include "pacer/log.hpp"
#include "pacer/modes.hpp"
#include "pacer/names.hpp"
#include "pacer/present.hpp"
#include "pacer/present_classifier.hpp"
#include "pacer/priority.hpp"
#include "pacer/rate.hpp"
#include "pacer/sim.hpp"
#include "pacer/sim_display.hpp"
#include "pacer/stats.hpp"
#include "pacer/status.hpp"
#include "pacer/time_source.hpp"
#include "pacer/vblanks.hpp"
#include "pacer/waiter.hpp"
#include "pacer/version.hpp"
#include "pacer/vsync.hpp"
