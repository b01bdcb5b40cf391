// pacer/vsync.hpp - is vsync really pacing the frames? Evidence from the host's presents.
//
//   VsyncController       the decision (FramePacer's vsync half): one thread, no clock
//     configure(mode, hz, now)   the mode and the target rate changed, or a decision is due
//     on_present(p)       one present; on_frame() once per frame: does the swap pace it?
//     status, desired_swap_interval, last_present_locked
//   VsyncDetector         the evidence: locked presents, hysteresis, the swap's own cadence
//   VsyncStatus, VsyncReason   what is decided and why (a code and a sentence)
//   compatible_swap_interval(refresh, target)   N with refresh / N within 0.5 % of the target
//
// Vsync is the best pacer when it works: exact and free. But drivers and users override the swap
// interval, the display may refresh at a rate the game does not want, and under a compositor or a
// virtual display (Xvfb + Mesa) the swap may not block at all. So pacer trusts vsync only on
// evidence. The host reports every present (no SDL or GL dependency here):
//
//   int want = fp.desired_swap_interval();                   // 0 = vsync off, N = every N-th vblank
//   if (want != in_effect) in_effect = SDL_GL_SetSwapInterval(want) == 0 ? want : -1;
//   pacer::clock::time_point t0 = fp.now();
//   SDL_GL_SwapWindow(window);
//   fp.report_present({t0, fp.now(), in_effect, refresh_hz});
//
// (A host that times the swap with std::chrono::steady_clock converts with
// pacer::clock::from_steady(); see pacer/clock.hpp.) An SDL2 game gets all of this from the
// optional header-only adapter pacer/sdl2.hpp (target pacer::sdl2).
//
// Feeding presents from other APIs. The rule is the same everywhere: one report per frame, in
// order; `end` is the best time the host has of when the frame reached the display's vblank,
// `begin` the time just before the call that waits for it (or the submit, when nothing waits);
// `swap_interval` what the API really took (-1 when it refused, or cannot do what the pacer asks,
// such as interval 2 where only "on" exists: the pacer then paces with its own wait). A report may
// come a frame or two late (feedback events arrive after the vblank). Times are pacer::clock:
// CLOCK_MONOTONIC in nanoseconds on Linux, QueryPerformanceCounter converted to nanoseconds on
// Windows, mach_absolute_time scaled by mach_timebase_info on macOS (pacer/clock.hpp). A
// timestamp on another clock needs a common reference: read that clock and FramePacer::now() back
// to back, and add the difference.
//
//   Swap return (SDL2, GLX, EGL, any blocking present): time the call with FramePacer::now() before
//     and after. With vsync on and one frame in flight the return traces the vblank grid; a virtual
//     display or a compositor that does not block shows as such, which is the point.
//   Vulkan VK_KHR_present_wait (+ VK_KHR_present_id): give each vkQueuePresentKHR a presentId
//     (VkPresentIdKHR in VkPresentInfoKHR's pNext), then vkWaitForPresentKHR(device, swapchain,
//     id of the previous frame, timeout in ns) before the next frame: `begin` before the present,
//     `end` when the wait returns (it carries no timestamp). Swap interval: FIFO = 1, MAILBOX and
//     IMMEDIATE = 0; Vulkan has no interval 2 (report -1 when the pacer asks for it).
//   Vulkan VK_GOOGLE_display_timing: vkGetPastPresentationTimingGOOGLE gives, per presentID,
//     actualPresentTime in nanoseconds "relative to a monotonically-increasing clock (e.g.
//     CLOCK_MONOTONIC on Android and Linux)": there, `end` = clock::from_ns(actualPresentTime);
//     elsewhere the clock is not named, so calibrate first. vkGetRefreshCycleDurationGOOGLE gives
//     refreshDuration in ns: refresh_hz = 1e9 / refreshDuration.
//   Vulkan VK_EXT_present_timing: ask for VK_PRESENT_STAGE_IMAGE_FIRST_PIXEL_VISIBLE_BIT_EXT in
//     VkPresentTimingInfoEXT::presentStageQueries; vkGetPastPresentationTimingEXT returns
//     VkPresentStageTimeEXT times in ns in the record's timeDomain. VK_TIME_DOMAIN_CLOCK_MONOTONIC_KHR
//     is pacer::clock on Linux; VK_TIME_DOMAIN_QUERY_PERFORMANCE_COUNTER_KHR counts QPC ticks
//     (convert as above); the swapchain- and present-stage-local domains are opaque: calibrate
//     them with vkGetCalibratedTimestampsKHR (VkSwapchainCalibratedTimestampInfoEXT) against one
//     of those two. vkGetSwapchainTimingPropertiesEXT: refreshDuration in ns (0 unknown); when
//     refreshInterval is UINT64_MAX the display is variable-refresh and refreshDuration only its
//     minimum: report refresh_hz 0, and the pacer's own wait paces (the display follows it).
//   DXGI: the frame-latency waitable object (swap chain created with
//     DXGI_SWAP_CHAIN_FLAG_FRAME_LATENCY_WAITABLE_OBJECT, IDXGISwapChain2::
//     GetFrameLatencyWaitableObject, SetMaximumFrameLatency(1)) is what blocks, not Present: `begin`
//     before Present, `end` when WaitForSingleObjectEx on it returns before the next frame. Swap
//     interval = Present's SyncInterval (0-4). IDXGISwapChain::GetFrameStatistics (flip model or
//     fullscreen only) gives DXGI_FRAME_STATISTICS::SyncQPCTime, a QueryPerformanceCounter value
//     at the vblank counted by SyncRefreshCount: the same clock as pacer::clock on Windows, ticks
//     to convert to ns. Refresh: the output's DXGI_MODE_DESC::RefreshRate (Numerator / Denominator).
//   Wayland wp_presentation: the clock_id event names the presentation clock (a clockid_t for
//     clock_gettime); wp_presentation.feedback(surface) before each commit, then the feedback's
//     presented event gives tv_sec_hi, tv_sec_lo, tv_nsec (seconds = hi << 32 | lo) and refresh in
//     ns (0 unknown: refresh_hz = 1e9 / refresh otherwise). When clock_id is CLOCK_MONOTONIC,
//     `end` = clock::from_ns(seconds * 1e9 + tv_nsec) on Linux; another clock needs the common
//     reference. Without WP_PRESENTATION_FEEDBACK_KIND_VSYNC in the flags the time is not a
//     vblank. A discarded event means the frame was never shown: report it with `end` = the time
//     the event arrived (it counts as unlocked), so the pacer still sees one report per frame.
//   Apple: CADisplayLink's timestamp (the last frame displayed), targetTimestamp and duration, and
//     MTLDrawable.presentedTime (read in addPresentedHandler; 0.0 when the frame was dropped) are
//     CFTimeInterval seconds of host time, CACurrentMediaTime's clock: mach_absolute_time in
//     seconds, so `end` = clock::from_ns(llround(seconds * 1e9)) on macOS. The presented handler
//     runs on another thread: hand the time to the pacer's thread (FramePacer is single-threaded).
//     Refresh: 1 / duration, or the screen's maximumFramesPerSecond; for a ProMotion
//     (variable-refresh) display report refresh_hz 0, as above.
//
// A present is "locked" when it ends k >= swap-interval refresh periods after the previous one
// and on the vblank grid that earlier presents traced: inside the window of the one present rule
// (pacer/present_classifier.hpp: no earlier than max(0.25 ms, 3 % of a period) before a
// predicted vblank, no later than min(2 ms, a quarter period) after it; the classifier's manual
// says why it is lopsided). The grid follows the earliest returns (a present earlier than
// predicted moves it at once, a later one by an eighth), so a late wake-up does not drag it and a
// refresh slightly off its report is tracked. Hysteresis as in
// Tyler Glaiel's "How to make your game run at 60fps": 16 locked presents in a row verify vsync,
// 4 unlocked ones in a row drop it, so one hitch (a long frame is still locked: it shows at a
// later vblank) or one odd swap does not flip the decision.
//
// VsyncController is the decision, FramePacer's vsync half: pure logic on the times it is given,
// no clock, no sleeping. In WaitMode::automatic it asks for vsync when the display's refresh
// serves the target (refresh / N within 0.5 % of it), trusts it after 16 locked presents, drops
// it after 4 unlocked ones or when more than 10 % of the last 64 presents missed a vblank, and
// then paces with hybrid sleep, vsync off. A swap that does block, but at a steady cadence the
// reported refresh does not explain (a compositor repainting at 50 Hz while the mode says 60 Hz),
// is measured and named: VsyncStatus::swap_hz, reason auto_other_rate. One that blocks without a
// steady pace (a compositor's repaint on a stalling machine), or at the refresh's rate but too
// irregularly to verify, is auto_irregular; auto_not_blocking says that the median swap call took
// under a quarter of the median time between presents (both log those two medians). Vsync is probed again 10 s after a fallback (doubling
// up to 160 s while it keeps failing; at once when the target changes by more than 0.5 %, as a
// cadence switch or a matched display rate does). A probe does not show in the frame times: the loop runs
// at most 1/16 faster than the target (FramePacer's floor), enough for a FIFO of up to 3 frames to
// fill within 48 presents and the swap to block; until then a swap that does not block proves
// nothing either way, so a driver that ignores the interval costs those 48 slightly short frames
// (under a second at 60 Hz), not a busy loop. Verification also needs the presents' mean interval
// within 1/32 of the refresh, so the floor's own steady pace cannot pass for vsync. A refresh change is acted on at the next present. In WaitMode::vsync the swap
// paces, always; the status says whether presents show it working, and a warning is logged when
// they do not. The reason for the current choice is queryable (VsyncStatus) and logged once per
// change, at info level (warn for a vsync mode that presents contradict); plain sleep, spin and
// hybrid modes log nothing about vsync.
#pragma once

#include <chrono>
#include <cstdint>

#include "pacer/clock.hpp"
#include "pacer/modes.hpp"
#include "pacer/names.hpp"
#include "pacer/present.hpp"

namespace pacer {

// Swap interval N for which refresh / N is target within 0.5 % (59.94 Hz serves 60); 0 if none.
int compatible_swap_interval(double refresh_hz, double target_hz) noexcept;

// The evidence half: locked / unlocked presents with hysteresis. Pure logic, no clock.
class VsyncDetector {
public:
    static constexpr int kTrustAfter = 16;  // locked presents in a row to verify
    static constexpr int kDropAfter = 4;    // unlocked presents in a row to drop
    // A present that waited in the swap and came back after its vblank by more than the lock
    // window is late, not unlocked: the machine ran the thread late (a stall, a busy core). It
    // neither verifies nor drops vsync while at most kLateOf16 of the last 16 presents were
    // late; beyond, late ones count as unlocked (a swap that waits at a cadence of its own, a
    // compositor's, comes back late at every phase). (When every late present counted as
    // unlocked, a machine that stalls now and then soon dropped verified vsync, four presents off
    // the grid in a row: docs/platforms.md#measured-vsync-verdicts.)
    static constexpr int kLateOf16 = 5;

    // Feeds one present. Returns true if this present was locked.
    bool add(const PresentInfo& present) noexcept;
    void reset() noexcept;

    bool verified() const noexcept { return verified_; }
    int locked_streak() const noexcept { return good_; }
    int unlocked_streak() const noexcept { return bad_; }
    // Share of the last 64 locked presents that came more than swap_interval vblanks late.
    double missed_share() const noexcept;
    int locked_in_window() const noexcept;  // locked presents among the last 64
    // Presents among the last kWaitedWindow that blocked in the swap for a quarter period or more
    // and came back on the grid: the swap still waits for the vblanks. (After a stall a FIFO
    // swap returns at once for several presents while its queue refills:
    // docs/platforms.md#measured-vsync-verdicts.)
    static constexpr int kWaitedWindow = 12;
    int waited_on_grid() const noexcept;
    clock::duration last_swap() const noexcept { return last_block_; }  // duration of the last swap
    // The swap's own cadence: the mean time between the ends of the last kCadenceWindow presents
    // (at least kCadenceMin), leaving out those off their median by more than half of it (a hitch,
    // a doubled frame), when at least 3/4 remain and the swap waited: swap_waits(). A compositor's
    // repaint clock wanders (weston's on a loaded machine:
    // docs/platforms.md#measured-vsync-verdicts), so the mean, not a tight lock test. Zero when
    // presents do not show one (a swap that returns at once).
    static constexpr int kCadenceWindow = 16;
    static constexpr int kCadenceMin = 8;
    clock::duration cadence() const noexcept;
    // The same mean, whether the swap waited or not (zero with fewer than kCadenceMin intervals).
    clock::duration mean_interval() const noexcept;
    // The median swap call of the recent presents took at least a quarter of the median interval
    // between them: the swap, not the loop around it, set their pace.
    bool swap_waits() const noexcept;
    clock::duration median_swap() const noexcept;      // of the recent presents' swap calls (0: < 2)
    clock::duration median_interval() const noexcept;  // between the recent presents (0: < 2)
    int intervals_seen() const noexcept { return ring_count_; }  // in the window, since reset()

private:
    enum class Evidence { none, locked, late, unlocked };
    Evidence judge(const PresentInfo& p, clock::time_point prev, bool* missed) noexcept;

    clock::time_point last_end_{};
    bool have_last_ = false;
    clock::time_point grid_{};   // a predicted vblank: the vblank grid presents follow
    double index_ = 0;           // the previous present's vblank, counted from grid_
    bool have_grid_ = false;
    unsigned late_bits_ = 0;     // the last 16 presents: late ones
    unsigned waited_bits_ = 0;   // the last kWaitedWindow: locked after blocking a quarter period
    clock::duration last_block_{0};
    int good_ = 0, bad_ = 0;
    bool verified_ = false;
    std::uint64_t missed_bits_ = 0, locked_bits_ = 0;  // the last 64 presents
    std::int64_t intervals_[kCadenceWindow] = {}, swaps_[kCadenceWindow] = {};  // ns, a ring
    int ring_count_ = 0, ring_next_ = 0;
};

// Why the pacer does what it does about vsync. The text (to_string) is for people; compare codes.
enum class VsyncReason {
    off,                 // plain sleep, spin or hybrid mode: the pacer's wait paces the frames
    vsync_verified,      // vsync mode, presents show vsync
    vsync_unverified,    // vsync mode, not yet enough presents to tell
    vsync_not_shown,     // vsync mode, but presents do not show vsync (a warning)
    auto_waiting,        // auto: no present has reported the display yet
    auto_bad_refresh,    // auto: refresh rate unknown or absurd
    auto_no_divisor,     // auto: the refresh is not a whole multiple of the target
    auto_probing,        // auto: vsync asked for, evidence being gathered
    auto_refused,        // auto: the driver refused the swap interval
    auto_not_blocking,   // auto: the swap does not wait for vblank
    auto_other_rate,     // auto: the swap waits, at a cadence (swap_hz) the refresh does not explain
    auto_irregular,      // auto: the swap waits (at the refresh rate, or at no steady pace), too irregular to verify
    auto_verified,       // auto: vsync verified, the swap paces
    auto_lost,           // auto: vsync was verified and stopped showing
    auto_missing,        // auto: more than 10 % of refreshes missed
};
inline constexpr EnumName<VsyncReason> kVsyncReasonNames[] = {
    {VsyncReason::off, "vsync off: the pacer's wait paces the frames"},
    {VsyncReason::vsync_verified, "vsync mode: the swap paces the frames (verified)"},
    {VsyncReason::vsync_unverified, "vsync mode: the swap paces the frames (not yet verified)"},
    {VsyncReason::vsync_not_shown, "vsync mode: the swap paces the frames, but presents do not show vsync"},
    {VsyncReason::auto_waiting, "auto: the pacer's wait until a present reports the display"},
    {VsyncReason::auto_bad_refresh, "auto: display refresh rate unknown or absurd, the pacer's wait with vsync off"},
    {VsyncReason::auto_no_divisor,
     "auto: the refresh rate is not a whole multiple of the target rate, the pacer's wait with vsync off"},
    {VsyncReason::auto_probing, "auto: probing vsync (frames at most 1/16 shorter than the target period)"},
    {VsyncReason::auto_refused, "auto: the driver refused the swap interval, the pacer's wait with vsync off"},
    {VsyncReason::auto_not_blocking,
     "auto: the swap does not wait for vblank (vsync off, ignored by the driver or a virtual display), "
     "the pacer's wait with vsync off"},
    {VsyncReason::auto_other_rate,
     "auto: the swap waits, but at another rate than the reported refresh (a compositor or driver "
     "pacing it), the pacer's wait with vsync off"},
    {VsyncReason::auto_irregular,
     "auto: the swap waits, but its presents were too irregular to verify vsync, "
     "the pacer's wait with vsync off"},
    {VsyncReason::auto_verified, "auto: vsync verified at the target rate, the swap paces the frames"},
    {VsyncReason::auto_lost, "auto: vsync lost, the pacer's wait with vsync off"},
    {VsyncReason::auto_missing, "auto: vsync missed more than 10 % of refreshes, the pacer's wait with vsync off"},
};
inline const char* to_string(VsyncReason reason) noexcept { return name_of(kVsyncReasonNames, reason); }

struct VsyncStatus {
    bool requested = false;       // the pacer wants vsync on (desired_swap_interval() > 0)
    bool detected = false;        // presents show vsync pacing (verified)
    bool in_use = false;          // frames are paced by the swap, not by the pacer's wait
    int swap_interval = 0;        // what the pacer asks for
    double refresh_hz = 0;        // last reported refresh rate (0 unknown)
    double swap_hz = 0;           // the swap's measured cadence, when it blocks steadily (0 unknown)
    int locked_streak = 0;        // presents in a row on the vblank grid (VsyncDetector::kTrustAfter verify)
    VsyncReason code = VsyncReason::off;  // why the pacer does what it does ...
    const char* reason = to_string(VsyncReason::off);  // ... in words (static storage)
};

class VsyncController {
public:
    // The pacer's settings changed (mode or target), or a decision is due.
    void configure(WaitMode mode, double target_hz, clock::time_point now) noexcept;
    // One present from the host.
    void on_present(const PresentInfo& present) noexcept;
    // Called once per frame by the pacer: true when the swap paces this frame. A host that
    // reported no present for two frames cannot be paced by its swap, whatever the mode.
    bool on_frame() noexcept;

    const VsyncStatus& status() const noexcept { return vs_; }
    int desired_swap_interval() const noexcept { return vs_.swap_interval; }
    bool last_present_locked() const noexcept { return last_locked_; }
    const VsyncDetector& detector() const noexcept { return detector_; }

private:
    enum class State { off, waiting, probing, verified, fallback };
    void decide(clock::time_point now) noexcept;
    void decide_vsync(int n) noexcept;
    void decide_probing(int n, clock::time_point now) noexcept;
    void decide_verified(int n, clock::time_point now) noexcept;
    void set(State state, int interval, VsyncReason reason) noexcept;
    void fall_back(VsyncReason reason, bool schedule_probe, clock::time_point now) noexcept;
    bool at_refresh(int swap_interval) const noexcept;
    bool waits_at_refresh(int swap_interval) const noexcept;

    WaitMode mode_ = WaitMode::hybrid;
    double target_hz_ = 60.0;
    VsyncDetector detector_;
    VsyncStatus vs_;
    State state_ = State::off;
    double refresh_hz_ = 0;
    int interval_in_effect_ = -1;
    int settle_ = 0;                    // presents to ignore after a swap-interval change
    int probe_presents_ = 0;
    clock::time_point next_probe_{};
    clock::duration probe_backoff_{0};
    bool last_locked_ = false;
    bool present_failed_ = false;
    bool presented_ = false;            // a present has been reported
    int frames_without_present_ = 0;
};

}  // namespace pacer
